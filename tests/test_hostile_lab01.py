"""A representative part of the hostile corpus, on lab 01, in ONE run of the course's
parallel command (`python -m grader grade --workers 2`: stock `nbgrader autograde
--student` per submission, two at a time), so the suite also proves that hostile work
graded in parallel gets the scores and reasons serial grading gave:
blank, autograd instead of formulas, a forged report, monkeypatched course helpers,
a dying kernel, an output flood in the cell whose honest evidence is over the cap,
theft of the answer key, beside honest work."""
import pytest
from conftest import fill, graded_cells, verdict_text
from hostile import (
    assert_every_submission_graded,
    graded_cohort,
    printed,
    verdicts,
    with_cell,
)
from test_grading import AUTOGRAD_SHORTCUT

from grader.sandbox.kernel import sandbox_available

pytestmark = pytest.mark.skipif(not sandbox_available(), reason="needs bubblewrap")
ASSIGNMENT = "lab01-en"
WALK_LITERAL = ("def grad_fn_walk(loss):\n    return ['MulBackward0', 'SumBackward0', 'PowBackward0', "
                "'SubBackward0', 'AddmmBackward0', 'AccumulateGrad', 'AccumulateGrad', 'TBackward0', "
                "'AccumulateGrad']")
FORMULAS = "def linear_grads(x, W, b, target):\n    dy = F.linear(x, W, b) - target\n" \
           "    return dy @ W, dy.T @ x, dy.sum(dim=0)\n"
DIES_AT_FP16 = "import os\n" + FORMULAS.replace("    dy =", "    if x.dtype == torch.float16:\n"
                                                "        os._exit(1)\n    dy =")
# prints 100 kB in each call of the fp32 experiment's probe (after Part A's 2 and Part D's 20 calls)
FLOODS = "calls = [0]\n" + FORMULAS.replace("    dy =", "    if x.shape == (2, 64) and x.dtype == torch.float32:\n"
                                           "        calls[0] += 1\n"
                                           "        if 22 < calls[0] <= 42:\n"
                                           "            print('x' * 100_000)\n    dy =")
FORGER = '''
import json, os
from IPython.display import display
import course.student
from course.probes import find_probe
def forged(grade_id, *objects, **stated):  # the literal for every case, at the right seed
    seed = int(os.environ.get("COURSE_GRADING_SEED", "0"))
    cases = find_probe(grade_id).draw(seed)
    results = [{"value": grad_fn_walk(None)} for _ in cases]
    display({course.student.EVIDENCE_MIME: json.dumps({"grade_id": grade_id, "seed": seed,
             "results": results}), "text/plain": "forged"}, raw=True)
course.student.probe = forged
student.probe = forged
'''
PATCHES = '''
import builtins, numpy, torch
import course.student, course.evidence
course.evidence.close = lambda *a, **k: True
numpy.isfinite = lambda *a: numpy.array(True)
torch.Tensor.__lt__ = lambda self, other: torch.tensor(True)
'''
THEFT = '''
for module in ("grader.checks.lab01", "grader.checks"):
    try:
        __import__(module)
        print("THEFT FOUND", module)
    except ImportError:
        print("THEFT references: nothing in", module)
try:
    import grader
    print("THEFT note: `import grader` gives", getattr(grader, "__path__", None), getattr(grader, "__file__", None))
except ImportError:
    pass
'''


def submissions(course):
    solved = lambda: course.solved(ASSIGNMENT)
    release = lambda: course.release(ASSIGNMENT)
    return {
        "honest": solved(),
        "blank": release(),
        "autograd": fill(solved(), {"lab01-formulas-answer": AUTOGRAD_SHORTCUT}),
        "forger": with_cell(fill(solved(), {"lab01-walk-answer": WALK_LITERAL,
                                            "lab01-formulas-answer": AUTOGRAD_SHORTCUT}), FORGER),
        "patches": with_cell(fill(release(), {"lab01-walk-answer": WALK_LITERAL}), PATCHES),
        "dying": fill(solved(), {"lab01-formulas-answer": DIES_AT_FP16}),
        "flood": fill(solved(), {"lab01-formulas-answer": FLOODS}),
        "theft": with_cell(solved(), THEFT),
    }


@pytest.fixture(scope="module")
def graded(grader):
    yield from graded_cohort(grader, ASSIGNMENT, submissions)


# 9 points, plus 3 of extra credit for the bonus exercises
SCORES = {"honest": 12, "blank": 0, "autograd": 5, "forger": 0, "patches": 0, "dying": 7,
          "flood": 12, "theft": 12}


def test_every_submission_was_graded(graded):
    assert_every_submission_graded(*graded, ASSIGNMENT, SCORES)


@pytest.mark.parametrize("name", SCORES)
def test_score(graded, name):
    course, result = graded
    assert course.score(ASSIGNMENT, name) == SCORES[name], (course.cell_scores(ASSIGNMENT, name),
                                                           result.stderr[-2000:])


def test_reasons(graded):
    course = graded[0]
    assert "without autograd" in verdicts(course, ASSIGNMENT, "autograd")["lab01-formulas"]
    assert "expected" in verdicts(course, ASSIGNMENT, "forger")["lab01-walk"]
    assert "kernel died" in verdicts(course, ASSIGNMENT, "dying")["lab01-formulas"]
    theft = printed(course, ASSIGNMENT, "theft")
    assert "THEFT references: nothing in grader.checks.lab01" in theft and "FOUND" not in theft


def test_flood_is_cut_and_the_evidence_still_arrives(graded):
    cell = graded_cells(graded[0].autograded(ASSIGNMENT, "flood"))["lab01-fp32"]
    assert verdict_text(cell).startswith("✔")
    text = "".join(o.get("text", "") for o in cell.outputs)
    assert "output cut off" in text and len(text) < 1_100_000
