"""The student's way in: a copy of their own that nothing overwrites, and a
JupyterLab without the instructor's tools, in their language."""
import json
import os
import re
import shutil
from pathlib import Path

import nbformat
import pytest
from support.servers import extension_states

from authoring.build import ROOT, build, edited_files
from course.server_settings import EXCHANGE_PLUGINS, INSTRUCTOR_PLUGINS
from course.start import lab_command, start


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
    assert start("theory03-es", root=clone) == notebook  # a second start opens the work there
    assert "ya contiene tu trabajo: se abre tal cual" in capsys.readouterr().out
    build(clone, run=False)  # a rebuild of release/ (what `git pull` + build does)
    assert notebook.read_bytes() == work
    notebook.rename(notebook.with_name("mine.ipynb"))  # the notebook gone: refused, folder untouched
    with pytest.raises(SystemExit, match="no contiene theory03.ipynb: no se ha tocado"):
        start("theory03-es", root=clone)
    assert notebook.with_name("mine.ipynb").read_bytes() == work


def test_a_copy_cut_short_leaves_nothing_that_blocks_the_next_start(clone, monkeypatch):
    import course.start
    def disk_full(path):
        raise OSError("No space left on device")
    monkeypatch.setattr(course.start, "match_this_python", disk_full)
    with pytest.raises(OSError):
        start("theory03-en", root=clone)
    assert [p.name for p in (clone / "my-work").iterdir()] == []
    monkeypatch.undo()
    assert start("theory03-en", root=clone).exists()


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
    lab_command(clone, "en")  # English started first: Spanish must still be Spanish
    arguments, env = lab_command(clone, "es")
    config = json.loads((clone / "my-work/.jupyter/config/labconfig/page_config.json").read_text())
    assert set(config["disabledExtensions"]) == set(INSTRUCTOR_PLUGINS + EXCHANGE_PLUGINS)
    assert "@jupyter/nbgrader:validate-assignment" not in config["disabledExtensions"]
    server = json.loads((clone / "my-work/.jupyter/config/jupyter_server_config.json").read_text())
    assert server["ServerApp"]["jpserver_extensions"]["nbgrader.server_extensions.formgrader"] is False
    assert server["ServerApp"]["jpserver_extensions"]["nbgrader.server_extensions.validate_assignment"] is False
    assert server["ServerApp"]["jpserver_extensions"]["course.validate"] is True
    locale = Path(env["JUPYTERLAB_SETTINGS_DIR"]) / "@jupyterlab/translation-extension/plugin.jupyterlab-settings"
    assert json.loads(locale.read_text()) == {"locale": "es_ES"}
    assert env["JUPYTER_CONFIG_DIR"].endswith("my-work/.jupyter/config")
    assert f"--ServerApp.root_dir={clone / 'my-work'}" in arguments
    english = Path(lab_command(clone, "en")[1]["JUPYTERLAB_SETTINGS_DIR"])
    assert json.loads((english / locale.relative_to(env["JUPYTERLAB_SETTINGS_DIR"])).read_text()) == {"locale": "en"}


def test_the_notebook_is_opened_relative_to_the_work_folder_from_any_folder(clone, tmp_path, monkeypatch):
    notebook = start("theory03-es", root=clone)
    monkeypatch.chdir(tmp_path)  # the command run anywhere else
    arguments, _ = lab_command(clone, "es", notebook)
    assert "--ServerApp.file_to_run=theory03-es/theory03.ipynb" in arguments
    assert "--LabApp.default_url=/lab/tree/theory03-es/theory03.ipynb" in arguments
    assert ("--allow-root" in arguments) == (os.geteuid() == 0)


def run_release(assignment, answers):
    """The student's notebook run top to bottom, errors kept, with `answers` filled in."""
    from nbclient import NotebookClient
    from support.course import fill
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
    assert stub.traceback == [f"NotImplementedError: {stub.evalue}"]
    assert stub.evalue == ('este ejercicio aún no está hecho: forward() todavía dice "escribe aquí tu código". '
                           'Escribe la función en su celda, ejecuta esa celda y después esta')
    none, = errors(cells["theory03-gradients"])
    assert none.traceback == [f"AssertionError: {none.evalue}"]
    assert "devolvió None (¿falta un return?)" in none.evalue
    wrong, = errors(cells["theory03-walk"])
    assert wrong.traceback == [f"AssertionError: {wrong.evalue}"]  # no frames of course/student.py
    assert "se esperaba" in wrong.evalue  # the wrong element named, in Spanish
    assert "returned" not in wrong.evalue and "expected" not in wrong.evalue


class Served:
    """`python -m course ARGUMENTS` run as this process's user in `cwd`, JupyterLab on loopback."""

    def __init__(self, arguments, cwd, log):
        import socket
        import subprocess
        import sys
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.log = log
        env = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER")}
        with open(log, "w") as out:
            self.server = subprocess.Popen(
                [sys.executable, "-m", "course", *arguments, "--no-browser", "--ip=127.0.0.1",
                 f"--port={self.port}", "--IdentityProvider.token=T"],
                cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)

    def printed(self):
        """The path of the address the command printed, once JupyterLab is up."""
        import time
        for _ in range(240):
            found = re.search(rf"http://127.0.0.1:{self.port}(/\S*)\?token=", self.log.read_text())
            if found or self.server.poll() is not None:
                break
            time.sleep(0.5)
        assert found, self.log.read_text()[-2000:]
        return found[1]

    def get(self, path):
        import urllib.request
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}?token=T") as r:
            return json.load(r)

    def stop(self):
        self.server.terminate()
        self.server.wait(timeout=30)


def test_the_readme_command_serves_the_copied_notebook_from_another_folder(clone, tmp_path):
    """`python -m course start theory03-en`, run as this process's user (root on CI: the
    browser test runs it as an ordinary user) from a folder inside the clone: JupyterLab
    serves the copy, and the address it prints opens it."""
    served = Served(["start", "theory03-en"], clone / "notebooks", tmp_path / "start.log")
    try:
        assert served.printed() == "/lab/tree/theory03-en/theory03.ipynb"
        assert served.get("/api/contents/theory03-en/theory03.ipynb")["path"] == "theory03-en/theory03.ipynb"
        said = served.log.read_text()
        assert "Your copy is in my-work/theory03-en" in said
        assert ("You are root: JupyterLab refuses to run as root unless told to" in said) == (os.geteuid() == 0)
    finally:
        served.stop()


def test_lab_reopens_the_work_in_the_language_asked_whatever_ran_before(clone, tmp_path):
    """`python -m course lab es` after `lab en` (and the other way round): JupyterLab's own
    settings API gives the interface language asked for."""
    locales = {}
    for lang in ("en", "es", "en"):
        served = Served(["lab", lang], clone, tmp_path / f"lab-{lang}.log")
        try:
            served.printed()
            settings = served.get("/lab/api/settings/@jupyterlab/translation-extension:plugin")
            locales.setdefault(lang, []).append(settings["settings"]["locale"])
        finally:
            served.stop()
    assert locales == {"en": ["en", "en"], "es": ["es_ES"]}


def test_settings_in_an_environment_decide_over_nbgrader_own_enabling(tmp_path):
    """`python -m course settings --sys-prefix` (the hub's and the image's student settings):
    with nbgrader's own file enabling its Validate in the same folder, the course's wins."""
    import subprocess
    import sys
    prefix = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "course", "settings", "--sys-prefix", str(prefix), "--exchange",
                    "--language", "es"], check=True, cwd=tmp_path)
    enabling = Path(sys.prefix) / "etc/jupyter/jupyter_server_config.d/nbgrader.json"
    (prefix / "etc/jupyter/jupyter_server_config.d").mkdir()
    shutil.copy(enabling, prefix / "etc/jupyter/jupyter_server_config.d/nbgrader.json")
    listing = subprocess.run([sys.executable, "-m", "jupyter", "server", "extension", "list"],
                             capture_output=True, text=True, check=True,
                             env={**os.environ, "JUPYTER_CONFIG_DIR": str(prefix / "etc/jupyter")})
    state = extension_states(listing.stdout + listing.stderr, prefix)
    assert state["course.validate"] == "enabled"
    assert state["nbgrader.server_extensions.validate_assignment"] == "disabled"
    assert state["nbgrader.server_extensions.formgrader"] == "disabled"
    assert state["nbgrader.server_extensions.assignment_list"] == "enabled"
    overrides = json.loads((prefix / "share/jupyter/lab/settings/overrides.json").read_text())
    assert overrides["@jupyterlab/translation-extension:plugin"] == {"locale": "es_ES"}
