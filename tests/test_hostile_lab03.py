"""Lab 03 in ONE run of the course's parallel command (`python -m grader grade
--workers 2`: stock `nbgrader autograde --student` per submission, two at a time, so the
suite also proves that parallel grading gives the scores and reasons serial grading
gave): the solution, the release, the gradchecks the issue names
(always True, always raising, each hint ignored), wrong tests per operation, broken rules and
batteries, predictions left blank, the wrong bug hunts (tests/test_lab03.py judges every wrong
answer directly; these are graded here), and a representative part of the hostile corpus
(forged evidence, monkeypatched course helpers, a dying kernel, theft of the reference
gradcheck), each with the score it must get."""
import re

import pytest
from support.answers import HARD_CODED, replaced, wrong_hunts
from support.course import fill
from support.hostile import (
    assert_every_submission_graded,
    graded_cohort,
    printed,
    verdicts,
    with_cell,
)

from grader.sandbox.kernel import sandbox_available

pytestmark = pytest.mark.skipif(not sandbox_available(), reason="needs bubblewrap")
ASSIGNMENT = "lab03-en"
ANSWER = "lab03-gradcheck-answer"
HUNT = "lab03-hunt-answer"
BATTERY = "lab03-battery-answer"
EXPRESSIONS = "lab03-expressions-answer"
BREAK = "lab03-break-answer"
EPS = "lab03-eps-float32-answer"
PREDICTIONS = ("lab03-predict-sub-answer", "lab03-predict-blind-answer")
COHORT_HUNTS = ("first_op", "root_only", "relu_positive", "reads_the_class", "raises", "always_left", "memoriser",
                "bytecode", "bytecode_show", "table_lookup")
# MORE_EXPRESSIONS of every operation again, only at the root: the 16 expressions' blind spots stay
ROOT_ONLY = """MORE_EXPRESSIONS = [("a + b", lambda a, b: a + b, (1.3, -0.7)), ("a * b", lambda a, b: a * b, (1.3, -0.7)),
                    ("a - b", lambda a, b: a - b, (1.3, -0.7)), ("a ** 3", lambda a: a ** 3, (1.3,)),
                    ("exp(a)", lambda a: a.exp(), (0.45,)), ("log(a)", lambda a: a.log(), (2.5,)),
                    ("tanh(a)", lambda a: a.tanh(), (0.35,)), ("relu(a)", lambda a: a.relu(), (-0.6,))]
"""
ALWAYS_RAISES = '''def gradcheck(f: Callable[..., Value], inputs: tuple[Value, ...], *, eps: float = 1e-5,
              atol: float = 1e-4, rtol: float = 1e-3) -> bool:
    raise AssertionError("gradcheck FAILED at input index 0")'''
# grading the probe's stale-gradient case (100.0 on every input) kills the kernel
DIES_ON_STALE = "import os\n"
FORGER = '''
import json, os
from IPython.display import display
import course.student
from course.probes import find_probe
def forged(grade_id, *objects, **stated):  # "True", data untouched, for every case, at the right seed
    seed = int(os.environ.get("COURSE_GRADING_SEED", "0"))
    cases = find_probe(grade_id).draw(seed)
    results = [{"value": ["True", "", case[1], case[1]]} for case in cases]
    display({course.student.EVIDENCE_MIME: json.dumps({"grade_id": grade_id, "seed": seed,
             "results": results}), "text/plain": "forged"}, raw=True)
course.student.probe = forged
student.probe = forged
'''
PATCHES = '''
import builtins, math, inspect
import course.evidence
course.evidence.close = lambda *a, **k: True
builtins.abs = lambda x: 0.0
math.isclose = lambda *a, **k: True
'''
# the table-lookup gradcheck that scored 7/7 when the hidden expressions were fixed lambdas: it reads the
# names and constants of f's code and answers from a table, computing nothing
READS_THE_CODE = '''def gradcheck(f: Callable[..., Value], inputs: tuple[Value, ...], *, eps: float = 1e-5,
              atol: float = 1e-4, rtol: float = 1e-3) -> bool:
    code = getattr(f, "__code__", None)
    names, constants = set(getattr(code, "co_names", ())), getattr(code, "co_consts", ())
    table = {"sub_wrong_sign": 1, "mul_assigns": 0, "mul_swapped": 0, "neg_wrong_sign": 2}
    for name, index in table.items():
        if name in names:
            raise AssertionError(f"gradcheck FAILED at input index {index}")
    if "square_times" in names and 3.0 in constants:
        raise AssertionError("gradcheck FAILED at input index 1")
    if "square_times" in names and atol + 2 * rtol < 0.02:
        raise AssertionError("gradcheck FAILED at input index 0")
    return True'''
THEFT = '''
for module in ("grader.gradcheck", "grader.checks.lab03", "grader.checks"):
    try:
        __import__(module)
        print("THEFT FOUND", module)
    except ImportError:
        print("THEFT references: nothing in", module)
'''


def solution(course, grade_id=ANSWER):
    source = course.solved(ASSIGNMENT)
    return next(c.source for c in source.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def without_restore(text):
    """The solution with `x.data = saved` (the restore, not `saved + eps`) made a `pass`."""
    changed = re.sub(r"x\.data = saved(?!\s*[+-])", "pass", text)
    assert changed != text
    return changed


def submissions(course):
    solved = lambda: course.solved(ASSIGNMENT)
    right = solution(course)
    hint = {  # the solution with one hint ignored, or one step done wrong
        "no_restore": without_restore(right),
        "no_zero": replaced(replaced(right, "        x.grad = 0.0", "        pass"),
                            "out.zero_grad()", "pass"),
        "graph_zero_only": replaced(right, "        x.grad = 0.0", "        pass"),
        "no_atol": replaced(right, "atol + rtol * abs(num)", "rtol * abs(num)"),
        "no_rtol": replaced(right, "atol + rtol * abs(num)", "atol"),
        "forward_difference": replaced(right, "(f_plus - f_minus) / (2 * eps)", "(f_plus - f(*inputs).data) / eps"),
        "returns_false": replaced(right, "raise AssertionError(", "return False and AssertionError("),
        "no_index": replaced(right, "at input index {index}", "somewhere"),
    }
    return {
        "honest": solved(),
        "blank": course.release(ASSIGNMENT),
        "always_true": fill(solved(), {ANSWER: HARD_CODED["lab03"][ANSWER]}),
        "always_raises": fill(solved(), {ANSWER: ALWAYS_RAISES}),
        "reads_the_code": fill(solved(), {ANSWER: READS_THE_CODE}),
        **{name: fill(solved(), {ANSWER: text}) for name, text in hint.items()},
        "dying": fill(solved(), {ANSWER: DIES_ON_STALE + replaced(
            right, "    numerical = []\n",
            "    if any(x.grad == 100.0 for x in inputs):\n        os._exit(1)\n    numerical = []\n")}),
        "forger": with_cell(fill(solved(), {ANSWER: HARD_CODED["lab03"][ANSWER]}), FORGER),
        "patches": with_cell(fill(solved(), {ANSWER: hint["no_zero"]}), PATCHES),
        "theft": with_cell(solved(), THEFT),
        # Exercises 2 to 4, one wrong answer each (their cells are scored apart): EXPRESSIONS without
        # log or the diamond, a rule that is minigrad's own (nothing broken), MORE_EXPRESSIONS at the root
        "parts_a": fill(solved(), {
            EXPRESSIONS: re.sub(r'\n    \("(log\(a\)|\(a\*b \+ c\) \* \(a - c\))".*', "", solution(course, EXPRESSIONS)),
            BREAK: replaced(solution(course, BREAK), "c.grad += out.grad", "c.grad += -1.0 * out.grad"),
            BATTERY: ROOT_ONLY}),
        # relu checked at its kink; the right operand's -1 forgotten, and its `* out.grad` too
        "parts_b": fill(solved(), {
            EXPRESSIONS: replaced(solution(course, EXPRESSIONS), "a.relu(), (0.8,)", "a.relu(), (0.0,)"),
            BREAK: replaced(solution(course, BREAK), "c.grad += out.grad", "c.grad += 1.0")}),
        # both predictions left None: their measurements refuse, so Exercise 3 records nothing either
        "predict_blank": fill(solved(), {PREDICTIONS[0]: "PREDICT_SUB_INDEX = None\n",
                                         PREDICTIONS[1]: "PREDICT_BLIND_SPOT = None\n"}),
        # the best eps in float32 predicted as float64's default, or with a forward difference's rule
        "eps_float64": fill(solved(), {EPS: "EPS_FLOAT32 = 1e-5\n"}),
        "eps_forward": fill(solved(), {EPS: "EPS_FLOAT32 = 2.0 ** -12\n"}),
        # the right gradcheck, a wrong hunt
        **{f"hunt_{name}": fill(solved(), {HUNT: wrong_hunts(solution(course, HUNT))[name]})
           for name in COHORT_HUNTS},
    }


@pytest.fixture(scope="module")
def graded(grader):
    yield from graded_cohort(grader, ASSIGNMENT, submissions)


# 18 points (gradcheck 6, annotations 1, the test per operation 2, breaking __sub__ 1, the battery 2,
# hunt 2 + 1, the prediction of eps in float32 1, two predictions recorded 1 + 1) plus 1 of extra credit
# (the complex step); the written eps paragraph (2 points) is the instructor's. A wrong but annotated
# gradcheck keeps the annotations, the predictions, eps and the bonus (5), and each later exercise it
# still does right with fresh inputs and default tolerances: the test per operation where it returns
# True on correct expressions (2), breaking __sub__ where it raises at the right index (1), the battery
# where it raises on every engine bug (2), the hunt where the solution's hunt still finds every bug
# with it (3); a gradcheck that never raises, or always does, finds nothing or accuses all. A wrong
# hunt with the right gradcheck keeps 16 (18 when only the input is wrong); a hunt that computes
# nothing, looks its answer up in course/mutants.py, or runs a pass for show that ties no answer,
# keeps 16 too, however right its answers. Predictions left None lose their points, and the
# measurement of the first refuses, so breaking __sub__ records nothing (16). The patched kernel
# (abs returns 0) loses what its own visible tests cannot run.
SCORES = {"honest": 19, "blank": 0, "always_true": 6, "always_raises": 5, "no_restore": 13, "no_zero": 13,
          "graph_zero_only": 13, "no_atol": 13, "no_rtol": 13, "forward_difference": 13, "returns_false": 7,
          "no_index": 12, "reads_the_code": 7, "dying": 13, "forger": 0, "patches": 4, "theft": 19,
          "parts_a": 14, "parts_b": 14, "predict_blank": 17, "eps_float64": 18, "eps_forward": 18,
          "hunt_first_op": 16, "hunt_root_only": 16, "hunt_relu_positive": 16, "hunt_reads_the_class": 16,
          "hunt_raises": 16, "hunt_always_left": 18, "hunt_memoriser": 16, "hunt_bytecode": 16,
          "hunt_bytecode_show": 16, "hunt_table_lookup": 16}
# what each submission of Exercises 2 to 4 loses, cell by cell, and the reason it is given
PARTS = {
    "parts_a": {"lab03-expressions": "uses log", "lab03-break": "nothing is broken",
                "lab03-battery": "of the 56 bugs through"},
    "parts_b": {"lab03-expressions": "relu's kink", "lab03-break": "the bug asked for gives",
                "lab03-battery": "fails on ['relu(a)'] with minigrad's own engine"},
    # a skipped prediction costs its own point only: the broken rule's test measures again by itself
    "predict_blank": {"lab03-predict-sub": "no prediction yet", "lab03-predict-blind": "no prediction yet"},
}


def test_every_submission_was_graded(graded):
    assert_every_submission_graded(*graded, ASSIGNMENT, SCORES)


@pytest.mark.parametrize("name", SCORES)
def test_score(graded, name):
    course, result = graded
    assert course.score(ASSIGNMENT, name) == SCORES[name], (course.cell_scores(ASSIGNMENT, name),
                                                           result.stderr[-2000:])


def test_reasons(graded):
    course = graded[0]
    reasons = {  # the visible test names the mistake where it can; else the hidden verdict does
        "no_restore": "restore .data", "graph_zero_only": "from before: zero every input's .grad",
        "no_zero": "from before: zero every input's .grad",
        "no_atol": "near 0 only atol can absorb", "no_rtol": "near 0 only atol can absorb",
        "forward_difference": "a forward difference", "returns_false": "instead of raising",
        "no_index": "'input index 1'", "reads_the_code": "instead of raising",
        "forger": "instead of raising",  # its gradcheck is `return True`; the forged evidence never counts
    }
    for name, reason in reasons.items():
        assert reason in verdicts(course, ASSIGNMENT, name)["lab03-gradcheck"], (name, verdicts(course, ASSIGNMENT, name))
    assert "kernel died" in verdicts(course, ASSIGNMENT, "dying")["lab03-gradcheck"]
    hunts = {  # the visible test names the mistake
        "first_op": "without running one backward pass", "root_only": "for 'tanh' is wrong",
        "relu_positive": "for 'relu' is wrong", "reads_the_class": "without running one backward pass",
        "raises": "hunt raised AssertionError", "bytecode": "read from the class or its bytecode",
        "table_lookup": "from course.mutants' table",
        "memoriser": "so it earns nothing", "bytecode_show": "so it earns nothing",
    }
    for name, reason in hunts.items():
        assert reason in verdicts(course, ASSIGNMENT, f"hunt_{name}")["lab03-hunt"], name
    for name, lost in PARTS.items():
        scores, said = course.cell_scores(ASSIGNMENT, name), verdicts(course, ASSIGNMENT, name)
        for grade_id, reason in lost.items():
            assert scores[grade_id] == 0 and reason in said[grade_id], (name, grade_id, said[grade_id])
    assert "best ε in float64" in verdicts(course, ASSIGNMENT, "eps_float64")["lab03-eps-float32"]
    assert "a forward difference" in verdicts(course, ASSIGNMENT, "eps_forward")["lab03-eps-float32"]
    left = verdicts(course, ASSIGNMENT, "hunt_always_left")
    assert "✔" in left["lab03-hunt"] and "hunt named '*' rightly, but input 0" in left["lab03-hunt-input"], left
    theft = printed(course, ASSIGNMENT, "theft")
    assert "THEFT references: nothing in grader.gradcheck" in theft and "FOUND" not in theft
