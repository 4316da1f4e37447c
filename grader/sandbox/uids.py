"""The user ids kernels run as where no cgroup keeps them apart (as root): the process limit is
then counted per user, so kernels graded at the same moment each run as an id of their own, one
no account and no other grading has:

- a run of `python -m grader grade` takes a block of SLOT_IDS_PER_RUN ids, one per worker slot:
  the first block whose lock file (in LOCKS, root's own folder) it can hold, so two runs at the
  same moment (two courses, two instructors) never share one; the lock goes with the process;
- a Dask worker process (grader/plugins/worker.py) takes WORKER_UID_BASE plus its pid.

Otherwise (a cgroup each), a kernel graded as root runs as NOBODY."""
import fcntl
import pwd
from pathlib import Path

NOBODY = 65534  # the user `nobody`: a kernel's user as root, where a cgroup keeps kernels apart
UID_BASE = 1_900_000_000
SLOT_IDS_PER_RUN = 64  # the most worker slots one run gets ids for
RUN_BLOCKS = 1024  # grading runs as root at the same moment on one machine
WORKER_UID_BASE = UID_BASE + SLOT_IDS_PER_RUN * RUN_BLOCKS
LOCKS = Path("/run/course-grader")

_held = []  # this process's block locks: released when it ends, however it ends


def in_use(uid):
    """Does an account of this machine have `uid`?"""
    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        return False


def slot_uids(slots, locks=None):
    """`slots` user ids that no other grading run on this machine holds while this process lives."""
    locks = locks or LOCKS
    if slots > SLOT_IDS_PER_RUN:
        raise SystemExit(f"as root without cgroups a run grades at most {SLOT_IDS_PER_RUN} at a time")
    locks.mkdir(mode=0o700, parents=True, exist_ok=True)
    for block in range(RUN_BLOCKS):
        lock = open(locks / f"uids-{block}.lock", "a")  # noqa: SIM115 - held until the process ends
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            continue
        _held.append(lock)
        first = UID_BASE + block * SLOT_IDS_PER_RUN
        return list(range(first, first + slots))
    raise SystemExit(f"{RUN_BLOCKS} grading runs hold every block of user ids ({locks})")
