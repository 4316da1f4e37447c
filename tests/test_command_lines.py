"""No typo changes anything: every command line of the guides (the code blocks of README.md,
README.es.md, docs/en/*.md and docs/es/*.md), given an unknown option, a missing argument, an
unknown assignment, a wrong language or a student id with markup, stops with one line naming
the problem, and no file of the course changes (gradebook, submitted/, autograded/, feedback/,
reports/, my-work/, exports/, ...).

The commands run in this process, in a course folder of their own holding a gradebook and a
graded submission (no kernels: cheap); anything that would start a process (nbgrader,
JupyterLab, a grading fork) fails the test, since a refused command line must start nothing.
`classroom` commands are run too: argument checks come before anything that needs root or makes
a user. One check runs the issue's own command as a subprocess: `python -m grader grade
theory03-es --bogus` on graded work left every student NOT GRADED and autograded/ empty.
"""
import hashlib
import importlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
GUIDES = [ROOT / "README.md", ROOT / "README.es.md", *sorted((ROOT / "docs").glob("*/*.md"))]
COMMAND = re.compile(r"python3? -m (grader|course|classroom|authoring)\b([^#\n]*)")
# command lines the guides name in their prose (no code block holds them)
IN_PROSE = [("course", "settings --sys-prefix PREFIX"), ("classroom", "service --state STATE"),
            ("authoring", "site --out FOLDER"), ("authoring", "build --force")]
ASSIGNMENT = re.compile(r"^[a-z]+\d\d-(en|es)$")


def guide_lines():
    """{(package, its arguments as written)} of every code block of the guides."""
    found = set()
    for guide in GUIDES:
        for block in re.findall(r"^```[^\n]*\n(.*?)^```", guide.read_text(encoding="utf-8"), re.DOTALL | re.MULTILINE):
            for line in block.splitlines():
                for package, rest in COMMAND.findall(line):
                    if "--help" not in rest:  # help is help (tests/test_commands.py)
                        found.add((package, " ".join(rest.split())))
    return sorted(found | set(IN_PROSE))


def concrete(rest, course):
    """The written command line with its placeholders filled (`moodle|canvas`: the first)."""
    fill = {"ASSIGNMENT": "theory03-es", "TAREA": "theory03-es", "STATE": "classroom-state",
            "DIR": "some-folder", "FOLDER": "some-folder", "CARPETA": "some-folder", "PREFIX": "some-env",
            "HOST": "127.0.0.1"}
    words = []
    for word in rest.split():
        word = word.split("|")[0]
        for placeholder, value in fill.items():
            word = re.sub(rf"\b{placeholder}\b", value, word)
        words.append(word)
    return words


class Captured(Exception):
    """The parser a command line is read with, caught before it reads it."""


def parser_of(package, words, monkeypatch):
    """The argparse parser that reads `words` (the subcommand's, when there is one)."""
    from course.commands import Parser

    def catching(name):
        original = getattr(Parser, name)

        def caught(self, *arguments, **options):
            if self.prog == "python -m grader" and words or not self._actions:  # to the command's own parser
                return original(self, *arguments, **options)
            raise Captured(self)
        return caught
    with monkeypatch.context() as patch:
        for name in ("parse_args", "parse_known_args", "parse_intermixed_args"):
            patch.setattr(Parser, name, catching(name))
        try:
            importlib.import_module(MAINS[package]).main(list(words))
        except Captured as found:
            parser = found.args[0]
        if package == "course" and words[:1] == ["settings"]:
            from course import server_settings
            try:
                server_settings.main(words[1:])
            except Captured as found:
                return found.args[0]
    commands = getattr(parser, "commands", None)
    return parser.command(words[0]) if commands and words and words[0] in commands.choices else parser


def required_positionals(parser):
    return [action for action in parser._actions
            if not action.option_strings and action.nargs not in ("?", "*", 0) and action.required
            and not isinstance(action, type(parser.commands) if hasattr(parser, "commands") else ())]


def variants(package, words, parser):
    """{kind: (the command line, what the error must name)} of the five mistakes."""
    start = 0 if getattr(parser, "commands", None) is not None else 1
    positional = [i for i, w in enumerate(words[start:], start) if not w.startswith("-")
                  and not (i > 0 and words[i - 1].startswith("--") and "=" not in words[i - 1])]
    assignments = [i for i, w in enumerate(words) if ASSIGNMENT.match(w)]
    found = {"unknown option": (words + ["--no-such-option"], "--no-such-option")}
    valued = [i for i, w in enumerate(words) if w.startswith("--") and "=" not in w
              and i + 1 < len(words) and not words[i + 1].startswith("-")]
    if required_positionals(parser) and positional:  # every argument the command needs left out
        found["missing argument"] = ([w for i, w in enumerate(words) if i not in positional], None)
    elif valued:
        found["missing argument"] = (words[:valued[-1] + 1], words[valued[-1]])
    else:
        needs_value = [action.option_strings[-1] for action in parser._actions
                       if action.option_strings and action.nargs != 0 and action.option_strings[-1] != "--help"]
        if needs_value:
            found["missing argument"] = (words + [needs_value[0]], needs_value[0])
    if assignments:
        found["unknown assignment"] = ([("lab09-en" if i in assignments else w) for i, w in enumerate(words)],
                                       "lab09-en")
        found["wrong language"] = ([(w[:-2] + "fr" if i in assignments else w) for i, w in enumerate(words)],
                                   "fr")
        found["markup id"] = ([("<b>x</b>" if i in assignments else w) for i, w in enumerate(words)], "<b>x</b>")
    else:
        found["unknown assignment"] = (words + ["lab09-en"], "lab09-en")
        language = [i for i, w in enumerate(words) if w in ("en", "es")]
        found["wrong language"] = (([("fr" if i in language else w) for i, w in enumerate(words)], "fr")
                                   if language else (words + ["--lang", "fr"], "--lang"))
        found["markup id"] = (words + ["--student=<b>x</b>"], "<b>x</b>")
    if "--lang" in words:
        at = words.index("--lang")
        found["wrong language (--lang)"] = (words[:at + 1] + ["fr"] + words[at + 2:], "fr")
    return found


def snapshot(folder):
    """Every file and folder under `folder`: its content's digest (folders: None)."""
    return {str(path.relative_to(folder)): (hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file()
                                            else None, path.stat().st_mtime_ns)
            for path in sorted(Path(folder).rglob("*"))}


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A course folder with everything a typo could damage: a gradebook with a graded
    submission, its autograded copy, feedback, a report, an export, a student's work."""
    from nbgrader.api import Gradebook

    from grader.cohort.forking import environment
    folder = tmp_path_factory.mktemp("typo-course")
    for name in ("source", "release"):
        shutil.copytree(ROOT / name, folder / name)
    shutil.copy(ROOT / "nbgrader_config.py", folder)
    release = nbformat.read(folder / "release" / "theory03-es" / "theory03.ipynb", 4)
    path = os.environ["PATH"]
    os.environ["PATH"] = environment()["PATH"]  # a new gradebook runs nbgrader's alembic
    try:
        with Gradebook(f"sqlite:///{folder / 'gradebook.db'}", "autograd-by-hand") as gb:
            gb.update_or_create_assignment("theory03-es")
            gb.update_or_create_student("ana")
    finally:
        os.environ["PATH"] = path
    for part in ("submitted", "autograded"):
        nbformat.write(release, _made(folder / part / "ana" / "theory03-es" / "theory03.ipynb"))
    _made(folder / "feedback" / "ana" / "theory03-es" / "theory03.html").write_text("<p>feedback</p>")
    _made(folder / "reports" / "theory03-es.csv").write_text("student,score\nana,12\n")
    _made(folder / "exports" / "moodle.csv").write_text("User ID,theory03\nana,12\n")
    nbformat.write(release, _made(folder / "my-work" / "theory03-es" / "theory03.ipynb"))
    return folder


def _made(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


MAINS = {"grader": "grader.__main__", "course": "course.__main__", "classroom": "classroom.__main__",
         "authoring": "authoring.__main__"}


class WouldStart(RuntimeError):
    """A refused command line tried to start something."""


@pytest.fixture
def in_course(course, monkeypatch, capsys):
    """run(package, words) -> (exit status, stdout, stderr), run here, in the course folder,
    with nothing allowed to start a process."""
    monkeypatch.chdir(course)

    def forbidden(*arguments, **_):
        raise WouldStart(f"tried to start {arguments[:2]!r}")

    class NoProcess(subprocess.Popen):
        def __init__(self, *arguments, **_):
            raise WouldStart(f"tried to start {arguments[:1]!r}")
    for module in MAINS.values():  # imported before: their imports may start nothing either
        importlib.import_module(module)
    for module, name in ((os, "execve"), (os, "execv"), (os, "fork")):
        monkeypatch.setattr(module, name, forbidden)
    monkeypatch.setattr(subprocess, "Popen", NoProcess)

    def run(package, words):
        main = importlib.import_module(MAINS[package]).main
        capsys.readouterr()
        try:
            status = main(list(words)) or 0
            said = ""
        except SystemExit as stop:
            status, said = (1, str(stop.code)) if isinstance(stop.code, str) else (stop.code or 0, "")
        out, err = capsys.readouterr()
        return status, out, (err + said).strip()
    return run


LINES = guide_lines()


def test_the_guides_give_command_lines_of_every_package():
    print("\n".join(f"python -m {p} {r}" for p, r in LINES))
    assert {package for package, _ in LINES} == set(MAINS)
    assert ("grader", "grade theory03-es") in LINES and ("course", "start theory03-en") in LINES


@pytest.mark.parametrize("package, rest", LINES, ids=[f"{p} {r}" for p, r in LINES])
def test_a_mistake_on_a_guides_line_is_one_line_and_changes_nothing(in_course, course, monkeypatch,
                                                                   package, rest):
    words = concrete(rest, course)
    before = snapshot(course)
    said = {}
    for kind, (line, named) in variants(package, words, parser_of(package, words, monkeypatch)).items():
        status, out, err = in_course(package, line)
        said[kind] = err
        shown = f"python -m {package} {' '.join(line)}"
        assert status != 0, f"{shown}: accepted (exit 0): {out[-500:]}{err[-500:]}"
        assert out == "", f"{shown}: wrote to stdout: {out[-500:]}"
        assert len(err.splitlines()) == 1, f"{shown}: not one line:\n{err}"
        if named is not None:
            assert named in err, f"{shown}: the error does not name {named!r}: {err}"
        assert snapshot(course) == before, f"{shown} changed the course"
    print(f"python -m {package} {' '.join(words)}")
    for kind, err in said.items():
        print(f"  {kind:<24} {err}")


def test_grading_graded_work_again_says_so_and_changes_nothing(in_course, course):
    lock = course / ".grader-grade-theory03-es.lock"  # the run's lock: taken, then let go
    before = snapshot(course)
    status, _, err = in_course("grader", ["grade", "theory03-es"])
    print(err)
    assert status == 0 and "already graded (1 submissions); use --force to grade them again" in err
    lock.unlink(missing_ok=True)
    assert {k: v for k, v in snapshot(course).items() if k != lock.name} == before


def test_grading_an_assignment_without_submissions_says_so_first(in_course, course):
    before = snapshot(course)
    status, _, err = in_course("grader", ["grade", "theory03-es", "theory03-en"])
    print(err)
    assert status == 2 and "no submissions of theory03-en" in err and len(err.splitlines()) == 1
    assert snapshot(course) == before


def test_the_issues_command_leaves_graded_work_graded(course):
    """`python -m grader grade theory03-es --bogus`, as a person types it."""
    before = snapshot(course)
    run = subprocess.run([sys.executable, "-m", "grader", "grade", "theory03-es", "--bogus"], cwd=course,
                         capture_output=True, text=True, check=False)
    print(run.stderr)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.strip() == ("python -m grader grade: unknown option or argument: --bogus "
                                  "(`python -m grader grade --help` explains every option)")
    assert snapshot(course) == before


def test_an_nbgrader_option_is_checked_as_nbgrader_reads_it(in_course, course):
    """A typo in a class or setting name (which nbgrader would ignore) and a value of the
    wrong kind are refused; settings the command makes itself too."""
    for option, named in (("--SandboxedKernelManager.memory_limt=1", "has no setting memory_limt"),
                          ("--SandboxKernelManager.memory_limit=1", "no SandboxKernelManager"),
                          ("--GradingExecute.notebook_timeout=soon", "notebook_timeout=soon"),
                          ("--CourseDirectory.student_id=ana", "sets it itself")):
        status, _, err = in_course("grader", ["grade", "theory03-es", option])
        print(err)
        assert status == 2 and named in err and len(err.splitlines()) == 1


def test_a_students_mistake_is_said_in_the_students_language(in_course):
    status, _, err = in_course("course", ["start", "theory03-es", "--puerto=8899"])
    print(err)
    assert status == 2 and "opción o argumento desconocido: --puerto=8899" in err


EVERY_COMMAND = [("grader", [name]) for name in ("grade", "report", "export", "late-flags", "handout", "demo",
                                                  "gradcheck")] \
    + [("course", [name]) for name in ("start", "lab", "submit", "settings")] \
    + [("classroom", [name]) for name in ("start", "stop", "remove", "service")] \
    + [("authoring", [name]) for name in ("build", "check", "site")] \
    + [(package, []) for package in MAINS]


@pytest.mark.parametrize("package, words", EVERY_COMMAND, ids=[f"{p} {' '.join(w)}" for p, w in EVERY_COMMAND])
def test_help_explains_every_option_and_its_default(monkeypatch, package, words):
    """`--help` of every command and subcommand: each option says what it does, and each one
    that takes a value says its default (or that it has none)."""
    import argparse
    parser = parser_of(package, words, monkeypatch)
    unexplained, no_default = [], []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        name = "/".join(action.option_strings) or action.dest
        if not action.help:
            unexplained.append(name)
        elif action.nargs != 0 and (action.option_strings or action.nargs == "?") and "default" not in action.help:
            no_default.append(f"{name}: {action.help}")
    print(parser.format_help())
    assert not unexplained, f"{parser.prog}: options without help: {unexplained}"
    assert not no_default, f"{parser.prog}: options whose help gives no default: {no_default}"
    internal = [note for note in ("This module", "forked", "fork(") if note in parser.format_help()]
    assert not internal, f"{parser.prog}: internal notes in --help: {internal}"


STUDENT_DATA = ["gradebook.db", "gradebook.db-journal", "gradebook.db-wal", "grades.csv", "submitted/ana/x.ipynb",
                "autograded/ana/x.ipynb", "feedback/ana/x.html", "reports/theory03-es.csv", "exports/moodle.csv",
                "logs/theory03-es/ana.log", "downloaded/theory03-es/archive/x.zip", "my-work/theory03-es/x.ipynb",
                ".grader-grade-theory03-es.lock", "classroom-state/passwords.csv"]


def test_students_data_is_ignored_by_git():
    """What grading, exporting and a class write about students never shows in `git status`."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    ignored = subprocess.run(["git", "check-ignore", "--no-index", *STUDENT_DATA], cwd=ROOT, capture_output=True,
                             text=True, check=False).stdout.split()
    print(ignored)
    assert sorted(ignored) == sorted(STUDENT_DATA)
    kept = subprocess.run(["git", "check-ignore", "--no-index", "autograded/README.md"], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert kept.returncode == 1  # the folder's README is committed
