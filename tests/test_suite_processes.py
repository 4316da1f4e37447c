"""How the suite's processes behave. A test run stopped with SIGTERM (a CI time limit, `kill PID`)
still runs its fixtures' clean-up, as Ctrl-C does: a killed run must not leave system users or servers
behind for the next one. Under pytest-xdist, the classroom's test waits until every other process of
the run has finished (tests/support/processes.py)."""
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


PROCESS = """
import pathlib, sys, time
from types import SimpleNamespace
from support.processes import alone, done, share, working_as_others
share(SimpleNamespace(workerinput={"testrunuid": sys.argv[1]}))
finished = pathlib.Path(sys.argv[3])
if sys.argv[2] in ("works", "works beside"):
    working_as_others(sys.argv[2] == "works")
    print("working", flush=True)
    time.sleep(3)
    finished.write_text("finished")
else:
    alone()
    print("alone; the other process had", "finished" if finished.exists() else "NOT finished", flush=True)
done()
"""


def process(run, role, finished):
    return subprocess.Popen([sys.executable, "-c", PROCESS, run, role, str(finished)], stdout=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONPATH": str(HERE)})


def test_the_classroom_waits_until_every_other_process_has_finished(tmp_path):
    run = f"alone-{os.getpid()}"
    working = process(run, "works", tmp_path / "finished")
    assert working.stdout.readline().strip() == "working"
    waiting = process(run, "waits", tmp_path / "finished")
    said = waiting.communicate(timeout=60)[0]
    working.wait(timeout=60)
    print(said)
    assert "the other process had finished" in said
    # alone, it does not wait
    assert "NOT finished" in process(f"{run}-b", "waits", tmp_path / "never").communicate(timeout=60)[0]


def test_a_module_that_runs_nothing_as_another_user_runs_beside_the_classroom(tmp_path):
    run = f"beside-{os.getpid()}"
    working = process(run, "works beside", tmp_path / "finished")
    assert working.stdout.readline().strip() == "working"
    said = process(run, "waits", tmp_path / "finished").communicate(timeout=60)[0]
    working.wait(timeout=60)
    print(said)
    assert "the other process had NOT finished" in said


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
        done = subprocess.run([sys.executable, "-c", MAKES_A_USER, run, login], capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(HERE)}, timeout=60)
        assert done.returncode == 0, done.stderr
        with pytest.raises(KeyError):
            pwd.getpwnam(login)
        print(login, "was removed by the run's last process")
    finally:
        subprocess.run(["userdel", login], capture_output=True, check=False)
