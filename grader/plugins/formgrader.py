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
"""
import html
import sys

from nbconvert.preprocessors import Preprocessor

from grader.plugins.inert import MakeInert

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

    init_tornado_settings.escapes = True
    extension.init_tornado_settings = init_tornado_settings
