"""A class on one machine (run as root):

    python -m classroom start ROSTER.csv [--prefix P] [--state DIR] [options]   # a new class
    python -m classroom start [--state DIR]      # resume it: after `stop`, a crash or a reboot
    python -m classroom stop [--state DIR]       # stop the hub, the proxy and every server
    python -m classroom backup [--state DIR]     # one archive of the whole class
    python -m classroom remove [--state DIR]     # back everything up, then remove the class
    python -m classroom restore ARCHIVE          # the class again, from its archive alone
    python -m classroom service [--state DIR]    # a systemd unit that starts it at boot

The first `start` makes one system user per roster row (login: PREFIX-ID) with a private
home (a student's of a bounded size: classroom/homes.py), each person's password
(STATE/passwords.csv, readable by root only), the students' environment (the handout only:
classroom/student_env.py), the exchange (default /srv/nbgrader/exchange), the instructor's
course folder, releases every assignment in its language's course, and starts JupyterHub on
IP:PORT (default 127.0.0.1 and a free port below 1024, which only root can take), printing
its URL. EXTRA.py is JupyterHub configuration read after the classroom's (another
authenticator: docs/en/classroom.md); it is copied into the state folder. `start` on a state
folder that holds a class starts its hub again and makes nothing anew. `start` refuses a
port another process holds, and names that process. `stop` keeps everything (users, homes,
exchange, course folder, gradebook, passwords). `backup` and `remove` write one archive of
the class (classroom/backup.py), `remove` before it deletes anything, and asks for the
class's name (its prefix); `restore` makes the class again from such an archive.
"""
import argparse
import csv
import grp
import json
import os
import secrets
import shutil
import sys
from pathlib import Path

from classroom import (
    accounts,
    course,
    homes,
    hub,
    kernels,
    processes,
    roster,
    student_env,
)
from classroom import backup as backups
from classroom.auth import hashed
from classroom.proxy import PortHeld
from classroom.spawner import remove_groups
from course.commands import Parser, positive
from course.names import LANGUAGES, UNITS

# the class's settings, kept in STATE/classroom.json; the defaults are measured
# (docs/en/classroom.md: a student's server with lab 01's kernel running)
SETTINGS = {"memory_mb": 2048, "cpus": 1.0, "processes": 256, "home_mb": 1024,
            "instructor_memory_mb": 8192, "instructor_cpus": 2.0, "instructor_processes": 2048,
            "cull_after": 3600, "ssl_cert": "", "ssl_key": ""}


def load(state_folder):
    path = Path(state_folder) / hub.STATE_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def save(state_folder, state):
    path = Path(state_folder) / hub.STATE_FILE
    path.write_text(json.dumps(state, indent=1), encoding="utf-8")


def chosen_settings(arguments, stored=None):
    settings = dict(SETTINGS, **(stored or {}))
    for name in SETTINGS:
        if getattr(arguments, name, None) is not None:
            settings[name] = getattr(arguments, name)
    if bool(settings["ssl_cert"]) != bool(settings["ssl_key"]):
        raise SystemExit("TLS needs both --ssl-cert and --ssl-key")
    for name in ("ssl_cert", "ssl_key"):
        if settings[name]:
            settings[name] = str(Path(settings[name]).resolve())
    return settings


def start(arguments):
    if os.geteuid() != 0:
        raise SystemExit("classroom start makes system users and switches to them: run it as root")
    state_folder = Path(arguments.state).resolve()
    state = load(state_folder)
    if state is not None:
        return resume(state_folder, state, arguments)
    if not arguments.roster:
        raise SystemExit(f"no class in {state_folder}: give the roster to start one "
                         "(python -m classroom start ROSTER.csv)")
    try:
        people = roster.read(arguments.roster, arguments.prefix)
    except (OSError, roster.RosterError) as error:
        raise SystemExit(f"roster: {error}") from None
    proxy = hub.find_proxy()
    if proxy is None:
        raise SystemExit("configurable-http-proxy is missing: npm install -g configurable-http-proxy@5.3.0")
    taken = [p.login for p in people if accounts.exists(p.login)]
    if taken:
        raise SystemExit(f"these users exist already: {', '.join(taken)}; choose another --prefix "
                         "(the classroom only removes users it made)")
    settings = chosen_settings(arguments)
    lacking = settings["home_mb"] and homes.can_bound()
    if lacking:
        raise SystemExit(f"students' homes cannot be bounded here: {lacking}. Start with --home-mb 0 to "
                         "leave them unbounded (docs/en/classroom.md)")
    port = arguments.port or hub.free_privileged_port(arguments.ip)
    held = processes.holders(port, arguments.ip)
    if held:
        raise SystemExit(f"port {port} is held by {processes.describe(held[0])}: choose another --port")
    if port >= hub.unprivileged_from():
        print(f"warning: any user may listen on port {port} while the class is stopped (ports below "
              f"{hub.unprivileged_from()} are root's); `start` then refuses it and names who holds it", flush=True)
    state_folder.mkdir(parents=True, exist_ok=True)
    state_folder.chmod(0o700)
    exchange = Path(arguments.exchange).resolve()
    units = arguments.units.split(",") if arguments.units else None
    env = Path(arguments.student_env or f"/srv/classroom/{arguments.prefix}/student-env").resolve()
    images = Path(arguments.homes or f"/srv/classroom/{arguments.prefix}/homes").resolve()
    state = {"name": arguments.prefix, "ip": arguments.ip, "port": port,
             "hub_port": hub.free_privileged_port("127.0.0.1", avoid={port}), "proxy": proxy,
             "python": sys.executable, "exchange": str(exchange), "student_env": str(env), "homes": str(images),
             "units": units, "staff_group": f"{arguments.prefix}-staff", "settings": settings,
             "people": [{"login": p.login, "language": p.language, "role": p.role} for p in people],
             "made_users": [], "checkout": checkout_access(), "steps_done": [],
             "hub_config": keep_hub_config(state_folder, arguments.hub_config)}
    save(state_folder, state)
    try:
        accounts.create_group(state["staff_group"])
        made = {}
        for person in people:
            staff = [state["staff_group"]] if person.role == "instructor" else []
            made[person.login] = accounts.create(person.login, groups=staff)
            state["made_users"].append(person.login)
            save(state_folder, state)
            if person.role == "student" and settings["home_mb"]:
                homes.bound(person.login, settings["home_mb"], images)
        passwords = {p.login: secrets.token_urlsafe(9) for p in people}
        write_passwords(state_folder, people, passwords)
        hide_checkout(state["staff_group"])
        if not env.exists():
            env.parent.mkdir(parents=True, exist_ok=True)
            print(f"making the students' environment in {env} ...", flush=True)
            student_env.build(env)
        student_env.write_nbgrader_config(env, exchange)
        kernels.write_spec(env)
        course.make_exchange(exchange)
        instructor = next(p for p in people if p.role == "instructor")
        folder = course.set_up(instructor.login, made[instructor.login], exchange)
        for person in people:
            accounts.write_settings(person, made[person.login], exchange, course.course_id(person.language),
                                    folder if person is instructor else None)
        names = course.assignments(units)
        print(f"releasing {', '.join(names)} as {instructor.login} ...", flush=True)
        course.release(instructor.login, folder, names)
        state["course_folder"] = str(folder)
        save(state_folder, state)
        hub.start(state_folder, state_folder / "hub.log")
    except BaseException:
        print("start failed: stopping what runs (nothing is removed; `python -m classroom remove "
              f"--state {state_folder}` removes it, after a backup)", file=sys.stderr)
        stop_classroom(state_folder)
        raise
    return announce(state_folder, state, "classroom running")


def keep_hub_config(state_folder, path):
    """A copy of the extra hub configuration in the state folder (so that the backup holds it)."""
    if not path:
        return None
    kept = state_folder / "hub_config.py"
    shutil.copyfile(Path(path).resolve(), kept)
    kept.chmod(0o600)
    return str(kept)


def resume(state_folder, state, arguments):
    """Start an existing class's hub again: everything else is there already."""
    if arguments.roster:
        print(f"{state_folder} holds a class already: resuming it (the roster is not read again)")
    pid = hub.running_hub(state_folder)
    if pid:
        return announce(state_folder, state, f"classroom already running (hub pid {pid})")
    missing = [login for login in state["made_users"] if not accounts.exists(login)]
    if missing:
        raise SystemExit(f"these users of the class are gone: {', '.join(missing)}; restore them "
                         "from the backup (docs/en/operations.md) before resuming")
    state["settings"] = chosen_settings(arguments, state.get("settings"))
    if state["hub_port"] >= hub.unprivileged_from():  # a class started before the hub's port was root's
        state["hub_port"] = hub.free_privileged_port("127.0.0.1", avoid={state["port"]})
    save(state_folder, state)
    hide_checkout(state["staff_group"])
    kernels.write_spec(state["student_env"])
    mount_homes(state)  # after a reboot: before any server writes into a home
    for what in hub.stop_services(hub.load_state(state_folder)):  # a killed hub's (its proxy is kept)
        print("stopped", what)
    try:
        hub.start(state_folder, state_folder / "hub.log")
    except PortHeld as held:
        raise SystemExit(f"not started: {held}") from None
    return announce(state_folder, state, "classroom running again")


def mount_homes(state):
    for person in state["people"]:
        if person["role"] == "student" and state["settings"].get("home_mb") and state.get("homes"):
            homes.mount(person["login"], state["homes"])


def announce(state_folder, state, what):
    scheme = "https" if state["settings"].get("ssl_cert") else "http"
    url = f"{scheme}://{state['ip']}:{state['port']}/"
    print(f"{what}: {url}\n"
          f"  logins and passwords: {state_folder / 'passwords.csv'} (hand each person theirs)\n"
          f"  course folder: {state.get('course_folder')}, formgrader in the Nbgrader menu\n"
          f"  exchange: {state['exchange']}; servers' logs: {state_folder / 'logs'}\n"
          f"  stop: python -m classroom stop --state {state_folder} (keeps everything)", flush=True)
    return url


def checkout_access():
    """The checkout's group and mode before the class (restored by `remove`)."""
    info = course.ROOT.stat()
    return {"gid": info.st_gid, "mode": info.st_mode & 0o7777}


def hide_checkout(staff_group):
    """The course's checkout (source/, grader/, the solutions) readable by root and the
    class's instructors only: students run from their own environment, never from it."""
    os.chown(course.ROOT, -1, grp.getgrnam(staff_group).gr_gid)
    course.ROOT.chmod(0o750)


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
    """Stop the hub, the proxy and every server of the class, and remove the servers'
    control groups; remove nothing else."""
    state_folder = Path(state_folder).resolve()
    state = load(state_folder)
    if state is None:
        raise SystemExit(f"no classroom in {state_folder} (nothing to stop)")
    for what in hub.stop(state_folder):
        print("stopped", what)
    for login in accounts.stop_processes(state["made_users"]):
        print("stopped the server of", login)
    removed = remove_groups(state["made_users"])
    if removed:
        print(f"removed the servers' {len(removed)} control groups")
    print(f"stopped; everything is kept. Start again: python -m classroom start --state {state_folder}")


def backup_classroom(state_folder, target=None):
    """One archive of the class; a running class is stopped for it, then started again."""
    state_folder = Path(state_folder).resolve()
    state = load(state_folder)
    if state is None:
        raise SystemExit(f"no classroom in {state_folder} (nothing to back up)")
    running = hub.running_hub(state_folder)
    if running:
        stop_classroom(state_folder)
    archive = backups.write(state_folder, state, target, backups.files_outside(state, skip=[state_folder]))
    print(f"backup: {archive}")
    if running:
        start(argparse.Namespace(state=str(state_folder), roster=None))
    return archive


def remove_classroom(state_folder, confirm=None, backup=None):
    state_folder = Path(state_folder).resolve()
    state = load(state_folder)
    if state is None:
        raise SystemExit(f"no classroom in {state_folder} (nothing to remove)")
    name = state["name"]
    if confirm is None:
        confirm = input(f"This removes the class {name!r}: its users and their homes, the exchange's "
                        f"courses, the course folder and the gradebook (after one backup archive).\n"
                        f"Type the class's name ({name}) to go on: ").strip()
    if confirm != name:
        raise SystemExit(f"not removed: the class's name is {name!r}")
    stop_classroom(state_folder)
    outside = backups.files_outside(state, skip=[state_folder, backup or state_folder])
    archive = backups.write(state_folder, state, backup, outside)
    print(f"backup: {archive}")
    backups.remove_outside(outside)
    if outside:
        print(f"removed {len(outside)} files of the class's users outside their homes (kept in the backup): "
              + ", ".join(map(str, outside[:10])) + (", ..." if len(outside) > 10 else ""))
    for login in state["made_users"]:
        if state.get("homes"):
            homes.unmount(login, state["homes"])
        accounts.remove(login)
        print("removed user", login, "and their home")
    exchange = Path(state["exchange"])
    for language in LANGUAGES:
        backups.remove_tree(exchange / course.course_id(language))
    accounts.remove_group(state["staff_group"])
    before = state.get("checkout")
    if before:
        os.chown(course.ROOT, -1, before["gid"])
        course.ROOT.chmod(before["mode"])
    backups.remove_tree(Path(state["student_env"]))
    for name in (hub.STATE_FILE, "passwords.csv", "password-hashes.json", "jupyterhub.sqlite",
                 "jupyterhub_cookie_secret", "jupyterhub_config.py", "hub_config.py", "hub.pid", "proxy.pid",
                 "proxy-token"):
        (state_folder / name).unlink(missing_ok=True)
    print(f"removed; the backup {archive} and the hub's log stay in {state_folder}")
    return archive


def restore_classroom(archive, state_folder=None):
    """Make the class of `archive` again: its users (the same logins and roles), bounded
    homes, staff group, students' environment and exchange, everything in the archive back
    in its place; then `start --state` resumes it."""
    if os.geteuid() != 0:
        raise SystemExit("classroom restore makes system users: run it as root")
    archive = Path(archive).resolve()
    try:
        recorded, state = backups.state_in(archive)
    except (OSError, ValueError) as error:
        raise SystemExit(f"restore: {error}") from None
    state_folder = Path(state_folder).resolve() if state_folder else recorded
    if load(state_folder) is not None:
        raise SystemExit(f"{state_folder} holds a class already: restore into a folder without one")
    taken = [login for login in state["made_users"] if accounts.exists(login)]
    if taken:
        raise SystemExit(f"these users exist already: {', '.join(taken)}; `restore` makes a removed class "
                         "again (into a class that exists: docs/en/operations.md)")
    settings = state["settings"]
    lacking = settings.get("home_mb") and homes.can_bound()
    if lacking:
        raise SystemExit(f"students' homes cannot be bounded here: {lacking}")
    state_folder.mkdir(parents=True, exist_ok=True)
    state_folder.chmod(0o700)
    accounts.create_group(state["staff_group"])
    for person in state["people"]:
        staff = [state["staff_group"]] if person["role"] == "instructor" else []
        accounts.create(person["login"], groups=staff)
        if person["role"] == "student" and settings.get("home_mb"):
            homes.bound(person["login"], settings["home_mb"], state["homes"])
        print("made user", person["login"])
    env = Path(state["student_env"])
    if not env.exists():
        env.parent.mkdir(parents=True, exist_ok=True)
        print(f"making the students' environment in {env} ...", flush=True)
        student_env.build(env)
    student_env.write_nbgrader_config(env, Path(state["exchange"]))
    kernels.write_spec(env)
    course.make_exchange(Path(state["exchange"]))
    backups.extract(archive)
    if state_folder != recorded:  # the archive's state files, into the folder asked for
        for name in backups.STATE_FILES:
            if (recorded / name).exists():
                shutil.move(recorded / name, state_folder / name)
        state = load(state_folder)
        if state.get("hub_config"):
            state["hub_config"] = str(state_folder / "hub_config.py")
    state["checkout"] = checkout_access()
    save(state_folder, state)
    hide_checkout(state["staff_group"])
    print(f"restored the class {state['name']!r} from {archive}. Start it: "
          f"python -m classroom start --state {state_folder}")
    return state_folder


def port(text):
    value = int(text)
    if not 0 <= value <= 65535:
        raise ValueError(text)
    return value


def parser():
    parser = Parser(prog="python -m classroom", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    state = "the class's state folder: its settings, passwords, hub database and logs (default: classroom-state)"
    begin = commands.add_parser("start", help="start a class from a roster, or resume the class of --state")
    begin.add_argument("roster", nargs="?", help="the roster, id,name,language,role, for a new class "
                       "(default: none, to resume the class of --state)")
    begin.add_argument("--prefix", default="class", help="login names are PREFIX-ID; the class's name (default: class)")
    begin.add_argument("--exchange", default="/srv/nbgrader/exchange",
                       help="nbgrader's exchange folder, made if missing (default: /srv/nbgrader/exchange)")
    begin.add_argument("--state", default="classroom-state", help=state)
    begin.add_argument("--student-env", default="",
                       help="where the students' environment goes (default: /srv/classroom/PREFIX/student-env)")
    begin.add_argument("--ip", default="127.0.0.1", help="the address students reach (default: 127.0.0.1)")
    begin.add_argument("--port", type=port, default=0,
                       help="the class's port (default: a free port below 1024, which only root can take)")
    begin.add_argument("--ssl-cert", help="TLS certificate, e.g. certbot's fullchain.pem (default: none, plain HTTP)")
    begin.add_argument("--ssl-key", help="its private key, certbot's privkey.pem (default: none)")
    begin.add_argument("--memory-mb", type=positive(int),
                       help=f"memory per student, in MB (default: {SETTINGS['memory_mb']})")
    begin.add_argument("--cpus", type=positive(float), help=f"CPUs per student (default: {SETTINGS['cpus']})")
    begin.add_argument("--processes", type=positive(int),
                       help=f"processes per student (default: {SETTINGS['processes']})")
    begin.add_argument("--home-mb", type=int,
                       help=f"the size of each student's home, in MB (default: {SETTINGS['home_mb']}; 0: unbounded)")
    begin.add_argument("--homes", default="",
                       help="where the students' home images go (default: /srv/classroom/PREFIX/homes)")
    begin.add_argument("--instructor-memory-mb", type=positive(int),
                       help=f"memory per instructor, in MB (default: {SETTINGS['instructor_memory_mb']})")
    begin.add_argument("--instructor-cpus", type=positive(float),
                       help=f"CPUs per instructor (default: {SETTINGS['instructor_cpus']})")
    begin.add_argument("--instructor-processes", type=positive(int),
                       help=f"processes per instructor (default: {SETTINGS['instructor_processes']})")
    begin.add_argument("--cull-after", type=positive(int),
                       help=f"seconds idle before a server is stopped (default: {SETTINGS['cull_after']})")
    begin.add_argument("--units", default="",
                       help=f"comma-separated units to release, of {', '.join(UNITS)} (default: all)")
    begin.add_argument("--hub-config", default="",
                       help="a file of JupyterHub settings read after the classroom's (default: none)")
    end = commands.add_parser("stop", help="stop the hub, the proxy and the servers; keep everything")
    end.add_argument("--state", default="classroom-state", help=state)
    save_ = commands.add_parser("backup", help="one archive of the class (stopped for it, then started again)")
    save_.add_argument("--state", default="classroom-state", help=state)
    save_.add_argument("--backup", help="the archive to write (default: STATE/backup-NAME-TIME.tar.gz)")
    remove = commands.add_parser("remove", help="back up, then remove the class's users, homes and courses")
    remove.add_argument("--state", default="classroom-state", help=state)
    remove.add_argument("--confirm", help="the class's name (default: asked for)")
    remove.add_argument("--backup", help="the archive to write (default: STATE/backup-NAME-TIME.tar.gz)")
    again = commands.add_parser("restore", help="make a removed class again from its backup archive")
    again.add_argument("archive", help="the archive `backup` or `remove` wrote")
    again.add_argument("--state", help="where the class's state goes (default: where it was)")
    unit = commands.add_parser("service", help="write a systemd unit that starts the class at boot")
    unit.add_argument("--state", default="classroom-state", help=state)
    return parser


def checked(command_line, arguments):
    """Stop with one line on an argument `start` would only find wrong after making users."""
    if arguments.command != "start":
        return arguments
    begin = command_line.command("start")
    unknown = [unit for unit in filter(None, arguments.units.split(",")) if unit not in UNITS]
    if unknown:
        begin.fail(f"--units: no unit {', '.join(unknown)} (units: {', '.join(UNITS)})")
    for option in ("roster", "ssl_cert", "ssl_key", "hub_config"):
        path = getattr(arguments, option)
        if path and not Path(path).is_file():
            name = option if option == "roster" else "--" + option.replace("_", "-")
            begin.fail(f"{name}: no file {path}")
    return arguments


def main(argv=None):
    command_line = parser()
    arguments = checked(command_line, command_line.parse_args(argv))
    if arguments.command == "start":
        start(arguments)
    elif arguments.command == "stop":
        stop_classroom(arguments.state)
    elif arguments.command == "backup":
        backup_classroom(arguments.state, arguments.backup)
    elif arguments.command == "remove":
        remove_classroom(arguments.state, arguments.confirm, arguments.backup)
    elif arguments.command == "restore":
        restore_classroom(arguments.archive, arguments.state)
    else:
        from classroom.service import write_unit
        write_unit(arguments.state)


if __name__ == "__main__":
    main()
