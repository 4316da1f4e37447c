"""What tests of `python -m grader grade` share beyond a course copy: stand-ins for
nbgrader's grading process (no kernels: cheap), and a local Dask cluster."""
import json
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path


def stand_in(script):
    """A grading process that runs `script` (with `folder`, `student` and `tries` set)."""
    def make(root, assignment, student, options):
        folder = root / "autograded" / student / assignment
        return [sys.executable, "-c", f"import os, pathlib, signal, sys, time\n"
                f"folder = pathlib.Path({str(folder)!r}); student = {student!r}\n"
                f"tries = pathlib.Path({str(root)!r}) / (student + '.tries')\n" + script]
    return make


STAND_IN = '''
tries.write_text(tries.read_text() + "x" if tries.exists() else "x")
folder.mkdir(parents=True, exist_ok=True)
(folder / "half-written").write_text("")
if student == "dies":
    os.kill(os.getpid(), signal.SIGKILL)
if student == "locked" and len(tries.read_text()) < 2:
    # as nbgrader's log has it: a traceback, ending with the exception line
    print('[AutogradeApp | ERROR] Traceback (most recent call last):   File "base.py", line 1, in '
          'convert_notebooks  sqlalchemy.exc.OperationalError: (sqlite3.OperationalError) '
          'database is locked'); sys.exit(1)
if student == "sleeps":
    signal.signal(signal.SIGINT, lambda *a: (tries.write_text("interrupted"), sys.exit(1)))
    time.sleep(60)
'''


@contextmanager
def local_cluster(grader):
    """A real Dask scheduler and two workers (one submission at a time each), on
    loopback, run as the grading user; yields the scheduler's address."""
    from .course import (
        course_folder,  # not at the top: stand-ins run in light subprocesses
    )
    folder = Path(course_folder())
    grader.own(folder)
    run_as = grader.options()
    file = folder / "scheduler.json"
    dask = [sys.executable, "-m", "dask"]
    processes = [subprocess.Popen([*dask, "scheduler", "--host", "127.0.0.1", "--port", "0",
                                   "--no-dashboard", "--scheduler-file", str(file)],
                                  cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  **run_as)]
    try:
        deadline = time.monotonic() + 60
        while not file.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        address = json.loads(file.read_text())["address"]
        for name in ("w0", "w1"):
            processes.append(subprocess.Popen(
                [*dask, "worker", address, "--name", name, "--nthreads", "1", "--no-dashboard",
                 "--host", "127.0.0.1", "--local-directory", str(folder / name)],
                cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **run_as))
        from grader.cluster import threads_of
        while threads_of(address) < 2:
            assert time.monotonic() < deadline, "the Dask workers did not start"
            time.sleep(0.5)
        yield address
    finally:
        for process in processes[::-1]:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        subprocess.run(["rm", "-rf", str(folder)], check=False)
