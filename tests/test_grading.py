"""Stock nbgrader on every unit and language: validate (the blank release fails every test),
autograde, feedback.

Each assignment's cohort (the solution, the blank release and a memoriser) is
graded once, by one run of the course's parallel command for every assignment
(`python -m grader grade A B ...`, which runs stock `nbgrader autograde --student`
per submission), into one course that the autograde, feedback and export tests
then read. The `nbgrader validate`
runs go two at a time (the machine has two cores).
"""
import re
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
from support.answers import HARD_CODED
from support.course import ASSIGNMENTS, fill, graded_cells, unit_of, verdict_text

from authoring.build import ROOT, nbgrader
from grader.checks import find_check


def validate_all(folder, *options):
    """assignment -> the result of `nbgrader validate [options] NOTEBOOK`, two at a time.
    Each runs on a copy: validating executes the notebook where it lies, and lab 01
    writes its report files next to itself (into release/, which students are given)."""
    copies = Path(tempfile.mkdtemp(prefix="course-validate-"))

    def run(assignment):
        shutil.copytree(ROOT / folder / assignment, copies / assignment)
        path = copies / assignment / f"{unit_of(assignment)}.ipynb"
        return nbgrader("validate", *options, str(path), check=False, capture_output=True, text=True)
    try:
        with ThreadPoolExecutor(2) as pool:
            return dict(zip(ASSIGNMENTS, pool.map(run, ASSIGNMENTS)))
    finally:
        shutil.rmtree(copies, ignore_errors=True)


def release_files():
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "release").rglob("*") if p.is_file())


RELEASE_AT_START = release_files()  # when the suite is collected


def test_validating_writes_nothing_into_the_release(release_validated):
    """A validated release once left lab 01's errors.csv in release/: a second run of the
    suite failed, and the file would have gone to students with the release."""
    assert release_files() == RELEASE_AT_START


# The solutions are not validated here: each is graded below (the solver gets every point,
# hidden tests included), nbval re-executes them, and the browser test validates them in JupyterLab.
@pytest.fixture(scope="module")
def release_validated():
    return validate_all("release", "--invert")


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_release_stubs_fail_their_tests(release_validated, assignment):
    path = ROOT / "release" / assignment / f"{unit_of(assignment)}.ipynb"
    result = release_validated[assignment]
    # nbgrader counts a 0-point cell (a bonus exercise, see grader/plugins/bonus.py) as passed whatever it prints
    bonus = [c for c in graded_cells(nbformat.read(path, 4)).values() if c.metadata["nbgrader"]["points"] == 0]
    if bonus:
        assert f"NOTEBOOK PASSED ON {len(bonus)} CELL(S)!" in result.stdout, result.stdout
        assert result.stdout.count("The following cell passed") == len(bonus), result.stdout
    else:
        assert "Success! The notebook does not pass any tests." in result.stdout, result.stdout


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_release_stubs_are_in_the_notebook_language(assignment):
    lang = assignment.rsplit("-", 1)[1]
    stub = {"en": "# YOUR CODE HERE", "es": "# ESCRIBE AQUÍ TU CÓDIGO"}[lang]
    text = (ROOT / "release" / assignment / f"{unit_of(assignment)}.ipynb").read_text()
    assert stub in text and "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text
    other = {"en": "ESCRIBE AQUÍ", "es": "YOUR CODE HERE"}[lang]
    assert other not in text


@pytest.fixture(scope="module")
def graded(course):
    """`course` with every assignment's three submissions graded once, in parallel, by one
    grading command for every assignment: assignment -> the command's result."""
    for assignment in ASSIGNMENTS:
        course.submit("solver", assignment, course.solved(assignment))
        course.submit("blank", assignment, course.release(assignment))
        course.submit("memoriser", assignment, fill(course.release(assignment), HARD_CODED[unit_of(assignment)]))
    return dict.fromkeys(ASSIGNMENTS, course.grade(*ASSIGNMENTS, workers=3))


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_autograde_solution_release_and_hard_coded(course, graded, assignment):
    unit = unit_of(assignment)
    result = graded[assignment]
    # exit 1 and a NOT GRADED line on stderr for any submission that was not graded
    assert result.returncode == 0, result.stderr[-3000:]
    assert f"of {assignment}, 3 at a time" in result.stderr, result.stderr[-3000:]
    cells = graded_cells(course.release(assignment))
    total = sum(c.metadata["nbgrader"]["points"] for c in cells.values())
    bonus = sum(find_check(grade_id).bonus for grade_id in cells)  # extra credit (grader/plugins/bonus.py)
    assert course.score(assignment, "solver") == total + bonus
    assert course.score(assignment, "blank") == 0
    assert course.score(assignment, "memoriser") == 0
    # the memoriser fails a visible test (a second point) or, where it passes them, a random input
    lang = assignment.rsplit("-", 1)[1]
    cells = graded_cells(course.autograded(assignment, "memoriser"))
    word = {"en": "expected", "es": "se esperaba"}[lang]
    # its predictions are still None, as released: each says there is none yet
    for grade_id in [g for g in cells if "-predict-" in g]:
        assert {"en": "no prediction yet", "es": "aún no hay predicción"}[lang] in verdict_text(cells.pop(grade_id))
    if unit == "lab01":
        # autograd's gradients fail visibly already (Part A calls them under no_grad)
        assert {"en": "without autograd", "es": "sin autograd"}[lang] in verdict_text(cells.pop("lab01-formulas"))
        cells = {"lab01-walk": cells["lab01-walk"]}
    if unit == "lab03":
        # the always-True gradcheck carries no annotations: that cell fails visibly
        assert {"en": "annotations", "es": "anotaciones"}[lang] in verdict_text(cells.pop("lab03-annotations"))
        # it lets the sign bug through (a visible test), and the battery of Exercise 2 is left blank
        assert {"en": "instead of raising", "es": "en vez de lanzar"}[lang] in \
            verdict_text(cells.pop("lab03-gradcheck"))
        assert "MORE_EXPRESSIONS" in verdict_text(cells.pop("lab03-battery"))
        # and so is the bug hunt of Exercise 3: its two cells say to write hunt(Value)
        for grade_id in ("lab03-hunt", "lab03-hunt-input"):
            assert "hunt(Value)" in verdict_text(cells.pop(grade_id))
        # float64's best eps is named as such
        assert {"en": "best ε in float64", "es": "mejor ε en float64"}[lang] in \
            verdict_text(cells.pop("lab03-eps-float32"))
        # the test per operation and the broken rule are left blank (the predictions are popped above)
        assert "EXPRESSIONS" in verdict_text(cells.pop("lab03-expressions"))
        assert "sub_backward_bug" in verdict_text(cells.pop("lab03-break"))
    assert all(word in verdict_text(cell) for cell in cells.values()), \
        {g: verdict_text(c)[:200] for g, c in cells.items() if word not in verdict_text(c)}


@pytest.fixture(scope="module")
def feedback(course, graded):
    """The solver's feedback for every assignment, by one `nbgrader generate_feedback` (its
    assignment is a glob, as stock nbgrader reads it): one start of nbgrader, not six."""
    return course.nbgrader("generate_feedback", "*", "--student=solver", "--force")


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_feedback_is_localized_and_hides_hidden_tests(course, graded, feedback, assignment):
    assert graded[assignment].returncode == 0, graded[assignment].stderr[-3000:]
    result = feedback
    html = (course.root / "feedback" / "solver" / assignment / f"{unit_of(assignment)}.html").read_text()
    assert "student.probe" not in html and "BEGIN HIDDEN TESTS" not in html, result.stderr
    lang = assignment.rsplit("-", 1)[1]
    assert {"en": "hidden tests", "es": "tests ocultos"}[lang] in html
    assert re.search({"en": r"all \d+ checks passed", "es": r"superadas las \d+ comprobaciones"}[lang], html)


def test_export_lists_every_submission(course, graded):
    for assignment in ASSIGNMENTS:
        assert graded[assignment].returncode == 0, graded[assignment].stderr[-3000:]
    course.nbgrader("export", "--to", str(course.root / "grades.csv"))
    rows = (course.root / "grades.csv").read_text().splitlines()
    assert any(row.startswith("theory03-es,") and ",solver," in row for row in rows), rows


def test_points_awaiting_hand_grading_are_shown_and_not_exported_as_final(course, graded):
    """Lab 01 graded: the solver's written answer (2 points, graded by hand) awaits a person;
    the blank one, left as released, got nbgrader's 0. The report says so per question and per
    student and ends with the next steps; `export --lms moodle` refuses, writing nothing, until
    those are graded (--allow-ungraded writes them marked INCOMPLETE); graded by hand, they export."""
    import csv
    import subprocess
    import sys

    from nbgrader.api import Gradebook
    assert graded["lab01-en"].returncode == 0, graded["lab01-en"].stderr[-3000:]
    page = (course.root / "reports" / "lab01-en.html").read_text()
    row = page.split("<td>lab01-reflection</td>")[1].split("</tr>")[0]
    students = page.split("<h2>Per student</h2>")[1]
    print(row, "\n", students.split("<h2>")[0], "\n", page.split("<h2>Next steps</h2>")[1])
    assert "1 answer awaits hand grading (2 points)" in row
    assert "<td>solver</td>" in students and "2 points await hand grading" in \
        students.split("<td>solver</td>")[1].split("</tr>")[0]
    assert "await" not in students.split("<td>blank</td>")[1].split("</tr>")[0]
    steps = page.split("<h2>Next steps</h2>")[1]
    assert "formgrader" in steps and "nbgrader generate_feedback lab01-en" in steps and "export --lms" in steps
    with open(course.root / "reports" / "lab01-en.csv", encoding="utf-8") as stream:
        rows = {r["student"]: r for r in csv.DictReader(stream)}
    assert float(rows["solver"]["pending"]) == 2 and float(rows["blank"]["pending"]) == 0
    assert rows["blank"]["lab01-reflection reason"].startswith("left as released: 0 points")
    assert "Próximos pasos" in (course.root / "reports" / "lab01-es.html").read_text()

    def export(*options):
        return subprocess.run([sys.executable, "-m", "grader", "export", "--lms", "moodle", *options],
                              cwd=course.root, capture_output=True, text=True, check=False, **course.grader.options())
    refused = export()
    print(refused.stdout, refused.stderr)
    assert refused.returncode == 1 and not (course.root / "exports" / "moodle.csv").exists()
    assert "INCOMPLETE solver (lab01): 2 point(s) of lab01-" in refused.stderr
    assert "not exported: " in refused.stderr and "--allow-ungraded" in refused.stderr
    forced = export("--allow-ungraded")
    assert forced.returncode == 0, forced.stderr[-2000:]
    assert "exported INCOMPLETE" in forced.stderr
    assert "INCOMPLETE: 2 point(s) of lab01-" in (course.root / "exports" / "moodle-notes.csv").read_text()
    # graded by hand (formgrader writes manual_score), in a copy of the gradebook: the other tests read this one
    shutil.copy(course.root / "gradebook.db", course.root / "hand-graded.db")
    with Gradebook(f"sqlite:///{course.root / 'hand-graded.db'}", "autograd-by-hand") as gb:
        for assignment in ASSIGNMENTS:
            for student in ("solver", "blank", "memoriser"):
                for grade in gb.find_submission(assignment, student).notebooks[0].grades:
                    if grade.auto_score is None and grade.manual_score is None:
                        grade.manual_score, grade.needs_manual_grade = grade.max_score, False
        gb.db.commit()
    course.grader.own(course.root / "hand-graded.db")
    done = export(f"--CourseDirectory.db_url=sqlite:///{course.root / 'hand-graded.db'}")
    assert done.returncode == 0 and "INCOMPLETE" not in done.stderr, done.stderr[-2000:]
    with Gradebook(f"sqlite:///{course.root / 'hand-graded.db'}", "autograd-by-hand") as gb:
        maximum = gb.find_assignment("lab01-en").max_score
    with open(course.root / "exports" / "moodle.csv", encoding="utf-8") as stream:
        assert float({r["User ID"]: r["lab01"] for r in csv.DictReader(stream)}["solver"]) == maximum  # full marks
