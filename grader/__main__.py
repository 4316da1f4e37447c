"""Instructors' commands (stock nbgrader does the rest).

    python -m grader report ASSIGNMENT [--lang en|es]   # per-cell scores and reasons (CSV, HTML), after autograde
    python -m grader handout FOLDER      # what students get: release notebooks + the packages they import
    python -m grader grade ASSIGNMENT [ASSIGNMENT...] [--workers N] [--force] [--lang en|es]   # the whole cohort, in parallel
    python -m grader export --lms moodle|canvas [--uncapped]   # one grade per student per unit, for the LMS
    python -m grader late-flags ASSIGNMENT   # after zip_collect: Canvas's LATE_ uploads stamped late
    python -m grader demo [--quick]      # a demo cohort (honest, wrong, hard-coded, hostile) graded in parallel
    python -m grader gradcheck           # lab 03's reference gradcheck on every op of minigrad (exit 1 on a bug)
"""
import sys
from pathlib import Path


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) in (2, 3) and argv[0] == "report" and (len(argv) == 2 or argv[2][:7] == "--lang="):
        from grader.cohort.grading import write_report
        write_report(Path.cwd(), argv[1], argv[2][7:] if len(argv) == 3 else None, [])
    elif len(argv) == 2 and argv[0] == "handout":
        from grader.handout import write_handout
        write_handout(Path(argv[1]))
    elif argv[:1] == ["grade"] and len(argv) >= 2:
        from grader.cohort.grading import main as grade_main
        raise SystemExit(grade_main(argv[1:]))
    elif argv[:1] == ["export"]:
        from grader.reports.export import main as export_main
        raise SystemExit(export_main(argv[1:]))
    elif argv[:1] == ["late-flags"]:
        from grader.plugins.late import main as late_main
        raise SystemExit(late_main(argv[1:]))
    elif argv[:1] == ["demo"]:
        from grader.demo import main as demo_main
        raise SystemExit(demo_main(argv[1:]))
    elif argv[:1] == ["gradcheck"]:
        from grader.gradcheck import main as gradcheck_main
        raise SystemExit(gradcheck_main(argv[1:]))
    else:
        raise SystemExit(__doc__)


main()
