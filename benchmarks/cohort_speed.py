"""How fast a cohort is graded, unit by unit: a benchmark that prints its figures (not a test).

    python benchmarks/cohort_speed.py [--units theory03 lab01 lab03] [--students 6]
                                      [--workers N] [--dask] [--graceful] [--no-caches]
                                      [--cold] [--plot FILE.png]

In one temporary course copy, for each unit (its English assignment), the same
cohort (honest work, one exercise left as handed out, nothing answered, in
turns) is graded, each run from scratch (`--force`), side by side:

1. stock serial `nbgrader autograde`, stock configuration (nbgrader's own
   Execute, no sandbox, no limits): the baseline of speed; its verdicts are not the
   course's (without the course's plugins no hidden check is decided);
2. stock serial `nbgrader autograde` with the course's configuration (sandboxed), each
   kernel a new Python: the sandbox's overhead, and the verdicts every other run must give;
3. our parallel `python -m grader grade --workers N` (kernels forked warm:
   grader/sandbox/warm_start.py);
4. with --dask: the same command with `--scheduler`: the kernels on a Dask
   cluster of N single-threaded worker processes started on this machine
   (loopback), so what it measures is Dask's overhead over local parallel
   grading; across machines the cluster adds their cores;
5. with --graceful: the parallel command with each kernel shut down gracefully
   (nbclient's default) instead of killed at once, for what the kill saves;
6. with --no-caches: the parallel command with each kernel building its own
   caches (grader/sandbox/kernel_caches.py), for what they save;
7. with --cold: the parallel command with each kernel a new Python, for what
   warm kernels save (and stock serial with the course's configuration and warm
   kernels).

For each it prints the cost per submission and the time 300 submissions would
take at that rate, and whether every student's verdicts (each graded cell's score
and reason, its drawn numbers blanked) are those of stock nbgrader with the course's
configuration; then
the ratio to stock serial, the peak memory of one
worker (its grading process and its kernel) and where one submission's time
goes (benchmarks/grading_steps.py: process start and imports, sandbox set-up,
kernel start, the notebook's cells, hidden evidence, the grader's decisions,
gradebook writes, feedback). A warm-up grading comes first, so that no run
pays for cold caches alone. The machine is usually shared: compare the ratios
of one run, not seconds across runs.
"""
import argparse
import contextlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from course.names import UNITS
from grader.cohort.forking import environment
from grader.demo import fill
from grader.reports.report import verdicts

MIX = ("honest", "one-left", "unanswered")
STOCK_CONFIG = 'c = get_config()  # noqa: F821\nc.CourseDirectory.course_id = "autograd-by-hand"\n'
PROJECTED = 300  # submissions: a large lab
REFERENCE = "stock serial nbgrader autograde, course config"  # whose verdicts every run must give
COLD = "--SandboxedKernelManager.warm_start=False"


def cpu_seconds():
    """CPU time of the finished child processes so far (kernels included: each is waited for)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def nbgrader(root, *arguments):
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "nbgrader", *arguments, f"--CourseDirectory.root={root}",
                    "--log-level=ERROR"], cwd=root, env=environment(), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - started


def answered(folder, assignment, kind):
    """The release, answered with the instructor's solution: all of it (honest), all but
    the first exercise (one-left), or none (unanswered)."""
    name = notebook_name(folder, assignment)
    release = nbformat.read(folder / "release" / assignment / name, 4)
    source = nbformat.read(folder / "source" / assignment / name, 4)
    solution = [(c.metadata["nbgrader"]["grade_id"], c.source) for c in source.cells
                if c.metadata.get("nbgrader", {}).get("solution")]
    return fill(release, dict({"honest": solution, "one-left": solution[1:], "unanswered": []}[kind]))


def notebook_name(folder, assignment):
    return next((folder / "release" / assignment).glob("*.ipynb")).name


def make_course(folder, assignments, students):
    for name in ("notebooks", "source", "release"):
        shutil.copytree(ROOT / name, folder / name)
    shutil.copy(ROOT / "nbgrader_config.py", folder)
    for assignment in assignments:
        nbgrader(folder, "generate_assignment", assignment, "--force")
        for k in range(students):
            kind = MIX[k % len(MIX)]
            path = folder / "submitted" / f"s{k:03d}-{kind}" / assignment
            path.mkdir(parents=True)
            nbformat.write(answered(folder, assignment, kind),
                           path / notebook_name(folder, assignment))


def steps_of_one(folder, assignment, student):
    """benchmarks/grading_steps.py's figures for one submission, in a new process."""
    spawned = time.monotonic()
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "grading_steps.py"),
                           str(folder), assignment, student, f"--spawned-at={spawned}"],
                          cwd=folder, env=environment(), check=True, capture_output=True,
                          text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


@contextlib.contextmanager
def local_dask(workers):
    """A Dask scheduler and `workers` single-threaded worker processes on loopback;
    yields the scheduler's address; stops them by their process ids."""
    folder = Path(tempfile.mkdtemp(prefix="course-bench-dask-"))
    file = folder / "scheduler.json"
    dask = [sys.executable, "-m", "dask"]
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "cwd": folder,
             # its scratch space in its folder, not /tmp/dask-scratch-space (left behind)
             "env": {**os.environ, "DASK_TEMPORARY_DIRECTORY": str(folder)}}
    processes = [subprocess.Popen([*dask, "scheduler", "--host", "127.0.0.1", "--port", "0",
                                   "--no-dashboard", "--scheduler-file", str(file)], **quiet)]
    try:
        deadline = time.monotonic() + 120
        while not file.exists():
            if time.monotonic() > deadline:
                raise RuntimeError("the Dask scheduler did not start")
            time.sleep(0.2)
        address = json.loads(file.read_text())["address"]
        processes.append(subprocess.Popen(
            [*dask, "worker", address, "--nworkers", str(workers), "--nthreads", "1",
             "--no-dashboard", "--host", "127.0.0.1", "--local-directory", str(folder)], **quiet))
        from grader.cohort.cluster import threads_of
        while threads_of(address) < workers:
            if time.monotonic() > deadline:
                raise RuntimeError("the Dask workers did not start")
            time.sleep(0.5)
        yield address
    finally:
        for process in processes[::-1]:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(folder, ignore_errors=True)


def grade_command(folder, assignment, workers, *options):
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "grader", "grade", assignment, "--force",
                    f"--workers={workers}", "--no-progress", *options], cwd=folder,
                   env=environment(), check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.monotonic() - started


def plot(path, rates, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(figsize=(6, 3), dpi=100)
    axes.barh(list(rates), list(rates.values()), color="#4477aa")
    for y, rate in enumerate(rates.values()):
        axes.text(rate, y, f" {rate:.1f}", va="center")
    axes.set_xlabel("submissions per minute")
    axes.set_title(title, fontsize=9)
    axes.invert_yaxis()
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def measure(folder, assignment, n, arguments):
    """Seconds for the whole cohort, each way, each way's verdicts, and one submission's steps."""
    ours_config = (folder / "nbgrader_config.py").read_text()
    nbgrader(folder, "autograde", assignment, "--student=s000-honest", "--force")  # warm-up
    runs, verdicts_of = {}, {}

    def run(name, seconds):
        runs[name] = seconds
        verdicts_of[name] = verdicts(folder, assignment)
    (folder / "nbgrader_config.py").write_text(STOCK_CONFIG)
    cpu = cpu_seconds()
    run("stock serial nbgrader autograde (unsandboxed)", nbgrader(
        folder, "autograde", assignment, "--force"))
    stock_cores = (cpu_seconds() - cpu) / runs["stock serial nbgrader autograde (unsandboxed)"]
    (folder / "nbgrader_config.py").write_text(ours_config)
    run(REFERENCE, nbgrader(folder, "autograde", assignment, "--force", COLD))
    if arguments.cold:
        run("stock serial, course config, warm kernels", nbgrader(folder, "autograde", assignment, "--force"))
        run("ours, cold kernels", grade_command(folder, assignment, arguments.workers, COLD))
    if arguments.graceful:
        run("ours, kernels shut down gracefully", grade_command(
            folder, assignment, arguments.workers, "--GradingExecute.shutdown_kernel=graceful"))
    if arguments.no_caches:
        run("ours, no kernel caches", grade_command(
            folder, assignment, arguments.workers, "--SandboxedKernelManager.use_kernel_caches=False"))
    run(f"our python -m grader grade --workers {arguments.workers}", grade_command(
        folder, assignment, arguments.workers))
    if arguments.dask:
        with local_dask(arguments.workers) as address:
            run(f"ours on Dask ({arguments.workers} local workers)", grade_command(
                folder, assignment, arguments.workers, f"--scheduler={address}"))
    steps = steps_of_one(folder, assignment, "s000-honest")
    return runs, verdicts_of, stock_cores, steps


def report(assignment, n, runs, verdicts_of, stock_cores, steps):
    stock = next(iter(runs.values()))
    reference = verdicts_of[REFERENCE]
    print(f"\n== {assignment}: {n} submissions ({', '.join(MIX)} in turns)")
    for index, (name, seconds) in enumerate(runs.items()):
        differ = [s for s in sorted(reference) if verdicts_of[name].get(s) != reference[s]]
        same = ("(not the course's verdicts)" if index == 0 else "verdicts: the reference" if name == REFERENCE
                else "verdicts as the reference" if not differ else "verdicts DIFFER: " + ", ".join(differ))
        print(f"  {name:52s} {seconds:7.1f} s  {seconds / n:5.2f} s each  "
              f"{PROJECTED} in {PROJECTED * seconds / n / 60:5.1f} min  "
              f"{stock / seconds:4.2f}x stock  {same}")
    compared = sum(len(cells) for cells in reference.values())
    print(f"  the reference's points ({compared} graded cells compared, score and reason):",
          ", ".join(f"{s} {sum(score for score, _ in cells.values()):g}" for s, cells in sorted(reference.items())))
    print(f"  cores busy on average during stock serial grading: {stock_cores:.2f} "
          f"(so at most {os.cpu_count() / stock_cores:.2f}x stock on {os.cpu_count()} cores)")
    memory = {k: v for k, v in steps.items() if k.startswith("peak MiB")}
    print(f"  peak memory of one worker: {sum(memory.values()):.0f} MiB ("
          + ", ".join(f"{k[len('peak MiB, '):]} {v:.0f}" for k, v in memory.items()) + ")")
    timings = {k: v for k, v in steps.items() if not k.startswith("peak MiB")}
    once = {k: v for k, v in timings.items() if "once per run" in k}
    each = {k: v for k, v in timings.items() if k not in once}
    print(f"  one honest submission graded alone, step by step ({sum(each.values()):.2f} s, "
          "and once per run:", ", ".join(f"{k} {v:.2f} s" for k, v in once.items()) + "):")
    for name, seconds in each.items():
        print(f"    {name:40s} {seconds:6.2f} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--units", nargs="+", choices=UNITS, default=list(UNITS),
                        help=f"the units graded (default: all, {' '.join(UNITS)})")
    parser.add_argument("--students", type=int, default=6, help="submissions per unit (default: 6)")
    parser.add_argument("--workers", type=int, default=os.cpu_count(),
                        help=f"submissions graded at once by the parallel command (default: the cores, {os.cpu_count()})")
    parser.add_argument("--dask", action="store_true", help="also on a local Dask cluster (default: not)")
    parser.add_argument("--graceful", action="store_true",
                        help="also our parallel command with kernels shut down gracefully (default: not)")
    parser.add_argument("--no-caches", action="store_true",
                        help="also our parallel command without the kernels' caches (default: not)")
    parser.add_argument("--cold", action="store_true",
                        help="also our parallel command, and stock serial, with kernels started cold (default: not)")
    parser.add_argument("--plot", default=None, metavar="FILE.png",
                        help="also draw submissions per minute as a bar chart (default: no plot)")
    arguments = parser.parse_args()
    n = arguments.students
    assignments = [f"{unit}-en" for unit in arguments.units]
    folder = Path(tempfile.mkdtemp(prefix="course-bench-"))
    results = {}
    try:
        make_course(folder, assignments, n)
        for assignment in assignments:
            results[assignment] = measure(folder, assignment, n, arguments)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"{os.cpu_count()} cores, load average (1 min) at the end {os.getloadavg()[0]:.2f}, "
          "shared with other work")
    for assignment, (runs, verdicts_of, stock_cores, steps) in results.items():
        report(assignment, n, runs, verdicts_of, stock_cores, steps)
    if arguments.plot:
        rates = {f"{a}: {name.split(' (')[0]}": 60 * n / seconds
                 for a, (runs, _, _, _) in results.items() for name, seconds in runs.items()}
        plot(arguments.plot, rates, f"{n} submissions a unit, {os.cpu_count()} cores, "
                                    f"load {os.getloadavg()[0]:.1f}")
        print(f"wrote {arguments.plot}")


if __name__ == "__main__":
    main()
