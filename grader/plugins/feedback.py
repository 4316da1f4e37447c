"""Feedback's chrome (headings, links) in the student's language.

nbgrader renders feedback with its own HTML template; `configure_feedback`
points it at a copy of that template (grader/templates/course_feedback) whose
words come from course/i18n.py through the `course_chrome` filter, in the
language of the notebook (`metadata.course.lang`). The setting belongs to
feedback's own exporter class: formgrader renders its grading page with an
`HTMLExporter` reading the same configuration, and must keep nbgrader's
`formgrade` template.
"""
from pathlib import Path

from nbconvert.exporters import HTMLExporter

from course.i18n import say
from course.names import known_language

TEMPLATES = Path(__file__).parent / "templates"


def course_chrome(key, nb):
    """The feedback page's word `key` in `nb`'s language."""
    lang = nb.get("metadata", {}).get("course", {}).get("lang", "en")
    return say(key, known_language(lang))


class FeedbackExporter(HTMLExporter):
    """`nbgrader generate_feedback`'s exporter, configured apart from `HTMLExporter`."""


def configure_feedback(c):
    import nbgrader
    stock = Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates"
    c.GenerateFeedback.exporter_class = FeedbackExporter
    c.FeedbackExporter.template_name = "course_feedback"
    c.FeedbackExporter.extra_template_basedirs = [str(TEMPLATES), str(stock)]
    c.FeedbackExporter.filters = {"course_chrome": course_chrome}
