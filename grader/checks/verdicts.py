"""Decide a graded test cell from the evidence it printed.

A hidden test prints evidence (what the student's code returned on the cases
the seed gives); here, in the grader's process, the cell's check redraws the
cases, computes its reference and compares. What the test cell states
literally (`student.probe(..., known={...})`) is read from the cell's source,
which nbgrader restores from the gradebook, so it is the instructor's word.
The cell's outputs are then replaced by the verdict first (an error output on
failure, so nbgrader's own scoring gives 0), then what the cell printed, defused.
"""
import ast
import json
import re

from nbformat.v4 import new_output

from course.i18n import say
from course.student import EVIDENCE_MIME
from grader.checks import find_check

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def is_graded_test(cell):
    meta = cell.metadata.get("nbgrader", {})
    return cell.cell_type == "code" and meta.get("grade") and not meta.get("solution")


def decide(cell, seed, lang):
    """Replace the cell's outputs with the verdict first, then what it printed, defused."""
    grade_id = cell.metadata["nbgrader"]["grade_id"]
    evidence, printed = [], []
    for output in cell.outputs:
        data = output.get("data", {})
        if output.output_type in ("display_data", "execute_result") and EVIDENCE_MIME in data:
            evidence.append(data[EVIDENCE_MIME])
        else:
            printed.append(defuse(output))
    passed, reason = judge(grade_id, evidence, seed, lang, cell.outputs, stated_in(cell.source))
    verdict = (new_output("stream", name="stdout", text=reason + "\n") if passed
               else error_output("CheckFailed", reason))
    cell.outputs = [verdict] + printed


def stated_in(source):
    """The literal keyword arguments of the cell's `student.probe(...)` call."""
    try:
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "probe":
                return {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
    except (SyntaxError, ValueError):
        pass
    return {}


def judge(grade_id, evidence, seed, lang, outputs, stated=None):
    """(passed, reason). Never raises, whatever the evidence says."""
    try:
        check = find_check(grade_id)
    except LookupError:
        return False, say("no_check", lang, grade_id=grade_id)
    if not evidence:
        errors = [f"{o.get('ename')}: {ANSI.sub('', str(o.get('evalue')))}"[:300]
                  for o in outputs if o.get("output_type") == "error"]
        return False, say("no_evidence", lang, why=(": " + errors[-1]) if errors else "")
    if len(evidence) > 1:
        return False, say("bad_evidence", lang, detail="more than one report")
    try:
        report = json.loads(evidence[0], parse_constant=_reject_constant)
        if not isinstance(report, dict) or report.get("grade_id") != grade_id:
            return False, say("bad_evidence", lang, detail="grade_id")
        if report.get("seed") != seed:
            return False, say("bad_evidence", lang, detail="seed")
        verdict = check.judge(seed, report.get("results"), lang, stated)
        return verdict.passed, verdict.summary
    except Exception:  # noqa: BLE001 — unreadable evidence fails the cell, never the grader
        return False, say("bad_evidence", lang, detail="unreadable")


def _reject_constant(name):
    raise ValueError(f"{name} is not allowed")


def defuse(output):
    """The same text, but no longer an error, stderr or result nbgrader would score."""
    if output.output_type == "error":
        # the message, not the traceback: a traceback quotes the hidden tests' source
        return new_output("stream", name="stdout",
                          text=f"{output.get('ename', '')}: {ANSI.sub('', str(output.get('evalue', '')))}\n")
    if output.output_type == "stream":
        return new_output("stream", name="stdout", text=output.get("text", ""))
    if output.output_type == "execute_result":
        return new_output("display_data", data=output.get("data", {}), metadata=output.get("metadata", {}))
    return output


def error_output(name, reason):
    return new_output("error", ename=name, evalue=reason, traceback=[f"{name}: {reason}"])
