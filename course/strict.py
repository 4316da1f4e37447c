"""`mypy --strict` on one function a student wrote in a notebook cell (lab 03's stop condition).

    problems = mypy_strict(gradcheck)    # [] when mypy --strict finds nothing

The function's source (as the notebook cell defined it) is checked after the
imports the notebook's setup cell makes, with minigrad (typed) on mypy's path
and no cache written. Each problem is mypy's own line, its line number counted
from the function's `def`.
"""
import inspect
import os
import re
import textwrap
from pathlib import Path

import minigrad

HEADER = ("import math\n"
          "from collections.abc import Callable, Sequence\n"
          "from typing import Any\n"
          "from minigrad import Value\n")
LINE = re.compile(r"^<string>:(\d+):")


def mypy_strict(function):
    """mypy --strict's problems with `function`'s source, or [] when there are none."""
    from mypy import api

    try:
        source = inspect.getsource(function)
    except (OSError, TypeError) as error:
        return [f"source not found: {error}"]
    offset = HEADER.count("\n")
    search_path = str(Path(minigrad.__file__).resolve().parent.parent)
    saved = os.environ.get("MYPYPATH")
    os.environ["MYPYPATH"] = search_path
    try:
        report, errors, _ = api.run(["--strict", "--cache-dir=/dev/null", "--no-error-summary",
                                     "--config-file=", "-c", HEADER + textwrap.dedent(source)])
    finally:
        if saved is None:
            del os.environ["MYPYPATH"]
        else:
            os.environ["MYPYPATH"] = saved
    lines = [line for line in (report + errors).splitlines() if line.strip() and ": note:" not in line]
    return [LINE.sub(lambda m: f"line {int(m.group(1)) - offset}:", line) for line in lines][:20]
