"""What crosses to a Dask worker with a submission, and what the worker makes of it.

One Dask task per submission (grader/plugins/execute.py's `execute_on_cluster`, on the
instructor's machine; `execute_submission`, on the worker) carries the notebook, the
files of that one submission's folder (`pack`, `unpack`: only regular files, nothing
that leads out of the folder), the grading seed, and the limits from this machine's
nbgrader configuration (`CONFIG_SECTIONS`). On the worker, `worker_uid` and
`turn_without_cgroup` keep the kernels of two worker processes apart. The cohort's side
(how many workers, their preflight) is grader/cohort/cluster.py.
"""
import contextlib
import fcntl
import io
import os
import tarfile
import tempfile
from pathlib import Path

from grader.plugins.archives import member_refusal
from grader.sandbox.uids import WORKER_UID_BASE, in_use

# what the worker takes from this machine's configuration: the limits and the sandbox
CONFIG_SECTIONS = ("Execute", "GradingExecute", "SandboxedKernelManager")
# seconds beyond the notebook's own budget before a task is given up (a worker
# that starts late, or is busy with another submission, still finishes in time)
TASK_GRACE = 600
CONNECT_TIMEOUT = 10  # seconds to reach the scheduler


@contextlib.contextmanager
def turn_without_cgroup(config):
    """Run as an ordinary user where no cgroup can be made, every kernel of this user
    counts against one process limit (an rlimit per user), so the worker processes
    of this machine take turns (a lock file of this user's): a fork bomb on one
    cannot take a neighbour's processes. Elsewhere, kernels run side by side."""
    if not kernels_share_a_limit(config):
        yield
        return
    path = os.path.join(tempfile.gettempdir(), f"course-grader-{os.geteuid()}.lock")
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # and with it the lock


def kernels_share_a_limit(config):
    from grader.sandbox.kernel import SandboxedKernelManager

    manager = SandboxedKernelManager(config=config)
    if not manager.sandbox or os.geteuid() == 0:  # unsandboxed: no limits; root: a uid each
        return False
    return manager.trial_cgroup()[0] is None


def worker_uid(settings):
    """As root, this worker process's own user id for its kernels, unless the
    configuration names one: where no cgroup keeps kernels apart, the process
    limit is counted per user, and pids are unique on a machine, so two worker
    processes never share one. None when not root."""
    if os.geteuid() != 0 or "uid" in settings.get("SandboxedKernelManager", {}):
        return None
    uid = WORKER_UID_BASE + os.getpid()  # see grader/sandbox/uids.py
    if in_use(uid):
        raise RuntimeError(f"user id {uid} is in use on this worker: grader.sandbox.uids.UID_BASE "
                           "must name unused ones")
    return uid


def pack(folder):
    """The files of one submission's folder, as a tar archive in memory: only the regular
    files grader/plugins/intake.py accepts (no link, FIFO or device; sizes within its cap,
    counted before a byte is read), each read without following a link."""
    from grader.plugins.intake import open_regular, vet

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for relative in vet(folder)[0]:
            path = Path(folder, relative)
            with open_regular(path) as stream:
                info = tar.gettarinfo(arcname=relative, fileobj=stream)
                tar.addfile(info, stream)
    return buffer.getvalue()


class UnsafeArchive(tarfile.TarError):
    """An archive member that would lead out of the folder, or is not a plain file or folder."""


def unpack(archive, folder):
    """Extract a submission's archive into `folder`: absolute paths, links out of
    the folder and devices are refused (tarfile.TarError)."""
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        if hasattr(tarfile, "data_filter"):  # Python 3.11.4 and newer (3.12+)
            tar.extractall(folder, filter="data")
        else:  # 3.11.0-3.11.3 (Debian 12's): no filters, so only plain files and folders
            tar.extractall(folder, members=plain_members(tar))


def plain_members(tar):
    """The archive's members, each a plain file or folder inside the folder it is
    extracted to (grader/plugins/archives.py); anything else raises UnsafeArchive before
    anything is written."""
    members = tar.getmembers()
    for member in members:
        why = member_refusal(member.name, member.isfile() or member.isdir(), member.size)
        if why:
            raise UnsafeArchive(why)
        member.mode &= 0o755  # no set-id bits, nothing writable by others
        # owned by whoever extracts (as root, tarfile would give it the archive's owner)
        member.uid, member.gid, member.uname, member.gname = os.getuid(), os.getgid(), "", ""
    return members
