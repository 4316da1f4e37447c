"""A person using a JupyterHub through its HTTP API, as a browser would: log in with their
password, start their server, start a kernel and run code in it (over the kernel's
websocket), validate a notebook. For tests only."""
import json
import time
import uuid

import requests
from tornado.httpclient import HTTPRequest
from tornado.ioloop import IOLoop
from tornado.websocket import websocket_connect


class HubUser:
    def __init__(self, url, login, password):
        self.url, self.login, self.password = url.rstrip("/") + "/", login, password
        self.session = requests.Session()
        self.token = None

    def log_in(self):
        """Log in through the login form; a token for the API. False if the hub refused."""
        page = self.session.get(self.url + "hub/login", timeout=30)
        xsrf = self.session.cookies.get("_xsrf")
        done = self.session.post(self.url + "hub/login?next=", data={
            "username": self.login, "password": self.password, "_xsrf": xsrf},
            allow_redirects=False, timeout=60)
        if done.status_code != 302 or "jupyterhub-session-id" not in self.session.cookies and \
                not any(c.name.startswith("jupyterhub-hub-login") for c in self.session.cookies):
            return False
        made = self.session.post(self.url + f"hub/api/users/{self.login}/tokens",
                                 json={"note": "test", "expires_in": 3600},
                                 headers={"X-XSRFToken": self.session.cookies.get("_xsrf") or xsrf,
                                          "Referer": self.url + "hub/"}, timeout=30)
        made.raise_for_status()
        self.token = made.json()["token"]
        del page
        return True

    def api(self, method, path, **kwargs):
        return self.session.request(method, self.url + path, timeout=120,
                                    headers={"Authorization": f"token {self.token}"}, **kwargs)

    def server(self):
        return self.api("GET", f"hub/api/users/{self.login}").json()["servers"].get("")

    def start_server(self, timeout=240):
        asked = self.api("POST", f"hub/api/users/{self.login}/server")
        assert asked.status_code in (201, 202, 400), f"the hub did not start the server: {asked.status_code} {asked.text}"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.server()
            if found and found.get("ready"):
                return found
            if not found:  # the hub gave up on it (the server's log says why)
                raise AssertionError(f"{self.login}'s server failed to start")
            time.sleep(1)
        raise AssertionError(f"{self.login}'s server did not start in {timeout} s")

    def server_answers(self):
        try:
            return self.api("GET", f"user/{self.login}/api/status").status_code == 200
        except requests.RequestException:
            return False

    def start_kernel(self):
        made = self.api("POST", f"user/{self.login}/api/kernels", json={"name": "python3"})
        made.raise_for_status()
        return made.json()["id"]

    def kernel_alive(self, kernel):
        return self.api("GET", f"user/{self.login}/api/kernels/{kernel}").status_code == 200

    def run(self, kernel, code, timeout=120):
        """Run `code` in `kernel`; (its stdout, its error name or None). An error name
        'DEAD' means the kernel died while running it."""
        return IOLoop.current().run_sync(lambda: self._run(kernel, code, timeout), timeout=timeout + 30)

    async def _run(self, kernel, code, timeout):
        ws_url = self.url.replace("http", "ws", 1) + f"user/{self.login}/api/kernels/{kernel}/channels"
        connection = await websocket_connect(HTTPRequest(ws_url, headers={"Authorization": f"token {self.token}"}))
        msg_id = uuid.uuid4().hex
        connection.write_message(json.dumps({
            "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": self.login,
                       "session": uuid.uuid4().hex, "version": "5.3"},
            "parent_header": {}, "metadata": {}, "channel": "shell",
            "content": {"code": code, "silent": False, "store_history": False, "user_expressions": {},
                        "allow_stdin": False, "stop_on_error": True}}))
        # done when both the reply (shell) and the kernel's "idle" (iopub, after every output
        # of this request) have come: the two channels are not ordered with each other
        out, error, replied, idle = [], None, False, False
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = await connection.read_message()
            if message is None:
                return "".join(out), "DEAD"
            message = json.loads(message)
            if message.get("parent_header", {}).get("msg_id") != msg_id:
                if message.get("msg_type") == "status" and \
                        message["content"].get("execution_state") in ("dead", "restarting"):
                    return "".join(out), "DEAD"
                continue
            kind = message["msg_type"]
            if kind == "stream":
                out.append(message["content"]["text"])
            elif kind == "error":
                error = message["content"]["ename"]
            elif kind == "status" and message["content"]["execution_state"] in ("restarting", "dead"):
                return "".join(out), "DEAD"
            elif kind == "status" and message["content"]["execution_state"] == "idle":
                idle = True
            elif kind == "execute_reply":
                replied = True
            if replied and idle:
                connection.close()
                return "".join(out), error
        connection.close()
        return "".join(out), "TIMEOUT"

    def validate(self, path):
        """The server's Validate (what the button asks for): its JSON answer."""
        done = self.api("POST", f"user/{self.login}/assignments/validate", data={"path": path})
        done.raise_for_status()
        return done.json()
