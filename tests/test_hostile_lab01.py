"""A representative part of the hostile corpus, on lab 01, in ONE run of the course's
parallel command (`python -m grader grade --workers 2`: stock `nbgrader autograde
--student` per submission, two at a time), so the suite also proves that hostile work
graded in parallel gets the scores and reasons serial grading gave:
blank, autograd instead of formulas, a forged report, monkeypatched course helpers,
a dying kernel, an output flood in the cell whose honest evidence is over the cap,
theft of the answer key, Exercise 1a's plausible wrong sums over paths and its shortcuts (matrix
products, autograd inside it), and Exercise 3's pitfalls left in place, beside honest work."""
import pytest
from support.answers import AUTOGRAD_SHORTCUT
from support.course import fill, graded_cells, verdict_text
from support.hostile import (
    assert_every_submission_graded,
    graded_cohort,
    printed,
    verdicts,
    with_cell,
)

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
PATHS = """def grads_by_paths(delta, x, W):
    n, d_out = delta.shape
    d_in = W.shape[1]
    dx = torch.zeros(n, d_in, dtype=delta.dtype)
    dW = torch.zeros(d_out, d_in, dtype=delta.dtype)
    db = torch.zeros(d_out, dtype=delta.dtype)
    for i in range(n):
        for j in range(d_out):
            db[j] += delta[i, j]
            for k in range(d_in):
                dx[i, k] += delta[i, j] * W[j, k]
                dW[j, k] += delta[i, j] * x[i, k]
    return dx, dW, db
"""
# Exercise 1a's plausible wrong sums over paths: each loses its 2 points, named by the visible test
WRONG_PATHS = {
    "paths_dx_Wt": (PATHS.replace("* W[j, k]", "* W[k, j]"), "dx multiplies by Wᵀ"),
    "paths_dx_one_output": (PATHS.replace("dx[i, k] +=", "dx[i, k] ="), "dx counts one output only"),
    "paths_one_example": (PATHS.replace("dW[j, k] +=", "dW[j, k] =").replace("db[j] +=", "db[j] ="),
                          "dW counts one example of the batch only"),
    "paths_db_not_summed": (PATHS.replace("return dx, dW, db", "return dx, dW, delta.clone()"),
                            "so db sums over the batch"),
    "paths_dW_swapped": (PATHS.replace("dW = torch.zeros(d_out, d_in", "dW = torch.zeros(d_in, d_out")
                         .replace("dW[j, k] +=", "dW[k, j] +="), "dW is transposed"),
    # shortcuts: the matrix form of Exercise 1, and autograd's vector-Jacobian product
    "paths_matrix_products": ("def grads_by_paths(delta, x, W):\n    return delta @ W, delta.T @ x, delta.sum(0)\n",
                              "adds many paths at once (@"),
    "paths_autograd": (("def grads_by_paths(delta, x, W):\n    with torch.enable_grad():\n"
                        "        xl, Wl = x.clone().requires_grad_(True), W.clone().requires_grad_(True)\n"
                        "        dx, dW = torch.autograd.grad((xl @ Wl.T * delta).sum(), (xl, Wl))\n"
                        "    return dx, dW, torch.zeros(delta.shape[1], dtype=delta.dtype) + delta[0]"
                        " + delta[1:].sum(0)\n"),
                       "used autograd"),
}
# Exercise 3's pitfalls left in place: each loses its point, named by the visible test
PITFALL_HALF_KEPT = ("def grads_without_half(x, W, b, target):\n"
                     "    x, W, b = (v.clone().requires_grad_(True) for v in (x, W, b))\n"
                     "    (0.5 * ((F.linear(x, W, b) - target) ** 2).sum()).backward()\n"
                     "    return x.grad, W.grad, b.grad\n\n\n"
                     "def grads_backward_twice(x, W, b, target):\n"
                     "    x, W, b = (v.clone().requires_grad_(True) for v in (x, W, b))\n"
                     "    loss = 0.5 * ((F.linear(x, W, b) - target) ** 2).sum()\n"
                     "    loss.backward()\n"
                     "    return x.grad, W.grad, b.grad\n")
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
        **{name: fill(solved(), {"lab01-paths-answer": code}) for name, (code, _) in WRONG_PATHS.items()},
        "pitfalls_kept": fill(solved(), {"lab01-pitfalls-answer": PITFALL_HALF_KEPT}),
    }


@pytest.fixture(scope="module")
def graded(grader):
    yield from graded_cohort(grader, ASSIGNMENT, submissions)


# 15 points graded automatically (2 more by hand), plus 3 of extra credit for the bonus exercises
SCORES = {"honest": 18, "blank": 0, "autograd": 13, "forger": 0, "patches": 0, "dying": 14,
          "flood": 18, "theft": 18, **dict.fromkeys(WRONG_PATHS, 16), "pitfalls_kept": 16}


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


@pytest.mark.parametrize("name", WRONG_PATHS)
def test_wrong_sums_over_paths_are_named(graded, name):
    cell = graded_cells(graded[0].autograded(ASSIGNMENT, name))["lab01-paths"]
    assert WRONG_PATHS[name][1] in verdict_text(cell), verdict_text(cell)


def test_pitfalls_left_in_place_are_named(graded):
    cells = graded_cells(graded[0].autograded(ASSIGNMENT, "pitfalls_kept"))
    assert "write the loss without the ½" in verdict_text(cells["lab01-pitfall-half"])
    assert "call backward(retain_graph=True)" in verdict_text(cells["lab01-pitfall-twice"])
