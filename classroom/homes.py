"""Each student's home, of a bounded size: a file system of its own.

The machine's disk is shared by everyone, and a student can write gigabytes into their home
in seconds. Each student's home is an ext4 file system in an image file (IMAGES/LOGIN.ext4,
sparse: it takes only what is written), mounted as root on the home (nosuid, nodev): when
it is full, that student's writes fail with "No space left on device" and nobody else's do.
This needs loop devices (/dev/loop-control, `mount -o loop`) and mkfs.ext4 (e2fsprogs),
as any Linux has outside some containers; `start` says so where they are missing, and
`--home-mb 0` leaves homes unbounded (where a disk quota does the same: `setquota`).
Mounts do not survive a reboot: `start` mounts every image again before the hub starts.
"""
import os
import pwd
import shutil
import subprocess
from pathlib import Path


class HomeError(RuntimeError):
    """A home that cannot be bounded (the machine lacks what it needs), said plainly."""


def image(images, login):
    return Path(images) / f"{login}.ext4"


def can_bound():
    """None if this machine can make bounded homes, else what it lacks."""
    for tool in ("mkfs.ext4", "mount", "umount"):
        if shutil.which(tool) is None:
            return f"{tool} is missing (apt-get install e2fsprogs mount)"
    if not Path("/dev/loop-control").exists():
        return "this machine has no loop devices (/dev/loop-control)"
    return None


def is_mounted(path):
    return os.path.ismount(path)


def run(*command):
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode:
        raise HomeError(f"{' '.join(command)} failed: {(done.stderr or done.stdout).strip()}")


def bound(login, size_mb, images):
    """Give `login` (whose home exists, as useradd made it) a home of `size_mb` MiB: an image
    made, mounted on the home, holding what the home held (the skeleton files), theirs."""
    user = pwd.getpwnam(login)
    home, path = Path(user.pw_dir), image(images, login)
    Path(images).mkdir(mode=0o700, parents=True, exist_ok=True)
    with open(path, "xb") as handle:
        handle.truncate(size_mb * 1024 * 1024)
    path.chmod(0o600)
    run("mkfs.ext4", "-q", "-m", "0", "-E", f"root_owner={user.pw_uid}:{user.pw_gid}", str(path))
    staged = Path(images) / f".{login}-skeleton"
    shutil.copytree(home, staged, symlinks=True)
    mount(login, images)
    shutil.rmtree(home / "lost+found", ignore_errors=True)
    shutil.copytree(staged, home, symlinks=True, dirs_exist_ok=True)
    shutil.rmtree(staged)
    for item in [home, *home.rglob("*")]:
        os.chown(item, user.pw_uid, user.pw_gid, follow_symlinks=False)
    home.chmod(0o700)


def mount(login, images):
    """Mount `login`'s image on their home, unless it is mounted already."""
    home = pwd.getpwnam(login).pw_dir
    if not is_mounted(home):
        run("mount", "-o", "loop,nosuid,nodev", str(image(images, login)), home)


def unmount(login, images):
    """Unmount `login`'s home (their processes stopped first) and delete its image."""
    try:
        home = pwd.getpwnam(login).pw_dir
    except KeyError:
        home = None
    if home and is_mounted(home):
        run("umount", home)
    image(images, login).unlink(missing_ok=True)
