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
import shutil
import subprocess
import tarfile
import tempfile
import time
import urllib.parse
from pathlib import Path
from shutil import which

import pytest
from support.browser import CHROMIUM, cells, close_dialog, run_all, type_into, validate
from support.checkout import checkout_copy
from support.hub_client import HubUser

from authoring.build import ROOT

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
MEMORY_MB = 1024  # each student's limit here (lab 01's kernel with torch fits; the attack takes twice)
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
SCORE = {"es": ("0.0", "12.0"), "en": ("3.0", "12.0")}
GRADIENTS_CELL = 10  # theory03's gradients() answer cell (tests/test_theory03.py keeps the layout)
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
    Python from the checkout, shared by every test; Carol's server started and left idle (the
    culling test's); removed at the end with `classroom remove` (its backup checked, users gone)."""
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
                   "--state", str(state), "--units", "theory03", "--memory-mb", str(MEMORY_MB),
                   "--cull-after", str(CULL_AFTER)], cwd=checkout.root)
    except BaseException:
        subprocess.run([python, "-m", "classroom", "remove", "--state", str(state), "--confirm", PREFIX],
                       check=False)
        shutil.rmtree(shared, ignore_errors=True)
        raise
    print(out)
    try:  # from here on, whatever fails, the class is removed below
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
               "student_env": shared / "student-env", "idle_since": time.monotonic(),
               "python": python, "checkout": checkout.root}
    finally:
        if "logins" not in locals():  # the set-up failed: remove the class, and let its error show
            subprocess.run([python, "-m", "classroom", "remove", "--state", str(state),
                            "--confirm", PREFIX], check=False)
            shutil.rmtree(shared, ignore_errors=True)
        else:
            refused = subprocess.run([python, "-m", "classroom", "remove", "--state", str(state),
                                      "--confirm", "not-the-name"], capture_output=True, text=True, check=False)
            assert refused.returncode and "not removed" in refused.stderr
            assert all(accounts_exist(p["login"]) for p in logins.values())
            homes = {key: pwd.getpwnam(p["login"]).pw_dir.lstrip("/") for key, p in logins.items()}
            (Path("/") / homes["es"] / "kept.txt").write_text("her work")
            backup = state / "backup.tar.gz"
            print(run([python, "-m", "classroom", "remove", "--state", str(state), "--confirm", PREFIX,
                       "--backup", str(backup)], cwd="/"))
            for person in logins.values():
                assert not accounts_exist(person["login"])
            with tarfile.open(backup) as archive:
                names = archive.getnames()
            teacher = homes["instructor"]
            for kept in (f"{teacher}/autograd-by-hand/gradebook.db", f"{teacher}/autograd-by-hand/source",
                         f"{homes['es']}/kept.txt"):
                assert any(name.startswith(kept) for name in names), kept
            print(f"the backup holds {len(names)} entries: the gradebook, the course folder, the students' work")
            assert checkout.root.stat().st_mode & 0o005 == 0o005  # the checkout as it was before the class
            shutil.rmtree(shared)


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


def log_in(context, url, person, shots, lang, then=None):
    """Log in through the hub's login page (then open `then`, a path on the hub, in the same
    page load); the page and the seconds until JupyterLab showed."""
    page = context.new_page()
    page.goto(url + "hub/login" + (f"?next={urllib.parse.quote(then)}" if then else ""))
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


def test_stop_or_a_killed_hub_then_start_keeps_the_class(classroom):
    """SIGKILL to the hub (as a crash or the OOM killer does), then `start`: the class is back
    and Ana's kernel, with what she computed, is still there (cleanup_servers is off). Then
    `stop` (hub, proxy and every server stopped, nobody removed) and `start`: every file and
    the gradebook unchanged, logins work."""
    state = classroom["state"]
    ana = hub_user(classroom, "es")
    home = Path(pwd.getpwnam(ana.login).pw_dir)
    (home / "kept.txt").write_text("her work")
    teacher = Path(pwd.getpwnam(classroom["people"]["instructor"]["login"]).pw_dir)
    ana.start_server()
    kernel = ana.start_kernel()
    assert ana.run(kernel, "x = 41")[1] is None
    os.kill(hub_pid(classroom), 9)
    time.sleep(1)
    assert not hub_is_running(state)
    print(classroom_command(classroom, "start", "--state", str(state)))
    ana = hub_user(classroom, "es")
    out, error = ana.run(kernel, "print('SURVIVED', x + 1)")
    assert error is None and "SURVIVED 42" in out
    from classroom.hub import leftover_culler
    class_state = json.loads((state / "classroom.json").read_text())
    cullers = leftover_culler(class_state)  # the killed hub's culler stopped: only the new hub's
    print("idle cullers after SIGKILL and start:", cullers)
    assert len(cullers) == 1, cullers

    before = files_of(teacher, home)
    gradebook = (teacher / "autograd-by-hand/gradebook.db").read_bytes()
    print(classroom_command(classroom, "stop", "--state", str(state)))
    assert not hub_is_running(state) and not leftover_culler(class_state)
    assert all(accounts_exist(p["login"]) for p in classroom["people"].values())
    assert not [pid for pid in all_pids() if pid_user(pid) == ana.login]  # her server is stopped too
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
