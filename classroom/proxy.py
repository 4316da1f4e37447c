"""The class's proxy (configurable-http-proxy), which holds the class's public port.

JupyterHub's own proxy class stops a proxy it finds running and starts a new one, so the
public port is free for a moment at every hub restart, and it signals whatever process has
the PID in its pid file. This one outlives a hub that was killed and is taken up again by
the next hub, so the port stays the class's across a crash; a proxy is the class's only if
it is root's and its command names this class's API socket (in the state folder, which only
root reaches). A new proxy starts only on a port nobody else holds, and the class starts
only once that proxy, not another process, holds it (classroom/processes.py).
"""
import os
import signal
from urllib.parse import unquote, urlparse

from jupyterhub.proxy import ConfigurableHTTPProxy
from tornado.ioloop import PeriodicCallback

from classroom import processes


class PortHeld(RuntimeError):
    """A port the class needs, held by another process (named)."""


def is_class_proxy(pid, api_socket):
    return (processes.identity(pid) or {}).get("uid") == 0 and api_socket in processes.command_line(pid)


def running_proxy(pid_file, api_socket):
    """The PID of the class's proxy if it runs (its pid file, checked), else None."""
    try:
        with open(pid_file) as handle:
            pid = int(handle.read().strip())
    except (OSError, ValueError):
        return None
    return pid if is_class_proxy(pid, api_socket) else None


class Kept:
    """A running proxy this hub did not start, with what JupyterHub asks of its Popen."""

    def __init__(self, pid, api_socket):
        self.pid, self.api_socket = pid, api_socket

    def poll(self):
        return None if is_class_proxy(self.pid, self.api_socket) else 0

    def terminate(self):
        if is_class_proxy(self.pid, self.api_socket):
            os.kill(self.pid, signal.SIGTERM)


class ClassroomProxy(ConfigurableHTTPProxy):

    @property
    def api_socket(self):
        return unquote(urlparse(self.api_url).netloc)

    def public_address(self):
        url = urlparse(self.public_url)
        return url.hostname or "0.0.0.0", url.port or (443 if url.scheme == "https" else 80)

    def _check_previous_process(self):
        """Called before a new proxy starts: only a stale pid file is left (never a signal)."""
        if running_proxy(self.pid_file, self.api_socket) is None:
            self._remove_process_files()

    async def start(self):
        pid = running_proxy(self.pid_file, self.api_socket)
        if pid:
            self.log.info("The class's proxy (pid %i) outlived the hub: taken up again, with its port", pid)
            self.proxy_process = Kept(pid, self.api_socket)
            self._check_running_callback = PeriodicCallback(self.check_running, 1e3 * self.check_running_interval)
            self._check_running_callback.start()
            return
        ip, port = self.public_address()
        held = processes.holders(port, ip)
        if held:
            raise PortHeld(f"port {port} is held by {processes.describe(held[0])}")
        await super().start()
        held = processes.holders(port, ip)
        if [holder["pid"] for holder in held] != [self.proxy_process.pid]:
            self.proxy_process.terminate()
            others = [h for h in held if h["pid"] != self.proxy_process.pid]
            raise PortHeld(f"port {port} was taken while the proxy started, by "
                           f"{processes.describe(others[0]) if others else 'nobody now'}")
