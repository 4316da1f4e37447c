"""The hostile corpus, graded in one run of stock `nbgrader autograde`.

Every case gets its expected score and a reason; honest work graded in the
same run is unaffected; the course files and the gradebook are intact.
"""
import hashlib
import socket
import threading

import pytest

from conftest import Course, graded_cells, verdict_text
from corpus.cases import CASES
from grader.sandbox import sandbox_available

pytestmark = pytest.mark.skipif(
    not sandbox_available(),
    reason="bubblewrap is not installed (apt-get install bubblewrap): the hostile corpus "
           "runs only sandboxed")
ASSIGNMENT = "theory03-en"


def digest(folder):
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            h.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return h.hexdigest()


class Listener:
    """A loopback TCP server that records whether anybody reached it."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.server.settimeout(0.5)
        self.reached, self.running = [], True
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while self.running:
            try:
                connection, _ = self.server.accept()
                self.reached.append(connection.recv(100))
                connection.close()
            except OSError:
                pass


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = Course(tmp_path_factory.mktemp("hostile"))
    assert course.nbgrader("generate_assignment", ASSIGNMENT, "--force").returncode == 0
    (course.root / "canary.txt").write_text("instructor's file")
    listener = Listener()
    paths = dict(source=course.root / "source" / ASSIGNMENT / "theory03.ipynb",
                 gradebook=course.root / "gradebook.db", canary=course.root / "canary.txt",
                 source_dir=course.root / "source", port=listener.port)
    before = digest(course.root / "source"), digest(course.root / "release")
    for name, (make, _, _) in CASES.items():
        course.submit(name, ASSIGNMENT, make if isinstance(make, (str, bytes)) else make(course, paths))
    result = course.nbgrader("autograde", ASSIGNMENT, "--force", "--Execute.timeout=5", check=False)
    listener.running = False
    report = course.nbgrader("export", "--to", str(course.root / "grades.csv"), check=False)
    from grader.report import cohort
    return course, result, before, listener, cohort(course.root, ASSIGNMENT), report


@pytest.mark.parametrize("name", CASES)
def test_case_gets_its_score_and_a_reason(graded, name):
    course, result, _, _, (ids, rows), _ = graded
    _, score, reasons = CASES[name]
    row = next(r for r in rows if r["student"] == name)
    assert row["score"] == score, (row, result.stderr[-2000:])
    assert row["max_score"] == 10
    for grade_id in ids:  # every graded cell has a reason, passed or not
        assert row[f"{grade_id} reason"], (grade_id, row)
    for grade_id, text in reasons.items():
        assert text in row[f"{grade_id} reason"], row[f"{grade_id} reason"]
    assert row["sandboxed"] == "sandboxed"


def test_reasons_of_the_cells_that_broke(graded):
    course = graded[0]
    def outputs(name):
        nb = course.autograded(ASSIGNMENT, name)
        return "\n".join(f"{o.get('ename', '')} {o.get('evalue') or o.get('text') or ''}"
                         for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert "still running after 5 s" in outputs("loop_ignoring_interrupts")
    assert "KeyboardInterrupt" in outputs("endless_loop")
    assert "kernel died while running this cell" in outputs("dying_kernel")
    assert "MemoryError" in outputs("memory_bomb")
    assert "output cut off" in outputs("output_flood")
    assert "no network" in outputs("network")
    assert "fork refused after" in outputs("fork_bomb")
    top = course.autograded(ASSIGNMENT, "deleted_test_cell").cells[0].source
    assert "Graded cells missing" in top and "theory03-walk" in top


def test_honest_work_in_the_same_run_is_unaffected(graded):
    course = graded[0]
    for cell in graded_cells(course.autograded(ASSIGNMENT, "honest")).values():
        assert verdict_text(cell).startswith("✔")


def test_course_files_and_gradebook_are_intact(graded):
    course, _, before, listener, _, export = graded
    assert (digest(course.root / "source"), digest(course.root / "release")) == before
    assert (course.root / "canary.txt").read_text() == "instructor's file"
    assert export.returncode == 0
    assert "owned" not in (course.root / "grades.csv").read_text()
    assert course.score(ASSIGNMENT, "honest") == 10
    assert listener.reached == []


def test_feedback_never_shows_hidden_tests(graded):
    course = graded[0]
    course.nbgrader("generate_feedback", ASSIGNMENT, "--force", check=False)
    pages = list((course.root / "feedback").rglob("*.html"))
    assert len(pages) == len(CASES)
    for page in pages:
        html = page.read_text()
        assert "student.probe" not in html and "HIDDEN TESTS" not in html


def test_grading_refuses_to_start_without_bubblewrap(tmp_path):
    course = Course(tmp_path)
    course.nbgrader("generate_assignment", ASSIGNMENT, "--force")
    course.submit("someone", ASSIGNMENT, course.solved(ASSIGNMENT))
    result = course.nbgrader("autograde", ASSIGNMENT, "--SandboxedKernelManager.bwrap=/no/bwrap",
                             check=False)
    assert "apt-get install bubblewrap" in result.stdout + result.stderr
    assert not (course.root / "autograded" / "someone").exists()


def test_tracebacks_quoting_hidden_tests_are_not_kept(graded):
    """Regression: a failing hidden check's traceback, kept as text, showed its source."""
    course = graded[0]
    for cell in graded_cells(course.autograded(ASSIGNMENT, "hard_coded")).values():
        text = "".join(str(o.get("text", "")) + str(o.get("evalue", "")) for o in cell.outputs)
        assert "student.probe" not in text and "HIDDEN" not in text
