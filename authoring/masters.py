"""Turn one bilingual master (notebooks/<unit>.md, jupytext Markdown format) into
one nbgrader source notebook per language.

What an author writes in a master:
- `<!-- #region lang="en" -->` ... `<!-- #endregion -->` (or lang="es"): prose for one
  language; a markdown cell with no `lang` is shown in both.
- a ```python fence: a code cell shared by both languages. A line `#en text` or `#es text`
  is a comment for that language only. A line of code ending in `#:en` or `#:es` is kept
  only in that language (write the line twice, once per language, to give a string in
  each). `__LANG__` becomes "en" or "es".
- `nbgrader="solution"` / `"tests"` / `"readonly"` on the fence, with `grade_id="unit-name"`
  (and `points=N` for tests): the nbgrader role of the cell.
- `nbgrader="answer" grade_id="unit-name" points=N` on a `<!-- #region -->`: a manually
  graded written answer (its text is the model answer; students get an answer stub).
- `after="unit-predict-name"` on a `<!-- #region -->`: prose that discusses what a prediction's
  measurement showed; the website leaves it out (a reader there has made no prediction).
"""
import io
import re
import tokenize

import jupytext
import nbformat

from course.names import LANGUAGES

LANGUAGE_LINE = re.compile(r"^(\s*)#(en|es)(?: (.*))?$")
LANGUAGE_TAIL = re.compile(r"^(.*?)\s*#:(en|es)\s*$")
F_STRING_PARTS = tuple(getattr(tokenize, name, -1) for name in
                       ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END"))
ROLES = {
    "solution": {"solution": True, "grade": False, "locked": False},
    "tests": {"solution": False, "grade": True, "locked": True},
    "readonly": {"solution": False, "grade": False, "locked": True},
    # a manually graded answer (a markdown region): nbgrader's "solution + grade" cell
    "answer": {"solution": True, "grade": True, "locked": False},
}


def read_master(path):
    return jupytext.read(path, fmt="md")


def for_language(master, lang, unit):
    """The nbgrader source notebook of `master` in `lang`."""
    nb = nbformat.v4.new_notebook()
    nb.metadata = {
        # as JupyterLab writes it, so opening a notebook does not mark it unsaved
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
        "course": {"unit": unit, "lang": lang},
    }
    for number, cell in enumerate(master.cells):
        meta = dict(cell.metadata)
        cell_lang = meta.pop("lang", None)
        if cell_lang not in (None,) + LANGUAGES:
            raise ValueError(f"{unit}: cell {number} has unknown lang={cell_lang!r}")
        if cell_lang not in (None, lang):
            continue
        if cell.cell_type == "markdown":
            new = nbformat.v4.new_markdown_cell(cell.source)
        else:
            new = nbformat.v4.new_code_cell(localize_code(cell.source, lang))
        role = meta.pop("nbgrader", None)
        grade_id = meta.pop("grade_id", None)
        points = meta.pop("points", None)
        after = meta.pop("after", None)
        if role is not None:
            if role not in ROLES:
                raise ValueError(f"{unit}: cell {number} has unknown nbgrader role {role!r}")
            if not grade_id:
                raise ValueError(f"{unit}: cell {number} ({role}) needs a grade_id")
            new.metadata["nbgrader"] = dict(ROLES[role], grade_id=grade_id, schema_version=3, task=False)
            if role == "answer" and cell.cell_type != "markdown":
                raise ValueError(f"{unit}: cell {number}: nbgrader=\"answer\" is for markdown regions")
            if role in ("tests", "answer"):
                new.metadata["nbgrader"]["points"] = points
        if after is not None:
            if cell.cell_type != "markdown":
                raise ValueError(f"{unit}: cell {number}: after= is for markdown regions")
            new.metadata["course"] = {"after": after}
        if meta:
            raise ValueError(f"{unit}: cell {number} has unknown metadata {sorted(meta)}")
        new.id = f"{grade_id or 'cell'}-{number}"
        nb.cells.append(new)
    return nb


def localize_code(source, lang):
    lines = []
    for line in source.splitlines():
        match = LANGUAGE_LINE.match(line)
        tail = LANGUAGE_TAIL.match(line)
        if tail is not None:
            if tail.group(2) == lang:
                lines.append(tail.group(1))
        elif match is None:
            lines.append(line)
        elif match.group(2) == lang:
            lines.append(f"{match.group(1)}# {match.group(3) or ''}".rstrip())
    return "\n".join(lines).replace("__LANG__", lang)


def code_skeleton(source):
    """The code's tokens with comments dropped and every string literal blanked."""
    tokens = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.COMMENT, tokenize.NL):
            continue
        if token.type == tokenize.STRING:
            tokens.append("''")
        elif token.type in F_STRING_PARTS:  # Python 3.12+ splits f-strings
            tokens.append("''" if token.type == F_STRING_PARTS[0] else "")
        else:
            tokens.append(token.string)
    return tokens


def differences(one, other):
    """How two language versions of a unit differ in anything but prose,
    comments and string literals (an empty list when they match)."""
    problems = []
    code = [[c for c in nb.cells if c.cell_type == "code"] for nb in (one, other)]
    if len(code[0]) != len(code[1]):
        return [f"{len(code[0])} code cells against {len(code[1])}"]
    for number, (a, b) in enumerate(zip(*code)):
        if a.metadata.get("nbgrader") != b.metadata.get("nbgrader"):
            problems.append(f"code cell {number}: nbgrader metadata differs")
        if code_skeleton(a.source) != code_skeleton(b.source):
            problems.append(f"code cell {number}: code differs")
    return problems
