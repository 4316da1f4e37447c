"""Hidden checks: one `Check` per graded test cell, found by its grade_id.

A check draws its cases from a seed, so the grader and the student's kernel
draw the same ones. `gather` runs in the student's kernel and returns plain
data; `judge` runs wherever it is trusted (the grader's own process) and
compares that data with the reference. Unit authors: see docs/hidden-tests.md.
"""
import importlib
import math
import random
from dataclasses import dataclass
from typing import Callable

from course.i18n import say


def plain(value):
    """`value` as floats and lists only, or TypeError: nothing the student defined survives."""
    if isinstance(value, bool):
        raise TypeError("bool")
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    if hasattr(value, "item") and callable(value.item) and getattr(value, "ndim", None) == 0:
        return plain(value.item())  # a numpy scalar, a 0-d array or a torch tensor
    raise TypeError(type(value).__name__)


def close(got, want, rel_tol, abs_tol):
    """Whether plain data `got` matches `want` element by element, all finite."""
    if isinstance(want, list):
        return (type(got) is list and len(got) == len(want)
                and all(close(g, w, rel_tol, abs_tol) for g, w in zip(got, want)))
    return (type(got) in (int, float) and math.isfinite(got)
            and math.isclose(got, want, rel_tol=rel_tol, abs_tol=abs_tol))


@dataclass
class Verdict:
    passed: bool
    summary: str


@dataclass
class Check:
    """`cases(rng)` -> list of argument tuples; `call(objects, case)` -> what the
    student's code gives; `reference(case)` -> what it should give; `describe(case)`
    -> how to name the call in a message."""
    grade_id: str
    cases: Callable
    call: Callable
    reference: Callable
    describe: Callable
    rel_tol: float = 1e-9
    abs_tol: float = 1e-9

    def draw(self, seed):
        return [list(case) for case in self.cases(random.Random(f"{self.grade_id}/{seed}"))]

    def gather(self, seed, objects):
        """Run the student's code on every case; record each result or error as text."""
        results = []
        for case in self.draw(seed):
            try:
                results.append({"value": plain(self.call(objects, case))})
            except TypeError as error:
                results.append({"not_plain": str(error)})
            except Exception as error:  # the student's code may raise anything
                results.append({"error": f"{type(error).__name__}: {error}"[:300]})
        return results

    def judge(self, seed, results, lang):
        """Compare untrusted `results` with the reference, case by case."""
        cases = self.draw(seed)
        if not isinstance(results, list) or len(results) != len(cases):
            return Verdict(False, say("bad_evidence", lang, detail="cases"))
        for case, result in zip(cases, results):
            what = self.describe(case)
            want = plain(self.reference(case))
            if not isinstance(result, dict):
                return Verdict(False, say("bad_evidence", lang, detail="result"))
            if "error" in result:
                return Verdict(False, say("raised", lang, what=what, error=str(result["error"])[:300]))
            if "not_plain" in result:
                return Verdict(False, say("not_plain", lang, what=what, kind=str(result["not_plain"])[:80]))
            if not close(result.get("value"), want, self.rel_tol, self.abs_tol):
                got = _short(result.get("value"))
                return Verdict(False, say("returned", lang, what=what, got=got, want=_short(want)))
        return Verdict(True, say("passed", lang, grade_id=self.grade_id, n=len(cases)))


def _short(value):
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "…"


def find_check(grade_id):
    """The Check for `grade_id`, from the module named by its prefix (theory03-... -> theory03)."""
    unit = grade_id.split("-", 1)[0]
    try:
        module = importlib.import_module(f"course.checks.{unit}")
        return module.CHECKS[grade_id]
    except (ImportError, KeyError):
        raise LookupError(grade_id) from None
