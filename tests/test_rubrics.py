"""Almost no hand grading: each unit has at most one answer a person grades, worth at most 2 points,
and formgrader shows its rubric and canned comments, in the assignment's language, below it on the
grading page only (never in a notebook a student receives)."""
import copy

import nbformat
import pytest
from nbconvert.exporters import HTMLExporter
from traitlets.config import Config

from authoring.build import ROOT
from course.names import LANGUAGES, UNITS
from grader.plugins.formgrader import ShowRubrics
from grader.plugins.inert import MakeInert
from grader.rubrics import find_rubric

MAX_HAND_POINTS = 2


def notebook(unit, lang, folder="source"):
    return nbformat.read(ROOT / folder / f"{unit}-{lang}" / f"{unit}.ipynb", 4)


def hand_graded(nb):
    """The answers a person grades: nbgrader's markdown cells that are a solution and graded."""
    return [c for c in nb.cells if c.cell_type == "markdown" and c.metadata.get("nbgrader", {}).get("solution")
            and c.metadata["nbgrader"].get("grade")]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("unit", UNITS)
def test_at_most_one_short_answer_per_unit_with_its_rubric(unit, lang):
    answers = hand_graded(notebook(unit, lang))
    points = sum(c.metadata["nbgrader"]["points"] for c in answers)
    print(f"{unit}-{lang}: {len(answers)} hand-graded answer(s), {points} point(s)")
    assert len(answers) <= 1 and points <= MAX_HAND_POINTS
    for cell in answers:
        rubric = find_rubric(cell.metadata["nbgrader"]["grade_id"])
        assert rubric.points == cell.metadata["nbgrader"]["points"]
        assert len(rubric.text(lang)) > 200 and len(rubric.comments(lang)) >= 3


def test_no_test_cell_asks_for_points_by_hand():
    """A test cell's points are the grader's verdict: no hidden note telling graders to take some off."""
    for unit in UNITS:
        for lang in LANGUAGES:
            for cell in notebook(unit, lang).cells:
                if cell.metadata.get("nbgrader", {}).get("grade") and cell.cell_type == "code":
                    assert "by hand" not in cell.source and "a mano," not in cell.source, cell.source[:300]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_formgrader_shows_the_rubric_below_the_answer_in_the_assignments_language(lang):
    """Through formgrader's own exporter (nbgrader's `formgrade` template, the course's preprocessors
    as guard_formgrader registers them), on a student's notebook as released (the answer blank)."""
    unit = next(u for u in UNITS if hand_graded(notebook(u, lang)))
    nb = notebook(unit, lang, "release")
    grade_id = hand_graded(nb)[0].metadata["nbgrader"]["grade_id"]
    rubric = find_rubric(grade_id)
    from nbgrader.server_extensions.formgrader import handlers
    config = Config()
    config.HTMLExporter.template_name = "formgrade"
    config.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    exporter = HTMLExporter(config=config)
    for preprocessor in (MakeInert(), ShowRubrics()):
        exporter.register_preprocessor(preprocessor, enabled=True)
    resources = {"assignment_id": f"{unit}-{lang}", "notebook_id": unit, "submission_id": "s", "index": 0,
                 "total": 1, "base_url": "", "student": "ana", "last_name": "", "first_name": "",
                 "notebook_path": ""}
    page, _ = exporter.from_notebook_node(copy.deepcopy(nb), resources=resources)
    comment = rubric.comments(lang)[0]
    assert comment in page and rubric.comments("en" if lang == "es" else "es")[0] not in page
    assert page.index(comment) > page.index(grade_id)  # below the answer
    print(f"{unit}-{lang}: the grading page shows the rubric of {grade_id} ({len(page)} characters)")


def test_no_rubric_reaches_a_students_notebook():
    for unit in UNITS:
        for lang in LANGUAGES:
            text = (ROOT / "release" / f"{unit}-{lang}" / f"{unit}.ipynb").read_text(encoding="utf-8")
            for answer in hand_graded(notebook(unit, lang)):
                rubric = find_rubric(answer.metadata["nbgrader"]["grade_id"])
                for comment in rubric.comments(lang):
                    assert comment not in text
