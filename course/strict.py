"""`mypy --strict` on the notebook cell that defines a function (lab 03's stop condition).

    problems = mypy_strict(gradcheck)    # [] when mypy --strict finds nothing

The source of the cell the function was defined in (IPython keeps it; a function
from a file gives its own source) is checked after the plain imports of the
notebook's setup cell, with minigrad (typed) on mypy's path. mypy's cache is
this process's own (a private temporary folder, removed at exit): the visible
test and the hidden check read the standard library's stubs once, not twice.
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
_cache = []  # this process's cache folder, once made


def cache_folder():
    """A folder of this process's own for mypy's cache, removed when it exits."""
    if not _cache:
        _cache.append(tempfile.mkdtemp(prefix="course-mypy-"))
        atexit.register(shutil.rmtree, _cache[0], True)
    return _cache[0]


def mypy_strict(function):
    """mypy --strict's problems with `function`'s source, or [] when there are none."""
    from mypy import api

    cell = getattr(getattr(function, "__code__", None), "co_filename", "")
    in_a_cell = cell.startswith("<") or "ipykernel_" in cell  # IPython names each cell's code so
    source = "".join(linecache.getlines(cell)) if in_a_cell else ""
    try:
        source = source or inspect.getsource(function)
    except (OSError, TypeError) as error:
        return [f"source not found: {error}"]
    offset = HEADER.count("\n")
    search_path = str(Path(minigrad.__file__).resolve().parent.parent)
    saved = os.environ.get("MYPYPATH")
    os.environ["MYPYPATH"] = search_path
    try:
        report, errors, _ = api.run(["--strict", f"--cache-dir={cache_folder()}", "--no-error-summary",
                                     "--config-file=", "-c", HEADER + textwrap.dedent(source)])
    finally:
        if saved is None:
            del os.environ["MYPYPATH"]
        else:
            os.environ["MYPYPATH"] = saved
    lines = [line for line in (report + errors).splitlines() if line.strip() and ": note:" not in line]
    return [LINE.sub(lambda m: f"line {int(m.group(1)) - offset}:", line) for line in lines][:20]
