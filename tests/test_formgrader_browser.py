"""Stock nbgrader formgrader in Chromium, with a gradebook that holds hostile names.

A copy of the course, one assignment generated; the roster an instructor imports with
nbgrader's own command (`nbgrader db student import`) has markup in a name and is
refused, and so is formgrader's own Add student; then the same names (and ids) are put straight into the gradebook, as
a gradebook filled by any other means would hold them, each with a graded submission.
A real Jupyter server (loopback, free port, token, stopped by PID) serves formgrader,
which loads the course's nbgrader_config.py as it does for an instructor. Every page
that shows students, submissions, the gradebook, the formgrade page and the assignments
is opened, and addresses that carry markup themselves (a link a student could send):
no dialog fires, no request leaves for another host, no element of a name is built,
the names show as text, and clicking every link runs nothing.
"""
import os
import shutil
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from contextlib import contextmanager

import nbformat
import pytest
from conftest import Course, course_folder
from nbgrader.api import Gradebook, Student
from servers import free_port
from sqlalchemy import event

from grader.plugins.student_fields import CHECKS, unsafe_email, unsafe_name

CHROMIUM = "/usr/bin/chromium"
ASSIGNMENT, NOTEBOOK = "theory03-en", "theory03"
TOKEN = "course-formgrader-test"
# what a student (or an LMS export) could put in an id, a name, an email or a comment;
# each alert() says which field ran, and the image and the link name a foreign host
HOSTILE = {
    "id": "<img src=x onerror=alert('id')>",
    "first_name": "\"><script>alert('first_name')</script>",
    "last_name": "<img src=http://attacker.invalid/last_name.png onerror=alert('last_name')>",
    "email": "javascript:alert('email')//<a href=javascript:alert('email-link')>mail</a>",
    "comment": "</textarea><img src=x onerror=alert('comment')>",
}
# the grading page's template (nbconvert's classic) loads MathJax from this CDN by itself
MATHJAX = "https://cdnjs.cloudflare.com/ajax/libs/mathjax/"
# an id the course's rule accepts (no markup) that still looks like a link
LINKLIKE = "javascript:alert('linklike')"
# addresses whose own path is markup: the pages echo the path
REFLECTED = "<img src=x onerror=alert('address')>"
# a student's Markdown and a cell's outputs, as a notebook in autograded/ could hold them
MARKDOWN = ("![](http://attacker.invalid/markdown.png) [a link](javascript:alert('markdown-link')) "
            "[data](data:text/html,<script>alert('data')</script>) http://attacker.invalid/bare "
            "<img src=x onerror=alert('markdown-html')> $\\href{javascript:alert('latex')}{tex}$")
OUTPUTS = {"text/html": "<img src=http://attacker.invalid/output.png onerror=alert('output-html')>"
                        "<a href=\"javascript:alert('output-link')\">click</a>",
           "text/markdown": "[out](javascript:alert('output-markdown')) ![](http://attacker.invalid/out.png)",
           "text/plain": "shown"}


def roster_refused(course):
    """`nbgrader db student import` of a roster with markup in a name: refused, naming it."""
    roster = course.root / "roster.csv"
    roster.write_text("id,first_name,last_name,email\n"
                      "ana,Ana,Pérez,ana@example.org\n"
                      f"bob,Bob,\"{HOSTILE['last_name']}\",bob@example.org\n")
    course.grader.own(roster)
    done = course.nbgrader("db", "student", "import", "roster.csv", check=False)
    with Gradebook(f"sqlite:///{course.root / 'gradebook.db'}") as gb:
        return done, {s.id: (s.first_name, s.last_name, s.email) for s in gb.students}


@contextmanager
def unguarded():
    """nbgrader's own Student, as any other tool writing the gradebook has it: the course's
    guard is process-wide once a test has loaded the course's configuration in this process."""
    lifted = [(getattr(Student, field), check) for field, check in CHECKS.items()
              if event.contains(getattr(Student, field), "set", check)]
    for attribute, check in lifted:
        event.remove(attribute, "set", check)
    try:
        yield
    finally:
        for attribute, check in lifted:
            event.listen(attribute, "set", check, retval=True)


def hostile_notebook(solved):
    """The solved notebook with a student's Markdown cell and a cell whose outputs carry links,
    images and script (written straight into autograded/, not made inert by autograde)."""
    nb = nbformat.read(solved, as_version=4)
    nb.cells.append(nbformat.v4.new_markdown_cell(MARKDOWN))
    shown = nbformat.v4.new_code_cell("show()")
    shown.outputs = [nbformat.v4.new_output("display_data", data=OUTPUTS)]
    nb.cells.append(shown)
    return nb


def hostile_gradebook(course):
    """Students with hostile fields (straight into the gradebook, as nbgrader's API
    writes it), each with a graded submission of ASSIGNMENT and a hostile comment."""
    solved = course.root / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    students = {
        HOSTILE["id"]: {"first_name": HOSTILE["first_name"], "last_name": HOSTILE["last_name"],
                        "email": HOSTILE["email"]},
        LINKLIKE: {"first_name": HOSTILE["first_name"], "last_name": LINKLIKE, "email": HOSTILE["email"]},
    }
    with unguarded(), Gradebook(f"sqlite:///{course.root / 'gradebook.db'}", "autograd-by-hand") as gb:
        for student, fields in students.items():
            gb.update_or_create_student(student, **fields)
            gb.add_submission(ASSIGNMENT, student)
            notebook = gb.find_submission_notebook(NOTEBOOK, ASSIGNMENT, student)
            for comment in notebook.comments:
                comment.manual_comment = HOSTILE["comment"]
            for grade in notebook.grades:
                grade.auto_score = grade.max_score
            gb.db.commit()
            folder = course.root / "autograded" / student / ASSIGNMENT
            folder.mkdir(parents=True)
            nbformat.write(hostile_notebook(solved), folder / f"{NOTEBOOK}.ipynb")
        ids = {student: gb.find_submission_notebook(NOTEBOOK, ASSIGNMENT, student).id for student in students}
    course.grader.own(course.root)
    return ids


def start_formgrader(course, log):
    """A Jupyter server in the course folder (formgrader loads its nbgrader_config.py)."""
    port = free_port()
    with open(log, "w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "jupyter", "server", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
             f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={course.root}"],
            cwd=course.root, stdout=out, stderr=subprocess.STDOUT, **course.grader.options())
    base = f"http://127.0.0.1:{port}"
    for _ in range(240):
        try:
            urllib.request.urlopen(f"{base}/formgrader/api/status?token={TOKEN}", timeout=2)
            return server, base
        except OSError:
            if server.poll() is not None:
                raise AssertionError(f"the Jupyter server exited: {log.read_text()[-2000:]}")
            time.sleep(0.25)
    server.terminate()
    raise AssertionError(f"formgrader did not answer: {log.read_text()[-2000:]}")


@pytest.fixture(scope="module")
def formgrader(grader, tmp_path_factory):
    course = Course(course_folder(), grader)
    server = None
    try:
        assert course.nbgrader("generate_assignment", ASSIGNMENT, "--force").returncode == 0
        refused = roster_refused(course)
        submissions = hostile_gradebook(course)
        server, base = start_formgrader(course, tmp_path_factory.mktemp("formgrader") / "server.log")
        yield course, base, submissions, refused
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        shutil.rmtree(course.root, ignore_errors=True)


def test_names_and_emails_keep_what_people_are_called_and_nothing_else():
    for name in ("María José", "O'Brien", "Nguyễn Văn", "Anne-Marie", "van der Berg", "李"):
        assert unsafe_name(name) is None, name
    for name in ("<b>x</b>", 'a"b', "a&amp;b", "Lee\nforged", "x\u2028y", "a`b", "a\\b"):
        assert unsafe_name(name), name
    for email in ("ana@example.org", "zoe+x@uni.es", "o'brien@uni.ie", None, ""):
        assert unsafe_email(email) is None, email
    for email in ("javascript:alert(1)", "javascript:alert(1)@x.org", "a b@x.org", "<a>@x.org", "x", "a@b@c"):
        assert unsafe_email(email), email


def test_the_roster_import_refuses_markup_in_names_and_names_the_row(formgrader):
    _, _, _, (done, students) = formgrader
    said = done.stdout + done.stderr
    print("nbgrader db student import:", done.returncode, "|", said.strip().splitlines()[-1][:300])
    assert done.returncode != 0
    assert "student 'bob': last_name" in said and "markup" in said, said[-2000:]
    assert "Traceback" not in said  # one line says why
    assert "bob" not in students  # the refused row is not written
    assert all("<" not in (value or "") for fields in students.values() for value in fields)


# (index, href and text) of each link whose address or text comes from a name or an id
MADE_OF_NAMES = """els => els.map((e, i) => [i, (e.getAttribute('href') || '') + ' ' + e.textContent])
    .filter(([i, key]) => /alert|javascript|onerror|script/i.test(decodeURIComponent(key))
                          || els[i].closest('td.edit'))"""


def quoted(path):
    return urllib.parse.quote(path, safe="")


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Chromium is missing (apt-get install chromium)")
def test_formgrader_pages_show_hostile_names_as_text(formgrader):
    playwright = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    course, base, submissions, _ = formgrader
    hostile_id = quoted(HOSTILE["id"])
    pages = [
        "/formgrader/manage_assignments",
        f"/formgrader/manage_submissions/{ASSIGNMENT}",
        "/formgrader/gradebook",
        f"/formgrader/gradebook/{ASSIGNMENT}",
        f"/formgrader/gradebook/{ASSIGNMENT}/{NOTEBOOK}",
        "/formgrader/manage_students",
        *(f"/formgrader/manage_students/{quoted(s)}" for s in submissions),
        *(f"/formgrader/manage_students/{quoted(s)}/{ASSIGNMENT}" for s in submissions),
        *(f"/formgrader/submissions/{i}/" for i in submissions.values()),
        # addresses whose path is markup (a link in an email, a chat, a submission)
        f"/formgrader/manage_students/{quoted(REFLECTED)}",
        f"/formgrader/manage_students/{hostile_id}/{quoted(REFLECTED)}",
        f"/formgrader/manage_submissions/{quoted(REFLECTED)}",
        f"/formgrader/gradebook/{quoted(REFLECTED)}",
        f"/formgrader/gradebook/{ASSIGNMENT}/{quoted(REFLECTED)}",
    ]
    dialogs, foreign, template, built, shown, clicked, grading = [], [], [], {}, {}, [], {}
    with playwright.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--no-sandbox", "--disable-dev-shm-usage"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(base)
                   else ((template if route.request.url.startswith(MATHJAX) else foreign)
                         .append(route.request.url), route.abort()))
        page.on("dialog", lambda dialog: (dialogs.append(f"{page.url}: {dialog.message}"), dialog.dismiss()))
        page.goto(f"{base}/formgrader?token={TOKEN}")  # logs in (a cookie), as the Lab's frame does

        def settled():  # the page's requests to formgrader's API answered, its tables drawn
            page.wait_for_load_state("load")
            page.wait_for_function("() => !window.jQuery || jQuery.active === 0")

        def visit(path):
            page.goto(base + path)
            settled()
            for button in page.locator("#toggle_names").all():  # "Show All Names"
                button.click()

        for path in pages:
            visit(path)
            built[path] = page.locator("[onerror], [href^='javascript:'], script:not([src])").evaluate_all(
                "els => els.filter(e => e.tagName !== 'SCRIPT' || e.textContent.trim().startsWith('alert(')).length")
            shown[path] = page.locator("body").inner_text()
            if path.startswith("/formgrader/submissions/"):  # nbgrader's grading page, not an error
                grading[path] = (page.locator("input.score").count(), page.locator("textarea.comment")
                                 .evaluate_all("els => els.map(e => e.value)"))
                links = "#notebook-container a, .cell a, .output a"
                for index in range(page.locator(links).count()):  # the notebook's own links, each clicked
                    if page.locator(links).count() <= index:  # a click changed the page: load it again
                        visit(path)
                    page.locator(links).nth(index).evaluate("e => e.click()", timeout=5000)
                    clicked.append(f"{path} notebook link {index}")
                    page.wait_for_timeout(100)
                    if not page.url.startswith(base + path):
                        visit(path)
            # click each link made from a name or an id (and each student's edit button), once,
            # on the page as loaded: the ones made of anything else are the same on every page
            for index, key in page.locator("a").evaluate_all(MADE_OF_NAMES):
                if key in clicked:
                    continue
                clicked.append(key)
                visit(path)
                link = page.locator("a").nth(index)
                if link.is_visible():
                    link.click(timeout=5000)
                else:  # a name hidden behind "Show All Names": clicked as a script would
                    link.evaluate("e => e.click()")
                page.wait_for_timeout(100)
                settled()
                if page.locator(".modal.in").count():  # the edit dialog names the student
                    shown[f"{path} (dialog)"] = page.locator(".modal.in").inner_text()
        # the instructor adds a student in formgrader itself (Manage Students > Add new student...)
        visit("/formgrader/manage_students")
        page.click("text=Add new student...")
        page.fill("#add-student-modal input.id", "mallory")
        page.fill("#add-student-modal input.last-name", HOSTILE["last_name"])
        with page.expect_response(lambda answer: "/formgrader/api/student/mallory" in answer.url) as answer:
            page.click("#add-student-modal button.save")
        added = answer.value.status
        visit("/formgrader/manage_students")  # and formgrader goes on working
        after = page.locator("#main-table").inner_text()
        browser.close()
    with Gradebook(f"sqlite:///{course.root / 'gradebook.db'}") as gb:
        students = [s.id for s in gb.students]
    print(f"formgrader's Add student with markup in the last name: HTTP {added}, "
          f"in the gradebook: {'mallory' in students}")
    print(f"formgrader pages visited: {len(pages)}, links clicked: {len(clicked)}, dialogs: {len(dialogs)}, "
          f"requests to other hosts: {len(foreign)}, elements built from names: {sum(built.values())} "
          f"(and {len(template)} for MathJax, the grading page's own template asset, refused)")
    for path in pages:
        print("  visited", path, "| elements built from names:", built[path])
    for seen in sorted(set(dialogs)) + sorted(set(foreign)):
        print("  ran:", seen)
    for path, (scores, comments) in grading.items():
        print("  grading page", path, "| score boxes:", scores, "| comments shown as typed:",
              sum(c == HOSTILE["comment"] for c in comments), "of", len(comments))
        assert scores > 0 and comments and all(c == HOSTILE["comment"] for c in comments)
    assert dialogs == [], dialogs
    assert foreign == [], foreign
    assert added == 500 and "mallory" not in students and "Ana" in after
    assert all(count == 0 for count in built.values()), built
    text = "\n".join(shown.values())
    for field in ("id", "first_name", "last_name", "email"):  # shown as the text they are
        assert HOSTILE[field] in text, field
    assert LINKLIKE in text
    assert "attacker.invalid/bare" in text  # the notebook is there, as text
    assert not any(entity in text for entity in ("&lt;", "&#39;", "&#34;", "&amp;")), "escaped twice"
