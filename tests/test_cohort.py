"""`python -m grader grade`: a cohort graded in parallel gets what serial stock
`nbgrader autograde` gives it, and a fork bomb graded beside honest work does
not take its neighbour's processes.

One small cohort (fork bomb, honest, wrong, hard-coded in English; fork bomb,
honest, hard-coded in Spanish) is graded twice, in two course copies: serially
by stock nbgrader, and in parallel by the command, two at a time. The English
run is the tests' ordinary user with a cgroup per kernel; the Spanish one is
root without cgroups, where the process limit is an rlimit counted per user and
each worker's kernels get a user of their own.
"""
import re
import subprocess
import sys

import pytest

from conftest import Course, course_folder, fill, graded_cells, verdict_text
from corpus.cases import FORK_BOMB, HARD, cell
from grader.cohort import SLOT_UID_BASE
from grader.sandbox import sandbox_available

pytestmark = pytest.mark.skipif(not sandbox_available(),
                                reason="bubblewrap is not installed: grading runs sandboxed")

ASSIGNMENTS = ("theory03-en", "theory03-es")
WRONG = {"theory03-forward-answer":
         "def forward(a, b, c):\n    return a * b, a * b + c, a - c, (a * b + c) * (c - a)"}
# the hostile corpus's limits (tests/test_hostile.py): the fork bomb meets 128 processes
LIMITS = ["--Execute.timeout=5", "--GradingExecute.notebook_timeout=40",
          f"--SandboxedKernelManager.memory_limit={1024 ** 3}",
          "--SandboxedKernelManager.process_limit=128"]


EXPECTED = {"a-fork-bomb": 10, "a-honest": 10, "b-wrong": 8, "c-hard-coded": 0}
# how each language's parallel run is made (see the docstring)
AS_ROOT = {"theory03-en": False, "theory03-es": True}
NO_CGROUP = ["--SandboxedKernelManager.use_cgroup=False"]


def cohort(course, assignment):
    """name -> notebook. Sorted names put the fork bomb and honest work side by side."""
    bomb = course.solved(assignment)
    bomb.cells.insert(4, cell(FORK_BOMB))
    names = {"a-fork-bomb": bomb, "a-honest": course.solved(assignment),
             "b-wrong": fill(course.solved(assignment), WRONG),
             "c-hard-coded": fill(course.solved(assignment), HARD)}
    if assignment == "theory03-es":
        del names["b-wrong"]  # each graded notebook costs seconds on 2 cores
    return names


def make_course(grader):
    course = Course(course_folder(), grader)
    for assignment in ASSIGNMENTS:
        assert course.nbgrader("generate_assignment", assignment, "--force").returncode == 0
        for name, nb in cohort(course, assignment).items():
            course.submit(name, assignment, nb)
    return course


def grade_command(course, assignment, *options, user=True):
    run_as = course.grader.options() if user else {}
    return subprocess.run([sys.executable, "-m", "grader", "grade", assignment, "--no-progress",
                           *options, *LIMITS],
                          cwd=course.root, capture_output=True, text=True, **run_as)


def results(course, assignment):
    """student -> {grade_id: (score, reason with its numbers blanked)}: the inputs are drawn
    afresh from each run's seed, the rest of a reason must be the same."""
    found = {}
    for name in cohort(course, assignment):
        scores = course.cell_scores(assignment, name)
        cells = graded_cells(course.autograded(assignment, name))
        found[name] = {gid: (scores[gid], re.sub(r"-?\d+(\.\d+)?(e-?\d+)?", "#",
                                                  verdict_text(c)))
                       for gid, c in cells.items()}
    return found


@pytest.fixture(scope="module")
def graded(grader):
    serial, parallel = make_course(grader), make_course(grader)
    for assignment in ASSIGNMENTS:
        done = serial.nbgrader("autograde", assignment, *LIMITS, check=False)
        assert done.returncode == 0, done.stderr[-3000:]
    runs = {a: grade_command(parallel, a, "--workers=2",
                             *(NO_CGROUP if AS_ROOT[a] else parallel.grader.arguments()),
                             user=not AS_ROOT[a])
            for a in ASSIGNMENTS}
    yield serial, parallel, runs
    for course in (serial, parallel):
        subprocess.run(["rm", "-rf", str(course.root)])


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_parallel_gives_what_serial_nbgrader_gives(graded, assignment):
    serial, parallel, runs = graded
    assert runs[assignment].returncode == 0, runs[assignment].stderr[-3000:]
    assert "2 at a time" in runs[assignment].stderr
    expected, got = results(serial, assignment), results(parallel, assignment)
    assert got == expected
    totals = {name: parallel.score(assignment, name) for name in expected}
    assert totals == {name: EXPECTED[name] for name in expected}


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_fork_bomb_beside_honest_work(graded, assignment):
    _, parallel, runs = graded
    nb = parallel.autograded(assignment, "a-fork-bomb")
    outputs = "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert "fork refused after" in outputs
    for c in graded_cells(parallel.autograded(assignment, "a-honest")).values():
        assert verdict_text(c).startswith("✔"), verdict_text(c)
    defences = {parallel.autograded(assignment, name).metadata["course"]["grading"]["defences"]
                for name in ("a-fork-bomb", "a-honest")}
    if AS_ROOT[assignment]:  # graded at the same moment, each as a user of its own
        assert "a user of their own" in runs[assignment].stderr
        assert {d.split("as user id ")[1].split(",")[0] for d in defences} == \
            {str(SLOT_UID_BASE), str(SLOT_UID_BASE + 1)}
        assert all("rlimits only" in d for d in defences)
    else:
        assert all("cgroup v" in d for d in defences), defences


def test_report_written(graded):
    _, parallel, runs = graded
    csv = (parallel.root / "reports" / "theory03-es.csv").read_text()
    assert "a-honest" in csv and "c-hard-coded" in csv
    assert "wrote" in runs["theory03-es"].stdout
