"""What the three hostile-corpus test modules share: a course copy with an assignment's
submissions, graded in ONE run of the course's parallel command (`python -m grader grade
--workers 2`: stock `nbgrader autograde --student` per submission, two at a time), and
the checks every such run gets."""
import shutil

from conftest import Course, course_folder, graded_cells, verdict_text
from nbformat.v4 import new_code_cell


def with_cell(nb, code):
    """`nb` with one extra student cell after the first."""
    nb.cells.insert(1, new_code_cell(code))
    return nb


def submitted_course(grader, assignment, make_submissions):
    """A course copy with `assignment` generated and `make_submissions(course)` submitted:
    {student: notebook, or (notebook, plant)} where `plant(folder)` adds files beside it."""
    course = Course(course_folder(), grader, generated=(assignment,))
    for name, submission in make_submissions(course).items():
        notebook, plant = submission if isinstance(submission, tuple) else (submission, None)
        path = course.submit(name, assignment, notebook)
        if plant is not None:  # links and special files beside the notebook
            plant(path.parent)
            grader.own(path.parent)
    return course


def graded_cohort(grader, assignment, make_submissions, *options):
    """A module fixture's body: yields (course, the command's result), removes the copy after."""
    course = submitted_course(grader, assignment, make_submissions)
    try:
        yield course, course.grade(assignment, *options, workers=2)
    finally:
        shutil.rmtree(course.root, ignore_errors=True)


def assert_every_submission_graded(course, result, assignment, names):
    # the command exits 1, with a NOT GRADED line on stderr, for a submission it could not grade
    assert result.returncode == 0 and "NOT GRADED" not in result.stderr, result.stderr[-3000:]
    assert "2 at a time" in result.stderr, result.stderr[-3000:]
    for name in names:
        assert (course.root / "autograded" / name / assignment).exists(), name


def verdicts(course, assignment, name):
    """grade id -> the grader's verdict, for one student's autograded notebook."""
    return {k: verdict_text(c) for k, c in graded_cells(course.autograded(assignment, name)).items()}


def printed(course, assignment, name):
    """Everything one student's cells printed, errors included."""
    nb = course.autograded(assignment, name)
    return "\n".join(f"{o.get('ename', '')} {o.get('evalue') or o.get('text') or ''}"
                     for c in nb.cells if c.cell_type == "code" for o in c.outputs)
