"""The sandbox's own promises, beyond what the hostile corpus shows."""
import os
from types import SimpleNamespace

import pytest
from conftest import Course, Grader, course_folder, graded_cells, verdict_text

from grader.plugins.execute import GradingExecute
from grader.sandbox.kernel import (
    SandboxedKernelManager,
    SandboxRefused,
    sandbox_available,
)

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
    monkeypatch.setattr("grader.plugins.execute._coursedir", lambda _: coursedir)
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


@pytest.mark.skipif(not sandbox_available(), reason="needs bubblewrap")
def test_without_a_cgroup_memfd_and_shared_memory_are_refused(grader):
    """Without a cgroup nothing counts a memfd's pages (3 GiB were held that way as an
    ordinary user): the sandbox's seccomp filter refuses the call, and the submission
    still gets its score. Stock autograde, by the tests' grading user."""
    import shutil

    from corpus.cases import CASES
    from hostile import printed

    from grader.sandbox import seccomp
    if not seccomp.covers():
        pytest.skip("the seccomp filter does not know this architecture")
    course = Course(course_folder(), grader, generated=(ASSIGNMENT,))
    try:
        course.submit("memfd_hold", ASSIGNMENT, CASES["memfd_hold"][0](course, {}))
        result = course.nbgrader("autograde", ASSIGNMENT, "--SandboxedKernelManager.use_cgroup=False",
                                 check=False)
        assert result.returncode == 0, result.stderr[-2000:]
        text = printed(course, ASSIGNMENT, "memfd_hold")
        defences = course.autograded(ASSIGNMENT, "memfd_hold").metadata["course"]["grading"]["defences"]
        print("defences:", defences, "| the case printed:", text.strip()[-200:])
        assert "memfd held" not in text and "Operation not permitted" in text, text[-1000:]
        assert "memfd and System V shared memory refused" in defences
        assert course.score(ASSIGNMENT, "memfd_hold") == 12
    finally:
        shutil.rmtree(course.root, ignore_errors=True)
