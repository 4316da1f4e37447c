"""The student's way in: a copy of their own that nothing overwrites, and a
JupyterLab without the instructor's tools, in their language."""
import json
import shutil

import nbformat
import pytest

from authoring.build import ROOT, build, edited_files
from course.start import INSTRUCTOR_PLUGINS, lab_command, start


@pytest.fixture
def clone(tmp_path):
    for name in ("notebooks", "source", "release"):
        shutil.copytree(ROOT / name, tmp_path / name)
    shutil.copy(ROOT / "nbgrader_config.py", tmp_path)
    return tmp_path


def test_start_copies_once_and_never_overwrites(clone, capsys):
    notebook = start("theory03-es", root=clone)
    assert notebook == clone / "my-work" / "theory03-es" / "theory03.ipynb"
    assert "Tu copia está en my-work/theory03-es" in capsys.readouterr().out
    notebook.write_text(notebook.read_text().replace("ESCRIBE AQUÍ TU CÓDIGO", "mi respuesta"))
    work = notebook.read_bytes()
    with pytest.raises(SystemExit, match="ya existe y contiene tu trabajo: no se ha tocado"):
        start("theory03-es", root=clone)
    build(clone, run=False)  # a rebuild of release/ (what `git pull` + build does)
    assert notebook.read_bytes() == work


def test_start_says_which_assignments_exist(clone):
    with pytest.raises(SystemExit, match="theory03-en, theory03-es"):
        start("theory99-en", root=clone)


def test_copy_carries_this_pythons_language_info(clone):
    from ipykernel.ipkernel import IPythonKernel
    nb = json.loads(start("theory03-en", root=clone).read_text())
    assert nb["metadata"]["language_info"] == IPythonKernel.language_info
    assert nb["metadata"]["kernelspec"]["display_name"] == "Python 3 (ipykernel)"


def test_build_refuses_to_overwrite_edited_notebooks(clone):
    assert edited_files(clone) == []
    path = clone / "release" / "theory03-en" / "theory03.ipynb"
    nb = nbformat.read(path, 4)
    nb.cells[-1].source += "\n# a student's work"
    nbformat.write(nb, path)
    (clone / "release" / "theory03-es" / "notes.txt").write_text("mis notas")
    with pytest.raises(SystemExit, match="edited after the last build") as refusal:
        build(clone, run=False)
    assert "release/theory03-en/theory03.ipynb" in str(refusal.value)
    assert "release/theory03-es/notes.txt (not made by the build)" in str(refusal.value)
    assert "# a student's work" in path.read_text()  # untouched
    build(clone, run=False, force=True)
    assert edited_files(clone) == []


def test_student_mode_hides_instructor_tools_and_speaks_spanish(clone):
    arguments, env = lab_command(clone, "es")
    config = json.loads((clone / "my-work/.jupyter/config/labconfig/page_config.json").read_text())
    assert set(config["disabledExtensions"]) == set(INSTRUCTOR_PLUGINS)
    assert "@jupyter/nbgrader:validate-assignment" not in config["disabledExtensions"]
    server = json.loads((clone / "my-work/.jupyter/config/jupyter_server_config.json").read_text())
    assert server["ServerApp"]["jpserver_extensions"]["nbgrader.server_extensions.formgrader"] is False
    locale = clone / "my-work/.jupyter/lab-settings/@jupyterlab/translation-extension/plugin.jupyterlab-settings"
    assert json.loads(locale.read_text()) == {"locale": "es_ES"}
    assert env["JUPYTER_CONFIG_DIR"].endswith("my-work/.jupyter/config")
    assert f"--ServerApp.root_dir={clone / 'my-work'}" in arguments


def run_release(assignment, answers):
    """The student's notebook run top to bottom, errors kept, with `answers` filled in."""
    from nbclient import NotebookClient
    from conftest import fill
    nb = fill(nbformat.read(ROOT / "release" / assignment / "theory03.ipynb", 4), answers)
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True).execute()
    return {c.metadata["nbgrader"]["grade_id"]: c for c in nb.cells if "nbgrader" in c.metadata}


def errors(cell):
    return [o for o in cell.outputs if o.output_type == "error"]


def test_visible_failures_are_one_short_line_in_the_students_language():
    cells = run_release("theory03-es", {
        "theory03-gradients-answer": "def gradients(a, b, c):\n    a * b",
        "theory03-walk-answer": "def walk_by_hand(a, b, c, accumulate=True):\n    return (-6, -4, -12)"})
    stub, = errors(cells["theory03-forward"])
    assert stub.evalue == "escribe aquí tu código"
    none, = errors(cells["theory03-gradients"])
    assert none.traceback == [f"AssertionError: {none.evalue}"]
    assert "devolvió None (¿falta un return?)" in none.evalue
    wrong, = errors(cells["theory03-walk"])
    assert wrong.traceback == [f"AssertionError: {wrong.evalue}"]  # no frames of course/student.py
    assert "se esperaba" in wrong.evalue  # the wrong element named, in Spanish
    assert "returned" not in wrong.evalue and "expected" not in wrong.evalue
