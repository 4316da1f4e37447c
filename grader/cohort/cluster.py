"""Run submissions' kernels on the workers of a Dask cluster.

    python -m grader grade ASSIGNMENT --scheduler tcp://HOST:8786

nbgrader still runs here, on the instructor's machine, and does everything it
does serially: it reads the submission, restores the release's cells, writes
the gradebook and the autograded notebook. Only the step that runs student
code, the one that takes the time, is sent away (`GradingExecute.scheduler`):
one Dask task per submission, carrying

- the notebook as nbgrader will grade it (sources already restored),
- the files of that one submission's folder,
- the grading seed, and the limits from this machine's nbgrader configuration.

The worker runs the cells in its own sandbox (bubblewrap, cgroups or rlimits,
exactly as on this machine) and sends back the outputs (the task's two ends:
grader/plugins/execute.py and grader/plugins/worker.py; this module is the cohort's side:
how many submissions the cluster grades at once, and its workers' preflight). The verdicts are
decided here (`grader/checks/verdicts.py`), never on the worker: a worker needs the
course package and bubblewrap, and sees no gradebook, no references of other
units' answers beyond the installed package, and no other submission.
"""
import subprocess
import sys

from grader.plugins.worker import CONNECT_TIMEOUT


def cluster_threads(scheduler):
    """How many submissions the cluster grades at once (its workers' threads); raises
    SystemExit with a clear message when the scheduler cannot be reached."""
    from distributed import Client

    refused_at_once(scheduler)
    try:
        with Client(scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False) as client:
            return sum(client.nthreads().values())
    except OSError as error:
        raise SystemExit(f"cannot reach the Dask scheduler at {scheduler}: {error}") from None


def refused_at_once(scheduler):
    """A tcp:// address where nothing listens is said at once: Dask's client would
    try again and again for CONNECT_TIMEOUT seconds before giving up."""
    import socket
    from urllib.parse import urlsplit

    address = urlsplit(scheduler)
    if address.scheme != "tcp" or not address.hostname or not address.port:
        return
    try:
        socket.create_connection((address.hostname, address.port), timeout=CONNECT_TIMEOUT).close()
    except OSError as error:
        raise SystemExit(f"cannot reach the Dask scheduler at {scheduler}: {error}") from None


def threads_of(scheduler):
    """cluster_threads, asked from a process of its own: a Dask client leaves
    threads behind, and grader/cohort/forking.py forks the grading processes."""
    result = subprocess.run([sys.executable, "-m", "grader.cohort.cluster", scheduler],
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SystemExit(result.stderr.strip().splitlines()[-1] if result.stderr.strip()
                         else f"cannot reach the Dask scheduler at {scheduler}")
    return int(result.stdout)


def worker_preflight(settings, expected):
    """On a worker: what differs between what a kernel in its sandbox sees and what
    the instructor's grader (`expected`) has (grader/sandbox/preflight.py)."""
    from traitlets.config import Config

    from grader.sandbox.preflight import findings

    return findings(Config(settings), expected)


def preflight_workers(scheduler, settings):
    """[] when every worker's sandboxed kernel runs the course this grader judges with;
    else one line per difference, naming the worker."""
    from distributed import Client

    from grader.sandbox.preflight import grader_facts

    expected = grader_facts()
    with Client(scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False) as client:
        found = client.run(worker_preflight, settings, expected)
    return [f"worker {worker}: {line}" for worker, lines in sorted(found.items()) for line in lines]


def refuse_on_worker_mismatch(scheduler, settings):
    """preflight_workers, asked from a process of its own (see threads_of); SystemExit
    naming every difference."""
    import json
    result = subprocess.run([sys.executable, "-m", "grader.cohort.cluster", "--preflight", scheduler,
                             json.dumps(settings)], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SystemExit("refusing to grade: a Dask worker's kernel would not run the course this "
                         "grader judges with.\n  " + "\n  ".join(
                             result.stdout.strip().splitlines() or result.stderr.strip().splitlines()[-1:]))


if __name__ == "__main__":
    if sys.argv[1] == "--preflight":
        import json

        from traitlets.config.loader import DeferredConfigString
        # strings, as a command line gives them: each trait parses its own (as on a worker's task)
        settings = {section: {name: DeferredConfigString(value) if isinstance(value, str) else value
                              for name, value in values.items()}
                    for section, values in json.loads(sys.argv[3]).items()}
        lines = preflight_workers(sys.argv[2], settings)
        print("\n".join(lines))
        raise SystemExit(1 if lines else 0)
    print(cluster_threads(sys.argv[1]))
