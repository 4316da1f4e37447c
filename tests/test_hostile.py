"""The hostile corpus, graded by an ordinary user (see tests/support/course.py) in one run
of the course's parallel command, `python -m grader grade --workers 2` (stock
`nbgrader autograde --student` per submission, two at a time, each kernel in a
cgroup of its own): the expectations were established by serial stock
`nbgrader autograde`, so the run also proves that grading hostile work in
parallel gives exactly the scores and reasons serial grading gives. Stock
nbgrader's own terminal output is checked on one serial run of the case that
prints control characters (the parallel command keeps its processes' logs off
the terminal).

Every case gets its expected score and a reason; each attack shows in its own
output that it found nothing; honest work graded in the same run is
unaffected; the course files and the gradebook are intact; nothing is left
behind on the host.
"""
import json
import os
import shutil
import subprocess
import sys

import pytest
from support.corpus import (
    ASSIGNMENT,
    CASES,
    CELL_SECONDS,
    COLD_KERNELS,
    LIMITS,
    NOTEBOOK_SECONDS,
    TOKEN,
    GradedCorpus,
    Listener,
    corpus_course,
    digest,
    leftovers,
    outcomes,
)
from support.course import Course, course_folder, graded_cells, verdict_text
from support.hostile import (
    HostGrowth,
    assert_every_submission_graded,
    assert_private_fill_found_nothing,
    printed,
)

from grader.reports.report import cohort
from grader.sandbox.kernel import sandbox_available

pytestmark = pytest.mark.skipif(
    not sandbox_available(),
    reason="bubblewrap is not installed (apt-get install bubblewrap): the hostile corpus "
           "runs only sandboxed")


@pytest.fixture(scope="module")
def graded(grader):
    free = shutil.disk_usage("/tmp").free
    memory = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    assert free > 4 * 1024 ** 3 and memory > 4 * 1024 ** 3, "the memory/disk cases need 4 GiB free"
    listener = Listener()
    left_before = leftovers()
    course = corpus_course(grader, listener, CASES)
    before = digest(course.root / "source"), digest(course.root / "release")
    with HostGrowth(TOKEN) as growth:
        result = course.grade(ASSIGNMENT, *LIMITS, workers=2)
    left = leftovers() - left_before
    listener.running = False
    report = course.nbgrader("export", "--to", str(course.root / "grades.csv"), check=False)
    yield GradedCorpus(course=course, result=result, before=before, listener=listener,
                       report=cohort(course.root, ASSIGNMENT), export=report, left=left, growth=growth)
    shutil.rmtree(course.root, ignore_errors=True)


def outputs(course, name):
    return printed(course, ASSIGNMENT, name)


def test_every_case_was_graded_two_at_a_time(graded):
    assert_every_submission_graded(graded.course, graded.result, ASSIGNMENT, CASES)


@pytest.mark.parametrize("name", CASES)
def test_case_gets_its_score_and_a_reason(graded, name):
    result, (ids, rows) = graded.result, graded.report
    score, reasons = CASES[name].score, CASES[name].reasons
    row = next(r for r in rows if r["student"] == name)
    assert row["score"] == score, (row, result.stderr[-2000:])
    assert row["max_score"] == 14
    for grade_id in ids:  # every graded cell has a reason, passed or not
        assert row[f"{grade_id} reason"], (grade_id, row)
    for grade_id, text in reasons.items():
        assert text in row[f"{grade_id} reason"], row[f"{grade_id} reason"]
    assert row["defences"].startswith("bubblewrap")


BROKEN_CELLS = {  # case: what the cell that broke says
    "loop_ignoring_interrupts": f"still running after {CELL_SECONDS} s",
    "endless_loop": "KeyboardInterrupt",
    "dying_kernel": "kernel died while running this cell",
    "memory_bomb": "MemoryError",
    "output_flood": "output cut off",
    "network": "no network",
    "fork_bomb": "fork refused after",
    "deep_message": "message the grader cannot read (RecursionError)",
    "bad_signature": "message the grader cannot read (ValueError)",
}


@pytest.mark.parametrize("name", BROKEN_CELLS)
def test_reason_of_the_cell_that_broke(graded, name):
    text = outputs(graded.course, name)
    assert BROKEN_CELLS[name] in text, text[-1500:]  # on failure: what the cell did say


# the cases where grading two at a time could change a verdict: limits met beside a
# neighbour (processes; memory in the heap and outside it, counted by the kernel's cgroup)
# and a kernel that dies and is replayed; with honest work (each costs seconds on 2 cores)
SHARED_LIMITS = ("honest", "fork_bomb", "memory_bomb", "memfd_hold", "dying_kernel")
# the case whose reason carries escape sequences, for stock nbgrader's own terminal output
ESCAPES = "=HYPERLINK(1)"


# of those, the ones theory03's small cohort holds too (tests/support/cohort.py: the same
# notebooks, graded serially by stock nbgrader once per session): case -> its student there
IN_SERIAL_THEORY03 = {"honest": "a-honest", "fork_bomb": "a-fork-bomb"}


@pytest.fixture(scope="module")
def serially(grader):
    """The other SHARED_LIMITS cases and ESCAPES graded again, in a course copy of their own,
    one after another by stock `nbgrader autograde`, kernels started cold (one run for the two
    tests below): the
    copy and the command's result."""
    listener = Listener()
    again = [name for name in SHARED_LIMITS if name not in IN_SERIAL_THEORY03]
    course = corpus_course(grader, listener, (*again, ESCAPES))
    try:
        yield course, course.nbgrader("autograde", ASSIGNMENT, *LIMITS, COLD_KERNELS, check=False)
    finally:
        listener.running = False
        shutil.rmtree(course.root, ignore_errors=True)


def test_parallel_gives_the_scores_and_reasons_serial_grading_gives(graded, serially, serial_theory03):
    """Those cases graded again, one after another by stock `nbgrader autograde`, get
    exactly what the parallel run gave them (numbers blanked: each run draws its own)."""
    course, done = serially
    assert done.returncode == 0, done.stderr[-3000:]
    serial = outcomes(cohort(course.root, ASSIGNMENT)[1])
    theory03 = outcomes(cohort(serial_theory03.root, ASSIGNMENT)[1])
    serial.update({name: theory03[student] for name, student in IN_SERIAL_THEORY03.items()})
    parallel = outcomes(graded.report[1])
    for name in SHARED_LIMITS:
        print(name, serial[name][0], parallel[name][0])
        assert parallel[name] == serial[name], name


def test_missing_graded_cells_are_named(graded):
    top = graded.course.autograded(ASSIGNMENT, "deleted_test_cell").cells[0].source
    assert "Graded cells missing" in top and "theory03-walk" in top, top


def test_honest_work_in_the_same_run_is_unaffected(graded):
    course = graded.course
    for cell in graded_cells(course.autograded(ASSIGNMENT, "honest")).values():
        assert verdict_text(cell).startswith("✔")


def test_course_files_and_gradebook_are_intact(graded):
    course, before, listener, export = graded.course, graded.before, graded.listener, graded.export
    assert (digest(course.root / "source"), digest(course.root / "release")) == before
    assert (course.root / "canary.txt").read_text() == "instructor's file"
    assert export.returncode == 0
    assert "owned" not in (course.root / "grades.csv").read_text()
    assert course.score(ASSIGNMENT, "honest") == 14
    assert listener.reached == []


@pytest.fixture(scope="module")
def feedback(graded):
    """Every case's feedback, written once by stock `nbgrader generate_feedback` for the
    tests that read it: the command's result."""
    return graded.course.nbgrader("generate_feedback", ASSIGNMENT, "--force", check=False)


def test_feedback_never_shows_hidden_tests(graded, feedback):
    course = graded.course
    pages = list((course.root / "feedback").rglob("*.html"))
    assert len(pages) == len(CASES)
    for page in pages:
        html = page.read_text()
        assert "student.probe" not in html and "HIDDEN TESTS" not in html


def test_grading_refuses_to_start_without_bubblewrap(grader):
    course = Course(course_folder(), grader, generated=(ASSIGNMENT,))
    try:
        course.submit("someone", ASSIGNMENT, course.solved(ASSIGNMENT))
        result = course.nbgrader("autograde", ASSIGNMENT, "--SandboxedKernelManager.bwrap=/no/bwrap",
                                 check=False)
        assert "apt-get install bubblewrap" in result.stdout + result.stderr
        assert not (course.root / "autograded" / "someone").exists()
    finally:
        shutil.rmtree(course.root, ignore_errors=True)


def test_tracebacks_quoting_hidden_tests_are_not_kept(graded):
    """Regression: a failing hidden check's traceback, kept as text, showed its source."""
    course = graded.course
    for cell in graded_cells(course.autograded(ASSIGNMENT, "hard_coded")).values():
        text = "".join(str(o.get("text", "")) + str(o.get("evalue", "")) for o in cell.outputs)
        assert "student.probe" not in text and "HIDDEN" not in text


def test_theft_finds_nothing(graded):
    """The kernel sees neither solutions, classmates, gradebook, references, the
    grader's environment nor the course root: the attempt prints so itself."""
    text = outputs(graded.course, "theft")
    for target in ("solutions", "classmate", "gradebook", "references", "environment", "course root"):
        assert f"THEFT {target}: nothing" in text, text[-2000:]
    assert "FOUND" not in text
    planted = graded.course.grader.options()["env"]["COURSE_PLANTED_SECRET"]
    assert planted not in (graded.course.root / "autograded" / "theft" / ASSIGNMENT / "theory03.ipynb").read_text()


def test_every_kernel_is_told_what_defends_it(graded):
    course = graded.course
    for name in ("honest", "fork_bomb", "memfd_hold"):
        nb = course.autograded(ASSIGNMENT, name)
        defences = nb.metadata["course"]["grading"]["defences"]
        assert defences.startswith("bubblewrap"), (name, defences)


def test_stock_nbgrader_says_its_defences_and_keeps_the_terminal_clean(serially):
    """Serial stock `nbgrader autograde` of the case whose reason carries escape sequences
    (beside the other SHARED_LIMITS cases): nbgrader's own log (which the parallel command keeps
    off the terminal) says which defences are active and carries no control characters."""
    course, result = serially
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Grading defences: bubblewrap" in result.stderr
    for text in (result.stdout, result.stderr):
        assert not any(ch in text for ch in "\x1b\x07\r"), repr(text[-300:])
    assert course.score(ASSIGNMENT, ESCAPES) == CASES[ESCAPES].score


def needs_cgroup(graded):
    defences = graded.course.autograded(ASSIGNMENT, "honest").metadata["course"]["grading"]["defences"]
    if "cgroup" not in defences:
        pytest.skip(f"no cgroup could be made here ({defences}): memory is limited as address space only")


def test_memory_outside_the_heap_is_counted(graded):
    course = graded.course
    text = outputs(course, "tmpfs_fill")
    assert "tmp refused after" in text and "No space left" in text, text[-500:]
    assert int(text.split("tmp refused after")[1].split()[0]) <= 256
    text = outputs(course, "workdir_fill")
    assert "workdir refused after" in text, text[-500:]
    assert int(text.split("workdir refused after")[1].split()[0]) <= 256
    needs_cgroup(graded)
    text = outputs(course, "memfd_hold")
    assert "memfd held" not in text and "went over its memory limit" in text, text[-500:]


def test_student_html_and_markdown_are_inert(graded, feedback):
    course = graded.course
    nb = course.autograded(ASSIGNMENT, "scripts")
    shown = json.dumps([c.get("outputs", []) for c in nb.cells])
    written = json.dumps([c.source for c in nb.cells if c.cell_type != "code"])
    for text in (shown, written):  # the payloads, wherever they would be live
        for word in ("pwned", "onerror", "onload", "javascript", "<iframe", "<script", "svg+xml"):
            assert word not in text, (word, text[:3000])
    assert "<b>bold</b>" in shown and "My notes" in written  # harmless content stays
    feedback = (course.root / "feedback" / "scripts" / ASSIGNMENT / "theory03.html").read_text()
    for tag in ("<script>alert", "<img src=x onerror", "<svg xmlns", "<iframe", "pwned-md", "pwned-raw"):
        assert tag not in feedback, tag


def test_report_and_terminal_get_no_control_characters_or_formulas(graded):
    course = graded.course
    result = subprocess.run([sys.executable, "-m", "grader", "report", ASSIGNMENT], cwd=course.root,
                            capture_output=True, text=True, check=True)
    csv_text = (course.root / "reports" / f"{ASSIGNMENT}.csv").read_text()
    # the parallel command's terminal output: its notes and the report it prints
    for text in (result.stdout, csv_text, graded.result.stderr, graded.result.stdout):
        assert not any(ch in text for ch in "\x1b\x07\r"), repr(text[-300:])
    assert "\n\"=HYPERLINK" not in csv_text and "\"'=HYPERLINK(1)\"" in csv_text
    assert "honest                  10/10 forged" in csv_text  # the text stays, inert


def test_one_slow_dying_notebook_is_bounded(graded):
    course = graded.course
    nb = course.autograded(ASSIGNMENT, "asleep_and_dying")
    assert f"used up its {NOTEBOOK_SECONDS} s" in outputs(course, "asleep_and_dying")
    size = (course.root / "autograded" / "display_updates" / ASSIGNMENT / "theory03.ipynb").stat().st_size
    assert size < 12_000_000 and "output cut off" in outputs(course, "display_updates")
    assert nb.cells


def test_evidence_out_of_range_is_judged_not_dropped(graded):
    course = graded.course
    assert (course.root / "autograded" / "out_of_range" / ASSIGNMENT / "theory03.ipynb").exists()


def test_after_a_death_the_first_run_outputs_stand(graded):
    text = outputs(graded.course, "replayed")
    before = float(text.split("before the death at")[1].split()[0])
    dying = float(text.split("dying at")[1].split()[0])
    assert before < dying  # the replay, later, did not overwrite the first run's output


def test_nothing_is_left_behind(graded):
    assert graded.left == set()
    parent = graded.course.grader.delegated
    for folder in parent:
        assert not list(folder.glob("course-kernel-*")), folder


def test_nothing_beside_the_notebook_is_followed_or_copied(graded):
    """Links (to the answer key, the gradebook, a classmate, /etc/shadow, /dev/zero), a
    FIFO and a 3 GiB sparse file beside the notebook: each refused with its reason at the
    top of the graded copy, none copied into autograded/ or seen by the kernel; the
    student's ordinary file and work are graded."""
    course = graded.course
    folder = course.root / "autograded" / "files_beside" / ASSIGNMENT
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt", "theory03.ipynb"]
    top = course.autograded(ASSIGNMENT, "files_beside").cells[0].source
    for name, why in [("source.ipynb", "symbolic link"), ("shadow", "symbolic link"), ("zeros", "symbolic link"),
                      ("fifo", "FIFO"), ("sparse.bin", "size cap")]:
        assert f"`{name}`: " in top and why in top.split(f"`{name}`: ")[1].splitlines()[0], top
    text = outputs(course, "files_beside")
    assert "BESIDE notes: my own notes" in text and "FOUND" not in text, text[-2000:]
    for name in ("source.ipynb", "gradebook.db", "classmate.ipynb", "shadow", "zeros", "fifo", "sparse.bin"):
        assert f"BESIDE {name}: nothing" in text, text[-2000:]


def test_a_notebook_that_is_a_link_is_not_graded_as_the_students(graded):
    assert "symbolic link" in outputs(graded.course, "linked_notebook")
    assert "/tmp/" not in outputs(graded.course, "linked_notebook")  # no path of the instructor's


HOSTS_OF_THE_TEMPLATE = ("https://cdnjs.cloudflare.com/", "https://cdn.jsdelivr.net/", "https://unpkg.com/")


def test_feedback_in_chromium_loads_nothing_and_runs_nothing(graded, feedback):
    """The feedback pages of the cases with live markup (HTML, Markdown, LaTeX links),
    opened in Chromium: no request to anything but the page and nbconvert's own
    template assets, no dialog on load or on clicking every link."""
    playwright = pytest.importorskip("playwright.sync_api")
    if not os.path.exists("/usr/bin/chromium"):
        pytest.skip("Chromium is missing (apt-get install chromium)")
    course = graded.course
    requests, dialogs = [], []
    links = "a[href]:not([href^='#'])"  # nbconvert's own anchors to headings are skipped
    with playwright.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                     args=["--no-sandbox", "--disable-dev-shm-usage"])
        page = browser.new_page()
        page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:")
                   else (requests.append(route.request.url), route.abort()))
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        for name in ("markdown_links", "scripts"):
            page.goto((course.root / "feedback" / name / ASSIGNMENT / "theory03.html").as_uri())
            page.wait_for_timeout(1000)
            # click every link, each on the page as loaded (a click may navigate away)
            for index in range(page.locator(links).count()):
                page.goto((course.root / "feedback" / name / ASSIGNMENT / "theory03.html").as_uri())
                try:
                    page.locator(links).nth(index).click(force=True, no_wait_after=True, timeout=2000)
                    page.wait_for_timeout(200)
                except playwright.Error:
                    pass  # gone, or not clickable: nothing to run
        browser.close()
    student_requests = [url for url in requests if not url.startswith(HOSTS_OF_THE_TEMPLATE)]
    assert student_requests == [] and dialogs == [], (student_requests, dialogs)
    assert graded.listener.reached == []


def test_the_kernels_private_folder_and_every_mount_are_capped(graded):
    """Regression: the private folder (connection file, sockets) was bound read-write from
    the host's disk (1 GiB written there), then, for an ordinary user without a cgroup, lived
    in the host's /dev/shm; bwrap's own / and /dev were tmpfs of no cap. The kernel writes
    1 GiB into its private folder and into every mount it sees: the private folder is gone
    once the kernel is up, only the capped tmpfs take bytes, up to their cap, and the host's
    disk and /dev/shm did not grow meanwhile."""
    text = outputs(graded.course, "private_fill")
    print(text)
    print("case's files seen on the host (MiB):", graded.growth.found, "; the host grew (MiB):", graded.growth.most)
    assert_private_fill_found_nothing(text, graded.growth)


# the cases of the trust boundary's third pass, graded again by root (stock nbgrader
# autograde, each kernel as nobody): what root's rights could reach, they must not
AS_ROOT = ("files_beside", "linked_notebook", "private_fill", "deep_message", "bad_signature")


@pytest.mark.skipif(os.geteuid() != 0, reason="grading as root needs root")
def test_root_grading_reaches_nothing_either(grader):
    from support.course import Grader
    as_root = Grader.__new__(Grader)
    as_root.user, as_root.cgroup_parent, as_root.delegated = None, "", []
    as_root.home = grader.home
    listener = Listener()
    course = corpus_course(as_root, listener, AS_ROOT)
    try:
        with HostGrowth(TOKEN) as growth:
            done = course.nbgrader("autograde", ASSIGNMENT, *LIMITS, check=False)
        assert done.returncode == 0, done.stderr[-3000:]
        rows = {row["student"]: row for row in cohort(course.root, ASSIGNMENT)[1]}
        for name in AS_ROOT:
            assert rows[name]["score"] == CASES[name].score, (name, rows[name])
            assert "as nobody" in rows[name]["defences"]
        text = printed(course, ASSIGNMENT, "files_beside")
        assert "BESIDE shadow: nothing" in text and "FOUND" not in text, text[-1500:]
        print(printed(course, ASSIGNMENT, "private_fill"))
        print("case's files seen on the host (MiB):", growth.found, "; the host grew (MiB):", growth.most)
        assert_private_fill_found_nothing(printed(course, ASSIGNMENT, "private_fill"), growth)
        assert "symbolic link" in printed(course, ASSIGNMENT, "linked_notebook")
        assert sorted(p.name for p in (course.root / "autograded" / "files_beside" / ASSIGNMENT).iterdir()) \
            == ["notes.txt", "theory03.ipynb"]
    finally:
        listener.running = False
        shutil.rmtree(course.root, ignore_errors=True)
