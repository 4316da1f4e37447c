"""Faults during a cohort run: the gradebook's database stopped and started again,
a database that stays away, a kernel that dies while starting, what a killed
worker leaves behind.

The database faults are real: a PostgreSQL server of the test's own (on
loopback, tests/servers.py) is stopped with `pg_ctl stop -m fast` in the middle
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
from conftest import ordinary_user
from servers import CONTROL, postgresql, postgresql_bin

pytestmark = pytest.mark.skipif(postgresql_bin() is None, reason="PostgreSQL is not installed")

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
    with postgresql(ordinary_user() if os.geteuid() == 0 else None) as url:
        with psycopg.connect(plain(url), autocommit=True) as db:
            db.execute("CREATE TABLE graded (student text PRIMARY KEY, times int)")
        yield url


@pytest.fixture
def stand_in_cohort(tmp_path, monkeypatch, database):
    import grader.cohort as cohort_module
    from test_cohort import stand_in
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
    assert took < 60


def test_the_report_of_a_run_that_reached_no_database_via_the_command(tmp_path):
    """The documented command, with a gradebook URL where no server listens: a clean
    stop and a plain message, no traceback (nbgrader itself is run)."""
    from authoring.build import ROOT
    from servers import free_port
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
