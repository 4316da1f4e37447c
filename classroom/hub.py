"""JupyterHub for the class: its configuration (read by the hub from the state folder),
and starting and stopping it by PID.

The hub runs as root on loopback by default; configurable-http-proxy (npm) is its proxy;
classroom/spawner.py starts each person's server as their own system user (the hub switches
to that user: no sudo), with limits, JupyterLab at /lab in their home; jupyterhub-idle-culler
stops idle servers. docs/en/classroom.md gives the settings for a real server (TLS, the
university's authenticator).
"""
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from classroom.course import course_id

STATE_FILE = "classroom.json"
PROXY = "configurable-http-proxy"
CULLER = "idle-culler"  # the hub's service that stops idle servers


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
    settings = state["settings"]
    c.JupyterHub.ip = state["ip"]
    c.JupyterHub.port = state["port"]
    if settings.get("ssl_cert"):
        c.JupyterHub.ssl_cert = settings["ssl_cert"]
        c.JupyterHub.ssl_key = settings["ssl_key"]
    c.JupyterHub.hub_ip = "127.0.0.1"
    c.JupyterHub.hub_port = state["hub_port"]
    c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{state['proxy_api_port']}"
    c.ConfigurableHTTPProxy.command = [state["proxy"]]
    c.ConfigurableHTTPProxy.pid_file = str(state_folder / "proxy.pid")
    c.JupyterHub.pid_file = str(state_folder / "hub.pid")
    c.JupyterHub.db_url = f"sqlite:///{state_folder / 'jupyterhub.sqlite'}"
    c.JupyterHub.cookie_secret_file = str(state_folder / "jupyterhub_cookie_secret")
    # a hub restart (a crash, an upgrade) leaves the servers and their kernels running: the
    # restarted hub finds each by its PID; `classroom stop` stops them itself
    c.JupyterHub.cleanup_servers = False
    c.JupyterHub.authenticator_class = "classroom.auth.RosterAuthenticator"
    c.RosterAuthenticator.hashes_file = str(state_folder / "password-hashes.json")
    people = state["people"]
    c.Authenticator.allowed_users = {p["login"] for p in people}
    c.Authenticator.admin_users = {p["login"] for p in people if p["role"] == "instructor"}
    c.JupyterHub.spawner_class = "classroom.spawner.ClassroomSpawner"
    c.ClassroomSpawner.students = {p["login"]: p["language"] for p in people if p["role"] == "student"}
    c.ClassroomSpawner.student_env = state["student_env"]
    c.ClassroomSpawner.memory_mb = settings["memory_mb"]
    c.ClassroomSpawner.cpus = settings["cpus"]
    c.ClassroomSpawner.max_processes = settings["processes"]
    c.ClassroomSpawner.log_folder = str(state_folder / "logs")
    c.ClassroomSpawner.shared_paths = {state["exchange"]: "rw", state["student_env"]: "ro"}
    c.Spawner.cmd = [str(bin_folder / "jupyterhub-singleuser")]  # instructors: the course's environment
    c.Spawner.default_url = "/lab"
    c.Spawner.notebook_dir = "~"
    c.Spawner.start_timeout = 180
    c.Spawner.http_timeout = 180
    students_config = str(Path(state["student_env"]) / "etc" / "jupyter")
    c.Spawner.environment = {
        "PATH": lambda spawner: f"{spawner_bin(spawner, bin_folder)}:/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        # a student's Jupyter configuration is the students' environment's, root's: their
        # own ~/.jupyter would come first and could turn the course's Validate off
        "JUPYTER_CONFIG_DIR": lambda spawner: (students_config if spawner.user.name in spawner.students
                                               else str(home_of(spawner) / ".jupyter")),
        "JUPYTERLAB_SETTINGS_DIR": lambda spawner: str(home_of(spawner) / ".jupyter/lab/user-settings"),
        "JUPYTERLAB_WORKSPACES_DIR": lambda spawner: str(home_of(spawner) / ".jupyter/lab/workspaces"),
        "CLASSROOM_COURSE_ID": lambda spawner: course_id(spawner.students.get(spawner.user.name, "en")),
    }
    python = state["python"]
    # the culler's rounds and the hub's activity updates every tenth of the idle time (10 s to
    # 5 min): a server is stopped at most a fifth late, and both are cheap requests
    every = max(10, min(300, settings["cull_after"] // 10))
    c.JupyterHub.services = [{"name": CULLER, "command": [
        python, "-m", "jupyterhub_idle_culler", f"--timeout={settings['cull_after']}", f"--cull-every={every}"]}]
    c.JupyterHub.load_roles = [{"name": CULLER, "services": [CULLER], "scopes": [
        "list:users", "read:users:activity", "read:servers", "delete:servers"]}]
    c.JupyterHub.last_activity_interval = every


def home_of(spawner):
    return Path(pwd.getpwnam(spawner.user.name).pw_dir)


def spawner_bin(spawner, bin_folder):
    if spawner.user.name in spawner.students:
        return Path(spawner.student_env) / "bin"
    return bin_folder


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
        return word in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").replace("\0", " ")
    except (OSError, ValueError):
        return False


def running_hub(state_folder):
    """The PID of this class's hub if it runs (its pid file, checked against its command line)."""
    state_folder = Path(state_folder)
    try:
        pid = int((state_folder / "hub.pid").read_text().strip())
    except (OSError, ValueError):
        return None
    return pid if is_ours(pid, str(state_folder / "jupyterhub_config.py")) else None


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
    """Stop the hub, then the proxy, by PID (each checked to be this class's, not a reused
    PID); the servers are stopped by the caller (they outlive the hub on purpose)."""
    state_folder = Path(state_folder)
    state = json.loads((state_folder / STATE_FILE).read_text(encoding="utf-8"))
    stopped = []
    pid = running_hub(state_folder)
    if pid and stop_pid(pid, str(state_folder / "jupyterhub_config.py")):
        stopped.append(f"hub (pid {pid})")
    proxy_pid = state_folder / "proxy.pid"
    if proxy_pid.exists():
        try:
            pid = int(proxy_pid.read_text().strip() or 0)
        except ValueError:
            pid = 0
        if stop_pid(pid, f"{state['proxy_api_port']}"):
            stopped.append(f"proxy (pid {pid})")
    for pid in leftover_culler(state):
        if stop_pid(pid, "jupyterhub_idle_culler"):
            stopped.append(f"the idle culler of a killed hub (pid {pid})")
    return stopped


def leftover_culler(state):
    """PIDs of this class's idle culler still running without its hub: a hub stops its
    services when it stops, but one killed (SIGKILL, the OOM killer) leaves them running,
    with the settings of then. Each is known by its service name and its hub's address."""
    marks = {f"JUPYTERHUB_SERVICE_NAME={CULLER}".encode(),
             f"JUPYTERHUB_API_URL=http://127.0.0.1:{state['hub_port']}/hub/api".encode()}
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marks <= set((entry / "environ").read_bytes().split(b"\0")):
                found.append(int(entry.name))
        except OSError:
            pass
    return found


def find_proxy():
    return shutil.which(PROXY)
