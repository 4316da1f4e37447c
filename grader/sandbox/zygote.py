"""The zygote: a process that has imported what every kernel imports, and forks kernels.

    python grader/sandbox/zygote.py SOCKET    (started by grader/sandbox/warm_start.py)

It runs as a script, with the kernel's environment, and imports nothing of the grader
and nothing a student wrote: its memory becomes every kernel's. For each connection on
SOCKET it forks a child, which alone reads the request (so the zygote never holds one
submission's data for the next), and answers with that child's pid.

The child joins the sandbox bubblewrap made for the kernel (its namespaces, through
/proc/HOLDER/ns: the placeholder process bubblewrap runs there), enters the kernel's
cgroup, forks the kernel into the sandbox's pid namespace, and waits: when the kernel
ends it kills the sandbox's init, so that the whole sandbox ends with its kernel, as a
kernel started by bubblewrap itself would. The kernel takes its limits, drops to the
kernel's user (as root) or drops every capability (in bubblewrap's user namespace),
sets no_new_privs and the seccomp filter, closes every descriptor, and runs ipykernel.
"""
import ctypes
import fcntl
import json
import os
import random
import resource
import select
import signal
import socket
import sys

import ipykernel.kernelapp  # noqa: F401  (what every kernel imports, once)
import numpy
import torch  # noqa: F401

LIBC = ctypes.CDLL(None, use_errno=True)
NAMESPACES = {"mnt": 0x00020000, "ipc": 0x08000000, "net": 0x40000000, "uts": 0x04000000,
              "pid": 0x20000000, "cgroup": 0x02000000}
CLONE_NEWUSER = 0x10000000
NS_GET_USERNS = 0xB701  # ioctl: the user namespace that owns a namespace
PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP = 24, 38, 22
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
SECCOMP_MODE_FILTER = 2
LIMITS = {"as": resource.RLIMIT_AS, "cpu": resource.RLIMIT_CPU, "fsize": resource.RLIMIT_FSIZE,
          "nproc": resource.RLIMIT_NPROC}


def check(result, what):
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")


def setns(fd, kind):
    check(LIBC.setns(fd, kind), "setns")


def join(holder, root):
    """Enter every namespace of process `holder` but the pid one's own (its children's)."""
    # every one opened first: once in the sandbox's mount namespace, /proc is the sandbox's
    fds = {name: os.open(f"/proc/{holder}/ns/{name}", os.O_RDONLY) for name in [*NAMESPACES, "user"]}
    if not root:
        # bubblewrap nests the sandbox's user namespace in the one that owns its other
        # namespaces: enter the owner (where this process, their creator's user, holds every
        # capability), then the others, then the sandbox's own
        owner = fcntl.ioctl(fds["mnt"], NS_GET_USERNS)
        setns(owner, CLONE_NEWUSER)
    for name, kind in NAMESPACES.items():
        setns(fds[name], kind)
    if not root:
        setns(fds["user"], CLONE_NEWUSER)
    for fd in fds.values():
        os.close(fd)


class SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte),
                ("k", ctypes.c_uint)]


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(SockFilter))]


def confine(request):
    """In the kernel, before any of its code: limits, user, capabilities, seccomp."""
    os.setsid()  # as bubblewrap's --new-session: no terminal to push input into
    for name, value in request["limits"].items():
        resource.setrlimit(LIMITS[name], (value, value))
    check(LIBC.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "ambient capabilities")
    with open("/proc/sys/kernel/cap_last_cap") as handle:
        last = int(handle.read())
    for capability in range(last + 1):
        check(LIBC.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0), "bounding set")
    if request["uid"] is not None:
        uid = request["uid"]
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)  # every capability goes with root
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    check(LIBC.capset(header, (ctypes.c_uint32 * 6)()), "capset")
    check(LIBC.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    if request["seccomp"] is not None:
        program = bytes.fromhex(request["seccomp"])
        filters = (SockFilter * (len(program) // 8)).from_buffer_copy(program)
        fprog = SockFprog(len(filters), filters)
        check(LIBC.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0), "seccomp")


def kernel(request, status):
    """The kernel's process, in the sandbox; never returns. Writes "ok" to `status` once
    confined, before any of the kernel's code runs."""
    code = 1
    try:
        confine(request)
        os.chdir(request["cwd"])
        os.write(status, b"ok")
        os.close(status)
        null = os.open("/dev/null", os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.closerange(3, 65536)
        # opened once the sandbox's placeholder reads it: after its copy of the submission
        alive = os.open(request["alive"], os.O_WRONLY | os.O_CLOEXEC)  # noqa: F841 (held for life)
        os.environ.clear()
        os.environ.update(request["env"])
        random.seed()  # the zygote's draws are every kernel's: draw afresh
        numpy.random.seed()
        from ipykernel.kernelapp import IPKernelApp
        sys.argv = [sys.executable, "-f", request["connection_file"], *request["arguments"]]
        IPKernelApp.launch_instance(argv=sys.argv[1:])
        code = 0
    finally:
        os._exit(code)


def child(connection, listener):
    """A forked child: read the request, join the sandbox, fork the kernel, wait for it."""
    code = 1
    try:
        listener.close()
        with connection.makefile("r") as stream:
            request = json.loads(stream.readline())
        init = os.pidfd_open(request["init"])  # the sandbox's init, whatever reuses its pid later
        for path in request["cgroup_procs"]:  # the kernel's group, before any namespace
            with open(path, "w") as procs:
                procs.write(str(os.getpid()))
        join(request["holder"], request["uid"] is not None)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the kernel waits for its own children
        reading, status = os.pipe()
        pid = os.fork()
        if pid == 0:
            connection.close()
            os.close(reading)
            kernel(request, status)
        os.close(status)
        said = os.read(reading, 2)
        os.close(reading)
        connection.sendall((f"started {pid}\n" if said == b"ok" else "failed: the kernel could not be "
                            "confined\n").encode())
        connection.close()
        os.waitpid(pid, 0)
        code = 0
    except BaseException as error:  # noqa: BLE001 (a forked child must never return)
        try:
            connection.sendall(f"failed {type(error).__name__}: {error}\n".encode())
        except OSError:
            pass
    finally:
        if "init" in locals():
            try:  # the kernel has ended: so does its sandbox, whatever it left running
                signal.pidfd_send_signal(init, signal.SIGKILL)
            except OSError:
                pass
        os._exit(code)


def main(path):
    # ends with the process that started it: a parent-death signal would come when the
    # *thread* that started it ends (a Dask worker's task thread, say), so watch the pid
    parent = os.getppid()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # its children are reaped by the kernel
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(16)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while os.getppid() == parent:
        if not select.select([listener], [], [], 1.0)[0]:
            continue
        connection, _ = listener.accept()
        if os.fork() == 0:
            child(connection, listener)
        connection.close()


if __name__ == "__main__":
    main(sys.argv[1])
