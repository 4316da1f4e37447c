"""The main job in one command: a demo cohort, graded in parallel.

    python -m grader demo [--quick] [--workers N] [--lang en|es]

Copies the course into a new temporary folder, releases theory03 in both
languages, and submits a small cohort to each: honest work, a wrong answer,
hard-coded answers that pass every visible test, and two hostile notebooks (a
fork bomb; a notebook that tries to read the answer key and the gradebook and
to switch off the checks). It grades them in parallel (`grader/cohort/grading.py`),
writes the students' feedback and the cohort report, prints a summary and
where to look, and what came of each submission (why the fork bomb, contained by
its sandbox, still gets full marks). `--quick`: English only, honest work and the
fork bomb. The demo course stays in its temporary folder for you to look at; the
last line says how to remove it.
"""
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

from course.names import LANGUAGES

ROOT = Path(__file__).resolve().parent.parent
UNIT = "theory03"

WRONG = {"theory03-forward-answer":
         "def forward(a, b, c):\n    return a * b, a * b + c, a - c, (a * b + c) * (c - a)"}
HARD_CODED = {
    "theory03-forward-answer": "def forward(a, b, c):\n    return 6, 10, -2, -20",
    "theory03-gradients-answer": "def gradients(a, b, c):\n    return 4, -4, -12",
    "theory03-central-answer": "def central_difference(f, x, eps=1e-5):\n    return 4.0",
    "theory03-walk-answer": "def walk_by_hand(a, b, c, accumulate=True):\n"
                            "    return (4, -4, -12) if accumulate else (-6, -4, -2)",
}
# also the hostile corpus's fork bomb (tests/support/corpus.py): one copy of it
FORK_BOMB = '''
import os, sys, time
children = 0
try:
    while True:
        pid = os.fork()
        if pid == 0:  # a child: sleep quietly, write nothing, never return into the kernel
            os.close(1), os.close(2)
            time.sleep(60)
            os._exit(0)
        children += 1
except OSError as error:
    print("fork refused after", children, "children:", error)
'''
SNOOP = '''import glob, builtins, math
import course.student
for pattern in ("{root}/gradebook.db", "{root}/source/*/*.ipynb", "../*/*/*.ipynb"):
    print(pattern, "->", glob.glob(pattern)[:3])
builtins.abs = lambda x: 0
math.isclose = lambda *a, **k: True
course.student.expect_close = lambda *a, **k: None
'''
# name: (answers replaced, an extra cell after the setup cell)
COHORT = {
    "honest": ({}, None),
    "wrong": (WRONG, None),
    "hard-coded": (HARD_CODED, None),
    "fork-bomb": ({}, FORK_BOMB),
    "snoop": (HARD_CODED, SNOOP),
}
QUICK = ("honest", "fork-bomb")


def nbgrader(root, *arguments):
    from grader.cohort.forking import environment
    return subprocess.run([sys.executable, "-m", "nbgrader", *arguments,
                           f"--CourseDirectory.root={root}", "--log-level=WARN"],
                          cwd=root, env=environment(), check=True, capture_output=True, text=True)


def fill(nb, answers):
    """`nb` with the answer cells named in `answers` (grade_id -> code) replaced."""
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            cell.source = answers[grade_id]
    return nb


def solved(release, source):
    """The `release` notebook with every answer cell holding the solution in `source`
    (the tests build their solved notebooks with it too)."""
    return fill(release, {c.metadata["nbgrader"]["grade_id"]: c.source for c in source.cells
                          if c.metadata.get("nbgrader", {}).get("solution")})


def submission(root, assignment, answers, extra=None):
    """The release, answered with the instructor's solution except for `answers`."""
    release = nbformat.read(root / "release" / assignment / f"{UNIT}.ipynb", 4)
    source = nbformat.read(root / "source" / assignment / f"{UNIT}.ipynb", 4)
    nb = fill(solved(release, source), answers)
    if extra:
        nb.cells.insert(4, nbformat.v4.new_code_cell(extra.replace("{root}", str(root))))
    return nb


def make_course(folder, languages, names):
    for name in ("notebooks", "source", "release"):
        shutil.copytree(ROOT / name, folder / name)
    shutil.copy(ROOT / "nbgrader_config.py", folder)
    assignments = [f"{UNIT}-{lang}" for lang in languages]
    for assignment in assignments:
        nbgrader(folder, "generate_assignment", assignment, "--force")
        for name in names:
            path = folder / "submitted" / name / assignment / f"{UNIT}.ipynb"
            path.parent.mkdir(parents=True)
            nbformat.write(submission(folder, assignment, *COHORT[name]), path)
    return assignments


def story(root, assignment, lang):
    """One line per demo student: the score, and why (what each hostile one tried, what came of it)."""
    from course.i18n import say
    from grader.reports.report import cohort
    if not (root / "reports" / f"{assignment}.csv").exists():  # no report: nothing was graded to tell of
        return []
    _, rows = cohort(root, assignment)
    lines = []
    for row in rows:
        student = row["student"]
        if row["note"]:
            lines.append(f"  {student}: {row['note']}")
            continue
        said = ""
        if student == "fork-bomb":
            nb = nbformat.read(root / "autograded" / student / assignment / f"{UNIT}.ipynb", 4)
            printed = [o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
            refused = next((text.strip() for text in printed if "fork refused after" in text), "")
            said = say("demo_fork_bomb", lang, refused=refused or say("demo_fork_bomb_stopped", lang),
                       defences=row["defences"])
        elif student in ("snoop", "hard-coded", "wrong", "honest"):
            said = say(f"demo_{student.replace('-', '_')}", lang)
        lines.append(f"  {student}: {row['score']:g}/{row['max_score']:g}. {said}")
    return lines


def main(argv):
    from course.commands import Parser
    from course.i18n import say
    from grader.cohort.grading import grade

    parser = Parser(prog="python -m grader demo", description=__doc__)
    parser.add_argument("--quick", action="store_true",
                        help="English only, two submissions: honest work and the fork bomb (default: both "
                             "languages, five submissions)")
    parser.add_argument("--workers", type=int, default=None,
                        help="submissions graded at once (default: the machine's cores)")
    parser.add_argument("--lang", choices=LANGUAGES, default=None,
                        help="the language of the summary and the HTML reports (default: each assignment's)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (default: a bar on the terminal)")
    arguments = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="course-demo-"))
    names = QUICK if arguments.quick else tuple(COHORT)
    languages = ("en",) if arguments.quick else LANGUAGES
    print(f"demo course in {folder}: theory03 in {', '.join(languages)}, "
          f"students {', '.join(names)}")
    assignments = make_course(folder, languages, names)
    pages, not_graded, stories = [], [], []
    for assignment in assignments:
        print(f"\n== {assignment}")
        outcomes = grade(folder, assignment, arguments.workers, progress=not arguments.no_progress,
                         lang=arguments.lang)
        not_graded += [f"{o.student} ({assignment})" for o in outcomes if not o.ok]
        nbgrader(folder, "generate_feedback", assignment)
        pages.append(folder / "reports" / f"{assignment}.html")
        stories.append((assignment, story(folder, assignment, arguments.lang or assignment.rsplit("-", 1)[1])))
    lang = arguments.lang or "en"
    print("\n" + say("demo_what_happened", lang))
    for assignment, lines in stories:
        print(f"{assignment}:")
        print("\n".join(lines))
    print("\nwhere to look:")
    print(f"  reports (CSV, and HTML with plots): {folder / 'reports'}")
    for page in pages:
        print(f"    {page}")
    print(f"  graded notebooks:  {folder / 'autograded'}/STUDENT/ASSIGNMENT/")
    print(f"  students' feedback (HTML): {folder / 'feedback'}/STUDENT/ASSIGNMENT/")
    print(f"  gradebook: {folder / 'gradebook.db'}   (nbgrader export, formgrader)")
    print("\n" + say("demo_kept", lang, folder=folder))
    if not_graded:  # the demo shows the job working: a submission left ungraded is a failure
        print(f"\nNOT GRADED: {', '.join(not_graded)}", file=sys.stderr)
        return 1
    return 0
