"""Each submission frozen as it is handed in: a service of the class's hub, run as root.

    python -m classroom.hand_in --state STATE      (the hub starts it; never by hand)

nbgrader's submit leaves a submission in the exchange's inbound/ owned by its student, who
could change it, or the time it claims, at any moment after. Every second this looks at
each course's inbound/. A submission folder that is complete (the course's submit has
finished: mode 750, timestamp.txt in it) and has not changed for a second, or any folder
there for LATEST seconds, is frozen:
- made root's, keeping its group (the instructor's, who reads it as before), so that its
  student can no longer add, remove, rename or change anything in it;
- each of its files replaced by a copy of root's (a file its student still holds open is
  no longer the submission's); links, hard links and other odd files are left for
  collection to refuse (grader/plugins/intake.py);
- a record written into it (grader/plugins/exchange.py's HANDED_IN): who handed it in, and
  when it last changed by the machine's clock, which no student can set; collection dates
  the submission by it.
A folder over the size cap collection takes is removed instead, and its student finds why,
in their language, in ~/ASSIGNMENT-not-handed-in.txt.
"""
import argparse
import hashlib
import json
import os
import pwd
import shutil
import stat
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from classroom.course import course_id
from classroom.processes import user_name
from course.exchange import SUBMISSION_MODE
from course.i18n import say
from course.names import LANGUAGES
from grader.plugins.exchange import HANDED_IN, TIME_FORMAT
from grader.plugins.intake import MAX_SUBMISSION_BYTES

QUIET = 1.0  # seconds a complete submission stays unchanged before it is frozen
LATEST = 30.0  # seconds after which any folder in inbound/ is frozen, complete or not
EVERY = 1.0  # seconds between two looks
MIB = 1024 ** 2


def stamp(seconds):
    return datetime.fromtimestamp(seconds, UTC).strftime(TIME_FORMAT)


def measure(folder):
    """(bytes of its regular files, by the size each claims; its latest ctime), lstat only."""
    info = os.lstat(folder)
    size, latest = 0, info.st_ctime
    for current, folders, files in os.walk(folder):
        for name in folders + files:
            try:
                entry = os.lstat(os.path.join(current, name))
            except OSError:
                continue
            latest = max(latest, entry.st_ctime)
            size += entry.st_size if stat.S_ISREG(entry.st_mode) else 0
    return size, latest


def frozen_copy(path, gid):
    """Replace the file at `path` by a copy of root's (group `gid`, mode 640); its sha256
    and the ctime of what was copied."""
    digest = hashlib.sha256()
    source = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".frozen-")
    try:
        with os.fdopen(source, "rb") as reading, os.fdopen(handle, "wb") as writing:
            while chunk := reading.read(1 << 20):
                digest.update(chunk)
                writing.write(chunk)
            copied = os.fstat(reading.fileno())  # after the last byte read: any change before it counts
            os.fchown(writing.fileno(), 0, gid)
            os.fchmod(writing.fileno(), 0o640)
        os.utime(temporary, ns=(copied.st_atime_ns, copied.st_mtime_ns))
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return digest.hexdigest(), copied.st_ctime


def freeze(folder, student_uid, changed):
    """Freeze the submission folder `folder` (see the module's docstring); its record."""
    gid = os.lstat(folder).st_gid
    os.chown(folder, 0, gid, follow_symlinks=False)  # from here on its student cannot add or remove
    os.chmod(folder, 0o750)
    files = {}
    for current, folders, names in os.walk(folder):
        for name in folders:
            path = os.path.join(current, name)
            if stat.S_ISDIR(os.lstat(path).st_mode):  # before os.walk lists it: nothing is added after
                os.chown(path, 0, gid, follow_symlinks=False)
                os.chmod(path, 0o750)
        for name in names:
            path = os.path.join(current, name)
            info = os.lstat(path)
            if name == HANDED_IN or not stat.S_ISREG(info.st_mode) or info.st_nlink > 1:
                continue
            files[os.path.relpath(path, folder)], copied = frozen_copy(path, gid)
            changed = max(changed, copied)
    record = {"student": user_name(student_uid), "uid": student_uid, "handed_in": stamp(changed),
              "frozen": stamp(time.time()), "files": files}
    target = os.path.join(folder, HANDED_IN)
    if os.path.lexists(target):
        os.unlink(target)  # the student's own file of that name, if they made one
    handle = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o640)
    os.fchown(handle, 0, gid)
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        json.dump(record, stream, indent=1)
    return record


def tell(uid, name, text):
    """Write `text` to the file `name` in the home of the user `uid`, as their own file,
    never through a link they put there."""
    user = pwd.getpwuid(uid)
    home = os.open(user.pw_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        if os.path.lexists(os.path.join(user.pw_dir, name)):
            os.unlink(name, dir_fd=home)
        handle = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=home)
        os.fchown(handle, user.pw_uid, user.pw_gid)
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
    finally:
        os.close(home)


def remove_oversized(folder, uid, lang, size):
    """Remove the submission folder `folder` (over the cap) and tell its student why."""
    shutil.rmtree(folder)
    assignment = Path(folder).name.split("+")[1] if Path(folder).name.count("+") >= 2 else Path(folder).name
    try:
        tell(uid, f"{assignment}-not-handed-in.txt", say(
            "hand_in_removed", lang, assignment=assignment, folder=Path(folder).name,
            found=-(-size // MIB), mib=MAX_SUBMISSION_BYTES // MIB))
    except (OSError, KeyError) as error:
        print(f"hand-in: could not tell {user_name(uid)} ({error})", file=sys.stderr, flush=True)


def look(inbound, lang, seen, now, cap=MAX_SUBMISSION_BYTES):
    """One look at `inbound`: freeze or remove what is due; `seen` maps each folder not yet
    frozen to when it was first seen."""
    for entry in sorted(os.scandir(inbound), key=lambda e: e.name):
        try:
            info = entry.stat(follow_symlinks=False)
            if not stat.S_ISDIR(info.st_mode) or info.st_uid == 0:
                seen.pop(entry.path, None)
                continue  # frozen already, or not a folder (collection refuses it)
            first = seen.setdefault(entry.path, now)
            size, changed = measure(entry.path)
            if size > cap:
                remove_oversized(entry.path, info.st_uid, lang, size)
                print(f"hand-in: removed {entry.name!r} ({size} bytes, over {cap})", file=sys.stderr, flush=True)
            elif (complete(entry.path, info) and now - changed >= QUIET) or now - first >= LATEST:
                record = freeze(entry.path, info.st_uid, changed)
                print(f"hand-in: froze {entry.name!r}, handed in by {record['student']} at {record['handed_in']}",
                      file=sys.stderr, flush=True)
            else:
                continue
            seen.pop(entry.path, None)
        except OSError as error:  # gone meanwhile, or odd: looked at again next time
            print(f"hand-in: {entry.name!r}: {error}", file=sys.stderr, flush=True)


def complete(folder, info):
    return stat.S_IMODE(info.st_mode) == SUBMISSION_MODE and os.path.isfile(os.path.join(folder, "timestamp.txt"))


def inbound_folders(state):
    return {lang: Path(state["exchange"]) / course_id(lang) / "inbound" for lang in LANGUAGES}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m classroom.hand_in", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--state", required=True, help="the class's state folder")
    arguments = parser.parse_args(argv)
    state = json.loads((Path(arguments.state) / "classroom.json").read_text(encoding="utf-8"))
    seen = {}
    while True:
        for lang, inbound in inbound_folders(state).items():
            if inbound.is_dir():
                look(inbound, lang, seen, time.time())
        time.sleep(EVERY)


if __name__ == "__main__":
    main()
