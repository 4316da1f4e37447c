"""A class on one machine (run as root):

    python -m classroom start ROSTER.csv [--prefix P] [--exchange DIR] [--state DIR]
                                         [--ip IP] [--port N] [--units theory03,lab01,lab03]
                                         [--hub-config EXTRA.py]
    python -m classroom stop [--state DIR]

`start` makes one system user per roster row (login: PREFIX-ID), each person's password
(STATE/passwords.csv, readable by root only), the exchange (default /srv/nbgrader/exchange),
the instructor's course folder, releases every assignment in its language's course, and starts
JupyterHub on IP:PORT (default 127.0.0.1 and a free port), printing its URL. EXTRA.py is
JupyterHub configuration read after the classroom's (TLS, another authenticator: docs/en/classroom.md).
`stop` stops the hub, the proxy and every server by PID, and removes the users `start` made
with their homes, and the exchange's course folders (a demo: keep nothing you need there).
"""
import argparse
import csv
import json
import os
import secrets
import shutil
import sys
from pathlib import Path

from classroom import accounts, course, hub, roster
from classroom.auth import hashed
from course.names import LANGUAGES


def save(state_folder, state):
    path = Path(state_folder) / hub.STATE_FILE
    path.write_text(json.dumps(state, indent=1), encoding="utf-8")


def start(arguments):
    if os.geteuid() != 0:
        raise SystemExit("classroom start makes system users and switches to them: run it as root")
    try:
        people = roster.read(arguments.roster, arguments.prefix)
    except (OSError, roster.RosterError) as error:
        raise SystemExit(f"roster: {error}") from None
    proxy = hub.find_proxy()
    if proxy is None:
        raise SystemExit("configurable-http-proxy is missing: npm install -g configurable-http-proxy@5.3.0")
    state_folder = Path(arguments.state).resolve()
    if (state_folder / hub.STATE_FILE).exists():
        raise SystemExit(f"{state_folder} holds a classroom already: `python -m classroom stop "
                         f"--state {state_folder}` first")
    taken = [p.login for p in people if accounts.exists(p.login)]
    if taken:
        raise SystemExit(f"these users exist already: {', '.join(taken)}; choose another --prefix "
                         "(the classroom only removes users it made)")
    warn_if_readable()
    state_folder.mkdir(parents=True, exist_ok=True)
    state_folder.chmod(0o700)
    exchange = Path(arguments.exchange).resolve()
    units = arguments.units.split(",") if arguments.units else None
    state = {"ip": arguments.ip, "port": arguments.port or hub.free_port(), "hub_port": hub.free_port(),
             "proxy_api_port": hub.free_port(), "proxy": proxy, "python": sys.executable,
             "exchange": str(exchange), "exchange_made": not exchange.exists(),
             "people": [{"login": p.login, "language": p.language, "role": p.role} for p in people],
             "made_users": [], "hub_pid": None,
             "hub_config": str(Path(arguments.hub_config).resolve()) if arguments.hub_config else None}
    save(state_folder, state)
    try:
        homes = {}
        for person in people:
            homes[person.login] = accounts.create(person.login)
            state["made_users"].append(person.login)
            save(state_folder, state)
        passwords = {p.login: secrets.token_urlsafe(9) for p in people}
        write_passwords(state_folder, people, passwords)
        course.make_exchange(exchange)
        instructor = next(p for p in people if p.role == "instructor")
        folder = course.set_up(instructor.login, homes[instructor.login], exchange)
        for person in people:
            accounts.write_settings(person, homes[person.login], exchange, course.course_id(person.language),
                                    folder if person is instructor else None)
        names = course.assignments(units)
        print(f"releasing {', '.join(names)} as {instructor.login} ...", flush=True)
        course.release(instructor.login, folder, names)
        state["hub_pid"] = hub.start(state_folder, state_folder / "hub.log")
        save(state_folder, state)
    except BaseException:
        print("start failed: undoing what it made", file=sys.stderr)
        stop_classroom(state_folder)
        raise
    url = f"http://{state['ip']}:{state['port']}/"
    print(f"classroom running: {url}\n"
          f"  logins and passwords: {state_folder / 'passwords.csv'} (hand each person theirs)\n"
          f"  instructor {instructor.login}: course folder {folder}, formgrader in the Nbgrader menu\n"
          f"  exchange: {exchange}\n"
          f"  stop: python -m classroom stop --state {state_folder}")
    return url


def warn_if_readable():
    """Students run the course's Python from this checkout; if every account can read it,
    they can read source/ (the solutions) and grader/ (the references) too."""
    if any((course.ROOT / name).stat().st_mode & 0o004 for name in ("source", "grader")):
        print(f"warning: {course.ROOT} is readable by every account on this machine, so students can "
              "read source/ (the solutions) and grader/ (the references): fine for a demo; for a "
              "class, install the course where only root and instructors read it, or give students "
              "the handout image (deploy/Dockerfile)", file=sys.stderr)


def write_passwords(state_folder, people, passwords):
    """passwords.csv for the instructor to hand out (root only); the hub gets only hashes."""
    listing = state_folder / "passwords.csv"
    listing.touch(mode=0o600)
    with open(listing, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "name", "language", "role", "login", "password"])
        for p in people:
            writer.writerow([p.id, p.name, p.language, p.role, p.login, passwords[p.login]])
    hashes = state_folder / "password-hashes.json"
    hashes.touch(mode=0o600)
    hashes.write_text(json.dumps({login: hashed(word) for login, word in passwords.items()}))


def stop_classroom(state_folder):
    state_folder = Path(state_folder).resolve()
    path = state_folder / hub.STATE_FILE
    if not path.exists():
        raise SystemExit(f"no classroom in {state_folder} (nothing to stop)")
    state = json.loads(path.read_text(encoding="utf-8"))
    for what in hub.stop(state_folder):
        print("stopped", what)
    for login in state["made_users"]:
        accounts.remove(login)
        print("removed user", login, "and their home")
    exchange = Path(state["exchange"])
    for language in LANGUAGES:
        shutil.rmtree(exchange / course.course_id(language), ignore_errors=True)
    if state.get("exchange_made"):
        shutil.rmtree(exchange, ignore_errors=True)
    for name in (hub.STATE_FILE, "passwords.csv", "password-hashes.json", "jupyterhub.sqlite",
                 "jupyterhub_cookie_secret", "jupyterhub_config.py", "hub.pid", "proxy.pid"):
        (state_folder / name).unlink(missing_ok=True)
    print(f"stopped; the hub's log stays in {state_folder / 'hub.log'}")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m classroom", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    begin = commands.add_parser("start", help="start the class from a roster")
    begin.add_argument("roster")
    begin.add_argument("--prefix", default="class", help="login names are PREFIX-ID (default: class)")
    begin.add_argument("--exchange", default="/srv/nbgrader/exchange")
    begin.add_argument("--state", default="classroom-state")
    begin.add_argument("--ip", default="127.0.0.1")
    begin.add_argument("--port", type=int, default=0, help="default: a free port")
    begin.add_argument("--units", default="", help="comma-separated units (default: all)")
    begin.add_argument("--hub-config", default="", help="JupyterHub settings read after the classroom's")
    end = commands.add_parser("stop", help="stop the class and remove the users it made")
    end.add_argument("--state", default="classroom-state")
    arguments = parser.parse_args(argv)
    if arguments.command == "start":
        start(arguments)
    else:
        stop_classroom(arguments.state)


main()
