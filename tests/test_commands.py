"""Every command line the README and the guides write has a `--help`, and the subcommand and
options they name are ones the command knows (what the guides say is what the commands do)."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GUIDES = [ROOT / "README.md", ROOT / "README.es.md", *sorted((ROOT / "docs").glob("*/*.md"))]
COMMAND = re.compile(r"python -m (grader|course|authoring|classroom)\b([^`#|\n]*)")


def documented():
    """{(package, subcommand): {option: where it is written}} from every guide."""
    found = {}
    for guide in GUIDES:
        for number, line in enumerate(guide.read_text(encoding="utf-8").splitlines(), 1):
            for package, rest in COMMAND.findall(line):
                words = rest.split()
                command = words[0] if words and re.fullmatch(r"[a-z][a-z-]*", words[0]) else ""
                options = found.setdefault((package, command), {})
                for option in re.findall(r"(?<![\w.-])(--?[a-z][a-z-]*)(?=[\s=\]]|$)", rest):
                    options.setdefault(option, f"{guide.relative_to(ROOT)}:{number}")
    return found


DOCUMENTED = documented()


def test_the_guides_document_every_package_command():
    assert {package for package, _ in DOCUMENTED} == {"grader", "course", "authoring", "classroom"}
    assert ("grader", "report") in DOCUMENTED and ("course", "start") in DOCUMENTED


@pytest.mark.parametrize("package, command", sorted(DOCUMENTED), ids="-".join)
def test_every_documented_command_has_help_naming_its_options(package, command):
    line = [sys.executable, "-m", package, *([command] if command else []), "--help"]
    result = subprocess.run(line, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, f"{' '.join(line[1:])}: {result.stderr[-500:]}"
    assert result.stdout.startswith("usage: python -m " + package), result.stdout[:200]
    for option, where in DOCUMENTED[(package, command)].items():
        assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", result.stdout), \
            f"{where} writes `python -m {package} {command} ... {option}`, which its --help does not name"


def test_report_takes_the_language_after_the_assignment(tmp_path):
    """`python -m grader report A --lang es` parses (as the guides write it): with no
    gradebook here, the failure is about the assignment, not the command line."""
    from grader.__main__ import main
    from grader.reports import report
    called = []
    original = report.write_report
    try:
        report.write_report = lambda *arguments: called.append(arguments)
        assert main(["report", "theory03-en", "--lang", "es", "--Gradebook.db_url=sqlite:///x.db"]) == 0
    finally:
        report.write_report = original
    assert called == [(Path.cwd(), "theory03-en", "es", ["--Gradebook.db_url=sqlite:///x.db"])]
