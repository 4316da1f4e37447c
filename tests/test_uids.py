"""As root without cgroups, each grading run's kernels run as user ids of their own: two runs at
the same moment (two courses on one machine, or two test processes) never share one, else a fork
bomb in one run would use up the process limit of the other's kernels."""
import subprocess
import sys

from grader.sandbox.uids import SLOT_IDS_PER_RUN, UID_BASE, WORKER_UID_BASE, slot_uids

HOLD = """
import sys, time
from pathlib import Path
from grader.sandbox.uids import slot_uids
print(*slot_uids(int(sys.argv[2]), Path(sys.argv[1])), flush=True)
time.sleep(60)
"""


def test_two_runs_at_once_get_ids_apart_and_an_ended_run_frees_its_own(tmp_path):
    locks = tmp_path / "locks"
    first = subprocess.Popen([sys.executable, "-c", HOLD, str(locks), "3"], stdout=subprocess.PIPE, text=True)
    try:
        held = [int(uid) for uid in first.stdout.readline().split()]
        assert held == [UID_BASE, UID_BASE + 1, UID_BASE + 2]
        other = slot_uids(2, locks)  # while the first run lives
        print("first run:", held, "second run:", other)
        assert other == [UID_BASE + SLOT_IDS_PER_RUN, UID_BASE + SLOT_IDS_PER_RUN + 1]
    finally:
        first.kill()
        first.wait()
    again = subprocess.run([sys.executable, "-c", HOLD.replace("time.sleep(60)", ""), str(locks), "1"],
                           capture_output=True, text=True, check=True)
    assert again.stdout.split() == [str(UID_BASE)]  # the ended run's block is free again
    assert WORKER_UID_BASE > UID_BASE + SLOT_IDS_PER_RUN * 2  # Dask workers' ids lie beyond the blocks
