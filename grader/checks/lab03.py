"""Hidden checks of lab 03 (the student's gradcheck): which cases must pass, which must raise, where.

The probe hands the student's gradcheck expressions drawn at grading time (see
course/probes/lab03.py). Here each one is rebuilt from the same seed and the
reference gradcheck decides its expected outcome: True, or an AssertionError
whose message names the first input whose gradient is wrong ("input index i"
in English, "índice i" in Spanish), with every input's `.data` restored either
way. An input whose error is within 10 % of its tolerance could honestly go
either way (the student's rounding is not the reference's): there both are
accepted.
"""
import math
import re

from course.breakit import rule_mistake
from course.bughunt import MAX_NODES, MAX_PASSES, culprit, mistake
from course.epsilon import eps_mistake
from course.expressions import expressions_problem
from course.i18n import say
from course.mutants import decidable
from course.probes.lab03 import PROBES, expression, hunt_mutant
from grader.checks import Check, prediction_check
from grader.gradcheck import gradients
from minigrad import Value

INDEX = {"en": re.compile(r"index\D{0,3}(\d+)", re.IGNORECASE),
         "es": re.compile(r"índice\D{0,3}(\d+)", re.IGNORECASE)}
BAND = (0.9, 1.1)  # error / tolerance ratios that may honestly land on either side


def expected(case):
    """The outcomes a right gradcheck may give: None (True) and/or the input index it raises at."""
    f, point = expression(case)
    eps, atol, rtol = case[2]
    allowed = []
    for index, (num, analytic) in enumerate(gradients(f, [Value(x) for x in point], eps)):
        ratio = abs(num - analytic) / (atol + rtol * abs(num)) if math.isfinite(num) else math.inf
        if not ratio <= BAND[0]:
            allowed.append(index)
            if not ratio <= BAND[1]:
                return allowed
    return allowed + [None]


def _describe(case, lang):
    _, point, (eps, atol, rtol), stale, unused = case
    inputs = point + [0.0] if unused else point
    extra = []
    if stale:
        extra.append(say("lab03_case_stale", lang, stale=f"{stale:g}"))
    if unused:
        extra.append(say("lab03_case_unused", lang))
    return say("lab03_case", lang, point=", ".join(f"{x:g}" for x in inputs),
               eps=f"{eps:g}", atol=f"{atol:g}", rtol=f"{rtol:g}", extra="".join(extra))


def _got(outcome, message, lang):
    if outcome == "True":
        return say("lab03_got_true", lang)
    if outcome == "returned":
        return say("lab03_got_returned", lang, value=message)
    return say("lab03_got_raised", lang, error=outcome, message=message[:160])


def compare_gradcheck(got, want, case, lang, stated):
    if not (isinstance(got, list) and len(got) == 4 and all(isinstance(v, str) for v in got[:2])):
        return say("bad_evidence", lang, detail="result")
    outcome, message, before, after = got
    if before != after:
        return say("lab03_not_restored", lang, before=before, after=after)
    if outcome == "True" and None in want:
        return None
    if outcome == "AssertionError":
        match = INDEX[lang].search(message)
        if match and int(match.group(1)) in want:
            return None
    told = _got(outcome, message, lang)
    wrong = [i for i in want if i is not None]
    if not wrong:
        tight = case[2][0] > 1e-5
        return say("lab03_must_pass", lang, got=told) + (say("lab03_tight", lang) if tight else "")
    return say("lab03_must_raise", lang, got=told, index=wrong[-1])


def compare_annotations(got, want, case, lang, stated):
    if not isinstance(got, list) or not all(isinstance(line, str) for line in got):
        return say("bad_evidence", lang, detail="result")
    if got:
        return say("lab03_not_strict", lang, n=len(got), first=got[0][:200])
    return None


def compare_battery(got, want, case, lang, stated):
    """The battery passes on the right engine and catches every decidable mutant."""
    if not (isinstance(got, list) and len(got) == 2 and all(isinstance(part, list) for part in got)):
        return say("bad_evidence", lang, detail="result")
    wrong, caught_by_name = got
    caught_by_name = {str(pair[0]): pair[1] for pair in caught_by_name if isinstance(pair, list) and len(pair) == 2}
    if wrong:
        return say("lab03_battery_wrong", lang, names=", ".join(map(str, wrong[:3])))
    missed = [m for m in decidable() if caught_by_name.get(m.name) != 1]
    if missed:
        return say("lab03_battery_missed", lang, n=len(missed), total=len(decidable()),
                   bugs="; ".join(f"{m.method}: {m.new}" for m in missed[:3]))
    return None


def compare_expressions(got, want, case, lang, stated):
    """Every operation, the three composites (recognised at the drawn points), each at a point
    where its derivative exists, and the student's gradcheck True on each."""
    return expressions_problem(got, {2: case[0], 3: case[1]}, lang)


def compare_break(got, want, case, lang, stated):
    """The student's rule is the sign bug asked for, and their gradcheck reports it at input 1."""
    if not (isinstance(got, list) and len(got) == 2 and isinstance(got[1], str)):
        return say("bad_evidence", lang, detail="result")
    grads, said = got
    problem = rule_mistake(grads, case[2], lang)
    if problem:
        return problem
    match = INDEX[lang].search(said) if said.startswith("AssertionError") else None
    if not (match and int(match.group(1)) == 1):
        return say("lab03_break_not_caught", lang, said=_told(said, lang))
    return None


def _told(said, lang):
    """What the probe wrote of a gradcheck's outcome ("True", "returned ...", "Error: message"), told."""
    if said == "True":
        return _got("True", "", lang)
    if said.startswith("returned "):
        return _got("returned", said[len("returned "):], lang)
    error, _, message = said.partition(": ")
    return _got(error, message, lang)


def hunt_evidence_bytes(seed):
    """The most a hunt's evidence can take: every engine's passes recorded to the limit (a node is
    at most ["relu", [a, b], value] and a leaf's [position, before, after], some 120 bytes both)."""
    return len(PROBES["lab03-hunt"].draw(seed)) * MAX_PASSES * MAX_NODES * 120 + 10_000


def compare_hunt(need_input):
    """The hunt's answer against the culprit of the engine the grader knows it was given."""
    def compare(got, want, case, lang, stated):
        return mistake(got, want, lang, need_input)
    return compare


# the bonus: exact derivatives of the probe's FUNCTIONS
DERIVATIVES = {
    "sin": math.cos,
    "exp_sin": lambda x: math.exp(math.sin(x)) * math.cos(x),
    "tanh": lambda x: 2 * (1 - math.tanh(2 * x - 0.5) ** 2),
    "rational": lambda x: (x ** 4 + 3 * x ** 2) / (1 + x * x) ** 2,
    "log": lambda x: 2 * x / (x * x + 1),
}


CHECKS = {
    "lab03-expressions": Check(PROBES["lab03-expressions"], reference=lambda case: None,
                               describe=lambda case, lang: say("lab03_expressions", lang),
                               compare=compare_expressions, localized=True),
    "lab03-break": Check(PROBES["lab03-break"], reference=lambda case: None,
                         describe=lambda case, lang: say("lab03_break_case", lang),
                         compare=compare_break, localized=True),
    # predictions: a point for any prediction recorded before its measurement
    "lab03-predict-sub": prediction_check("lab03-predict-sub", "abcd"),
    "lab03-predict-blind": prediction_check("lab03-predict-blind", "abcd"),
    # the prediction: within a factor of 3 of where truncation meets cancellation in float32
    "lab03-eps-float32": Check(PROBES["lab03-eps-float32"], reference=lambda case: None,
                               describe=lambda case, lang: say("lab03_eps_case", lang),
                               compare=lambda got, want, case, lang, stated: eps_mistake(got, lang),
                               localized=True),
    # 1e-12: the complex step is exact to a few ulps; the best central difference (eps near 1e-5)
    # is off by about 1e-11, so a central difference cannot pass for it
    "lab03-bonus-complex": Check(PROBES["lab03-bonus-complex"],
                                 reference=lambda case: DERIVATIVES[case[0]](case[1]),
                                 describe=lambda case: f"complex_step({case[0]}, {case[1]:g})",
                                 rel_tol=1e-12, abs_tol=1e-12, stated={"bonus": 1}, bonus=1),
    "lab03-gradcheck": Check(PROBES["lab03-gradcheck"], reference=expected, describe=_describe,
                             compare=compare_gradcheck, localized=True),
    "lab03-battery": Check(PROBES["lab03-battery"], reference=lambda case: None,
                           describe=lambda case, lang: say("lab03_battery", lang), compare=compare_battery,
                           localized=True),
    # the hunt: 2 points for the broken operation of every engine (and None for minigrad's own),
    # 1 more for the input whose gradient is wrong as well
    "lab03-hunt": Check(PROBES["lab03-hunt"], reference=lambda case: culprit(hunt_mutant(case)),
                        describe=lambda case, lang: say("lab03_hunt_case", lang),
                        compare=compare_hunt(need_input=False), localized=True,
                        evidence_bytes=hunt_evidence_bytes),
    "lab03-hunt-input": Check(PROBES["lab03-hunt-input"], reference=lambda case: culprit(hunt_mutant(case)),
                              describe=lambda case, lang: say("lab03_hunt_case", lang),
                              compare=compare_hunt(need_input=True), localized=True,
                              evidence_bytes=hunt_evidence_bytes),
    "lab03-annotations": Check(PROBES["lab03-annotations"], reference=lambda case: None,
                               describe=lambda case: "gradcheck", compare=compare_annotations),
}
