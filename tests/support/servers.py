"""Real servers for the tests, started in a temporary folder and stopped afterwards.

`postgresql(user)` starts Debian's PostgreSQL (the `postgresql` package puts its
programs in /usr/lib/postgresql/<version>/bin) as a throw-away cluster: its own
data folder, listening on 127.0.0.1 only, on a free port, with its unix socket
in the same temporary folder, so it touches nothing of a cluster the package
may have made. PostgreSQL refuses to run as root, so when the tests run as root
the server runs as `user` (the ordinary user the tests grade with).
"""
import os
import secrets
import shutil
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path

from classroom.hub import free_port

PROGRAMS = ("initdb", "pg_ctl", "postgres")


def postgresql_bin():
    """The newest installed PostgreSQL's program folder, or None."""
    found = [folder for folder in Path("/usr/lib/postgresql").glob("*/bin")
             if all((folder / name).exists() for name in PROGRAMS)]
    return max(found, key=lambda folder: int(folder.parent.name), default=None)


@contextmanager
def postgresql(user=None, database="gradebook"):
    """Yield the SQLAlchemy URL of `database` on a new PostgreSQL server; stop the
    server and remove its folder at the end, whatever happened.

    `user`: a pwd entry to run the server as (needed when this process is root).
    """
    programs = postgresql_bin()
    if programs is None:
        raise FileNotFoundError("no PostgreSQL in /usr/lib/postgresql/*/bin "
                                "(Debian's `postgresql` package)")
    as_user = {}
    if user is not None:
        as_user = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
    folder = Path(tempfile.mkdtemp(prefix="course-postgres-"))
    data, log = folder / "data", folder / "server.log"
    password = secrets.token_hex(16)
    (folder / "password").write_text(password)
    if user is not None:
        for item in (folder, folder / "password"):
            os.chown(item, user.pw_uid, user.pw_gid)

    def run(*command):
        # a clean environment: no PG* variable of the caller's points these programs elsewhere
        env = {"PATH": os.environ.get("PATH", os.defpath), "LC_ALL": "C.UTF-8"}
        return subprocess.run([str(programs / command[0]), *command[1:]], cwd=folder, env=env,
                              capture_output=True, text=True, check=False, timeout=120, **as_user)

    started = False
    try:
        # a password even on loopback: another local user could reach the port
        done = run("initdb", "-D", str(data), "-U", "postgres", "--auth=scram-sha-256",
                   f"--pwfile={folder / 'password'}", "--encoding=UTF8", "--locale=C")
        if done.returncode:
            raise RuntimeError(f"initdb failed:\n{done.stdout}{done.stderr}")
        port = free_port()
        with open(data / "postgresql.conf", "a") as conf:
            conf.write(f"listen_addresses = '127.0.0.1'\nport = {port}\n"
                       f"unix_socket_directories = '{folder}'\n"
                       # a throw-away cluster: durability is not worth the disk writes
                       "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n")
        started = True
        done = run("pg_ctl", "-D", str(data), "-l", str(log), "-w", "-t", "60", "start")
        if done.returncode:
            raise RuntimeError(f"PostgreSQL did not start:\n{done.stdout}{done.stderr}"
                               f"{log.read_text() if log.exists() else ''}")
        server = f"postgresql+psycopg://postgres:{password}@127.0.0.1:{port}"
        create_database(f"{server}/postgres", database)
        url = f"{server}/{database}"
        # for fault tests: stop the server (fast: connections are cut) and start it again
        CONTROL[url] = {"stop": lambda: run("pg_ctl", "-D", str(data), "-m", "fast", "-w", "stop"),
                        "start": lambda: run("pg_ctl", "-D", str(data), "-l", str(log), "-w",
                                             "-t", "60", "start")}
        yield url
    finally:
        CONTROL.pop(locals().get("url"), None)
        if started:
            run("pg_ctl", "-D", str(data), "-m", "fast", "-w", "stop")
        shutil.rmtree(folder, ignore_errors=True)


CONTROL = {}  # url -> {"stop": ..., "start": ...} of each running server


def create_database(url, name):
    """CREATE DATABASE `name` through the server `url` points at (psycopg, as nbgrader will)."""
    import psycopg
    from sqlalchemy.engine import make_url

    plain = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(plain, autocommit=True) as connection:  # CREATE DATABASE needs autocommit
        connection.execute(f'CREATE DATABASE "{name}"')


def extension_states(listing, config_dir):
    """{server extension: "enabled" or "disabled"} that `jupyter server extension list` (its
    output `listing`) gives for the configuration folder `config_dir`."""
    import re
    mine = listing[listing.index(str(config_dir)):].split("Config dir:")[0]
    print(mine)
    return dict(re.findall(r"^\s+(\S+) \x1b\[\d+m(enabled|disabled)", mine, re.MULTILINE))
