"""Grades an LMS imports: one per student per unit, whichever language they took.

    python -m grader export --lms moodle|canvas [--uncapped] [--allow-ungraded] [--out FOLDER]
    python -m grader export --lti [--lti-config FILE] [--uncapped]   # straight to the LMS (grader/reports/ags.py)

Each unit is two nbgrader assignments (`theory03-en`, `theory03-es`); a student
takes one. The grade of a unit is the student's graded submission of it (if
both languages were handed in, the later one, by nbgrader's timestamp; on a tie
the higher score), read from the gradebook the course's configuration names:

    grade = score - late penalty, at most the unit's maximum

- score: nbgrader's, manual grades and extra credit included;
- late penalty: what the configured late-submission plugin
  (`AssignLatePenalties.plugin_class`, grader/plugins/late.py) takes from that score,
  for the seconds the submission was late (due date and extensions in the
  gradebook, the submission's timestamp);
- the maximum: the assignment's (auto + manual points). Extra credit can make
  up for lost points but not pass the maximum (an LMS rejects a grade above
  it: Moodle by default); `--uncapped` keeps it (Canvas accepts it). Every
  capped grade is listed in the notes file.

A student with no graded submission of a unit gets an empty cell: the LMS leaves
it as it is. A submission handed in but not graded (no autograded notebook)
is empty too, and named in the notes and on the terminal. Nothing unfinished is
exported as final: while any grade has points awaiting hand grading (a written
answer nobody has graded yet in formgrader), nothing is written and those are
named; `--allow-ungraded` writes them as they stand (those points count 0),
each marked INCOMPLETE in the notes and on the terminal.

Writes exports/LMS.csv in the LMS's grade-import format, and exports/LMS-notes.csv
(per student and unit: the assignment used, score, penalty, extra credit, what
was capped or left out). Moodle: "Grades > Import > CSV file", map "User ID" to
userid (the participant number of Moodle's submission names) and each unit
column to its grade item. Canvas: "Grades > Import"; "ID" is the Canvas user
number of Canvas's submission names; rename a unit's column to the Canvas
assignment's "Name (id)" to fill an existing one, else Canvas makes a new one.
"""
import csv
import sys
from dataclasses import dataclass
from pathlib import Path

from nbgrader.api import MissingEntry

from course.names import unit_and_language
from grader.config import gradebook, load_config
from grader.plugins.inert import for_spreadsheet, for_terminal
from grader.plugins.late import penalty
from grader.reports.report import pending


@dataclass
class UnitGrade:
    assignment: str
    score: float
    extra_credit: float
    late_seconds: float
    penalty: float
    maximum: float
    capped: float = 0.0  # points above the maximum that were left out
    grade: float = 0.0
    note: str = ""
    pending: float = 0.0  # points that await hand grading (counted 0 until graded)


def released_units(root):
    """{unit: [its assignments]} from release/ (`UNIT-LANG` folders)."""
    found = {}
    for folder in sorted((Path(root) / "release").iterdir()):
        split = unit_and_language(folder.name)
        if folder.is_dir() and split:
            found.setdefault(split[0], []).append(folder.name)
    return found


def graded(root, assignment, student):
    return (Path(root) / "autograded" / student / assignment).is_dir()


def unit_grades(root, options=(), capped=True):
    """({unit: maximum}, {student: {unit: UnitGrade}}, [people's details], [problems])."""
    config = load_config(root, list(options))
    maxima, grades, problems = {}, {}, []
    with gradebook(root, options) as gb:
        people = {s.id: s for s in gb.students}
        for unit, assignments in released_units(root).items():
            known = {a: gb.find_assignment(a) for a in assignments if _exists(gb, a)}
            if not known:
                continue
            tops = {a.max_score for a in known.values()}
            if len(tops) > 1:
                raise SystemExit(f"{unit}: its languages have different maxima "
                                 f"({', '.join(f'{a}: {m.max_score:g}' for a, m in known.items())}); "
                                 "one grade per unit needs the same maximum")
            maxima[unit] = maximum = tops.pop()
            for name, assignment in known.items():
                handed_in = {p.parent.name for p in (Path(root) / "submitted").glob(f"*/{name}")}
                for student in sorted(handed_in - {s for s in handed_in if graded(root, name, s)}):
                    problems.append((student, unit, f"{name} handed in but not graded"))
                for submission in assignment.submissions:
                    student = submission.student_id
                    if not graded(root, name, student):
                        if student not in handed_in:
                            problems.append((student, unit, (f"{name}: in the gradebook, "
                                                             "but its autograded notebook is missing")))
                        continue
                    extra = sum(g.extra_credit or 0.0 for nb in submission.notebooks for g in nb.grades)
                    waiting = sum(g.max_score or 0.0 for nb in submission.notebooks for g in nb.grades
                                  if pending(g))
                    late = submission.total_seconds_late
                    taken = penalty(config, student, submission.score, late)
                    candidate = UnitGrade(name, submission.score, extra, late, taken, maximum, pending=waiting)
                    current = grades.setdefault(student, {}).get(unit)
                    if current is None or _later(submission, candidate, current, gb):
                        grades[student][unit] = candidate
    for student, by_unit in grades.items():
        for unit, grade in by_unit.items():
            grade.grade = grade.score - grade.penalty
            if capped and grade.grade > grade.maximum:
                grade.capped, grade.grade = grade.grade - grade.maximum, grade.maximum
                grade.note = f"capped at the maximum: {grade.capped:g} point(s) of extra credit left out"
            if grade.pending:
                incomplete = f"INCOMPLETE: {grade.pending:g} point(s) of {grade.assignment} await hand grading (counted 0)"
                grade.note = "; ".join(filter(None, [incomplete, grade.note]))
    return maxima, grades, people, problems


def unfinished(grades):
    """[(student, unit, UnitGrade)] of the grades with points awaiting hand grading."""
    return [(student, unit, g) for student, by_unit in sorted(grades.items())
            for unit, g in sorted(by_unit.items()) if g.pending]


def _exists(gb, assignment):
    try:
        gb.find_assignment(assignment)
        return True
    except MissingEntry:
        return False


def _later(submission, candidate, current, gb):
    """Whether `submission` (both languages handed in) replaces `current`: the later
    one counts; on a tie (or no timestamps) the higher score."""
    other = gb.find_submission(current.assignment, submission.student_id)
    mine, theirs = submission.timestamp, other.timestamp
    if mine is not None and theirs is not None and mine != theirs:
        return mine > theirs
    return candidate.score - candidate.penalty > current.score - current.penalty


def number(value):
    return f"{value:.2f}".rstrip("0").rstrip(".")


def moodle_rows(maxima, grades, people):
    """Moodle's grade import: a header, then one row per student; the identifier
    column is mapped at import (User ID -> userid)."""
    header = ["User ID", "First name", "Last name", "Email address", *maxima]
    rows = [header]
    for student in sorted(grades):
        person = people.get(student)
        rows.append([student, _field(person, "first_name"), _field(person, "last_name"),
                     _field(person, "email"),
                     *(number(grades[student][u].grade) if u in grades[student] else ""
                       for u in maxima)])
    return rows


def canvas_rows(maxima, grades, people):
    """Canvas's gradebook import: Student, ID, SIS User ID, SIS Login ID, Section, then
    one column per assignment, and a "Points Possible" row under the header."""
    header = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *maxima]
    rows = [header, ["    Points Possible", "", "", "", "", *(number(m) for m in maxima.values())]]
    for student in sorted(grades):
        person = people.get(student)
        last, first = _field(person, "last_name"), _field(person, "first_name")
        name = f"{last}, {first}" if last and first else (last or first or student)
        rows.append([name, _field(person, "lms_user_id") or student, "", "", "",
                     *(number(grades[student][u].grade) if u in grades[student] else ""
                       for u in maxima)])
    return rows


def _field(person, name):
    return (getattr(person, name, None) or "") if person is not None else ""


FORMATS = {"moodle": moodle_rows, "canvas": canvas_rows}


def export(root, lms, out=None, capped=True, options=(), allow_ungraded=False):
    """Write the LMS's CSV and the notes beside it; returns the CSV's path. While points await
    hand grading, nothing is written (SystemExit), unless `allow_ungraded`: those grades are
    then written as they stand, marked INCOMPLETE in the notes and on the terminal."""
    maxima, grades, people, problems = unit_grades(root, options, capped)
    waiting = unfinished(grades)
    for student, unit, g in waiting:
        print(for_terminal(f"INCOMPLETE {student} ({unit}): {g.pending:g} point(s) of {g.assignment} "
                           "await hand grading"), file=sys.stderr)
    if waiting and not allow_ungraded:
        raise SystemExit(f"not exported: {len(waiting)} grade(s) have points awaiting hand grading (listed "
                         "above); grade them in formgrader, then export again (--allow-ungraded exports "
                         "them as they stand, counted 0, marked INCOMPLETE in the notes)")
    folder = Path(out or Path(root) / "exports")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{lms}.csv"
    with open(path, "w", newline="", encoding="utf-8") as stream:
        csv.writer(stream).writerows([[for_spreadsheet(v) for v in row]
                                      for row in FORMATS[lms](maxima, grades, people)])
    notes = folder / f"{lms}-notes.csv"
    with open(notes, "w", newline="", encoding="utf-8") as stream:
        writer = csv.writer(stream)
        writer.writerow(["student", "unit", "assignment", "score", "extra_credit", "seconds_late",
                         "late_penalty", "maximum", "grade", "note"])
        for student in sorted(grades):
            for unit, g in sorted(grades[student].items()):
                writer.writerow([for_spreadsheet(v) for v in (
                    student, unit, g.assignment, number(g.score), number(g.extra_credit),
                    number(g.late_seconds), number(g.penalty), number(g.maximum), number(g.grade),
                    g.note)])
        for student, unit, why in problems:
            writer.writerow([for_spreadsheet(student), unit, "", "", "", "", "", "", "", why])
    for student, unit, why in problems:
        print(for_terminal(f"NOT EXPORTED {student} ({unit}): {why}"), file=sys.stderr)
    capped_count = sum(1 for by_unit in grades.values() for g in by_unit.values() if g.capped)
    print(f"wrote {path}: {len(grades)} students, {len(maxima)} units "
          f"({', '.join(f'{u} of {number(m)}' for u, m in maxima.items())}); "
          f"{capped_count} grades capped at the maximum; notes in {notes}")
    if waiting:
        print(f"WARNING: {len(waiting)} grade(s) exported INCOMPLETE (--allow-ungraded): their points "
              "awaiting hand grading count 0; export again once they are graded", file=sys.stderr)
    return path


def main(argv):
    from course.commands import Parser
    from grader.arguments import existing_gradebook, nbgrader_options, split_options
    parser = Parser(prog="python -m grader export", description=__doc__,
                    epilog="nbgrader options: --Class.trait=value, as for `python -m grader grade`")
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--lms", choices=sorted(FORMATS),
                        help="write the LMS's grade-import CSV: moodle or canvas (no default: say which, or --lti)")
    target.add_argument("--lti", action="store_true",
                        help="post the grades to the LMS through LTI Assignment and Grade Services; a grade with "
                             "points awaiting hand grading goes as PendingManual, never final (default: off)")
    parser.add_argument("--lti-config", default=None, metavar="FILE",
                        help="with --lti, outside the cluster: the grade service's settings (JSON; default: the "
                             "LTI_AGS environment variable, as on the cluster)")
    parser.add_argument("--uncapped", action="store_true",
                        help="keep extra credit above the maximum (Canvas accepts it; default: capped)")
    parser.add_argument("--allow-ungraded", action="store_true",
                        help="with --lms, export even while points await hand grading: those count 0 and are "
                             "marked INCOMPLETE in the notes (default: refuse, and name them)")
    parser.add_argument("--out", default=None, metavar="FOLDER", help="folder for the files (default: exports/)")
    options, rest = split_options(argv)
    arguments = parser.parse_args(rest)
    options = nbgrader_options(parser, options)
    existing_gradebook(parser, Path.cwd(), options)
    if arguments.lti:
        from grader.reports.ags import post_grades
        found = unit_grades(Path.cwd(), options, not arguments.uncapped)
        return post_grades(Path.cwd(), found, arguments.lti_config, options, arguments.out)
    export(Path.cwd(), arguments.lms, arguments.out, not arguments.uncapped, options, arguments.allow_ungraded)
    return 0
