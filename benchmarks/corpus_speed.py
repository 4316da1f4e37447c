"""The hostile corpus graded serially and in parallel, side by side: a benchmark
that prints its figures (not a test).

    python benchmarks/corpus_speed.py [--workers 2] [--cases NAME ...]

Two course copies get every case of tests/support/corpus.py, as tests/test_hostile.py
builds them. One is graded by serial stock `nbgrader autograde`, the other by
`python -m grader grade --workers N`, with the corpus's limits. It prints both
times, the ratio, and whether every case got the same score and the same reasons
(numbers and signs blanked: each run draws its own inputs).

The serial baseline is stock `nbgrader autograde` with the course's configuration
(sandboxed), not the stock unsandboxed one of benchmarks/cohort_speed.py: unsandboxed,
the fork bomb, the memory bombs and the thieves would run on this machine as you.
"""
import argparse
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from grader.reports.report import cohort
from tests.support.corpus import (
    ASSIGNMENT,
    CASES,
    LIMITS,
    Listener,
    corpus_course,
    outcomes,
)
from tests.support.course import Grader
from tests.support.processes import done


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=2,
                        help="submissions graded at once by the parallel command (default: 2)")
    parser.add_argument("--cases", nargs="+", choices=sorted(CASES), default=sorted(CASES),
                        help="grade only these cases (default: all)")
    arguments = parser.parse_args()
    workers, names = arguments.workers, arguments.cases
    grader, listener = Grader(), Listener()
    serial, parallel = (corpus_course(grader, listener, names), corpus_course(grader, listener, names))
    try:
        started = time.monotonic()
        serial.nbgrader("autograde", ASSIGNMENT, "--force", *LIMITS, check=False)
        serial_seconds = time.monotonic() - started
        started = time.monotonic()
        run = parallel.grade(ASSIGNMENT, *LIMITS, workers=workers)
        parallel_seconds = time.monotonic() - started
        one, other = (outcomes(cohort(course.root, ASSIGNMENT)[1]) for course in (serial, parallel))
    finally:
        listener.running = False
        for course in (serial, parallel):
            shutil.rmtree(course.root, ignore_errors=True)
        done()  # the copy where stock nbgrader generated the assignment
        grader.close()
    scores = [name for name in one if one[name][0] != other.get(name, (None,))[0]]
    reasons = [name for name in one if one[name][1] != other.get(name, (None, None))[1]]
    print(f"hostile corpus: {len(names)} theory03-en cases, limits {' '.join(LIMITS)}")
    print(f"serial stock nbgrader autograde (sandboxed): {serial_seconds:6.1f} s")
    print(f"parallel grader grade --workers {workers}:         {parallel_seconds:6.1f} s "
          f"(exit status {run.returncode})")
    print(f"parallel vs serial: {serial_seconds / parallel_seconds:.2f}x faster")
    print(f"same score: {len(one) - len(scores)} of {len(one)} cases"
          + (f" (differ: {', '.join(scores)})" if scores else ""))
    print(f"same reasons: {len(one) - len(reasons)} of {len(one)} cases"
          + (f" (differ: {', '.join(reasons)})" if reasons else ""))
    for name in reasons:
        for key in sorted(set(one[name][1]) | set(other.get(name, (0, {}))[1])):
            serial_reason, parallel_reason = one[name][1].get(key), other[name][1].get(key)
            if serial_reason != parallel_reason:
                print(f"  {name} {key}:\n    serial:   {serial_reason}\n    parallel: {parallel_reason}")


if __name__ == "__main__":
    main()
