"""Where one submission's grading time goes: a benchmark that prints its figures (not a test).

    python benchmarks/grading_steps.py COURSE ASSIGNMENT STUDENT [--spawned-at T] [nbgrader options]

Grades one submission of a course folder (already generated and submitted) with
`nbgrader autograde` and the course's configuration, in this process, with a
timer around each step, then writes its feedback; prints one JSON object:
seconds per step, and the peak memory (MiB) of this grading process, of its
kernel (its cgroup's peak; without one, the largest process waited for) and of the
zygote its kernels share. The steps:

- process start and imports: from `--spawned-at` (a CLOCK_MONOTONIC reading taken
  by whoever started this process) to nbgrader, the grader and the unit's checks
  imported; `python -m grader grade` pays it once per run (it forks its grading
  processes from a process that has imported them);
- preflight: a kernel checks the course it runs (once per run, not per submission);
- kernel caches and zygote: matplotlib's font list and lab 03's mypy cache, built
  once per run (grader/sandbox/kernel_caches.py), and the process every kernel is
  forked from, which imports ipykernel, numpy and torch once (grader/sandbox/warm_start.py);
- nbgrader: the app's start, the gradebook's submission record, copying and
  reading the notebook, the sanitizing preprocessors (what is left of the total);
- sandbox set-up: the kernel's command, cgroup, private folder, sealing, clean-up;
- kernel start: bubblewrap, the kernel forked into its sandbox (or, cold, Python and
  ipykernel starting), up to its first answer;
- kernel shutdown: the kernel stopped, its client's sockets closed;
- the notebook's imports (its first code cell: torch, numpy, matplotlib...);
- the notebook's cells: the other cells that are not graded tests;
- hidden evidence: the graded test cells (visible and hidden tests);
- the grader's decisions (grader/verdicts.py);
- gradebook writes: nbgrader's SaveAutoGrades, SaveBonus and late penalties;
- feedback: `nbgrader generate_feedback` for this student (the app's start included).
"""
import argparse
import contextlib
import json
import os
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path

STARTED = time.monotonic()
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.sandbox.warm_start import ZYGOTE_VARIABLE, zygote_pid

spent = defaultdict(float)
kernel_peaks = []  # MiB, from each kernel's cgroup


def timed(owner, name, step, key=None):
    """Wrap owner.name so that its time is added to `step` (or to key(args))."""
    original = getattr(owner, name)

    def wrapper(*args, **kwargs):
        started = time.monotonic()
        try:
            return original(*args, **kwargs)
        finally:
            spent[key(*args) if key else step] += time.monotonic() - started
    setattr(owner, name, wrapper)


def timed_context(owner, name, step, exit_step):
    """Wrap a context-manager method: the time to enter it is added to `step`, the
    time to leave it to `exit_step`."""
    original = getattr(owner, name)

    @contextlib.contextmanager
    def wrapper(*args, **kwargs):
        started = time.monotonic()
        manager = original(*args, **kwargs)
        value = manager.__enter__()
        spent[step] += time.monotonic() - started
        try:
            yield value
        except BaseException:
            started = time.monotonic()
            if not manager.__exit__(*sys.exc_info()):
                raise
        else:
            started = time.monotonic()
            manager.__exit__(None, None, None)
        finally:
            spent[exit_step] += time.monotonic() - started
    setattr(owner, name, wrapper)


def instrument():
    from nbgrader.preprocessors import AssignLatePenalties, SaveAutoGrades

    from grader.checks.verdicts import is_graded_test
    from grader.plugins import execute
    from grader.sandbox.kernel import SandboxedKernelManager

    release = SandboxedKernelManager.release_sandbox

    def peak_then_release(self):
        group = getattr(self, "_group", None)
        for name in ("memory.peak", "memory.max_usage_in_bytes"):  # cgroup v2, v1
            file = group.folders[0] / name if group is not None else None
            if file is not None and file.exists():
                kernel_peaks.append(int(file.read_text()) / 1024 ** 2)
                break
        return release(self)
    SandboxedKernelManager.release_sandbox = peak_then_release
    for name in ("format_kernel_cmd", "seal_private"):  # while the kernel starts
        timed(SandboxedKernelManager, name, "_sandbox at the start")
    timed(SandboxedKernelManager, "release_sandbox", "_sandbox at the end")
    timed_context(execute.GradingExecute, "started_kernel", "kernel start", "kernel shutdown")
    first = {}

    def cell_step(_self, cell, resources, index):
        if cell.cell_type == "code" and not first:
            first[index] = True
        if is_graded_test(cell):
            return "hidden evidence"
        return "the notebook's imports" if index in first else "the notebook's cells"
    timed(execute.GradingExecute, "preprocess_cell", None, cell_step)
    timed(execute, "decide", "the grader's decisions")
    timed(SaveAutoGrades, "preprocess", "gradebook writes")
    timed(AssignLatePenalties, "preprocess", "gradebook writes")


def run_nbgrader(*argv):
    from nbgrader.apps.nbgraderapp import NbGraderApp
    from traitlets.config import Application
    for cls in list(type(Application.instance()).__mro__) if Application.initialized() else []:
        if hasattr(cls, "clear_instance"):
            cls.clear_instance()
    Application.clear_instance()
    sys.argv = ["nbgrader", *argv]
    NbGraderApp.launch_instance(argv=list(argv))


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("course", help="a course folder with the submission (submitted/STUDENT/ASSIGNMENT/)")
    parser.add_argument("assignment", help="the assignment: theory03-en, lab01-es, ...")
    parser.add_argument("student", help="the student whose submission is graded")
    parser.add_argument("--spawned-at", type=float, default=STARTED,
                        help="CLOCK_MONOTONIC when this process was started (default: now)")
    arguments, options = parser.parse_known_args()
    os.chdir(arguments.course)
    import nbgrader.apps.nbgraderapp  # noqa: F401 (timed with the imports)

    import grader.plugins.wiring  # noqa: F401
    from grader.cohort.forking import warm_up
    warm_up(None, arguments.assignment)  # what `grader grade` imports before it forks
    from grader.config import load_config
    from grader.sandbox.preflight import refuse_on_mismatch
    imported = time.monotonic()
    steps = {"process start and imports": imported - arguments.spawned_at}
    warm_up(None, arguments.assignment, arguments.course)  # now the kernels' caches and zygote too
    built = time.monotonic()
    steps["kernel caches and zygote (once per run)"] = built - imported
    refuse_on_mismatch(load_config(arguments.course, options))
    steps["preflight (once per run)"] = time.monotonic() - built
    instrument()
    common = [f"--CourseDirectory.root={arguments.course}", "--log-level=ERROR", *options]
    started = time.monotonic()
    run_nbgrader("autograde", arguments.assignment, f"--student={arguments.student}", "--force",
             *common)
    total = time.monotonic() - started
    inside = spent.pop("_sandbox at the start")  # part of the kernel start's time
    steps["nbgrader"] = total - sum(spent.values())
    steps["sandbox set-up"] = inside + spent.pop("_sandbox at the end")
    spent["kernel start"] -= inside
    for step in ("kernel start", "kernel shutdown", "the notebook's imports", "the notebook's cells",
                 "hidden evidence", "the grader's decisions", "gradebook writes"):
        steps[step] = spent[step]
    started = time.monotonic()
    run_nbgrader("generate_feedback", arguments.assignment, f"--student={arguments.student}",
             "--force", *common)
    steps["feedback"] = time.monotonic() - started
    mib = 1024  # ru_maxrss is in KiB on Linux
    steps["peak MiB, grading process"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / mib
    # without a cgroup: the largest process waited for (the kernel's, when its parents wait)
    steps["peak MiB, kernel"] = max(kernel_peaks or [
        resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / mib])
    zygote = os.environ.get(ZYGOTE_VARIABLE)
    if zygote:  # its pages are every kernel's, shared, and counted here once
        steps["peak MiB, zygote (once per grading process)"] = zygote_peak(zygote) / mib
    print(json.dumps(steps))


def zygote_peak(socket_path):
    """The zygote's peak resident memory in KiB."""
    try:
        status = Path(f"/proc/{zygote_pid(socket_path)}/status").read_text()
        return int(next(line for line in status.splitlines() if line.startswith("VmHWM")).split()[1])
    except (OSError, StopIteration):
        return 0


if __name__ == "__main__":
    main()
