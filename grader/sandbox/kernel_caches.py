"""Caches a graded kernel would otherwise build again for every submission, built once.

Each kernel starts with an empty /tmp, so matplotlib would list the machine's fonts
(about 0.2 s) and lab 03's `mypy --strict` would read the standard library's stubs
(about 1 s) anew for every submission. The grading process builds both once, in a
process of their own running nothing a student wrote, into a folder of its own
(`course-caches-<pid>-...`, removed when that process exits, or by the next grader
once it has ended). Every kernel sees it read-only at MOUNT and starts from copies
in its own /tmp (`SandboxedKernelManager`); what it writes stays its own.
A copy changes no verdict: matplotlib and mypy check each cached entry against the
files it was made from.
"""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from course.strict import CACHE_VARIABLE

PREFIX = "course-caches-"  # then the pid of the process that made it (see cgroups.maker_is_gone)
MOUNT = "/run/kernel-caches"  # where a sandboxed kernel sees them
MATPLOTLIB = "matplotlib"  # a subfolder: matplotlib's cache folder (its font list)
MYPY = "mypy"  # a subfolder: mypy's cache (course/strict.py starts from a copy of it)
BUILD = """
import sys
if "matplotlib" in sys.argv[2:]:
    import matplotlib.font_manager  # writes its font list into $MPLCONFIGDIR
if "mypy" in sys.argv[2:]:
    from course import strict
    strict.check("", sys.argv[1] + "/mypy")
"""
CACHES_VARIABLE = "COURSE_KERNEL_CACHES"  # the folder, for the processes this one starts
_folder = []  # this process's folder, once made


def ready(mypy=False):
    """This process's folder of caches (with mypy's when `mypy`), built on first use, or
    its parent's; None when it cannot be made (kernels then build their own, as without it)."""
    inherited = Path(os.environ.get(CACHES_VARIABLE) or "/nonexistent")
    if not _folder and inherited.name.startswith(PREFIX) and inherited.is_dir() \
            and inherited.stat().st_uid == os.geteuid():
        _folder.append(inherited)
    if not _folder:
        folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
        atexit.register(shutil.rmtree, folder, True)
        _folder.append(folder if build(folder, MATPLOTLIB) else None)
        if _folder[0] is not None:
            os.environ[CACHES_VARIABLE] = str(folder)
    folder = _folder[0]
    if folder is not None and mypy and not (folder / MYPY).is_dir():
        build(folder, MYPY)
    return folder


def build(folder, part):
    """Build one part (MATPLOTLIB, MYPY) of the caches in `folder`; whether it worked. It is
    built aside, then renamed into place: processes sharing the folder never see half of one."""
    aside = Path(tempfile.mkdtemp(prefix=f"{part}-", dir=folder))
    env = {**os.environ, "MPLCONFIGDIR": str(aside / MATPLOTLIB), "MPLBACKEND": "agg"}
    try:
        done = subprocess.run([sys.executable, "-c", BUILD, str(aside), part], env=env,
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=300, check=False)
        if done.returncode == 0:
            for path in [aside, *aside.rglob("*")]:  # graded as root, the kernel runs as nobody
                if not path.is_symlink():
                    path.chmod(0o755 if path.is_dir() else 0o644)
            os.rename(aside / part, folder / part)
            folder.chmod(0o755)
    except (OSError, subprocess.TimeoutExpired):
        pass
    shutil.rmtree(aside, ignore_errors=True)
    return (folder / part).is_dir()


def copy_fonts(seen_at):
    """Shell words that copy the font list into the kernel's /tmp (its MPLCONFIGDIR)."""
    return f'cp "{seen_at}/{MATPLOTLIB}"/*.json /tmp/ 2>/dev/null; '


def environment(folder, seen_at):
    """The kernel's variables for the caches in `folder`, which it sees at `seen_at`."""
    return {CACHE_VARIABLE: f"{seen_at}/{MYPY}"} if (folder / MYPY).is_dir() else {}
