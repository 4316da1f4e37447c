"""Formgrader shows ids, names and addresses as text, never as markup.

Stock nbgrader 0.9.6 renders formgrader's pages with a Jinja environment that does
not escape. A student id, an assignment or a notebook name taken from the address
(`/formgrader/manage_students/<id>`, `/formgrader/gradebook/<assignment>/<notebook>`,
`/formgrader/manage_submissions/<assignment>`) is written into the page's HTML and
into its scripts as it is, so a link with markup in its path, sent to an instructor,
runs script with the instructor's rights (their Jupyter server: files, terminals,
kernels); the grading page writes the student's id, first and last name the same way
from the gradebook.

`guard_formgrader()` is called by grader/plugins/wiring.py's `configure`, which
formgrader runs when it loads the course's nbgrader_config.py, before it builds its
pages: the page environment then escapes every value, and the grading page gets its
names escaped (`EscapeNames`) and renders the notebook through autograde's own `MakeInert`
again (the student's Markdown and outputs: no link, no image, no script), whatever wrote
the notebook in autograded/. Formgrader's scripts (static/js) build their tables
with jQuery's `.text()`; tests/test_formgrader_browser.py opens every page in Chromium.

The grading page also shows, below each answer a person grades, its rubric and canned
comments in the assignment's language (`ShowRubrics`, from grader/rubrics/), so a grader
marks by the same rule as every other grader, and pastes the same words.
"""
import html
import sys

import nbformat
from nbconvert.preprocessors import Preprocessor

from course.i18n import say
from course.names import language_of
from grader.plugins.inert import MakeInert
from grader.rubrics import find_rubric

FORMGRADER = "nbgrader.server_extensions.formgrader.formgrader"
# what the grading page (nbgrader's `formgrade` template) writes into HTML from its resources
SHOWN = ("student", "first_name", "last_name", "assignment_id", "notebook_id", "notebook_path")


class EscapeNames(Preprocessor):
    """The grading page's ids and names, escaped for HTML before its template writes them."""

    def preprocess(self, nb, resources):
        for key in SHOWN:
            if isinstance(resources.get(key), str):
                resources[key] = html.escape(resources[key])
        return nb, resources


class ShowRubrics(Preprocessor):
    """Below each hand-graded answer, its rubric and canned comments (for graders only: this runs
    on formgrader's grading page, never on a notebook a student receives). Added after MakeInert,
    so the rubric, the instructor's own text, is rendered as written."""

    def preprocess(self, nb, resources):
        lang = language_of(str(resources.get("assignment_id", "")))
        cells = []
        for cell in nb.cells:
            cells.append(cell)
            meta = cell.metadata.get("nbgrader", {})
            if cell.cell_type == "markdown" and meta.get("solution") and meta.get("grade"):
                shown = rubric_cell(str(meta.get("grade_id")), lang)
                if shown is not None:
                    cells.append(shown)
        nb.cells = cells
        return nb, resources


def rubric_cell(grade_id, lang):
    """The rubric of `grade_id` as a Markdown cell in `lang`, or None when it has none."""
    try:
        rubric = find_rubric(grade_id)
    except LookupError:
        return None
    comments = "\n".join(f"- {comment}" for comment in rubric.comments(lang))
    cell = nbformat.v4.new_markdown_cell(
        f"**{say('rubric_title', lang, points=rubric.points)}**\n\n{rubric.text(lang)}\n\n"
        f"**{say('rubric_comments', lang)}**\n\n{comments}")
    cell.metadata["course"] = {"rubric": grade_id}
    return cell


def guard_formgrader():
    """Make formgrader escape what it shows; nothing to do outside formgrader."""
    module = sys.modules.get(FORMGRADER)
    if module is None:  # an nbgrader command, not formgrader being loaded
        return
    extension = module.FormgradeExtension
    stock = extension.init_tornado_settings
    if getattr(stock, "escapes", False):
        return

    def init_tornado_settings(self, webapp):
        stock(self, webapp)
        settings = webapp.settings
        settings["nbgrader_jinja2_env"] = settings["nbgrader_jinja2_env"].overlay(autoescape=True)
        settings["nbgrader_exporter"].register_preprocessor(MakeInert(), enabled=True)
        settings["nbgrader_exporter"].register_preprocessor(EscapeNames(), enabled=True)
        settings["nbgrader_exporter"].register_preprocessor(ShowRubrics(), enabled=True)

    init_tornado_settings.escapes = True
    extension.init_tornado_settings = init_tornado_settings
