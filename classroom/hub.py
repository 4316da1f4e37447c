"""JupyterHub for the class: its configuration (read by the hub from the state folder),
and starting and stopping it by PID.

The hub runs as root on loopback by default; configurable-http-proxy (npm) is its proxy
(classroom/proxy.py), which outlives a hub that was killed; classroom/spawner.py starts each
person's server as their own system user (the hub switches to that user: no sudo), with
limits, JupyterLab at /lab in their home; jupyterhub-idle-culler stops idle servers and
classroom/hand_in.py freezes each submission as it is handed in. The hub's own port is one
below 1024, which only root can take, and the proxy's API a socket in the state folder: no
student process can stand in for either while the hub restarts. docs/en/classroom.md gives
the settings for a real server (TLS, the university's authenticator).
"""
import os
import pwd
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import quote

from classroom import processes
from classroom.course import ROOT, course_id
from classroom.kernels import SPEC_FOLDER
from classroom.proxy import PortHeld, running_proxy
from classroom.state import ClassState
from course.i18n import say
from course.names import DEFAULT_LANGUAGE, LANGUAGES

PROXY = "configurable-http-proxy"
CULLER = "idle-culler"  # the hub's service that stops idle servers
HAND_IN = "hand-in"  # the hub's service that freezes each submission (classroom/hand_in.py)
SERVICES = {CULLER: "jupyterhub_idle_culler", HAND_IN: "classroom.hand_in"}  # name -> its module
PRIVILEGED = range(700, 1000)  # where the class looks for ports only root can take
TEMPLATES = Path(__file__).parent / "templates"  # pages of the hub's that the class words itself
LOGIN_WORDS = ("hub_sign_in", "hub_username", "hub_password", "hub_show_password", "hub_login_error",
               "hub_insecure")


def free_port():
    """A loopback TCP port nobody listens on at this moment (the server takes it just after)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def unprivileged_from():
    """The first port any user may listen on (net.ipv4.ip_unprivileged_port_start)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_unprivileged_port_start").read_text())
    except (OSError, ValueError):
        return 1024


def free_privileged_port(ip="127.0.0.1", avoid=()):
    """A free port below 1024 on `ip` (run as root): one no student process can take."""
    for port in random.sample(PRIVILEGED, len(PRIVILEGED)):
        if port in avoid or port >= unprivileged_from() or processes.holders(port, ip):
            continue
        try:
            with socket.socket() as probe:
                probe.bind((ip, port))
            return port
        except OSError:
            continue
    raise RuntimeError(f"no free port below {unprivileged_from()} on {ip}")


def api_socket(state_folder):
    return str(Path(state_folder) / "proxy-api.sock")


def proxy_token(state_folder):
    """The proxy's API token (STATE/proxy-token, root's), made once: a proxy that outlived
    its hub answers the next hub with it."""
    path = Path(state_folder) / "proxy-token"
    if not path.exists():
        path.touch(mode=0o600)
        path.write_text(secrets.token_hex(32))
    return path.read_text().strip()


def configure(c, state_folder):
    """Called from the state folder's jupyterhub_config.py."""
    state_folder = Path(state_folder)
    state = ClassState.load(state_folder)
    bin_folder = Path(state.python).parent
    settings = state.settings
    c.JupyterHub.ip = state.ip
    c.JupyterHub.port = state.port
    if settings.ssl_cert:
        c.JupyterHub.ssl_cert = settings.ssl_cert
        c.JupyterHub.ssl_key = settings.ssl_key
    c.JupyterHub.hub_ip = "127.0.0.1"
    c.JupyterHub.hub_port = state.hub_port
    c.JupyterHub.proxy_class = "classroom.proxy.ClassroomProxy"
    c.ConfigurableHTTPProxy.api_url = "http+unix://" + quote(api_socket(state_folder), safe="")
    c.ConfigurableHTTPProxy.auth_token = proxy_token(state_folder)
    # a client's X-Real-Ip would override the address the proxy adds to X-Forwarded-For, in
    # every request the hub handles: the proxy replaces it with one that names no address
    c.ConfigurableHTTPProxy.command = [state.proxy, "--custom-header", "x-real-ip:"]
    c.ConfigurableHTTPProxy.pid_file = str(state_folder / "proxy.pid")
    c.JupyterHub.pid_file = str(state_folder / "hub.pid")
    c.JupyterHub.db_url = f"sqlite:///{state_folder / 'jupyterhub.sqlite'}"
    c.JupyterHub.cookie_secret_file = str(state_folder / "jupyterhub_cookie_secret")
    # a hub restart (a crash, an upgrade) leaves the servers and their kernels running: the
    # restarted hub finds each by its PID; `classroom stop` stops them itself
    c.JupyterHub.cleanup_servers = False
    c.JupyterHub.authenticator_class = "classroom.auth.RosterAuthenticator"
    # the login page in both languages, readable (classroom/templates/login.html)
    c.JupyterHub.template_paths = [str(TEMPLATES)]
    c.JupyterHub.template_vars = {"class_words": login_words()}
    c.RosterAuthenticator.hashes_file = str(state_folder / "password-hashes.json")
    c.Authenticator.allowed_users = {p.login for p in state.people}
    c.Authenticator.admin_users = {p.login for p in state.instructors}
    c.JupyterHub.spawner_class = "classroom.spawner.ClassroomSpawner"
    c.ClassroomSpawner.students = {p.login: p.language for p in state.students}
    c.ClassroomSpawner.student_env = state.student_env
    c.ClassroomSpawner.memory_mb = settings.memory_mb
    c.ClassroomSpawner.cpus = settings.cpus
    c.ClassroomSpawner.max_processes = settings.processes
    c.ClassroomSpawner.instructor_memory_mb = settings.instructor_memory_mb
    c.ClassroomSpawner.instructor_cpus = settings.instructor_cpus
    c.ClassroomSpawner.instructor_processes = settings.instructor_processes
    c.ClassroomSpawner.instructor_python = state.python
    c.ClassroomSpawner.log_folder = str(state_folder / "logs")
    c.ClassroomSpawner.shared_paths = {state.exchange: "rw", state.student_env: "ro"}
    # a checkout under /tmp (tried out there, say) is otherwise hidden by the private /tmp
    c.ClassroomSpawner.instructor_paths = {str(ROOT): "ro", str(Path(state.python).parent.parent): "ro"}
    # kernels talk to their server over sockets in its private /tmp, never on loopback TCP
    c.Spawner.args = ["--KernelManager.transport=ipc"]
    c.Spawner.default_url = "/lab"
    c.Spawner.notebook_dir = "~"
    c.Spawner.start_timeout = 180
    c.Spawner.http_timeout = 180
    students_config = str(Path(state.student_env) / "etc" / "jupyter")
    c.Spawner.environment = {
        "PATH": lambda spawner: f"{spawner_bin(spawner, bin_folder)}:/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        # a student's Jupyter configuration is the students' environment's, root's: their
        # own ~/.jupyter would come first and could turn the course's Validate off
        "JUPYTER_CONFIG_DIR": lambda spawner: (students_config if spawner.user.name in spawner.students
                                               else str(home_of(spawner) / ".jupyter")),
        "JUPYTERLAB_SETTINGS_DIR": lambda spawner: str(home_of(spawner) / ".jupyter/lab/user-settings"),
        "JUPYTERLAB_WORKSPACES_DIR": lambda spawner: str(home_of(spawner) / ".jupyter/lab/workspaces"),
        "CLASSROOM_COURSE_ID": lambda spawner: course_id(spawner.students.get(spawner.user.name, DEFAULT_LANGUAGE)),
        # the class's kernel (classroom/kernels.py), found before ipykernel's own
        "JUPYTER_PATH": str(Path(state.student_env) / SPEC_FOLDER),
    }
    python = state.python
    # the culler's rounds and the hub's activity updates every tenth of the idle time (10 s to
    # 5 min): a server is stopped at most a fifth late, and both are cheap requests
    every = max(10, min(300, settings.cull_after // 10))
    c.JupyterHub.services = [
        {"name": CULLER, "command": [python, "-m", "jupyterhub_idle_culler", f"--timeout={settings.cull_after}",
                                     f"--cull-every={every}"]},
        {"name": HAND_IN, "command": [python, "-m", "classroom.hand_in", "--state", str(state_folder)]}]
    c.JupyterHub.load_roles = [{"name": CULLER, "services": [CULLER], "scopes": [
        "list:users", "read:users:activity", "read:servers", "delete:servers"]}]
    c.JupyterHub.last_activity_interval = every


def login_words():
    """{message key: [(language, text)]}: the login page's words in every language of the course."""
    return {key: [(lang, say(key, lang)) for lang in LANGUAGES] for key in LOGIN_WORDS}


def home_of(spawner):
    return Path(pwd.getpwnam(spawner.user.name).pw_dir)


def spawner_bin(spawner, bin_folder):
    if spawner.user.name in spawner.students:
        return Path(spawner.student_env) / "bin"
    return bin_folder


def check_ports(state_folder, state):
    """Refuse (PortHeld, naming the holder) when another process than the class's own
    listens on the class's public port or on the hub's port."""
    proxy = running_proxy(state_folder / "proxy.pid", api_socket(state_folder))
    for port, ip, what, ours in ((state.port, state.ip, "the class's address", proxy),
                                 (state.hub_port, "127.0.0.1", "the hub's own port", None)):
        others = [h for h in processes.holders(port, ip) if h["pid"] is None or h["pid"] != ours]
        if others:
            raise PortHeld(f"port {port} ({what}) is held by {processes.describe(others[0])}: the class "
                           "does not start beside it. Stop that process (or start the class on another "
                           "--port), then start again")


def listened_by(port, ip):
    return [holder["pid"] for holder in processes.holders(port, ip)]


def start(state_folder, log_to):
    """Start the hub (it starts the proxy, or takes up the one still running); its PID once
    the proxy holds the public port and the hub its own, and it answers; else PortHeld or
    RuntimeError."""
    state_folder = Path(state_folder)
    state = ClassState.load(state_folder)
    check_ports(state_folder, state)
    config = state_folder / "jupyterhub_config.py"
    extra = (f"load_subconfig({state.hub_config!r})  # noqa: F821 (your settings, read last)\n"
             if state.hub_config else "")
    config.write_text("from classroom.hub import configure\n\n"
                      f"configure(get_config(), {str(state_folder)!r})  # noqa: F821\n" + extra,
                      encoding="utf-8")
    proxy_token(state_folder)
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
           "HOME": os.environ.get("HOME", "/root")}
    with open(log_to, "ab") as log:
        hub = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(config)],
                               cwd=state_folder, env=env, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    url = f"http://{state.ip}:{state.port}/hub/api/"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if hub.poll() is not None:
            raise RuntimeError(f"JupyterHub exited ({hub.returncode}); its log: {log_to}")
        proxy = running_proxy(state_folder / "proxy.pid", api_socket(state_folder))
        # nothing is asked of the public port until the class's own processes hold both ports
        if proxy and listened_by(state.port, state.ip) == [proxy] and \
                listened_by(state.hub_port, "127.0.0.1") == [hub.pid]:
            try:
                urllib.request.urlopen(url, timeout=2)
                return hub.pid
            except OSError:
                pass
        time.sleep(0.5)
    hub.terminate()
    held = processes.holders(state.port, state.ip)
    raise RuntimeError(f"JupyterHub did not answer at {url} within 120 s (port {state.port}: "
                       f"{', '.join(processes.describe(h) for h in held) or 'nobody listens'}); its log: {log_to}")


def is_ours(pid, word):
    """Whether `pid` is alive, root's, and its command line holds `word` (not a reused PID:
    only root makes a root process, and `word` names this class's state folder)."""
    return (processes.identity(pid) or {}).get("uid") == 0 and word in processes.command_line(pid)


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
    """Stop the hub, then the proxy and the hub's services, by PID (each checked to be this
    class's, not a reused PID); the servers are stopped by the caller (they outlive the hub
    on purpose)."""
    state_folder = Path(state_folder)
    state = ClassState.load(state_folder)
    stopped = []
    pid = running_hub(state_folder)
    if pid and stop_pid(pid, str(state_folder / "jupyterhub_config.py")):
        stopped.append(f"hub (pid {pid})")
    pid = running_proxy(state_folder / "proxy.pid", api_socket(state_folder))
    if pid and stop_pid(pid, api_socket(state_folder)):
        stopped.append(f"proxy (pid {pid})")
    return stopped + stop_services(state)


def stop_services(state):
    """Stop the hub's services left running by a hub that was killed; what was stopped."""
    stopped = []
    for pid, name in leftover_services(state):
        if stop_pid(pid, SERVICES[name]):
            stopped.append(f"the {name} service of a killed hub (pid {pid})")
    return stopped


def leftover_services(state):
    """[(PID, name)] of this class's hub services still running without their hub: a hub
    stops its services when it stops, but one killed (SIGKILL, the OOM killer) leaves them
    running, with the settings of then. Each is root's and known by its service name and
    its hub's address."""
    api = f"JUPYTERHUB_API_URL=http://127.0.0.1:{state.hub_port}/hub/api".encode()
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if not entry.name.isdigit() or entry.stat().st_uid != 0:
                continue
            variables = set((entry / "environ").read_bytes().split(b"\0"))
        except OSError:
            continue
        for name in SERVICES:
            if {api, f"JUPYTERHUB_SERVICE_NAME={name}".encode()} <= variables:
                found.append((int(entry.name), name))
    return found


def find_proxy():
    return shutil.which(PROXY)
