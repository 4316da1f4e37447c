"""`mypy --strict` on the notebook cell that defines a function (lab 03's stop condition).

    problems = mypy_strict(gradcheck)    # [] when mypy --strict finds nothing

The source of the cell the function was defined in (IPython keeps it; a function
from a file gives its own source) is checked after the plain imports of the
notebook's setup cell, with minigrad (typed) on mypy's path (`search_folder`). mypy's cache is
this process's own (a private temporary folder, removed at exit): the visible
test and the hidden check read the standard library's stubs once, not twice.
When grading, the kernel's cache starts as a copy of one the grader built once for the
whole cohort ($COURSE_MYPY_CACHE, read-only): a second of stubs not read again for
each submission. mypy checks every cached entry against its source file, so a copy
changes no verdict, only the time.
Each problem is mypy's own line, its line number counted in the cell.
"""
import atexit
import inspect
import linecache
import os
import re
import shutil
import tempfile
import textwrap
from pathlib import Path

import minigrad

HEADER = ("import cmath, inspect, math, re, warnings\n"
          "from collections.abc import Callable, Sequence\n"
          "from typing import Any\n"
          "from minigrad import Value\n")
LINE = re.compile(r"^<string>:(\d+):")
CACHE_VARIABLE = "COURSE_MYPY_CACHE"  # a cache to start from (grader/sandbox/kernel_caches.py)
_folders = {}  # this process's own folders, each made once


def own_folder(name):
    """A folder of this process's own, removed when it exits; those of this user's processes
    that ended without exiting (a kernel killed) are removed when the next one is made."""
    if name not in _folders:
        remove_orphans(name)
        _folders[name] = tempfile.mkdtemp(prefix=f"course-mypy-{name}-{os.getpid()}-")
        atexit.register(shutil.rmtree, _folders[name], True)
    return _folders[name]


def remove_orphans(name):
    for folder in Path(tempfile.gettempdir()).glob(f"course-mypy-{name}-*-*"):
        maker = folder.name.split("-")[3]
        try:
            mine = folder.lstat().st_uid == os.geteuid() and folder.is_dir() and not folder.is_symlink()
        except OSError:
            continue
        if mine and maker.isdigit() and not running(maker):
            shutil.rmtree(folder, ignore_errors=True)


def running(pid):
    """Is process `pid` running (a zombie, killed but not yet waited for, is not)?"""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def cache_folder():
    """mypy's cache: this process's own, first filled from $COURSE_MYPY_CACHE where it names one."""
    new = "cache" not in _folders
    folder = own_folder("cache")
    start = os.environ.get(CACHE_VARIABLE)
    if new and start and os.path.isdir(start):
        shutil.copytree(start, folder, dirs_exist_ok=True)
    return folder


def search_folder():
    """mypy's MYPYPATH: a folder of this process's own holding a link to minigrad. Not the
    folder minigrad lies in: where it is installed (a hub's students' environment, an
    image), that is site-packages, which mypy refuses on its path with a warning on stderr,
    and stderr fails the test cell."""
    folder = Path(own_folder("path"))
    if not (folder / "minigrad").is_symlink():
        (folder / "minigrad").symlink_to(Path(minigrad.__file__).resolve().parent, target_is_directory=True)
    return str(folder)


def mypy_strict(function):
    """mypy --strict's problems with `function`'s source, or [] when there are none."""
    cell = getattr(getattr(function, "__code__", None), "co_filename", "")
    in_a_cell = cell.startswith("<") or "ipykernel_" in cell  # IPython names each cell's code so
    source = "".join(linecache.getlines(cell)) if in_a_cell else ""
    try:
        source = source or inspect.getsource(function)
    except (OSError, TypeError) as error:
        return [f"source not found: {error}"]
    offset = HEADER.count("\n")
    lines = check(textwrap.dedent(source), cache_folder())
    return [LINE.sub(lambda m: f"line {int(m.group(1)) - offset}:", line) for line in lines][:20]


def check(source, cache):
    """mypy --strict's lines on `source` after HEADER, with `cache` as its cache folder."""
    from mypy import api

    saved = os.environ.get("MYPYPATH")
    os.environ["MYPYPATH"] = search_folder()
    try:
        report, errors, _ = api.run(["--strict", f"--cache-dir={cache}", "--no-error-summary",
                                     "--config-file=", "-c", HEADER + source])
    finally:
        if saved is None:
            del os.environ["MYPYPATH"]
        else:
            os.environ["MYPYPATH"] = saved
    return [line for line in (report + errors).splitlines() if line.strip() and ": note:" not in line]
