"""Make what student code produced inert wherever a person reads it.

- In notebooks (the autograded copy, hence feedback HTML and formgrader):
  outputs keep only passive kinds (text, PNG/JPEG, LaTeX, and HTML/Markdown
  through the `nh3` sanitizer, without tags that load a URL); the student's
  own Markdown and raw cells are sanitized the same way. An image keeps a text
  alternative, its output's plain text (a course figure's alt text and
  description, course/figures.py), which nbconvert writes escaped as its alt.
- On the instructor's terminal and in CSV reports: no control characters
  (escape sequences, carriage returns, BEL), and no field a spreadsheet would
  take for a formula (grader/shared.py's `for_terminal` and `for_spreadsheet`).
"""
import logging
import re

import nh3
from nbgrader.preprocessors import NbGraderPreprocessor

from grader.shared import for_terminal

KEPT = {"text/plain", "image/png", "image/jpeg", "text/latex"}
SANITIZED = {"text/html", "text/markdown"}
# no tag that fetches a URL: an <img> pointing at formgrader would act with the instructor's session
TAGS = set(nh3.ALLOWED_TAGS) - {"img", "a", "area", "map"}
REFERENCE = re.compile(r"^( {0,3})\[", re.MULTILINE)  # `[name]: url` defines a link
URL = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")  # a scheme: a bare URL becomes a link
LATEX_LINKS = re.compile(r"\\(href|url|require|class|cssId|style|unicode|data|html|mmlToken)(?![A-Za-z])")
ALT_LENGTH = 3000  # an image's text alternative, at most (a course figure's description fits)


def clean_html(text):
    return nh3.clean(text, tags=TAGS, clean_content_tags={"script", "style"})


def clean_markdown(text):
    """Student Markdown that renders with no link and no image: HTML sanitized, then
    Markdown's own ways to make one broken (inline `[..](..)`, reference definitions,
    bare URLs, which nbconvert's renderer turns into links) and LaTeX's (`\\href`
    and MathJax commands that link or load) made plain text."""
    text = clean_html(text)
    text = text.replace("](", "]\\(")
    text = REFERENCE.sub(lambda m: m.group(1) + "\\[", text)
    text = URL.sub(lambda m: m.group(1) + ":/&#47;", text)
    return clean_latex(text)


def clean_latex(text):
    """LaTeX whose MathJax rendering links and loads nothing (`\\href` shows as text)."""
    return LATEX_LINKS.sub(r"\\text", text)


def inert_output(output):
    """The output with every active part removed or sanitized."""
    if output.get("output_type") not in ("display_data", "execute_result"):
        return output
    data = {}
    for mime, value in output.get("data", {}).items():
        text = "".join(value) if isinstance(value, list) else value
        if mime == "text/latex" and isinstance(text, str):
            data[mime] = clean_latex(text)
        elif mime in KEPT:
            data[mime] = value
        elif mime == "text/markdown" and isinstance(text, str):
            data[mime] = clean_markdown(text)
        elif mime in SANITIZED and isinstance(text, str):
            data[mime] = clean_latex(clean_html(text))
    if not data:
        kinds = ", ".join(sorted(output.get("data", {}))) or "nothing"
        data["text/plain"] = f"[removed by the grader: {kinds}]"
    output["metadata"] = {}
    image = next((mime for mime in ("image/png", "image/jpeg") if mime in data), None)
    if image:
        # the same figure as HTML would lose its <img> to the sanitizer and be shown in its place
        data.pop("text/html", None)
        words = data.get("text/plain")
        words = "".join(words) if isinstance(words, list) else words
        if isinstance(words, str) and words.strip():
            output["metadata"] = {image: {"alt": for_terminal(words)[:ALT_LENGTH]}}
    output["data"] = data
    return output


class MakeInert(NbGraderPreprocessor):
    """Autograde step, after execution: outputs and student-written cells become inert."""

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code":
            cell.outputs = [inert_output(o) for o in cell.outputs]
        elif not cell.metadata.get("nbgrader", {}).get("locked"):
            # the student's own text: nbgrader restores only locked cells
            cell.source = clean_markdown(cell.source)
            cell.pop("attachments", None)
            if cell.cell_type == "raw":
                cell.metadata.pop("format", None)
                cell.metadata.pop("raw_mimetype", None)
        return cell, resources


class TerminalSafe(logging.Filter):
    """A log filter: what nbgrader logs (student ids, paths, errors) reaches the terminal clean."""

    def filter(self, record):
        record.msg = for_terminal(record.getMessage())
        record.args = ()
        return True
