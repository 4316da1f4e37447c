"""The kernel's half of every hidden test: draw the cases, call the student's code.

A `Probe` draws its cases from the seed the grader picked, calls the student's
functions on them and returns what they gave as plain data (see
`course.evidence`). It decides nothing: the grader, in its own process, draws
the same cases and judges (`grader/checks/`). Nothing here knows the answers.
"""
import contextlib
import importlib
import random
from collections.abc import Callable
from dataclasses import dataclass

from course.evidence import plain


@dataclass
class Probe:
    """`cases(rng)` -> list of cases (plain data); `call(objects, case)` -> what the
    student's code gives for one case. `watch()`, when set, makes a context manager
    around each call whose `used` (names) is recorded as that case's "used" evidence
    (lab 01: the autograd functions the call used)."""
    grade_id: str
    cases: Callable
    call: Callable
    watch: Callable | None = None

    def draw(self, seed):
        return [list(case) for case in self.cases(random.Random(f"{self.grade_id}/{seed}"))]

    def gather(self, seed, objects):
        """Run the student's code on every case; record each result or error."""
        results = []
        for case in self.draw(seed):
            watch = self.watch() if self.watch else contextlib.nullcontext()
            try:
                with watch:
                    value = self.call(objects, case)
                # None itself (a missing return), told apart from a None inside a tuple
                results.append({"not_plain": "None"} if value is None else {"value": plain(value)})
            except TypeError as error:
                results.append({"not_plain": str(error)[:80]})
            except Exception as error:  # noqa: BLE001 - the student's code may raise anything
                results.append({"error": f"{type(error).__name__}: {error}"[:300]})
            if sorted(getattr(watch, "used", ())):
                results[-1]["used"] = sorted(watch.used)[:10]
        return results


def prediction(grade_id):
    """The probe of a Predict cell's test (course/predictions.py): the prediction, as written."""
    return Probe(grade_id, lambda rng: [["prediction"]], call=lambda objects, case: objects[0])


def find_in_unit(package, table, grade_id):
    """`package.<unit>.<table>[grade_id]`, the unit named by the id's prefix
    (theory03-... -> theory03); LookupError when there is none."""
    unit = grade_id.split("-", 1)[0]
    try:
        return getattr(importlib.import_module(f"{package}.{unit}"), table)[grade_id]
    except (ImportError, AttributeError, KeyError):
        raise LookupError(grade_id) from None


def find_probe(grade_id):
    """The Probe for `grade_id`."""
    return find_in_unit("course.probes", "PROBES", grade_id)
