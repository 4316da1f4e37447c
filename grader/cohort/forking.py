"""The grading processes: each forked from this one, after nbgrader is imported once, and
interrupted as Ctrl-C would if this process dies (a parent-death signal), so none goes on
grading unwatched."""
import ctypes
import glob
import importlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from course.names import UNITS, unit_and_language


def command(root, assignment, student, options):
    # --student is a glob in nbgrader: escape it, so one process grades exactly one student
    return [sys.executable, "-m", "nbgrader", "autograde", assignment,
            f"--student={glob.escape(student)}", f"--CourseDirectory.root={root}", *options]


class Forked:
    """A grading process forked from this one: `argv` run as `python -m nbgrader ...` would
    run it, without paying again for starting Python and importing nbgrader (seconds per
    submission, about what grading it costs). A stand-in command (tests) runs as a program."""

    def __init__(self, argv, cwd, log):
        self.returncode = None
        sys.stdout.flush(), sys.stderr.flush()  # nothing buffered is written twice
        parent = os.getpid()
        self.pid = os.fork()
        if self.pid == 0:  # the child: never returns
            code = 1
            try:
                # a session of its own: the terminal's Ctrl-C reaches only the parent,
                # which interrupts each grading process exactly once
                os.setsid()
                interrupt_when_orphaned(parent)
                fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                os.dup2(fd, 1), os.dup2(fd, 2)
                null = os.open(os.devnull, os.O_RDONLY)
                os.dup2(null, 0)
                os.chdir(cwd)
                os.environ.update(environment())
                if argv[1:3] != ["-m", "nbgrader"]:
                    os.execv(argv[0], argv)
                signal.signal(signal.SIGINT, signal.default_int_handler)
                sys.argv = ["nbgrader", *argv[3:]]
                from nbgrader.apps.nbgraderapp import main as nbgrader_main
                nbgrader_main()
                code = 0
            except SystemExit as done:
                code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
            except BaseException:  # noqa: BLE001 (a forked child must never return into the parent)
                import traceback
                traceback.print_exc()
            finally:
                sys.stdout.flush(), sys.stderr.flush()
                os._exit(code)

    def poll(self):
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout=None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired("nbgrader", timeout)
            time.sleep(0.05)
        return self.returncode

    def send_signal(self, number):
        if self.poll() is None:
            os.kill(self.pid, number)


PR_SET_PDEATHSIG = 1  # prctl(2): a signal this process gets when its parent dies


def interrupt_when_orphaned(parent):
    """If the parent dies (killed, its terminal closed), interrupt this grading process
    as Ctrl-C would: nbgrader then removes the submission it had not finished."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGINT)
    if os.getppid() != parent:  # it died before the request was made
        os.kill(os.getpid(), signal.SIGINT)


def warm_up(scheduler=None, assignment="", root=None, options=()):
    """Import, once, what every grading process needs (the children inherit it): nbgrader,
    and the checks of the assignment's unit with what they import (lab 01's: torch, seconds
    a process); and, where the kernels run on this machine, build their caches
    (grader/sandbox/kernel_caches.py) and start the zygote they are forked from
    (grader/sandbox/warm_start.py)."""
    import nbgrader.apps.autogradeapp
    import nbgrader.apps.nbgraderapp  # noqa: F401

    import grader.plugins.wiring  # noqa: F401  (what nbgrader_config.py imports)
    unit = (unit_and_language(assignment) or ("",))[0]
    if unit in UNITS:
        importlib.import_module(f"grader.checks.{unit}")
    if scheduler:
        import distributed  # noqa: F401  (each process sends its submission through a client)
    elif root is not None and Path(root, "nbgrader_config.py").exists():
        # (without the course's configuration its kernels are stock nbgrader's: no sandbox)
        import nbformat

        from grader.plugins.execute import runs_mypy
        from grader.sandbox import kernel_caches
        from grader.shared import course_folder
        sources = course_folder(root, "source", ".", assignment).glob("*.ipynb")
        kernel_caches.ready(mypy=any(runs_mypy(nbformat.read(path, 4)) for path in sources))
        from grader.config import load_config
        from grader.sandbox.kernel import SandboxedKernelManager
        manager = SandboxedKernelManager(config=load_config(root, options))
        if manager.sandbox and manager.warm_start:
            manager.start_zygote()


def launch(argv, root, log):
    return Forked(argv, root, log)


def environment():
    env = dict(os.environ)
    # nbgrader runs `alembic` from PATH: find it beside this interpreter
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", os.defpath)
    return env
