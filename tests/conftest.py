"""Shared fixtures: a throw-away copy of the course, and ways to submit to it."""
import json
import shutil
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from authoring.build import ROOT, nbgrader

UNITS = {"theory03": ("theory03-en", "theory03-es")}


class Course:
    """A copy of the course in a temporary folder, graded with stock nbgrader."""

    def __init__(self, root):
        self.root = Path(root)
        for name in ("notebooks", "source", "release"):
            shutil.copytree(ROOT / name, self.root / name)
        shutil.copy(ROOT / "nbgrader_config.py", self.root)

    def nbgrader(self, *arguments, check=True):
        return nbgrader(*arguments, root=self.root, check=check, capture_output=True, text=True)

    def release(self, assignment):
        """The notebook a student receives."""
        return nbformat.read(self.root / "release" / assignment / f"{unit_of(assignment)}.ipynb", 4)

    def solved(self, assignment):
        """The release with every answer cell filled with the instructor's solution."""
        nb = self.release(assignment)
        source = nbformat.read(self.root / "source" / assignment / f"{unit_of(assignment)}.ipynb", 4)
        answers = {c.metadata["nbgrader"]["grade_id"]: c.source for c in source.cells
                   if c.metadata.get("nbgrader", {}).get("solution")}
        return fill(nb, answers)

    def submit(self, student, assignment, notebook):
        folder = self.root / "submitted" / student / assignment
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{unit_of(assignment)}.ipynb"
        if isinstance(notebook, (str, bytes)):
            path.write_text(notebook) if isinstance(notebook, str) else path.write_bytes(notebook)
        else:
            nbformat.write(notebook, path)
        return path

    def autograde(self, assignment):
        return self.nbgrader("autograde", assignment, "--force", check=False)

    def score(self, assignment, student):
        with Gradebook(f"sqlite:///{self.root / 'gradebook.db'}") as gb:
            return gb.find_submission(assignment, student).score

    def cell_scores(self, assignment, student):
        with Gradebook(f"sqlite:///{self.root / 'gradebook.db'}") as gb:
            notebook = gb.find_submission(assignment, student).notebooks[0]
            return {grade.name: grade.score for grade in notebook.grades}

    def autograded(self, assignment, student):
        return nbformat.read(self.root / "autograded" / student / assignment
                             / f"{unit_of(assignment)}.ipynb", 4)


def unit_of(assignment):
    return assignment.rsplit("-", 1)[0]


def fill(nb, answers):
    """`nb` with the answer cells named in `answers` (grade_id -> code) replaced."""
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            cell.source = answers[grade_id]
    return nb


def verdict_text(cell):
    """The grader's verdict, always the first output of a graded test cell."""
    first = cell.outputs[0]
    return first.get("evalue") or first.get("text", "")


def graded_cells(nb):
    return {c.metadata["nbgrader"]["grade_id"]: c for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("grade")}


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    copy = Course(tmp_path_factory.mktemp("course"))
    for assignments in UNITS.values():
        for assignment in assignments:
            copy.nbgrader("generate_assignment", assignment, "--force")
    return copy
