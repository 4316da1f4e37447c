"""Feedback's chrome (headings, links) in the student's language.

nbgrader renders feedback with its own HTML template; `configure_feedback`
points it at a copy of that template (grader/templates/course_feedback) whose
words come from course/i18n.py through the `course_chrome` filter, in the
language of the notebook (`metadata.course.lang`).
"""
from pathlib import Path

from course.i18n import say

TEMPLATES = Path(__file__).parent / "templates"


def course_chrome(key, nb):
    """The feedback page's word `key` in `nb`'s language."""
    lang = nb.get("metadata", {}).get("course", {}).get("lang", "en")
    return say(key, lang if lang in ("en", "es") else "en")


def configure_feedback(c):
    import nbgrader
    stock = Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates"
    c.HTMLExporter.template_name = "course_feedback"
    c.HTMLExporter.extra_template_basedirs = [str(TEMPLATES), str(stock)]
    c.HTMLExporter.filters = {"course_chrome": course_chrome}
