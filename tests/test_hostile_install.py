"""The answer key stays out of reach however the course is installed: the project
installed non-editably (`pip install .`, which builds and installs a wheel, as on a
Dask worker) into a throw-away environment, and a cohort graded with that
environment's Python by the course's command. A submission imports the grader's
references and searches every import path for the grader's files and the install's
RECORD; it must find nothing and score what the blank release scores."""
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import pytest
from nbformat.v4 import new_code_cell
from support.checkout import copy_tracked_files
from support.course import ROOT, Course, course_folder, graded_cells, verdict_text

from grader.sandbox.kernel import sandbox_available

pytestmark = pytest.mark.skipif(not sandbox_available(), reason="needs bubblewrap")
ASSIGNMENT = "theory03-en"
THEFT = '''
import glob, os, sys
for module in ("grader.checks.theory03", "grader.gradcheck", "grader.checks"):
    try:
        found = __import__(module, fromlist=["_"])
        print("THEFT FOUND", module, found.__file__)
        if module.endswith("theory03"):
            forward, gradients = found.forward_reference, found.gradients_reference
    except (ImportError, AttributeError):
        print("THEFT references: nothing in", module)
files = [path for entry in sys.path if entry
         for pattern in ("grader/**/*.py*", "authoring/**/*.py*", "autograd_by_hand*/RECORD")
         for path in glob.glob(os.path.join(entry, pattern), recursive=True)]
readable = []
for path in files:
    try:
        readable.append((path, open(path, "rb").read(64)))
    except OSError:
        pass
print("THEFT FOUND files", readable) if readable else print("THEFT files: nothing")
'''


@pytest.fixture(scope="module")
def installed():
    """A throw-away environment with the project installed non-editably; it reaches the
    test environment's other packages (torch, nbgrader...) through a .pth file, as a
    `--system-site-packages` environment reaches the system's."""
    place = Path(tempfile.mkdtemp(prefix="course-install-"))
    place.chmod(0o755)
    source = place / "src"
    copy_tracked_files(source)
    venv = place / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "course-test-packages.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                    "--no-build-isolation", "--no-index", str(source)], check=True)
    where = subprocess.run([python, "-c", "import grader.checks; print(grader.checks.__file__)"],
                           capture_output=True, text=True, check=True, cwd=place).stdout
    assert where.startswith(purelib), where  # the grader is the installed copy, not this checkout
    yield python
    shutil.rmtree(place, ignore_errors=True)


def test_a_non_editable_install_hides_the_answer_key(installed, grader):
    course = Course(course_folder(), grader, generated=(ASSIGNMENT,))
    try:
        nb = course.release(ASSIGNMENT)
        nb.cells.insert(4, new_code_cell(THEFT))
        course.submit("thief", ASSIGNMENT, nb)
        course.submit("honest", ASSIGNMENT, course.solved(ASSIGNMENT))
        result = subprocess.run([str(installed), "-m", "grader", "grade", ASSIGNMENT, "--workers=1",
                                 "--no-progress", *grader.arguments()], cwd=course.root,
                                capture_output=True, text=True, check=False, **grader.options())
        assert result.returncode == 0, result.stderr[-3000:]
        text = "".join(o.get("text", "") for c in course.autograded(ASSIGNMENT, "thief").cells
                       for o in c.get("outputs", []))
        print(text)
        assert "THEFT references: nothing in grader.checks.theory03" in text, text[-2000:]
        assert "THEFT references: nothing in grader.gradcheck" in text, text[-2000:]
        assert "THEFT files: nothing" in text and "FOUND" not in text, text[-2000:]
        assert course.score(ASSIGNMENT, "thief") == 0
        assert course.score(ASSIGNMENT, "honest") == 14  # the kernel still imports course and minigrad
        assert all(verdict_text(c).startswith("✔")
                   for c in graded_cells(course.autograded(ASSIGNMENT, "honest")).values())
    finally:
        shutil.rmtree(course.root, ignore_errors=True)


def test_grading_a_copy_with_another_install_refuses_to_start(grader):
    """Regression: a full copy of the course (its own course/ package, edited) graded
    with an environment whose install is another checkout's gave every submission 0 and
    "graded". The preflight's sandboxed kernel sees another `course`: nothing is graded,
    and the difference is named."""
    course = Course(course_folder(), grader)
    try:
        for name in ("course", "minigrad"):
            shutil.copytree(ROOT / name, course.root / name, ignore=shutil.ignore_patterns("__pycache__"))
        with open(course.root / "course" / "i18n.py", "a") as stream:
            stream.write("\n# this term's edit\n")
        grader.own(course.root)
        assert course.nbgrader("generate_assignment", ASSIGNMENT, "--force").returncode == 0
        course.submit("honest", ASSIGNMENT, course.solved(ASSIGNMENT))
        result = course.grade(ASSIGNMENT, workers=1)
        assert result.returncode != 0 and "refusing to grade" in result.stderr, result.stderr[-2000:]
        assert "a kernel in the sandbox: course is" in result.stderr, result.stderr[-2000:]
        assert not (course.root / "autograded" / "honest").exists()
    finally:
        shutil.rmtree(course.root, ignore_errors=True)
