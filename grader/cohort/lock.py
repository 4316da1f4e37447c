"""One run per assignment at a time: two runs would grade, and write, the same submissions."""
import fcntl
import os
from pathlib import Path


def lock(root, assignment):
    """Take the assignment's grading lock, or exit saying who holds it. The lock is held
    while the returned file is open (by this process or the grading processes it forks),
    so it goes with them however they end."""
    path = Path(root) / f".grader-grade-{assignment}.lock"
    held = open(path, "a+")  # noqa: SIM115
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        held.seek(0)
        raise SystemExit(f"another `python -m grader grade {assignment}` is grading this course "
                         f"(process {held.read().strip() or '?'}): wait for it to finish") from None
    held.truncate(0)
    held.write(str(os.getpid()))
    held.flush()
    return held
