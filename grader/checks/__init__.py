"""Hidden checks, the grader's half: one `Check` per graded test cell.

A check holds what student code must never see: the reference implementation.
It redraws the cases of its kernel-side `Probe` (course/probes/) from the same
seed, so both sides agree on the inputs, and judges the untrusted evidence the
probe printed. This package is never mounted in a grading sandbox.
Beside the checks: `verdicts` (a graded cell decided from its evidence); lab 03's
reference gradcheck is grader/gradcheck.py, typed on its own.
Unit authors: see docs/en/hidden-tests.md (docs/es/hidden-tests.md in Spanish).
"""
import base64
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from course.evidence import ARRAY_DTYPES, close
from course.i18n import say
from course.predictions import problem
from course.probes import Probe, find_in_unit, prediction
from course.student import explain


@dataclass
class Verdict:
    passed: bool
    summary: str


@dataclass
class Check:
    """`reference(case)` -> what the student's code should give; `describe(case)` ->
    how to name the call in a message.

    `stated` is what the test cell must state literally as keyword arguments of
    its `student.probe(...)` call (a threshold, a known case): the grader
    enforces exactly these values and fails closed when the cell says otherwise.
    `stated["known"]`, if present, maps a case (a tuple) to its expected value.
    `compare(got, want, case, lang, stated)` replaces the default element-wise
    comparison: it returns None when `got` is right, else the reason.
    `evidence_bytes(seed)`, when set, is the size of this cell's honest evidence
    output, when it is more than a cell may print (large arrays): GradingExecute
    lets that one evidence output through up to it; the rest keeps the cell's cap.
    `bonus`: points of extra credit this cell gives when it passes (its `points` are 0).
    `localized`: `describe` takes the language too (`describe(case, lang)`).
    `names` labels the elements of a tuple answer, and `mistakes(case)` gives the wrong
    answers the unit predicts for `case` (a message key of course.i18n -> a value shaped
    like the answer, None where any value may appear), as in the visible tests: a failing
    case is worded by `course.student.explain`, the function the visible tests use."""
    probe: Probe
    reference: Callable
    describe: Callable
    rel_tol: float = 1e-9
    abs_tol: float = 1e-9
    stated: dict = field(default_factory=dict)
    compare: Callable | None = None
    evidence_bytes: Callable | None = None
    bonus: float = 0  # extra credit when passed, for a test cell worth 0 points (grader/plugins/bonus.py)
    names: tuple | None = None
    mistakes: Callable | None = None
    localized: bool = False  # describe(case, lang): the case told in the student's language

    @property
    def grade_id(self):
        return self.probe.grade_id

    def judge(self, seed, results, lang, stated=None):
        """Compare untrusted `results` with the reference, case by case. Never raises."""
        try:
            return self._judge(seed, results, lang, stated or {})
        except Exception as error:  # noqa: BLE001 - evidence the grader cannot read is a failure, not a crash
            return Verdict(False, say("bad_evidence", lang, detail=type(error).__name__))

    def _judge(self, seed, results, lang, stated):
        if stated != self.stated:
            return Verdict(False, say("stated_differs", lang, grade_id=self.grade_id))
        known = self.stated.get("known", {})
        cases = self.probe.draw(seed)
        if not isinstance(results, list) or len(results) != len(cases):
            return Verdict(False, say("bad_evidence", lang, detail="cases"))
        for case, result in zip(cases, results):
            what = self.describe(case, lang) if self.localized else self.describe(case)
            if not isinstance(result, dict):
                return Verdict(False, say("bad_evidence", lang, detail="result"))
            if "error" in result:
                return Verdict(False, say("raised", lang, what=what, error=str(result["error"])[:300]))
            key = _hashable(case)
            want = known[key] if key in known else self.reference(case)
            if result.get("not_plain") == "None":  # the function returned None itself
                return Verdict(False, say("expect_none", lang, what=what, want=short(want)))
            if "not_plain" in result:
                return Verdict(False, say("not_plain", lang, what=what, kind=str(result["not_plain"])[:80]))
            got = decode(result.get("value"))
            if self.compare is not None:
                problem = self.compare(got, want, case, lang, self.stated)
                if problem:
                    return Verdict(False, f"{what}: {problem}")
            elif not close(got, _plain_want(want), self.rel_tol, self.abs_tol):
                mistakes = self.mistakes(case) if self.mistakes else None
                return Verdict(False, explain(got, want, what, lang, self.rel_tol, self.abs_tol,
                                              self.names, mistakes)
                               or say("returned", lang, what=what, got=short(got),
                                      want=short(_plain_want(want))))
        return Verdict(True, say("passed", lang, grade_id=self.grade_id, n=len(cases)))


class PredictionCheck(Check):
    """A Predict cell's test: any prediction `allowed` takes passes (the options' letters, or
    a number of numbers; course/predictions.py), right or wrong: it earns its point for being
    recorded before the cell that measures it. The cell states `allowed` literally."""

    def _judge(self, seed, results, lang, stated):
        if stated != self.stated:
            return Verdict(False, say("stated_differs", lang, grade_id=self.grade_id))
        if not (isinstance(results, list) and len(results) == 1 and isinstance(results[0], dict)):
            return Verdict(False, say("bad_evidence", lang, detail="cases"))
        result = results[0]
        if "error" in result or ("not_plain" in result and result["not_plain"] != "None"):
            value = f"<{str(result.get('not_plain') or result.get('error'))[:40]}>"
        else:
            value = decode(result["value"]) if "value" in result else None
        reason = problem(value, self.stated["allowed"], lang)
        return Verdict(False, reason) if reason else Verdict(True, say("passed", lang, grade_id=self.grade_id, n=1))


def prediction_check(grade_id, allowed):
    """The check of the Predict cell `grade_id`, whose test states `allowed=...`."""
    return PredictionCheck(prediction(grade_id), reference=lambda case: None, describe=str,
                           stated={"allowed": allowed})


def _hashable(case):
    return tuple(_hashable(v) for v in case) if isinstance(case, list) else case


def _plain_want(want):
    if isinstance(want, (tuple, list)):
        return [_plain_want(w) for w in want]
    return float(want)


def decode(value):
    """Evidence back into Python: floats, lists, and numpy arrays for encoded arrays.
    Raises ValueError for anything malformed."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if isinstance(value, dict):
        dtype, shape = value.get("dtype"), value.get("shape")
        if dtype not in ARRAY_DTYPES or not isinstance(shape, list) or \
                not all(type(n) is int and 0 <= n < 10 ** 7 for n in shape):
            raise ValueError("malformed array")
        data = base64.b64decode(value.get("base64", ""), validate=True)
        array = np.frombuffer(data, dtype=np.dtype(dtype).newbyteorder("<"))
        if array.size != math.prod(shape):
            raise ValueError("array size does not match its shape")
        return array.reshape(shape).astype(dtype)
    if type(value) in (int, float, str):
        return value
    raise ValueError(f"unexpected {type(value).__name__}")


def short(value):
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "…"


def find_check(grade_id):
    """The Check for `grade_id`; LookupError when there is none."""
    return find_in_unit("grader.checks", "CHECKS", grade_id)


def bonus_of(grade_id):
    """The extra credit a graded cell gives when it passes (0: an ordinary cell, or no check)."""
    try:
        return find_check(grade_id).bonus or 0
    except LookupError:
        return 0


def evidence_allowance(grade_id, seed):
    """The size of the honest evidence of `grade_id` drawn from `seed`, where its check
    declares one larger than a cell may print (Check.evidence_bytes); else None."""
    try:
        allowed = find_check(grade_id).evidence_bytes
    except LookupError:
        return None
    return None if allowed is None else allowed(seed)
