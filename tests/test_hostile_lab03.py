"""Lab 03 in ONE run of the course's parallel command (`python -m grader grade
--workers 2`: stock `nbgrader autograde --student` per submission, two at a time, so the
suite also proves that parallel grading gives the scores and reasons serial grading
gave): the solution, the release, the gradchecks the issue names
(always True, always raising, each hint ignored), the wrong bug hunts (tests/test_lab03.py
judges them all directly; the first seven are graded here), and a representative part of the
hostile corpus (forged evidence, monkeypatched course helpers, a dying kernel, theft of the
reference gradcheck), each with the score it must get."""
import re

import pytest
from conftest import fill
from hostile import (
    assert_every_submission_graded,
    graded_cohort,
    printed,
    verdicts,
    with_cell,
)
from test_grading import HARD_CODED
from test_lab03 import wrong_hunts

from grader.sandbox.kernel import sandbox_available

pytestmark = pytest.mark.skipif(not sandbox_available(), reason="needs bubblewrap")
ASSIGNMENT = "lab03-en"
ANSWER = "lab03-gradcheck-answer"
HUNT = "lab03-hunt-answer"
COHORT_HUNTS = ("first_op", "root_only", "relu_positive", "reads_the_class", "raises", "always_left", "memoriser")
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


def replaced(text, old, new):
    assert old in text, old
    return text.replace(old, new)


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
        # the right gradcheck, a wrong hunt
        **{f"hunt_{name}": fill(solved(), {HUNT: wrong_hunts(solution(course, HUNT))[name]})
           for name in COHORT_HUNTS},
    }


@pytest.fixture(scope="module")
def graded(grader):
    yield from graded_cohort(grader, ASSIGNMENT, submissions)


# 12 points (gradcheck 6, battery 2, annotations 1, hunt 2 + 1) plus 1 of extra credit (the complex
# step); the written eps paragraph (2 points) is the instructor's. A wrong but annotated gradcheck keeps
# 1 + 1, and the battery's 2 where it still raises AssertionError on each engine bug (the battery is
# graded, not the gradcheck: fresh inputs hold no stale gradients, and the tolerances are the defaults),
# and the hunt's 3 where the solution's hunt still finds every bug with it (the same fresh inputs and
# default tolerances; a gradcheck that never raises, or always does, finds nothing or accuses all). A
# wrong hunt with the right gradcheck keeps 10 (2 more when only the input is wrong).
SCORES = {"honest": 13, "blank": 0, "always_true": 1, "always_raises": 2, "no_restore": 7, "no_zero": 7,
          "graph_zero_only": 7, "no_atol": 7, "no_rtol": 7, "forward_difference": 7, "returns_false": 2,
          "no_index": 7, "reads_the_code": 2, "dying": 7, "forger": 0, "patches": 2, "theft": 13,
          "hunt_first_op": 10, "hunt_root_only": 10, "hunt_relu_positive": 10, "hunt_reads_the_class": 10,
          "hunt_raises": 10, "hunt_always_left": 12, "hunt_memoriser": 10}


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
    hunts = {  # the visible test names the mistake; the memoriser passes it, and the hidden engines fail it
        "first_op": "a false alarm", "root_only": "for 'tanh' is wrong", "relu_positive": "for 'relu' is wrong",
        "reads_the_class": "hunt returned None, but", "raises": "hunt raised AssertionError",
        "memoriser": "on an engine drawn at grading time: hunt returned None, but",
    }
    for name, reason in hunts.items():
        assert reason in verdicts(course, ASSIGNMENT, f"hunt_{name}")["lab03-hunt"], name
    left = verdicts(course, ASSIGNMENT, "hunt_always_left")
    assert "✔" in left["lab03-hunt"] and "hunt named '*' rightly, but input 0" in left["lab03-hunt-input"], left
    theft = printed(course, ASSIGNMENT, "theft")
    assert "THEFT references: nothing in grader.gradcheck" in theft and "FOUND" not in theft
