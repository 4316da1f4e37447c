"""Processes known by more than their PID, and who holds a TCP port.

A PID is reused: after a reboot, or simply later, a recorded PID may be anyone's process.
A process is the one recorded only if its PID, its start (clock ticks after boot, from
/proc/PID/stat), the boot (/proc/sys/kernel/random/boot_id) and its owner are all those
recorded when it started. A TCP port is held by whoever listens on it: /proc/net/tcp and
tcp6 give the socket's owner and inode, /proc/PID/fd the process holding that socket.
"""
import ipaddress
import pwd
from pathlib import Path

LISTEN = "0A"  # /proc/net/tcp's state of a listening socket


def boot_id():
    return Path("/proc/sys/kernel/random/boot_id").read_text().strip()


def identity(pid):
    """{pid, started, boot, uid} of the process `pid` now, or None if there is none."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        uid = Path(f"/proc/{pid}").stat().st_uid
    except (OSError, ValueError):
        return None
    # the command's name, in parentheses, may hold spaces: fields count from its end
    started = int(stat.rsplit(")", 1)[1].split()[19])
    return {"pid": int(pid), "started": started, "boot": boot_id(), "uid": uid}


def is_same(recorded):
    """Whether the process `recorded` (an `identity`) still runs, and is that process."""
    return bool(recorded) and identity(recorded.get("pid", 0)) == recorded


def command_line(pid):
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").replace("\0", " ").strip()
    except OSError:
        return ""


def user_name(uid):
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def _address(hexa):
    """(ip, port) of /proc/net/tcp's `0100007F:1F90` (IPv4, or IPv6 in the same layout)."""
    host, port = hexa.split(":")
    raw = bytes.fromhex(host)
    # the kernel prints each 32-bit word of the address in its own (little-endian) order
    address = ipaddress.ip_address(b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4)))
    return str(getattr(address, "ipv4_mapped", None) or address), int(port, 16)


def sockets(kind="tcp", states=None):
    """[(local (ip, port), remote (ip, port), state, uid, inode)] of /proc/net/tcp and tcp6."""
    found = []
    for table in (f"/proc/net/{kind}", f"/proc/net/{kind}6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if states is None or fields[3] in states:
                found.append((_address(fields[1]), _address(fields[2]), fields[3], int(fields[7]), int(fields[9])))
    return found


def clashes(ip, wanted):
    """Whether a listener on `ip` takes the address `wanted` (the same, or a wildcard either side)."""
    wild = {"0.0.0.0", "::"}
    return ip == wanted or ip in wild or wanted in wild


def holders(port, ip="0.0.0.0"):
    """Who listens on TCP `port` at an address that clashes with `ip`: [{pid, uid, user,
    command}] (pid None where no process was found holding the socket)."""
    listening = {inode: uid for (host, p), _, _, uid, inode in sockets(states={LISTEN})
                 if p == port and clashes(host, ip)}
    owners = processes_holding(listening)
    return [{"pid": owners.get(inode), "uid": uid, "user": user_name(uid),
             "command": command_line(owners[inode]) if inode in owners else ""}
            for inode, uid in listening.items()]


def processes_holding(inodes):
    """{socket inode: PID of a process holding it} for the inodes in `inodes`."""
    wanted = {f"socket:[{inode}]": inode for inode in inodes}
    found = {}
    if not wanted:
        return found
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            for fd in (entry / "fd").iterdir():
                target = wanted.get(str(fd.readlink()))
                if target is not None:
                    found.setdefault(target, int(entry.name))
        except OSError:
            continue
    return found


def describe(holder):
    """`holder` (of `holders`) in words, for a person to act on."""
    who = f"{holder['user']} (uid {holder['uid']})"
    if holder["pid"] is None:
        return f"{who}, a process this command cannot see"
    return f"{who}, pid {holder['pid']}: {' '.join(holder['command'].split())[:120]}"


def peer_uid(peer, server):
    """The owner of the TCP connection whose local end is `peer` (ip, port) and remote end
    `server` (ip, port): who opened a connection to this server, or None."""
    for local, remote, _, uid, _ in sockets():
        if local == peer and remote == server:
            return uid
    return None
