"""Feedback's chrome (headings, links) in the student's language.

nbgrader renders feedback with its own HTML template; `configure_feedback`
points it at a copy of that template (grader/templates/course_feedback) whose
words come from course/i18n.py through the `course_chrome` filter, in the
language of the notebook (`metadata.course.lang`). The setting belongs to
feedback's own exporter class: formgrader renders its grading page with an
`HTMLExporter` reading the same configuration, and must keep nbgrader's
`formgrade` template.

The page carries its own MathJax (`course_mathjax`): nbgrader's template loads it from a
CDN, so offline a student sees raw `$$…$$`, and online the CDN learns who opened feedback
when. A feedback page travels alone (nbgrader's release_feedback copies the one file, an LMS
takes one file), so MathJax is inside it: MathJax 3's single-file SVG build (all TeX
packages, no font files) from the `sphinx-mathjax-offline` package that the website uses,
gzip-compressed (2.3 MB to 0.7 MB) and unpacked by the browser. TeX's `html` and `require`
packages are left out: nothing in a page links or loads anything.
"""
import base64
import functools
import gzip
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


def mathjax_file():
    """MathJax 3's single-file SVG build, as the `sphinx-mathjax-offline` package ships it."""
    import importlib.util
    spec = importlib.util.find_spec("sphinx-mathjax-offline")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("feedback pages need MathJax from the sphinx-mathjax-offline package "
                           "(requirements.txt): pip install -r requirements.txt")
    return Path(next(iter(spec.submodule_search_locations))) / "static" / "mathjax" / "tex-svg-full.js"


@functools.lru_cache(maxsize=1)
def course_mathjax(_=None):
    """MathJax, gzip-compressed and in base64, for the feedback page to unpack (a Jinja filter)."""
    return base64.b64encode(gzip.compress(mathjax_file().read_bytes(), 9, mtime=0)).decode("ascii")


def configure_feedback(c):
    import nbgrader
    stock = Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates"
    c.GenerateFeedback.exporter_class = FeedbackExporter
    c.FeedbackExporter.template_name = "course_feedback"
    c.FeedbackExporter.extra_template_basedirs = [str(TEMPLATES), str(stock)]
    c.FeedbackExporter.filters = {"course_chrome": course_chrome, "course_mathjax": course_mathjax}
