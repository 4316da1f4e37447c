"""The instructor's course folder and the release of every assignment, each step stock
nbgrader run as the instructor: `generate_assignment` (the gradebook), then
`release_assignment` into the course of the assignment's language.

Each language is a course of its own in the exchange (`autograd-by-hand-en`,
`autograd-by-hand-es`), and a student's nbgrader lists only their language's course:
a Spanish student sees theory03-es, not theory03-en. The instructor keeps one course
folder and one gradebook; `--course` says which exchange course a command uses.
"""
import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

from course.names import PROJECT, unit_and_language

ROOT = Path(__file__).resolve().parent.parent
COURSE_FOLDER = PROJECT


def course_id(language):
    return f"{PROJECT}-{language}"


def assignments(units=None):
    """The release's assignments (theory03-es, ...), optionally only those of `units`."""
    found = sorted(p.name for p in (ROOT / "source").glob("*-*") if p.is_dir())
    return [a for a in found if units is None or (unit_and_language(a) or ("",))[0] in units]


def make_exchange(exchange):
    """The exchange folder: world-writable as nbgrader requires, sticky so that nobody
    removes or renames what another made; the folders above it traversable."""
    exchange = Path(exchange)
    exchange.mkdir(parents=True, exist_ok=True)
    exchange.chmod(0o1777)
    return exchange


def set_up(instructor, home, exchange):
    """The instructor's course folder: the course's source/ and an nbgrader_config.py
    that wires in the course (grader/) and the exchange; owned by the instructor."""
    from grader.plugins.wiring import config_text
    folder = home / COURSE_FOLDER
    shutil.copytree(ROOT / "source", folder / "source")
    (folder / "nbgrader_config.py").write_text(config_text(
        {"Exchange.root": str(exchange)}, wired=True,
        about="The class's course folder (made by `python -m classroom start`)."), encoding="utf-8")
    user = pwd.getpwnam(instructor)
    for path in [folder, *folder.rglob("*")]:
        os.chown(path, user.pw_uid, user.pw_gid)
    return folder


def as_user(login, env=None):
    """subprocess arguments that run a command as `login`, in a clean environment."""
    user = pwd.getpwnam(login)
    bin_folder = Path(sys.executable).parent
    clean = {"HOME": user.pw_dir, "USER": login, "LOGNAME": login, "LANG": "C.UTF-8",
             "PATH": f"{bin_folder}:/usr/local/bin:/usr/bin:/bin"}
    return {"user": user.pw_uid, "group": user.pw_gid,
            "extra_groups": os.getgrouplist(login, user.pw_gid),  # instructors: the staff group
            "env": {**clean, **(env or {})}}


def nbgrader(login, folder, *arguments):
    """Run `nbgrader ARGUMENTS` as `login` in `folder`; its output, or RuntimeError."""
    command = [str(Path(sys.executable).parent / "nbgrader"), *arguments]
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True, check=False,
                          timeout=600, **as_user(login))
    if done.returncode:
        raise RuntimeError(f"{' '.join(command[:1] + list(arguments))} failed:\n{done.stdout}{done.stderr}")
    return done.stdout + done.stderr


def release(instructor, folder, names):
    """generate_assignment then release_assignment, as the instructor, for each of `names`."""
    for name in names:
        nbgrader(instructor, folder, "generate_assignment", name, "--force")
        nbgrader(instructor, folder, "release_assignment", name, "--force",
                 f"--course={course_id(name.rsplit('-', 1)[1])}")
