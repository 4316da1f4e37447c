"""What every layer of the grader reads the same way, each fact written once: the course's
folders (nbgrader's `CourseDirectory`, so a folder renamed in nbgrader_config.py is renamed
everywhere), an assignment's release notebook, a notebook's language, and text made safe for a
terminal or a spreadsheet. The lowest module of the grader: it imports none of its folders
(tests/test_no_import_cycles.py)."""
import functools
import re
from pathlib import Path

import nbformat

from course.names import known_language
from grader.config import course_dir

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
LINE_BREAKS = re.compile(r"\r\n|[\n\t\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
ESCAPE = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|[@-Z\\-_])")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def course_folder(root, step, student=".", assignment=".", options=()):
    """The folder of nbgrader's `step` ("source", "release", "submitted", "autograded",
    "feedback") for `student` and `assignment`, by the course's own folder names:
    course_folder(root, "submitted", "ada", "theory03-en"); course_folder(root, "submitted")
    holds every student's folder."""
    config = Path(root, "nbgrader_config.py")
    stamp = (config.stat().st_mtime_ns, config.stat().st_size) if config.exists() else None
    coursedir = _course_dir(str(root), tuple(options), stamp)
    return Path(coursedir.format_path(getattr(coursedir, f"{step}_directory"), student, assignment))


@functools.lru_cache(maxsize=16)
def _course_dir(root, options, stamp):
    """course_dir, read once while nbgrader_config.py stays as it was (`stamp`): a command
    asks for a folder per student."""
    return course_dir(root, options)


def coursedir_of(configurable):
    """The CourseDirectory of the nbgrader app a preprocessor runs in (preprocessor ->
    exporter -> converter)."""
    while not hasattr(configurable, "coursedir"):
        configurable = configurable.parent
    return configurable.coursedir


def release_notebook(root, assignment, options=()):
    """The path of `assignment`'s notebook in release/ (an assignment is one notebook)."""
    return next(course_folder(root, "release", ".", assignment, options).glob("*.ipynb"))


def notebook_language(nb):
    """The course language a notebook is in (its `course.lang` metadata; the default
    language when it names none the course speaks)."""
    return known_language(nb.get("metadata", {}).get("course", {}).get("lang"))


def release_language(root, assignment, options=()):
    """The language of `assignment`'s release notebook."""
    return notebook_language(nbformat.read(release_notebook(root, assignment, options), as_version=4))


def for_terminal(text):
    """Text safe to print on one line: escape sequences and control characters removed,
    line breaks and tabs made spaces (a student's text must not forge a row)."""
    return CONTROL.sub("", ESCAPE.sub("", LINE_BREAKS.sub(" ", str(text))))


def for_spreadsheet(value):
    """A CSV field no spreadsheet runs as a formula, with no control characters."""
    if not isinstance(value, str):
        return value
    text = for_terminal(value)
    return "'" + text if text.startswith(FORMULA_START) or value.startswith(FORMULA_START) else text
