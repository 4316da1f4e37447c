"""The student's JupyterLab in a real browser (Debian's Chromium through Playwright):
a started assignment opens unmodified, student mode has no instructor tools and
speaks Spanish for a Spanish assignment. Screenshots go to the test's tmp folder."""
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

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
    server, base, notebook = open_lab(tmp_path, "theory03-es")
    try:
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


# ---- a student's whole session, in every unit and language ----------------------

STUB = {"en": "write your code here", "es": "escribe aquí tu código"}
ASSIGNMENTS = sorted(p.name for p in (ROOT / "release").glob("*-*") if p.is_dir())


def open_lab(folder, assignment):
    """Start `assignment` in `folder` and JupyterLab on loopback; (server, base, notebook)."""
    lang = assignment.rsplit("-", 1)[-1]
    shutil.copytree(ROOT / "release", folder / "release")
    notebook = start(assignment, root=folder)
    port = free_port()
    arguments, env = lab_command(folder, lang, extra=[
        "--no-browser", "--allow-root", "--ip=127.0.0.1", f"--port={port}",
        f"--IdentityProvider.token={TOKEN}"])
    server = subprocess.Popen(arguments, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    for _ in range(120):
        try:
            urllib.request.urlopen(f"{base}/api/status?token={TOKEN}", timeout=2)
            break
        except OSError:
            time.sleep(0.5)
    return server, base, notebook


def cells(page):
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell")


def prompts(page):
    return page.locator(".jp-CodeCell .jp-InputPrompt").evaluate_all("els => els.map(e => e.textContent)")


def run_all(page, seconds=240):
    """Run every cell from the Run menu; wait until the run has begun (the first
    prompt changed) and then until no cell is queued or running. Right after the page
    loads, JupyterLab may not yet count the notebook as the current widget and the menu
    item does nothing (seen on CI): a student would click again, and so does this."""
    before = prompts(page)
    deadline = time.monotonic() + seconds
    begun, clicked = False, None
    while time.monotonic() < deadline:
        if not begun and (clicked is None or time.monotonic() - clicked > 20):
            if clicked is not None:
                print("Run All clicked again: the run had not begun 20 s after the first click")
            cells(page).first.locator(".jp-InputPrompt").click()  # the notebook, made current
            page.click("#jp-MainMenu .lm-MenuBar-item:has-text('Run')")
            page.click(".lm-Menu-item[data-command='runmenu:run-all']")
            clicked = time.monotonic()
        now = prompts(page)
        begun = begun or now[:1] != before[:1]
        idle = page.locator(".jp-Notebook-ExecutionIndicator[data-status=idle]").count()
        if begun and idle and not any("*" in p for p in now):
            return
        time.sleep(0.5)
    page.screenshot(path=str(Path(tempfile.gettempdir()) / "browser-still-running.png"), full_page=True)
    raise AssertionError(f"the notebook was still running after {seconds} s: begun {begun}, "
                         f"idle {idle}, prompts {now[:8]}")


def error_texts(page):
    return page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']") \
        .evaluate_all("els => els.map(e => e.textContent)")


def type_into(page, index, code):
    """Replace cell `index`'s text with `code`, as a student pasting it would."""
    cell = cells(page).nth(index)
    cell.scroll_into_view_if_needed()
    if "jp-MarkdownCell" in (cell.get_attribute("class") or ""):
        cell.dblclick()  # a rendered written answer opens its editor on a double click
    cell.locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(code)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_a_student_solves_the_assignment_in_jupyterlab(tmp_path, assignment):
    """Run all on the blank copy (the first failure is the stub's message, in the notebook's
    language), type the answers in, run all again (no error, every figure drawn), Validate
    (success), and find the answers saved in the student's file."""
    import nbformat
    lang = assignment.rsplit("-", 1)[-1]
    unit = assignment.rsplit("-", 1)[0]
    solved = nbformat.read(ROOT / "source" / assignment / f"{unit}.ipynb", 4)
    answers = {c.metadata["nbgrader"]["grade_id"]: c.source for c in solved.cells
               if c.metadata.get("nbgrader", {}).get("solution")}  # code, and written answers
    figures = sum("image/png" in o.get("data", {}) for c in solved.cells for o in c.get("outputs", []))
    server, base, notebook = open_lab(tmp_path, assignment)
    blank = nbformat.read(notebook, 4)
    where = {c.metadata["nbgrader"]["grade_id"]: i for i, c in enumerate(blank.cells)
             if c.metadata.get("nbgrader", {}).get("grade_id") in answers}
    assert where.keys() == answers.keys()
    try:
        with playwright.sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                         args=["--no-sandbox", "--disable-dev-shm-usage"])
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{base}/lab/tree/{notebook.parent.name}/{notebook.name}?token={TOKEN}&reset")
            page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell", timeout=90_000)
            page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status=idle]", timeout=90_000)
            run_all(page)
            first_failure = error_texts(page)[0]
            page.screenshot(path=str(tmp_path / f"{assignment}-blank.png"))
            for grade_id, index in where.items():
                type_into(page, index, answers[grade_id])
            run_all(page)
            left = error_texts(page)
            drawn = page.locator(".jp-OutputArea-output img").count()
            page.screenshot(path=str(tmp_path / f"{assignment}-solved.png"))
            page.click(".jp-NotebookPanel-toolbar .jp-Toolbar-item:has-text('Validate') jp-button")
            page.wait_for_selector(".jp-Dialog #validation-message", timeout=240_000)
            verdict = page.locator(".jp-Dialog #validation-message").get_attribute("class")
            said = page.locator(".jp-Dialog #validation-message").text_content()
            page.screenshot(path=str(tmp_path / f"{assignment}-validated.png"))
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(assignment, "| first failure:", first_failure.strip().splitlines()[-1][:120],
          "| errors once solved:", len(left), "| figures:", drawn, "of", figures, "| validate:", verdict, said[:300])
    assert STUB[lang] in first_failure and STUB["es" if lang == "en" else "en"] not in first_failure
    assert left == []
    assert drawn >= figures
    assert "validation-success" in verdict
    saved = nbformat.read(notebook, 4)  # Validate saves first: the student's answers are on disk
    for grade_id, index in where.items():
        assert saved.cells[index].source == answers[grade_id]
