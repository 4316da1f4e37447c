"""A throw-away copy of the course, graded by an ordinary user.

Instructors run nbgrader as themselves, never as root, so the tests do too:
when the suite runs as root (as CI does), `Grader` makes an ordinary user,
`course-grader`, delegates a cgroup to it (as systemd does for a user), and
runs every nbgrader command of a `Course` copy as that user.
"""
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook

from authoring.build import ROOT, nbgrader
from course import names
from course.names import LANGUAGES, assignment

# the demo builds its cohort with these too (one copy); the tests take `fill` from here
from grader.demo import fill, solved  # noqa: F401

from .processes import once, remove_at_the_end

UNITS = {unit: tuple(assignment(unit, lang) for lang in LANGUAGES) for unit in names.UNITS}
ASSIGNMENTS = [a for pair in UNITS.values() for a in pair]

def cell_index(assignment, grade_id):
    """Where the cell `grade_id` is in the release notebook of `assignment` (what a student opens)."""
    unit = assignment.rsplit("-", 1)[0]
    nb = nbformat.read(ROOT / "release" / assignment / f"{unit}.ipynb", as_version=4)
    return next(i for i, cell in enumerate(nb.cells) if cell.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


GRADER_USER = "course-grader"
COURSE_ID = "autograd-by-hand"  # grader/plugins/wiring.py


class Grader:
    """Who runs nbgrader in the tests: this process's user, or, when that is
    root, the ordinary user GRADER_USER with a cgroup delegated to it."""

    def __init__(self):
        self.user = None
        self.cgroup_parent = ""
        self.delegated = []
        if os.geteuid() == 0:
            self.user = ordinary_user()
            self.delegated = delegate_cgroups(self.user)
            if self.delegated:
                self.cgroup_parent = self.delegated[0].name
        self.home = Path(tempfile.mkdtemp(prefix="course-grader-home-"))
        self.own(self.home)

    def own(self, path):
        """Give `path` (recursively) to the grading user."""
        if self.user is not None:
            for item in [Path(path), *Path(path).rglob("*")]:
                os.chown(item, self.user.pw_uid, self.user.pw_gid, follow_symlinks=False)

    def options(self):
        env = {key: value for key, value in os.environ.items() if not key.startswith("JUPYTER")}
        env.update(HOME=str(self.home), JUPYTER_RUNTIME_DIR=str(self.home / "runtime"),
                   # a secret of the grader's (as JupyterHub exports its API token): no
                   # kernel may see it
                   COURSE_PLANTED_SECRET="planted-secret-4b1d")
        options = {"env": env}
        if self.user is not None:
            options.update(user=self.user.pw_uid, group=self.user.pw_gid, extra_groups=[])
        return options

    def arguments(self):
        return [f"--SandboxedKernelManager.cgroup_parent={self.cgroup_parent}"] \
            if self.cgroup_parent else []

    def close(self):
        from grader.sandbox.cgroups import KernelGroup
        KernelGroup(self.delegated, 1).remove()
        shutil.rmtree(self.home, ignore_errors=True)


def ordinary_user():
    """The grading user (made if missing), able to reach the interpreter and the course."""
    try:
        user = pwd.getpwnam(GRADER_USER)
    except KeyError:  # another test process (pytest-xdist) may make it at the same moment
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                        GRADER_USER], check=False)
        user = pwd.getpwnam(GRADER_USER)
        remove_at_the_end(GRADER_USER)
    # the interpreter may live under a private home (/root/.pyenv): let others
    # traverse (not list) the folders above it
    for path in {Path(sys.base_prefix), Path(sys.prefix), ROOT}:
        for folder in [path, *path.parents]:
            mode = folder.stat().st_mode
            if not mode & stat.S_IXOTH:
                folder.chmod(mode | stat.S_IXOTH)
    return user


def delegate_cgroups(user):
    """Folders under this process's memory and pids cgroups, given to `user`
    (cgroup v1, as on the CI machine); [] where that cannot be done."""
    from grader.sandbox.cgroups import ROOT as CGROUPS
    from grader.sandbox.cgroups import own_path, version
    if version() != 1:
        return []
    name = f"course-tests-{os.getpid()}"
    folders = []
    try:
        for controller in ("memory", "pids"):
            folder = CGROUPS / controller / own_path(controller).strip("/") / name
            folder.mkdir()
            folders.append(folder)
            for item in [folder, *folder.iterdir()]:
                os.chown(item, user.pw_uid, user.pw_gid)
    except OSError:
        return []
    return folders


class Course:
    """A copy of the course in a temporary folder, graded with stock nbgrader by `grader`."""

    def __init__(self, root, grader, generated=()):
        """`generated`: assignments already generated, as `nbgrader generate_assignment A
        --force` leaves them (see `generate`)."""
        self.root = Path(root)
        self.grader = grader
        for name in ("notebooks", "source", "release"):
            shutil.copytree(ROOT / name, self.root / name)
        shutil.copy(ROOT / "nbgrader_config.py", self.root)
        self.root.chmod(0o755)
        grader.own(self.root)
        if generated:
            self.generate(*generated)

    @classmethod
    def at(cls, root, grader):
        """The course copy already at `root` (made by another fixture, or another test process)."""
        course = cls.__new__(cls)
        course.root, course.grader = Path(root), grader
        return course

    def generate(self, *assignments):
        """`nbgrader generate_assignment A --force` for each of `assignments`, in this copy.
        Stock nbgrader runs once for the whole run for each set of assignments, in a copy of its
        own (support/processes.py); a later copy takes what it wrote (release/ and the gradebook),
        the same bytes, without paying seconds per copy for starting nbgrader again."""
        key = tuple(sorted(assignments))

        def first():
            copy = Course(course_folder(), self.grader)
            for pattern in one_glob(key):
                done = copy.nbgrader("generate_assignment", pattern, "--force")
                assert done.returncode == 0, done.stderr[-3000:]
            return copy.root
        generated = once("generated-" + "+".join(key), first)
        for name in assignments:
            shutil.rmtree(self.root / "release" / name)
            shutil.copytree(generated / "release" / name, self.root / "release" / name)
            self.grader.own(self.root / "release" / name)
        shutil.copy(generated / "gradebook.db", self.root / "gradebook.db")
        self.grader.own(self.root / "gradebook.db")

    def nbgrader(self, *arguments, check=True):
        extra = self.grader.arguments() if arguments and arguments[0] == "autograde" else []
        return nbgrader(*arguments, *extra, root=self.root, check=check, capture_output=True,
                        text=True, **self.grader.options())

    def release(self, assignment):
        """The notebook a student receives."""
        return nbformat.read(self.root / "release" / assignment / f"{unit_of(assignment)}.ipynb", 4)

    def solved(self, assignment):
        """The release with every answer cell filled with the instructor's solution."""
        source = nbformat.read(self.root / "source" / assignment / f"{unit_of(assignment)}.ipynb", 4)
        return solved(self.release(assignment), source)

    def submit(self, student, assignment, notebook):
        folder = self.root / "submitted" / student / assignment
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{unit_of(assignment)}.ipynb"
        if isinstance(notebook, (str, bytes)):
            path.write_text(notebook) if isinstance(notebook, str) else path.write_bytes(notebook)
        else:
            nbformat.write(notebook, path)
        self.grader.own(self.root / "submitted")
        return path

    def autograde(self, assignment):
        return self.nbgrader("autograde", assignment, "--force", check=False)

    def grade(self, assignment, *options, workers=2):
        """The cohort graded by the course's parallel command (grader/cohort/grading.py: stock
        `nbgrader autograde --student ID` per submission, `workers` at a time). It exits 1,
        with a NOT GRADED line on stderr, when a submission could not be graded. More
        assignments may come first in `options`: one run grades them one after the other."""
        return subprocess.run([sys.executable, "-m", "grader", "grade", assignment, *options,
                               f"--workers={workers}", "--no-progress", *self.grader.arguments()],
                              check=False, cwd=self.root, capture_output=True, text=True,
                              **self.grader.options())

    def score(self, assignment, student):
        with Gradebook(f"sqlite:///{self.root / 'gradebook.db'}") as gb:
            return gb.find_submission(assignment, student).score

    def cell_scores(self, assignment, student, db_url=None):
        with Gradebook(db_url or f"sqlite:///{self.root / 'gradebook.db'}", COURSE_ID) as gb:
            notebook = gb.find_submission(assignment, student).notebooks[0]
            return {grade.name: grade.score for grade in notebook.grades}

    def autograded(self, assignment, student):
        return nbformat.read(self.root / "autograded" / student / assignment
                             / f"{unit_of(assignment)}.ipynb", 4)


def one_glob(assignments):
    """The assignment ids to give `nbgrader generate_assignment`, which reads one as a glob:
    one process for every assignment ("*") or both languages of a unit ("unit-*")."""
    every = sorted(a for pair in UNITS.values() for a in pair)
    for pattern, matched in [("*", every), *((f"{unit}-*", sorted(pair)) for unit, pair in UNITS.items())]:
        if list(assignments) == matched:
            return [pattern]
    return list(assignments)


def unit_of(assignment):
    return assignment.rsplit("-", 1)[0]


def verdict_text(cell):
    """The grader's verdict, always the first output of a graded test cell."""
    first = cell.outputs[0]
    return first.get("evalue") or first.get("text", "")


def graded_cells(nb):
    """Autograded test cells (manually graded answers are the instructor's)."""
    return {c.metadata["nbgrader"]["grade_id"]: c for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("grade") and not c.metadata["nbgrader"].get("solution")}


def course_folder():
    """A new folder for a course copy, reachable by the grading user (pytest's own
    temporary folders are private to root)."""
    return tempfile.mkdtemp(prefix="course-copy-")


def gradebook_rows(db_url, assignment):
    """student -> what the gradebook holds of their submission to `assignment`: totals,
    and per cell its scores and whether it still needs a person."""
    found = {}
    with Gradebook(db_url, COURSE_ID) as gb:
        for student in sorted(s.id for s in gb.students):
            submission = gb.find_submission(assignment, student)
            found[student] = {
                "score": submission.score, "max_score": submission.max_score,
                "code_score": submission.code_score,
                "needs_manual_grade": submission.needs_manual_grade,
                "cells": {grade.name: (grade.auto_score, grade.manual_score, grade.extra_credit,
                                       grade.needs_manual_grade)
                          for notebook in submission.notebooks for grade in notebook.grades}}
    return found
