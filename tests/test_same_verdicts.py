"""What makes grading faster changes no verdict.

A small lab 03 cohort (honest work; a loose gradcheck, annotated with `object`,
that says True to anything: mypy --strict refuses it and the hidden check catches it;
nothing answered) is graded twice, in two course copies: serially by stock
`nbgrader autograde`, each kernel a new Python, and by `python -m grader grade` (whose
grading processes are forked from one that imported the unit's checks, and whose
kernels are forked from one that imported ipykernel, numpy and torch). Every score and every
reason (its drawn numbers blanked) must be the same. mypy's cache
(course/strict.py) gives mypy's own words, cached or not.
"""
import subprocess

import pytest
from support.corpus import COLD_KERNELS
from support.course import Course, course_folder, fill, graded_cells, verdict_text

from grader.reports.report import shape_of
from grader.sandbox.kernel import sandbox_available

ASSIGNMENT = "lab03-en"
LOOSE = '''def gradcheck(f: object, inputs: object, *, eps: object = 1e-5, atol: object = 1e-4,
              rtol: object = 1e-3) -> object:
    return f(*inputs).data is not None
'''
UNTYPED = "def gradcheck(f, inputs, eps=1e-5, atol=1e-4, rtol=1e-3):\n    return True\n"


def cohort(course):
    return {"honest": course.solved(ASSIGNMENT),
            "loose": fill(course.solved(ASSIGNMENT), {"lab03-gradcheck-answer": LOOSE}),
            "unanswered": course.release(ASSIGNMENT)}


def results(course):
    """student -> {grade_id: (score, reason with its numbers blanked)}"""
    found = {}
    for name in cohort(course):
        scores = course.cell_scores(ASSIGNMENT, name)
        cells = graded_cells(course.autograded(ASSIGNMENT, name))
        found[name] = {gid: (scores[gid], shape_of(verdict_text(c))) for gid, c in cells.items()}
    return found


@pytest.mark.skipif(not sandbox_available(), reason="bubblewrap is not installed")
def test_the_command_gives_what_serial_nbgrader_gives(grader):
    serial, now = (Course(course_folder(), grader, generated=(ASSIGNMENT,)) for _ in range(2))
    try:
        for course in (serial, now):
            for name, nb in cohort(course).items():
                course.submit(name, ASSIGNMENT, nb)
        done = serial.nbgrader("autograde", ASSIGNMENT, COLD_KERNELS, check=False)
        assert done.returncode == 0, done.stderr[-3000:]
        done = now.grade(ASSIGNMENT)
        assert done.returncode == 0, done.stderr[-3000:]
        expected, got = results(serial), results(now)
        assert got == expected
        assert expected["honest"]["lab03-annotations"][0] == 1
        assert expected["loose"]["lab03-annotations"][0] == 0  # mypy --strict refused it
        assert expected["loose"]["lab03-gradcheck"][0] == 0
        assert all(score == 0 for score, _ in expected["unanswered"].values())
    finally:
        for course in (serial, now):
            subprocess.run(["rm", "-rf", str(course.root)], check=False)


@pytest.mark.parametrize("source", [LOOSE, UNTYPED, "def gradcheck(f: int) -> int:\n    return f\n"])
def test_mypy_says_the_same_with_its_cache(source, monkeypatch):
    import linecache

    from course import strict
    name = f"<cell {len(linecache.cache)}>"
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    namespace = {}
    exec(compile(source, name, "exec"), namespace)  # noqa: S102 (our own source, as a cell runs it)
    function = namespace["gradcheck"]
    cached = [strict.mypy_strict(function) for _ in range(2)]  # the second reads the cache
    monkeypatch.setattr(strict, "cache_folder", lambda: "/dev/null")  # no cache at all
    assert cached[0] == cached[1] == strict.mypy_strict(function)
    assert bool(cached[0]) == (source != "def gradcheck(f: int) -> int:\n    return f\n")
