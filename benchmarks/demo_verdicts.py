"""The demo cohort's verdicts, parallel and serial: a check that prints what it compared (not a test).

    python benchmarks/demo_verdicts.py [--workers N]

Runs the README's main job (`python -m grader demo`: theory03 in both languages, honest
work, a wrong answer, hard-coded answers, a fork bomb and a snoop, graded in parallel),
then grades a copy of its course again with stock serial `nbgrader autograde` under the
course's configuration, each kernel a new Python (not forked warm), and compares every graded cell's score and reason (drawn numbers
blanked, as `grader.reports.report.shape_of` does) of every student. Prints each
difference, and how many cells were compared; exits 1 on any difference.
"""
import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from course.names import LANGUAGES
from grader.cohort.forking import environment
from grader.reports.report import verdicts

ASSIGNMENTS = [f"theory03-{lang}" for lang in LANGUAGES]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=None, help="the demo's parallel workers (default: the machine's cores)")
    arguments = parser.parse_args()
    demo = subprocess.run([sys.executable, "-m", "grader", "demo", "--no-progress",
                           *([f"--workers={arguments.workers}"] if arguments.workers else [])],
                          cwd=ROOT, env=environment(), capture_output=True, text=True, check=True)
    folder = Path(demo.stdout.split("demo course in ")[1].split(":")[0])
    serial = Path(tempfile.mkdtemp(prefix="course-bench-verdicts-")) / "course"
    differences, compared = [], 0
    try:
        shutil.copytree(folder, serial, symlinks=True)
        for assignment in ASSIGNMENTS:
            subprocess.run([sys.executable, "-m", "nbgrader", "autograde", assignment, "--force",
                            "--SandboxedKernelManager.warm_start=False",
                            f"--CourseDirectory.root={serial}", "--log-level=ERROR"], cwd=serial,
                           env=environment(), check=True, capture_output=True)
            parallel, reference = verdicts(folder, assignment), verdicts(serial, assignment)
            for student in sorted(set(parallel) | set(reference)):
                for gid in sorted(set(parallel.get(student, {})) | set(reference.get(student, {}))):
                    compared += 1
                    got, expected = parallel.get(student, {}).get(gid), reference.get(student, {}).get(gid)
                    if got != expected:
                        differences.append(f"{assignment} {student} {gid}: parallel {got} | serial {expected}")
            totals = {student: sum(score for score, _ in cells.values()) for student, cells in parallel.items()}
            print(f"{assignment}: " + ", ".join(f"{s} {t:g}" for s, t in sorted(totals.items())))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(serial.parent, ignore_errors=True)
    for line in differences:
        print("DIFFERS", line)
    print(f"{compared} graded cells compared (score and reason): "
          f"{len(differences)} differ between the demo's parallel grading and stock serial nbgrader "
          "with cold kernels")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
