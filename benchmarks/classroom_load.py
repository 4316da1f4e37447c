"""How many students the classroom's hub carries: N simulated students at once, each
through the hub's REST API as a browser would drive it.

    sudo .venv/bin/python benchmarks/classroom_load.py [--students 10] [--unit lab01]

Starts a class with `python -m classroom start` on loopback (one instructor, N English
students; real system users made for the run, removed at the end), then each student,
in a thread of their own: logs in (a hub token for their username and password), spawns
their server, fetches the assignment, opens it in a kernel (the server's sessions API and
the kernel's websocket, Jupyter's messaging protocol), runs every code cell of the
notebook in order, validates it and submits it. Prints spawn time and cell latency
(median and 95th percentile), validate and submit times, memory per student (RSS and PSS
of every process of the student's user, kernel running) and every failure. A benchmark,
not a test: the figures are for docs/*/scaling.md.
"""
import argparse
import csv
import json
import os
import pwd
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import nbformat
import psutil
import requests
import websocket  # websocket-client, a dependency of jupyter_server

from classroom import course

ROOT = Path(__file__).resolve().parent.parent
CELL_TIMEOUT = 300  # seconds one cell may take before it counts as a failure


def percentile(values, share):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def user_memory_mb(login):
    """(RSS, PSS) in MB of every process of `login`."""
    uid = pwd.getpwnam(login).pw_uid
    rss = pss = 0
    for process in psutil.process_iter(["uids"]):
        try:
            if process.info["uids"] and process.info["uids"].real == uid:
                info = process.memory_full_info()
                rss, pss = rss + info.rss, pss + info.pss
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    return rss / 1e6, pss / 1e6


class Student:
    """One simulated student; `figures` and `failures` are filled as they go."""

    def __init__(self, url, login, password, assignment, lang):
        self.url, self.login, self.password = url.rstrip("/"), login, password
        self.assignment, self.course_id = assignment, course.course_id(lang)
        self.http = requests.Session()
        self.figures, self.failures, self.cells = {}, [], []

    def hub(self, method, path, **kw):
        done = self.http.request(method, f"{self.url}/hub/api{path}", timeout=300, **kw)
        done.raise_for_status()
        return done.json() if done.content else None

    def server(self, method, path, **kw):
        done = self.http.request(method, f"{self.url}/user/{self.login}{path}", timeout=600, **kw)
        done.raise_for_status()
        return done.json() if done.content else None

    def timed(self, name, step):
        self.step = name
        started = time.monotonic()
        result = step()
        self.figures[name + "_s"] = time.monotonic() - started
        return result

    def run(self, notebook):
        """Every step in order; the first that fails is counted and ends this student's run."""
        try:
            token = self.timed("login", lambda: self.hub(
                "POST", f"/users/{self.login}/tokens",
                json={"auth": {"username": self.login, "password": self.password}, "note": "load test"})["token"])
            self.http.headers["Authorization"] = f"token {token}"
            self.timed("spawn", self.spawn)
            self.timed("fetch", lambda: self.server("POST", "/assignments/fetch", json={
                "assignment_id": self.assignment, "course_id": self.course_id}))
            self.timed("cells", lambda: self.run_cells(notebook))
            self.figures["rss_mb"], self.figures["pss_mb"] = user_memory_mb(self.login)
            path = f"{self.assignment}/{Path(notebook).name}"
            answer = self.timed("validate", lambda: self.server("POST", "/assignments/validate",
                                                                json={"path": path}))
            self.figures["validate_answer"] = str(answer.get("success"))
            self.timed("submit", lambda: self.server("POST", "/assignments/submit", json={
                "assignment_id": self.assignment, "course_id": self.course_id}))
        except Exception as error:  # noqa: BLE001 - a benchmark counts failures, it does not stop
            self.failures.append(f"{self.login}: {self.step}: {type(error).__name__}: {str(error)[:200]}")

    def spawn(self):
        self.hub("POST", f"/users/{self.login}/server")
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            state = self.hub("GET", f"/users/{self.login}")
            if (state.get("servers") or {}).get("", {}).get("ready"):
                return
            time.sleep(0.25)
        raise TimeoutError("server not ready after 300 s")

    def run_cells(self, notebook):
        nb = nbformat.read(notebook, as_version=4)
        session = self.server("POST", "/api/sessions", json={
            "path": f"{self.assignment}/{Path(notebook).name}", "type": "notebook",
            "name": Path(notebook).name, "kernel": {"name": "python3"}})
        kernel = session["kernel"]["id"]
        ws_url = re.sub("^http", "ws", self.url) + f"/user/{self.login}/api/kernels/{kernel}/channels"
        channel = websocket.create_connection(ws_url, header=[f"Authorization: {self.http.headers['Authorization']}"],
                                              timeout=CELL_TIMEOUT)
        try:
            for cell in nb.cells:
                if cell.cell_type == "code" and cell.source.strip():
                    started = time.monotonic()
                    status = execute(channel, cell.source, self.login)
                    self.cells.append((time.monotonic() - started, status))
        finally:
            channel.close()


def execute(channel, code, login):
    """Send one execute_request on the kernel's websocket; the reply's status."""
    msg_id = uuid.uuid4().hex
    channel.send(json.dumps({
        "header": {"msg_id": msg_id, "username": login, "session": uuid.uuid4().hex,
                   "msg_type": "execute_request", "version": "5.3", "date": datetime.now(UTC).isoformat()},
        "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
        "content": {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                    "allow_stdin": False, "stop_on_error": False}}))
    while True:
        message = json.loads(channel.recv())
        if message.get("msg_type") == "execute_reply" and message["parent_header"].get("msg_id") == msg_id:
            return message["content"]["status"]


def start_class(students, prefix, unit, work):
    roster = work / "roster.csv"
    rows = ["id,name,language,role", "teacher,Teacher,en,instructor"]
    rows += [f"s{i},Student {i},en,student" for i in range(1, students + 1)]
    roster.write_text("\n".join(rows) + "\n", encoding="utf-8")
    state = work / "state"
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "classroom", "start", str(roster), "--prefix", prefix,
                           "--exchange", str(work / "exchange"), "--student-env", str(work / "student-env"),
                           "--state", str(state), "--units", unit],
                          cwd=ROOT, capture_output=True, text=True, check=False, timeout=1200)
    print(done.stdout[-2000:], done.stderr[-2000:], sep="\n")
    if done.returncode:
        raise SystemExit(f"classroom start failed ({done.returncode})")
    print(f"class started in {time.monotonic() - started:.0f} s")
    url = re.search(r"classroom running: (\S+)", done.stdout).group(1)
    with open(state / "passwords.csv", encoding="utf-8") as listing:
        people = list(csv.DictReader(listing))
    return url, state, people


def remove_class(state, prefix, work):
    """`classroom remove`: the hub stopped, every user and group this run made removed, the
    checkout's mode given back (its backup goes into `work`, removed after)."""
    done = subprocess.run([sys.executable, "-m", "classroom", "remove", "--state", str(state), "--confirm", prefix,
                           "--backup", str(work / "backup.tar.gz")], cwd=ROOT, capture_output=True, text=True,
                          check=False, timeout=600)
    print(done.stdout[-500:], done.stderr[-500:], sep="\n")


def report(students, wall):
    spawn = [s.figures["spawn_s"] for s in students if "spawn_s" in s.figures]
    cells = [seconds for s in students for seconds, _ in s.cells]
    errors = sum(status != "ok" for s in students for _, status in s.cells)
    rss = [s.figures["rss_mb"] for s in students if "rss_mb" in s.figures]
    pss = [s.figures["pss_mb"] for s in students if "pss_mb" in s.figures]
    failures = [f for s in students for f in s.failures]

    def line(name, values, unit):
        if not values:
            return f"{name:<28} none"
        return (f"{name:<28} median {statistics.median(values):8.2f} {unit}   p95 {percentile(values, 0.95):8.2f} "
                f"{unit}   max {max(values):8.2f} {unit}   (n={len(values)})")

    print(f"\n=== {len(students)} students at once, {os.cpu_count()} CPUs, "
          f"{psutil.virtual_memory().total / 1e9:.0f} GB; whole run {wall:.0f} s ===")
    print(line("login (token)", [s.figures["login_s"] for s in students if "login_s" in s.figures], "s"))
    print(line("spawn (request to ready)", spawn, "s"))
    print(line("fetch", [s.figures["fetch_s"] for s in students if "fetch_s" in s.figures], "s"))
    print(line("cell latency", cells, "s"))
    print(line("all cells of the notebook", [s.figures["cells_s"] for s in students
                                             if "cells_s" in s.figures], "s"))
    print(line("validate", [s.figures["validate_s"] for s in students if "validate_s" in s.figures], "s"))
    print(line("submit", [s.figures["submit_s"] for s in students if "submit_s" in s.figures], "s"))
    print(line("memory per student, RSS", rss, "MB"))
    print(line("memory per student, PSS", pss, "MB"))
    print(f"cells run: {len(cells)} ({errors} raised in the kernel: the notebook's unanswered exercises)")
    answers = [s.figures["validate_answer"] for s in students if "validate_answer" in s.figures]
    print(f"validate answered: {answers.count('True')} of {len(students)} (an answer, whatever it says)")
    print(f"failures: {len(failures)}")
    for failure in failures:
        print("  " + failure)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=10, help="simulated students at once (default: 10)")
    parser.add_argument("--unit", default="lab01", help="the unit they work on (default: lab01)")
    parser.add_argument("--prefix", default=f"ld{os.getpid() % 100000}",
                        help="prefix of the system users made for the run (default: ld and this PID)")
    arguments = parser.parse_args(argv)
    if os.geteuid() != 0:
        raise SystemExit("the classroom makes system users: run as root")
    work = Path(tempfile.mkdtemp(prefix=f"{arguments.prefix}-load-"))
    work.chmod(0o755)  # the students reach the exchange inside it
    assignment = f"{arguments.unit}-en"
    notebook = next((ROOT / "release" / assignment).glob("*.ipynb"))
    try:
        url, _, people = start_class(arguments.students, arguments.prefix, arguments.unit, work)
        students = [Student(url, p["login"], p["password"], assignment, "en") for p in people
                    if p["role"] == "student"]
        started = time.monotonic()
        threads = [threading.Thread(target=s.run, args=(notebook,)) for s in students]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        report(students, time.monotonic() - started)
    finally:
        if (work / "state").exists():
            remove_class(work / "state", arguments.prefix, work)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
