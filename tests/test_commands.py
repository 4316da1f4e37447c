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


@pytest.mark.parametrize("package, command", sorted(DOCUMENTED),
                         ids=[f"{package} {command}".strip() for package, command in sorted(DOCUMENTED)])
def test_every_documented_command_has_help_naming_its_options(package, command):
    line = [sys.executable, "-m", package, *([command] if command else []), "--help"]
    result = subprocess.run(line, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, f"{' '.join(line[1:])}: {result.stderr[-500:]}"
    assert result.stdout.startswith("usage: python -m " + package), result.stdout[:200]
    for option, where in DOCUMENTED[(package, command)].items():
        assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", result.stdout), \
            f"{where} writes `python -m {package} {command} ... {option}`, which its --help does not name"


def test_report_takes_the_language_after_the_assignment(tmp_path, monkeypatch):
    """`python -m grader report A --lang es` parses (as the guides write it), with an nbgrader
    option naming the gradebook: the report is asked for in that language, of that gradebook."""
    import shutil

    from grader.__main__ import main
    from grader.reports import report
    shutil.copytree(ROOT / "release", tmp_path / "release")
    (tmp_path / "submitted" / "ana" / "theory03-en").mkdir(parents=True)
    (tmp_path / "x.db").touch()
    monkeypatch.chdir(tmp_path)
    called = []
    monkeypatch.setattr(report, "write_report", lambda *arguments: called.append(arguments))
    assert main(["report", "theory03-en", "--lang", "es", "--CourseDirectory.db_url=sqlite:///x.db"]) == 0
    assert called == [(tmp_path, "theory03-en", "es", ["--CourseDirectory.db_url=sqlite:///x.db"])]


@pytest.mark.parametrize("script", sorted((ROOT / "benchmarks").glob("*.py")), ids=lambda p: p.name)
def test_every_benchmark_answers_help_without_running(script):
    """`python benchmarks/X.py --help` prints its usage and exits at once: nothing is measured,
    no user made, no course copied; each option says what it does and its default."""
    import time
    started = time.monotonic()
    result = subprocess.run([sys.executable, str(script), "--help"], cwd=ROOT, capture_output=True, text=True,
                            timeout=60, check=False)
    print(f"{script.name}: {time.monotonic() - started:.1f} s\n{result.stdout}")
    assert result.returncode == 0 and result.stdout.startswith("usage:"), result.stderr[-1000:]
    options = re.findall(r"^  (--?[\w-]+)(?: ([A-Z_.]+|\{[^}]*\}.*?))?\n?\s+(.*?)(?=^  \S|\Z)", result.stdout,
                         re.MULTILINE | re.DOTALL)
    for option, value, text in options:
        if option not in ("-h", "--help") and value:
            assert "default" in text, f"{script.name}: {option} gives no default: {text}"
