"""The sandbox's own promises, beyond what the hostile corpus shows."""
import os
from types import SimpleNamespace

import pytest
from conftest import Course, Grader, course_folder, graded_cells, verdict_text

from grader.execute import GradingExecute
from grader.sandbox import SandboxedKernelManager, SandboxRefused, sandbox_available

ASSIGNMENT = "theory03-en"


def test_kernel_environment_is_an_allowlist():
    manager = SandboxedKernelManager()
    manager.grading_seed = 7
    env = manager.kernel_environment({"COURSE_GRADING_SEED": "8", "JUPYTERHUB_API_TOKEN": "secret",
                                      "AWS_SECRET_ACCESS_KEY": "x", "PATH": "/home/me/bin"})
    assert env["COURSE_GRADING_SEED"] == "7"  # the grading's own seed, never one from outside
    assert "JUPYTERHUB_API_TOKEN" not in env and "AWS_SECRET_ACCESS_KEY" not in env
    assert env["PATH"] == "/usr/local/bin:/usr/bin:/bin" and env["HOME"] == "/tmp"


def test_grading_refuses_any_folder_but_the_submissions(tmp_path, monkeypatch):
    step = GradingExecute()
    coursedir = SimpleNamespace(root=str(tmp_path), autograded_directory="autograded")
    monkeypatch.setattr("grader.execute._coursedir", lambda _: coursedir)
    inside = tmp_path / "autograded" / "ana" / ASSIGNMENT
    inside.mkdir(parents=True)
    assert step.submission_folder({"metadata": {"path": str(inside)}}) == str(inside.resolve())
    for path in (str(tmp_path), "", None, str(tmp_path / "source"), "/"):
        with pytest.raises(SandboxRefused):
            step.submission_folder({"metadata": {"path": path}})


@pytest.mark.skipif(os.geteuid() != 0 or not sandbox_available(),
                    reason="grading as root needs root and bubblewrap")
def test_grading_as_root_drops_the_kernel_to_nobody():
    """The ordinary-user path is what every other grading test runs; this is root's."""
    as_root = Grader.__new__(Grader)
    as_root.user, as_root.cgroup_parent, as_root.delegated = None, "", []
    as_root.home = __import__("pathlib").Path(course_folder())
    course = Course(course_folder(), as_root, generated=(ASSIGNMENT,))
    nb = course.solved(ASSIGNMENT)
    nb.cells.insert(4, __import__("nbformat").v4.new_code_cell("import os\nprint('kernel uid', os.getuid())"))
    course.submit("ana", ASSIGNMENT, nb)
    result = course.autograde(ASSIGNMENT)
    assert result.returncode == 0, result.stderr[-2000:]
    assert course.score(ASSIGNMENT, "ana") == 12
    graded = course.autograded(ASSIGNMENT, "ana")
    assert "kernel uid 65534" in "".join(o.get("text", "") for o in graded.cells[4].outputs)
    assert "as nobody" in graded.metadata["course"]["grading"]["defences"]
    assert all(verdict_text(c).startswith("✔") for c in graded_cells(graded).values())
