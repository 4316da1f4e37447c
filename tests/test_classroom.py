"""The classroom end to end: `python -m classroom start` on loopback with an instructor, a
Spanish student and an English student (real system users); each student logs in through the
hub's login page in Debian's Chromium, fetches theory03 from nbgrader's Assignments panel,
answers gradients() (Spanish: the predictable mistake, English: right), validates and submits;
the instructor collects and grades with `python -m grader grade`, generates and releases
feedback; each student fetches it and reads their score and a reason in their language. A
student cannot read the other's work, the instructor's course or the exchange's submissions;
a link to the gradebook planted in a submission is left behind by `collect` (with the
trust-boundary defences, grader/plugins/intake.py); the hub's tokens never reach a graded kernel.
Screenshots of each step go to the test's tmp folder (paths printed). Measures each student's
server memory and start-up time. The login page is audited with axe-core as the students see it.

Then students act against each other and the class as a department runs it: every listener on
the machine tried from a student's kernel, temporary folders and homes filled, a submission
rewritten and backdated after hand-in, a classmate's password guessed with forged addresses,
a port grabbed while the hub restarts, a PID reused after a crash, stop, start, remove and the
guide's restore from the archive alone; each attack prints what it found."""
import csv
import hashlib
import json
import os
import pwd
import re
import shutil
import signal
import subprocess
import tarfile
import tempfile
import threading
import time
import urllib.parse
from datetime import UTC, datetime, timedelta
from pathlib import Path
from shutil import which

import pytest
import requests
from nbgrader.utils import parse_utc
from support.axe import AXE_MISSING, audit, axe_script, count, report
from support.browser import CHROMIUM, cells, close_dialog, run_all, type_into, validate
from support.checkout import checkout_copy
from support.course import cell_index
from support.hub_client import HubUser

from authoring.build import ROOT
from classroom.hub import free_port

playwright = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
pytest.importorskip("jupyterhub", reason="jupyterhub is not installed (pip install -r requirements.txt)")
pytestmark = [
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Chromium is missing (apt-get install chromium)"),
    pytest.mark.skipif(which("configurable-http-proxy") is None,
                       reason="configurable-http-proxy is missing (npm install -g configurable-http-proxy)"),
    pytest.mark.skipif(os.geteuid() != 0, reason="the classroom makes system users: run as root"),
]
# unique to this run, so that users a killed run could not remove never block the next one
PREFIX = os.environ.get("CLASSROOM_TEST_PREFIX", f"zq{os.getpid() % 100000}")
# each student's limit here: lab 03 open with its Validate beside it (torch and mypy in a second
# kernel, about 510 MB at its peak) fits with room, as in a class's default 2048 (with 1024 its
# Validate's kernel was sometimes killed); the memory attack takes twice this
MEMORY_MB = 1536
HOME_MB = 100  # each student's home here (the test fills Ana's)
# idle seconds before the culler stops a server, set from the start (no restart to change it):
# longer than any pause within a test (a hub restart included), shorter than the tests before
# the culling test, so Carol's server, started idle with the class, is culled by then
CULL_AFTER = 120
MARKER = "hub-token-that-must-not-reach-a-kernel"
ANSWERS = {  # the Spanish student takes only the path through e; the English one is right
    "es": "import os\nprint('ENVIRONMENT', dict(os.environ))\n"
          "def gradients(a, b, c):\n    e = a * b + c\n    f = a - c\n    return f * b, f * a, f\n",
    "en": "def gradients(a, b, c):\n    e = a * b + c\n    f = a - c\n    return f * b + e, f * a, f - e\n",
}
REASON = {"es": "falta el camino a través de f", "en": "write your code here"}
SCORE_WORD = {"es": "Puntuación", "en": "Score"}  # the feedback's words are the student's language
SCORE = {"es": ("0.0", "14.0"), "en": ("3.0", "14.0")}
GRADIENTS_CELL = cell_index("theory03-es", "theory03-gradients-answer")  # both languages' layout
BONUS_UNIT = "lab03"  # one bonus exercise, worth 0 points; its kernel is lighter than lab 01's


def run(command, **kwargs):
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False, **kwargs)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def checkout():
    """The department's checkout the class runs from: a copy of this one, which the class hides
    while the rest of the suite runs from this one (tests/support/checkout.py)."""
    with checkout_copy() as copy:
        yield copy


@pytest.fixture(scope="module")
def classroom(checkout):
    """The classroom started once from a roster by the README's command, run with the checkout's
    Python from the checkout, shared by every test; on a port an instructor chose (one any user
    may take, as 8000 would be), students' homes of HOME_MB; Carol's server started and left idle
    (the culling test's). Removed at the end (the last test removes it and restores it from its
    backup; whatever is left is removed here)."""
    python = checkout.python
    # not under pytest's tmp_path: another pytest run as root may delete old ones meanwhile
    shared = Path(tempfile.mkdtemp(prefix="classroom-test-"))  # students reach the exchange in it
    shared.chmod(0o755)
    folder = shared / "instructor"
    folder.mkdir(mode=0o700)
    roster = folder / "roster.csv"
    roster.write_text("id,name,language,role\nteacher,Profesora,es,instructor\n"
                      "ana.garcia,Ana García,es,student\nbob,Bob Smith,en,student\n"
                      "carol,Carol Idle,en,student\n", encoding="utf-8")
    state = folder / "state"
    try:
        out = run([python, "-m", "classroom", "start", str(roster), "--prefix", PREFIX,
                   "--exchange", str(shared / "exchange"), "--student-env", str(shared / "student-env"),
                   "--homes", str(shared / "homes"), "--home-mb", str(HOME_MB), "--port", str(free_port()),
                   "--state", str(state), "--units", "theory03", "--memory-mb", str(MEMORY_MB),
                   "--cull-after", str(CULL_AFTER)], cwd=checkout.root)
        print(out)
        # the class hid its own checkout; this one, which the rest of the suite runs from, stays open
        assert checkout.root.stat().st_mode & 0o077 == 0o050 and ROOT.stat().st_mode & 0o005 == 0o005
        url = re.search(r"classroom running: (\S+)", out).group(1)
        with open(state / "passwords.csv", encoding="utf-8") as listing:
            logins = {("idle" if row["id"] == "carol" else row["language"]) if row["role"] == "student"
                      else "instructor": row for row in csv.DictReader(listing)}
        carol = HubUser(url, logins["idle"]["login"], logins["idle"]["password"])
        assert carol.log_in()
        carol.api("POST", f"hub/api/users/{carol.login}/server")  # not waited for: it starts meanwhile
        yield {"url": url, "people": logins, "state": state, "exchange": shared / "exchange",
               "student_env": shared / "student-env", "shared": shared, "idle_since": time.monotonic(),
               "python": python, "checkout": checkout.root}
    finally:
        if (state / "classroom.json").exists():
            subprocess.run([python, "-m", "classroom", "remove", "--state", str(state), "--confirm", PREFIX,
                            "--backup", str(shared / "last.tar.gz")], cwd="/", check=False)
        from classroom import accounts, homes
        for login in [line.split(":", 1)[0] for line in Path("/etc/passwd").read_text().splitlines()
                      if line.startswith(f"{PREFIX}-")]:  # a restore stopped half-way made them
            homes.unmount(login, shared / "homes")
            accounts.remove(login)
        assert not [p for p in Path("/sys/fs/cgroup").rglob(f"classroom-{PREFIX}-*")]
        assert checkout.root.stat().st_mode & 0o005 == 0o005  # the checkout as it was before the class
        shutil.rmtree(shared, ignore_errors=True)


def accounts_exist(login):
    try:
        pwd.getpwnam(login)
        return True
    except KeyError:
        return False


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


LOGIN_AUDITS = {}  # what the login page showed -> axe-core's violations (test_the_login_page_passes_axe)


def log_in(context, url, person, shots, lang, then=None, audit_wrong_password=False):
    """Log in through the hub's login page (then open `then`, a path on the hub, in the same
    page load); the page and the seconds until JupyterLab showed. The first time, the page is
    audited with axe-core as it opened, and with `audit_wrong_password`, once more after one."""
    page = context.new_page()
    page.goto(url + "hub/login" + (f"?next={urllib.parse.quote(then)}" if then else ""))
    started = time.monotonic()
    if axe_script() and "opened" not in LOGIN_AUDITS:
        LOGIN_AUDITS["opened"] = audit(page)
        LOGIN_AUDITS["words"] = page.locator("#login-main").inner_text()
    if audit_wrong_password and axe_script():
        page.fill("#username_input", person["login"])
        page.fill("#password_input", "not-" + person["password"])
        page.click("#login_submit")
        page.wait_for_selector(".login_error")
        LOGIN_AUDITS["after a wrong password"] = audit(page)
        LOGIN_AUDITS["error"] = page.locator(".login_error").inner_text()
    LOGIN_AUDITS["seconds"] = LOGIN_AUDITS.get("seconds", 0) + time.monotonic() - started
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
            page, seconds = log_in(context, url, person, shots, lang, audit_wrong_password=lang == "es")
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
            try:  # JupyterLab may ask which kernel (seen under load): Python 3, as a student picks
                page.click(".jp-Dialog .jp-mod-accept", timeout=5_000)
                print(lang, "JupyterLab asked for the kernel: Python 3 chosen")
            except playwright.Error:
                pass
            try:
                run_all(page)  # stops at the first stub; the setup cell has imported torch
            except playwright.Error:
                shoot(page, shots, f"{lang}-run-all-failed")
                raise AssertionError("Run All could not run; dialogs: "
                                     f"{page.locator('.jp-Dialog').all_text_contents()}") from None
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
            # submitted through the hub (the environment's nbgrader settings): the folder is
            # private to the student and the instructors' group, not nbgrader's 777
            inbound = classroom["exchange"] / f"autograd-by-hand-{lang}" / "inbound"
            modes = {p.name: oct(p.stat().st_mode & 0o777) for p in inbound.iterdir()
                     if p.name.startswith(person["login"] + "+")}
            print(lang, "submission folders:", modes)
            assert modes and set(modes.values()) == {"0o750"}, modes
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
            print(run_as(teacher, course, classroom["python"], "-m", "grader", "grade", assignment, env=grading)[-600:])
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


def test_the_login_page_passes_axe():
    """The hub's login page, as the students above saw it (classroom/templates/login.html):
    axe-core at WCAG 2.1 A and AA finds nothing, on opening and after a wrong password; its
    words are in both of the class's languages."""
    if not axe_script():
        pytest.skip(AXE_MISSING)
    if "opened" not in LOGIN_AUDITS:
        pytest.skip("not audited: the class's end-to-end test above did not reach the login page")
    found = {moment: LOGIN_AUDITS[moment] for moment in ("opened", "after a wrong password") if moment in LOGIN_AUDITS}
    print({moment: count(violations) for moment, violations in found.items()}, repr(LOGIN_AUDITS["words"]),
          repr(LOGIN_AUDITS.get("error")), f"(audits and the wrong password: {LOGIN_AUDITS['seconds']:.1f} s)")
    assert not any(found.values()), "\n".join(line for moment, violations in found.items()
                                              for line in report(moment, violations))
    assert "Sign in" in LOGIN_AUDITS["words"] and "Iniciar sesión" in LOGIN_AUDITS["words"]
    assert "Usuario o contraseña incorrectos" in LOGIN_AUDITS["error"]


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
            "try:  # made the moment she handed in, before the hub freezes it (after, it is root's)\n"
            f"    os.symlink({targets['the gradebook']!r}, os.path.join(mine, 'leak.db'))\n"
            "except PermissionError:\n"
            "    pass\n"
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


# ---- the class as a department runs it: nothing lost, students isolated, limits, Validate ----

def hub_user(classroom, key):
    person = classroom["people"][key]
    user = HubUser(classroom["url"], person["login"], person["password"])
    assert user.log_in(), f"{person['login']} could not log in"
    return user


def hub_pid(classroom):
    return int((classroom["state"] / "hub.pid").read_text())


def classroom_command(classroom, *arguments):
    return run([classroom["python"], "-m", "classroom", *arguments], cwd="/")  # from any folder


def test_a_student_kernel_reads_nothing_that_is_not_theirs(classroom):
    """From Ana's kernel (through the hub's API) and as her system user: the solutions, the
    references, the gradebook, autograded/ and submitted/, Bob's home, Bob's /tmp: each refused."""
    teacher = Path(pwd.getpwnam(classroom["people"]["instructor"]["login"]).pw_dir) / "autograd-by-hand"
    bob_home = pwd.getpwnam(classroom["people"]["en"]["login"]).pw_dir
    (teacher / "autograded").mkdir(exist_ok=True)
    (teacher / "submitted").mkdir(exist_ok=True)
    checkout = classroom["checkout"]
    targets = {"the solutions (checkout)": checkout / "source/theory03-es/theory03.ipynb",
               "the references (checkout)": checkout / "grader/__init__.py",
               "the course's Python (checkout)": classroom["python"],
               "the instructor's source": teacher / "source",
               "the gradebook": teacher / "gradebook.db",
               "autograded": teacher / "autograded", "submitted": teacher / "submitted",
               "Bob's home": Path(bob_home), "the passwords": classroom["state"] / "passwords.csv"}
    targets = {what: str(path) for what, path in targets.items()}
    code = ("import json, os\nseen = {}\n"
            f"for what, path in {targets!r}.items():\n"
            "    try:\n"
            "        seen[what] = 'READ ' + str(os.listdir(path) if os.path.isdir(path) else open(path, 'rb').read(20))\n"
            "    except OSError as error:\n"
            "        seen[what] = 'REFUSED ' + type(error).__name__\n"
            "try:\n    import grader\n    seen['import grader'] = 'READ ' + grader.__file__\n"
            "except ImportError as error:\n    seen['import grader'] = 'REFUSED ' + type(error).__name__\n"
            "seen['/tmp'] = os.listdir('/tmp')\n"
            "import subprocess\nseen['ps'] = sorted({int(uid) for uid in subprocess.run(['ps', '-e', '-o', 'uid='],"
            " capture_output=True, text=True).stdout.split()})\n"
            "print('PROBE' + json.dumps(seen))\n")
    bob, ana = hub_user(classroom, "en"), hub_user(classroom, "es")
    bob.start_server()
    bob_kernel = bob.start_kernel()
    assert bob.run(bob_kernel, "open('/tmp/bob-secret.txt', 'w').write('mine')")[1] is None
    ana.start_server()
    out, error = ana.run(ana.start_kernel(), code)
    assert error is None, out
    seen = json.loads(out.split("PROBE", 1)[1])
    print("Ana's kernel:", json.dumps(seen, indent=1))
    assert "bob-secret.txt" not in seen.pop("/tmp")
    assert seen.pop("ps") == [pwd.getpwnam(ana.login).pw_uid]  # her processes only
    assert seen.pop("import grader") == "REFUSED ModuleNotFoundError"
    # under /tmp (the test's state folder) a path is not even there: her /tmp is her own
    assert set(seen.values()) <= {"REFUSED PermissionError", "REFUSED FileNotFoundError"}, seen
    from classroom.course import as_user  # and as her system user, outside the hub
    for what, path in targets.items():
        done = subprocess.run(["cat" if Path(path).is_file() else "ls", path], capture_output=True, text=True,
                              check=False, **as_user(classroom["people"]["es"]["login"]))
        print(f"as Ana: {what}: {done.stderr.strip()}")
        assert done.returncode and "Permission denied" in done.stderr, what


# what Ana's kernel runs against every listener on the machine: each TCP listener (the
# machine's view: /proc/net/tcp and tcp6) is connected to and greeted as ZMQ (ZMTP 3's
# signature); THEIRS (port -> login, the classmates' and the instructor's, which the test
# reads as root: inside her sandbox every other owner shows as nobody) are asked over HTTP
# for that person's kernels, and every ZMQ one of theirs is subscribed to as IOPub and sent
# a frame that claims 2.6 GB; every listening Unix socket is connected to, its peer read
LISTENERS = r"""
import ipaddress, json, os, socket, struct, time
ZMTP = b'\xff' + b'\x00' * 8 + b'\x7f'
def address(hexa):
    host, port = hexa.split(':')
    raw = bytes.fromhex(host)
    ip = ipaddress.ip_address(b''.join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4)))
    return str(getattr(ip, 'ipv4_mapped', None) or ip), int(port, 16)
def greet(sock):
    sock.settimeout(2)
    try:
        sock.sendall(ZMTP)
        answer = sock.recv(10)
    except OSError as error:
        return 'no greeting: ' + type(error).__name__
    return 'ZMQ' if len(answer) == 10 and answer[0] == 0xff and answer[9] == 0x7f else 'not ZMQ'
found = {'tcp': {}, 'unix': [], 'subscribed': {}, 'oversized': {}}
for table in ('/proc/net/tcp', '/proc/net/tcp6'):
    for line in open(table).read().splitlines()[1:]:
        fields = line.split()
        if fields[3] != '0A':
            continue
        ip, port = address(fields[1])
        target = '127.0.0.1' if ip in ('0.0.0.0', '::') else ip
        seen = found['tcp'].setdefault(str(port), {})
        try:
            with socket.create_connection((target, port), timeout=2) as s:
                seen['greeting'] = greet(s)
        except OSError as error:
            seen['connect'] = type(error).__name__
        login = THEIRS.get(str(port))
        if login and seen.get('greeting') != 'ZMQ':
            try:
                with socket.create_connection((target, port), timeout=2) as s:
                    s.settimeout(5)
                    s.sendall(f'GET /user/{login}/api/kernels HTTP/1.0\r\nHost: x\r\n\r\n'.encode())
                    seen['http'] = s.recv(200).split(b'\r\n')[0].decode(errors='replace')
            except OSError as error:
                seen['http'] = type(error).__name__
        if login and seen.get('greeting') == 'ZMQ':
            import zmq
            sub = zmq.Context.instance().socket(zmq.SUB)
            sub.setsockopt(zmq.SUBSCRIBE, b'')
            sub.connect(f'tcp://{target}:{port}')
            heard, end = [], time.monotonic() + 3
            while time.monotonic() < end:
                if sub.poll(200):
                    heard.append(repr(sub.recv_multipart()[-1][:120]))
            found['subscribed'][str(port)] = heard
            try:
                with socket.create_connection((target, port), timeout=2) as s:
                    s.sendall(ZMTP + b'\x03\x00' + b'NULL'.ljust(20, b'\x00') + b'\x00' * 32)
                    s.sendall(b'\x02' + (2600 * 1024 ** 2).to_bytes(8, 'big') + b'\x00' * (1 << 20))
                found['oversized'][str(port)] = 'sent'
            except OSError as error:
                found['oversized'][str(port)] = type(error).__name__
for line in open('/proc/net/unix').read().splitlines()[1:]:
    fields = line.split()
    if len(fields) < 8 or fields[3] != '00010000':  # listening, with a name
        continue
    entry = {'inode': int(fields[6]), 'path': fields[7]}
    name = '\0' + fields[7][1:] if fields[7].startswith('@') else fields[7]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(2)
            s.connect(name)
            entry['peer uid, as she sees it'] = struct.unpack('3i', s.getsockopt(
                socket.SOL_SOCKET, socket.SO_PEERCRED, 12))[1]
            entry['greeting'] = greet(s)
    except OSError as error:
        entry['connect'] = type(error).__name__
    found['unix'].append(entry)
print('LISTENERS' + json.dumps(found))
"""


def listening_ports(uids):
    """{port: uid} of the TCP listeners of `uids`, as the machine sees them."""
    from classroom.processes import LISTEN, sockets
    return {port: uid for (_, port), _, _, uid, _ in sockets(states={LISTEN}) if uid in uids}


def test_no_student_process_reaches_a_classmates_or_the_instructors_kernel(classroom):
    """Bob runs a kernel holding his answer, the instructor one that printed `### BEGIN
    SOLUTION`. From Ana's kernel, every listener on the machine is tried (LISTENERS): none of
    Bob's or the instructor's speaks ZMQ (before, every kernel port, IOPub included, was a
    TCP listener on loopback that any SUB socket could read, and a 2.6 GB frame to a shell port
    got a classmate's kernel killed), what listens for each of them is their server alone,
    which answers her only the hub's refusal, and no socket file of theirs can she connect to."""
    bob, teacher, ana = hub_user(classroom, "en"), hub_user(classroom, "instructor"), hub_user(classroom, "es")
    for user, code in ((bob, "answer = 'bob-secret-answer'"), (teacher, "print('### BEGIN SOLUTION')")):
        user.start_server()
        assert user.run(user.start_kernel(), code)[1] is None
    theirs = {pwd.getpwnam(user.login).pw_uid: user.login for user in (bob, teacher)}
    before = listening_ports(theirs)
    ana.start_server()
    ports = {str(port): theirs[uid] for port, uid in before.items()}
    out, error = ana.run(ana.start_kernel(), f"THEIRS = {ports!r}\n" + LISTENERS, timeout=240)
    assert error is None, out
    found = json.loads(out.split("LISTENERS", 1)[1])
    after = listening_ports(theirs)
    print("Bob's and the instructor's listeners (the machine's view):",
          {port: theirs[uid] for port, uid in after.items()})
    print("what Ana found of theirs:", json.dumps({port: found["tcp"].get(str(port)) for port in after}))
    print("her IOPub subscriptions:", found["subscribed"], "| oversized frames:", found["oversized"])
    reached = [entry for entry in found["unix"] if "connect" not in entry]
    from classroom.processes import processes_holding
    holders = processes_holding({entry["inode"] for entry in reached})
    owners = {entry["path"]: pid_user(holders.get(entry["inode"])) for entry in reached}
    print(f"Unix sockets: {len(found['unix'])} listening, {len(reached)} she connected to, held by:",
          sorted(set(owners.values()), key=str))
    assert not [port for port in after if found["tcp"].get(str(port), {}).get("greeting") == "ZMQ"]
    assert not found["subscribed"] and not found["oversized"]
    # each of them listens once, with their server: it answers her with the hub's refusal
    assert sorted(theirs[uid] for uid in after.values()) == sorted(theirs.values()), after
    for port in after:
        assert found["tcp"][str(port)].get("http", "").split()[1:2] in (["403"], ["302"], ["401"]), found["tcp"][str(port)]
    assert not [path for path, owner in owners.items() if owner in theirs.values()], owners


def test_temporary_folders_are_each_servers_own_and_a_students_home_is_bounded(classroom):
    """Bob leaves files in /tmp, /var/tmp, /dev/shm and /run/lock: Ana finds none, and the
    machine's own folders hold none (they go with his server). Ana fills each of those and
    her home: each stops her at its size, "No space left on device" (before, 5 GB went into a
    home in 6 s, and a full /tmp took her server down); her server still answers and starts a
    kernel, and Bob still writes into his home."""
    bob, ana = hub_user(classroom, "en"), hub_user(classroom, "es")
    folders = ["/tmp", "/var/tmp", "/dev/shm", "/run/lock"]
    bob.start_server()
    bob_kernel = bob.start_kernel()
    out, error = bob.run(bob_kernel, f"for folder in {folders!r}:\n"
                                     "    open(folder + '/bob-was-here', 'w').write('his')\nprint('LEFT')")
    assert error is None and "LEFT" in out, out
    left_on_the_machine = [folder for folder in folders if os.path.exists(f"{folder}/bob-was-here")]
    ana.start_server()
    home = pwd.getpwnam(ana.login).pw_dir
    fill = (f"import errno, json, os, shutil\nseen = {{}}\nfor folder in {folders + [home]!r}:\n"
            "    seen[folder + ' (his file)'] = os.path.exists(folder + '/bob-was-here')\n"
            "    written = 0\n"
            "    try:\n"
            "        with open(folder + '/filler', 'wb') as handle:\n"
            f"            while written < {4 * HOME_MB} << 20:\n"
            "                handle.write(b'x' * (1 << 20)); handle.flush(); written += 1 << 20\n"
            "        seen[folder] = f'no limit: {written >> 20} MiB'\n"
            "    except OSError as error:\n"
            "        seen[folder] = f'{errno.errorcode[error.errno]} after {written >> 20} MiB'\n"
            "print('FILLED' + json.dumps(seen))\n")
    out, error = ana.run(ana.start_kernel(), fill, timeout=240)
    assert error is None, out
    seen = json.loads(out.split("FILLED", 1)[1])
    print("Bob's files left on the machine's own folders:", left_on_the_machine)
    print("Ana:", json.dumps(seen, indent=1))
    answers = ana.server_answers()
    out, error = ana.run(ana.start_kernel(), "print('STILL', 1 + 1)")
    print("her server answers:", answers, "| a new kernel:", out.strip(), error)
    ana.run(ana.start_kernel(), f"import os\nfor folder in {folders + [home]!r}:\n"
                                "    os.remove(folder + '/filler')\n")
    out_bob, error_bob = bob.run(bob_kernel, "import os\nopen(os.path.expanduser('~/his.txt'), 'w').write('x' * 100)\n"
                                             "os.remove(os.path.expanduser('~/his.txt'))\nprint('BOB WROTE')")
    assert not left_on_the_machine
    assert not [key for key, value in seen.items() if key.endswith("(his file)") and value]
    for folder in folders + [home]:
        assert seen[folder].startswith("ENOSPC"), (folder, seen[folder])
    assert int(seen[home].split()[-2]) <= HOME_MB
    assert answers and error is None and "STILL 2" in out
    assert error_bob is None and "BOB WROTE" in out_bob


def test_a_kernel_over_its_memory_is_stopped_and_the_server_answers(classroom):
    """Twice the memory limit, allocated and touched in Ana's kernel: the kernel is killed
    (the out-of-memory killer of her control group), her server still answers."""
    ana = hub_user(classroom, "es")
    ana.start_server()
    kernel = ana.start_kernel()
    out, error = ana.run(kernel, f"big = bytearray({2 * MEMORY_MB} * 1024 * 1024)\nprint('HELD', len(big))")
    print("twice the limit:", repr(out), error)
    assert "HELD" not in out and error in ("DEAD", "MemoryError")
    assert ana.server_answers()
    out, error = ana.run(ana.start_kernel(), "print('STILL', 1 + 1)")
    assert error is None and "STILL 2" in out


def test_the_hub_validate_is_the_course_and_the_student_cannot_turn_it_off(classroom, tmp_path):
    """Ana fetches theory03-es, deletes every graded test cell and turns nbgrader's Validate on
    in her own ~/.jupyter. In Chromium, the hub's Validate is the course's: lab 03, answered
    but for its 0-point bonus exercise, gets Success; theory 03 (opened from the file browser)
    gets the missing cells named (not nbgrader's "Success") and where the original cells are,
    a copy of the released notebook whose command, given in the dialog, works in her kernel."""
    ana = hub_user(classroom, "es")
    ana.start_server()
    kernel = ana.start_kernel()
    code = ("import subprocess, os, json, nbformat\nos.chdir(os.path.expanduser('~'))\n"
            "said = subprocess.run(['nbgrader', 'fetch_assignment', 'theory03-es'], capture_output=True, text=True)\n"
            "print(said.stdout[-300:], said.stderr[-300:])\n"
            "nb = nbformat.read('theory03-es/theory03.ipynb', as_version=4)\n"
            "nb.cells = [c for c in nb.cells if not (c.metadata.get('nbgrader', {}).get('grade') and "
            "not c.metadata['nbgrader'].get('solution'))]\n"
            "nbformat.write(nb, 'theory03-es/theory03.ipynb')\n"
            "os.makedirs('.jupyter', exist_ok=True)\n"
            "open('.jupyter/jupyter_server_config.json', 'w').write(json.dumps({'ServerApp': {'jpserver_extensions': "
            "{'nbgrader.server_extensions.validate_assignment': True, 'course.validate': False}}}))\n"
            "print('EDITED')\n")
    out, error = ana.run(kernel, code)
    assert error is None and "EDITED" in out, out
    answered_but_the_bonus(f"{BONUS_UNIT}-es", Path(pwd.getpwnam(ana.login).pw_dir), ana.login)
    ana.api("DELETE", f"hub/api/users/{ana.login}/server")  # a new server reads the settings again
    for _ in range(60):
        if not ana.server():
            break
        time.sleep(1)
    ana.start_server()
    with playwright.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--no-sandbox", "--disable-dev-shm-usage"])
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        # lab 03 first, alone (?reset: none of the notebooks an earlier test left open), so that
        # its Validate (torch and mypy in a new kernel) has her memory limit to itself
        page, _ = log_in(context, classroom["url"], classroom["people"]["es"], tmp_path, "es-validate",
                         then=f"/user/{ana.login}/lab/tree/{BONUS_UNIT}-es/{BONUS_UNIT}.ipynb?reset")
        notebook_shown(page)
        bonus_passed, bonus = validate(page)
        shoot(page, tmp_path, "es-validate-blank-bonus")
        close_dialog(page)
        page.click(".jp-BreadCrumbs-home")  # then theory 03, as she opens it: from the file browser
        try:
            for name in ("theory03-es", "theory03.ipynb"):  # an item reads "theory03-eshace 21 s"
                page.locator(".jp-DirListing-item").filter(has_text=re.compile("^" + re.escape(name))).dblclick()
            page.wait_for_selector(".lm-TabBar-tab.jp-mod-current:has-text('theory03.ipynb')", timeout=60_000)
        except playwright.Error:
            shoot(page, tmp_path, "es-file-browser-failed")
            raise AssertionError("theory 03 could not be opened from the file browser, which listed "
                                 f"{page.locator('.jp-DirListing-item').all_text_contents()}") from None
        notebook_shown(page)
        passed, missing = validate(page)
        shoot(page, tmp_path, "es-validate-missing")
        browser.close()
    print("Validate, every graded test cell deleted:", missing[:1500])
    print(f"Validate, {BONUS_UNIT} answered but for its bonus:", bonus[:300])
    said = " ".join(missing.split())  # the dialog's lines joined
    assert not passed and "falta esta celda calificada" in said and "Success" not in said
    assert "cópiala de ~/theory03-es-original.ipynb y pégala aquí" in said
    assert "El cuaderno publicado está fuera de tu carpeta personal" in said and "en un terminal" in said
    assert bonus_passed and "Success" in bonus, bonus
    # the command the dialog gives, run as she would in a terminal (her server's sandbox): the
    # copy holds every graded cell she deleted
    command = re.search(r"^ +(cp \S+ ~/[\w.-]+?-original\.ipynb)", missing, re.MULTILINE).group(1)
    out, error = ana.run(ana.start_kernel(), (
        "import subprocess, os, nbformat\nos.chdir(os.path.expanduser('~'))\n"
        f"done = subprocess.run(['bash', '-c', {command!r}], capture_output=True, text=True)\n"
        "copy = nbformat.read('theory03-es-original.ipynb', as_version=4)\n"
        "print('TESTS', done.returncode, done.stderr, sorted(c.metadata['nbgrader']['grade_id'] for c in copy.cells "
        "if c.metadata.get('nbgrader', {}).get('grade') and not c.metadata['nbgrader'].get('solution')))\n"))
    print("the dialog's command, in her kernel:", command, out)
    assert error is None and "TESTS 0 " in out, out
    named = set(re.findall(r"\((theory03-[a-z0-9-]+)\)", missing))
    assert named and all(repr(grade_id) in out for grade_id in named), (named, out)


def gradebook_time(course, assignment, student):
    """The submission time the gradebook holds (read-only: the instructor's file)."""
    import sqlite3
    with sqlite3.connect(f"file:{course / 'gradebook.db'}?mode=ro", uri=True) as db:
        row = db.execute("SELECT submitted_assignment.timestamp FROM submitted_assignment JOIN assignment "
                         "ON assignment.id = submitted_assignment.assignment_id "
                         "WHERE assignment.name = ? AND submitted_assignment.student_id = ?",
                         (assignment, student)).fetchone()
    return row and row[0]


def test_a_handed_in_submission_is_frozen_and_dated_by_the_hub(classroom):
    """Ana hands in theory03-es from her kernel; seconds later she rewrites the notebook in
    her inbound folder and its timestamp.txt (2026-01-01), adds a file and renames the folder:
    each is refused, the hub's hand-in service has made it root's (before, `collect --update`
    took the edited copy, and 2026-01-01 went into the gradebook). The instructor's `collect
    --update` and `autograde` take what she handed in, dated by the hand-in record (the
    machine's time of its last change) in timestamp.txt and in the gradebook. A 2 GiB folder
    she makes in inbound/ by hand is removed, and she finds why in her home, in Spanish."""
    ana = hub_user(classroom, "es")
    ana.start_server()
    teacher = classroom["people"]["instructor"]["login"]
    course = Path(pwd.getpwnam(teacher).pw_dir) / "autograd-by-hand"
    inbound = classroom["exchange"] / "autograd-by-hand-es" / "inbound"
    kernel = ana.start_kernel()
    started = datetime.now(UTC).replace(tzinfo=None)
    out, error = ana.run(kernel, (
        "import hashlib, os, re, subprocess\nos.chdir(os.path.expanduser('~'))\n"
        "if not os.path.exists('theory03-es'):\n"
        "    subprocess.run(['nbgrader', 'fetch_assignment', 'theory03-es'], capture_output=True)\n"
        "said = subprocess.run(['nbgrader', 'submit', 'theory03-es'], capture_output=True, text=True)\n"
        "folder = re.search(r'Destination: (.+)', said.stdout + said.stderr).group(1).strip()\n"
        "print('FOLDER', folder)\n"
        "print('HANDED', hashlib.sha256(open('theory03-es/theory03.ipynb', 'rb').read()).hexdigest())\n"))
    assert error is None and "FOLDER" in out, out
    folder = Path(re.search(r"FOLDER (.+)", out).group(1).strip())
    handed = re.search(r"HANDED (\w+)", out).group(1)
    deadline = time.monotonic() + 15
    while os.lstat(folder).st_uid != 0 and time.monotonic() < deadline:
        time.sleep(0.5)
    print(f"her submission's owner {time.monotonic() - deadline + 15:.1f} s after she handed it in:",
          pid_user_of_path(folder))
    attacks = {"rewrite the notebook": "open(folder + '/theory03.ipynb', 'w').write('{}')",
               "rewrite timestamp.txt": "open(folder + '/timestamp.txt', 'w').write('2026-01-01 00:00:00.000000 UTC')",
               "add a file": "open(folder + '/late.py', 'w').write('x')",
               "rename the folder": "os.rename(folder, folder.replace('+2026-', '+2025-'))"}
    code = f"import json, os\nfolder = {str(folder)!r}\nseen = {{}}\n"
    for what, attack in attacks.items():
        code += f"try:\n    {attack}\n    seen[{what!r}] = 'DONE'\nexcept OSError as e:\n    seen[{what!r}] = type(e).__name__\n"
    big = inbound / f"{ana.login}+theory03-es+2026-12-31 23:59:59.000000 UTC+big"
    code += (f"os.mkdir({str(big)!r})\nwith open({str(big / 'theory03.ipynb')!r}, 'wb') as handle:\n"
             "    handle.truncate(2 << 30)\nprint('ATTACKS' + json.dumps(seen))\n")
    out, error = ana.run(kernel, code)
    assert error is None, out
    seen = json.loads(out.split("ATTACKS", 1)[1])
    print("Ana, after handing in:", seen)
    deadline = time.monotonic() + 15
    while big.exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    note = Path(pwd.getpwnam(ana.login).pw_dir) / "theory03-es-not-handed-in.txt"
    print("the 2 GiB folder is", "still there" if big.exists() else "gone", "| her home:",
          note.read_text() if note.exists() else "no word of it")
    run_as(teacher, course, "nbgrader", "collect", "--update", "theory03-es", "--course=autograd-by-hand-es")
    taken = course / "submitted" / ana.login / "theory03-es"
    stamp = (taken / "timestamp.txt").read_text()
    run_as(teacher, course, "nbgrader", "autograde", "theory03-es", f"--student={ana.login}", "--force")
    recorded = gradebook_time(course, "theory03-es", ana.login)
    print("collected timestamp.txt:", stamp, "| the gradebook's time:", recorded)
    assert set(seen.values()) == {"PermissionError"}, seen
    assert hashlib.sha256((taken / "theory03.ipynb").read_bytes()).hexdigest() == handed
    assert started - timedelta(seconds=2) <= parse_utc(stamp) <= datetime.now(UTC).replace(tzinfo=None), stamp
    assert recorded and recorded.startswith(parse_utc(stamp).strftime("%Y-%m-%d %H:%M:%S")), recorded
    assert not big.exists() and "no está entregada" in note.read_text()
    note.unlink()


def pid_user_of_path(path):
    try:
        return pwd.getpwuid(os.lstat(path).st_uid).pw_name
    except (OSError, KeyError):
        return None


def notebook_shown(page):
    """Wait until the notebook in front has its cells and an idle kernel (Python 3 chosen if
    JupyterLab asks which kernel, as a student picks)."""
    page.wait_for_selector(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell", timeout=90_000)
    try:
        page.click(".jp-Dialog .jp-mod-accept", timeout=3_000)
    except playwright.Error:
        pass
    page.wait_for_selector(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook-ExecutionIndicator"
                           "[data-status=idle]", timeout=90_000)


def answered_but_the_bonus(assignment, home, login):
    """<home>/<assignment>/, the release notebook with every answer of source/ but the bonuses'
    (written as root, who reads the solutions; owned by `login`)."""
    import nbformat
    unit = assignment.rsplit("-", 1)[0]
    solved = nbformat.read(ROOT / "source" / assignment / f"{unit}.ipynb", 4)
    answers = {c.metadata["nbgrader"]["grade_id"]: c.source for c in solved.cells
               if c.metadata.get("nbgrader", {}).get("solution") and "bonus" not in c.metadata["nbgrader"]["grade_id"]}
    nb = nbformat.read(ROOT / "release" / assignment / f"{unit}.ipynb", 4)
    for cell in nb.cells:
        cell.source = answers.get(cell.metadata.get("nbgrader", {}).get("grade_id"), cell.source)
    folder = home / assignment
    folder.mkdir()
    nbformat.write(nb, folder / f"{unit}.ipynb")
    user = pwd.getpwnam(login)
    for path in (folder, folder / f"{unit}.ipynb"):
        os.chown(path, user.pw_uid, user.pw_gid)


def test_wrong_passwords_are_throttled_and_each_server_has_its_own_log(classroom):
    bob = classroom["people"]["en"]
    for _ in range(6):
        assert not HubUser(classroom["url"], bob["login"], "wrong").log_in()
    assert not HubUser(classroom["url"], bob["login"], bob["password"]).log_in()  # while it waits
    time.sleep(5)
    assert HubUser(classroom["url"], bob["login"], bob["password"]).log_in()
    assert "login throttled" in (classroom["state"] / "hub.log").read_text(errors="replace")
    hub_user(classroom, "en").start_server()
    log = classroom["state"] / "logs" / f"{bob['login']}.log"
    assert log.stat().st_size > 0 and log.stat().st_mode & 0o777 == 0o600 and log.stat().st_uid == 0
    assert "jupyterhub-singleuser" in log.read_text(errors="replace").lower() or \
        "Jupyter Server" in log.read_text(errors="replace")


# what Ana's kernel runs against Bob's login: TRIES wrong passwords from 127.0.0.2, half for
# Bob, half for made-up names, each with X-Real-Ip and X-Forwarded-For of a different made-up
# address
GUESSES = r"""
import random, requests
from requests.adapters import HTTPAdapter
class From(HTTPAdapter):
    def init_poolmanager(self, *args, **kwargs):
        kwargs['source_address'] = ('127.0.0.2', 0)
        super().init_poolmanager(*args, **kwargs)
for tries in range(TRIES):
    fake = '10.%d.%d.%d' % tuple(random.randrange(1, 255) for _ in range(3))
    headers = {'X-Real-Ip': fake, 'X-Forwarded-For': fake}
    session = requests.Session()
    session.mount('http://', From())
    session.get(URL + 'hub/login', headers=headers, timeout=60)
    session.post(URL + 'hub/login?next=', headers=headers, allow_redirects=False, timeout=60, data={
        'username': BOB if tries % 2 == 0 else 'nobody%d' % tries, 'password': 'guess',
        '_xsrf': session.cookies.get('_xsrf')})
print('TRIES', tries + 1)
"""


class FromAddress(requests.adapters.HTTPAdapter):
    """Connections from one loopback address: another machine, as the hub sees it."""

    def __init__(self, address):
        self.address = address
        super().__init__()

    def init_poolmanager(self, *args, **kwargs):
        kwargs["source_address"] = (self.address, 0)
        super().init_poolmanager(*args, **kwargs)


def test_guessing_a_classmates_password_locks_out_no_one_and_spoofed_addresses_are_not_believed(classroom):
    """Ana's kernel guesses Bob's password from 127.0.0.2 (GUESSES), every request claiming
    another address in X-Real-Ip and X-Forwarded-For, while Bob logs in from 127.0.0.3 every
    two seconds. Bob gets in each time (before, one wrong try every 0.2 s kept him out); the
    hub names only 127.0.0.2 (before, it believed X-Real-Ip, and 382 wrong logins were hashed
    in 25 s); and it hashes at most one address's free tries of hers before making her wait."""
    from classroom.auth import FREE_TRIES_PER_ADDRESS
    log = classroom["state"] / "hub.log"
    offset = log.stat().st_size
    bob, ana = classroom["people"]["en"], hub_user(classroom, "es")
    ana.start_server()
    kernel = ana.start_kernel()
    guessing, bob_in = threading.Event(), []

    def bob_logs_in():
        while guessing.is_set() or not bob_in:
            time.sleep(2)
            session = requests.Session()
            session.mount("http://", FromAddress("127.0.0.3"))
            session.get(classroom["url"] + "hub/login", timeout=60)
            done = session.post(classroom["url"] + "hub/login?next=", allow_redirects=False, timeout=60, data={
                "username": bob["login"], "password": bob["password"], "_xsrf": session.cookies.get("_xsrf")})
            bob_in.append(done.status_code == 302)

    guessing.set()
    logins = threading.Thread(target=bob_logs_in)
    logins.start()
    try:
        out, error = ana.run(kernel, f"URL, BOB, TRIES = {classroom['url']!r}, {bob['login']!r}, "
                                     f"{2 * FREE_TRIES_PER_ADDRESS + 20}\n" + GUESSES, timeout=300)
    finally:
        guessing.clear()
        logins.join()
    with open(log, encoding="utf-8", errors="replace") as stream:
        stream.seek(offset)
        logged = stream.read()
    lines = [line for line in logged.splitlines() if "from " in line and ("wrong password" in line or "throttled" in line)]
    named = {line.rsplit("from ", 1)[1].split()[0] for line in lines}
    hashed = sum("wrong password" in line and "from 127.0.0.2" in line for line in lines)
    tries = int(re.search(r"TRIES (\d+)", out).group(1)) if "TRIES" in out else 0
    print(f"Ana's guesses: {tries}, hashed {hashed}, refused unhashed {len(lines) - hashed}; addresses the hub "
          f"named: {sorted(named)}; Bob's logins from 127.0.0.3: {bob_in}")
    assert error is None, out
    assert bob_in and all(bob_in), bob_in
    assert named == {"127.0.0.2"} and "@10." not in logged and "(10." not in logged, named
    assert tries > 2 * FREE_TRIES_PER_ADDRESS and hashed <= FREE_TRIES_PER_ADDRESS + 8, (tries, hashed)


def test_the_service_unit_says_whether_systemd_runs(classroom):
    out = classroom_command(classroom, "service", "--state", str(classroom["state"]))
    unit = (classroom["state"] / f"classroom-{PREFIX}.service").read_text()
    assert f"ExecStart={classroom['python']} -m classroom start --state {classroom['state']}" in unit
    assert "KillMode=process" in unit
    assert ("systemctl enable" in out) == os.path.isdir("/run/systemd/system")
    print(out)


def test_an_idle_server_is_culled(classroom):
    """Carol's server, started with the class and left idle, is stopped by
    jupyterhub-idle-culler after CULL_AFTER seconds (the class's --cull-after)."""
    person = classroom["people"]["idle"]
    carol = HubUser(classroom["url"], person["login"], person["password"])
    assert carol.log_in()
    log = classroom["state"] / "hub.log"
    # ready, idle CULL_AFTER s (the hub learns of activity every CULL_AFTER / 10 s), then the
    # culler's next round (every CULL_AFTER / 10 s)
    deadline = classroom["idle_since"] + 240 + 2 * CULL_AFTER
    while not culled(log, carol.login) and time.monotonic() < deadline:
        time.sleep(5)
    assert culled(log, carol.login), (log.read_text(errors="replace")[-2000:])
    assert carol.server() is None
    print("culled:", [line for line in log.read_text(errors="replace").splitlines()
                      if "ull" in line and carol.login in line][-2:])


def culled(log, login):
    return re.search(rf"Culling server {login}|culling .*{login}", log.read_text(errors="replace"), re.IGNORECASE)


def server_pid(state, login):
    """The PID the hub recorded for `login`'s server (its database, read-only)."""
    import sqlite3
    with sqlite3.connect(f"file:{state / 'jupyterhub.sqlite'}?mode=ro", uri=True) as db:
        row = db.execute("SELECT spawners.state FROM spawners JOIN users ON users.id = spawners.user_id "
                         "WHERE users.name = ? AND spawners.name = ''", (login,)).fetchone()
    return json.loads(row[0])["pid"]


def process_with_pid(pid, command, login):
    """`command` run as `login` with the PID `pid` (as a reboot may hand it out): the kernel
    gives the next process the PID after /proc/sys/kernel/ns_last_pid (root only)."""
    user = pwd.getpwnam(login)
    for _ in range(1000):
        with open("/proc/sys/kernel/ns_last_pid", "w") as handle:
            handle.write(str(pid - 1))
        process = subprocess.Popen(command, user=user.pw_uid, group=user.pw_gid)
        if process.pid == pid:
            return process
        process.kill()
        process.wait()
    pytest.skip(f"no process could be given the PID {pid} (others took it meanwhile)")


def test_after_a_crash_no_process_that_reuses_a_servers_pid_is_signalled(classroom):
    """The machine goes down with Ana's server running (the hub SIGKILLed, her processes
    killed), and when it is back another process of hers has the PID the hub recorded for her
    server, as after a reboot. `start --state`: the hub takes her server for stopped and
    leaves that process alone (before, it found the PID alive, logged "does not appear to be
    running ..., shutting it down" and killed it, as root); she starts a new server."""
    from classroom.accounts import stop_processes
    state = classroom["state"]
    ana = hub_user(classroom, "es")
    ana.start_server()
    recorded = server_pid(state, ana.login)
    os.kill(hub_pid(classroom), signal.SIGKILL)
    stop_processes([ana.login], grace=0)
    decoy = process_with_pid(recorded, ["sleep", "600"], ana.login)
    try:
        print(classroom_command(classroom, "start", "--state", str(state)))
        ana = hub_user(classroom, "es")
        deadline = time.monotonic() + 60
        while ana.server() is not None and time.monotonic() < deadline:
            time.sleep(1)
        time.sleep(2)  # whatever the hub would do to the PID, it has done
        said = [line for line in (state / "hub.log").read_text(errors="replace").splitlines()[-400:]
                if ana.login in line and ("running" in line or "stopped" in line)]
        print(f"the decoy (pid {decoy.pid}, Ana's):", "alive" if decoy.poll() is None else "KILLED",
              "| the hub:", said[-2:])
        assert decoy.poll() is None and ana.server() is None
        assert ana.start_server()
    finally:
        decoy.kill()
        decoy.wait()


# what Ana's kernel leaves running while the hub is killed and started again: a thread per
# port (the class's address, the hub's own from her server's JUPYTERHUB_API_URL) that binds it
# the moment it is free, and answers and records whatever comes in as the hub would
GRAB = r"""
import json, os, socket, threading, time
from urllib.parse import urlparse
grabbed = {'bound': [], 'refused': {}, 'requests': []}
done = threading.Event()
def grab(port):
    while not done.is_set():
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            listener.bind(('127.0.0.1', port))
        except OSError as error:
            grabbed['refused'][str(port)] = error.strerror
            listener.close()
            time.sleep(0.02)
            continue
        listener.listen()
        grabbed['bound'].append(port)
        listener.settimeout(0.2)
        while not done.is_set():
            try:
                connection, _ = listener.accept()
            except socket.timeout:
                continue
            grabbed['requests'].append(connection.recv(65536).decode(errors='replace')[:300])
            connection.sendall(b'HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n{}')
            connection.close()
        listener.close()
for port in (PUBLIC, urlparse(os.environ['JUPYTERHUB_API_URL']).port):
    threading.Thread(target=grab, args=(port,), daemon=True).start()
"""


def test_stop_or_a_killed_hub_then_start_keeps_the_class(classroom):
    """SIGKILL to the hub (as a crash or the OOM killer does), with a thread of Ana's kernel
    waiting to take the class's port and the hub's (GRAB), then `start` as the guide says: the
    class is back, her thread never had either port (the proxy outlived the hub; the hub's
    port is below 1024), Bob's login reaches the hub, and Ana's kernel, with what she
    computed, is still there (before, her thread took the port, `start` said "classroom
    running again" on her page's answer, and a classmate's password went to her). Then `stop`:
    every server stopped and its control group gone, nobody removed. With a process of Ana's
    listening on the class's port, `start` refuses and names it; once it is gone, `start`:
    every file and the gradebook unchanged, logins work."""
    state = classroom["state"]
    port = int(classroom["url"].rsplit(":", 1)[1].strip("/"))
    ana = hub_user(classroom, "es")
    home = Path(pwd.getpwnam(ana.login).pw_dir)
    (home / "kept.txt").write_text("her work")
    teacher = Path(pwd.getpwnam(classroom["people"]["instructor"]["login"]).pw_dir)
    ana.start_server()
    kernel = ana.start_kernel()
    assert ana.run(kernel, f"x = 41\nPUBLIC = {port}\n" + GRAB)[1] is None
    os.kill(hub_pid(classroom), signal.SIGKILL)
    time.sleep(1)
    assert not hub_is_running(state)
    print(classroom_command(classroom, "start", "--state", str(state)))
    bob_in = HubUser(classroom["url"], classroom["people"]["en"]["login"],
                     classroom["people"]["en"]["password"]).log_in()
    ana = hub_user(classroom, "es")
    out, error = ana.run(kernel, "done.set()\nprint('SURVIVED', x + 1)\nprint('GRABBED' + json.dumps(grabbed))")
    grabbed = json.loads(out.split("GRABBED", 1)[1])
    print("Ana's thread, waiting for the ports:", json.dumps(grabbed), "| Bob logs in:", bob_in)
    assert error is None and "SURVIVED 42" in out
    assert not grabbed["bound"] and not grabbed["requests"] and bob_in
    from classroom.hub import leftover_services
    from classroom.state import ClassState
    class_state = ClassState.load(state)
    services = sorted(name for _, name in leftover_services(class_state))
    print("the hub's services after SIGKILL and start:", services)  # the killed hub's were stopped
    assert services == ["hand-in", "idle-culler"], services

    before = files_of(teacher, home)
    gradebook = (teacher / "autograd-by-hand/gradebook.db").read_bytes()
    print(classroom_command(classroom, "stop", "--state", str(state)))
    groups = [str(p) for p in Path("/sys/fs/cgroup").rglob(f"classroom-{PREFIX}-*")]
    print("the servers' control groups left after stop:", groups)
    assert not hub_is_running(state) and not leftover_services(class_state) and not groups
    assert all(accounts_exist(p["login"]) for p in classroom["people"].values())
    assert not [pid for pid in all_pids() if pid_user(pid) == ana.login]  # her server is stopped too
    from classroom.course import as_user
    listen = ("import socket, time\nlistener = socket.socket()\n"
              "listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
              f"listener.bind(('127.0.0.1', {port}))\nlistener.listen()\nprint('HELD', flush=True)\ntime.sleep(600)")
    holder = subprocess.Popen(["/usr/bin/python3", "-c", listen], stdout=subprocess.PIPE, text=True,
                              **as_user(ana.login))
    try:
        assert holder.stdout.readline().strip() == "HELD"
        refused = subprocess.run([classroom["python"], "-m", "classroom", "start", "--state", str(state)],
                                 capture_output=True, text=True, timeout=300, check=False, cwd="/")
        print("start with Ana's process on the class's port:", refused.returncode, refused.stderr.strip()[-400:])
        assert refused.returncode and f"held by {ana.login}" in refused.stderr and f"pid {holder.pid}" in refused.stderr
        assert not hub_is_running(state)
    finally:
        holder.kill()
        holder.wait()
    print(classroom_command(classroom, "start", "--state", str(state)))
    after = files_of(teacher, home)
    assert {k: v for k, v in after.items() if k in before} == before, set(before) - set(after)
    assert (teacher / "autograd-by-hand/gradebook.db").read_bytes() == gradebook
    assert (home / "kept.txt").read_text() == "her work"
    hub_user(classroom, "es").start_server()
    print(f"stop then start: {len(before)} files unchanged, the gradebook identical, Ana logs in")


def files_of(*homes):
    """Each file's size, but a running server's own (runtime/: its connection files, gone when it stops)."""
    return {str(p): p.stat().st_size for home in homes for p in home.rglob("*")
            if p.is_file() and "runtime" not in p.parts}


def hub_is_running(state):
    from classroom.hub import running_hub
    return running_hub(state) is not None


def all_pids():
    return [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()]


def pid_user(pid):
    try:
        return pwd.getpwuid(Path(f"/proc/{pid}").stat().st_uid).pw_name
    except (OSError, KeyError):
        return None


def guide_commands(guide, section, values):
    """The command lines of the first bash block of `section` in `guide`, with each placeholder
    of `values` put in: the operations guide, done to the letter."""
    text = (ROOT / guide).read_text(encoding="utf-8").split(f"## {section}\n", 1)[1]
    block = text.split("```bash\n", 1)[1].split("```", 1)[0]
    lines = []
    for line in block.splitlines():
        line = line.split("#", 1)[0].strip()
        for placeholder, value in values.items():
            line = line.replace(placeholder, value)
        if line:
            lines.append(line)
    return lines


def test_remove_then_the_guides_restore_brings_the_whole_class_back_from_its_archive(classroom):
    """`remove` (refused under another name first) writes the class's archive, then removes
    its users, their homes (their file systems unmounted), the files they left elsewhere on
    the machine (in /var/tmp and /dev/shm here: archived first), every control group, and
    gives the checkout its permissions back. Then the operations guide's restore, to the
    letter (docs/en/operations.md): the same people log in with the same passwords, Ana's work,
    her frozen submission and her files elsewhere are back, the gradebook is identical, and her
    nbgrader hands in to the class's own exchange (before, the restore named only the roster,
    --prefix and --state, and the students' configuration pointed at another exchange)."""
    from classroom.course import as_user
    state, people, python = classroom["state"], classroom["people"], str(classroom["python"])
    ana = people["es"]["login"]
    teacher = Path(pwd.getpwnam(people["instructor"]["login"]).pw_dir)
    (Path(pwd.getpwnam(ana).pw_dir) / "kept.txt").write_text("her work")
    elsewhere = {Path("/var/tmp") / f"{ana}-notes.txt": "notes", Path("/dev/shm") / f"{ana}-cache.txt": "cache"}
    for path, text in elsewhere.items():
        run(["/bin/sh", "-c", f"printf {text} > {path}"], **as_user(ana))
    gradebook = hashlib.sha256((teacher / "autograd-by-hand/gradebook.db").read_bytes()).hexdigest()
    handed = [p.name for p in (classroom["exchange"] / "autograd-by-hand-es" / "inbound").iterdir()]
    refused = subprocess.run([python, "-m", "classroom", "remove", "--state", str(state), "--confirm",
                              "not-the-name"], capture_output=True, text=True, check=False)
    assert refused.returncode and "not removed" in refused.stderr
    archive = classroom["shared"] / "backup.tar.gz"
    print(run([python, "-m", "classroom", "remove", "--state", str(state), "--confirm", PREFIX,
               "--backup", str(archive)], cwd="/"))
    with tarfile.open(archive) as opened:
        names = opened.getnames()
    left = {"users": [p["login"] for p in people.values() if accounts_exist(p["login"])],
            "files elsewhere": [str(path) for path in elsewhere if path.exists()],
            "control groups": [str(p) for p in Path("/sys/fs/cgroup").rglob(f"classroom-{PREFIX}-*")],
            "home file systems": [line for line in Path("/proc/mounts").read_text().splitlines() if f"/{PREFIX}-" in line]}
    print(f"the archive holds {len(names)} entries; left on the machine after remove:", left)
    assert not any(left.values()), left
    for kept in ("autograd-by-hand/gradebook.db", "autograd-by-hand/source", "kept.txt", "classroom.json",
                 *(str(path).lstrip("/") for path in elsewhere)):
        assert any(name.endswith(kept) or kept + "/" in name for name in names), kept
    assert classroom["checkout"].stat().st_mode & 0o005 == 0o005  # the checkout as it was before the class

    commands = guide_commands("docs/en/operations.md", "Restore", {
        "/backups/class-2026-01-15.tar.gz": str(archive), "STATE": str(state)})
    assert [line.split()[:4] for line in commands] == [["python", "-m", "classroom", "restore"],
                                                      ["python", "-m", "classroom", "start"]], commands
    for line in commands:
        print(run([python, *line.split()[1:]], cwd="/")[-400:])
    for person in people.values():  # the passwords of the archive, at the class's address of before
        assert HubUser(classroom["url"], person["login"], person["password"]).log_in(), person["login"]
    assert hashlib.sha256((teacher / "autograd-by-hand/gradebook.db").read_bytes()).hexdigest() == gradebook
    assert {path: path.read_text() for path in elsewhere} == elsewhere
    assert sorted(p.name for p in (classroom["exchange"] / "autograd-by-hand-es" / "inbound").iterdir()) == sorted(handed)
    # what Ana's server reads: her work, and her nbgrader's exchange (the students' environment's)
    from classroom.student_env import environment
    env = classroom["student_env"]
    listed = subprocess.run([str(env / "bin" / "nbgrader"), "list"], cwd=pwd.getpwnam(ana).pw_dir, capture_output=True,
                            text=True, timeout=120, check=False, **as_user(ana, {
                                **environment(env), "JUPYTER_CONFIG_DIR": str(env / "etc" / "jupyter"),
                                "CLASSROOM_COURSE_ID": "autograd-by-hand-es"}))
    said = listed.stdout + listed.stderr
    print("Ana's nbgrader, in the restored class:", " ".join(said.split())[-300:])
    assert (Path(pwd.getpwnam(ana).pw_dir) / "kept.txt").read_text() == "her work"
    assert "autograd-by-hand-es theory03-es" in said
