"""What students get, for a course whose answer key must stay private.

    python -m grader handout FOLDER

Writes the release notebooks and the packages student code imports
(`course`, `minigrad`, with a small pyproject.toml to install them) into
FOLDER: no `source/`, no solution, no `grader/` (the references), no build.
Publish that folder; keep the instructor's repository private.
"""
import shutil
from pathlib import Path

from grader.sandbox.kernel import KERNEL_PACKAGES, package_folder

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = """[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "autograd-by-hand-student"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["torch==2.13.0", "matplotlib", "numpy", "jupyterlab", "nbgrader"]

[tool.setuptools.packages.find]
include = ["course*", "minigrad*"]
"""


def write_handout(folder, root=ROOT):
    folder = Path(folder)
    if folder.exists() and any(folder.iterdir()):
        raise SystemExit(f"{folder} is not empty: choose a new folder")
    shutil.copytree(root / "release", folder / "release")
    for name in KERNEL_PACKAGES:
        shutil.copytree(package_folder(name), folder / name,
                        ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "pyproject.toml").write_text(PYPROJECT)
    print(f"wrote {folder}: release/ and {', '.join(KERNEL_PACKAGES)} (no solutions, no references)")
    return folder


def main(argv):
    """`python -m grader handout FOLDER`."""
    from course.commands import Parser
    parser = Parser(prog="python -m grader handout", description=__doc__)
    parser.add_argument("folder", help="a new or empty folder (made if missing)")
    write_handout(Path(parser.parse_args(argv).folder))
    return 0
