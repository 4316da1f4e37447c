"""A systemd unit for the class: started at boot (and after a crash), stopped by systemd
with `classroom stop` (which keeps everything).

    python -m classroom service --state DIR

writes DIR/classroom-NAME.service and says how to install it. Stopping the unit stops the
servers too; restarting the hub alone (a crash) leaves them running (KillMode=process).
"""
import sys
from pathlib import Path

from classroom.state import ClassState

# Delegate: on cgroup v2 the hub makes each student's group under the unit's own
# cgroup (classroom/spawner.py); systemd then leaves that part of the tree to it.
UNIT = """[Unit]
Description=The class {name} (JupyterHub, python -m classroom)
After=network-online.target
Wants=network-online.target

[Service]
Type=forking
PIDFile={state}/hub.pid
ExecStart={python} -m classroom start --state {state}
ExecStop={python} -m classroom stop --state {state}
KillMode=process
Delegate=memory pids cpu
Restart=on-failure
RestartSec=5
TimeoutStartSec=300

[Install]
WantedBy=multi-user.target
"""


def systemd_runs():
    return Path("/run/systemd/system").is_dir()


def unit_text(state_folder, name, python=sys.executable):
    """The unit of the class `name` kept in `state_folder`."""
    return UNIT.format(name=name, state=Path(state_folder).resolve(), python=python)


def write_unit(state_folder):
    state_folder = Path(state_folder).resolve()
    state = ClassState.load(state_folder)
    if state is None:
        raise SystemExit(f"no classroom in {state_folder}: start one first")
    unit = state_folder / f"classroom-{state.name}.service"
    unit.write_text(unit_text(state_folder, state.name), encoding="utf-8")
    print(f"wrote {unit}")
    if systemd_runs():
        print(f"install it: cp {unit} /etc/systemd/system/ && systemctl daemon-reload && "
              f"systemctl enable --now {unit.name}")
    else:
        print("systemd does not run on this machine (no /run/systemd/system): the unit is written, not "
              "installed; start the class after a reboot with your init system, running "
              f"`{sys.executable} -m classroom start --state {state_folder}`")
    return unit
