"""Students' commands; `python -m course COMMAND --help` says more.

    python -m course start theory03-es            # copy, then open it in JupyterLab
    python -m course start theory03-es --no-open  # copy only
    python -m course lab es                       # open JupyterLab again on your work (en/es)
    python -m course submit theory03-es           # check it and write the file to hand in
    python -m course settings --sys-prefix PREFIX # student mode in an environment (a hub's, an image's)

Further options of `start` and `lab` go to JupyterLab (`--no-browser`, `--port=8899`).
"""
import sys

from course.commands import (
    CommandError,
    Parser,
    check_jupyterlab_options,
    language_in,
    refuse,
)
from course.names import DEFAULT_LANGUAGE, LANGUAGES, language_of

JUPYTER = "Further options go to JupyterLab, which must know them: --no-browser, --port=8899, --ip=ADDRESS."


def parser():
    parser = Parser(prog="python -m course", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    start = commands.add_parser("start", help="a copy of the assignment of your own, opened in JupyterLab",
                                description="Copy the assignment to my-work/ASSIGNMENT/ (once: never over your "
                                            "work) and open it in JupyterLab, in the assignment's language.",
                                epilog=JUPYTER)
    start.add_argument("assignment", help="the assignment: theory03-en, lab01-es, ... (the folders of release/)")
    start.add_argument("--no-open", action="store_true", help="copy only, do not open JupyterLab")
    lab = commands.add_parser("lab", help="open JupyterLab again on your work",
                              description="Open JupyterLab on my-work/, in the language asked for.", epilog=JUPYTER)
    lab.add_argument("lang", nargs="?", choices=LANGUAGES, default=DEFAULT_LANGUAGE,
                     help=f"JupyterLab's language, {' or '.join(LANGUAGES)} (default: {DEFAULT_LANGUAGE})")
    submit = commands.add_parser("submit", help="check your work and write the file to hand in",
                                 description="Check my-work/ASSIGNMENT/ as Validate does, then write the one file "
                                             "to upload to your course's LMS, my-work/hand-in/ASSIGNMENT.ipynb.")
    submit.add_argument("assignment", help="the assignment to hand in: theory03-en, lab01-es, ...")
    # its own parser (course/server_settings.py) reads the rest, --help included
    commands.add_parser("settings", add_help=False, help="the student server's settings in an environment "
                        "(--sys-prefix PREFIX [--exchange] [--language en|es])")
    return parser


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    command_line = parser()
    command_line.lang = language_in(argv)
    arguments, jupyter_options = command_line.parse_known_args(argv)
    if arguments.command == "settings":
        from course import server_settings
        return server_settings.main(jupyter_options)
    if arguments.command == "submit":
        if jupyter_options:
            command_line.command("submit").error(f"unrecognized arguments: {' '.join(jupyter_options)}")
        from course.submit import submit as hand_in
        from course.work import course_root
        return hand_in(arguments.assignment, course_root())
    try:  # before anything is copied: JupyterLab would refuse them only after the copy
        check_jupyterlab_options(jupyter_options)
    except CommandError as error:
        refuse(command_line.command(arguments.command), error)
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
