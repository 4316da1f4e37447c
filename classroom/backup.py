"""One archive of everything a class holds, and the class restored from it alone.

The archive (`classroom backup`, and `classroom remove` before it deletes anything): every
home (the students' work; the instructor's course folder with source/, submitted/,
autograded/, feedback/ and gradebook.db), the exchange's courses, the files the class's
users own anywhere else on the machine (found by their owner; `remove` deletes them after
the archive), and the class's state: classroom.json (its settings: the exchange, the
students' environment, the limits, the people), the passwords, the hub's database, the
extra hub configuration. Links are stored as links, never followed. `classroom restore
ARCHIVE` reads classroom.json from it, makes the users and their homes again, and extracts
it as root (owners by name, as tar does).
"""
import json
import os
import pwd
import shutil
import subprocess
import tarfile
import time
from pathlib import Path

from classroom import course
from course.names import LANGUAGES

STATE_FILES = ("classroom.json", "passwords.csv", "password-hashes.json", "jupyterhub.sqlite", "hub_config.py")
# file systems where files of the class's users may lie (not /proc, /sys, the cgroups...)
DISKS = {"ext2", "ext3", "ext4", "xfs", "btrfs", "zfs", "f2fs", "jfs", "reiserfs", "tmpfs", "overlay", "nfs", "nfs4"}


def homes(state):
    found = []
    for login in state["made_users"]:
        try:
            found.append(Path(pwd.getpwnam(login).pw_dir))
        except KeyError:
            continue
    return found


def exchange_courses(state):
    return [Path(state["exchange"]) / course.course_id(language) for language in LANGUAGES]


def mount_points():
    """One mount point of each writable disk and memory file system (where users can leave
    files): the shortest path of each device, whose walk reaches its other mount points' files."""
    points = {}
    for line in Path("/proc/self/mounts").read_text().splitlines():
        fields = line.split()
        path = fields[1].replace("\\040", " ")
        if "ro" in fields[3].split(",") or (fields[2] == "overlay" and path != "/"):
            continue  # nobody writes there; a container's layers
        try:
            device = os.stat(path).st_dev
        except OSError:
            continue
        if fields[2] in DISKS and (device not in points or len(path) < len(points[device])):
            points[device] = path
    return sorted(points.values())


def files_outside(state, skip=()):
    """Files and folders owned by the class's users that are outside their homes and the
    exchange's courses (in /tmp, /var/tmp, /dev/shm, the exchange's root...), deepest last."""
    uids = set()
    for login in state["made_users"]:
        try:
            uids.add(pwd.getpwnam(login).pw_uid)
        except KeyError:
            continue
    if not uids:
        return []
    pruned = [*homes(state), *exchange_courses(state), *map(Path, skip)]
    owned = ["("] + [part for uid in sorted(uids) for part in ("-uid", str(uid), "-o")][:-1] + [")"]
    found = set()
    for point in mount_points():
        prune = [part for path in pruned for part in ("-path", str(path), "-o")][:-1]
        command = ["find", point, "-xdev", *(["(", *prune, ")", "-prune", "-o"] if prune else []),
                   *owned, "-print0"]
        done = subprocess.run(command, capture_output=True, check=False)
        found.update(Path(p.decode()) for p in done.stdout.split(b"\0") if p)
    return sorted(found)


def write(state_folder, state, target=None, outside=()):
    """The archive's path; it is read back entirely before this returns."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    target = Path(target or Path(state_folder) / f"backup-{state['name']}-{stamp}.tar.gz").resolve()
    target.touch(mode=0o600, exist_ok=False)
    with tarfile.open(target, "w:gz") as archive:
        for home in homes(state):
            archive.add(home, arcname=str(home).lstrip("/"))
        for folder in exchange_courses(state):
            if folder.exists():
                archive.add(folder, arcname=str(folder).lstrip("/"))
        for path in outside:
            if path.is_dir() and not path.is_symlink():
                archive.add(path, arcname=str(path).lstrip("/"), recursive=False)
            elif path.exists() or path.is_symlink():
                archive.add(path, arcname=str(path).lstrip("/"))
        for name in STATE_FILES:
            if (Path(state_folder) / name).exists():
                archive.add(Path(state_folder) / name, arcname=str(Path(state_folder) / name).lstrip("/"))
    with tarfile.open(target, "r:gz") as archive:  # a truncated or corrupt archive fails here
        members = archive.getmembers()
    print(f"backed up {len(members)} files and folders into {target}")
    return target


def remove_outside(paths):
    """Delete the files and (then empty) folders `files_outside` found, deepest first."""
    for path in sorted(paths, key=lambda p: len(p.parts), reverse=True):
        try:
            if path.is_dir() and not path.is_symlink():
                path.rmdir()
            else:
                path.unlink()
        except OSError:
            pass  # a folder that still holds others' files stays


def state_in(archive):
    """(the state folder the archive was made from, its classroom.json) of `archive`."""
    with tarfile.open(archive, "r:*") as opened:
        for member in opened.getmembers():
            if member.isfile() and Path(member.name).name == "classroom.json":
                return Path("/") / Path(member.name).parent, json.load(opened.extractfile(member))
    raise ValueError(f"{archive} holds no classroom.json: it is not a class's backup")


def extract(archive):
    """Everything in `archive` back in its place, as root: owners by name, modes (sticky and
    setgid too), links as links (GNU tar, as the operations guide's own command)."""
    subprocess.run(["tar", "-xpzf", str(archive), "-C", "/"], check=True)


def remove_tree(folder):
    shutil.rmtree(folder, ignore_errors=True)
