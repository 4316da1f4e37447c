"""Each person's Jupyter server, as their own system user, with TLJH's limits.

A student's server runs from the students' environment (classroom/student_env.py) inside
bubblewrap: a private /tmp and a PID namespace of its own (`ps` shows only their processes).
Its memory, processes and CPU are limited by a control group of its own (cgroup v1, made
as root before the server starts, so the student cannot leave or change it), or where
there is none by rlimits set as root (memory as address space, processes): a student
cannot raise a hard limit.
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

from grader.sandbox.cgroups import ROOT as CGROUP_ROOT
from grader.sandbox.cgroups import own_path, version

GROUP_PREFIX = "classroom-"
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


def group_folders(login):
    """cgroup v1 folders of `login`'s server: {controller: folder}, or {} where there is no v1."""
    if version() != 1:
        return {}
    return {c: CGROUP_ROOT / c / own_path(c).strip("/") / f"{GROUP_PREFIX}{login}"
            for c in ("memory", "pids", "cpu")}


def make_group(login, memory_bytes, processes, cpus):
    """The control group of `login`'s server; its cgroup.procs files, or [] (why in the log)."""
    folders = group_folders(login)
    if not folders:
        return []
    for folder in folders.values():
        folder.mkdir(exist_ok=True)
    memory = folders["memory"]
    (memory / "memory.limit_in_bytes").write_text(str(memory_bytes))
    if (memory / "memory.memsw.limit_in_bytes").exists():
        (memory / "memory.memsw.limit_in_bytes").write_text(str(memory_bytes))
    (folders["pids"] / "pids.max").write_text(str(processes))
    (folders["cpu"] / "cpu.cfs_period_us").write_text("100000")
    (folders["cpu"] / "cpu.cfs_quota_us").write_text(str(int(cpus * 100000)))
    return [folder / "cgroup.procs" for folder in folders.values()]


def remove_group(login):
    for folder in group_folders(login).values():
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
    shared_paths = Dict(help="path -> 'ro' or 'rw': folders a student reaches even under /tmp "
                             "(the exchange, their environment)").tag(config=True)

    @property
    def is_student(self):
        return self.user.name in self.students

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
            try:
                self._procs = make_group(login, self.memory_mb * 1024 * 1024, self.max_processes, self.cpus)
            except OSError as error:
                self.log.warning("no control group for %s (%s): rlimits only", login, error)
                self._procs = []
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
            remove_group(self.user.name)
