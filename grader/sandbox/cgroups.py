"""One control group per graded kernel: a memory limit that counts everything the
kernel holds (heap, tmpfs, memfd, page cache) and a process limit of its own, so
concurrent kernels cannot starve each other.

cgroup v1 (separate `memory` and `pids` hierarchies, as on this machine) and
cgroup v2 (one unified hierarchy) are both handled. A group can be made as
root, or by an ordinary user in a part of the tree delegated to them (as
`systemd-run --user --scope -p Delegate=yes` does on cgroup v2). Where neither
works, `KernelGroup.create` returns None and says why; the sandbox then falls
back to rlimits.
"""
import errno
import os
import re
import signal
import time
import uuid
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
GRADER_LEAF = "course-grader"  # cgroup v2: where the grader's own processes move (see delegate_v2)
PREFIX = "course-kernel-"  # a kernel group's name: PREFIX, the pid of the process that made it, a tag


def group_name():
    return f"{PREFIX}{os.getpid()}-{uuid.uuid4().hex[:12]}"


def maker_is_gone(name):
    """Whether the process that made a group or folder called `name` (see group_name)
    has ended: a Dask worker killed outright leaves its kernels' groups and folders
    behind, and no one else removes them."""
    found = re.match(r"course-[a-z]+-(\d+)-", name)
    if not found:
        return False  # not named by this code (an older run's): left alone
    pid = int(found.group(1))
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def own_path(controller, proc_cgroup="/proc/self/cgroup"):
    """This process's cgroup in `controller`'s hierarchy ("" for v2)."""
    for line in Path(proc_cgroup).read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            return path
    raise LookupError(controller)


def version(root=ROOT):
    if (root / "memory" / "cgroup.procs").exists() and (root / "pids" / "cgroup.procs").exists():
        return 1
    if (root / "cgroup.controllers").exists():
        return 2
    return None


def v2_base(parent="", root=ROOT, leaf=GRADER_LEAF):
    """cgroup v2: the folder this process makes its groups in: its own cgroup (or the
    one above it, once it has moved into `leaf`: groups go beside the leaf, never
    inside it), then `parent`."""
    own = Path(own_path("").strip("/"))
    if own.name == leaf:
        own = own.parent
    return root / own / parent


def delegate_v2(base, controllers, leaf=GRADER_LEAF):
    """Enable `controllers` for the groups made in `base`. cgroup v2 lets a group hand
    controllers to its children only when no process lives in it: the processes in
    `base` (this one) move into `leaf` first. OSError where the machine does not
    delegate the controllers to `base`."""
    missing = set(controllers) - set((base / "cgroup.controllers").read_text().split())
    if missing:
        raise OSError(errno.ENOENT, f"{' '.join(sorted(missing))} not delegated to {base}")
    if set(controllers) <= set((base / "cgroup.subtree_control").read_text().split()):
        return
    pids = (base / "cgroup.procs").read_text().split()
    if pids:
        (base / leaf).mkdir(exist_ok=True)
        for pid in pids:
            (base / leaf / "cgroup.procs").write_text(pid)
    (base / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in controllers))


def limit_v1(memory, pids, memory_bytes, max_processes):
    """v1 groups' memory (memory and swap together, where swap is counted) and process limits."""
    (memory / "memory.limit_in_bytes").write_text(str(memory_bytes))
    if (memory / "memory.memsw.limit_in_bytes").exists():
        (memory / "memory.memsw.limit_in_bytes").write_text(str(memory_bytes))
    (pids / "pids.max").write_text(str(max_processes))


def limit_v2(folder, memory_bytes, max_processes):
    """A v2 group's memory (no swap, where swap is counted) and process limits."""
    (folder / "memory.max").write_text(str(memory_bytes))
    if (folder / "memory.swap.max").exists():
        (folder / "memory.swap.max").write_text("0")
    (folder / "pids.max").write_text(str(max_processes))


class KernelGroup:
    """The cgroup(s) of one kernel: where its first process writes its pid."""

    def __init__(self, folders, version):
        self.folders = folders
        self.version = version

    @property
    def procs_files(self):
        return [folder / "cgroup.procs" for folder in self.folders]

    @classmethod
    def create(cls, memory_bytes, max_processes, parent="", root=ROOT):
        """(group, None) or (None, why not)."""
        found = version(root)
        try:
            if found == 1:
                return cls._create_v1(memory_bytes, max_processes, parent, root), None
            if found == 2:
                return cls._create_v2(memory_bytes, max_processes, parent, root), None
            return None, "no cgroup hierarchy with memory and pids controllers"
        except OSError as error:
            return None, f"cannot make a cgroup here ({error.strerror or error})"

    @classmethod
    def _create_v1(cls, memory_bytes, max_processes, parent, root):
        name = group_name()
        folders = []
        try:
            for controller in ("memory", "pids"):
                base = root / controller / own_path(controller).strip("/") / parent
                folder = base / name
                folder.mkdir()
                folders.append(folder)
            limit_v1(*folders, memory_bytes, max_processes)
        except OSError:
            KernelGroup(folders, 1).remove()
            raise
        return cls(folders, 1)

    @classmethod
    def _create_v2(cls, memory_bytes, max_processes, parent, root):
        base = v2_base(parent, root)
        delegate_v2(base, ("memory", "pids"))
        folder = base / group_name()
        folder.mkdir()
        try:
            limit_v2(folder, memory_bytes, max_processes)
        except OSError:
            KernelGroup([folder], 2).remove()
            raise
        return cls([folder], 2)

    @classmethod
    def bases(cls, parent="", root=ROOT):
        """[(version, folder)] where this process's kernel groups are made."""
        found = version(root)
        try:
            if found == 1:
                return [(1, root / c / own_path(c).strip("/") / parent) for c in ("memory", "pids")]
            if found == 2:
                return [(2, v2_base(parent, root))]
        except (OSError, LookupError):
            pass
        return []

    @classmethod
    def remove_leftovers(cls, parent="", root=ROOT):
        """Remove the kernel groups whose maker has ended (killing what still runs in
        them); returns how many were removed."""
        removed = 0
        for found, base in cls.bases(parent, root):
            for folder in sorted(base.glob(PREFIX + "*")) if base.is_dir() else []:
                if folder.is_dir() and maker_is_gone(folder.name):
                    cls([folder], found).remove()
                    removed += not folder.exists()
        return removed

    def out_of_memory(self):
        """Whether the kernel was killed for going over the memory limit."""
        try:
            if self.version == 1:
                text = (self.folders[0] / "memory.oom_control").read_text()
                counts = dict(line.split() for line in text.splitlines())
                if "oom_kill" in counts:
                    return int(counts["oom_kill"]) > 0
                return int((self.folders[0] / "memory.failcnt").read_text()) > 0
            events = dict(line.split() for line in (self.folders[0] / "memory.events").read_text().splitlines())
            return int(events.get("oom_kill", 0)) > 0
        except (OSError, ValueError):
            return False

    def remove(self):
        """Kill whatever still runs in the group, then delete it."""
        for folder in self.folders:
            for _ in range(50):
                try:
                    pids = (folder / "cgroup.procs").read_text().split()
                except OSError:
                    break
                for pid in pids:
                    try:
                        os.kill(int(pid), signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass
                try:
                    folder.rmdir()
                    break
                except OSError:
                    time.sleep(0.1)
