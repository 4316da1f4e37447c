"""The classroom's parts that need neither root nor a hub: login throttling, log rotation,
the systemd unit. The class itself: tests/test_classroom.py."""
import pytest

pytest.importorskip("jupyterhub", reason="jupyterhub is not installed (pip install -r requirements.txt)")

from classroom.auth import FREE_TRIES, LONGEST_WAIT, Throttle
from classroom.service import unit_text
from classroom.spawner import rotate


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
