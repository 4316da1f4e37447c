"""JupyterHub for the class: its configuration (read by the hub from the state folder),
and starting and stopping it by PID.

The hub runs as root on loopback by default; configurable-http-proxy (npm) is its proxy;
LocalProcessSpawner starts each person's server as their own system user (the hub switches
to that user: no sudo), JupyterLab at /lab in their home. docs/en/classroom.md gives the
settings for a real server (TLS, the university's authenticator).
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

STATE_FILE = "classroom.json"
PROXY = "configurable-http-proxy"


def free_port():
    """A loopback TCP port nobody listens on at this moment (the server takes it just after)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def configure(c, state_folder):
    """Called from the state folder's jupyterhub_config.py."""
    state_folder = Path(state_folder)
    state = json.loads((state_folder / STATE_FILE).read_text(encoding="utf-8"))
    bin_folder = Path(state["python"]).parent
    c.JupyterHub.ip = state["ip"]
    c.JupyterHub.port = state["port"]
    c.JupyterHub.hub_ip = "127.0.0.1"
    c.JupyterHub.hub_port = state["hub_port"]
    c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{state['proxy_api_port']}"
    c.ConfigurableHTTPProxy.command = [state["proxy"]]
    c.ConfigurableHTTPProxy.pid_file = str(state_folder / "proxy.pid")
    c.JupyterHub.pid_file = str(state_folder / "hub.pid")
    c.JupyterHub.db_url = f"sqlite:///{state_folder / 'jupyterhub.sqlite'}"
    c.JupyterHub.cookie_secret_file = str(state_folder / "jupyterhub_cookie_secret")
    c.JupyterHub.cleanup_servers = True  # the hub stops the servers when it stops
    c.JupyterHub.authenticator_class = "classroom.auth.RosterAuthenticator"
    c.RosterAuthenticator.hashes_file = str(state_folder / "password-hashes.json")
    people = state["people"]
    c.Authenticator.allowed_users = {p["login"] for p in people}
    c.Authenticator.admin_users = {p["login"] for p in people if p["role"] == "instructor"}
    c.JupyterHub.spawner_class = "jupyterhub.spawner.LocalProcessSpawner"
    c.Spawner.cmd = [str(bin_folder / "jupyterhub-singleuser")]
    c.Spawner.default_url = "/lab"
    c.Spawner.notebook_dir = "~"
    c.Spawner.start_timeout = 180
    c.Spawner.http_timeout = 180
    # the course's Python first (the kernel, nbgrader), nothing else of root's environment
    c.Spawner.environment = {"PATH": f"{bin_folder}:/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}


def start(state_folder, log_to):
    """Start the hub (it starts the proxy); its PID once it answers, or RuntimeError."""
    state_folder = Path(state_folder)
    state = json.loads((state_folder / STATE_FILE).read_text(encoding="utf-8"))
    config = state_folder / "jupyterhub_config.py"
    extra = (f"load_subconfig({state['hub_config']!r})  # noqa: F821 (your settings, read last)\n"
             if state.get("hub_config") else "")
    config.write_text("from classroom.hub import configure\n\n"
                      f"configure(get_config(), {str(state_folder)!r})  # noqa: F821\n" + extra,
                      encoding="utf-8")
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
           "HOME": os.environ.get("HOME", "/root")}
    with open(log_to, "ab") as log:
        hub = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(config)],
                               cwd=state_folder, env=env, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    url = f"http://{state['ip']}:{state['port']}/hub/api/"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if hub.poll() is not None:
            raise RuntimeError(f"JupyterHub exited ({hub.returncode}); its log: {log_to}")
        try:
            urllib.request.urlopen(url, timeout=2)
            return hub.pid
        except OSError:
            time.sleep(0.5)
    hub.terminate()
    raise RuntimeError(f"JupyterHub did not answer at {url} within 120 s; its log: {log_to}")


def is_ours(pid, word):
    """Whether `pid` is alive and its command line holds `word` (not a reused PID)."""
    try:
        return word in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False


def stop_pid(pid, word, seconds=30):
    """SIGTERM `pid` if it is still the process we started, SIGKILL after `seconds`."""
    if not pid or not is_ours(pid, word):
        return False
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and is_ours(pid, word):
        time.sleep(0.2)
    if is_ours(pid, word):
        os.kill(pid, signal.SIGKILL)
    return True


def stop(state_folder):
    """Stop the hub (which stops the servers it started), then the proxy, by PID."""
    state_folder = Path(state_folder)
    state = json.loads((state_folder / STATE_FILE).read_text(encoding="utf-8"))
    stopped = []
    if stop_pid(state.get("hub_pid"), "jupyterhub"):
        stopped.append(f"hub (pid {state['hub_pid']})")
    proxy_pid = state_folder / "proxy.pid"
    if proxy_pid.exists():
        pid = int(proxy_pid.read_text().strip() or 0)
        if stop_pid(pid, PROXY):
            stopped.append(f"proxy (pid {pid})")
    return stopped


def find_proxy():
    return shutil.which(PROXY)
