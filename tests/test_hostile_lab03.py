"""Lab 03 in ONE run of the course's parallel command (`python -m grader grade
--workers 2`: stock `nbgrader autograde --student` per submission, two at a time, so the
suite also proves that parallel grading gives the scores and reasons serial grading
gave): the solution, the release, the gradchecks the issue names
(always True, always raising, each hint ignored) and a representative part of the hostile
corpus (forged evidence, monkeypatched course helpers, a dying kernel, theft of the
reference gradcheck), each with the score it must get."""
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

from grader.sandbox import sandbox_available

pytestmark = pytest.mark.skipif(not sandbox_available(), reason="needs bubblewrap")
ASSIGNMENT = "lab03-en"
ANSWER = "lab03-gradcheck-answer"
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
THEFT = '''
for module in ("grader.gradcheck", "grader.checks.lab03", "grader.checks"):
    try:
        __import__(module)
        print("THEFT FOUND", module)
    except ImportError:
        print("THEFT references: nothing in", module)
'''


def solution(course):
    source = course.solved(ASSIGNMENT)
    return next(c.source for c in source.cells if c.metadata.get("nbgrader", {}).get("grade_id") == ANSWER)


def replaced(text, old, new):
    assert old in text, old
    return text.replace(old, new)


def submissions(course):
    solved = lambda: course.solved(ASSIGNMENT)  # noqa: E731
    right = solution(course)
    hint = {  # the solution with one hint ignored
        "no_restore": replaced(right, "x.data = saved  #", "pass  #"),
        "no_zero": replaced(replaced(right, "        x.grad = 0.0  #", "        pass  #"),
                            "out.zero_grad()", "pass"),
        "graph_zero_only": replaced(right, "        x.grad = 0.0  #", "        pass  #"),
        "no_atol": replaced(right, "atol + rtol * abs(num)", "rtol * abs(num)"),
    }
    return {
        "honest": solved(),
        "blank": course.release(ASSIGNMENT),
        "always_true": fill(solved(), {ANSWER: HARD_CODED["lab03"][ANSWER]}),
        "always_raises": fill(solved(), {ANSWER: ALWAYS_RAISES}),
        **{name: fill(solved(), {ANSWER: text}) for name, text in hint.items()},
        "dying": fill(solved(), {ANSWER: DIES_ON_STALE + replaced(
            right, "    numerical = []\n",
            "    if any(x.grad == 100.0 for x in inputs):\n        os._exit(1)\n    numerical = []\n")}),
        "forger": with_cell(fill(solved(), {ANSWER: HARD_CODED["lab03"][ANSWER]}), FORGER),
        "patches": with_cell(fill(solved(), {ANSWER: hint["no_zero"]}), PATCHES),
        "theft": with_cell(solved(), THEFT),
    }


@pytest.fixture(scope="module")
def graded(grader):
    yield from graded_cohort(grader, ASSIGNMENT, submissions)


# 7 points (gradcheck 6, annotations 1) plus 1 of extra credit (the complex step); the
# written eps paragraph (2 points) is the instructor's. A wrong but annotated gradcheck keeps 1 + 1.
SCORES = {"honest": 8, "blank": 0, "always_true": 1, "always_raises": 2, "no_restore": 2, "no_zero": 2,
          "graph_zero_only": 2, "no_atol": 2, "dying": 2, "forger": 0, "patches": 2, "theft": 8}


def test_every_submission_was_graded(graded):
    assert_every_submission_graded(*graded, ASSIGNMENT, SCORES)


@pytest.mark.parametrize("name", SCORES)
def test_score(graded, name):
    course, result = graded
    assert course.score(ASSIGNMENT, name) == SCORES[name], (course.cell_scores(ASSIGNMENT, name),
                                                           result.stderr[-2000:])


def test_reasons(graded):
    course = graded[0]
    assert "restore .data" in verdicts(course, ASSIGNMENT, "no_restore")["lab03-gradcheck"]
    assert "stale .grad = 7" in verdicts(course, ASSIGNMENT, "graph_zero_only")["lab03-gradcheck"]
    assert "stale .grad = 100" in verdicts(course, ASSIGNMENT, "no_zero")["lab03-gradcheck"]
    assert "atol=0.025, rtol=0" in verdicts(course, ASSIGNMENT, "no_atol")["lab03-gradcheck"]
    assert "kernel died" in verdicts(course, ASSIGNMENT, "dying")["lab03-gradcheck"]
    assert "expected" in verdicts(course, ASSIGNMENT, "forger")["lab03-gradcheck"]
    theft = printed(course, ASSIGNMENT, "theft")
    assert "THEFT references: nothing in grader.gradcheck" in theft and "FOUND" not in theft
