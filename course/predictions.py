"""Predictions, recorded before the cell that measures what they predict.

A **Predict** cell holds one name, `PREDICT_<WHAT> = None` until the student writes a
prediction: one of the options the notebook lists (`"b"`) or numbers (`(4, -2)`).

    predictions.recorded(PREDICT_X, "abcd")     # its test cell: a valid prediction, or why not
    predictions.reveal(PREDICT_X, "abcd")       # first line of the cell that measures it
    predictions.compare(PREDICT_X, measured)    # one line: the prediction beside the measurement

`reveal` refuses, in the notebook's language, until the prediction is recorded, so the
measurement is never on screen before it; it remembers the first prediction it was given,
and says so when the prediction changes after a measurement was shown. A prediction earns
its point for being recorded, right or wrong: the grader cannot know when it was written,
and points for being right would reward changing it after the measurement. Nothing here
knows an outcome: the cell that measures computes it.
"""
import math

from course import student
from course.i18n import say

_first = {}  # the cell's prediction variable, as first revealed -> that prediction


class NotYet(AssertionError):
    """The measurement waits for the prediction: shown as its message alone, one line."""

    def _render_traceback_(self):
        return [f"{type(self).__name__}: {self}"]


def problem(value, allowed, lang):
    """Why `value` is not a prediction `allowed` takes, or None. `allowed` is a string of
    option letters ("abcd") or a number of numbers (2)."""
    if value is None:
        return say("predict_none", lang)
    if isinstance(allowed, str):
        if not isinstance(value, str) or _option(value) not in allowed:
            return say("predict_not_option", lang, got=_shown(value), options=_listed(allowed, lang))
        return None
    numbers = list(value) if isinstance(value, (tuple, list)) else [value]
    if len(numbers) != allowed or not all(_finite(n) for n in numbers):
        return say("predict_not_numbers", lang, got=_shown(value), n=allowed)
    return None


def recorded(value, allowed):
    """The visible test of a Predict cell: a recorded prediction passes, whatever it says."""
    lang = student.current_language()
    reason = problem(value, allowed, lang)
    if reason:
        raise student.TestFailed(reason)
    print(say("predict_recorded", lang, got=shown(value)))


def reveal(value, allowed):
    """Refuse to go on until `value` is a recorded prediction; keep the first one seen."""
    lang = student.current_language()
    reason = problem(value, allowed, lang)
    if reason:
        raise NotYet(say("predict_first", lang, why=reason))
    key = _caller_cell()
    first = _first.setdefault(key, shown(value))
    if first != shown(value):
        print(say("predict_changed", lang, first=first, now=shown(value)))


def compare(value, measured):
    """Print the prediction beside what was measured (an option letter or numbers), and
    whether they agree (to the six digits shown)."""
    lang = student.current_language()
    agree = "predict_agrees" if shown(value) == shown(measured) else "predict_differs"
    print(say("predict_compare", lang, got=shown(value), measured=shown(measured)) + say(agree, lang))


def shown(value):
    """A prediction as a person writes it: (b), or 4, −2."""
    if isinstance(value, str):
        return f"({_option(value)})"
    numbers = value if isinstance(value, (tuple, list)) else [value]
    return ", ".join(f"{float(n):g}".replace("-", "\u2212") for n in numbers)


def _option(text):
    return text.strip().strip("()").strip().lower()


def _finite(number):
    return isinstance(number, (int, float)) and not isinstance(number, bool) and math.isfinite(number)


def _listed(allowed, lang):
    letters = [f'"{letter}"' for letter in allowed]
    return ", ".join(letters[:-1]) + say("predict_or", lang) + letters[-1]


def _shown(value):
    text = repr(value)
    return text if len(text) <= 80 else text[:80] + "\u2026"


def _caller_cell():
    """Which reveal this is: the code of the cell that called `reveal` (a notebook cell
    may be run again; its code names the prediction it reveals)."""
    import inspect
    frame = inspect.currentframe().f_back.f_back
    return frame.f_code.co_filename if frame is not None else ""
