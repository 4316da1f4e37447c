"""The classroom end to end: `python -m classroom start` on loopback with an instructor, a
Spanish student and an English student (real system users); each student logs in through the
hub's login page in Debian's Chromium, fetches theory03 from nbgrader's Assignments panel,
answers gradients() (Spanish: the predictable mistake, English: right), validates and submits;
the instructor collects and grades with `python -m grader grade`, generates and releases
feedback; each student fetches it and reads their score and a reason in their language. A
student cannot read the other's work, the instructor's course or the exchange's submissions;
a link to the gradebook planted in a submission is left behind by `collect` (with the
trust-boundary defences, grader/plugins/intake.py); the hub's tokens never reach a graded kernel. Screenshots of each step go to the test's
tmp folder (paths printed). Measures each student's server memory and start-up time."""
import csv
import json
import os
import pwd
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from shutil import which

import pytest

from authoring.build import ROOT

CHROMIUM = "/usr/bin/chromium"
playwright = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
pytest.importorskip("jupyterhub", reason="jupyterhub is not installed (pip install -r requirements.txt)")
pytestmark = [
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Chromium is missing (apt-get install chromium)"),
    pytest.mark.skipif(which("configurable-http-proxy") is None,
                       reason="configurable-http-proxy is missing (npm install -g configurable-http-proxy)"),
    pytest.mark.skipif(os.geteuid() != 0, reason="the classroom makes system users: run as root"),
]
PREFIX = os.environ.get("CLASSROOM_TEST_PREFIX", "zqcls")  # zqcls-...: unlikely to exist anywhere
MARKER = "hub-token-that-must-not-reach-a-kernel"
ANSWERS = {  # the Spanish student takes only the path through e; the English one is right
    "es": "import os\nprint('ENVIRONMENT', dict(os.environ))\n"
          "def gradients(a, b, c):\n    e = a * b + c\n    f = a - c\n    return f * b, f * a, f\n",
    "en": "def gradients(a, b, c):\n    e = a * b + c\n    f = a - c\n    return f * b + e, f * a, f - e\n",
}
REASON = {"es": "falta el camino a través de f", "en": "write your code here"}
SCORE_WORD = {"es": "Puntuación", "en": "Score"}  # the feedback's words are the student's language
SCORE = {"es": ("0.0", "12.0"), "en": ("3.0", "12.0")}
GRADIENTS_CELL = 10  # theory03's gradients() answer cell (tests/test_theory03.py keeps the layout)


def run(command, **kwargs):
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False, **kwargs)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def classroom(tmp_path_factory):
    """The classroom started from a roster, stopped (users removed) at the end."""
    folder = tmp_path_factory.mktemp("classroom")
    shared = Path(tempfile.mkdtemp(prefix="classroom-exchange-"))  # students must reach it
    shared.chmod(0o755)
    roster = folder / "roster.csv"
    roster.write_text("id,name,language,role\nteacher,Profesora,es,instructor\n"
                      "ana.garcia,Ana García,es,student\nbob,Bob Smith,en,student\n", encoding="utf-8")
    state = folder / "state"
    out = run([sys.executable, "-m", "classroom", "start", str(roster), "--prefix", PREFIX,
               "--exchange", str(shared / "exchange"), "--state", str(state), "--units", "theory03"],
              cwd=ROOT)
    print(out)
    url = re.search(r"classroom running: (\S+)", out).group(1)
    with open(state / "passwords.csv", encoding="utf-8") as listing:
        logins = {row["language"] if row["role"] == "student" else "instructor": row
                  for row in csv.DictReader(listing)}
    try:
        yield {"url": url, "people": logins, "state": state, "exchange": shared / "exchange"}
    finally:
        print(run([sys.executable, "-m", "classroom", "stop", "--state", str(state)], cwd=ROOT))
        for person in logins.values():
            with pytest.raises(KeyError):
                pwd.getpwnam(person["login"])
        shared.rmdir()


def memory_mb(login, kind="Pss"):
    """Memory (MB) of every process of `login`, their server and its kernels: `Pss` shares each
    library page among the processes that map it (this machine's cost of one more student);
    `Rss` counts it whole in each (closer to a pod of their own, where nothing is shared)."""
    uid = pwd.getpwnam(login).pw_uid
    total = 0
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and entry.stat().st_uid == uid:
                rollup = (entry / "smaps_rollup").read_text()
                total += int(re.search(rf"^{kind}:\s+(\d+) kB", rollup, re.MULTILINE).group(1))
        except (OSError, AttributeError):
            pass
    return round(total / 1024)


def log_in(context, url, person, shots, lang):
    """Log in through the hub's login page; the page and the seconds until JupyterLab showed."""
    page = context.new_page()
    page.goto(url + "hub/login")
    page.fill("#username_input", person["login"])
    page.fill("#password_input", person["password"])
    shoot(page, shots, f"{lang}-1-login")
    started = time.monotonic()
    page.click("#login_submit")
    page.wait_for_selector("#jp-main-dock-panel", timeout=180_000)
    page.wait_for_selector("#jp-MainMenu .lm-MenuBar-item:has-text('Nbgrader')", timeout=60_000)
    return page, time.monotonic() - started


def shoot(page, shots, name):
    path = shots / f"{name}.png"
    page.screenshot(path=str(path))
    print("screenshot:", path)


def assignment_list(page):
    page.click("#jp-MainMenu .lm-MenuBar-item:has-text('Nbgrader')")
    page.click(".lm-Menu-item:has-text('Assignment List')")
    page.wait_for_selector("#released_assignments_list_loading[hidden]", state="attached", timeout=60_000)
    page.wait_for_selector("#fetched_assignments_list_loading[hidden]", state="attached", timeout=60_000)


def test_a_class_releases_fetches_submits_grades_and_returns_feedback(classroom, tmp_path):
    from test_browser import cells, run_all, type_into
    url, people = classroom["url"], classroom["people"]
    shots = tmp_path
    figures = {}
    with playwright.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--no-sandbox", "--disable-dev-shm-usage"])
        pages = {}
        for lang in ("es", "en"):
            person = people[lang]
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            page, seconds = log_in(context, url, person, shots, lang)
            time.sleep(2)
            figures[lang] = {"start_s": round(seconds, 1), "server_mb": memory_mb(person["login"]),
                             "server_rss_mb": memory_mb(person["login"], "Rss")}
            assignment_list(page)
            released = page.locator("#released_assignments_list .item_name").all_text_contents()
            shoot(page, shots, f"{lang}-2-assignments")
            assert [name.strip() for name in released] == [f"theory03-{lang}"]  # not the other language's
            page.click("#released_assignments_list .list_item button:has-text('Fetch')")
            page.wait_for_selector("#fetched_assignments_list .list_item", timeout=60_000)
            shoot(page, shots, f"{lang}-3-fetched")
            # work: open the fetched notebook, run it, answer gradients(), validate
            page.goto(f"{url}user/{person['login']}/lab/tree/theory03-{lang}/theory03.ipynb")
            page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell", timeout=90_000)
            page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status=idle]", timeout=90_000)
            run_all(page)  # stops at the first stub; the setup cell has imported torch
            figures[lang]["with_kernel_mb"] = memory_mb(person["login"])
            figures[lang]["with_kernel_rss_mb"] = memory_mb(person["login"], "Rss")
            type_into(page, GRADIENTS_CELL, ANSWERS[lang])
            page.keyboard.press("Shift+Enter")
            cells(page).nth(GRADIENTS_CELL).scroll_into_view_if_needed()
            shoot(page, shots, f"{lang}-4-answered")
            page.click(".jp-NotebookPanel-toolbar .jp-Toolbar-item:has-text('Validate') jp-button")
            page.wait_for_selector(".jp-Dialog #validation-message", timeout=240_000)
            shoot(page, shots, f"{lang}-5-validated")
            page.click(".jp-Dialog .jp-mod-accept")
            assignment_list(page)
            page.click("#fetched_assignments_list .list_item button:has-text('Submit')")
            page.wait_for_selector("#submitted_assignments_list .list_item", timeout=60_000)
            shoot(page, shots, f"{lang}-6-submitted")
            pages[lang] = page
        for lang in ("es", "en"):  # the hub's own figure: from the spawn request to the server's answer
            spawn = re.search(rf"User {people[lang]['login']} took ([0-9.]+) seconds to start",
                              (classroom["state"] / "hub.log").read_text(errors="replace"))
            figures[lang]["spawn_s"] = float(spawn.group(1))
        print("per student (start_s: login click to JupyterLab shown; spawn_s: the hub's spawn time; "
              "PSS of the user's processes):", json.dumps(figures))

        # a student's kernel cannot read the other's work, the instructor's course, the inbound
        refused = probe(pages["es"], shots, people, classroom["exchange"])
        print("Ana's kernel:", refused)
        assert len(refused) == 4 and set(refused.values()) == {"REFUSED PermissionError"}, refused

        # the instructor: collect, grade in the sandbox (with the hub's variables in the
        # environment, as in a terminal of their server), generate and release feedback
        teacher = people["instructor"]["login"]
        grading = {"JUPYTERHUB_API_TOKEN": MARKER, "JPY_API_TOKEN": MARKER, "JUPYTERHUB_CLIENT_ID": MARKER}
        course = Path(pwd.getpwnam(teacher).pw_dir) / "autograd-by-hand"
        started = time.monotonic()
        for lang in ("es", "en"):
            assignment = f"theory03-{lang}"
            run_as(teacher, course, "nbgrader", "collect", assignment, f"--course=autograd-by-hand-{lang}")
            print(run_as(teacher, course, sys.executable, "-m", "grader", "grade", assignment, env=grading)[-600:])
            run_as(teacher, course, "nbgrader", "generate_feedback", assignment)
            run_as(teacher, course, "nbgrader", "release_feedback", assignment,
                   f"--course=autograd-by-hand-{lang}")
        print(f"collect, grade, feedback for both languages: {time.monotonic() - started:.0f} s")
        planted = course / "submitted" / people["es"]["login"] / "theory03-es" / "leak.db"
        # stock `collect` would follow it; the course's SafeCollect (grader/plugins/intake.py) refuses it
        assert not planted.exists() and not planted.is_symlink()
        print("collect left the planted link to the gradebook behind")
        graded = (course / "autograded" / people["es"]["login"] / "theory03-es" / "theory03.ipynb").read_text()
        assert "ENVIRONMENT" in graded and "PATH" in graded  # the student's print ran while grading
        assert MARKER not in graded and "JUPYTERHUB" not in graded
        print("the graded kernel's environment held no hub token (the print ran; no JUPYTERHUB_*)")

        formgrader = browser.new_context(viewport={"width": 1400, "height": 1000})
        page, _ = log_in(formgrader, url, people["instructor"], shots, "instructor")
        page.click("#jp-MainMenu .lm-MenuBar-item:has-text('Nbgrader')")
        page.click(".lm-Menu-item:has-text('Formgrader')")
        page.frame_locator("iframe[src*='formgrader']").locator("text=theory03-es").first.wait_for(timeout=60_000)
        shoot(page, shots, "instructor-formgrader")

        for lang in ("es", "en"):
            page = pages[lang]
            assignment_list(page)  # the panel again, in front
            page.click("#refresh_assignments_list")
            page.wait_for_selector("#submitted_assignments_list button:has-text('Fetch Feedback')", timeout=60_000)
            page.click("#submitted_assignments_list button:has-text('Fetch Feedback')")
            page.wait_for_selector("#submitted_assignments_list a:has-text('view feedback')", timeout=60_000)
            shoot(page, shots, f"{lang}-7-feedback-fetched")
            home = Path(pwd.getpwnam(people[lang]["login"]).pw_dir)
            feedback = next(home.glob(f"theory03-{lang}/feedback/*/theory03.html"))
            page.goto(f"{url}user/{people[lang]['login']}/files/{feedback.relative_to(home)}")
            page.wait_for_selector("body", timeout=30_000)
            text = page.locator("body").inner_text()
            shoot(page, shots, f"{lang}-8-feedback")
            score = re.search(rf"{SCORE_WORD[lang]}: (\S+) / (\S+)\)", text)
            print(lang, "feedback score:", score.group(0) if score else None)
            assert score and score.groups() == SCORE[lang]  # her mistake earns nothing, his answer 3
            assert REASON[lang] in text
            page.locator(f"text={REASON[lang]}").first.scroll_into_view_if_needed()
            shoot(page, shots, f"{lang}-9-feedback-reason")
            other = "es" if lang == "en" else "en"
            assert REASON[other] not in text
        browser.close()


def run_as(login, folder, *command, env=None):
    from classroom.course import as_user
    done = subprocess.run([str(c) for c in command], cwd=folder, capture_output=True, text=True,
                          timeout=600, check=False, **as_user(login, env))
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


def probe(page, shots, people, exchange):
    """From a new notebook in Ana's server, try to read what is not hers; what each try said."""
    teacher = pwd.getpwnam(people["instructor"]["login"]).pw_dir
    bob = pwd.getpwnam(people["en"]["login"]).pw_dir
    targets = {"Bob's notebook": f"{bob}/theory03-en/theory03.ipynb",
               "the inbound submissions": f"{exchange}/autograd-by-hand-en/inbound",
               "the instructor's source": f"{teacher}/autograd-by-hand/source",
               "the gradebook": f"{teacher}/autograd-by-hand/gradebook.db"}
    code = ("import json, os\nseen = {}\n"
            f"for what, path in {targets!r}.items():\n"
            "    try:\n"
            "        seen[what] = 'READ ' + str(os.listdir(path) if os.path.isdir(path) else open(path, 'rb').read(40))\n"
            "    except OSError as error:\n"
            "        seen[what] = 'REFUSED ' + type(error).__name__\n"
            # and a link to the gradebook planted in her own submission, whose folder she
            # learns by submitting again from her kernel: collect must not follow it
            "import re, subprocess\n"
            "said = subprocess.run(['nbgrader', 'submit', 'theory03-es', '--course=autograd-by-hand-es'],\n"
            "                      capture_output=True, text=True, cwd=os.path.expanduser('~'))\n"
            "mine = re.search(r'Destination: (.+)', said.stdout + said.stderr).group(1).strip()\n"
            f"os.symlink({targets['the gradebook']!r}, os.path.join(mine, 'leak.db'))\n"
            "print('PROBE' + json.dumps(seen))\n")
    page.click(".jp-BreadCrumbs-home")  # the new notebook in her home, not in the assignment
    page.click("#jp-MainMenu .lm-MenuBar-item:has-text('Archivo')")
    page.click(".lm-Menu-item:has-text('Nuevo')")
    page.click(".lm-Menu-item[data-command='notebook:create-new']")
    page.wait_for_selector(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell", timeout=60_000)
    try:
        page.click(".jp-Dialog .jp-mod-accept", timeout=15_000)  # the kernel chooser: Python 3
    except playwright.Error:
        pass  # no chooser: the default kernel started
    from test_browser import cells, type_into
    page.wait_for_selector(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook-ExecutionIndicator"
                           "[data-status=idle]", timeout=90_000)
    type_into(page, 0, code)
    page.keyboard.press("Shift+Enter")
    for _ in range(3):  # a cell run before the new kernel is ready stays unrun: run it again
        deadline = time.monotonic() + 10  # (as soon as it runs, not 10 s every time)
        while True:
            prompt = cells(page).nth(0).locator(".jp-InputPrompt").text_content()
            if "[ ]" not in prompt or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        if "[ ]" not in prompt:
            break
        print("the probe cell had not run: running it again")
        cells(page).nth(0).locator(".jp-InputPrompt").click()
        page.keyboard.press("Shift+Enter")
    output = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) "
                          ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stdout']:has-text('PROBE{')")
    try:
        output.wait_for(timeout=120_000)
    except playwright.Error:
        shoot(page, shots, "es-probe-failed")
        raise AssertionError("the probe printed nothing; its cell said: "
                             f"{page.locator('.jp-OutputArea-output').all_text_contents()}") from None
    shoot(page, shots, "es-probe-refused")
    return json.loads(output.text_content().split("PROBE", 1)[1])
