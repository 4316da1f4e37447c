"""The classroom's parts that need no hub: login throttling and the address a login comes
from, log rotation, the systemd unit, the control groups (on stand-in cgroup trees), a
process known by more than its PID, the class's kernel, a submission frozen as it is handed
in (as root). The class itself: tests/test_classroom.py."""
import asyncio
import errno
import json
import logging
import os
import shutil
import signal
import socket
import stat
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("jupyterhub", reason="jupyterhub is not installed (pip install -r requirements.txt)")

from jupyterhub.spawner import LocalProcessSpawner

from classroom import hand_in, kernels, processes
from classroom.auth import FREE_TRIES, LONGEST_WAIT, Throttle, client_address
from classroom.service import unit_text
from classroom.spawner import ClassroomSpawner, remove_groups, rotate


def test_wrong_passwords_wait_longer_each_time_and_a_right_one_clears_them():
    now = [0.0]
    throttle = Throttle(clock=lambda: now[0])
    for _ in range(FREE_TRIES):
        assert throttle.wait("ana") == 0
        throttle.failed("ana")
    assert throttle.wait("ana") == 2  # the sixth try waits
    throttle.failed("ana")
    assert throttle.wait("ana") == 4
    assert throttle.wait("bob") == 0  # others are not held up
    for _ in range(20):
        throttle.failed("ana")
    assert throttle.wait("ana") == LONGEST_WAIT
    now[0] += LONGEST_WAIT
    assert throttle.wait("ana") == 0
    throttle.succeeded("ana")
    throttle.failed("ana")
    assert throttle.wait("ana") == 0


def test_a_server_log_is_rotated_when_it_is_too_big(tmp_path):
    log = tmp_path / "ana.log"
    for n in range(5):  # as at each start: rotate, then the server writes
        rotate(log, keep=3, size=10)
        log.write_text(f"run {n}\n" * 10)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ana.log", "ana.log.1", "ana.log.2", "ana.log.3"]
    assert (tmp_path / "ana.log.1").read_text().startswith("run 3")
    small = tmp_path / "bob.log"
    small.write_text("x")
    rotate(small, size=10)
    assert small.read_text() == "x"


def test_the_unit_starts_and_stops_the_class_and_keeps_servers_on_a_hub_restart(tmp_path):
    unit = unit_text(tmp_path, "maths", python="/opt/course/.venv/bin/python")
    assert f"ExecStart=/opt/course/.venv/bin/python -m classroom start --state {tmp_path}" in unit
    assert f"ExecStop=/opt/course/.venv/bin/python -m classroom stop --state {tmp_path}" in unit
    assert f"PIDFile={tmp_path}/hub.pid" in unit and "KillMode=process" in unit
    assert "Delegate=memory pids cpu" in unit  # each student's cgroup v2 group is made under the unit's

OLD_STATE = {  # a classroom.json as `start` wrote it before the state had a version
    "name": "maths", "ip": "127.0.0.1", "port": 812, "hub_port": 790, "proxy": "/usr/bin/configurable-http-proxy",
    "python": "/opt/course/.venv/bin/python", "exchange": "/srv/nbgrader/exchange",
    "student_env": "/srv/classroom/maths/student-env", "homes": "/srv/classroom/maths/homes", "units": None,
    "staff_group": "maths-staff",
    "settings": {"memory_mb": 1024, "cpus": 1.0, "processes": 256, "home_mb": 0, "instructor_memory_mb": 8192,
                 "instructor_cpus": 2.0, "instructor_processes": 2048, "cull_after": 3600, "ssl_cert": "",
                 "ssl_key": ""},
    "people": [{"login": "maths-t1", "language": "es", "role": "instructor"},
               {"login": "maths-ana", "language": "es", "role": "student"}],
    "made_users": ["maths-t1", "maths-ana"], "checkout": {"gid": 0, "mode": 493}, "steps_done": [],
    "hub_config": None, "course_folder": "/home/maths-t1/autograd-by-hand"}


def test_a_class_state_written_before_its_version_is_read_and_kept(tmp_path):
    from classroom.state import STATE_FILE, VERSION, ClassState
    (tmp_path / STATE_FILE).write_text(json.dumps(OLD_STATE))
    state = ClassState.load(tmp_path)
    assert state.settings.memory_mb == 1024 and state.settings.home_mb == 0
    assert [p.login for p in state.students] == ["maths-ana"] and state.instructors[0].language == "es"
    state.save(tmp_path)
    written = json.loads((tmp_path / STATE_FILE).read_text())
    print("written again:", sorted(written))
    assert written["version"] == VERSION and "steps_done" not in written
    assert {k: v for k, v in written.items() if k != "version"} == {
        k: v for k, v in OLD_STATE.items() if k != "steps_done"}
    assert ClassState.load(tmp_path) == state
    (tmp_path / STATE_FILE).write_text(json.dumps({**OLD_STATE, "version": VERSION + 1}))
    with pytest.raises(ValueError, match="version"):
        ClassState.load(tmp_path)  # a later classroom's file: refused, never half read


def test_the_hub_is_configured_from_the_class_state(tmp_path):
    """The hub's configuration (classroom/hub.py) reads every setting it needs from the state."""
    from traitlets.config import Config

    from classroom import hub
    (tmp_path / "classroom.json").write_text(json.dumps(OLD_STATE))
    c = Config()
    hub.configure(c, tmp_path)
    assert (c.JupyterHub.ip, c.JupyterHub.port, c.JupyterHub.hub_port) == ("127.0.0.1", 812, 790)
    assert c.Authenticator.admin_users == {"maths-t1"} and c.ClassroomSpawner.students == {"maths-ana": "es"}
    assert (c.ClassroomSpawner.memory_mb, c.ClassroomSpawner.max_processes, c.ClassroomSpawner.cpus) == (1024, 256, 1.0)
    assert "--timeout=3600" in c.JupyterHub.services[0]["command"]
    assert c.ClassroomSpawner.shared_paths == {"/srv/nbgrader/exchange": "rw", "/srv/classroom/maths/student-env": "ro"}


def test_a_failed_start_undoes_its_steps_last_first(tmp_path, capsys):
    from classroom.__main__ import STATE_FILES_MADE, NewClass, run_steps
    done = []

    def step(name, fails=False):
        def run(new):
            if fails:
                raise SystemExit(f"{name} failed")
            done.append(name)
            return lambda: done.append(f"undo {name}")
        run.__name__ = name
        return run
    for name in STATE_FILES_MADE:
        (tmp_path / name).write_text("x")
    (tmp_path / "hub.log").write_text("kept")
    new = NewClass(tmp_path, state=None, people=[])
    with pytest.raises(SystemExit, match="check failed"):
        run_steps(new, [step("users"), step("hub"), step("check", fails=True), step("never")])
    print(capsys.readouterr().err)
    assert done == ["users", "hub", "undo hub", "undo users"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hub.log"]  # `start ROSTER` can run again


def test_a_user_that_cannot_be_made_takes_back_those_made_before_it(tmp_path, monkeypatch):
    from classroom import __main__ as classroom_main
    from classroom import accounts
    from classroom.state import ClassState
    done = []
    monkeypatch.setattr(accounts, "create_group", lambda name: done.append(f"group {name}"))
    monkeypatch.setattr(accounts, "remove_group", lambda name: done.append(f"no group {name}"))
    monkeypatch.setattr(accounts, "stop_processes", lambda logins: [])
    monkeypatch.setattr(accounts, "remove", lambda login: done.append(f"no {login}"))

    def create(login, groups=()):
        if login == "maths-bob":
            raise accounts.AccountError("useradd maths-bob failed")
        done.append(login)
        return tmp_path / login
    monkeypatch.setattr(accounts, "create", create)
    state = ClassState.from_json({**OLD_STATE, "made_users": []})
    people = [SimpleNamespace(login=login, role=role) for login, role in
              (("maths-t1", "instructor"), ("maths-ana", "student"), ("maths-bob", "student"))]
    with pytest.raises(accounts.AccountError):
        classroom_main.make_accounts(classroom_main.NewClass(tmp_path, state, people))
    print(done)
    assert done == ["group maths-staff", "maths-t1", "maths-ana", "no maths-ana", "no maths-t1", "no group maths-staff"]


def test_start_ends_by_checking_the_students_environment(monkeypatch):
    """An environment whose packages came through a .pth file has no JupyterHub: every student's
    server failed at spawn while `start` said the class was running. `start`'s last step says so."""
    from classroom import __main__ as classroom_main
    from classroom import student_env
    from classroom.state import Person
    assert classroom_main.START_STEPS[-1] is classroom_main.check_students_environment
    asked = []
    monkeypatch.setattr(student_env, "check", lambda env, login: asked.append((env, login)) or [
        f"jupyterhub-singleuser: {env}/bin/jupyterhub-singleuser is missing"])
    new = SimpleNamespace(state=SimpleNamespace(student_env="/srv/env"),
                          people=[Person("t1", "en", "instructor"), Person("ana", "es", "student")])
    with pytest.raises(SystemExit) as refused:
        classroom_main.check_students_environment(new)
    print(refused.value)
    assert asked == [("/srv/env", "ana")]  # as a student of the class
    assert "jupyterhub-singleuser" in str(refused.value) and "error at spawn" in str(refused.value)


@pytest.mark.slow
def test_the_environment_check_runs_a_server_a_kernel_and_nbgrader(tmp_path):
    """student_env.check on an environment of this Python's packages (links to them): all runs;
    without jupyterhub-singleuser, that alone is named."""
    import sys
    import sysconfig

    from classroom import student_env
    if not (Path(sys.prefix) / "pyvenv.cfg").exists():
        pytest.skip("made of a virtual environment's packages: run it in one (the README's .venv)")
    env = tmp_path / "env"
    (env / "bin").mkdir(parents=True)
    shutil.copy(Path(sys.prefix) / "pyvenv.cfg", env)
    (env / "lib").symlink_to(Path(sys.prefix) / "lib")
    here = Path(sysconfig.get_paths()["scripts"])
    for name in (student_env.VERSION, "python", "jupyterhub-singleuser", "nbgrader"):
        (env / "bin" / name).symlink_to(here / name)
    kernels.write_spec(env)
    assert student_env.check(env) == []
    (env / "bin" / "jupyterhub-singleuser").unlink()
    problems = student_env.check(env)
    print(problems)
    assert len(problems) == 1 and problems[0].startswith("jupyterhub-singleuser: ")


def cgroupfs_rmdir(folder):
    """rmdir as on a cgroup file system: a group is removed with its files unless a process is in it."""
    procs = folder / "cgroup.procs"
    if procs.exists() and procs.read_text().split():
        raise OSError(errno.EBUSY, "busy", str(folder))
    shutil.rmtree(folder)


def files_in(folder):
    return {path.name: path.read_text() for path in sorted(folder.iterdir()) if path.is_file()}


def a_spawner(root, login="class-ana"):
    return ClassroomSpawner(user=SimpleNamespace(name=login), students={login: "en"}, memory_mb=1024,
                            max_processes=64, cpus=1.5, cgroup_root=str(root))


def fake_v2(root, own, delegated="cpu memory pids"):
    """A cgroup2 tree as the kernel shows it, the hub in `own` (with the proxy beside it)."""
    (root / "cgroup.controllers").write_text("cpuset cpu io memory hugetlb pids rdma misc")
    base = root / own
    base.mkdir(parents=True)
    (base / "cgroup.controllers").write_text(delegated)
    (base / "cgroup.subtree_control").write_text("")
    (base / "cgroup.procs").write_text("4242\n4250\n")
    return base


def test_on_cgroup_v2_a_student_server_gets_a_group_of_root_with_its_limits(tmp_path, monkeypatch):
    monkeypatch.setattr("grader.sandbox.cgroups.own_path", lambda controller: "/system.slice/classroom-x.service")
    base = fake_v2(tmp_path, "system.slice/classroom-x.service")
    group = base / "classroom-class-ana"
    group.mkdir()  # with the files the kernel makes with a group (cgroup.procs is one)
    for name, value in {"cgroup.procs": "", "memory.max": "max", "memory.swap.max": "max",
                        "pids.max": "max", "cpu.max": "max 100000"}.items():
        (group / name).write_text(value)
    spawner = a_spawner(tmp_path)
    assert spawner.control_group() == [group / "cgroup.procs"]
    assert files_in(group) == {"cgroup.procs": "", "cpu.max": "150000 100000", "memory.max": str(1024 << 20),
                               "memory.swap.max": "0", "pids.max": "64"}
    # v2's rule (no process in a group that hands controllers to its children): the hub
    # moved into a leaf of its own first; the fake file keeps the last pid written
    assert (base / "classroom.hub" / "cgroup.procs").read_text() == "4250"
    assert (base / "cgroup.subtree_control").read_text() == "+memory +pids +cpu"
    assert sorted(p.name for p in base.iterdir() if p.is_dir()) == ["classroom-class-ana", "classroom.hub"]

    # the hub lives in its leaf now: the next student's group goes beside it, nothing moves again
    monkeypatch.setattr("grader.sandbox.cgroups.own_path",
                        lambda controller: "/system.slice/classroom-x.service/classroom.hub")
    (base / "cgroup.procs").write_text("")
    (base / "cgroup.subtree_control").write_text("cpu memory pids")  # as the kernel shows it
    (base / "classroom.hub" / "cgroup.controllers").write_text("cpu memory pids")
    (base / "classroom.hub" / "cgroup.subtree_control").write_text("")
    bob = a_spawner(tmp_path, "class-bob")
    assert bob.control_group() == [base / "classroom-class-bob" / "cgroup.procs"]
    assert files_in(base / "classroom-class-bob")["cpu.max"] == "150000 100000"
    assert (base / "classroom.hub" / "cgroup.procs").read_text() == "4250"

    # removed when the server stops (the parent's stop, which ends the server, left out)
    monkeypatch.setattr(LocalProcessSpawner, "stop", lambda self, now=False: asyncio.sleep(0))
    monkeypatch.setattr(Path, "rmdir", cgroupfs_rmdir)
    asyncio.run(spawner.stop())
    assert not group.exists() and (base / "classroom-class-bob").is_dir() and (base / "classroom.hub").is_dir()


def test_on_cgroup_v2_without_the_controllers_delegated_the_hub_says_why_and_uses_rlimits(
        tmp_path, monkeypatch, caplog):
    monkeypatch.setattr("grader.sandbox.cgroups.own_path", lambda controller: "/user.slice/session-3.scope")
    base = fake_v2(tmp_path, "user.slice/session-3.scope", delegated="memory pids")
    spawner = a_spawner(tmp_path)
    with caplog.at_level(logging.WARNING):
        assert spawner.control_group() == []
    assert f"no control group for class-ana (cgroup v2: [Errno 2] cpu not delegated to {base}): rlimits only" \
        in caplog.text, caplog.text
    assert files_in(base) == {"cgroup.controllers": "memory pids", "cgroup.procs": "4242\n4250\n",
                              "cgroup.subtree_control": ""}  # nothing moved, nothing enabled
    assert not [p for p in base.iterdir() if p.is_dir()]
    with caplog.at_level(logging.WARNING):
        assert a_spawner(tmp_path / "nothing").control_group() == []
    assert f"no cgroup v1 or v2 hierarchy at {tmp_path / 'nothing'}" in caplog.text


def test_on_cgroup_v1_a_student_server_gets_memory_pids_and_cpu_groups(tmp_path, monkeypatch):
    monkeypatch.setattr("grader.sandbox.cgroups.own_path", lambda controller: f"/{controller}-hub")
    for controller in ("memory", "pids", "cpu"):
        (tmp_path / controller / f"{controller}-hub").mkdir(parents=True)
        (tmp_path / controller / "cgroup.procs").write_text("1\n")
    memory = tmp_path / "memory" / "memory-hub" / "classroom-class-ana"
    memory.mkdir()
    (memory / "memory.memsw.limit_in_bytes").write_text("9223372036854771712")  # where swap is counted
    spawner = a_spawner(tmp_path)
    folders = [tmp_path / c / f"{c}-hub" / "classroom-class-ana" for c in ("memory", "pids", "cpu")]
    assert spawner.control_group() == [folder / "cgroup.procs" for folder in folders]
    assert [files_in(folder) for folder in folders] == [
        {"memory.limit_in_bytes": str(1024 << 20), "memory.memsw.limit_in_bytes": str(1024 << 20)},
        {"pids.max": "64"},
        {"cpu.cfs_period_us": "100000", "cpu.cfs_quota_us": "150000"}]
    monkeypatch.setattr(LocalProcessSpawner, "stop", lambda self, now=False: asyncio.sleep(0))
    monkeypatch.setattr(Path, "rmdir", cgroupfs_rmdir)
    asyncio.run(spawner.stop())
    assert not any(folder.exists() for folder in folders)


def test_a_classmate_guessing_from_their_address_holds_up_only_that_address():
    """The name's throttle is keyed by name and address (classroom/auth.py): Ana's wrong
    guesses for Bob from her machine make her machine wait, never Bob at his."""
    throttle = Throttle()
    for _ in range(FREE_TRIES + 10):
        throttle.failed(("bob", "10.0.0.66"))
    assert throttle.wait(("bob", "10.0.0.66")) > 0
    assert throttle.wait(("bob", "10.0.0.7")) == 0


class Connection:
    """A connection's socket as the hub sees it: its peer and its own address."""

    def __init__(self, peer, local=("127.0.0.1", 800)):
        self.peer, self.local = peer, local

    def getpeername(self):
        return self.peer

    def getsockname(self):
        return self.local


def test_forwarded_addresses_are_believed_from_the_proxy_only():
    """X-Forwarded-For's last entry (the proxy appends it) from a root connection (the
    class's proxy); anyone else's headers are not read: their own address counts."""
    proxy = Connection(("127.0.0.1", 40000))
    root, student = (lambda peer, local: 0), (lambda peer, local: 1003)
    assert client_address(proxy, "6.6.6.6, 10.1.2.3", uid_of=root) == "10.1.2.3"
    assert client_address(proxy, None, uid_of=root) == "127.0.0.1"
    assert client_address(proxy, "6.6.6.6", uid_of=student) == "127.0.0.1"
    # and the owner of a real loopback connection is read from /proc/net/tcp
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        with socket.create_connection(server.getsockname()) as client:
            accepted, peer = server.accept()
            with accepted:
                assert processes.peer_uid(peer, server.getsockname()) == os.geteuid()
                assert client_address(accepted, "6.6.6.6") == ("6.6.6.6" if os.geteuid() == 0 else "127.0.0.1")
            del client


def test_a_port_names_who_holds_it():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        [holder] = processes.holders(port, "127.0.0.1")
        assert holder["pid"] == os.getpid() and holder["uid"] == os.geteuid()
        assert f"pid {os.getpid()}" in processes.describe(holder)
        assert processes.holders(port, "0.0.0.0") == [holder]  # a wildcard clashes with it
    assert processes.holders(port, "127.0.0.1") == []


def test_a_server_is_signalled_only_while_its_process_is_the_one_started(tmp_path):
    """A PID reused by another process (after a crash or a reboot) is a server that is gone:
    the spawner neither polls it as running nor signals it."""
    decoy = subprocess.Popen(["sleep", "60"])
    try:
        spawner = a_spawner(tmp_path)
        spawner.pid = decoy.pid
        spawner.process = dict(processes.identity(decoy.pid), started=processes.identity(decoy.pid)["started"] - 1)
        assert asyncio.run(spawner._signal(signal.SIGTERM)) is False
        assert asyncio.run(spawner.poll()) == 0
        time.sleep(0.2)
        assert decoy.poll() is None  # never signalled
        spawner.pid, spawner.process = decoy.pid, processes.identity(decoy.pid)
        assert asyncio.run(spawner._signal(0)) is True  # the process it started: signalled
        assert spawner.get_state()["process"] == processes.identity(decoy.pid)
    finally:
        decoy.kill()
        decoy.wait()


def test_every_server_gets_private_temporary_folders_sized_by_its_memory(tmp_path):
    command = a_spawner(tmp_path).sandboxed_cmd("/env/bin/python")
    pairs = {command[i + 3]: int(command[i + 1]) for i, word in enumerate(command) if word == "--size"}
    assert pairs["/tmp"] == 256 << 20 and pairs["/dev/shm"] == pairs["/var/tmp"] == 128 << 20
    assert "/tmp/jupyter-runtime" in pairs and "--unshare-ipc" in command and "--unshare-pid" in command


def test_an_instructors_server_reaches_a_checkout_under_the_private_tmp_and_a_students_does_not(tmp_path):
    """A checkout tried out under /tmp: the instructor's server runs its Python from there, which
    the private /tmp would hide (before, the server never started and the hub gave up after 180 s)."""
    paths = {"/tmp/try/autograd": "ro", "/tmp/try/autograd/.venv": "ro"}
    teacher = ClassroomSpawner(user=SimpleNamespace(name="class-teacher"), students={"class-ana": "en"},
                               instructor_paths=paths, cgroup_root=str(tmp_path))
    student = ClassroomSpawner(user=SimpleNamespace(name="class-ana"), students={"class-ana": "en"},
                               instructor_paths=paths, cgroup_root=str(tmp_path))

    def bound(command):
        return [command[i + 1] for i, word in enumerate(command) if word == "--ro-bind"]
    command = teacher.sandboxed_cmd("/tmp/try/autograd/.venv/bin/python")
    assert bound(command) == ["/tmp/try/autograd", "/tmp/try/autograd/.venv"]
    assert command.index("--ro-bind") > max(i for i, word in enumerate(command) if word == "--tmpfs")
    assert bound(student.sandboxed_cmd("/env/bin/python")) == []


def test_the_control_groups_of_a_class_are_found_wherever_they_are(tmp_path):
    for where in ("memory/process_api/abc/classroom-class-ana", "pids/classroom-class-ana",
                  "cpu/classroom-class-bob", "cpu/classroom-class-other", "memory/classroom-class-ana-x"):
        (tmp_path / where).mkdir(parents=True)
    removed = remove_groups(["class-ana", "class-bob"], root=tmp_path)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in removed) == [
        "cpu/classroom-class-bob", "memory/process_api/abc/classroom-class-ana", "pids/classroom-class-ana"]
    assert (tmp_path / "cpu/classroom-class-other").is_dir() and (tmp_path / "memory/classroom-class-ana-x").is_dir()


def test_the_class_kernel_listens_on_no_port_and_still_shows_what_a_fork_prints(tmp_path):
    """The class's kernel spec (classroom/kernels.py) over `ipc`: every socket of the kernel
    is a file, none a TCP listener; a forked child's print arrives; debugpy is not there."""
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager
    specs = KernelSpecManager(kernel_dirs=[str(kernels.write_spec(tmp_path / "env") / "kernels")])
    manager = KernelManager(kernel_name="python3", kernel_spec_manager=specs, transport="ipc",
                            connection_file=str(tmp_path / "kernel.json"))
    manager.start_kernel()
    client = manager.client()
    try:
        client.start_channels()
        client.wait_for_ready(timeout=60)
        said = []
        client.execute_interactive("import os\nif os.fork() == 0:\n    print('child', flush=True)\n"
                                   "    os._exit(0)\nos.wait()\nimport sys\nprint('debugpy' in sys.modules and "
                                   "sys.modules['debugpy'])", timeout=60,
                                   output_hook=lambda m: said.append(m["content"].get("text", "")))
        pid = manager.provisioner.process.pid
        listening = {inode for _, _, _, _, inode in processes.sockets(states={processes.LISTEN})}
        held = [inode for inode, holder in processes.processes_holding(listening).items() if holder == pid]
        print("the kernel's TCP listeners:", held, "| its sockets:", sorted(p.name for p in tmp_path.iterdir()))
        assert held == []
        assert "child" in "".join(said) and "None" in "".join(said)  # the fork's output; no debugger
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


@pytest.mark.skipif(os.geteuid() != 0, reason="freezing makes a submission root's: run as root")
def test_a_submission_is_frozen_as_its_student_left_it_and_dated_by_its_last_change(tmp_path, monkeypatch):
    """hand_in.look on an inbound/ folder: a complete submission (mode 750, timestamp.txt)
    becomes root's with its group, each file a copy of root's (a file its student still
    holds open is no longer the submission's), and a record of its last change; one over the
    cap is removed and its student told."""
    from grader.plugins.exchange import handed_in_record
    inbound = tmp_path / "inbound"
    inbound.mkdir()
    folder = inbound / "nobody+theory03-es+2026-01-01 00:00:00.000000 UTC+abc"
    folder.mkdir(mode=0o750)
    (folder / "timestamp.txt").write_text("2026-01-01 00:00:00.000000 UTC")
    (folder / "theory03.ipynb").write_text("her work")
    held = open(folder / "theory03.ipynb", "a")  # noqa: SIM115 (kept open across the freeze)
    os.chown(folder, 65534, 4242)
    for path in folder.iterdir():
        os.chown(path, 65534, 65534)
    changed = os.lstat(folder / "theory03.ipynb").st_ctime
    hand_in.look(inbound, "es", {}, time.time() + hand_in.QUIET)
    info = os.lstat(folder)
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (0, 4242, 0o750)
    held.write(" and more")  # through what she held open: not the submission's any more
    held.close()
    assert (folder / "theory03.ipynb").read_text() == "her work"
    assert all(os.lstat(p).st_uid == 0 and os.lstat(p).st_gid == 4242 for p in folder.iterdir())
    record = handed_in_record(folder)
    print("the hand-in record:", json.dumps(record))
    assert record["student"] == "nobody" and record["handed_in"] == hand_in.stamp(changed)
    big = inbound / "nobody+theory03-es+2026-01-01 00:00:00.000000 UTC+big"
    big.mkdir()
    with open(big / "theory03.ipynb", "wb") as handle:
        handle.truncate(hand_in.MAX_SUBMISSION_BYTES + 1)
    os.chown(big, 65534, 65534)
    told = []
    monkeypatch.setattr(hand_in, "tell", lambda uid, name, text: told.append((uid, name, text)))
    hand_in.look(inbound, "es", {}, time.time())
    assert not big.exists()
    assert told and told[0][1] == "theory03-es-not-handed-in.txt" and "no está entregada" in told[0][2]


def test_the_login_page_says_its_words_in_both_languages_each_marked_with_its_own(tmp_path):
    """The hub's configuration puts the class's login page first (classroom/templates/login.html),
    rendered here as JupyterHub 6 loads templates: every word in English and in Spanish, each part
    marked with its language, a wrong password said in both; a university's login_service stays
    JupyterHub's own page. (Its audit with axe-core in Chromium: tests/test_classroom.py.)"""
    import html
    import re
    import sys

    from jinja2 import ChoiceLoader, Environment, FileSystemLoader, PrefixLoader
    from traitlets.config import Config

    from classroom.hub import LOGIN_WORDS, configure
    from course.i18n import say
    state = {**OLD_STATE, "python": sys.executable, "people": [], "student_env": str(tmp_path),
             "exchange": str(tmp_path)}
    (tmp_path / "classroom.json").write_text(json.dumps(state))
    (tmp_path / "proxy-token").write_text("x")
    c = Config()
    configure(c, tmp_path)
    upstream = str(Path(sys.prefix) / "share" / "jupyterhub" / "templates")
    env = Environment(loader=ChoiceLoader([PrefixLoader({"templates": FileSystemLoader([upstream])}, "/"),
                                           FileSystemLoader([*c.JupyterHub.template_paths, upstream])]),
                      autoescape=True)

    def page(**fields):
        return env.get_template("login.html").render(
            static_url=lambda path, include_version=True: path, xsrf="x", username="",
            authenticator_login_url="/hub/login", authenticator=SimpleNamespace(request_otp=False),
            **c.JupyterHub.template_vars, **fields)

    shown = page(login_error="Invalid username or password")
    for key in LOGIN_WORDS:
        for lang in ("en", "es"):
            assert f'<span lang="{lang}">{html.escape(say(key, lang))}</span>' in shown, (key, lang)
    # none of JupyterHub's own words left
    assert not re.search(r"""<h1>\s*Sign in|value='Sign in'|Username:|class="login_error">Invalid""", shown)
    assert "Sign in with Campus" in page(login_service="Campus")
