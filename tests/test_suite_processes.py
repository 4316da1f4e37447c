"""How the suite's processes behave. A test run stopped with SIGTERM (a CI time limit, `kill PID`)
still runs its fixtures' clean-up, as Ctrl-C does: a killed run must not leave system users or servers
behind for the next one. The classroom's test runs the class from a copy of the checkout
(tests/support/checkout.py), so it runs beside the others."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).parent

WAITING_TEST = '''
import pathlib, time, pytest

@pytest.fixture(scope="session")
def made():
    pathlib.Path("made").write_text("made")
    yield
    pathlib.Path("removed").write_text("removed")

def test_waits(made):
    time.sleep(60)
'''


@pytest.mark.parametrize("processes", ["0", "2"])  # in this process, or in pytest-xdist's workers
def test_sigterm_runs_the_session_fixtures_clean_up(tmp_path, processes):
    (tmp_path / "test_waiting.py").write_text(WAITING_TEST)
    run = subprocess.Popen([sys.executable, "-m", "pytest", "-p", "conftest", "-q", "-p", "no:cacheprovider",
                            "-n", processes, "test_waiting.py"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, env={**os.environ, "PYTHONPATH": str(HERE)})
    deadline = time.monotonic() + 60
    while not (tmp_path / "made").exists():
        assert run.poll() is None and time.monotonic() < deadline, run.communicate()[0]
        time.sleep(0.1)
    run.send_signal(signal.SIGTERM)
    output = run.communicate(timeout=60)[0]
    print(output)
    assert (tmp_path / "removed").exists(), "the fixture's clean-up did not run"
    assert run.returncode != 0  # an interrupted run does not pass


def test_the_classroom_runs_from_a_copy_of_the_checkout():
    """The class hides the checkout it runs from; its test runs it from a copy (with the copy's own
    Python environment), so the rest of the suite keeps running from this one beside it."""
    from support.checkout import checkout_copy

    from authoring.build import ROOT
    script = "import sys, classroom.course, grader; print(classroom.course.ROOT, grader.__file__, sys.prefix)"
    original = (Path(sys.prefix) / "bin" / "nbgrader").read_bytes()
    with checkout_copy() as copy:
        said = subprocess.run([copy.python, "-c", script], cwd="/", capture_output=True, text=True, check=True)
        shebang = (copy.python.parent / "nbgrader").read_text().splitlines()[0]
        place = copy.root.parent
    print(said.stdout, shebang)
    root, grader, prefix = said.stdout.split()
    assert Path(root) == copy.root and Path(grader) == copy.root / "grader" / "__init__.py"
    assert Path(prefix) == copy.python.parent.parent and prefix.startswith(str(copy.root) + "/")
    assert shebang.startswith(f"#!{copy.python.parent}/")  # the copy's scripts run the copy's Python
    assert (Path(sys.prefix) / "bin" / "nbgrader").read_bytes() == original  # hard links left as they were
    assert not place.exists() and ROOT.exists()


MAKES_A_USER = """
import sys
from types import SimpleNamespace
from support.processes import done, remove_at_the_end, share
share(SimpleNamespace(workerinput={"testrunuid": sys.argv[1]}))
remove_at_the_end(sys.argv[2])
done()
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="makes a system user: run as root")
def test_a_system_user_the_run_made_is_removed_by_its_last_process():
    import pwd
    login = f"zqusr{os.getpid()}"
    subprocess.run(["useradd", "--system", "--no-create-home", login], check=True)
    try:
        run = f"users-{os.getpid()}"
        done = subprocess.run([sys.executable, "-c", MAKES_A_USER, run, login], capture_output=True, text=True, check=False,
                              env={**os.environ, "PYTHONPATH": str(HERE)}, timeout=60)
        assert done.returncode == 0, done.stderr
        with pytest.raises(KeyError):
            pwd.getpwnam(login)
        print(login, "was removed by the run's last process")
    finally:
        subprocess.run(["userdel", login], capture_output=True, check=False)
