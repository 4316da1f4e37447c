"""Run submissions' kernels on the workers of a Dask cluster.

    python -m grader grade ASSIGNMENT --scheduler tcp://HOST:8786

nbgrader still runs here, on the instructor's machine, and does everything it
does serially: it reads the submission, restores the release's cells, writes
the gradebook and the autograded notebook. Only the step that runs student
code, the one that takes the time, is sent away (`GradingExecute.scheduler`):
one Dask task per submission, carrying

- the notebook as nbgrader will grade it (sources already restored),
- the files of that one submission's folder,
- the grading seed, and the limits from this machine's nbgrader configuration.

The worker runs the cells in its own sandbox (bubblewrap, cgroups or rlimits,
exactly as on this machine) and sends back the outputs. The verdicts are
decided here (`grader/checks/verdicts.py`), never on the worker: a worker needs the
course package and bubblewrap, and sees no gradebook, no references of other
units' answers beyond the installed package, and no other submission.
"""
import contextlib
import fcntl
import io
import os
import subprocess
import sys
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


def execute_on_cluster(step, nb, submission, seed, run):
    """What `step` (a GradingExecute) does with `nb`, done on a worker of the
    cluster at `step.scheduler`: the outputs are written into `nb`, and what
    protected the worker is returned. `run` is what a worker runs
    (grader.plugins.execute.execute_submission: passed in, so this module never imports
    the grading step that imports it)."""
    import nbformat
    from distributed import Client

    # the values as given (a command line's are strings: the worker's traits parse them)
    settings = {name: dict(step.config[name]) for name in CONFIG_SECTIONS if name in step.config}
    timeout = step.notebook_timeout + TASK_GRACE
    with Client(step.scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False) as client:
        task = client.submit(run, nbformat.writes(nb), pack(submission), seed,
                             settings, pure=False)
        executed, defences = task.result(timeout=timeout)
    executed = nbformat.reads(executed, as_version=4)
    if len(executed.cells) != len(nb.cells):
        raise RuntimeError("the worker sent back a notebook with other cells")
    # only what running the cells makes comes back: the sources and nbgrader's
    # metadata stay as nbgrader restored them here
    for cell, ran in zip(nb.cells, executed.cells):
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = ran.outputs, ran.execution_count
    if "language_info" in executed.metadata:
        nb.metadata["language_info"] = executed.metadata["language_info"]
    return defences


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


def cluster_threads(scheduler):
    """How many submissions the cluster grades at once (its workers' threads); raises
    SystemExit with a clear message when the scheduler cannot be reached."""
    from distributed import Client

    refused_at_once(scheduler)
    try:
        with Client(scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False) as client:
            return sum(client.nthreads().values())
    except OSError as error:
        raise SystemExit(f"cannot reach the Dask scheduler at {scheduler}: {error}") from None


def refused_at_once(scheduler):
    """A tcp:// address where nothing listens is said at once: Dask's client would
    try again and again for CONNECT_TIMEOUT seconds before giving up."""
    import socket
    from urllib.parse import urlsplit

    address = urlsplit(scheduler)
    if address.scheme != "tcp" or not address.hostname or not address.port:
        return
    try:
        socket.create_connection((address.hostname, address.port), timeout=CONNECT_TIMEOUT).close()
    except OSError as error:
        raise SystemExit(f"cannot reach the Dask scheduler at {scheduler}: {error}") from None


def threads_of(scheduler):
    """cluster_threads, asked from a process of its own: a Dask client leaves
    threads behind, and grader/cohort/forking.py forks the grading processes."""
    result = subprocess.run([sys.executable, "-m", "grader.cohort.cluster", scheduler],
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SystemExit(result.stderr.strip().splitlines()[-1] if result.stderr.strip()
                         else f"cannot reach the Dask scheduler at {scheduler}")
    return int(result.stdout)


def worker_preflight(settings, expected):
    """On a worker: what differs between what a kernel in its sandbox sees and what
    the instructor's grader (`expected`) has (grader/sandbox/preflight.py)."""
    from traitlets.config import Config

    from grader.sandbox.preflight import findings

    return findings(Config(settings), expected)


def preflight_workers(scheduler, settings):
    """[] when every worker's sandboxed kernel runs the course this grader judges with;
    else one line per difference, naming the worker."""
    from distributed import Client

    from grader.sandbox.preflight import grader_facts

    expected = grader_facts()
    with Client(scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False) as client:
        found = client.run(worker_preflight, settings, expected)
    return [f"worker {worker}: {line}" for worker, lines in sorted(found.items()) for line in lines]


def refuse_on_worker_mismatch(scheduler, settings):
    """preflight_workers, asked from a process of its own (see threads_of); SystemExit
    naming every difference."""
    import json
    result = subprocess.run([sys.executable, "-m", "grader.cohort.cluster", "--preflight", scheduler,
                             json.dumps(settings)], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SystemExit("refusing to grade: a Dask worker's kernel would not run the course this "
                         "grader judges with.\n  " + "\n  ".join(
                             result.stdout.strip().splitlines() or result.stderr.strip().splitlines()[-1:]))


if __name__ == "__main__":
    if sys.argv[1] == "--preflight":
        import json

        from traitlets.config.loader import DeferredConfigString
        # strings, as a command line gives them: each trait parses its own (as on a worker's task)
        settings = {section: {name: DeferredConfigString(value) if isinstance(value, str) else value
                              for name, value in values.items()}
                    for section, values in json.loads(sys.argv[3]).items()}
        lines = preflight_workers(sys.argv[2], settings)
        print("\n".join(lines))
        raise SystemExit(1 if lines else 0)
    print(cluster_threads(sys.argv[1]))
