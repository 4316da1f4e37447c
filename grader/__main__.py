"""Instructors' commands (stock nbgrader does the rest).

    python -m grader report ASSIGNMENT   # per-cell scores and reasons, after autograde
    python -m grader handout FOLDER      # what students get: release notebooks + the packages they import
    python -m grader grade ASSIGNMENT [--workers N] [--force]   # the whole cohort, in parallel
    python -m grader gradcheck           # lab 03's reference gradcheck on every op of minigrad (exit 1 on a bug)
"""
import sys
from pathlib import Path


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) == 2 and argv[0] == "report":
        from grader.report import write
        write(Path.cwd(), argv[1])
    elif len(argv) == 2 and argv[0] == "handout":
        from grader.handout import write_handout
        write_handout(Path(argv[1]))
    elif argv[:1] == ["grade"] and len(argv) >= 2:
        from grader.cohort import main as grade_main
        raise SystemExit(grade_main(argv[1:]))
    elif argv[:1] == ["gradcheck"]:
        from grader.gradcheck import main as gradcheck_main
        raise SystemExit(gradcheck_main(argv[1:]))
    else:
        raise SystemExit(__doc__)


main()
