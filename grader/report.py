"""The per-cohort report: every submission, every graded cell, a score and a reason.

    python -m grader report ASSIGNMENT   # after `nbgrader autograde ASSIGNMENT`

Writes reports/ASSIGNMENT.csv (one row per student: the defences its kernel
ran under, and for each graded cell a score column and a reason column) and
prints a summary. Every text field is cleaned of control characters and
spreadsheet formulas: student ids and reasons come from student code. nbgrader's own
totals stay in `nbgrader export`.
"""
import csv
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook, MissingEntry

from course.i18n import say
from grader.inert import for_spreadsheet, for_terminal


def graded_ids(nb):
    return [c.metadata["nbgrader"]["grade_id"] for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "code"]


def reasons_in(path, lang):
    """{grade_id: reason} from an autograded notebook, and the defences it was graded under."""
    nb = nbformat.read(path, as_version=4)
    reasons = {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade") and cell.cell_type == "code" and cell.outputs:
            first = cell.outputs[0]
            reasons[meta["grade_id"]] = (first.get("evalue") or first.get("text", "")).strip()
    grading = nb.metadata.get("course", {}).get("grading", {})
    return reasons, grading.get("defences", "")


def cohort(root, assignment):
    """One dict per submitted student."""
    root = Path(root)
    release = next((root / "release" / assignment).glob("*.ipynb"))
    release_nb = nbformat.read(release, as_version=4)
    lang = release_nb.metadata.get("course", {}).get("lang", "en")
    ids = graded_ids(release_nb)
    rows = []
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        for folder in sorted((root / "submitted").glob(f"*/{assignment}")):
            student = folder.parent.name
            row = {"student": student, "score": 0.0, "max_score": 0.0, "defences": "",
                   "note": ""}
            autograded = root / "autograded" / student / assignment / release.name
            reasons, row["defences"] = reasons_in(autograded, lang) if autograded.exists() else ({}, "")
            try:
                submission = gb.find_submission(assignment, student)
                grades = {g.name: g for nbk in submission.notebooks for g in nbk.grades}
                row["score"], row["max_score"] = submission.score, submission.max_score
            except MissingEntry:
                grades = {}
            if not autograded.exists():
                row["note"] = say("not_graded", lang)
            for grade_id in ids:
                grade = grades.get(grade_id)
                row[grade_id] = grade.score if grade is not None else 0.0
                row[f"{grade_id} reason"] = reasons.get(grade_id) or (
                    say("missing_cell", lang) if autograded.exists() else row["note"])
            rows.append(row)
    return ids, rows


def write(root, assignment):
    ids, rows = cohort(root, assignment)
    folder = Path(root) / "reports"
    folder.mkdir(exist_ok=True)
    path = folder / f"{assignment}.csv"
    columns = ["student", "score", "max_score", "defences", "note"]
    columns += [name for grade_id in ids for name in (grade_id, f"{grade_id} reason")]
    with open(path, "w", newline="", encoding="utf-8") as stream:
        writer = csv.DictWriter(stream, fieldnames=columns, quoting=csv.QUOTE_NONNUMERIC)
        writer.writeheader()
        writer.writerows({k: for_spreadsheet(v) for k, v in row.items()} for row in rows)
    for row in rows:
        failed = [f"{g}: {row[g + ' reason']}" for g in ids if not row[g + " reason"].startswith("✔")]
        print(for_terminal(f"{row['student']:<20} {row['score']:>5g}/{row['max_score']:<5g} "
                           f"{row['defences']}"))
        for line in failed:
            print("    " + for_terminal(line)[:160])
    print(f"wrote {path}")
    return path
