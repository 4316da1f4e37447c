"""Faults during a cohort run: the gradebook's database stopped and started again,
a database that stays away, a kernel that dies while starting, what a killed
worker leaves behind.

The database faults are real: a PostgreSQL server of the test's own (on
loopback, tests/support/servers.py) is stopped with `pg_ctl stop -m fast` in the middle
of a run, so the grading processes meet the errors psycopg really raises. The
grading processes are stand-ins (a few lines that write their student's row
through psycopg, as nbgrader's SaveAutoGrades does): no kernels, cheap.
"""
import os
import subprocess
import sys
import threading
import time

import pytest
from support.course import ordinary_user
from support.servers import CONTROL, postgresql, postgresql_bin

needs_postgres = pytest.mark.skipif(postgresql_bin() is None, reason="PostgreSQL is not installed")

# a grading process: makes its autograded folder, writes its row, commits at the end
WRITES_ITS_ROW = '''
import psycopg
url = os.environ["STAND_IN_DB"]
folder.mkdir(parents=True, exist_ok=True)
with psycopg.connect(url, connect_timeout=5) as db:
    db.execute("INSERT INTO graded (student, times) VALUES (%s, 1) ON CONFLICT (student) "
               "DO UPDATE SET times = graded.times + 1", (student,))
    time.sleep(0.7)  # the rest of grading, while the transaction is open
'''


def plain(url):
    from sqlalchemy.engine import make_url
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@pytest.fixture
def database():
    """A PostgreSQL server of this test's own, with a table `graded`."""
    import psycopg
    if postgresql_bin() is None:
        pytest.skip("PostgreSQL is not installed")
    with postgresql(ordinary_user() if os.geteuid() == 0 else None) as url:
        with psycopg.connect(plain(url), autocommit=True) as db:
            db.execute("CREATE TABLE graded (student text PRIMARY KEY, times int)")
        yield url


@pytest.fixture
def stand_in_cohort(tmp_path, monkeypatch, database):
    from support.cohort import stand_in

    import grader.cohort.grading as cohort_module
    monkeypatch.setattr(cohort_module, "command", stand_in(WRITES_ITS_ROW))
    monkeypatch.setattr(cohort_module, "plan", lambda root, workers, options: cohort_module.Plan(workers))
    monkeypatch.setenv("STAND_IN_DB", plain(database))
    students = [f"s{k}" for k in range(8)]
    for student in students:
        (tmp_path / "submitted" / student / "a1").mkdir(parents=True)
    return tmp_path, cohort_module, students, database


def rows(url):
    import psycopg
    with psycopg.connect(plain(url)) as db:
        return dict(db.execute("SELECT student, times FROM graded").fetchall())


def test_a_database_restarted_mid_run_loses_and_doubles_nothing(stand_in_cohort, capsys):
    root, cohort_module, students, url = stand_in_cohort

    def outage():
        time.sleep(1.5)
        CONTROL[url]["stop"]()
        time.sleep(6)
        CONTROL[url]["start"]()

    thread = threading.Thread(target=outage)
    thread.start()
    outcomes = cohort_module.grade(root, "a1", workers=2, progress=False, report=False)
    thread.join()
    retried = {o.student: o.attempts for o in outcomes if o.attempts > 1}
    print("graded again after a database fault:", retried)
    assert all(o.ok for o in outcomes), [(o.student, o.reason) for o in outcomes if not o.ok]
    assert retried, "the outage met no grading process: nothing was tested"
    # every row written exactly once (a failed transaction leaves nothing), and the
    # autograded folders are exactly the rows
    assert rows(url) == {student: 1 for student in students}
    assert sorted(p.parent.name for p in (root / "autograded").glob("*/a1")) == students
    # each retried submission's log says what failed it, and is kept
    for student in retried:
        assert (root / "logs" / "a1" / f"{student}.log").exists()


def test_an_unreachable_database_stops_the_run_cleanly(stand_in_cohort, monkeypatch, capsys):
    root, cohort_module, students, url = stand_in_cohort
    monkeypatch.setattr(cohort_module, "DB_PATIENCE", 3.0)
    monkeypatch.setattr(cohort_module, "DB_BACKOFF", 0.5)
    CONTROL[url]["stop"]()
    started = time.monotonic()
    outcomes = cohort_module.grade(root, "a1", workers=2, progress=False, report=True)
    took = time.monotonic() - started
    err = capsys.readouterr().err
    print(err, f"stopped after {took:.1f} s")
    assert not any(o.ok for o in outcomes) and len(outcomes) == len(students)
    assert "stopped: the gradebook's database could not be reached" in err
    assert f"not graded ({len(students)}): s0, s1" in err and "Traceback" not in err
    assert "no report was written" in err and not (root / "reports").exists()
    assert not list((root / "autograded").glob("*/a1"))  # nothing half-graded left
    assert "keep the grade of an earlier run" not in err  # none had one
    assert took < 60


@needs_postgres
def test_the_report_of_a_run_that_reached_no_database_via_the_command(tmp_path):
    """The documented command, with a gradebook URL where no server listens: a clean
    stop and a plain message, no traceback (nbgrader itself is run)."""
    from support.servers import free_port

    from authoring.build import ROOT
    for name in ("release", "source"):
        os.symlink(ROOT / name, tmp_path / name)
    (tmp_path / "nbgrader_config.py").write_text((ROOT / "nbgrader_config.py").read_text())
    (tmp_path / "submitted" / "ana" / "theory03-en").mkdir(parents=True)
    (tmp_path / "submitted" / "ana" / "theory03-en" / "theory03.ipynb").write_bytes(
        (ROOT / "release" / "theory03-en" / "theory03.ipynb").read_bytes())
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-m", "grader", "grade", "theory03-en", "--workers=1", "--no-progress",
         "--db-patience=4",
         f"--CourseDirectory.db_url=postgresql+psycopg://nobody:x@127.0.0.1:{free_port()}/gradebook"],
        cwd=tmp_path, capture_output=True, text=True, check=False, timeout=600, env=env,
        input="")
    print(done.stderr[-3000:])
    assert done.returncode == 1
    assert "stopped: the gradebook's database could not be reached" in done.stderr
    assert "Traceback" not in done.stderr


# ---- a kernel that dies while starting ----

def test_a_kernel_that_dies_while_starting_is_started_again(tmp_path):
    """Under load a kernel can die before it answers kernel_info: that says nothing of
    the submission, so another is started (bounded), and the cells run as usual."""
    from nbformat.v4 import new_code_cell, new_notebook
    from traitlets.config import Config

    from grader.plugins.execute import GradingExecute, KernelDidNotStart
    from grader.sandbox.kernel import SandboxedKernelManager

    class DiesAtFirst(SandboxedKernelManager):
        starts = 0
        deaths = 2

        async def _async_post_start_kernel(self, **kw):
            await super()._async_post_start_kernel(**kw)
            type(self).starts += 1
            if type(self).starts <= type(self).deaths:
                self.provisioner.process.kill()  # dies before its first answer

    config = Config()
    config.SandboxedKernelManager.sandbox = False  # a plain kernel: cheap, and killable here
    config.Execute.timeout = 60

    def run(attempts):
        nb = new_notebook(cells=[new_code_cell("print(6 * 7)")],
                          metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                   "language": "python"}})
        step = GradingExecute(config=config, kernel_manager_class=DiesAtFirst,
                              max_start_attempts=attempts)
        step.execute(nb, {"metadata": {"path": str(tmp_path)}}, str(tmp_path), 1)
        return nb

    nb = run(3)
    print("kernel starts:", DiesAtFirst.starts, "output:", nb.cells[0].outputs)
    assert DiesAtFirst.starts == 3 and nb.cells[0].outputs[0]["text"] == "42\n"
    DiesAtFirst.starts = 0
    with pytest.raises(KernelDidNotStart):  # bounded: 2 attempts, both killed
        run(2)
    assert DiesAtFirst.starts == 2


# ---- what a killed grading process or Dask worker leaves behind ----

MAKES_AND_DIES = """
import os, sys, tempfile
sys.path.insert(0, sys.argv[1])
from grader.sandbox.cgroups import KernelGroup
print(tempfile.mkdtemp(prefix=f"course-kernel-{os.getpid()}-", dir=sys.argv[2]))
print(tempfile.mkdtemp(prefix=f"course-remote-{os.getpid()}-", dir=sys.argv[2]))
print(tempfile.mkdtemp(prefix=f"course-caches-{os.getpid()}-", dir=sys.argv[2]))
print(tempfile.mkdtemp(prefix=f"course-zygote-{os.getpid()}-", dir=sys.argv[2]))
group, why = KernelGroup.create(1 << 30, 64)
for folder in (group.folders if group else []):
    print(folder)
os._exit(0)  # as SIGKILL would: nothing cleaned up
"""


def test_what_a_killed_worker_left_is_removed_by_the_next(tmp_path):
    from authoring.build import ROOT
    from grader.sandbox.kernel import remove_leftovers
    done = subprocess.run([sys.executable, "-c", MAKES_AND_DIES, str(ROOT), str(tmp_path)],
                          capture_output=True, text=True, check=True)
    left = [line for line in done.stdout.splitlines() if line]
    mine = tmp_path / f"course-kernel-{os.getpid()}-alive"  # a live grader's: kept
    mine.mkdir()
    print("left behind:", left)
    assert all(os.path.isdir(path) for path in left)
    removed = remove_leftovers("", tmp=tmp_path)
    print("removed:", removed)
    assert not any(os.path.exists(path) for path in left) and mine.exists()
    if len(left) == 4:
        print("(no cgroup could be made here: the folders only)")


def test_a_stopped_run_says_who_keeps_an_earlier_grade(tmp_path):
    """With --force, those never started when the database went away still hold the
    grade of an earlier run (autograded/ and the gradebook alike): the message says so."""
    from grader.cohort.grading import UNREACHABLE, Outcome, unreachable_message
    (tmp_path / "autograded" / "bea" / "a1").mkdir(parents=True)
    text = unreachable_message(tmp_path, "a1", [Outcome("ana", True), Outcome("bea", False, UNREACHABLE),
                                                Outcome("eva", False, UNREACHABLE)], 120)
    print(text)
    assert "graded in this run (1): ana\nnot graded (2): bea, eva\n" in text
    assert "1 of them keep the grade of an earlier run (never started in this one): bea" in text


def test_a_database_fault_is_read_from_a_flattened_traceback_record_only():
    """nbgrader's traceback reaches the log as one line (grader/plugins/inert.py flattens every
    record, so that no student text forges a row): the fault is still recognised there,
    and a student id that quotes an exception name is not taken for one."""
    from grader.cohort.grading import database_fault
    flat = ("[AutogradeApp | INFO] Creating/updating student with ID 'ana': {}\n"
            "[AutogradeApp | ERROR] Traceback (most recent call last):   File \"api.py\", line 1, "
            "in __init__     db_exists = ...  sqlalchemy.exc.OperationalError: (psycopg.OperationalError) "
            "connection failed: Connection refused\n"
            "[AutogradeApp | ERROR] There was an error accessing the nbgrader database.\n")
    assert database_fault(flat)
    assert database_fault(flat.replace("  sqlalchemy.exc", "\nsqlite3.OperationalError: locked\n"))
    spoof = ("[AutogradeApp | INFO] Creating/updating student with ID "
             "'x sqlalchemy.exc.OperationalError: y': {}\n"
             "[AutogradeApp | ERROR] Traceback (most recent call last):   ValueError: boom\n")
    assert not database_fault(spoof)
