"""The per-cohort report: every submission, every graded cell, a score and a reason.

    python -m grader report ASSIGNMENT [--lang en|es] [nbgrader options]   # after grading

Writes reports/ASSIGNMENT.csv (one row per student: the defences its kernel
ran under, the points still awaiting hand grading, and for each graded cell a
score column and a reason column) and prints a summary; beside it,
reports/ASSIGNMENT.html in the instructor's language (default: the
assignment's): the mean score out of one maximum (auto + manual points, as
nbgrader counts them; extra credit shown apart, and the plot going past the
maximum when it does), per question the pass rate (for a bonus cell: who
earned its credit), the most common failure reasons and how many answers
await hand grading, similarity hints between students' answers
(grader/reports/similarity.py), per student the score, the extra credit, the
points awaiting hand grading and, when not graded, the log to read; and the
instructor's next steps (formgrader, feedback, the export). Every text field is
cleaned of control characters and spreadsheet formulas: student ids and reasons
come from student code. nbgrader's own totals stay in `nbgrader export`.
"""
import base64
import csv
import glob
import html
import io
import math
import re
import sys
import textwrap
from collections import Counter
from pathlib import Path

import nbformat
from nbgrader.api import MissingEntry

from course.i18n import say
from course.names import LANGUAGES
from grader.checks import bonus_of
from grader.config import course_dir, gradebook
from grader.plugins.exchange import explain, refusals
from grader.reports.logs import LOGS, log_name
from grader.shared import (
    course_folder,
    for_spreadsheet,
    for_terminal,
    notebook_language,
    release_language,
    release_notebook,
)


def graded_ids(nb):
    return [c.metadata["nbgrader"]["grade_id"] for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "code"]


def hand_graded_ids(nb):
    """The cells a person grades (nbgrader's written answers and tasks: no code to run)."""
    return [c.metadata["nbgrader"]["grade_id"] for c in nb.cells
            if (c.metadata.get("nbgrader", {}).get("grade") or c.metadata.get("nbgrader", {}).get("task"))
            and c.cell_type != "code"]


def pending(grade):
    """Whether a grade awaits a person: it has no score at all, neither automatic nor manual
    (nbgrader flags it `needs_manual_grade`, and counts it 0 until someone grades it). An answer
    left as the release had it is not pending: nbgrader gives it 0 itself."""
    return grade.auto_score is None and grade.manual_score is None


def hand_reason(grade, lang):
    """What the report says of a hand-graded cell's grade."""
    if grade is None:
        return say("missing_cell", lang)
    if pending(grade):
        return say("cohort_awaits_hand", lang)
    if grade.manual_score is None:
        return say("cohort_left_blank", lang)
    return say("cohort_graded_by_hand", lang)


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


def cohort(root, assignment, options=()):
    """One dict per submitted student: `score` is nbgrader's (auto or manual, plus
    extra credit), `extra_credit` the part of it that is extra credit, `max_score`
    the assignment's maximum (auto + manual, as nbgrader counts it, the same for all)."""
    root = Path(root)
    coursedir = course_dir(root, options)
    release = release_notebook(root, assignment, options)
    release_nb = nbformat.read(release, as_version=4)
    lang = notebook_language(release_nb)
    ids, by_hand = graded_ids(release_nb), hand_graded_ids(release_nb)
    maximum = sum(points_of(root, assignment, every_cell=True).values())
    rows = []
    with gradebook(root, options) as gb:
        for folder in sorted(course_folder(root, "submitted", options=options).glob(
                f"*/{glob.escape(assignment)}")):
            student = folder.parent.name
            row = {"student": student, "score": 0.0, "max_score": maximum, "extra_credit": 0.0,
                   "pending": 0.0, "defences": "", "note": ""}
            autograded = Path(coursedir.format_path(coursedir.autograded_directory, student, assignment),
                              release.name)
            reasons, row["defences"] = reasons_in(autograded, lang) if autograded.exists() else ({}, "")
            try:
                submission = gb.find_submission(assignment, student)
                grades = {g.name: g for nbk in submission.notebooks for g in nbk.grades}
            except MissingEntry:
                grades = {}
            if autograded.exists():
                row["score"] = sum(g.score or 0.0 for g in grades.values())
                row["extra_credit"] = sum(g.extra_credit or 0.0 for g in grades.values())
                row["pending"] = sum(g.max_score or 0.0 for g in grades.values() if pending(g))
            else:  # an earlier grade the gradebook may hold is not this submission's
                grades = {}
                log = Path(LOGS) / assignment / log_name(student)
                row["note"] = say("not_graded", lang, log=log)
            for grade_id in ids:
                grade = grades.get(grade_id)
                row[grade_id] = grade.score if grade is not None else 0.0
                row[f"{grade_id} reason"] = reasons.get(grade_id) or (
                    say("missing_cell", lang) if autograded.exists() else row["note"])
            for grade_id in by_hand:
                grade = grades.get(grade_id)
                row[grade_id] = grade.score if grade is not None and not pending(grade) else None
                row[f"{grade_id} reason"] = hand_reason(grade, lang) if autograded.exists() else row["note"]
            rows.append(row)
    return [grade_id for grade_id in every_graded_id(release_nb) if grade_id in ids + by_hand], rows


def every_graded_id(nb):
    """The graded cells' ids, in the notebook's order."""
    return [c.metadata["nbgrader"]["grade_id"] for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("grade") or c.metadata.get("nbgrader", {}).get("task")]


def verdicts(root, assignment, options=()):
    """student -> {grade_id: (score, reason with its drawn numbers blanked)}: what two gradings
    of the same submissions must agree on (benchmarks/cohort_speed.py, demo_verdicts.py)."""
    ids, rows = cohort(root, assignment, options)
    return {row["student"]: {gid: (row[gid], shape_of(row[f"{gid} reason"])) for gid in ids} for row in rows}


def write(root, assignment, options=()):
    ids, rows = cohort(root, assignment, options)
    folder = Path(root) / "reports"
    folder.mkdir(exist_ok=True)
    path = folder / f"{assignment}.csv"
    columns = ["student", "score", "max_score", "extra_credit", "pending", "defences", "note"]
    columns += [name for grade_id in ids for name in (grade_id, f"{grade_id} reason")]
    with open(path, "w", newline="", encoding="utf-8") as stream:
        writer = csv.DictWriter(stream, fieldnames=columns, quoting=csv.QUOTE_NONNUMERIC)
        writer.writeheader()
        writer.writerows({k: for_spreadsheet(v) for k, v in row.items()} for row in rows)
    for row in refusals(root, assignment):
        print(for_terminal(f"REFUSED at collection: {row['folder']!r}: {explain(row)}"))
    lang = release_language(root, assignment, options)
    for row in rows:
        failed = [f"{g}: {row[g + ' reason']}" for g in ids
                  if row[g] is not None and not row[g + " reason"].startswith("✔")]
        waiting = f"  ({say('cohort_pending_points', lang, n=row['pending'])})" if row["pending"] else ""
        print(for_terminal(f"{row['student']:<20} {row['score']:>5g}/{row['max_score']:<5g} "
                           f"{row['defences']}{waiting}"))
        for line in failed:
            print("    " + shortened(for_terminal(line), 160))
    print(f"wrote {path}")
    print(say("cohort_next_title", lang) + "\n" + "\n".join(
        "  " + step for step in next_steps(assignment, rows, lang, markup=False)))
    return path


def shortened(text, width):
    """`text` on one line of at most `width` characters, cut at a word boundary (…)."""
    return textwrap.shorten(text, width=width, placeholder=" …")


def next_steps(assignment, rows, lang, markup=True):
    """What the instructor does next, in order: the hand grading still to do, the grading that
    failed, feedback, the export (which refuses unfinished grades)."""
    code = (lambda text: f"<code>{html.escape(text)}</code>") if markup else (lambda text: f"`{text}`")
    steps = []
    waiting = [row for row in rows if row["pending"]]
    if waiting:
        steps.append(say("cohort_next_formgrader", lang, n=len(waiting),
                         points=sum(row["pending"] for row in waiting)))
    failed = [row for row in rows if row["note"]]
    if failed:
        steps.append(say("cohort_next_regrade", lang, n=len(failed),
                         command=code(f"python -m grader grade {assignment}")))
    steps.append(say("cohort_next_feedback", lang, command=code(f"nbgrader generate_feedback {assignment}"),
                     release=code(f"nbgrader release_feedback {assignment}")))
    steps.append(say("cohort_next_export", lang, command=code("python -m grader export --lms moodle|canvas")))
    return steps


# ---- the HTML page: what an instructor would rather look at ----

def points_of(root, assignment, every_cell=False):
    """{grade_id: points} of the autograded code cells (`every_cell`: manually graded
    answers and tasks too, so the points add up to nbgrader's maximum)."""
    nb = nbformat.read(release_notebook(root, assignment), as_version=4)
    return {c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"].get("points", 0)
            for c in nb.cells if (c.metadata.get("nbgrader", {}).get("grade")
                                  or c.metadata.get("nbgrader", {}).get("task"))
            and (every_cell or c.cell_type == "code")}


def as_text(reason):
    """A reason as the student's words read: a message quoted with its escapes
    (lab 03 quotes the student's assertion message) gets its line breaks back."""
    return str(reason).replace("\\n", "\n").strip()


def shape_of(reason):
    """A reason with its numbers and signs blanked: the cases (points, functions) are
    drawn afresh for every submission, so the same mistake reads with other numbers."""
    signed = re.sub(r"\d+(\.\d+)?(e±?\d+)?", "#", re.sub(r"[-−+]", "±", str(reason)))
    # a polynomial's terms ("#x³", "x", "#") and the signs between them read as one blank
    terms = re.sub(r"(?<![\w(])±?#?x?[²³]?(?![\w)])", lambda m: "#" if m.group() else "", signed)
    return re.sub(r"#(\s*±?\s*#)+", "#", terms.replace("±#", "#"))


def questions(ids, rows, points):
    """Per graded cell: (grade_id, points, bonus, passed, graded, [(count, an example reason)],
    waiting). A bonus cell (0 points, extra credit when it passes) is passed when it earned its
    credit; a cell a person grades counts among `graded` once graded, `waiting` those still to grade."""
    table = []
    submissions = [r for r in rows if not r["note"]]
    for grade_id in ids:
        bonus = bonus_of(grade_id)
        graded = [r for r in submissions if r[grade_id] is not None]
        if bonus and not points.get(grade_id):
            passed = [r for r in graded if r[grade_id] > 0]
        else:
            passed = [r for r in graded if r[grade_id] >= points.get(grade_id, 0)]
        failures = Counter()
        example = {}
        for row in graded:
            if row not in passed:
                reason = as_text(row[f"{grade_id} reason"])
                failures[shape_of(reason)] += 1
                example.setdefault(shape_of(reason), reason)
        table.append((grade_id, points.get(grade_id, 0), bonus, len(passed), len(graded),
                      [(n, example[shape]) for shape, n in failures.most_common(3)],
                      len(submissions) - len(graded)))
    return table


def histogram_bins(scores, maximum):
    """One bin per point, centred on whole scores, from 0 to the maximum or the best
    score, whichever is higher: extra credit goes past the maximum."""
    top = math.ceil(max([maximum, *scores]))
    return [x - 0.5 for x in range(top + 2)]


def distribution_png(scores, maximum, lang):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(figsize=(6, 3), dpi=100)
    bins = histogram_bins(scores, maximum)
    axes.hist(scores, bins=bins, color="#4477aa", edgecolor="white")
    axes.axvline(maximum, color="#aa3377", linestyle="--", label=say("cohort_maximum", lang))
    axes.legend(loc="upper left", frameon=False)
    axes.set_xlabel(say("cohort_score", lang))
    axes.set_ylabel(say("cohort_students", lang))
    axes.set_title(say("cohort_distribution", lang))
    axes.yaxis.get_major_locator().set_params(integer=True)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    plt.close(figure)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def distribution_words(scores, maximum, lang):
    """The histogram in words (its alt text's longer half): how many students at each whole
    score, as its bars count them."""
    from course.figures import number
    bins = histogram_bins(scores, maximum)
    counts = [(low + 0.5, sum(low <= s < low + 1 for s in scores)) for low in bins[:-1]]
    shown = [say("cohort_distribution_bar", lang, n=n, score=number(score, lang)) for score, n in counts if n]
    return say("cohort_distribution_words", lang, n=len(scores), max=number(maximum, lang),
               bars=", ".join(shown) or "–")


TEMPLATES = Path(__file__).parent / "templates"


def similar_answers(root, assignment):
    """{answer cell's grade_id: [(students, ratio)]}: alike answers across the
    submissions (grader/reports/similarity.py: hints, never verdicts)."""
    from grader.reports.similarity import answers_of, groups
    root = Path(root)
    release = release_notebook(root, assignment)
    stubs = {c.metadata["nbgrader"]["grade_id"]: c.source
             for c in nbformat.read(release, as_version=4).cells
             if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")}
    notebooks = {}
    for path in sorted(course_folder(root, "submitted").glob(f"*/{glob.escape(assignment)}/{release.name}")):
        try:
            notebooks[path.parent.parent.name] = nbformat.read(path, as_version=4)
        except Exception:  # noqa: BLE001, S112 (an unreadable submission has no answers to compare)
            continue
    answers = answers_of(notebooks, stubs)
    return {grade_id: found for grade_id in stubs
            if (found := groups(answers[grade_id], stubs[grade_id]))}


def write_html(root, assignment, lang=None, options=()):
    """reports/ASSIGNMENT.html beside the CSV (templates/report.html.j2): pass rates, the most
    common failure reasons, the score distribution, similarity hints. Every student-controlled
    text is escaped (the template is autoescaped)."""
    from jinja2 import Environment, FileSystemLoader, select_autoescape
    from markupsafe import Markup

    ids, rows = cohort(root, assignment, options)
    points = points_of(root, assignment, every_cell=True)
    if lang not in LANGUAGES:
        lang = release_language(root, assignment)
    graded = [r for r in rows if not r["note"]]
    maximum = rows[0]["max_score"] if rows else sum(points.values())
    table = []
    for grade_id, worth, bonus, passed, count, failures, left in questions(ids, rows, points):
        table.append({"grade_id": grade_id, "points": worth, "failures": failures, "left": left,
                      "worth": say("cohort_bonus_points", lang, bonus=bonus) if bonus and not worth else f"{worth:g}",
                      "rate": f"{passed}/{count} ({100 * passed / count:.0f}%)" if count else "–"})
    environment = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["j2"]),
                              keep_trailing_newline=True)
    page = environment.get_template("report.html.j2").render(
        lang=lang, assignment=assignment, say=lambda key, **fields: say(key, lang, **fields), rows=rows,
        graded=graded, maximum=maximum, mean=sum(r["score"] for r in graded) / len(graded) if graded else 0.0,
        with_extra=len([r for r in graded if r["extra_credit"] > 0]), waiting=[r for r in graded if r["pending"]],
        image=distribution_png([r["score"] for r in graded], maximum, lang),
        image_words=distribution_words([r["score"] for r in graded], maximum, lang), questions=table,
        hints=similar_answers(root, assignment),
        refused=[(row["folder"], explain(row, lang)) for row in refusals(root, assignment)],
        next_steps=[Markup(step) for step in next_steps(assignment, rows, lang)])  # commands escaped there
    folder = Path(root) / "reports"
    folder.mkdir(exist_ok=True)
    path = folder / f"{assignment}.html"
    path.write_text(page, encoding="utf-8")
    print(f"wrote {path}")
    return path


def write_report(root, assignment, lang, options):
    """The cohort report; a database that fails while it is read is said plainly
    (grading is over: what was graded stays graded; `python -m grader report` again)."""
    from sqlalchemy.exc import DBAPIError, OperationalError

    try:
        write(root, assignment, options)  # options: a db_url given on the command line
        write_html(root, assignment, lang, options)
    except (OperationalError, DBAPIError) as error:
        first = str(error.orig if getattr(error, "orig", None) else error).splitlines()[0]
        print(for_terminal(f"\nno report: the gradebook's database could not be read ({first}); "
                           f"when it is back, `python -m grader report {assignment}` writes it"),
              file=sys.stderr)


def main(argv):
    """`python -m grader report`: the report of an assignment already graded."""
    from course.commands import Parser
    from grader.arguments import (
        existing_gradebook,
        known_assignments,
        nbgrader_options,
        split_options,
    )
    parser = Parser(prog="python -m grader report", description=__doc__,
                    epilog="nbgrader options: --Class.trait=value, as for `python -m grader grade` "
                           "(--CourseDirectory.db_url=... for a gradebook named on the command line)")
    parser.add_argument("assignment", help="an assignment graded here: theory03-en, lab01-es, ...")
    parser.add_argument("--lang", choices=LANGUAGES, default=None,
                        help="the HTML report's language (default: the assignment's)")
    options, rest = split_options(argv)
    arguments = parser.parse_args(rest)
    options = nbgrader_options(parser, options)
    root = Path.cwd()
    known_assignments(parser, root, [arguments.assignment])
    submitted = course_folder(root, "submitted", options=options)
    if not any(submitted.glob(f"*/{glob.escape(arguments.assignment)}")):
        parser.fail(f"no submissions of {arguments.assignment} in {submitted}: nothing to report")
    existing_gradebook(parser, root, options)
    write_report(root, arguments.assignment, arguments.lang, options)
    return 0
