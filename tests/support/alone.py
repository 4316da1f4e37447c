"""The classroom's test runs alone. A class hides the checkout it runs from (mode 0750, its staff
group), and every other test runs something as an ordinary user from the checkout (the grading user,
a student, a sandboxed kernel, all with the checkout's Python). So, when pytest-xdist runs the suite
in several processes, each holds a shared lock on one file from its start to its end; the classroom's
fixture gives its own up and waits for the exclusive lock, which it gets once every other process has
finished (tests/conftest.py hands the classroom's module out last)."""
import fcntl
import tempfile
from pathlib import Path

_held = None  # this process's open lock file, under pytest-xdist


def share(config):
    """At a pytest-xdist worker's start: the shared lock (nothing without pytest-xdist)."""
    global _held
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        _held = open(Path(tempfile.gettempdir()) / f"course-tests-{workerinput['testrunuid']}.lock", "a")
        fcntl.flock(_held, fcntl.LOCK_SH)


def alone():
    """Wait until no other process of this run is working (at once without pytest-xdist)."""
    if _held is not None:
        fcntl.flock(_held, fcntl.LOCK_EX)  # drops this process's shared lock first


def done():
    """At a worker's end: the last one out removes the lock file."""
    global _held
    if _held is None:
        return
    try:
        fcntl.flock(_held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        Path(_held.name).unlink(missing_ok=True)
    except BlockingIOError:
        pass
    _held.close()
    _held = None
