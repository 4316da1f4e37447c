"""Students' commands; `python -m course COMMAND --help` says more.

    python -m course start theory03-es            # copy, then open it in JupyterLab
    python -m course start theory03-es --no-open  # copy only
    python -m course lab es                       # open JupyterLab again on your work (en/es)
    python -m course submit theory03-es           # check it and write the file to hand in

Further options of `start` and `lab` go to JupyterLab (`--no-browser`, `--port=8899`).
"""
import argparse
import sys

from course.names import DEFAULT_LANGUAGE, LANGUAGES, language_of


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m course", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    jupyter = "further options go to JupyterLab (--no-browser, --port=8899)"
    start = commands.add_parser("start", help="a copy of the assignment of your own, opened in JupyterLab",
                                epilog=jupyter)
    start.add_argument("assignment", help="theory03-en, lab01-es, ...")
    start.add_argument("--no-open", action="store_true", help="copy only, do not open JupyterLab")
    lab = commands.add_parser("lab", help="open JupyterLab again on your work", epilog=jupyter)
    lab.add_argument("lang", nargs="?", choices=LANGUAGES, default=DEFAULT_LANGUAGE)
    submit = commands.add_parser("submit", help="check your work and write the file to hand in")
    submit.add_argument("assignment")
    arguments, jupyter_options = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    if arguments.command == "submit":
        if jupyter_options:
            parser.error(f"unrecognized arguments: {' '.join(jupyter_options)}")
        from course.submit import submit as hand_in
        from course.work import course_root
        return hand_in(arguments.assignment, course_root())
    from course import start as starting
    if arguments.command == "start":
        notebook = starting.start(arguments.assignment)
        if not arguments.no_open:
            starting.lab(language_of(arguments.assignment), notebook, extra=jupyter_options)
    else:
        starting.lab(arguments.lang, extra=jupyter_options)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
