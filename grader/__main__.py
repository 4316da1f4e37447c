"""Instructors' commands (stock nbgrader does the rest); `python -m grader COMMAND --help` says more.

    python -m grader grade ASSIGNMENT [ASSIGNMENT...] [--workers N] [--force] [--lang en|es] [nbgrader options]
    python -m grader report ASSIGNMENT [--lang en|es] [nbgrader options]   # per-cell scores and reasons (CSV, HTML)
    python -m grader export --lms moodle|canvas [--uncapped] [--allow-ungraded] [--out FOLDER]   # one grade per student per unit
    python -m grader export --lti        # the same grades posted to the LMS (LTI Assignment and Grade Services)
    python -m grader late-flags ASSIGNMENT   # after zip_collect: Canvas's LATE_ uploads stamped late
    python -m grader handout FOLDER      # what students get: release notebooks + the packages they import
    python -m grader demo [--quick]      # a demo cohort (honest, wrong, hard-coded, hostile) graded in parallel
    python -m grader gradcheck           # lab 03's reference gradcheck on every op of minigrad (exit 1 on a bug)
"""
import importlib
import sys

from course.commands import Parser

# command: (the module whose main(argv) parses and runs it, what it does)
COMMANDS = {
    "grade": ("grader.cohort.grading", "grade a whole cohort in parallel (stock nbgrader autograde per submission)"),
    "report": ("grader.reports.report", "per-cell scores and reasons (CSV, HTML), after grading"),
    "export": ("grader.reports.export", "one grade per student per unit, for the LMS"),
    "late-flags": ("grader.plugins.late", "after zip_collect: the uploads Canvas flagged late are stamped late"),
    "handout": ("grader.handout", "what students get: release notebooks and the packages they import"),
    "demo": ("grader.demo", "a demo cohort (honest, wrong, hard-coded, hostile) graded in parallel"),
    "gradcheck": ("grader.gradcheck", "lab 03's reference gradcheck on every op of minigrad (exit 1 on a bug)"),
}


def main(argv=None):
    """The exit status of `python -m grader ARGV`: each command's own parser reads its arguments."""
    parser = Parser(prog="python -m grader", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (_, summary) in COMMANDS.items():
        commands.add_parser(name, help=summary, add_help=False)  # its own parser has the help
    arguments, rest = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    module = importlib.import_module(COMMANDS[arguments.command][0])
    return module.main(rest) or 0


if __name__ == "__main__":
    raise SystemExit(main())
