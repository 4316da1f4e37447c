"""A student's first hour: the errors they predictably cause are one line in their
language (a cell run too early, a stub left blank, a wrong number of results);
Validate and `submit` tell the truth; a submitted file goes through an LMS export
and `nbgrader zip_collect` to grading."""
import nbformat
import pytest
from nbclient import NotebookClient

from course import student
from course.student import explain


def run_cells(sources):
    """Run `sources` as one notebook's cells in a fresh kernel; each cell's error output or None."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    NotebookClient(nb, timeout=60, kernel_name="python3", allow_errors=True).execute()
    return [next((o for o in c.outputs if o.output_type == "error"), None) for c in nb.cells]


@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_cell_run_too_early_and_a_blank_stub_say_so_in_one_line(lang):
    setup, early, blank, blank_cell, library, defined, typo = run_cells([
        f"from course import student\nstudent.language({lang!r})",
        "gradients(2, 3, 4)",
        "def forward(a, b, c):\n    raise NotImplementedError('STUB')\nforward(2, 3, 4)",
        "raise NotImplementedError('STUB')",
        "import fractions\nfractions.Fraction.__new__(fractions.Fraction, object())",
        "forward",
        "def walk(a):\n    return a + grd\nwalk(1)",
    ])
    assert setup is None and defined is None
    said = {"early": early.evalue, "blank": blank.evalue, "blank_cell": blank_cell.evalue}
    print(lang, said)
    assert early.ename == "NameError" and early.traceback == [f"NameError: {early.evalue}"]
    assert blank.ename == "NotImplementedError" and blank.traceback == [f"NotImplementedError: {blank.evalue}"]
    if lang == "en":
        assert early.evalue.startswith("`gradients` is not defined yet: run the cells above this one first")
        assert blank.evalue.startswith('this exercise is not done yet: forward() still says "STUB"')
        assert blank_cell.evalue.startswith('this cell is not done yet: it still says "STUB"')
        assert typo.evalue == "`grd` is not defined (in walk()): a typo, or a name from a cell you have not run yet?"
    else:
        assert early.evalue.startswith("`gradients` aún no está definido: ejecuta antes las celdas de arriba")
        assert blank.evalue.startswith('este ejercicio aún no está hecho: forward() todavía dice "STUB"')
        assert blank_cell.evalue.startswith('esta celda aún no está hecha: todavía dice "STUB"')
        assert typo.evalue.startswith("`grd` no está definido (en walk()): ¿una errata")
    assert library.ename == "TypeError" and len(library.traceback) > 1  # other errors: IPython's own traceback


def test_wrong_number_of_results_says_how_many():
    assert explain((1, 2), (1, 2, 3), "g(1)", "en") == "g(1) returned (1, 2); expected (1, 2, 3) — 2 values where 3 are expected"
    assert explain(5, (1, 2, 3), "g(1)", "es") == \
        "g(1) devolvió 5; se esperaba (1, 2, 3) — un solo valor donde se espera una tupla de 3"
    assert explain((1, 2), 3, "g(1)", "en") == "g(1) returned (1, 2); expected 3 — 2 values where one number is expected"
    assert explain(None, (1, 2), "g(1)", "en") == "g(1) returned None (missing return?); expected (1, 2)"
    with pytest.raises(AssertionError, match="2 values where 3 are expected"):
        student.expect_close((1, 2), (1, 2, 3), "g(1)")


# ---- handing in through an LMS: submit, the LMS's export zip, zip_collect, grading ----

def test_a_submitted_file_goes_through_moodle_and_canvas_exports_to_grading(grader, capsys):
    """`python -m course submit` writes theory03-es.ipynb; Moodle's and Canvas's export
    zips (Canvas: a blank first upload, then a solved re-upload renamed -1, flagged late;
    a file of another assignment) are filed by stock `nbgrader zip_collect` under the
    right students, and graded."""
    import shutil
    import zipfile

    from nbgrader.api import Gradebook
    from support.course import Course, course_folder

    from course.start import start
    from course.submit import submit
    from grader.plugins.lms_collect import late_students, parse

    course = Course(course_folder(), grader, generated=("theory03-es",))
    try:
        notebook = start("theory03-es", root=course.root)
        assert submit("theory03-es", course.root) == 1  # blank: written anyway, status 1
        said = capsys.readouterr().out
        blank = (course.root / "my-work/hand-in/theory03-es.ipynb").read_bytes()
        assert "Ejercicio 1 (theory03-forward) — haz primero este" in said
        assert "Archivo para entregar: my-work/hand-in/theory03-es.ipynb" in said
        nbformat.write(course.solved("theory03-es"), notebook)
        assert submit("theory03-es", course.root) == 0
        said = capsys.readouterr().out
        print(said)
        assert "✔ Pasan todos los tests visibles" in said
        solved = (course.root / "my-work/hand-in/theory03-es.ipynb").read_bytes()

        archive = course.root / "downloaded" / "theory03-es" / "archive"
        archive.mkdir(parents=True)
        with zipfile.ZipFile(archive / "moodle.zip", "w") as z:
            z.writestr("Ana María Pérez_12345_assignsubmission_file_/theory03-es.ipynb", solved)
        with zipfile.ZipFile(archive / "canvas.zip", "w") as z:
            z.writestr("perezluis_LATE_23456_70001_theory03-es.ipynb", blank)
            z.writestr("perezluis_LATE_23456_70002_theory03-es-1.ipynb", solved)
            z.writestr("gomezeva_34567_70003_theory03-en.ipynb", solved)  # another assignment
        grader.own(course.root / "downloaded")
        collected = course.nbgrader("zip_collect", "theory03-es", check=False)
        print(collected.stderr[-3000:])
        assert collected.returncode == 0
        filed = sorted(str(p.relative_to(course.root)) for p in (course.root / "submitted").rglob("*.ipynb"))
        assert filed == ["submitted/12345/theory03-es/theory03.ipynb", "submitted/23456/theory03-es/theory03.ipynb"]
        assert (course.root / filed[1]).read_bytes() == solved  # the re-upload, not the first upload
        assert late_students(course.root / "downloaded/theory03-es/extracted") == ["23456"]
        assert parse("x/perezluis_LATE_23456_70002_theory03-es-1.ipynb").late

        result = course.grade("theory03-es")
        print(result.stdout[-1500:], result.stderr[-1500:])
        with Gradebook(f"sqlite:///{course.root / 'gradebook.db'}") as gb:
            scores = {s: (gb.find_submission("theory03-es", s).score, gb.find_submission("theory03-es", s).max_score)
                      for s in ("12345", "23456")}
        print("scores:", scores)
        assert all(score == maximum > 0 for score, maximum in scores.values())
    finally:
        shutil.rmtree(course.root, ignore_errors=True)


def test_validate_names_missing_altered_and_renamed_graded_cells(tmp_path):
    """What Validate and `submit` say about the graded cells, against the release (no kernel run)."""
    import shutil

    from authoring.build import ROOT
    from course.validate import structure
    release = ROOT / "release" / "theory03-en" / "theory03.ipynb"
    folder = tmp_path / "my-work" / "theory03-en"
    folder.mkdir(parents=True)
    assert structure(shutil.copy(release, folder / "theory03.ipynb"), release) == []
    nb = nbformat.read(release, 4)
    nb.cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") != "theory03-walk"]
    test = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "theory03-forward")
    test.source = test.source.replace("(6, 10, -2, -20)", "forward(2, 3, 4)", 1)  # a test made to pass
    answer = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "theory03-forward-answer")
    answer.source = "def forward(a, b, c):\n    return 1"  # answers may change, of course
    nbformat.write(nb, folder / "copy.ipynb")
    problems = structure(folder / "copy.ipynb", release)
    print(problems)
    assert [title for title, _ in problems] == [
        "copy.ipynb: not the assignment's notebook", "Exercise 1 (theory03-forward)", "Exercise 3 (theory03-walk)"]
    assert problems[0][1].startswith("only theory03-en/theory03.ipynb is handed in and graded")
    assert problems[1][1].startswith("this graded cell was changed: grading puts the original back")
    assert problems[2][1].startswith("this graded cell is missing: it is worth 0 points")


def test_validate_leaves_the_folder_as_it_was_and_names_a_blank_written_answer(tmp_path):
    """Lab 01 solved but its written answer left as released: Validate (and `submit`, which runs
    the same check) names that answer for what it is, in the notebook's words (Part B's test is
    Part B's, not the exercise above it), and runs in a throw-away copy: the notebook's REPORT.md,
    errors.csv and manifest.json are not left in the student's folder."""
    import shutil

    from authoring.build import ROOT
    from course.validate import check
    from grader.demo import solved
    release = ROOT / "release" / "lab01-en" / "lab01.ipynb"
    source = nbformat.read(ROOT / "source" / "lab01-en" / "lab01.ipynb", 4)
    nb = solved(nbformat.read(release, 4), source)
    written = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "lab01-reflection")
    written.source = next(c for c in nbformat.read(release, 4).cells
                          if c.metadata.get("nbgrader", {}).get("grade_id") == "lab01-reflection").source
    folder = tmp_path / "my-work" / "lab01-en"
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / "lab01.ipynb")
    shutil.copy(folder / "lab01.ipynb", tmp_path / "before.ipynb")
    before = sorted(p.name for p in folder.iterdir())
    answer = check(folder / "lab01.ipynb", release)
    print(answer)
    assert sorted(p.name for p in folder.iterdir()) == before == ["lab01.ipynb"]
    assert (folder / "lab01.ipynb").read_bytes() == (tmp_path / "before.ipynb").read_bytes()
    assert [(f["source"], f["raw_error"]) for f in answer["failed"]] == [
        ("Exercise 4 (lab01-reflection) — do this one first",
         "your teacher grades this answer; write it before you hand in")]


def test_the_labels_follow_the_notebooks_own_headings():
    """A test under a later part of the notebook is named by that part (lab 01's fp32 and fp16
    checks are Parts B and D, not the exercise above them); notes in parentheses are left out."""
    from authoring.build import ROOT
    from course.validate import exercises
    labels = exercises(nbformat.read(ROOT / "release" / "lab01-en" / "lab01.ipynb", 4))
    print(labels)
    assert labels["lab01-fp32"].startswith("Part B") and labels["lab01-fp16"].startswith("Part D")
    assert labels["lab01-walk"] == "Exercise 2" and labels["lab01-reflection"] == "Exercise 4"
    es = exercises(nbformat.read(ROOT / "release" / "lab01-es" / "lab01.ipynb", 4))
    assert es["lab01-fp32"].startswith("Parte B") and es["lab01-formulas"] == "Ejercicio 1"


@pytest.mark.parametrize("lang", ["en", "es"])
def test_submit_on_a_renamed_notebook_says_how_to_put_it_back(tmp_path, lang):
    """The notebook renamed in JupyterLab: `submit` names the file it found and says to rename it
    back (`start` would not copy over the folder, so pointing there would loop)."""
    import shutil

    from authoring.build import ROOT
    from course.submit import submit
    shutil.copytree(ROOT / "release", tmp_path / "release")
    folder = tmp_path / "my-work" / f"theory03-{lang}"
    folder.mkdir(parents=True)
    shutil.copy(ROOT / "release" / f"theory03-{lang}" / "theory03.ipynb", folder / "mine.ipynb")
    with pytest.raises(SystemExit) as refused:
        submit(f"theory03-{lang}", tmp_path)
    print(refused.value.code)
    said = str(refused.value.code)
    assert "mine.ipynb" in said and "theory03.ipynb" in said and "course start" not in said
    assert ("rename it back" if lang == "en" else "devuélvele el nombre") in said
    assert not (tmp_path / "my-work" / "hand-in").exists()
