"""The Validate button of the student's JupyterLab, telling the truth.

nbgrader's own button runs the notebook and fails on any failing grade cell; it
says "Success" for a notebook whose graded cells were deleted, and fails on an
optional bonus left blank. The course's check (`check`), used by the button and by
`python -m course submit`, says "Success" only when

- the notebook is the assignment's (its release file name, in its folder),
- every graded cell of the release (nbgrader's grade, locked and solution cells)
  is present, by its id, and every one the grader restores (tests, read-only
  cells) is unaltered: same nbgrader checksum as in the release,
- every visible test worth points passes (0-point bonus tests never fail it).

Failures come in notebook order, each named by its exercise (the heading above
it), the first marked as the one to do first. The answer has nbgrader's format
({"failed": [{"source", "error", "raw_error"}]}), so nbgrader's lab extension shows
it unchanged. This module is also a Jupyter server extension: student mode
(course/start.py) enables it in place of nbgrader's validate_assignment. The kernel it
starts takes the server's own kernel settings: on a class's hub, sockets in the server's
private folder, never a port on the machine's loopback (classroom/hub.py).
"""
import html
import os
import re
import shlex
import shutil
import sys
import tempfile
import textwrap
import uuid
from pathlib import Path

import nbformat
from jupyter_core.paths import jupyter_runtime_dir
from nbgrader import utils
from nbgrader.validator import Validator
from traitlets.config import Config

from course import names
from course.i18n import say
from course.server_settings import INSTALLED_COURSE
from course.work import release_notebook

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*$", re.MULTILINE)
EXERCISE = re.compile(r"exercise|ejercicio|bonus|extra", re.IGNORECASE)


class CourseValidator(Validator):
    """nbgrader's Validator, where a test worth 0 points (a bonus) never fails."""

    def _get_failed_cells(self, nb):
        return [cell for cell in super()._get_failed_cells(nb)
                if not (utils.is_grade(cell) and float(cell.metadata.nbgrader.get("points", 0)) == 0)]


def language_of(notebook):
    """The assignment's language, from its folder's name (theory03-es)."""
    return names.language_of(Path(notebook).parent.name)


def graded(nb):
    """grade_id -> cell, for the cells nbgrader grades or restores."""
    return {cell.metadata.nbgrader["grade_id"]: cell for cell in nb.cells
            if "nbgrader" in cell.metadata and "grade_id" in cell.metadata.nbgrader
            and (utils.is_grade(cell) or utils.is_locked(cell) or utils.is_solution(cell))}


def exercises(nb):
    """grade_id -> where the cell is, in the notebook's own words: of the headings above it that
    still contain it (a heading ends at the next one of its level or higher), the innermost that
    names an exercise, else the innermost; notes in parentheses (points, minutes) left out. A
    test in a later part of the notebook (lab 01's Part D) is named by that part, not by the last
    exercise above it."""
    labels, containing = {}, []  # the headings that contain the current cell: [(level, text)]
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for hashes, heading in HEADING.findall(cell.source):
                text = without_notes(heading)
                containing = [(level, t) for level, t in containing if level < len(hashes)] + [(len(hashes), text)]
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id:
            named = [text for _, text in containing if EXERCISE.search(text)] or [text for _, text in containing]
            labels[grade_id] = named[-1] if named else grade_id
    return labels


def without_notes(heading):
    """A heading without its notes in parentheses, outside code: "Exercise 1 (2 points)" ->
    "Exercise 1"; "`nn.Linear(64, 600)`" stays."""
    parts = heading.split("`")
    parts[::2] = [re.sub(r"\s*\([^()]*\)", "", part) for part in parts[::2]]
    return "`".join(parts).strip()


def written(cell):
    """An answer a person grades (nbgrader's written answers: Markdown, or code graded by hand)."""
    return utils.is_solution(cell) and utils.is_grade(cell)


def structure(notebook, release):
    """What is wrong with the notebook's graded cells, compared with the release: a
    list of (title, explanation), in the release's order; empty when all is in place."""
    lang = language_of(notebook)
    problems = []
    if Path(notebook).name != Path(release).name:
        problems.append((say("validate_renamed_title", lang, name=Path(notebook).name),
                         say("validate_renamed", lang, name=Path(release).name,
                             folder=Path(notebook).parent.name)))
    try:
        mine = graded(nbformat.read(str(notebook), as_version=4))
    except Exception as error:  # noqa: BLE001 - not a notebook at all: that is the whole answer
        return [(Path(notebook).name, say("unreadable", lang, error=type(error).__name__))]
    reference = nbformat.read(str(release), as_version=4)
    labels = exercises(reference)
    original, how = _shown_path(release), _how_to_copy(release, lang)
    for grade_id, cell in graded(reference).items():
        title = f"{labels[grade_id]} ({grade_id})"
        if grade_id not in mine:
            problems.append((title, say("validate_missing", lang, release=original) + how))
        elif not utils.is_solution(cell) and utils.compute_checksum(mine[grade_id]) != utils.compute_checksum(cell):
            problems.append((title, say("validate_altered", lang, release=original) + how))
        else:
            continue
        how = ""  # said once, with the first cell to put back
    return problems


def _installed(release):
    """Whether `release` is the environment's own copy (a hub's), not a course folder's."""
    return Path(release).is_relative_to(Path(sys.prefix) / INSTALLED_COURSE)


def _shown_path(release):
    """Where the student opens the original cells: release/<assignment>/<notebook> in her
    course folder; on a hub, her own copy of the environment's release notebook, in her home
    (the environment's lies outside it, and JupyterLab opens only what is in her home)."""
    if _installed(release):
        return f"~/{Path(release).parent.name}-original.ipynb"
    return "/".join(Path(release).parts[-3:])


def _how_to_copy(release, lang):
    """On a hub, the Terminal command that makes the copy `_shown_path` names; else nothing."""
    if not _installed(release):
        return ""
    copy = _shown_path(release)
    return "\n" + say("validate_copy_release", lang, copy=copy,
                      command=f"cp {shlex.quote(str(release))} {copy}")


def kernel_settings(server_config):
    """The server's KernelManager settings (a traitlets Config, or None), for Validate's own
    kernel; over `ipc`, its sockets named in the server's runtime folder, not the notebook's."""
    settings = dict((server_config or {}).get("KernelManager", {}))
    if settings.get("transport") == "ipc" and "ip" not in settings:
        settings["ip"] = os.path.join(jupyter_runtime_dir(), f"validate-{uuid.uuid4().hex}")
    return Config({"KernelManager": settings})


def failures(notebook, log=None, kernels=None):
    """Run the notebook as nbgrader's Validate does; (title, error) per failing test worth points,
    and per written answer left blank. `kernels`: KernelManager settings for its kernel
    (`kernel_settings`; by default local sockets where there are any). It runs in a throw-away copy
    of the notebook's folder, as grading does: what the notebook writes beside itself when run
    (lab 01's REPORT.md) is not left in the student's folder by Validate."""
    if kernels is None and os.name == "posix":  # local sockets: no TCP port, no plain-TCP warning
        kernels = kernel_settings({"KernelManager": {"transport": "ipc"}})
    validator = CourseValidator(ignore_checksums=True, config=kernels or Config())  # checksums: `structure` says which
    if log is not None:
        validator.log = log
    nb = nbformat.read(str(notebook), as_version=4)
    labels, lang = exercises(nb), language_of(notebook)
    with tempfile.TemporaryDirectory(prefix="course-validate-") as scratch:
        copy = Path(scratch) / Path(notebook).parent.name
        shutil.copytree(Path(notebook).parent, copy, symlinks=True,
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        with utils.chdir(str(copy)):  # as nbgrader's validate: the notebook's folder (its copy)
            nb = validator._preprocess(nb)
    found = []
    for cell in validator._get_failed_cells(nb):
        grade_id = cell.metadata.nbgrader["grade_id"]
        errors = [f"{o.ename}: {ANSI.sub('', str(o.evalue))}" for o in cell.get("outputs", [])
                  if o.output_type == "error"]
        if written(cell):
            said = say("validate_written_blank", lang)
        else:
            said = "\n".join(errors) or say("validate_partial", lang)
        found.append((f"{labels.get(grade_id, grade_id)} ({grade_id})", said))
    return found


def check(notebook, release=None, log=None, kernels=None):
    """nbgrader's Validate answer for the student's `notebook`: {} for success, else
    {"failed": [...]} with every problem, the first marked as the one to do first."""
    lang = language_of(notebook)
    problems = structure(notebook, release) if release is not None else []
    problems += failures(notebook, log, kernels)
    if not problems:
        return {}
    (title, error), rest = problems[0], problems[1:]
    problems = [(say("validate_first", lang, title=title), error)] + rest
    return {"failed": [{"source": title, "error": reachable(_wrapped(error)), "raw_error": error}
                       for title, error in problems]}


def reachable(error):
    """The error as the dialog's HTML: escaped, in a box the keyboard reaches. A long list of
    failures scrolls the dialog, which a keyboard cannot scroll unless something in it takes the
    focus (WCAG 2.1.1): Tab then goes from one failure to the next, each scrolled into view."""
    return f'<span tabindex="0">{html.escape(error)}</span>'


def _wrapped(text, width=100):
    """`text` in lines that fit the Validate dialog (it shows errors unwrapped); an indented
    line is a command to copy, left whole."""
    return "\n".join(line if line.startswith(" ") else textwrap.fill(line, width, subsequent_indent="  ")
                     for line in text.splitlines())


def release_of(notebook, work):
    """The release notebook of a notebook in <work>/<assignment>/ (my-work/, or a hub's home),
    from the course folder above <work>, else from the environment's installed release; or None."""
    notebook, work = Path(notebook).resolve(), Path(work).resolve()
    if notebook.parent.parent != work:
        return None
    return (release_notebook(work.parent, notebook.parent.name)
            or release_notebook(Path(sys.prefix) / INSTALLED_COURSE, notebook.parent.name))


# ---- the Jupyter server extension: nbgrader's URLs, the course's answer ----

def _jupyter_server_extension_points():
    return [{"module": "course.validate"}]


def _load_jupyter_server_extension(serverapp):
    from jupyter_server.utils import url_path_join
    from nbgrader.server_extensions.validate_assignment.handlers import (
        NbGraderVersionHandler,
        ValidateAssignmentHandler,
    )

    class CourseValidateHandler(ValidateAssignmentHandler):
        """nbgrader's handler (its checks on the path kept), with `check` as the validator."""

        def validate_notebook(self, path):
            root = Path(self.settings["root_dir"]).resolve()
            target = (root / path).resolve()
            if not target.is_relative_to(root):
                return {"success": False, "value": "Access denied: path outside allowed directory"}
            try:
                value = check(target, release_of(target, root), self.log, kernel_settings(self.config))
            except Exception as error:
                self.log.exception("course validate")
                return {"success": False, "value": f"{type(error).__name__}: {error}"}
            return {"success": True, "value": value}

    web = serverapp.web_app
    web.settings["root_dir"] = serverapp.root_dir
    base = web.settings["base_url"]
    web.add_handlers(".*$", [(url_path_join(base, "/assignments/validate"), CourseValidateHandler),
                             (url_path_join(base, "/nbgrader_version"), NbGraderVersionHandler)])
