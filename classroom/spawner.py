"""Each person's Jupyter server, as their own system user, with TLJH's limits.

A student's server runs from the students' environment (classroom/student_env.py) inside
bubblewrap: a private /tmp and a PID namespace of its own (`ps` shows only their processes).
Its memory, processes and CPU are limited by a control group of its own, made as root
before the server starts and removed when it stops; its files stay root's, so the student
can neither leave it nor change it:
- cgroup v1: memory.limit_in_bytes (and memory.memsw.limit_in_bytes), pids.max,
  cpu.cfs_quota_us over cpu.cfs_period_us;
- cgroup v2 (every current Debian or Ubuntu with systemd), where the machine delegates the
  memory, pids and cpu controllers to the hub's cgroup (the unit classroom/service.py writes
  asks for them): a group beside the hub's own leaf with memory.max, memory.swap.max 0,
  pids.max and cpu.max;
- elsewhere (why in the hub's log): rlimits set as root (memory as address space, processes),
  and a student cannot raise a hard limit.
jupyterhub-systemdspawner is not used: it runs each server as a systemd-run unit, which would
need this bubblewrap around it too, it needs systemd where this class also runs without it
(containers, CI), and this project's machines, without systemd, could not test it.
Instructors' servers run from the course's environment (they grade), without limits.
Every server writes its log to LOG_FOLDER/<login>.log, rotated at each start.
"""
import os
import resource
import shutil
import subprocess
from pathlib import Path

from jupyterhub.spawner import LocalProcessSpawner, set_user_setuid
from traitlets import Dict, Float, Integer, Unicode

from grader.sandbox import cgroups

GROUP_PREFIX = "classroom-"
CONTROLLERS = ("memory", "pids", "cpu")
HUB_LEAF = "classroom.hub"  # cgroup v2: where the hub's own processes move; never a GROUP_PREFIX name
PERIOD = 100000  # microseconds of CPU time a quota of `cpus` is counted over
KEEP_LOGS = 3
LOG_BYTES = 5 * 1024 * 1024


def rotate(log, keep=KEEP_LOGS, size=LOG_BYTES):
    """log -> log.1 -> ... -> log.KEEP when log is over `size` bytes."""
    if not log.exists() or log.stat().st_size < size:
        return
    for n in range(keep - 1, 0, -1):
        older = log.with_name(f"{log.name}.{n}")
        if older.exists():
            older.replace(log.with_name(f"{log.name}.{n + 1}"))
    log.replace(log.with_name(f"{log.name}.1"))


def group_folders(login, root=cgroups.ROOT):
    """The folders of `login`'s server's control group: one per controller on cgroup v1,
    one on v2 (beside the hub's own leaf), [] where the machine has neither."""
    found, name = cgroups.version(root), f"{GROUP_PREFIX}{login}"
    if found == 1:
        return [root / c / cgroups.own_path(c).strip("/") / name for c in CONTROLLERS]
    if found == 2:
        return [cgroups.v2_base(root=root, leaf=HUB_LEAF) / name]
    return []


def make_group(login, memory_bytes, processes, cpus, root=cgroups.ROOT):
    """The control group of `login`'s server, made as root: (its cgroup.procs files, None),
    or ([], why not)."""
    found = cgroups.version(root)
    if found is None:
        return [], f"no cgroup v1 or v2 hierarchy at {root}"
    try:
        if found == 2:
            cgroups.delegate_v2(cgroups.v2_base(root=root, leaf=HUB_LEAF), CONTROLLERS, leaf=HUB_LEAF)
        folders = group_folders(login, root)
        for folder in folders:
            folder.mkdir(exist_ok=True)
        (limit_v2 if found == 2 else limit_v1)(folders, memory_bytes, processes, cpus)
    except (OSError, LookupError) as error:
        return [], f"cgroup v{found}: {error}"
    return [folder / "cgroup.procs" for folder in folders], None


def limit_v1(folders, memory_bytes, processes, cpus):
    memory, pids, cpu = folders
    cgroups.limit_v1(memory, pids, memory_bytes, processes)
    (cpu / "cpu.cfs_period_us").write_text(str(PERIOD))
    (cpu / "cpu.cfs_quota_us").write_text(str(int(cpus * PERIOD)))


def limit_v2(folders, memory_bytes, processes, cpus):
    [folder] = folders
    cgroups.limit_v2(folder, memory_bytes, processes)
    (folder / "cpu.max").write_text(f"{int(cpus * PERIOD)} {PERIOD}")


def remove_group(login, root=cgroups.ROOT):
    for folder in group_folders(login, root):
        try:
            folder.rmdir()
        except OSError:
            pass  # processes still in it, or gone already


class ClassroomSpawner(LocalProcessSpawner):
    students = Dict(help="login -> language of each student (the others are instructors)").tag(config=True)
    student_env = Unicode(help="the students' environment (classroom/student_env.py)").tag(config=True)
    memory_mb = Integer(2048, help="memory per student server, kernels included").tag(config=True)
    max_processes = Integer(256, help="processes (and threads) per student server").tag(config=True)
    cpus = Float(1.0, help="CPUs per student server").tag(config=True)
    log_folder = Unicode(help="where each server's log goes (<login>.log)").tag(config=True)
    cgroup_root = Unicode(str(cgroups.ROOT), help="where the machine's cgroup hierarchies are").tag(config=True)
    shared_paths = Dict(help="path -> 'ro' or 'rw': folders a student reaches even under /tmp "
                             "(the exchange, their environment)").tag(config=True)

    @property
    def is_student(self):
        return self.user.name in self.students

    def control_group(self):
        """The student's control group, made now: its cgroup.procs files, or [] (why in the log)."""
        procs, why = make_group(self.user.name, self.memory_mb * 1024 * 1024, self.max_processes, self.cpus,
                                Path(self.cgroup_root))
        if why:
            self.log.warning("no control group for %s (%s): rlimits only", self.user.name, why)
        return procs

    def sandboxed_cmd(self, python):
        """bubblewrap around the server: a private /tmp and PID namespace."""
        again = []  # what lives under /tmp and must stay reachable, bound back over the private /tmp
        for path, mode in sorted(self.shared_paths.items()):
            if Path(path).is_relative_to("/tmp"):
                again += ["--ro-bind" if mode == "ro" else "--bind", path, path]
        return [shutil.which("bwrap") or "bwrap", "--dev-bind", "/", "/", "--tmpfs", "/tmp", *again,
                "--unshare-pid", "--proc", "/proc", "--new-session", "--",
                python, "-m", "jupyterhub.singleuser"]

    async def start(self):
        login = self.user.name
        if self.is_student:
            from classroom.student_env import environment, python
            self.cmd = self.sandboxed_cmd(str(python(self.student_env)))
            self.environment = {**self.environment, **environment(self.student_env)}
            self._procs = self.control_group()
        log = Path(self.log_folder) / f"{login}.log"
        log.parent.mkdir(mode=0o700, exist_ok=True)
        rotate(log)
        with open(log, "ab", buffering=0) as handle:  # noqa: ASYNC230 (a local file, opened once)
            os.chmod(log, 0o600)
            self.popen_kwargs = {"stdout": handle, "stderr": subprocess.STDOUT}
            return await super().start()

    def make_preexec_fn(self, name):
        drop = set_user_setuid(name)
        if not self.is_student:
            return drop
        procs, limit, processes = list(self._procs), self.memory_mb * 1024 * 1024, self.max_processes

        def preexec():  # in the server's process, as root, before it becomes the student
            for path in procs:
                with open(path, "w") as handle:
                    handle.write(str(os.getpid()))
            if not procs:
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
                resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))
            drop()

        return preexec

    async def stop(self, now=False):
        await super().stop(now=now)
        if self.is_student:
            remove_group(self.user.name, Path(self.cgroup_root))
