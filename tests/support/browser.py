"""JupyterLab driven in a real browser (Debian's Chromium through Playwright), as a
student or an instructor clicks and types in it."""
import tempfile
import time
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"


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


def type_into(page, index, code):
    """Replace cell `index`'s text with `code`, as a student pasting it would."""
    cell = cells(page).nth(index)
    cell.scroll_into_view_if_needed()
    if "jp-MarkdownCell" in (cell.get_attribute("class") or ""):
        cell.dblclick()  # a rendered written answer opens its editor on a double click
    cell.locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(code)


def validate(page):
    """Click the shown notebook's Validate; (passed, the dialog's text), the dialog left open."""
    page.click(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-NotebookPanel-toolbar "
               ".jp-Toolbar-item:has-text('Validate') jp-button")
    page.wait_for_selector(".jp-Dialog #validation-message", timeout=240_000)
    message = page.locator(".jp-Dialog #validation-message")
    passed, said = "validation-success" in message.get_attribute("class"), message.text_content()
    return passed, said


def close_dialog(page):
    page.click(".jp-Dialog .jp-mod-accept")
    page.wait_for_selector(".jp-Dialog", state="detached")
