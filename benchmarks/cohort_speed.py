"""How fast a cohort is graded: a benchmark that prints its figures (not a test).

    python benchmarks/cohort_speed.py [--students 20] [--workers N] [--no-dask] [--plot FILE.png]

In one temporary course copy, the same cohort of theory03-en submissions
(honest, wrong and hard-coded answers, in turns) is graded three ways, each
from scratch (`--force`):

1. stock serial `nbgrader autograde`, stock configuration (nbgrader's own
   Execute, no sandbox, no limits): the baseline;
2. our serial `nbgrader autograde` (the course's configuration: sandboxed);
3. our parallel `python -m grader grade --workers N`;
4. the same command with `--scheduler`: the kernels on a Dask cluster of N
   single-threaded worker processes started on this machine (loopback), so
   what it measures is Dask's overhead over local parallel grading; across
   machines the cluster adds their cores.

Each is also given in submissions per minute (and as a bar chart with --plot).

It prints the parallel-vs-stock ratio, the sandbox's overhead per submission
(2 vs 1), and the floor: starting a kernel and running the notebook's imports,
per submission, measured apart. A warm-up grading comes first, so that no run
pays for cold caches alone.
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
from grader.cohort.grading import environment
from grader.demo import COHORT, submission

ASSIGNMENT = "theory03-en"
MIX = ("honest", "wrong", "hard-coded")
STOCK_CONFIG = 'c = get_config()  # noqa: F821\nc.CourseDirectory.course_id = "autograd-by-hand"\n'


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


def make_course(folder, students):
    for name in ("notebooks", "source", "release"):
        shutil.copytree(ROOT / name, folder / name)
    shutil.copy(ROOT / "nbgrader_config.py", folder)
    nbgrader(folder, "generate_assignment", ASSIGNMENT, "--force")
    for k in range(students):
        kind = MIX[k % len(MIX)]
        path = folder / "submitted" / f"s{k:03d}-{kind}" / ASSIGNMENT / "theory03.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(submission(folder, ASSIGNMENT, *COHORT[kind]), path)


def floor(folder, repeats=5):
    """Seconds to start a kernel and run the notebook's imports (its first code cell)."""
    from jupyter_client.manager import start_new_kernel
    nb = nbformat.read(folder / "release" / ASSIGNMENT / "theory03.ipynb", 4)
    imports = next(c.source for c in nb.cells if c.cell_type == "code")
    times = []
    for _ in range(repeats):
        started = time.monotonic()
        km, kc = start_new_kernel(kernel_name="python3", cwd=str(folder))
        try:
            reply = kc.execute_interactive(imports, timeout=120)
            assert reply["content"]["status"] == "ok", reply["content"]
            times.append(time.monotonic() - started)
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)
    return sum(times) / len(times)


@contextlib.contextmanager
def local_dask(workers):
    """A Dask scheduler and `workers` single-threaded worker processes on loopback;
    yields the scheduler's address; stops them by their process ids."""
    folder = Path(tempfile.mkdtemp(prefix="course-bench-dask-"))
    file = folder / "scheduler.json"
    dask = [sys.executable, "-m", "dask"]
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "cwd": folder}
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


def grade_command(folder, workers, *options):
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "grader", "grade", ASSIGNMENT, "--force",
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


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    parser.add_argument("--no-dask", action="store_true", help="skip the Dask run")
    parser.add_argument("--plot", default=None, metavar="FILE.png",
                        help="also draw submissions per minute as a bar chart")
    arguments = parser.parse_args()
    n = arguments.students
    folder = Path(tempfile.mkdtemp(prefix="course-bench-"))
    try:
        make_course(folder, n)
        ours_config = (folder / "nbgrader_config.py").read_text()
        nbgrader(folder, "autograde", ASSIGNMENT, "--student=s000-honest", "--force")  # warm-up

        (folder / "nbgrader_config.py").write_text(STOCK_CONFIG)
        cpu = cpu_seconds()
        stock = nbgrader(folder, "autograde", ASSIGNMENT, "--force")
        stock_cores = (cpu_seconds() - cpu) / stock
        (folder / "nbgrader_config.py").write_text(ours_config)
        serial = nbgrader(folder, "autograde", ASSIGNMENT, "--force")
        parallel = grade_command(folder, arguments.workers)
        on_dask = None
        if not arguments.no_dask:
            with local_dask(arguments.workers) as address:
                on_dask = grade_command(folder, arguments.workers, f"--scheduler={address}")
        base = floor(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"cohort: {n} theory03-en submissions ({', '.join(MIX)}), {os.cpu_count()} cores, "
          f"load average (1 min) at the end {os.getloadavg()[0]:.2f}, shared with other work")
    print(f"stock serial nbgrader autograde (unsandboxed): {stock:7.1f} s  ({stock / n:.2f} s each)")
    print(f"our serial nbgrader autograde (sandboxed):     {serial:7.1f} s  ({serial / n:.2f} s each)")
    print(f"our parallel grader grade --workers {arguments.workers}:       {parallel:7.1f} s  "
          f"({parallel / n:.2f} s each)")
    if on_dask is not None:
        print(f"our grader grade --scheduler (Dask, {arguments.workers} local workers): "
              f"{on_dask:7.1f} s  ({on_dask / n:.2f} s each)")
    rates = {"stock serial": 60 * n / stock, "ours serial (sandboxed)": 60 * n / serial,
             f"ours parallel ({arguments.workers} workers)": 60 * n / parallel}
    if on_dask is not None:
        rates[f"ours on Dask ({arguments.workers} local workers)"] = 60 * n / on_dask
    print("submissions per minute: " + "; ".join(f"{k} {v:.1f}" for k, v in rates.items()))
    if arguments.plot:
        plot(arguments.plot, rates, f"{n} theory03-en submissions, {os.cpu_count()} cores, "
                                    f"load {os.getloadavg()[0]:.1f}")
        print(f"wrote {arguments.plot}")
    print(f"parallel vs stock serial: {stock / parallel:.2f}x faster")
    print(f"sandbox overhead, serial: {(serial - stock) / n:+.2f} s per submission "
          f"({100 * (serial - stock) / stock:+.0f}%)")
    print(f"floor (kernel start + the notebook's imports): {base:.2f} s per submission")
    # serial stock grading already keeps more than one core busy (nbgrader's own process
    # beside the kernel, and the kernel's numerical threads): N cores give at most N / this
    print(f"cores busy on average during stock serial grading: {stock_cores:.2f} "
          f"(so at most {os.cpu_count() / stock_cores:.2f}x on {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
