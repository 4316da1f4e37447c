"""Start every autograding kernel inside a bubblewrap sandbox, with limits.

nbgrader starts kernels through nbclient, which asks a jupyter_client
KernelManager; `grader.plugins.wiring` names this one. Inside the sandbox
the kernel sees, read-only, the system (/usr, /lib, /etc), the Python
installation and virtual environment, and only the course code student code
needs at run time (`course`, `minigrad`). Its working directory, /submission,
is a size-capped tmpfs holding a copy of the submission's own folder, and /tmp
and /dev/shm are others; they vanish with the sandbox, and everything else is
read-only, the caches every kernel starts from included (grader/sandbox/kernel_caches.py).
Its private folder (connection file, sockets) is removed from the host once the
kernel is up, before student code runs (`seal_private`). It has
no network, and no view of the grader's references, source/, the gradebook,
other submissions or the instructor's home. Its environment is an allowlist.

Limits: memory (a per-kernel cgroup, counting heap, tmpfs and memfd, where one
can be made; an address-space rlimit in any case, and without a cgroup memfd and
System V shared memory are refused: grader/sandbox/seccomp.py), processes (the cgroup's own
count; else an rlimit), CPU time and file size (rlimits). Run as root, the
kernel drops to the unprivileged user `nobody`; run as an ordinary user,
bubblewrap puts it in a user namespace of its own.
"""
import asyncio
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import zmq
from jupyter_client.manager import AsyncKernelManager
from traitlets import Bool, Integer, Unicode

from course.names import DISTRIBUTION
from course.student import SEED_VARIABLE
from grader.sandbox import kernel_caches, seccomp, warm_start
from grader.sandbox.cgroups import PREFIX, KernelGroup, maker_is_gone
from grader.sandbox.namespace_init import NamespaceInit
from grader.sandbox.uids import NOBODY

SYSTEM = ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/etc"]
KERNEL_PACKAGES = ("course", "minigrad")  # what student code imports
GRADER_PACKAGES = ("grader", "authoring")  # never visible to student code
WORKDIR = "/submission"
SUBMISSION_COPY = "/run/submission-files"  # read-only; copied into WORKDIR at start
REAP_SECONDS = 20  # the longest a released sandbox's processes are waited for
ENVIRONMENT = ("PYDEVD_DISABLE_FILE_VALIDATION",)  # passed through if set
# IPython before 9.7 puts the working directory on sys.path despite PYTHONSAFEPATH
IGNORE_CWD = "--IPKernelApp.ignore_cwd=True"
MISSING_TOOL = (
    "bubblewrap (bwrap) is not installed, so student code would run with your own "
    "permissions. Install it (Debian/Ubuntu: `apt-get install bubblewrap`), or opt out "
    "explicitly in nbgrader_config.py with `c.SandboxedKernelManager.sandbox = False`.")


class SandboxMissing(RuntimeError):
    pass


class SandboxRefused(RuntimeError):
    """Grading was asked to run a kernel somewhere other than a submission's folder."""


def sandbox_available(bwrap="bwrap"):
    return all(shutil.which(tool) for tool in (bwrap, "prlimit", "setpriv"))


def package_folder(name):
    spec = importlib.util.find_spec(name)
    return Path(spec.origin).resolve().parent if spec and spec.origin else None


def site_folders():
    """The folders this interpreter imports installed packages from (site-packages and
    dist-packages, the virtual environment's and those it adds): the kernel, started
    with this interpreter, needs the same ones."""
    folders = {Path(entry).resolve() for entry in sys.path
               if entry and Path(entry).name in ("site-packages", "dist-packages")}
    return sorted(str(folder) for folder in folders if folder.is_dir())


def grader_copies(folders):
    """Every installed trace of the grader under `folders`: its packages (a
    non-editable install, a wheel, a Dask worker's install), wherever the import
    system or a path on the disk would find them, and the project's install
    records (dist-info, egg-info: their RECORD lists the grader's files)."""
    found = set()
    for name in GRADER_PACKAGES:
        folder = package_folder(name)
        if folder is not None:
            found.add(folder)
    for root in folders:
        root = Path(root)
        if not root.is_dir():
            continue
        entries = [root, *root.glob("lib/python3*/*-packages"), *root.glob("local/lib/python3*/*-packages"),
                   *root.glob("python3*/*-packages"), *root.glob("python3/dist-packages"),
                   *(Path(p) for p in sys.path if p and _under(Path(p).resolve(), [root]))]
        for entry in entries:
            for name in GRADER_PACKAGES:
                if (entry / name).is_dir():
                    found.add((entry / name).resolve())
            for record in [*entry.glob(f"{DISTRIBUTION}-*.dist-info"), *entry.glob(f"{DISTRIBUTION}-*.egg-info"),
                           *entry.glob(f"{DISTRIBUTION}.egg-info")]:
                found.add(record.resolve())
    return sorted(path for path in found if any(_under(path, [root]) for root in folders))


class SandboxedKernelManager(AsyncKernelManager):
    sandbox = Bool(True, help="Run kernels in bubblewrap. False runs them unsandboxed "
                              "(every report then says so).").tag(config=True)
    bwrap = Unicode("bwrap", help="The bubblewrap program.").tag(config=True)
    memory_limit = Integer(2 * 1024 ** 3, help="Bytes of memory of one kernel: the cgroup's "
                                               "limit and the address-space rlimit.").tag(config=True)
    process_limit = Integer(512, help="Processes and threads of one kernel.").tag(config=True)
    cpu_seconds = Integer(600, help="CPU seconds for the whole kernel.").tag(config=True)
    file_size_limit = Integer(64 * 1024 ** 2, help="Largest file the kernel may write.").tag(config=True)
    tmp_size = Integer(256 * 1024 ** 2, help="Size of the kernel's /tmp (a tmpfs).").tag(config=True)
    workdir_size = Integer(256 * 1024 ** 2, help="Size of the kernel's working directory "
                                                 "(a tmpfs holding the submission).").tag(config=True)
    use_cgroup = Bool(True, help="Put each kernel in a cgroup of its own where one can be "
                                 "made.").tag(config=True)
    cgroup_parent = Unicode("", help="Where kernel groups are made, relative to this grader's "
                                     "own cgroup in each hierarchy (a folder delegated to "
                                     "you); default: the grader's own cgroup.").tag(config=True)
    kernel_threads = Integer(1, help="Threads for numerical libraries in the kernel "
                                     "(concurrent kernels share the cores).").tag(config=True)
    uid = Integer(NOBODY, help="Run as root, the unprivileged user the kernel runs as "
                              "(default: nobody).").tag(config=True)
    warm_start = Bool(True, help="Fork each kernel from a process that has already imported "
                                 "ipykernel, numpy and torch, into the sandbox bubblewrap makes "
                                 "(grader/sandbox/warm_start.py); False: a new Python each.").tag(config=True)
    use_kernel_caches = Bool(True, help="Start each kernel from matplotlib's and mypy's caches, "
                                        "built once per grading process "
                                        "(grader/sandbox/kernel_caches.py).").tag(config=True)

    # the folder the kernel may work on, the seed its probes draw cases from, and
    # whether its notebook runs mypy (its cache is then built once for all kernels):
    # set by GradingExecute before the start
    submission_folder = None
    grading_seed = None
    mypy_cache = False

    async def _async_pre_start_kernel(self, **kw):
        self._start_arguments = dict(kw)  # a failed warm start starts again from them
        if self.sandbox and not sandbox_available(self.bwrap):
            raise SandboxMissing(MISSING_TOOL)
        cwd = kw.get("cwd")
        if self.submission_folder is None or cwd is None or \
                Path(cwd).resolve() != Path(self.submission_folder).resolve():
            raise SandboxRefused(f"a graded kernel runs only in its submission's folder, "
                                 f"not in {cwd or os.getcwd()}")
        # a private folder for the connection file and the IPC sockets: TCP on
        # loopback does not cross the sandbox's own network namespace
        remove_leftovers_once(self.cgroup_parent if self.use_cgroup else None)
        self._caches = kernel_caches.ready(self.mypy_cache) if self.use_kernel_caches else None
        self._private = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
        self.connection_file = str(self._private / "kernel.json")
        self._group = self._init = None
        self._zygote = self.start_zygote() if self.sandbox and self.warm_start else None
        if self._zygote is not None:  # the placeholder reads it; the kernel holds it open
            os.mkfifo(self._private / "alive", 0o600)
        if self.sandbox:
            self.transport = "ipc"
            self.ip = str(self._private / "ipc")
            # a signal sent to bwrap does not reach the kernel inside: interrupt
            # (on a cell's timeout) by a message on the control channel instead
            self.kernel_spec.interrupt_mode = "message"
        command, kw = await super()._async_pre_start_kernel(**kw)
        kw["env"] = self.kernel_environment(kw.get("env") or {})
        self._kernel_env = dict(kw["env"])  # a warm kernel's: the launch adds JPY_PARENT_PID to kw's
        # what the kernel writes to its own stdout/stderr (student code can, with
        # os.write) must not reach the instructor's terminal
        kw["stdout"] = kw["stderr"] = subprocess.DEVNULL
        return command, kw

    def start_zygote(self):
        """This grader's zygote (grader/sandbox/warm_start.py), or None: kernels start cold."""
        environment = self.kernel_environment({}, zygote=True)
        return warm_start.zygote(environment)

    def warm_processes(self, extra):
        """`extra` for a warm kernel, else 0. A warm kernel's group holds two processes a cold
        one's does not (the placeholder, and the zygote's child waiting for the kernel), and
        its user one (the placeholder): its limits count them, so that the kernel itself may
        start exactly as many processes as a cold one."""
        return extra if getattr(self, "_zygote", None) is not None else 0

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        await super()._async_launch_kernel(kernel_cmd, **kw)
        if getattr(self, "_zygote", None) is None:
            return
        try:
            await self._fork_from_zygote()
        except warm_start.WarmStartFailed as failed:
            # no submission pays for it: this kernel starts cold, in a sandbox made anew
            # (this process's next kernels too: warm_start.give_up)
            self.log.warning("%s; kernels start cold from now on", failed)
            await self.provisioner.kill()  # its placeholder waits for no kernel now
            await self.provisioner.wait()
            self.release_sandbox()
            kernel_cmd, kw = await self._async_pre_start_kernel(**self._start_arguments)
            await super()._async_launch_kernel(kernel_cmd, **kw)

    async def _fork_from_zygote(self):
        """Once bubblewrap has made the sandbox (its placeholder runs), the zygote forks
        the kernel into it."""
        process = self.provisioner.process
        deadline = time.monotonic() + 60
        found = None
        while found is None:
            if process.poll() is not None or time.monotonic() > deadline:
                raise warm_start.give_up("the sandbox did not start its placeholder")
            await asyncio.sleep(0.005)
            found = warm_start.placeholder(process.pid)
        init, holder = found
        root = os.geteuid() == 0
        limits = {"as": self.memory_limit, "cpu": self.cpu_seconds, "fsize": self.file_size_limit}
        if self._group is None:
            limits["nproc"] = self.process_limit + self.warm_processes(1)
        request = {"init": init, "holder": holder, "uid": self.uid if root else None, "limits": limits,
                   "cgroup_procs": [str(path) for path in self._group.procs_files] if self._group else [],
                   "seccomp": seccomp.program().hex() if self._group is None and seccomp.covers() else None,
                   "cwd": WORKDIR, "alive": str(self._private / "alive"),
                   "env": {**self._kernel_env, "PWD": WORKDIR},  # as the cold kernel's shell sets it
                   "connection_file": self.connection_file, "arguments": self._kernel_arguments}
        await asyncio.to_thread(warm_start.start, self._zygote, request)

    def seal_private(self, timeout=10):
        """Once the kernel is up, before any student code runs: remove its private folder
        from the host, so the kernel can write nothing there, whoever grades (root, or an
        ordinary user with or without a cgroup). Connections already made live on, and
        nothing can be created in a removed folder, even through the sandbox's mount of it.
        The grader's own control connection (interrupts, shutdown) is checked first: it
        must reach the kernel before its socket's name goes. Raises TimeoutError when it
        does not within `timeout` seconds."""
        private = getattr(self, "_private", None)
        if not self.sandbox or private is None or not private.exists():
            return
        self.note_namespace_init()
        self._connect_control_socket()
        control = zmq.Socket.shadow(self._control_socket.underlying)  # a blocking view of it
        asked = self.session.send(control, "kernel_info_request", {})
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not control.poll(int(left * 1000)):
                raise TimeoutError("the kernel did not answer on its control channel")
            _, reply = self.session.recv(control, mode=0)
            if reply and reply["parent_header"].get("msg_id") == asked["header"]["msg_id"]:
                break
        shutil.rmtree(private)

    def trial_cgroup(self):
        """(group, None) when a kernel of this configuration gets a cgroup of its own, else
        (None, why not). The group is made to find out, and removed at once."""
        group, why = (KernelGroup.create(self.memory_limit, self.process_limit, self.cgroup_parent)
                      if self.use_cgroup else (None, "cgroups turned off"))
        if group is not None:
            group.remove()
        return group, why

    def kernel_environment(self, offered, zygote=False):
        """The kernel's whole environment: an allowlist, nothing else of the grader's. The
        zygote's (`zygote`) has no submission's seed, and a private folder of its own."""
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
               "HOME": "/tmp", "MPLCONFIGDIR": "/tmp", "MPLBACKEND": "agg",
               "OMP_NUM_THREADS": str(self.kernel_threads),
               "MKL_NUM_THREADS": str(self.kernel_threads),
               # nothing of the submission's folder is imported while the kernel starts (a
               # planted ipykernel_launcher.py would run before seal_private): Python does not
               # put the working directory first on sys.path, nor IPython anywhere
               "PYTHONSAFEPATH": "1"}
        env.update({name: offered[name] for name in ENVIRONMENT if name in offered})
        if zygote:
            return env
        if self.grading_seed is not None:
            env[SEED_VARIABLE] = str(self.grading_seed)
        caches = getattr(self, "_caches", None)
        if caches is not None:
            env.update(kernel_caches.environment(caches, kernel_caches.MOUNT if self.sandbox else caches))
        if not self.sandbox:
            env["HOME"] = self._private.as_posix()
            env["MPLCONFIGDIR"] = self._private.as_posix()
            for fonts in (caches / kernel_caches.MATPLOTLIB).glob("*.json") if caches else ():
                shutil.copy(fonts, self._private)
        return env

    def format_kernel_cmd(self, extra_arguments=None):
        command = super().format_kernel_cmd(extra_arguments)
        if not self.sandbox:
            return command
        submission = self._launch_args["cwd"]
        root = os.geteuid() == 0
        if root:  # the kernel's user must read the connection file and make its sockets
            for path in [self._private, *self._private.iterdir()]:
                os.chown(path, self.uid, self.uid)
        limits = ["prlimit", f"--as={self.memory_limit}", f"--cpu={self.cpu_seconds}",
                  f"--fsize={self.file_size_limit}"]
        enter_group, self._no_group = [], "cgroups turned off"
        if self.use_cgroup:
            self._group, self._no_group = KernelGroup.create(
                self.memory_limit, self.process_limit + self.warm_processes(2), self.cgroup_parent)
            if self._group is not None:
                writes = " && ".join(f'echo $$ > "{path}"' for path in self._group.procs_files)
                enter_group = ["/bin/sh", "-c", writes + ' && exec "$@"', "sh"]
        if self._group is None:
            limits.append(f"--nproc={self.process_limit}")  # counted per user: see defences()
        caches = getattr(self, "_caches", None)
        sandbox = [self.bwrap] + bwrap_arguments(self._private, submission, root, self.tmp_size,
                                                 self.workdir_size, caches)
        if self._group is None and seccomp.covers():
            # no cgroup counts a memfd's or System V shared memory's pages: refuse those
            # calls (bwrap reads the filter from descriptor 3, which the shell opens)
            rules = self._private / "seccomp.bpf"
            rules.write_bytes(seccomp.program())
            sandbox = ["/bin/sh", "-c", 'exec "$@" 3< "$0"', str(rules), self.bwrap, "--seccomp", "3",
                       *sandbox[1:]]
        # inside: copy the submission into the tmpfs working directory, then the kernel
        copy = 'cp -R "$0"/. . 2>/dev/null; '
        copy += kernel_caches.copy_fonts(kernel_caches.MOUNT) if caches else ""
        if root:
            copy += f"chown -R {self.uid}:{self.uid} . /tmp/*.json 2>/dev/null; "
            drop = ["setpriv", f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups",
                    "--no-new-privs", "--"]
        else:
            drop = []
        start = ["/bin/sh", "-c", copy + 'exec "$@"', SUBMISSION_COPY] + drop
        # a warm kernel takes the cold one's arguments (nbclient's among them: its history in
        # memory, with no thread to stop before a fork and start again after)
        self._kernel_arguments = command[command.index("-f") + 2:] + [IGNORE_CWD]
        if self._zygote is not None:  # a placeholder: the zygote forks the kernel into the sandbox
            return enter_group + limits + ["--"] + sandbox + ["--"] + start + ["cat", str(self._private / "alive")]
        return enter_group + limits + ["--"] + sandbox + ["--"] + start + command + [IGNORE_CWD]

    def defences(self):
        """What protects the machine from this kernel, in a few words (for reports)."""
        return describe_defences(self.sandbox, getattr(self, "_group", None),
                                 getattr(self, "_no_group", "cgroups turned off"), self.uid)

    # whether the kernel was killed for its memory: read before the group goes
    was_out_of_memory = False

    def note_namespace_init(self):
        """Find the sandbox's pid namespace init while bubblewrap still lives (it is
        bubblewrap's child only until then), for release_sandbox to wait on."""
        process = getattr(self.provisioner, "process", None)
        if self.sandbox and getattr(self, "_init", None) is None and process is not None \
                and process.poll() is None:
            self._init = NamespaceInit.child_of(process.pid)

    async def _async_shutdown_kernel(self, now=False, restart=False):
        self.note_namespace_init()
        await super()._async_shutdown_kernel(now=now, restart=restart)

    shutdown_kernel = _async_shutdown_kernel  # what nbclient calls

    def release_sandbox(self):
        """Remove everything this kernel had on the host: its cgroup (killing what
        is left in it) and its private folder, and wait until every process of its
        sandbox is gone, so that the next kernel (the next submission's, or a dead
        kernel's replacement) never meets them under a shared process limit. Called
        for dead kernels too, which jupyter_client's own cleanup does not reach."""
        group, self._group = getattr(self, "_group", None), None
        if group is not None:
            self.was_out_of_memory = self.was_out_of_memory or group.out_of_memory()
            group.remove()
        init, self._init = getattr(self, "_init", None), None
        if init is not None and not init.wait_gone(REAP_SECONDS):
            self.log.warning("a killed kernel's sandbox still had processes after %s s", REAP_SECONDS)
        private = getattr(self, "_private", None)
        if private is not None:
            shutil.rmtree(private, ignore_errors=True)

    async def _async_cleanup_resources(self, restart=False):
        await super()._async_cleanup_resources(restart=restart)
        self.release_sandbox()


_swept = False
REMOTE_PREFIX = "course-remote-"  # a Dask worker's copy of a submission (grader/plugins/execute.py)


def remove_leftovers_once(cgroup_parent):
    """Once per process, before its first kernel: remove the private folders and
    cgroups of kernels whose grading process has ended without cleaning up (a
    Dask worker or nbgrader killed with SIGKILL). `cgroup_parent` None: no cgroups."""
    global _swept
    if _swept:
        return
    _swept = True
    remove_leftovers(cgroup_parent)


def remove_leftovers(cgroup_parent, tmp=None):
    """Remove this user's kernel folders, kernel caches, zygote folders and Dask workers'
    submission copies (in the temporary folder) and kernel
    cgroups whose maker has ended; returns how many things were removed."""
    removed = 0
    tmp = Path(tmp or tempfile.gettempdir())
    for folder in [*tmp.glob(PREFIX + "*"), *tmp.glob(REMOTE_PREFIX + "*"),
                   *tmp.glob(kernel_caches.PREFIX + "*"), *tmp.glob(warm_start.PREFIX + "*")]:
        try:
            mine = folder.is_dir() and folder.lstat().st_uid == os.geteuid()
        except OSError:
            continue
        if mine and maker_is_gone(folder.name):
            shutil.rmtree(folder, ignore_errors=True)
            removed += not folder.exists()
    if cgroup_parent is not None:
        removed += KernelGroup.remove_leftovers(cgroup_parent)
    return removed


def describe_defences(sandbox, group, why_no_group, uid=NOBODY):
    if not sandbox:
        return "unsandboxed"
    user = "nobody" if uid == NOBODY else f"user id {uid}"  # grader/sandbox/uids.py: one per worker
    words = ["bubblewrap", f"as {user}" if os.geteuid() == 0 else "in a user namespace"]
    if group is not None:
        words.append(f"cgroup v{group.version} for memory and processes")
    else:
        words.append(f"rlimits only ({why_no_group}): memory as address space"
                     f"{', memfd and System V shared memory refused' if seccomp.covers() else ''}, "
                     "processes counted per user")
    return ", ".join(words)


_announced = []


def announce_defences(**_):
    """nbgrader's pre_convert_hook: stop the whole run, before anything is written,
    when the sandbox is wanted but bubblewrap is missing; else say once which
    defences are active."""
    from traitlets.config import Application
    app = Application.instance()
    manager = SandboxedKernelManager(config=app.config)
    if manager.sandbox and not sandbox_available(manager.bwrap):
        raise SystemExit(MISSING_TOOL)  # not an Exception: nbgrader lets it through
    if not _announced:
        group, why = manager.trial_cgroup()
        app.log.warning("Grading defences: %s", describe_defences(manager.sandbox, group, why,
                                                                 manager.uid))
        _announced.append(True)


def bwrap_arguments(private, submission, root, tmp_size, workdir_size, caches=None):
    namespaces = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                  "--unshare-cgroup-try"]
    if not root:
        # an ordinary user may not change user: a user namespace of its own instead
        namespaces.append("--unshare-user")
    arguments = namespaces + [
        "--die-with-parent", "--new-session",
        "--unsetenv", "JPY_PARENT_PID",  # jupyter_client adds it; the kernel would see its parent as gone
        "--proc", "/proc", "--dev", "/dev",
        # bwrap's /dev/shm would be an uncapped tmpfs: one of the kernel's own, capped as /tmp
        "--perms", "1777", "--size", str(tmp_size), "--tmpfs", "/dev/shm",
        "--perms", "1777", "--size", str(tmp_size), "--tmpfs", "/tmp"]  # before any bind under /tmp
    for path in SYSTEM:
        if os.path.exists(path):
            arguments += ["--ro-bind", path, path]
    packages = [package_folder(name) for name in KERNEL_PACKAGES]
    readable = sorted({sys.base_prefix, sys.prefix, *site_folders(),
                       *(str(p) for p in packages if p)})
    # bwrap makes the folders above a mount point 0700 when run as root: the
    # kernel's unprivileged user needs them 0755 to reach what is mounted
    ancestors = sorted({str(parent) for path in readable + [str(private)]
                        for parent in Path(path).parents
                        if str(parent) not in ("/", "/tmp") and not _under(parent, SYSTEM)})
    for folder in ancestors:
        arguments += ["--perms", "0755", "--dir", folder]
    for path in readable:
        arguments += ["--ro-bind", path, path]
    # a grader package installed beside the kernel's (a non-editable install puts
    # it in site-packages), and the records listing its files: each hidden under
    # an empty, read-only folder
    for folder in grader_copies(readable + [p for p in SYSTEM if os.path.isdir(p)]):
        arguments += ["--tmpfs", str(folder), "--remount-ro", str(folder)]
    arguments += ["--bind", str(private), str(private),
                  "--perms", "0755", "--dir", "/run",
                  "--ro-bind", str(submission), SUBMISSION_COPY,
                  *(["--ro-bind", str(caches), kernel_caches.MOUNT] if caches else []),
                  "--perms", "1777", "--size", str(workdir_size), "--tmpfs", WORKDIR,
                  # bwrap's own root and /dev are tmpfs of no size cap, and the kernel's
                  # when it runs as the grading user in a user namespace: read-only
                  "--remount-ro", "/dev", "--remount-ro", "/",
                  "--chdir", WORKDIR]
    return arguments


def _under(path, roots):
    return any(Path(path) == Path(root) or Path(root) in Path(path).parents for root in roots)
