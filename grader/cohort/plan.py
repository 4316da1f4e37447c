"""How kernels graded at the same moment are kept apart: a cgroup each, else (as root) a user id
per worker slot, none another run holds (grader/sandbox/uids.py), else one submission at a time."""
import os
from dataclasses import dataclass, field

from grader.config import load_config
from grader.sandbox.uids import in_use, slot_uids


@dataclass
class Plan:
    """How the cohort is run: how many at once, and each slot's extra options."""
    workers: int
    slot_options: list = field(default_factory=list)
    note: str = ""

    def options(self, slot):
        return self.slot_options[slot] if self.slot_options else []


def plan(root, workers, options):
    """Decide how kernels graded at the same moment are kept apart (see the module's docstring)."""
    from grader.sandbox.kernel import SandboxedKernelManager

    if workers <= 1:
        return Plan(1)
    manager = SandboxedKernelManager(config=load_config(root, options))
    if not manager.sandbox:
        return Plan(workers, note="unsandboxed: kernels have no limits to share")
    group, why = manager.trial_cgroup()
    if group is not None:
        return Plan(workers, note="each kernel in a cgroup of its own")
    if os.geteuid() == 0:
        uids = slot_uids(workers)  # see grader/sandbox/uids.py
        if any(in_use(uid) for uid in uids):
            raise SystemExit(f"user ids {uids[0]}..{uids[-1]} are in use on this machine; "
                             "grader.sandbox.uids.UID_BASE must name unused ones")
        return Plan(workers, [[f"--SandboxedKernelManager.uid={uid}"] for uid in uids],
                    note=f"no cgroup ({why}): each worker's kernels run as a user of their own")
    return Plan(1, note=f"no cgroup ({why}) and not root: concurrent kernels would share one "
                        "process limit (counted per user), so submissions are graded one at a "
                        "time. Delegate a cgroup to this user (docs/en/threat-model.md) to grade in parallel.")
