"""The gradebook in PostgreSQL, through nbgrader's own `CourseDirectory.db_url`.

Three theory03-en submissions (honest, blank, one wrong answer) are graded
twice, in two course copies: serially by stock `nbgrader autograde` into the
SQLite gradebook nbgrader makes by default, and in parallel by
`python -m grader grade --workers 2` into a database on a real PostgreSQL
server (the `postgres` fixture, tests/servers.py). The gradebook rows must be
the same. The course's configuration names the database without its password,
which the grading processes get from PGPASSWORD, as the README advises.
"""
import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Course, course_folder, fill, graded_cells, verdict_text
from nbgrader.api import Gradebook, get_alembic_version
from sqlalchemy import create_engine, text
from sqlalchemy.engine import URL, make_url

from authoring.build import nbgrader
from grader.reports.report import shape_of
from grader.sandbox.kernel import sandbox_available

ASSIGNMENT = "theory03-en"
COURSE_ID = "autograd-by-hand"  # grader/plugins/wiring.py
WRONG = {"theory03-forward-answer":
         "def forward(a, b, c):\n    return a * b, a * b + c, a - c, (a * b + c) * (c - a)"}
EXPECTED = {"blank": 0, "honest": 12, "wrong": 10}


def submissions(course):
    return {"blank": course.release(ASSIGNMENT), "honest": course.solved(ASSIGNMENT),
            "wrong": fill(course.solved(ASSIGNMENT), WRONG)}


def make_course(grader, db_url=None, password=None):
    """A course copy with the submissions; its gradebook in `db_url` when given
    (the password, if any, in PGPASSWORD). Returns it and how to run its commands."""
    course = Course(course_folder(), grader)
    options = grader.options()
    if db_url is not None:
        with open(course.root / "nbgrader_config.py", "a") as config:
            config.write(f"c.CourseDirectory.db_url = {db_url!r}\n")
        options["env"]["PGPASSWORD"] = password
    done = nbgrader("generate_assignment", ASSIGNMENT, "--force", root=course.root, check=False,
                    capture_output=True, text=True, **options)
    assert done.returncode == 0, done.stderr[-3000:]
    for name, nb in submissions(course).items():
        course.submit(name, ASSIGNMENT, nb)
    return course, options


def gradebook_rows(db_url):
    """student -> what the gradebook holds of their submission: totals, and per cell its
    scores and whether it still needs a person."""
    found = {}
    with Gradebook(db_url, COURSE_ID) as gb:
        for student in sorted(s.id for s in gb.students):
            submission = gb.find_submission(ASSIGNMENT, student)
            found[student] = {
                "score": submission.score, "max_score": submission.max_score,
                "code_score": submission.code_score,
                "needs_manual_grade": submission.needs_manual_grade,
                "cells": {grade.name: (grade.auto_score, grade.manual_score, grade.extra_credit,
                                       grade.needs_manual_grade)
                          for notebook in submission.notebooks for grade in notebook.grades}}
    return found


def verdicts(course):
    """student -> grade id -> the grader's verdict, numbers blanked (each run draws its own)."""
    return {name: {gid: shape_of(verdict_text(c))
                   for gid, c in graded_cells(course.autograded(ASSIGNMENT, name)).items()}
            for name in EXPECTED}


@pytest.fixture(scope="module")
def graded(grader, postgres):
    if not sandbox_available():
        pytest.skip("bubblewrap is not installed: grading runs sandboxed")
    url = make_url(postgres)
    serial, _ = make_course(grader)
    without_password = URL.create(url.drivername, url.username, None, url.host, url.port,
                                  url.database)
    parallel, options = make_course(grader, without_password.render_as_string(hide_password=False),
                                    url.password)
    done = serial.nbgrader("autograde", ASSIGNMENT, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    run = subprocess.run([sys.executable, "-m", "grader", "grade", ASSIGNMENT, "--workers", "2",
                          "--no-progress", *parallel.grader.arguments()],
                         check=False, cwd=parallel.root, capture_output=True, text=True, **options)
    yield serial, parallel, run, options
    for course in (serial, parallel):
        subprocess.run(["rm", "-rf", str(course.root)], check=False)


def test_postgres_gradebook_holds_what_serial_sqlite_holds(graded, postgres):
    serial, parallel, run, _ = graded
    assert run.returncode == 0, run.stderr[-3000:]
    assert "2 at a time" in run.stderr
    # nothing went to a SQLite gradebook beside the course: the rows are in PostgreSQL
    assert not (parallel.root / "gradebook.db").exists()
    expected = gradebook_rows(f"sqlite:///{serial.root / 'gradebook.db'}")
    got = gradebook_rows(postgres)
    assert got == expected
    assert {name: rows["score"] for name, rows in got.items()} == EXPECTED
    assert verdicts(parallel) == verdicts(serial)
    # the cohort report read the same database (grader/reports/report.py follows db_url)
    with open(parallel.root / "reports" / f"{ASSIGNMENT}.csv", newline="") as stream:
        report = {row["student"]: float(row["score"]) for row in csv.DictReader(stream)}
    assert report == EXPECTED


def test_the_tables_are_nbgraders_at_its_newest_schema(graded, postgres, monkeypatch):
    """Gradebook() made the tables and stamped alembic's head itself, so
    `nbgrader db upgrade` (alembic) finds nothing to do and leaves it there."""
    _, parallel, _, options = graded
    # nbgrader runs `alembic` from PATH: find it beside this interpreter
    path = os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]
    monkeypatch.setenv("PATH", path)
    done = subprocess.run([sys.executable, "-m", "nbgrader", "db", "upgrade"], check=False,
                          cwd=parallel.root, capture_output=True, text=True,
                          **{**options, "env": {**options["env"], "PATH": path}})
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Upgrading postgresql+psycopg://postgres@127.0.0.1" in done.stderr
    # the password is in PGPASSWORD, not in the URL nbgrader logs
    assert make_url(postgres).password not in done.stderr + done.stdout
    engine = create_engine(postgres)
    try:
        with engine.connect() as connection:
            version = connection.execute(text("SELECT version_num FROM alembic_version")).scalar_one()
            tables = set(connection.execute(text(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")).scalars())
    finally:
        engine.dispose()
    assert version == get_alembic_version()
    assert {"student", "assignment", "submitted_assignment", "grade", "course"} <= tables


def listening_addresses(port):
    """The local addresses of sockets listening on TCP `port` (from /proc/net/tcp{,6})."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not Path(table).exists():
            continue
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                found.add(address)
    return found


def test_the_server_listens_on_loopback_only(postgres):
    url = make_url(postgres)
    assert url.host == "127.0.0.1"
    # 0100007F is 127.0.0.1 as the kernel writes it; nothing on 0.0.0.0, :: or another address
    assert listening_addresses(url.port) == {"0100007F"}
    engine = create_engine(postgres)
    try:
        with engine.connect() as connection:
            assert connection.execute(text("SHOW listen_addresses")).scalar_one() == "127.0.0.1"
            sockets = connection.execute(text("SHOW unix_socket_directories")).scalar_one()
    finally:
        engine.dispose()
    assert Path(sockets).name.startswith("course-postgres-")  # its own temporary folder


def test_the_report_opens_the_gradebook_the_configuration_names(tmp_path, postgres):
    from authoring.build import ROOT
    from grader.reports.report import gradebook
    (tmp_path / "nbgrader_config.py").write_text((ROOT / "nbgrader_config.py").read_text())
    with gradebook(tmp_path) as gb:  # nbgrader's default
        assert str(gb.engine.url) == f"sqlite:///{tmp_path / 'gradebook.db'}"
    with gradebook(tmp_path, [f"--CourseDirectory.db_url={postgres}", "--force"]) as gb:
        assert gb.engine.url == make_url(postgres) and gb.course_id == COURSE_ID
    with open(tmp_path / "nbgrader_config.py", "a") as config:
        config.write(f"c.CourseDirectory.db_url = {postgres!r}\n")
    with gradebook(tmp_path) as gb:
        assert gb.engine.url == make_url(postgres)
