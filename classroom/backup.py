"""One archive of everything a class holds, written before `classroom remove` deletes it:
every home (the students' work; the instructor's course folder with source/, submitted/,
autograded/, feedback/ and gradebook.db), the exchange's courses, and the class's state
(classroom.json, the passwords, the hub's database). Links are stored as links, never
followed. Restore: `tar -xpzf ARCHIVE -C /` as root, after making the users again."""
import pwd
import shutil
import tarfile
import time
from pathlib import Path

from classroom import course
from course.names import LANGUAGES


def write(state_folder, state, target=None):
    """The archive's path; it is read back entirely before this returns."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    target = Path(target or Path(state_folder) / f"backup-{state['name']}-{stamp}.tar.gz").resolve()
    target.touch(mode=0o600, exist_ok=False)
    exchange = Path(state["exchange"])
    with tarfile.open(target, "w:gz") as archive:
        for login in state["made_users"]:
            try:
                home = Path(pwd.getpwnam(login).pw_dir)
            except KeyError:
                continue
            archive.add(home, arcname=str(home).lstrip("/"))
        for language in LANGUAGES:
            folder = exchange / course.course_id(language)
            if folder.exists():
                archive.add(folder, arcname=str(folder).lstrip("/"))
        for name in ("classroom.json", "passwords.csv", "password-hashes.json", "jupyterhub.sqlite"):
            if (Path(state_folder) / name).exists():
                archive.add(Path(state_folder) / name, arcname=str(Path(state_folder) / name).lstrip("/"))
    with tarfile.open(target, "r:gz") as archive:  # a truncated or corrupt archive fails here
        members = archive.getmembers()
    print(f"backed up {len(members)} files and folders into {target}")
    return target


def remove_tree(folder):
    shutil.rmtree(folder, ignore_errors=True)
