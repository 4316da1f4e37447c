"""Hidden checks of lab 03 (the student's gradcheck): which cases must pass, which must raise, where.

The probe hands the student's gradcheck correct expressions, expressions with
an injected backward bug, borderline tolerances, an unused input and stale
gradients; here each case has its expected outcome: True, or an
AssertionError whose message names the input index (English "input index i",
Spanish "índice i"), with every input's `.data` restored either way.
"""
import math
import re

from course.i18n import say
from course.probes.lab03 import PROBES
from grader.checks import Check

# the input index each injected bug must be reported at (the first wrong gradient)
BUG_INDEX = {"bug_sign": 1, "bug_assign": 0, "bug_factor": 1, "bug_swap": 0, "bug_one": 2}
INDEX = re.compile(r"(?:index|índice)\D{0,3}(\d+)", re.IGNORECASE)


def expected(case):
    """None when gradcheck must return True, else the input index it must raise at."""
    name, _, tolerances, _ = case
    if name in BUG_INDEX:
        return BUG_INDEX[name]
    if name == "border":  # off by 0.02 on a gradient of 2
        atol, rtol = tolerances
        return None if atol + 2 * rtol >= 0.02 else 0
    return None


def _describe(case):
    name, point, tolerances, stale = case
    extra = f", atol={tolerances[0]:g}, rtol={tolerances[1]:g}"
    stale_text = f" (stale .grad = {stale:g})" if stale else ""
    return f"gradcheck({name} at {', '.join(f'{x:g}' for x in point)}{extra}){stale_text}"


def _outcome(got, lang):
    outcome, message = got[0], got[1]
    if outcome == "True":
        return "True"
    return f"{outcome}: {message[:120]!r}"


def compare_gradcheck(got, want, case, lang, stated):
    if not (isinstance(got, list) and len(got) == 4 and all(isinstance(v, str) for v in got[:2])):
        return say("bad_evidence", lang, detail="result")
    outcome, message, before, after = got
    if before != after:
        return say("lab03_not_restored", lang, before=before, after=after)
    if want is None:
        if outcome != "True":
            return say("returned", lang, what="", got=_outcome(got, lang), want="True")
        return None
    match = INDEX.search(message)
    if outcome != "AssertionError" or not match or int(match.group(1)) != want:
        return say("returned", lang, what="", got=_outcome(got, lang),
                   want=f"AssertionError ... {want}")
    return None


def compare_annotations(got, want, case, lang, stated):
    if not isinstance(got, list) or len(got) != 6 or any("_empty" in str(a) for a in got):
        return say("lab03_unannotated", lang)
    return None


# the bonus: exact derivatives of the probe's FUNCTIONS
DERIVATIVES = {
    "sin": math.cos,
    "exp_sin": lambda x: math.exp(math.sin(x)) * math.cos(x),
    "tanh": lambda x: 2 * (1 - math.tanh(2 * x - 0.5) ** 2),
    "rational": lambda x: (x ** 4 + 3 * x ** 2) / (1 + x * x) ** 2,
    "log": lambda x: 2 * x / (x * x + 1),
}


CHECKS = {
    # 1e-12: the complex step is exact to a few ulps; the best central difference (eps near 1e-5)
    # is off by about 1e-11, so a central difference cannot pass for it
    "lab03-bonus-complex": Check(PROBES["lab03-bonus-complex"],
                                 reference=lambda case: DERIVATIVES[case[0]](case[1]),
                                 describe=lambda case: f"complex_step({case[0]}, {case[1]:g})",
                                 rel_tol=1e-12, abs_tol=1e-12, stated={"bonus": 1}, bonus=1),
    "lab03-gradcheck": Check(PROBES["lab03-gradcheck"], reference=expected, describe=_describe,
                             compare=compare_gradcheck),
    "lab03-annotations": Check(PROBES["lab03-annotations"], reference=lambda case: None,
                               describe=lambda case: "gradcheck", compare=compare_annotations),
}
