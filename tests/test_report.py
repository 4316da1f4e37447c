"""The cohort report adds up, and the LMS export fits, on a gradebook written by
nbgrader's own API (no kernels: cheap). Lab 01 in English has everything at once:
autograded cells, a manually graded answer (2 points: the maximum is 15 + 2 = 17)
and three bonus cells worth 0 points and 1 of extra credit each.

The cohort (one course copy for the module):
- ana: full marks and every bonus: 20 of 17;
- bea: full marks, no bonus;
- carl: fails linear_grads (and so the fp32 experiment) with a reason quoting his message (escaped newlines);
- dan and eva: the same linear_grads, differently spaced and commented;
- fay: submitted, never graded (no autograded notebook).
"""
import re
import shutil
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_output
from nbgrader.api import Gradebook
from support.course import Course, course_folder, fill

ASSIGNMENT = "lab01-en"
AUTO = {"lab01-paths": 2, "lab01-formulas": 2, "lab01-walk": 2, "lab01-fp32": 1, "lab01-fp16": 2,
        "lab01-pitfall-half": 1, "lab01-pitfall-twice": 1, "lab01-predict-fp32": 1, "lab01-predict-node": 1,
        "lab01-predict-fp16": 1, "lab01-predict-update": 1}
BONUS = ("lab01-bonus-twolayer", "lab01-bonus-softmax", "lab01-bonus-function")
COPIED = ("def linear_grads(x, W, b, target):\n    y = x @ W.T + b\n    g = 2 * (y - target)\n"
          "    return g @ W, g.T @ x, g.sum(0)\n")
COPIED_AGAIN = ("def linear_grads(x, W, b, target):  # mine\n    y = x @ W.T +   b\n"
                "    g = 2*(y - target)\n\n    return g @ W, g.T @ x, g.sum(0)\n")
CARL_REASON = "linear_grads returned AssertionError: 'shapes differ\\nexpected (4, 3)'"


def student_rows():
    """student -> (answers, {grade_id: score}, {bonus grade_id: extra credit}, manual)."""
    full = dict(AUTO)
    return {
        "ana": ({}, full, dict.fromkeys(BONUS, 1.0), 2.0),
        "bea": ({}, full, {}, 1.0),
        "carl": ({}, {**full, "lab01-formulas": 0, "lab01-fp32": 0}, {}, 0.0),  # 12 of 15
        "dan": ({"lab01-formulas-answer": COPIED}, full, {"lab01-bonus-softmax": 1.0}, 2.0),
        "eva": ({"lab01-formulas-answer": COPIED_AGAIN}, full, {}, 2.0),
    }


@pytest.fixture(scope="module")
def reported(grader):
    course = Course(course_folder(), grader, generated=(ASSIGNMENT, "lab01-es"))
    release = course.release(ASSIGNMENT)
    db = f"sqlite:///{course.root / 'gradebook.db'}"
    with Gradebook(db, "autograd-by-hand") as gb:
        for student, (answers, scores, extra, manual) in student_rows().items():
            nb = fill(nbformat.from_dict(release), answers)
            course.submit(student, ASSIGNMENT, nb)
            gb.update_or_create_student(student)
            gb.add_submission(ASSIGNMENT, student)
            for grade_id in [*AUTO, *BONUS]:
                grade = gb.find_grade(grade_id, "lab01", ASSIGNMENT, student)
                grade.auto_score = scores.get(grade_id, 0.0)
                grade.extra_credit = extra.get(grade_id, 0.0)
            gb.find_grade("lab01-reflection", "lab01", ASSIGNMENT, student).manual_score = manual
            gb.db.commit()
            for cell in nb.cells:  # the autograded copy: each graded cell's verdict
                grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
                if grade_id in AUTO or grade_id in BONUS:
                    passed = scores.get(grade_id, 0) == AUTO.get(grade_id) or extra.get(grade_id)
                    reason = CARL_REASON if student == "carl" and grade_id == "lab01-formulas" \
                        else "✔ passed" if passed else "✘ not the gradient"
                    cell.outputs = [new_output("stream", name="stdout", text=reason)]
            folder = course.root / "autograded" / student / ASSIGNMENT
            folder.mkdir(parents=True)
            nbformat.write(nb, folder / "lab01.ipynb")
    course.submit("fay", ASSIGNMENT, release)
    yield course
    shutil.rmtree(course.root, ignore_errors=True)


def test_the_report_adds_up(reported):
    from grader.reports.report import write_html
    page = write_html(reported.root, ASSIGNMENT, "en").read_text()
    print(page.split("<img")[0], page.split("<h2>", 3)[-1])
    # one maximum, auto + manual (15 + 2); extra credit apart, and past the maximum
    assert "5 of 6 submissions graded; mean score 16.6 of 17." in page  # (20+16+12+18+17)/5
    assert "2 students earned some" in page
    assert "<td>ana</td><td>20/17</td><td>+3</td>" in page
    assert "<td>fay</td><td>–</td><td></td><td>not graded" in page
    assert "logs/lab01-en/fay.log" in page
    # bonus cells: passed by who earned the credit, not "everyone" (0 points)
    row = page.split("<td>lab01-bonus-softmax</td>")[1].split("</tr>")[0]
    assert "0 (+1 extra)" in row and "2/5 (40%)" in row
    row = page.split("<td>lab01-bonus-twolayer</td>")[1].split("</tr>")[0]
    assert "1/5 (20%)" in row and "4 × <code>✘ not the gradient</code>" in row
    # reasons as text: the student's quoted message keeps its line break
    row = page.split("<td>lab01-formulas</td>")[1].split("</tr>")[0]
    assert "4/5 (80%)" in row and "shapes differ\nexpected (4, 3)" in row and "\\n" not in row
    # similarity: a hint naming dan and eva, stated as a hint
    hints = page.split("<h2>Similar answers</h2>")[1].split("<h2>")[0]
    print(hints)
    assert "Hints, not verdicts" in hints
    assert "<code>lab01-formulas-answer</code>: dan, eva (" in hints
    assert "bea" not in hints.split("lab01-formulas-answer</code>: dan")[1].split("</li>")[0]


def test_the_distribution_shows_every_student(reported):
    from grader.reports.report import cohort, histogram_bins
    _, rows = cohort(reported.root, ASSIGNMENT)
    scores = [r["score"] for r in rows if not r["note"]]
    bins = histogram_bins(scores, rows[0]["max_score"])
    assert max(scores) == 20 and rows[0]["max_score"] == 17
    assert all(bins[0] < s < bins[-1] for s in scores)  # none falls off the plot


def test_similarity_is_a_hint_on_the_code_not_its_spacing():
    from grader.reports.similarity import groups
    stub = "def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()\n"
    found = groups({"ana": COPIED, "bea": COPIED_AGAIN, "carl": stub, "dan": "return 1",
                    "eva": COPIED.replace("g.sum(0)", "g.sum(axis=0)")}, stub)
    print(found)
    assert found[0] == (["ana", "bea", "eva"], pytest.approx(found[0][1]))
    assert 0.9 <= found[0][1] < 1  # eva's is nearly, not exactly, the same
    assert groups({"ana": COPIED, "bea": COPIED_AGAIN}) == [(["ana", "bea"], 1.0)]


# ---- the LMS export: one grade per student per unit ----

def test_the_export_gives_one_grade_per_student_per_unit(reported):
    """lab01 in both languages: a student who took Spanish gets one lab01 grade, not a
    0 in the English column; the later of two languages counts; extra credit is capped
    at the maximum (and noted); manual grades count; a late submission loses 10% of its
    score per started day (nbgrader's own late plugin mechanism, grader/plugins/late.py)."""
    import csv
    import subprocess
    import sys
    from datetime import datetime, timedelta
    root = reported.root
    due = datetime(2026, 10, 16, 21, 59)
    release = reported.release("lab01-es")
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", "autograd-by-hand") as gb:
        gb.update_or_create_assignment("lab01-es", duedate=due)
        gb.update_or_create_assignment("lab01-en", duedate=due)
        for student, assignment, late, auto, manual in (
                ("gus", "lab01-es", timedelta(days=1, hours=12), 9, 1.0),   # 10, 2 days late
                ("hal", "lab01-en", timedelta(hours=-5), 5, 0.0),           # first, in English
                ("hal", "lab01-es", timedelta(hours=-1), 7, 2.0)):          # then in Spanish: 9
            gb.update_or_create_student(student, first_name=student.title(), last_name="Ruiz")
            gb.add_submission(assignment, student, timestamp=due + late)
            grades = dict.fromkeys(AUTO, 0.0)
            grades["lab01-formulas"] = min(auto, 3)
            grades["lab01-walk"] = min(auto - grades["lab01-formulas"], 2)
            grades["lab01-fp32"] = auto - grades["lab01-formulas"] - grades["lab01-walk"]
            for grade_id, score in grades.items():
                gb.find_grade(grade_id, "lab01", assignment, student).auto_score = score
            gb.find_grade("lab01-reflection", "lab01", assignment, student).manual_score = manual
            gb.db.commit()
            reported.submit(student, assignment, release)
            (root / "autograded" / student / assignment).mkdir(parents=True, exist_ok=True)
    for lms in ("moodle", "canvas"):
        run = subprocess.run([sys.executable, "-m", "grader", "export", f"--lms={lms}"], cwd=root,
                             capture_output=True, text=True, check=False, **reported.grader.options())
        print(run.stdout, run.stderr)
        assert run.returncode == 0, run.stderr[-2000:]
        assert "NOT EXPORTED fay (lab01): lab01-en handed in but not graded" in run.stderr
    with open(root / "exports" / "moodle.csv", encoding="utf-8") as stream:
        moodle = list(csv.DictReader(stream))
    got = {row["User ID"]: row["lab01"] for row in moodle}
    assert got == {"ana": "17", "bea": "16", "carl": "12", "dan": "17", "eva": "17",
                   "gus": "8", "hal": "9"}
    # Moodle: the columns its own export names (the sample), and a single lab01 column
    sample = (Path(__file__).parent / "lms" / "moodle-grades-export.csv").read_text().splitlines()[0]
    assert {"First name", "Last name", "Email address"} <= set(next(csv.reader([sample])))
    assert [c for c in moodle[0] if c.startswith("lab01")] == ["lab01"]
    with open(root / "exports" / "canvas.csv", encoding="utf-8") as stream:
        canvas = list(csv.reader(stream))
    sample = list(csv.reader((Path(__file__).parent / "lms" / "canvas-gradebook-export.csv").open()))
    assert canvas[0][:5] == sample[0][:5]  # Student, ID, SIS User ID, SIS Login ID, Section
    assert canvas[1][0] == sample[1][0] and canvas[1][5] == "17"  # Points Possible
    assert ["Ruiz, Gus", "gus", "", "", "", "8"] in canvas
    notes = (root / "exports" / "canvas-notes.csv").read_text()
    assert "capped at the maximum: 3 point(s) of extra credit left out" in notes
    # --uncapped: Canvas takes scores above the maximum
    subprocess.run([sys.executable, "-m", "grader", "export", "--lms=canvas", "--uncapped"],
                   cwd=root, capture_output=True, check=True, **reported.grader.options())
    assert ["ana", "ana", "", "", "", "20"] in list(csv.reader((root / "exports" / "canvas.csv").open()))


@pytest.mark.parametrize("lang", ["es", "en"])
def test_feedback_chrome_is_in_the_students_language(reported, lang):
    """nbgrader's feedback page: its headings and links in the notebook's language."""
    page = feedback_page(reported, f"feedback-{lang}", f"lab01-{lang}", {"lab01-formulas": 3}).read_text()
    heading = page.split("<h4>")[1].split("</h4>")[0]
    print(heading)
    if lang == "es":
        assert "(Puntuación: 3.0 / 17.0)" in heading and 'lang="es"' in page
        assert ">Celda de test</a>" in page and "(Arriba)" in page
        assert "Score" not in page.split("<body>")[1].split('id="notebook"')[0]
    else:
        assert "(Score: 3.0 / 17.0)" in heading and ">Test cell</a>" in page


def feedback_page(reported, student, assignment, scores, autograded=None):
    """`nbgrader generate_feedback` for `student`, whose release notebook was graded with `scores`
    ({grade_id: automatic score}), the autograded notebook being `autograded` (default: the release
    as handed in); the page's path."""
    with Gradebook(f"sqlite:///{reported.root / 'gradebook.db'}", "autograd-by-hand") as gb:
        gb.update_or_create_student(student)
        gb.add_submission(assignment, student)
        for grade_id, score in scores.items():
            gb.find_grade(grade_id, "lab01", assignment, student).auto_score = score
        gb.db.commit()
    nb = reported.release(assignment)
    reported.submit(student, assignment, nb)
    folder = reported.root / "autograded" / student / assignment
    folder.mkdir(parents=True)
    nbformat.write(nb if autograded is None else autograded, folder / "lab01.ipynb")
    reported.grader.own(reported.root / "autograded")
    done = reported.nbgrader("generate_feedback", assignment, f"--student={student}", check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return reported.root / "feedback" / student / assignment / "lab01.html"


def test_the_late_penalty_is_a_share_per_started_day():
    from authoring.build import ROOT
    from grader.config import load_config
    from grader.plugins.late import penalty
    config = load_config(ROOT, [])  # the course's configuration names the plugin
    hour = 3600
    assert penalty(config, "ana", 10, 0) == 0
    assert penalty(config, "ana", 10, 1) == pytest.approx(1.0)  # a second late: day 1
    assert penalty(config, "ana", 10, 36 * hour) == pytest.approx(2.0)
    assert penalty(config, "ana", 10, 30 * 24 * hour) == pytest.approx(10.0)  # never below 0
    config.PercentPerDay.grace_minutes = 15
    assert penalty(config, "ana", 10, 10 * 60) == 0


def test_a_canvas_late_flag_costs_the_first_days_penalty(tmp_path, monkeypatch):
    """Canvas's LATE_ has no time: the submission is stamped a second after the due
    date, which nbgrader reads back (its own timestamp parser) as late by one day."""
    from datetime import datetime

    from nbgrader.utils import parse_utc

    from authoring.build import ROOT
    from grader.cohort.forking import environment
    from grader.config import load_config
    from grader.plugins.late import penalty, stamp_late
    monkeypatch.setenv("PATH", environment()["PATH"])  # a new gradebook runs nbgrader's alembic
    due = datetime(2026, 10, 16, 21, 59)
    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}") as gb:
        gb.update_or_create_assignment("lab01-es", duedate=due)
    for student in ("12345", "67890"):
        (tmp_path / "submitted" / student / "lab01-es").mkdir(parents=True)
    assert stamp_late(tmp_path, "lab01-es", ["12345", "nobody"]) == ["12345"]
    stamp = (tmp_path / "submitted" / "12345" / "lab01-es" / "timestamp.txt").read_text()
    late = (parse_utc(stamp) - parse_utc(due)).total_seconds()
    print(stamp, late)
    assert late == 1 and not (tmp_path / "submitted" / "67890" / "lab01-es" / "timestamp.txt").exists()
    assert penalty(load_config(ROOT, []), "12345", 10, late) == pytest.approx(1.0)


def test_a_canvas_export_with_a_reupload_and_a_late_flag(reported):
    """The LMS round trip's way in: a Canvas export (a re-upload, `-1`, flagged LATE_,
    beside the first upload) filed by `nbgrader zip_collect` with the course's collector
    (grader/plugins/lms_collect.py), then `python -m grader late-flags`: the re-upload is the
    one filed, and it is stamped late, so nbgrader charges the first day's penalty."""
    import subprocess
    import sys
    import zipfile
    from datetime import datetime

    from nbgrader.utils import parse_utc
    root, assignment = reported.root, "lab01-es"
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", "autograd-by-hand") as gb:
        gb.update_or_create_assignment(assignment, duedate=datetime(2026, 10, 16, 21, 59))
    first, again = fill(reported.release(assignment), {}), fill(reported.release(assignment), {
        "lab01-formulas-answer": COPIED})
    archive = root / "downloaded" / assignment / "archive"
    archive.mkdir(parents=True)
    with zipfile.ZipFile(archive / "submissions.zip", "w") as zipped:
        zipped.writestr(f"perezana_24680_1001_{assignment}.ipynb", nbformat.writes(first))
        zipped.writestr(f"perezana_LATE_24680_1002_{assignment}-1.ipynb", nbformat.writes(again))
    reported.grader.own(root / "downloaded")
    done = reported.nbgrader("zip_collect", assignment, "--force", check=False)
    print(done.stdout, done.stderr[-2000:])
    assert done.returncode == 0, done.stderr[-2000:]
    filed = root / "submitted" / "24680" / assignment / "lab01.ipynb"
    assert "y = x @ W.T + b" in filed.read_text()  # the re-upload, not the first file
    run = subprocess.run([sys.executable, "-m", "grader", "late-flags", assignment], cwd=root,
                         capture_output=True, text=True, check=False, **reported.grader.options())
    print(run.stdout, run.stderr)
    assert run.returncode == 0 and "1 submission(s) of lab01-es stamped late: 24680" in run.stdout
    stamp = (filed.parent / "timestamp.txt").read_text()
    assert (parse_utc(stamp) - parse_utc(datetime(2026, 10, 16, 21, 59))).total_seconds() == 1


def test_feedback_renders_its_math_offline(reported):
    """A feedback page carries its own MathJax: opened from disk in Chromium with the network
    off, its equations are typeset (no raw `$$`), and it asks for nothing but itself."""
    import os
    playwright = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    from support.browser import CHROMIUM
    if not os.path.exists(CHROMIUM):
        pytest.skip("Chromium is missing (apt-get install chromium)")
    page_path = feedback_page(reported, "offline-reader", "lab01-es", {})
    html = page_path.read_text()
    loads = re.findall(r"""(?:\bsrc=|<link[^>]*\bhref=)["']?(?:https?:)?//[^"' >]*""", html)
    assert loads == [], loads  # nothing the page fetches: no script, style or font from elsewhere (links are links)
    with playwright.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--no-sandbox", "--disable-dev-shm-usage"])
        context = browser.new_context(offline=True)
        asked = []
        context.on("request", lambda request: asked.append(request.url))
        page = context.new_page()
        page.goto(page_path.as_uri())
        page.wait_for_selector("mjx-container svg", timeout=60_000)
        # no TeX left in the rendered Markdown (code cells may quote `$$` as text)
        page.wait_for_function("() => ![...document.querySelectorAll('.text_cell_render')]"
                               ".some(e => /\\$\\$|\\\\frac|\\\\partial/.test(e.innerText))", timeout=60_000)
        typeset = page.locator("mjx-container").count()
        browser.close()
    print(f"{page_path.stat().st_size} bytes; {typeset} equations typeset offline; requests: {asked}")
    assert typeset > 20
    assert asked == [page_path.as_uri()]


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_report_and_a_feedback_page_pass_axe(reported, lang):
    """axe-core at WCAG 2.1 A and AA, in Chromium, on the instructor's report and on a student's
    feedback page in each language: no violation. The feedback page is of lab 01 graded with its
    figure drawn; the figure keeps its words, in the student's language, as its image's alt."""
    import html
    import os

    from playwright.sync_api import sync_playwright
    from support.axe import AXE_MISSING, audit, axe_script, report
    from support.browser import CHROMIUM

    from grader.plugins.inert import MakeInert
    from grader.reports.report import write_html
    if not os.path.exists(CHROMIUM):
        pytest.skip("Chromium is missing (apt-get install chromium)")
    if not axe_script():
        pytest.skip(AXE_MISSING)
    assignment = f"lab01-{lang}"
    pages = {"report": write_html(reported.root, ASSIGNMENT, lang)}
    graded = nbformat.read(reported.root / "source" / assignment / "lab01.ipynb", 4)  # executed: its figure drawn
    for index, cell in enumerate(graded.cells):
        MakeInert().preprocess_cell(cell, {}, index)  # as grading leaves the outputs
    pages["feedback"] = feedback_page(reported, f"a11y-{lang}", assignment, {"lab01-formulas": 3}, graded)
    found, alts = {}, []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--no-sandbox", "--disable-dev-shm-usage"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.route("http*://**", lambda route: route.abort())  # nothing fetched: the pages stand alone
        for name, path in pages.items():
            page.goto(path.as_uri())
            if name == "feedback":  # its formulas typeset first, by the MathJax the page carries
                page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise",
                                       timeout=60_000)
                page.evaluate("() => MathJax.startup.promise")
            found[name] = audit(page)
            assert page.evaluate("() => document.documentElement.lang") == lang
            alts += page.locator("img").evaluate_all("els => els.map(e => e.getAttribute('alt'))")
        browser.close()
    print({name: {v["id"]: len(v["nodes"]) for v in violations} for name, violations in found.items()}, alts)
    assert not any(found.values()), "\n".join(line for name, violations in found.items()
                                              for line in report(name, violations))
    axis = {"en": "Horizontal axis", "es": "Eje horizontal"}[lang]
    assert len(alts) >= 2 and all(alts) and any(axis in alt for alt in alts)
    # the report's histogram in words, from the scores it plots (ana's 20 of 17 among them)
    words = {"en": ("graded students' scores (the maximum is 17): ", "1 student at 20"),
             "es": ("estudiantes calificados (el máximo es 17): ", "1 estudiante con 20")}[lang]
    if lang == "es":  # every label of the feedback page in the page's language (WCAG 3.1.2)
        feedback = pages["feedback"].read_text()
        assert "Respuesta del estudiante" in feedback and "Student's answer" not in feedback
        assert "Grade cell" not in feedback and "Celda calificada" in feedback
    shown = html.unescape(pages["report"].read_text())
    assert all(part in shown for part in words), shown.split("<figure>")[1][:600]
