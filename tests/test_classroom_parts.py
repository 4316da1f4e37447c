"""The classroom's parts that need neither root nor a hub: login throttling, log rotation,
the systemd unit, the control groups (on stand-in cgroup trees). The class itself:
tests/test_classroom.py."""
import asyncio
import errno
import logging
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("jupyterhub", reason="jupyterhub is not installed (pip install -r requirements.txt)")

from jupyterhub.spawner import LocalProcessSpawner

from classroom.auth import FREE_TRIES, LONGEST_WAIT, Throttle
from classroom.service import unit_text
from classroom.spawner import ClassroomSpawner, rotate


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
    unit = unit_text(tmp_path, {"name": "maths"}, python="/opt/course/.venv/bin/python")
    assert f"ExecStart=/opt/course/.venv/bin/python -m classroom start --state {tmp_path}" in unit
    assert f"ExecStop=/opt/course/.venv/bin/python -m classroom stop --state {tmp_path}" in unit
    assert f"PIDFile={tmp_path}/hub.pid" in unit and "KillMode=process" in unit
    assert "Delegate=memory pids cpu" in unit  # each student's cgroup v2 group is made under the unit's


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
