"""The user ids kernels run as where no cgroup keeps them apart (as root): the process limit is
then counted per user, so kernels graded at the same moment each run as an id of their own,
one nobody else uses: UID_BASE plus a worker slot's number (`python -m grader grade`) or a
Dask worker process's pid (grader/cohort/cluster.py)."""
import pwd

UID_BASE = 1_900_000_000


def in_use(uid):
    """Does an account of this machine have `uid`?"""
    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        return False
