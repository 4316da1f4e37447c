"""What the instructor is told to run modifies no committed file.

A fresh copy of the repository (its tracked files, committed in a new git
repository) gets the README's first instructor command, `nbgrader
generate_assignment ASSIGNMENT --force`, for every assignment; `git status` must
then show nothing (what nbgrader writes besides, the gradebook, is ignored), and
the build must still call every notebook its own.
"""
import shutil
import subprocess
import sys

import pytest

from authoring.build import ROOT, language_versions, nbgrader
from course.names import UNITS, assignment


def git(*arguments, cwd):
    return subprocess.run(["git", *arguments], cwd=cwd, capture_output=True, text=True, check=True)


@pytest.fixture(scope="module")
def fresh_copy(tmp_path_factory):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    copy = tmp_path_factory.mktemp("fresh-copy")
    tracked = git("ls-files", "-z", cwd=ROOT).stdout.split("\0")
    for name in filter(None, tracked):
        if (ROOT / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, copy / name)
    git("init", "-q", cwd=copy)
    git("add", "-A", cwd=copy)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "fresh", cwd=copy)
    return copy


def test_generate_assignment_changes_no_committed_file(fresh_copy):
    for unit in UNITS:
        for lang in language_versions(unit, fresh_copy):
            nbgrader("generate_assignment", assignment(unit, lang), "--force", root=fresh_copy,
                     capture_output=True)
    status = git("status", "--porcelain", cwd=fresh_copy).stdout
    print(status or "git status: clean")
    assert status == ""
    edited = subprocess.run([sys.executable, "-c", ("from authoring.build import edited_files; "
                             "print(edited_files(__import__('pathlib').Path('.')))")],
                            cwd=fresh_copy, capture_output=True, text=True, check=True)
    assert edited.stdout.strip() == "[]"
