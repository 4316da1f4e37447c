"""System users for the class: made with `useradd`, each with a private home and their
Jupyter settings (interface language, nbgrader's exchange and course, the student's or the
instructor's tools); removed with `userdel --remove` by `classroom remove` (after its backup),
only those made here."""
import json
import os
import pwd
import signal
import subprocess
import time
from pathlib import Path

from course.server_settings import locale_settings


class AccountError(RuntimeError):
    """A user that cannot be made or removed."""


def exists(login):
    try:
        pwd.getpwnam(login)
        return True
    except KeyError:
        return False


def create_group(name):
    """The class's staff group (its instructors), made unless it exists."""
    if subprocess.run(["getent", "group", name], capture_output=True, check=False).returncode:
        done = subprocess.run(["groupadd", name], capture_output=True, text=True, check=False)
        if done.returncode:
            raise AccountError(f"groupadd {name} failed: {done.stderr.strip()}")


def remove_group(name):
    subprocess.run(["groupdel", name], capture_output=True, check=False)


def create(login, groups=()):
    """Make `login` with a private home (and in `groups`); refuse a name that is already taken."""
    if exists(login):
        raise AccountError(f"a user {login!r} already exists on this machine: "
                           "choose another --prefix (the classroom only removes users it made)")
    extra = ["--groups", ",".join(groups)] if groups else []
    done = subprocess.run(["useradd", "--create-home", "--user-group", "--shell", "/bin/bash", *extra, login],
                          capture_output=True, text=True, check=False)
    if done.returncode:
        raise AccountError(f"useradd {login} failed: {done.stderr.strip()}")
    home = Path(pwd.getpwnam(login).pw_dir)
    home.chmod(0o700)  # whatever the system's HOME_MODE: nobody else reads this person's work
    return home


def stop_processes(logins, grace=10):
    """Stop every process of each of `logins` (by PID), all users at once (a class's servers
    shut down side by side, not one after the other): SIGTERM, then SIGKILL to what is left
    after `grace` seconds; the logins that had processes."""
    uids = {pwd.getpwnam(login).pw_uid: login for login in logins if exists(login)}
    found = processes_of(*uids)
    deadline = time.monotonic() + grace
    signal_ = signal.SIGTERM if grace else signal.SIGKILL
    for pid in found:
        signal_to(pid, signal_)
    while processes_of(*uids) and time.monotonic() < deadline:
        time.sleep(0.2)
    for _ in range(50):
        left = processes_of(*uids)
        if not left:
            break
        for pid in left:
            signal_to(pid, signal.SIGKILL)
        time.sleep(0.2)
    return [login for uid, login in uids.items() if uid in found.values()]


def signal_to(pid, signal_):
    try:
        os.kill(pid, signal_)
    except ProcessLookupError:
        pass


def remove(login):
    """Stop every process of `login` (by PID) and delete the user with their home."""
    if not exists(login):
        return
    stop_processes([login], grace=0)
    done = subprocess.run(["userdel", "--remove", login], capture_output=True, text=True, check=False)
    if done.returncode and exists(login):
        raise AccountError(f"userdel {login} failed: {done.stderr.strip()}")


def processes_of(*uids):
    """{PID: real user id} of the processes whose real user id is one of `uids`."""
    pids = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                uid = entry.stat().st_uid
            except FileNotFoundError:
                continue
            if uid in uids:
                pids[int(entry.name)] = uid
    return pids


def write_settings(person, home, exchange, course_id, course_dir=None):
    """The person's Jupyter settings, owned by them: JupyterLab in their language without
    news from the network; an instructor's nbgrader pointed at the class's exchange and their
    course folder, with formgrader. A student's server reads its Jupyter and nbgrader settings
    from the students' environment instead (root's: classroom/student_env.py), where they
    cannot turn the course's Validate off."""
    files = {
        ".jupyter/lab/user-settings/@jupyterlab/translation-extension/plugin.jupyterlab-settings":
            json.dumps(locale_settings(person.language)),
        ".jupyter/lab/user-settings/@jupyterlab/apputils-extension/notification.jupyterlab-settings":
            json.dumps({"fetchNews": "false", "checkForUpdates": False}),
    }
    if person.role != "student":
        files[".jupyter/nbgrader_config.py"] = ("c = get_config()  # noqa: F821\n"
                                                f"c.Exchange.root = {str(exchange)!r}\n"
                                                f"c.CourseDirectory.root = {str(course_dir)!r}\n")
        # kernels the instructor starts from a terminal (nbgrader validate runs the solutions)
        # talk over sockets in their private folders, not on the machine's loopback, as their
        # server's do (classroom/hub.py)
        files[".jupyter/jupyter_config.json"] = json.dumps({"KernelManager": {"transport": "ipc"}}, indent=1)
        # JupyterHub's servers forbid every frame (frame-ancestors 'none') unless told
        # otherwise, and JupyterLab shows formgrader in a frame of the same server
        files[".jupyter/jupyter_server_config.json"] = json.dumps(
            {"ServerApp": {"tornado_settings": {"headers": {
                "Content-Security-Policy": "frame-ancestors 'self'"}}}}, indent=1)
    for relative, text in files.items():
        write_as(person.login, home / relative, text)


def write_as(login, path, text):
    """Write `path` (and its missing folders) owned by `login`."""
    user = pwd.getpwnam(login)
    home = Path(user.pw_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    for item in [path, *path.relative_to(home).parents]:
        os.chown(home / item, user.pw_uid, user.pw_gid)
