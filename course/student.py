"""What test cells call inside the student's kernel.

`expect_close` gives a visible test a clear message in the notebook's
language. `probe` runs a unit's hidden checks and prints their *evidence*:
plain numbers that the grader, in its own process, compares with its own
reference (see `course/grading.py`). Nothing here decides a grade: code in
this kernel can be changed by the student, so it only reports.
"""
import json
import os

from course.i18n import say
from course.checks import close, find_check, plain

EVIDENCE_MIME = "application/vnd.autograd-course.evidence+json"
SEED_VARIABLE = "COURSE_GRADING_SEED"
_state = {"lang": "en"}


def language(lang):
    """Set the language of the messages test cells print."""
    _state["lang"] = lang


def expect_close(got, want, what, tol=1e-9):
    """Assert that `got` equals `want` (a number or tuple of numbers) within `tol`."""
    lang = _state["lang"]
    try:
        got_plain = plain(got)
    except TypeError:
        raise AssertionError(say("not_plain", lang, what=what, kind=type(got).__name__)) from None
    if not close(got_plain, plain(want), tol, tol):
        raise AssertionError(say("returned", lang, what=what, got=got_plain, want=plain(want)))


def probe(grade_id, *student_objects):
    """Run the hidden checks `grade_id` on the student's functions.

    Publishes what they returned as evidence for the grader; then, as a
    convenience when the notebook is run outside grading, fails with the
    first mismatch it sees.
    """
    lang = _state["lang"]
    check = find_check(grade_id)
    seed = int(os.environ.get(SEED_VARIABLE, "0"))
    results = check.gather(seed, student_objects)
    verdict = check.judge(seed, results, lang)
    from IPython.display import display
    display({EVIDENCE_MIME: json.dumps({"grade_id": grade_id, "seed": seed, "results": results}),
             "text/plain": verdict.summary}, raw=True)
    if not verdict.passed:
        raise AssertionError(verdict.summary)
