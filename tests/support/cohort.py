"""What tests of `python -m grader grade` share beyond a course copy: theory03's small
cohort and its serial grading by stock nbgrader (the baseline every parallel run is
compared with, graded once per session), stand-ins for nbgrader's grading process (no
kernels: cheap), and a local Dask cluster."""
import json
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from grader.demo import WRONG

THEORY03 = ("theory03-en", "theory03-es")
# totals the cohort must get (the hard-coded notebook keeps its two predictions: they are recorded)
EXPECTED = {"a-fork-bomb": 14, "a-honest": 14, "b-wrong": 12, "c-hard-coded": 2, "blank": 0}


def theory03_cohort(course, assignment):
    """name -> notebook. Sorted names put the fork bomb and honest work side by side."""
    from .corpus import FORK_BOMB, HARD, cell
    from .course import fill
    bomb = course.solved(assignment)
    bomb.cells.insert(4, cell(FORK_BOMB))
    names = {"a-fork-bomb": bomb, "a-honest": course.solved(assignment),
             "b-wrong": fill(course.solved(assignment), WRONG),
             "c-hard-coded": fill(course.solved(assignment), HARD)}
    if assignment == "theory03-es":
        del names["b-wrong"]  # each graded notebook costs seconds on 2 cores
    return names


def serial_theory03(grader):
    """A course copy where stock `nbgrader autograde` graded, one after another, kernels started
    cold, and under
    the corpus's limits, theory03's cohort in both languages and, in English, the blank
    release too: the baseline tests/test_cohort.py and tests/test_gradebook_postgres.py
    compare their runs with (the `serial_theory03` fixture makes it once per session)."""
    from .corpus import COLD_KERNELS, LIMITS
    from .course import Course, course_folder
    course = Course(course_folder(), grader, generated=THEORY03)
    for assignment in THEORY03:
        submissions = theory03_cohort(course, assignment)
        if assignment == "theory03-en":
            submissions["blank"] = course.release(assignment)
        for name, nb in submissions.items():
            course.submit(name, assignment, nb)
        done = course.nbgrader("autograde", assignment, *LIMITS, COLD_KERNELS, check=False)
        assert done.returncode == 0, done.stderr[-3000:]
    return course


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
    (folder / "listening").write_text("")  # a Ctrl-C now is heard
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
    # the scheduler's scratch space in the folder removed at the end, not /tmp/dask-scratch-space
    run_as["env"]["DASK_TEMPORARY_DIRECTORY"] = str(folder)
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
        from grader.cohort.cluster import threads_of
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
