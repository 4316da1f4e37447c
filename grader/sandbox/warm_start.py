"""Graded kernels started warm: forked from a process that has already imported them.

A new kernel is a new Python that imports ipykernel, numpy and torch again: about 1.4 of
the 1.9 seconds before its first cell answers, paid by every submission. Instead, one
process per grader, the zygote (`grader/sandbox/zygote.py`: started clean, with a kernel's
environment, importing nothing of the grader's and running nothing a student wrote),
imports them once and forks each kernel. bubblewrap still makes the whole sandbox, as for
a cold kernel: its namespaces, mounts, the copy of the submission, with a placeholder
process (`cat` on a pipe) where the kernel would run; the zygote's child joins that
sandbox, takes the kernel's cgroup, limits and user, drops every capability, sets
no_new_privs and the seccomp filter, and becomes the kernel (`SandboxedKernelManager`).

The zygote listens on a socket in a folder only the grader's user can enter
(`course-zygote-<pid>-...`), ends with the process that started it, and is shared by the
processes that one starts (`python -m grader grade` starts it before it forks its grading
processes; its path is in their environment, ZYGOTE_VARIABLE). Where it cannot start, or
a request fails, this process's kernels start cold from then on, as without it.
"""
import atexit
import json
import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

PREFIX = "course-zygote-"  # then the pid of the process that started it (cgroups.maker_is_gone)
ZYGOTE_VARIABLE = "COURSE_ZYGOTE"  # a running zygote's socket, for processes this one starts
SCRIPT = Path(__file__).with_name("zygote.py")
START_SECONDS = 120  # the longest a zygote may take to import what it imports
_started = []  # this process's zygote: [socket path], or [None] when none could start
_starting = threading.Lock()  # a Dask worker's threads may start kernels side by side


class WarmStartFailed(RuntimeError):
    pass


def zygote(environment):
    """The socket of this grader's zygote, started on first use with `environment`; None
    when none can be (kernels then start cold)."""
    with _starting:
        return _zygote(environment)


def _zygote(environment):
    if _started:
        return _started[0]
    inherited = os.environ.get(ZYGOTE_VARIABLE, "")
    if inherited and _mine(Path(inherited).parent):
        _started.append(inherited)
        return inherited
    folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))  # 0700: the grader's alone
    atexit.register(shutil.rmtree, folder, True)
    path = str(folder / "socket")
    try:
        environment = {**environment, "HOME": str(folder), "MPLCONFIGDIR": str(folder)}  # not the host's /tmp
        process = subprocess.Popen([sys.executable, str(SCRIPT), path], env=environment, cwd=folder,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL)
    except OSError:
        _started.append(None)
        return None
    atexit.register(process.kill)
    ready, _, _ = select.select([process.stdout], [], [], START_SECONDS)
    if not ready or process.stdout.readline().strip() != b"ready":
        process.kill()
        _started.append(None)
        return None
    process.stdout.close()
    os.environ[ZYGOTE_VARIABLE] = path
    _started.append(path)
    return path


def _mine(folder):
    try:
        return folder.name.startswith(PREFIX) and folder.is_dir() and folder.stat().st_uid == os.geteuid()
    except OSError:
        return False


def give_up(why):
    """A request failed: this process's later kernels start cold."""
    _started[:] = [None]
    os.environ.pop(ZYGOTE_VARIABLE, None)
    return WarmStartFailed(why)


def start(path, request, timeout=60):
    """Ask the zygote at `path` for a kernel in the sandbox `request` names; the kernel's
    pid (as the grader sees it). Raises WarmStartFailed, and gives warm starts up."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(timeout)
            connection.connect(path)
            connection.sendall(json.dumps(request).encode() + b"\n")
            with connection.makefile("r") as answers:
                answer = answers.readline().strip()
    except OSError as error:
        raise give_up(f"the zygote did not answer: {error}") from error
    if not answer.startswith("started "):
        raise give_up(f"the zygote could not start the kernel: {answer or 'no answer'}")
    return int(answer.split()[1])


def zygote_pid(path):
    """The pid of the zygote listening at socket `path` (its command line names it), or None."""
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and path in (entry / "cmdline").read_text():
                return int(entry.name)
        except OSError:
            continue
    return None


def children(pid):
    try:
        return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def placeholder(bwrap_pid):
    """(the sandbox's init, the placeholder) of the sandbox bubblewrap process `bwrap_pid`
    made, once the placeholder runs (after the copy of the submission); None before."""
    for init in children(bwrap_pid):
        for holder in children(init):
            try:
                if Path(f"/proc/{holder}/comm").read_text().strip() == "cat":
                    return init, holder
            except OSError:
                continue
    return None
