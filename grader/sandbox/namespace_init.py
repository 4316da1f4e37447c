"""Know when every process of a killed sandbox is gone.

bubblewrap, started with --unshare-pid, has exactly one child: the first process of
the sandbox's pid namespace, its init. When an init dies, Linux kills every other
process of its namespace and finishes the init's own exit only once each of them
has been reaped. So an init that is gone (or a zombie) means that nothing of the
sandbox runs any more, and nothing of it still counts against a per-user process
limit (the kernel's rlimit where no cgroup counts processes).
"""
import os
import time


def _stat(pid):
    """(state, parent pid, start time) of process `pid`, or None when there is none."""
    try:
        with open(f"/proc/{pid}/stat") as file:
            text = file.read()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()  # the name, in brackets, may hold spaces
    return fields[0], int(fields[1]), fields[19]


class NamespaceInit:
    """The init of one sandbox's pid namespace, told apart from a later process that
    reuses its pid by its start time."""

    def __init__(self, pid, started):
        self.pid = pid
        self.started = started

    @classmethod
    def child_of(cls, bwrap_pid):
        """The init of the namespace the bubblewrap process `bwrap_pid` made, or None
        (bubblewrap has not made it yet, or has ended)."""
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                found = _stat(entry.name)
                if found is not None and found[1] == bwrap_pid:
                    return cls(int(entry.name), found[2])
        return None

    def is_gone(self):
        found = _stat(self.pid)
        return found is None or found[2] != self.started or found[0] in ("Z", "X")

    def wait_gone(self, timeout):
        """Wait until the namespace holds no process, at most `timeout` seconds; whether it did."""
        deadline = time.monotonic() + timeout
        while not self.is_gone():
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)
        return True
