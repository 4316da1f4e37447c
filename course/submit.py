"""Hand work in without a JupyterHub: `python -m course submit theory03-es`.

Checks the student's notebook as the Validate button does (course/validate.py),
then writes the one file to upload to the course's LMS, `my-work/hand-in/<assignment>.ipynb`
(`theory03-es.ipynb`): the assignment is in its name, which survives the LMS's
renaming (grader/plugins/lms_collect.py reads it back). The file is written even when a
check fails, so that unfinished work can still be handed in before a deadline;
what fails is said first, and the exit status is 1.
"""
import shutil
from pathlib import Path

import nbformat

from course.i18n import say
from course.names import language_of
from course.validate import check
from course.work import WORK, release_notebook

HAND_IN = "hand-in"


def submit(assignment, root):
    """Check and write the file to hand in; the exit status (0: every check passed)."""
    root, lang = Path(root), language_of(assignment)
    release = release_notebook(root, assignment)
    if release is None:
        raise SystemExit(say("start_unknown", lang, assignment=assignment,
                             known=", ".join(sorted(p.name for p in (root / "release").glob("*-*"))) or "-"))
    notebook = root / WORK / assignment / release.name
    if not notebook.exists():
        others = sorted(p.name for p in notebook.parent.glob("*.ipynb")) if notebook.parent.is_dir() else []
        if others:  # renamed: `start` would not copy over the folder, so say how to put it back
            raise SystemExit(say("submit_renamed", lang, folder=notebook.parent.relative_to(root),
                                 notebook=release.name, found=", ".join(others)))
        raise SystemExit(say("submit_nothing", lang, notebook=notebook.relative_to(root), assignment=assignment))
    try:
        nb = nbformat.read(str(notebook), as_version=4)
    except Exception as error:  # noqa: BLE001 - not a notebook at all is an answer too
        raise SystemExit(say("unreadable", lang, error=type(error).__name__))
    print(say("submit_checking", lang, notebook=notebook.relative_to(root)))
    problems = check(notebook, release).get("failed", [])
    for problem in problems:
        print(f"\n✘ {problem['source']}\n  " + problem["raw_error"].replace("\n", "\n  "))
    target = root / WORK / HAND_IN / f"{assignment}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    nbformat.write(nb, str(partial))  # the notebook as saved, checked to be one
    shutil.move(partial, target)
    print()
    print(say("submit_failed" if problems else "submit_passed", lang, n=len(problems)))
    print(say("submit_written", lang, file=target.relative_to(root), name=target.name))
    return 1 if problems else 0
