"""The student's JupyterLab in a real browser (Debian's Chromium through Playwright):
a started assignment opens unmodified, student mode has no instructor tools and
speaks Spanish for a Spanish assignment. Screenshots go to the test's tmp folder."""
import json
import os
import shutil
import socket
import subprocess
import time
import urllib.request

import pytest

from authoring.build import ROOT
from course.start import lab_command, start

CHROMIUM = "/usr/bin/chromium"
playwright = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason="Chromium is missing (apt-get install chromium)")
TOKEN = "course-browser-test"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def lab(tmp_path):
    """A clone with a started Spanish assignment, and JupyterLab in student mode on loopback."""
    shutil.copytree(ROOT / "release", tmp_path / "release")
    notebook = start("theory03-es", root=tmp_path)
    port = free_port()
    arguments, env = lab_command(tmp_path, "es", extra=[
        "--no-browser", "--allow-root", "--ip=127.0.0.1", f"--port={port}",
        f"--IdentityProvider.token={TOKEN}"])
    server = subprocess.Popen(arguments, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{base}/api/status?token={TOKEN}", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        yield base, notebook, tmp_path
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_started_notebook_opens_unmodified_in_spanish_without_instructor_tools(lab):
    base, notebook, folder = lab
    before = json.loads(notebook.read_text())
    with playwright.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--no-sandbox", "--disable-dev-shm-usage"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{base}/lab/tree/{notebook.parent.name}/{notebook.name}?token={TOKEN}&reset")
        page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell", timeout=90_000)
        page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status=idle]", timeout=90_000)
        time.sleep(2)  # let JupyterLab write the kernel's metadata, as it does on opening
        menus = page.locator("#jp-MainMenu .lm-MenuBar-item").all_text_contents()
        dirty = page.locator(".lm-TabBar-tab.jp-mod-dirty").count()
        validate = page.locator(".jp-NotebookPanel-toolbar .jp-Toolbar-item:has-text('Validate')").count()
        page.screenshot(path=str(folder / "opened-es.png"))
        page.keyboard.press("Control+s")
        time.sleep(2)
        browser.close()
    print("menus:", menus, "| unsaved tabs:", dirty, "| Validate buttons:", validate)
    assert dirty == 0
    assert json.loads(notebook.read_text()) == before  # saving changed nothing
    assert {"Archivo", "Editar", "Ver", "Configuración", "Ayuda"} <= set(menus)
    assert "Nbgrader" not in menus  # no Formgrader, no Create Assignment
    assert validate == 1
