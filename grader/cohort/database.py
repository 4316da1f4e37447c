"""The gradebook's database while a cohort is graded: a busy timeout for SQLite, the faults a
grading process's log shows, and the back-off and patience that follow them."""
import os
import re
import time

from grader.config import load_config

DB_TIMEOUT = 600  # seconds a process waits for the gradebook's lock


# a submission whose process met a database fault (SQLite locked, PostgreSQL down or
# restarting) is graded again after a pause that doubles: 2, 4, 8, ... seconds
DB_BACKOFF = 2.0


DB_BACKOFF_MAX = 30.0


# database faults with no success in between for this long: the database is taken
# to be unreachable, and the run stops cleanly (the running processes finish)
DB_PATIENCE = 120.0


# what a grading process's log says when the gradebook's database failed it: the
# exception line a traceback ends with (Python's own, or nbgrader's). nbgrader logs a
# traceback as one ERROR record,
# which the terminal filter (grader/plugins/inert.py) flattens to one line; only such records
# are read, and only a name that follows white space and precedes a colon, so that no
# text a log line merely quotes, a student id for one, is taken for a database fault
TRACEBACK_RECORD = re.compile(r"^(?:\[\w+ \| ERROR\] )?Traceback \(most recent call last\):.*?(?=^\[\w+ \||\Z)",
                              re.MULTILINE | re.DOTALL)


DATABASE_FAULT = re.compile(
    r"(?<=\s)(sqlite3|psycopg2?(\.errors)?|sqlalchemy\.exc)\.(OperationalError|InterfaceError|"
    # PostgreSQL's "connection exception" and "operator intervention" errors (psycopg.errors)
    r"AdminShutdown|CrashShutdown|CannotConnectNow|ConnectionException|ConnectionFailure|"
    r"ConnectionDoesNotExist|SqlclientUnableToEstablishSqlconnection)(?=:)")


def database_fault(log_text):
    """Whether a grading process's log ends a traceback with a database fault."""
    return any(DATABASE_FAULT.search(record) for record in TRACEBACK_RECORD.findall(log_text))


UNREACHABLE = "the gradebook's database could not be reached"


class DatabaseWatch:
    """Database faults seen by the grading processes: after one, no process starts
    for a pause that doubles with each fault (`backoff` .. DB_BACKOFF_MAX seconds);
    a success resets it; faults with no success for `patience` seconds mean the
    database is unreachable: nothing more is started."""

    def __init__(self, patience, backoff=DB_BACKOFF, clock=time.monotonic):
        self.patience, self.backoff, self.clock = patience, backoff, clock
        self.faults = 0
        self.first_fault = None
        self.paused_until = 0.0
        self.unreachable = False

    def failed(self):
        now = self.clock()
        self.faults += 1
        self.first_fault = self.first_fault if self.first_fault is not None else now
        self.paused_until = now + min(self.backoff * 2 ** (self.faults - 1), DB_BACKOFF_MAX)
        self.unreachable = now - self.first_fault >= self.patience

    def succeeded(self):
        self.faults, self.first_fault, self.paused_until = 0, None, 0.0

    def may_launch(self):
        return not self.unreachable and self.clock() >= self.paused_until


def database_options(root, options):
    """A busy timeout for the SQLite gradebook nbgrader would use anyway."""
    config = load_config(root, options)
    if "db_url" in config.get("CourseDirectory", {}):
        return []  # the instructor's own database: theirs to configure
    path = os.path.abspath(os.path.join(root, "gradebook.db"))
    return [f"--CourseDirectory.db_url=sqlite:///{path}?timeout={DB_TIMEOUT}"]
