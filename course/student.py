"""What test cells call inside the student's kernel.

`expect_close` gives a visible test a clear message in the notebook's
language. `probe` runs a unit's hidden cases on the student's functions and
prints what they returned as *evidence*: the grader, in its own process,
draws the same cases and compares with its own reference (see
`grader/checks/`). Nothing here decides a grade, and nothing here knows the
answers: code in this kernel can be changed by the student, so it only reports.
"""
import json
import os

from course.evidence import close, plain
from course.i18n import say
from course.probes import find_probe

EVIDENCE_MIME = "application/vnd.autograd-course.evidence+json"
SEED_VARIABLE = "COURSE_GRADING_SEED"
_state = {"lang": "en"}


def language(lang):
    """Set the language of the messages test cells print."""
    _state["lang"] = lang


class TestFailed(AssertionError):
    """A visible test that failed. IPython shows it as its one-line message, with no
    frames of this module: the student needs the message, not the course's insides."""

    def _render_traceback_(self):
        return [f"AssertionError: {self}"]


def expect_close(got, want, what, tol=1e-9):
    """Assert that `got` equals `want` (a number or tuple of numbers) within `tol`."""
    lang = _state["lang"]
    if got is None:
        raise TestFailed(say("returned_none", lang, what=what, want=plain(want)))
    try:
        got_plain = plain(got)
    except TypeError:
        raise TestFailed(say("not_plain", lang, what=what, kind=type(got).__name__)) from None
    want_plain = plain(want)
    if not close(got_plain, want_plain, tol, tol):
        message = say("returned", lang, what=what, got=got_plain, want=want_plain)
        if isinstance(got_plain, list) and isinstance(want_plain, list) and len(got_plain) == len(want_plain):
            index = next(i for i, (g, w) in enumerate(zip(got_plain, want_plain)) if not close(g, w, tol, tol))
            message += say("element_differs", lang, index=index)
        raise TestFailed(message)


def probe(grade_id, *student_objects, **stated):
    """Run the hidden cases `grade_id` on the student's functions and publish
    what they returned. `stated` is what the test cell asserts (the diamond's
    gradients, a threshold): the grader reads it from the cell's own source,
    which nbgrader restores, and enforces it; here it is only shown."""
    seed = int(os.environ.get(SEED_VARIABLE, "0"))
    results = find_probe(grade_id).gather(seed, student_objects)
    from IPython.display import display
    summary = say("evidence", _state["lang"], grade_id=grade_id, n=len(results))
    display({EVIDENCE_MIME: json.dumps({"grade_id": grade_id, "seed": seed, "results": results}),
             "text/plain": summary}, raw=True)
