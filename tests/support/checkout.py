"""A department's checkout of the course, for the classroom's test: a copy of this one.

A class hides the checkout it runs from (`classroom start`: mode 0750, its staff group), and
every other test runs something as another user from this checkout (the grading user, a
student, a sandboxed kernel). The class runs from a copy instead, so the rest of the suite
runs beside it: the tracked files, and the Python environment at the same place inside the
copy (hard links where the file system allows), its scripts and its editable install pointed
at the copy, so that everything the class runs comes from the copy and nothing from here.
"""
import os
import shutil
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

from authoring.build import ROOT
from classroom.student_env import copy_tree


class Checkout:
    def __init__(self, root, python):
        self.root, self.python = Path(root), Path(python)


def copy_tracked_files(target):
    """This checkout's files that git tracks, copied into `target` (no environment, no caches)."""
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                             check=True).stdout.decode().split("\0")
    for name in filter(None, tracked):
        if (ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target / name)


@contextmanager
def checkout_copy():
    """A Checkout of this checkout's copy, removed at the end."""
    # beside this checkout: hard links to its environment need the same file system
    place = Path(tempfile.mkdtemp(prefix="classroom-checkout-", dir=ROOT.parent))
    try:
        root = place / ROOT.name
        copy_tracked_files(root)
        prefix = Path(sys.prefix)
        inside = prefix.relative_to(ROOT) if prefix.is_relative_to(ROOT) else Path(".venv")
        environment = root / inside
        environment.parent.mkdir(parents=True, exist_ok=True)
        copy_tree(prefix, environment)  # hard links where the file system allows (classroom/student_env.py)
        # the environment first: it lies inside the checkout
        point_at(environment, [(str(prefix), str(environment)), (str(ROOT), str(root))])
        place.chmod(0o755)  # made 0700; the copy's folders are made 0755, as a checkout's
        yield Checkout(root, environment / "bin" / Path(sys.executable).name)
    finally:
        shutil.rmtree(place, ignore_errors=True)


def point_at(environment, moves):
    """Rewrite the environment's scripts (their #! lines) and its editable install's finder
    from each old place to its new one (`moves`: (old, new) pairs, applied in order). Each
    rewritten file is a new file: a hard link shared with the original environment is left as it was."""
    site = environment / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    files = [p for p in (environment / "bin").iterdir() if p.is_file() and not p.is_symlink()]
    files += [p for p in site.glob("__editable__*") if p.is_file()]
    for path in files:
        data = path.read_bytes()
        if path.parent.name == "bin" and not data.startswith(b"#!"):
            continue
        new = data
        for old, place in moves:
            new = new.replace(old.encode(), place.encode())
        if new != data:
            mode = path.stat().st_mode
            path.unlink()
            path.write_bytes(new)
            os.chmod(path, mode)
