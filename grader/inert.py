"""Make what student code produced inert wherever a person reads it.

- In notebooks (the autograded copy, hence feedback HTML and formgrader):
  outputs keep only passive kinds (text, PNG/JPEG, LaTeX, and HTML/Markdown
  through the `nh3` sanitizer, without tags that load a URL); the student's
  own Markdown and raw cells are sanitized the same way.
- On the instructor's terminal and in CSV reports: no control characters
  (escape sequences, carriage returns, BEL), and no field a spreadsheet would
  take for a formula.
"""
import logging
import re

import nh3
from nbgrader.preprocessors import NbGraderPreprocessor

KEPT = {"text/plain", "image/png", "image/jpeg", "text/latex"}
SANITIZED = {"text/html", "text/markdown"}
# no tag that fetches a URL: an <img> pointing at formgrader would act with the instructor's session
TAGS = set(nh3.ALLOWED_TAGS) - {"img", "a", "area", "map"}
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
ESCAPE = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|[@-Z\\-_])")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def clean_html(text):
    return nh3.clean(text, tags=TAGS, clean_content_tags={"script", "style"})


def inert_output(output):
    """The output with every active part removed or sanitized."""
    if output.get("output_type") not in ("display_data", "execute_result"):
        return output
    data = {}
    for mime, value in output.get("data", {}).items():
        text = "".join(value) if isinstance(value, list) else value
        if mime in KEPT:
            data[mime] = value
        elif mime in SANITIZED and isinstance(text, str):
            data[mime] = clean_html(text)
    if not data:
        kinds = ", ".join(sorted(output.get("data", {}))) or "nothing"
        data["text/plain"] = f"[removed by the grader: {kinds}]"
    output["data"] = data
    output["metadata"] = {}
    return output


class MakeInert(NbGraderPreprocessor):
    """Autograde step, after execution: outputs and student-written cells become inert."""

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code":
            cell.outputs = [inert_output(o) for o in cell.outputs]
        elif not cell.metadata.get("nbgrader", {}).get("locked"):
            # the student's own text: nbgrader restores only locked cells
            cell.source = clean_html(cell.source)
            cell.pop("attachments", None)
            if cell.cell_type == "raw":
                cell.metadata.pop("format", None)
                cell.metadata.pop("raw_mimetype", None)
        return cell, resources


def for_terminal(text):
    """Text safe to print: escape sequences and control characters removed."""
    return CONTROL.sub("", ESCAPE.sub("", str(text)))


def for_spreadsheet(value):
    """A CSV field no spreadsheet runs as a formula, with no control characters."""
    if not isinstance(value, str):
        return value
    text = for_terminal(value.replace("\n", " "))
    return "'" + text if text.startswith(FORMULA_START) or value.startswith(FORMULA_START) else text


class TerminalSafe(logging.Filter):
    """A log filter: what nbgrader logs (student ids, paths, errors) reaches the terminal clean."""

    def filter(self, record):
        record.msg = for_terminal(record.getMessage())
        record.args = ()
        return True
