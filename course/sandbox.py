"""Start every autograding kernel inside a bubblewrap sandbox, with limits.

nbgrader starts kernels through nbclient, which asks a jupyter_client
KernelManager; `nbgrader_setup.configure` names this one. Inside the sandbox
the kernel sees, read-only: the system (/usr, /lib, /etc), the Python
installation and virtual environment, and the course's own packages. It can
write only to a scratch copy of the submission's folder (thrown away
afterwards) and a private /tmp. It has no network, no view of source/, the
gradebook, other submissions or the instructor's home, and it runs under
memory, process, CPU-time and file-size limits, as the unprivileged user
`nobody` (so the process limit counts the kernel's own processes only).
"""
import os
import shutil
import sys
import tempfile
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from traitlets import Bool, Integer, Unicode

PACKAGES = [Path(__file__).resolve().parent, Path(__file__).resolve().parent.parent / "minigrad"]
SYSTEM = ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/etc"]
MISSING_TOOL = (
    "bubblewrap (bwrap) is not installed, so student code would run with your own "
    "permissions. Install it (Debian/Ubuntu: `apt-get install bubblewrap`), or opt out "
    "explicitly in nbgrader_config.py with `c.SandboxedKernelManager.sandbox = False`.")


class SandboxMissing(RuntimeError):
    pass


def sandbox_available(bwrap="bwrap"):
    return all(shutil.which(tool) for tool in (bwrap, "prlimit", "setpriv"))


def refuse_without_sandbox(**_):
    """nbgrader's pre_convert_hook: stop the whole run, before anything is
    written, when the sandbox is wanted but bubblewrap is missing."""
    from traitlets.config import Application
    manager = SandboxedKernelManager(config=Application.instance().config)
    if manager.sandbox and not sandbox_available(manager.bwrap):
        raise SystemExit(MISSING_TOOL)  # not an Exception: nbgrader lets it through


class SandboxedKernelManager(AsyncKernelManager):
    sandbox = Bool(True, help="Run kernels in bubblewrap. False runs them unsandboxed "
                              "(every report then says so).").tag(config=True)
    bwrap = Unicode("bwrap", help="The bubblewrap program.").tag(config=True)
    memory_limit = Integer(2 * 1024 ** 3, help="Address-space limit in bytes.").tag(config=True)
    process_limit = Integer(512, help="Processes and threads of the grading user.").tag(config=True)
    cpu_seconds = Integer(600, help="CPU seconds for the whole kernel.").tag(config=True)
    file_size_limit = Integer(64 * 1024 ** 2, help="Largest file the kernel may write.").tag(config=True)
    uid = Integer(65534, help="The unprivileged user the kernel runs as (default: nobody), so the "
                              "process limit counts the kernel's processes only.").tag(config=True)

    async def _async_pre_start_kernel(self, **kw):
        if self.sandbox and not sandbox_available(self.bwrap):
            raise SandboxMissing(MISSING_TOOL)
        # a private folder for the connection file and the IPC sockets: TCP on
        # loopback does not cross the sandbox's own network namespace
        self._private = Path(tempfile.mkdtemp(prefix="course-kernel-"))
        self.connection_file = str(self._private / "kernel.json")
        if self.sandbox:
            self.transport = "ipc"
            self.ip = str(self._private / "ipc")
            # a signal sent to bwrap does not reach the kernel inside: interrupt
            # (on a cell's timeout) by a message on the control channel instead
            self.kernel_spec.interrupt_mode = "message"
        self._scratch = None
        return await super()._async_pre_start_kernel(**kw)

    def format_kernel_cmd(self, extra_arguments=None):
        command = super().format_kernel_cmd(extra_arguments)
        if not self.sandbox:
            return command
        cwd = self._launch_args.get("cwd") or os.getcwd()
        self._scratch = Path(tempfile.mkdtemp(prefix="course-scratch-"))
        shutil.copytree(cwd, self._scratch, dirs_exist_ok=True)
        for folder in (self._scratch, self._private):  # the kernel's user must write here
            for path in [folder, *folder.rglob("*")]:
                os.chown(path, self.uid, self.uid)
        limits = ["prlimit", f"--as={self.memory_limit}", f"--nproc={self.process_limit}",
                  f"--cpu={self.cpu_seconds}", f"--fsize={self.file_size_limit}", "--"]
        sandbox = [self.bwrap] + bwrap_arguments(self._private, self._scratch, cwd)
        drop = ["setpriv", f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups",
                "--no-new-privs", "--"]
        return limits + sandbox + ["--"] + drop + command

    async def _async_cleanup_resources(self, restart=False):
        await super()._async_cleanup_resources(restart=restart)
        for folder in (getattr(self, "_private", None), getattr(self, "_scratch", None)):
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)


def bwrap_arguments(private, scratch, cwd):
    # every namespace but the user one: the kernel then drops to a real unprivileged
    # user (setpriv), whose processes alone count against the process limit
    arguments = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                 "--unshare-cgroup-try", "--die-with-parent", "--new-session",
                 "--unsetenv", "JPY_PARENT_PID",  # the kernel would see its parent as gone
                 "--proc", "/proc", "--dev", "/dev",
                 "--perms", "1777", "--tmpfs", "/tmp"]  # before any bind under /tmp
    for path in SYSTEM:
        if os.path.exists(path):
            arguments += ["--ro-bind", path, path]
    readable = sorted({sys.base_prefix, sys.prefix, *map(str, PACKAGES)})
    # bwrap makes the folders above a mount point 0700 when run as root: the
    # kernel's unprivileged user needs them 0755 to reach what is mounted
    ancestors = sorted({str(parent) for path in readable + [str(private), str(cwd)]
                        for parent in Path(path).parents
                        if str(parent) not in ("/", "/tmp") and not _under(parent, SYSTEM)})
    for folder in ancestors:
        arguments += ["--perms", "0755", "--dir", folder]
    for path in readable:
        arguments += ["--ro-bind", path, path]
    arguments += ["--bind", str(private), str(private),
                  "--bind", str(scratch), str(cwd), "--chdir", str(cwd),
                  "--setenv", "HOME", "/tmp", "--setenv", "MPLCONFIGDIR", "/tmp"]
    return arguments


def _under(path, roots):
    return any(Path(path) == Path(root) or Path(root) in Path(path).parents for root in roots)
