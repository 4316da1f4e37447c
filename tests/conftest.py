"""The suite's shared fixtures (one per session where it can be: a graded cohort or a
server started once is read by every test that needs it). What they are made of
lives in tests/support/; this file only wires it to pytest.
"""
import os
import shutil
import signal

import pytest
from support.course import (
    UNITS,
    Course,
    Grader,
    course_folder,
    ordinary_user,
)
from support.processes import done, once, share

# `pytest -m "not slow"`, the fast subset the README names, leaves out what grades (the
# `grader` fixture), starts a server, a browser or JupyterLab, builds the course or its
# site, runs every documented command line (test_commands), or re-executes notebooks: the modules
# below, any test using one of these fixtures, and any test marked `@pytest.mark.slow` itself.
SLOW_MODULES = {"test_browser.py", "test_classroom.py", "test_cohort.py", "test_commands.py",
                "test_faults.py", "test_first_hour.py", "test_gradebook_postgres.py", "test_grading.py",
                "test_hostile.py", "test_hostile_install.py", "test_hostile_lab01.py",
                "test_hostile_lab03.py", "test_instructor_commands.py", "test_intake.py",
                "test_report.py", "test_sandbox.py", "test_site.py", "test_student_setup.py",
                "test_suite_processes.py"}
SLOW_FIXTURES = {"grader", "postgres", "course", "serial_theory03"}


def pytest_configure(config):
    """A run stopped with SIGTERM (a CI time limit, `kill`) unwinds like Ctrl-C, so the fixtures'
    clean-up still runs: system users, servers and course copies are removed."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, interrupt)
    share(config)


def pytest_unconfigure(config):
    done()
    from course.strict import remove_orphans
    for name in ("cache", "path"):  # lab 03's mypy folders of kernels killed at once (nbval's)
        remove_orphans(name)


# The suite runs in three processes (pytest-xdist, `-n 3 --dist loadfile` in pyproject.toml): much
# of it waits on servers, kernels, browsers and deliberate time limits, so two processes left the two
# cores idle 15 % of the time (about 2 % with three: /proc/stat, one run of each). A module's tests
# stay in one process, with its fixtures. The longest modules are handed out first, so that no process
# is left alone with a long one at the end; the classroom's test runs from a copy of the checkout
# (support/checkout.py), so it runs beside the others.
LONGEST_FIRST = ["test_classroom.py", "test_hostile.py", "test_cohort.py", "test_browser.py", "test_grading.py",
                 "test_hostile_lab03.py", "test_hostile_lab01.py", "test_faults.py",
                 "test_formgrader_browser.py", "test_student_setup.py", "test_same_verdicts.py",
                 "test_exchange_isolation.py", "test_hostile_install.py", "test_gradebook_postgres.py"]


def place_of(item):
    """Where the item's module goes in the queue (see above): the longest first, then the rest
    in the order pytest collected them."""
    name = item.path.name
    return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)


def pytest_collection_modifyitems(items):
    for item in items:
        if item.path.suffix == ".ipynb" or item.path.name in SLOW_MODULES \
                or SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
    items.sort(key=place_of)  # a stable sort: each module's tests stay together, in their order


@pytest.fixture(scope="session")
def grader():
    who = Grader()
    yield who
    who.close()


@pytest.fixture(scope="session")
def postgres():
    """The SQLAlchemy URL of an empty database on a real PostgreSQL server of its own
    (tests/support/servers.py), run as the grading user when the tests run as root."""
    from support.servers import postgresql, postgresql_bin
    if postgresql_bin() is None:
        pytest.skip("PostgreSQL is not installed (Debian's `postgresql` package; .ci/run installs it)")
    with postgresql(ordinary_user() if os.geteuid() == 0 else None) as url:
        yield url


@pytest.fixture(scope="session")
def serial_theory03(grader):
    """theory03's small cohort graded serially by stock nbgrader, once for the run
    (tests/support/cohort.py): the course copy (removed at the end by support/processes.py)."""
    from support.cohort import serial_theory03

    from grader.sandbox.kernel import sandbox_available
    if not sandbox_available():
        pytest.skip("bubblewrap is not installed: grading runs sandboxed")
    return Course.at(once("serial-theory03", lambda: serial_theory03(grader).root), grader)


@pytest.fixture(scope="module")
def course(grader):
    copy = Course(course_folder(), grader, generated=[a for pair in UNITS.values() for a in pair])
    yield copy
    shutil.rmtree(copy.root, ignore_errors=True)


@pytest.fixture(autouse=True)
def messages_language():
    """Every test starts with the course's messages in the language they had before it: a test
    that sets Spanish and does not set it back fails here, by name, instead of making a later
    test in the same process read Spanish where it expects English."""
    from course import student
    before = student.current_language()
    yield
    after = student.current_language()
    student.language(before)
    assert after == before, f"this test left the messages' language changed: {before} -> {after}"
