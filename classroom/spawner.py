"""Each person's Jupyter server, as their own system user, with TLJH's limits.

Every server runs inside bubblewrap: its own /tmp, /var/tmp, /dev/shm and /run/lock (tmpfs
of a size its memory bounds, gone when the server stops), its own process and System V IPC
namespaces (`ps` shows only their processes), and its kernels' ZMQ sockets as files in its
private /tmp (`ipc` transport), never TCP ports on the machine's loopback. A student's
server runs from the students' environment (classroom/student_env.py), an instructor's
from the course's (they grade). Its memory, processes and CPU are limited by a control
group of its own (an instructor's larger), made as root before the server starts and
removed when it stops; its files stay root's, so the person can neither leave it nor
change it:
- cgroup v1: memory.limit_in_bytes (and memory.memsw.limit_in_bytes), pids.max,
  cpu.cfs_quota_us over cpu.cfs_period_us;
- cgroup v2 (every current Debian or Ubuntu with systemd), where the machine delegates the
  memory, pids and cpu controllers to the hub's cgroup (the unit classroom/service.py writes
  asks for them): a group beside the hub's own leaf with memory.max, memory.swap.max 0,
  pids.max and cpu.max;
- elsewhere (why in the hub's log): rlimits set as root (memory as address space, processes),
  and a student cannot raise a hard limit.
A server is known by more than its PID (classroom/processes.py): the hub signals only the
process it started, never one that reuses its PID after a crash or a reboot.
jupyterhub-systemdspawner is not used: it runs each server as a systemd-run unit, which would
need this bubblewrap around it too, it needs systemd where this class also runs without it
(containers, CI), and this project's machines, without systemd, could not test it.
Every server writes its log to LOG_FOLDER/<login>.log, rotated at each start.
"""
import os
import resource
import shutil
import subprocess
from pathlib import Path

from jupyterhub.spawner import LocalProcessSpawner, set_user_setuid
from traitlets import Dict, Float, Integer, Unicode

from classroom import processes
from classroom.state import Settings
from grader.sandbox import cgroups

GROUP_PREFIX = "classroom-"
CONTROLLERS = ("memory", "pids", "cpu")
HUB_LEAF = "classroom.hub"  # cgroup v2: where the hub's own processes move; never a GROUP_PREFIX name
PERIOD = 100000  # microseconds of CPU time a quota of `cpus` is counted over
KEEP_LOGS = 3
LOG_BYTES = 5 * 1024 * 1024
# each server's own, in place of the machine's: world-writable folders a person could fill or
# leave files in for another; /tmp gets a quarter of the server's memory, the others an eighth
# each, so that full they still leave the server half its memory
PRIVATE = {"/tmp": 4, "/var/tmp": 8, "/dev/shm": 8, "/run/lock": 64}
# the kernels' connection files and sockets: a small tmpfs of its own in the private /tmp,
# so that a full /tmp still lets the server start kernels
RUNTIME, RUNTIME_BYTES = "/tmp/jupyter-runtime", 16 * 1024 * 1024


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


def remove_groups(logins, root=cgroups.ROOT):
    """Remove every control group of these logins' servers wherever it is in the machine's
    hierarchies (a hub that was killed, or ran in another cgroup, leaves them where it made
    them); the folders removed. Their processes must be stopped first."""
    names = {f"{GROUP_PREFIX}{login}" for login in logins}
    removed = []
    for top, folders, _ in os.walk(root):
        for name in folders:
            if name in names:
                try:
                    (Path(top) / name).rmdir()
                    removed.append(Path(top) / name)
                except OSError:
                    pass
    return removed


class ClassroomSpawner(LocalProcessSpawner):
    students = Dict(help="login -> language of each student (the others are instructors)").tag(config=True)
    student_env = Unicode(help="the students' environment (classroom/student_env.py)").tag(config=True)
    instructor_python = Unicode(help="the course's Python, which instructors' servers run").tag(config=True)
    memory_mb = Integer(Settings.memory_mb, help="memory per student server, kernels included").tag(config=True)
    max_processes = Integer(Settings.processes, help="processes (and threads) per student server").tag(config=True)
    cpus = Float(Settings.cpus, help="CPUs per student server").tag(config=True)
    instructor_memory_mb = Integer(Settings.instructor_memory_mb, help="memory per instructor server").tag(config=True)
    instructor_processes = Integer(Settings.instructor_processes,
                                   help="processes (and threads) per instructor server").tag(config=True)
    instructor_cpus = Float(Settings.instructor_cpus, help="CPUs per instructor server").tag(config=True)
    log_folder = Unicode(help="where each server's log goes (<login>.log)").tag(config=True)
    cgroup_root = Unicode(str(cgroups.ROOT), help="where the machine's cgroup hierarchies are").tag(config=True)
    shared_paths = Dict(help="path -> 'ro' or 'rw': folders a server reaches even under its private "
                             "/tmp (the exchange, the students' environment)").tag(config=True)
    instructor_paths = Dict(help="path -> 'ro' or 'rw': what an instructor's server reaches besides "
                                 "(the course's checkout and its Python environment)").tag(config=True)
    process = Dict(help="the server's process as it started (classroom/processes.py's identity)")

    @property
    def is_student(self):
        return self.user.name in self.students

    def limits(self):
        """(memory in bytes, processes, CPUs) of this person's server."""
        if self.is_student:
            return self.memory_mb * 1024 * 1024, self.max_processes, self.cpus
        return self.instructor_memory_mb * 1024 * 1024, self.instructor_processes, self.instructor_cpus

    def control_group(self):
        """The server's control group, made now: its cgroup.procs files, or [] (why in the log)."""
        procs, why = make_group(self.user.name, *self.limits(), Path(self.cgroup_root))
        if why:
            self.log.warning("no control group for %s (%s): rlimits only", self.user.name, why)
        return procs

    def sandboxed_cmd(self, python):
        """bubblewrap around the server: private temporary folders, PID and IPC namespaces."""
        memory = self.limits()[0]
        private = []
        for path, share in PRIVATE.items():
            if Path(path).is_dir():
                private += ["--size", str(memory // share), "--tmpfs", path]
        private += ["--perms", "0700", "--size", str(RUNTIME_BYTES), "--tmpfs", RUNTIME]
        again = []  # what lives in a private folder and must stay reachable, bound back over it
        reached = {**self.shared_paths, **({} if self.is_student else self.instructor_paths)}
        for path, mode in sorted(reached.items()):
            if any(Path(path).is_relative_to(folder) for folder in PRIVATE):
                again += ["--ro-bind" if mode == "ro" else "--bind", path, path]
        return [shutil.which("bwrap") or "bwrap", "--dev-bind", "/", "/", *private, *again,
                "--unshare-pid", "--unshare-ipc", "--proc", "/proc", "--new-session", "--",
                python, "-m", "jupyterhub.singleuser"]

    async def start(self):
        login = self.user.name
        if self.is_student:
            from classroom.student_env import environment, python
            self.cmd = self.sandboxed_cmd(str(python(self.student_env)))
            self.environment = {**self.environment, **environment(self.student_env)}
        else:
            self.cmd = self.sandboxed_cmd(self.instructor_python)
        self.environment = {**self.environment, "JUPYTER_RUNTIME_DIR": RUNTIME}
        self._procs = self.control_group()
        log = Path(self.log_folder) / f"{login}.log"
        log.parent.mkdir(mode=0o700, exist_ok=True)
        rotate(log)
        with open(log, "ab", buffering=0) as handle:  # noqa: ASYNC230 (a local file, opened once)
            os.chmod(log, 0o600)
            self.popen_kwargs = {"stdout": handle, "stderr": subprocess.STDOUT}
            address = await super().start()
        self.process = processes.identity(self.pid) or {}
        return address

    def make_preexec_fn(self, name):
        drop = set_user_setuid(name)
        procs, (limit, processes_, _) = list(self._procs), self.limits()

        def preexec():  # in the server's process, as root, before it becomes the person
            for path in procs:
                with open(path, "w") as handle:
                    handle.write(str(os.getpid()))
            if not procs:
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
                resource.setrlimit(resource.RLIMIT_NPROC, (processes_, processes_))
            drop()

        return preexec

    def get_state(self):
        state = super().get_state()
        if self.pid and self.process:
            state["process"] = self.process
        return state

    def load_state(self, state):
        super().load_state(state)
        self.process = state.get("process") or {}

    def clear_state(self):
        super().clear_state()
        self.process = {}

    async def _signal(self, sig):
        """LocalProcessSpawner's, for the process this spawner started only: a PID now
        another process's (after a crash or a reboot) is a server that is gone."""
        if not processes.is_same(self.process):
            return False
        return await super()._signal(sig)

    async def stop(self, now=False):
        await super().stop(now=now)
        remove_group(self.user.name, Path(self.cgroup_root))
