"""`python -m grader grade`: a cohort graded in parallel gets what serial stock
`nbgrader autograde` gives it, and a fork bomb graded beside honest work does
not take its neighbour's processes.

One small cohort (fork bomb, honest, wrong, hard-coded in English; fork bomb,
honest, hard-coded in Spanish) is graded twice, in two course copies: serially
by stock nbgrader, each kernel a new Python (once per session, `serial_theory03`:
tests/support/cohort.py), and in parallel by the command, two at a time, each kernel
forked warm (grader/sandbox/warm_start.py). The English
run is the tests' ordinary user with a cgroup per kernel; the Spanish one is
root without cgroups, where the process limit is an rlimit counted per user and
each worker's kernels get a user of their own.
"""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from support.cohort import (
    EXPECTED,
    STAND_IN,
    THEORY03,
    local_cluster,
    stand_in,
    theory03_cohort,
)
from support.corpus import (
    LIMITS,  # the corpus's limits: the fork bomb meets 128 processes
)
from support.course import (
    Course,
    course_folder,
    gradebook_rows,
    graded_cells,
    verdict_text,
)

from grader.reports.report import shape_of
from grader.sandbox.kernel import sandbox_available
from grader.sandbox.uids import SLOT_IDS_PER_RUN, UID_BASE, WORKER_UID_BASE

pytestmark = pytest.mark.skipif(not sandbox_available(),
                                reason="bubblewrap is not installed: grading runs sandboxed")

ASSIGNMENTS = THEORY03
# how each language's parallel run is made (see the docstring)
AS_ROOT = {"theory03-en": False, "theory03-es": True}
NO_CGROUP = ["--SandboxedKernelManager.use_cgroup=False"]


def make_course(grader):
    course = Course(course_folder(), grader, generated=ASSIGNMENTS)
    for assignment in ASSIGNMENTS:
        for name, nb in theory03_cohort(course, assignment).items():
            course.submit(name, assignment, nb)
    return course


def grade_command(course, assignment, *options, user=True):
    run_as = course.grader.options() if user else {}
    return subprocess.run([sys.executable, "-m", "grader", "grade", assignment, "--no-progress",
                           *options, *LIMITS],
                          check=False, cwd=course.root, capture_output=True, text=True, **run_as)


def results(course, assignment, db_url=None):
    """student -> {grade_id: (score, reason with its numbers blanked)}: the inputs are drawn
    afresh from each run's seed, the rest of a reason must be the same."""
    found = {}
    for name in theory03_cohort(course, assignment):
        scores = course.cell_scores(assignment, name, db_url)
        cells = graded_cells(course.autograded(assignment, name))
        found[name] = {gid: (scores[gid], shape_of(verdict_text(c)))
                       for gid, c in cells.items()}
    return found


@pytest.fixture(scope="module")
def graded(grader, serial_theory03):
    serial, parallel = serial_theory03, make_course(grader)
    runs = {a: grade_command(parallel, a, "--workers=2",
                             *(NO_CGROUP if AS_ROOT[a] else parallel.grader.arguments()),
                             user=not AS_ROOT[a])
            for a in ASSIGNMENTS}
    yield serial, parallel, runs
    subprocess.run(["rm", "-rf", str(parallel.root)], check=False)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_parallel_gives_what_serial_nbgrader_gives(graded, assignment):
    serial, parallel, runs = graded
    assert runs[assignment].returncode == 0, runs[assignment].stderr[-3000:]
    assert "2 at a time" in runs[assignment].stderr
    expected, got = results(serial, assignment), results(parallel, assignment)
    assert got == expected
    totals = {name: parallel.score(assignment, name) for name in expected}
    assert totals == {name: EXPECTED[name] for name in expected}


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_fork_bomb_beside_honest_work(graded, assignment):
    _, parallel, runs = graded
    nb = parallel.autograded(assignment, "a-fork-bomb")
    outputs = "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert "fork refused after" in outputs
    for c in graded_cells(parallel.autograded(assignment, "a-honest")).values():
        assert verdict_text(c).startswith("✔"), verdict_text(c)
    defences = {parallel.autograded(assignment, name).metadata["course"]["grading"]["defences"]
                for name in ("a-fork-bomb", "a-honest")}
    if AS_ROOT[assignment]:  # graded at the same moment, each as a user of its own
        assert "a user of their own" in runs[assignment].stderr
        ids = sorted(int(d.split("as user id ")[1].split(",")[0]) for d in defences)
        assert ids[1] == ids[0] + 1 and (ids[0] - UID_BASE) % SLOT_IDS_PER_RUN == 0, ids  # one run's block
        assert all("rlimits only" in d for d in defences)
    else:
        assert all("cgroup v" in d for d in defences), defences


# ---- the same cohort, its kernels run on a Dask cluster ----

@pytest.fixture(scope="module")
def dask_cluster(grader):
    """A real Dask scheduler and two workers on loopback, run as the grading user;
    yields the scheduler's address."""
    with local_cluster(grader) as address:
        yield address


@pytest.fixture(scope="module")
def on_cluster(grader, graded, dask_cluster, postgres):
    """theory03-en's cohort graded on the cluster, its gradebook in PostgreSQL (a
    database of its own on the `postgres` fixture's server; the password in PGPASSWORD)."""
    from sqlalchemy.engine import URL, make_url
    from support.servers import create_database
    url = make_url(postgres).set(database="cluster")
    without_password = URL.create(url.drivername, url.username, None, url.host, url.port, url.database)
    create_database(postgres, "cluster")
    course = Course(course_folder(), grader)
    with open(course.root / "nbgrader_config.py", "a") as config:
        config.write(f"c.CourseDirectory.db_url = {without_password.render_as_string()!r}\n")
    course.grader = PasswordFor(grader, url.password)
    assignment = "theory03-en"
    done = course.nbgrader("generate_assignment", assignment, "--force", check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    for name, nb in theory03_cohort(course, assignment).items():
        course.submit(name, assignment, nb)
    run = grade_command(course, assignment, f"--scheduler={dask_cluster}", *grader.arguments())
    yield course, run, url.render_as_string(hide_password=False)
    subprocess.run(["rm", "-rf", str(course.root)], check=False)


class PasswordFor:
    """The grading user, with the gradebook's password in PGPASSWORD (as the README advises)."""

    def __init__(self, grader, password):
        self.grader, self.password = grader, password

    def __getattr__(self, name):
        return getattr(self.grader, name)

    def options(self):
        options = self.grader.options()
        options["env"]["PGPASSWORD"] = self.password
        return options


def test_a_dask_cluster_gives_what_serial_nbgrader_gives(graded, on_cluster, dask_cluster, grader):
    serial, _, _ = graded
    course, run, db_url = on_cluster
    assert run.returncode == 0, run.stderr[-3000:]
    assert f"2 at a time (kernels on the workers of the Dask cluster at {dask_cluster})" in run.stderr
    # the same verdicts, and the same gradebook rows, here in PostgreSQL
    assert not (course.root / "gradebook.db").exists()
    assert results(course, "theory03-en", db_url) == results(serial, "theory03-en")
    serial_rows = gradebook_rows(f"sqlite:///{serial.root / 'gradebook.db'}", "theory03-en")
    assert gradebook_rows(db_url, "theory03-en") == {name: serial_rows[name] for name in theory03_cohort(course, "theory03-en")}
    # the fork bomb met its limit on a worker, in a cgroup of its own, beside honest work
    bomb = course.autograded("theory03-en", "a-fork-bomb")
    outputs = "\n".join(o.get("text", "") for c in bomb.cells if c.cell_type == "code"
                        for o in c.outputs)
    assert "fork refused after" in outputs
    assert "cgroup v" in bomb.metadata["course"]["grading"]["defences"]
    # the cluster works in its own folder: nothing of it in the shared temporary folder
    uid = grader.user.pw_uid if grader.user is not None else os.getuid()
    scratch = [path for path in Path(tempfile.gettempdir()).glob("dask-scratch-space*") if path.stat().st_uid == uid]
    assert scratch == [], scratch


def test_an_unreachable_scheduler_is_said_plainly(graded):
    """Asked to grade everything again (--force: all of it is graded already) on a cluster that
    cannot be reached: it says so, and the earlier grades stay."""
    _, parallel, _ = graded
    before = sorted(p.name for p in (parallel.root / "autograded").iterdir())
    run = grade_command(parallel, "theory03-en", "--force", "--scheduler=tcp://127.0.0.1:9")
    assert run.returncode != 0
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in run.stderr, run.stderr[-2000:]
    assert sorted(p.name for p in (parallel.root / "autograded").iterdir()) == before


def test_report_written(graded):
    _, parallel, runs = graded
    csv = (parallel.root / "reports" / "theory03-es.csv").read_text()
    assert "a-honest" in csv and "c-hard-coded" in csv
    assert "wrote" in runs["theory03-es"].stdout


# ---- the run's own bookkeeping, with stand-ins for nbgrader (no kernels: cheap) ----

@pytest.fixture
def stand_in_course(tmp_path, monkeypatch):
    import grader.cohort.grading as cohort_module
    monkeypatch.setattr(cohort_module, "command", stand_in(STAND_IN))
    monkeypatch.setattr(cohort_module, "plan", lambda root, workers, options: cohort_module.Plan(workers))
    for student in ("dies", "fine", "locked"):
        (tmp_path / "submitted" / student / "a1").mkdir(parents=True)
    return tmp_path, cohort_module


def test_a_dead_process_is_reported_and_leaves_nothing_half_written(stand_in_course):
    root, cohort_module = stand_in_course
    outcomes = {o.student: o for o in cohort_module.grade(root, "a1", workers=2, progress=False,
                                                           report=False)}
    assert not outcomes["dies"].ok and "killed by signal 9 (SIGKILL)" in outcomes["dies"].reason
    assert not (root / "autograded" / "dies" / "a1").exists()  # the next run grades it
    assert outcomes["fine"].ok and (root / "autograded" / "fine" / "a1").exists()
    # a locked gradebook: graded again, and then it went through
    assert outcomes["locked"].ok and outcomes["locked"].attempts == 2


def test_ctrl_c_interrupts_each_process_once(tmp_path):
    (tmp_path / "submitted" / "sleeps" / "a1").mkdir(parents=True)
    script = (f"import grader.cohort.grading as c, sys\nsys.path.insert(0, {str(Path(__file__).parent)!r})\n"
              "from support.cohort import stand_in, STAND_IN\n"
              "c.command = stand_in(STAND_IN)\nc.plan = lambda r, w, o: c.Plan(w)\n"
              f"c.grade({str(tmp_path)!r}, 'a1', workers=1, progress=False, report=False)")
    # a terminal's Ctrl-C, even when this run was started with SIGINT ignored (in the background)
    parent = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE, text=True,
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # noqa: PLW1509 (no threads here)
    tries = tmp_path / "sleeps.tries"
    deadline = time.monotonic() + 120  # a loaded machine
    while not (tmp_path / "autograded" / "sleeps" / "a1" / "listening").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    parent.send_signal(signal.SIGINT)
    try:
        _, err = parent.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        status = Path(f"/proc/{parent.pid}/status").read_text()
        signals = [line for line in status.splitlines() if line.startswith("Sig")]
        parent.kill()
        _, err = parent.communicate()
        pytest.fail(f"the run did not end within 60 s of Ctrl-C ({signals}); it wrote: " + err[-3000:])
    assert parent.returncode == 130, err
    assert "interrupted: 0 graded in this run, 1 not; `python -m grader grade a1` (without " \
        "--force) grades the 1 with no grade" in err
    assert tries.read_text() == "interrupted"
    assert not (tmp_path / "autograded" / "sleeps" / "a1").exists()


def test_after_ctrl_c_on_a_forced_run_the_advice_is_true(tmp_path):
    """--force regrades everything: of those not graded in the run, the ones never
    reached keep their earlier grade, and a run without --force grades only the rest."""
    from grader.cohort.grading import Outcome, interrupted_message
    (tmp_path / "autograded" / "bea" / "a1").mkdir(parents=True)  # graded before, never reached
    text = interrupted_message(tmp_path, "a1", ["ana", "bea", "eva"],
                               [Outcome("ana", True), Outcome("eva", False, "interrupted")], True)
    print(text)
    assert text == ("interrupted: 1 graded in this run, 2 not (1 of them keep the grade of an "
                    "earlier run, 1 have none); `python -m grader grade a1` (without --force) "
                    "grades the 1 with no grade; the same command again, with --force, grades "
                    "all 3 again")


def test_a_killed_parent_interrupts_its_grading_processes(tmp_path):
    """Killed outright (no Ctrl-C to pass on), the parent still leaves no process
    grading unwatched: each is interrupted as Ctrl-C would, and cleans up."""
    (tmp_path / "submitted" / "sleeps" / "a1").mkdir(parents=True)
    script = (f"import grader.cohort.grading as c, sys\nsys.path.insert(0, {str(Path(__file__).parent)!r})\n"
              "from support.cohort import stand_in, STAND_IN\n"
              "c.command = stand_in(STAND_IN)\nc.plan = lambda r, w, o: c.Plan(w)\n"
              f"c.grade({str(tmp_path)!r}, 'a1', workers=1, progress=False, report=False)")
    parent = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.DEVNULL)
    tries = tmp_path / "sleeps.tries"
    deadline = time.monotonic() + 120  # a loaded machine
    while not (tmp_path / "autograded" / "sleeps" / "a1" / "listening").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    parent.kill()
    parent.wait()
    while tries.read_text() != "interrupted" and time.monotonic() < deadline + 30:
        time.sleep(0.1)
    print("the orphaned grading process wrote:", tries.read_text())
    assert tries.read_text() == "interrupted"


def test_a_second_run_on_the_same_assignment_is_refused(stand_in_course):
    root, cohort_module = stand_in_course
    held = cohort_module.lock(root, "a1")
    try:
        with pytest.raises(SystemExit) as refused:
            cohort_module.grade(root, "a1", workers=2, progress=False, report=False)
        print(refused.value.code)
        assert f"(process {os.getpid()}): wait for it to finish" in str(refused.value.code)
        assert not (root / "autograded").exists()  # nothing was graded twice
    finally:
        held.close()
    # once the first run is over, the next one goes ahead
    assert len(cohort_module.grade(root, "a1", workers=2, progress=False, report=False)) == 3


def test_without_cgroups_an_ordinary_user_grades_one_at_a_time(monkeypatch, tmp_path):
    import grader.cohort.grading as cohort_module
    import grader.sandbox.cgroups
    monkeypatch.setattr(grader.sandbox.cgroups.KernelGroup, "create",
                        classmethod(lambda cls, *a, **k: (None, "no cgroup here")))
    monkeypatch.setattr(cohort_module.os, "geteuid", lambda: 1000)
    how = cohort_module.plan(tmp_path, 4, [])
    assert how.workers == 1 and "share one process limit" in how.note
    monkeypatch.setattr(cohort_module.os, "geteuid", lambda: 0)
    monkeypatch.setattr("grader.sandbox.uids.LOCKS", tmp_path / "locks")  # no other run holds a block here
    how = cohort_module.plan(tmp_path, 3, [])
    assert how.workers == 3 and [o[0].rsplit("=", 1)[1] for o in how.slot_options] == \
        [str(UID_BASE + k) for k in range(3)]


def test_one_process_grades_exactly_one_student():
    from grader.cohort.grading import command
    assert "--student=a[*]b" in command(Path("/r"), "a1", "a*b", [])


def test_html_report_in_the_instructors_language(graded):
    from grader.reports.report import write_html
    _, parallel, _ = graded
    hostile = parallel.root / "submitted" / "<img src=x onerror=alert(1)>" / "theory03-en"
    hostile.mkdir(parents=True)  # submitted, never graded: a row with a note
    try:
        page = write_html(parallel.root, "theory03-en", "es").read_text()
    finally:
        hostile.rmdir()
        hostile.parent.rmdir()
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "Distribución de las notas" in page and "data:image/png;base64," in page
    assert "4 de 5 entregas calificadas; nota media 10.5 de 14." in page
    # forward: the honest work and the fork bomb pass; the wrong and the hard-coded answers fail
    row = page.split("<td>theory03-forward</td>")[1].split("</tr>")[0]
    assert "2/4 (50%)" in row and "<li>1 × <code>" in row and "expected" in row
    assert "3/4 (75%)" in page.split("<td>theory03-walk</td>")[1].split("</tr>")[0]


def test_demo_runs(grader):
    """The README's main-job command, whole: both languages, every kind of submission."""
    done = subprocess.run([sys.executable, "-m", "grader", "demo", "--no-progress"],
                          check=False, capture_output=True, text=True, timeout=900,
                          **grader.options())
    assert done.returncode == 0, done.stderr[-3000:]
    folder = Path(done.stdout.split("demo course in ")[1].split(":")[0])
    try:
        print(done.stdout)
        for assignment in ("theory03-en", "theory03-es"):
            summary = done.stdout.split(f"== {assignment}")[1].split("==")[0]
            # honest work, and the fork bomb beside it, get full marks; every shortcut loses some
            assert re.search(r"honest +14/14", summary) and re.search(r"fork-bomb +14/14", summary)
            for name in ("wrong", "hard-coded", "snoop"):
                score = float(re.search(rf"{name} +([\d.]+)/14", summary).group(1))
                assert score < 14, (name, summary)
            assert (folder / "reports" / f"{assignment}.html").exists()
            assert list((folder / "feedback" / "honest" / assignment).glob("*.html"))
        # it says why the fork bomb, contained, still gets full marks, and how to remove the course
        told = done.stdout.split("What came of each submission:")[1]
        bomb = re.search(r"fork-bomb: (\d+)/\1\. (.*)", told).group(2)
        assert "the sandbox contained it (fork refused after" in bomb and "so it gets full marks" in bomb
        assert done.stdout.rstrip().endswith(f"when you are done: rm -r {folder}")
        assert "where to look" in done.stdout and "NOT GRADED" not in done.stderr
    finally:
        subprocess.run(["rm", "-rf", str(folder)], check=False)


def test_the_demo_fails_when_a_submission_is_not_graded(monkeypatch, tmp_path, capsys):
    import grader.cohort.grading
    import grader.demo
    monkeypatch.setattr(grader.demo, "make_course", lambda folder, languages, names: ["theory03-en"])
    monkeypatch.setattr(grader.demo, "nbgrader", lambda *a: None)
    monkeypatch.setattr(grader.cohort.grading, "grade", lambda *a, **k: [
        grader.cohort.grading.Outcome("ana", True), grader.cohort.grading.Outcome("eva", False, "killed")])
    monkeypatch.setattr(grader.demo.tempfile, "mkdtemp", lambda prefix: str(tmp_path))
    assert grader.demo.main(["--quick"]) == 1
    assert "NOT GRADED: eva (theory03-en)" in capsys.readouterr().err


def test_nbgrader_options_reach_the_plan():
    from authoring.build import ROOT
    from grader.cohort.database import database_options
    from grader.config import load_config
    config = load_config(ROOT, ["--force", "--SandboxedKernelManager.process_limit=7", "x"])
    from grader.sandbox.kernel import SandboxedKernelManager
    manager = SandboxedKernelManager(config=config)
    assert manager.process_limit == 7 and manager.cpu_seconds == 600  # command line, then the file
    assert database_options(ROOT, [])[0].endswith("gradebook.db?timeout=600")
    assert database_options(ROOT, ["--CourseDirectory.db_url=postgresql://h/db"]) == []


def test_long_reasons_are_cut_at_a_word_boundary():
    from grader.cohort.messages import failure_reason
    from grader.reports.report import shortened
    reason = "gradcheck fails on " + ", ".join(f"expression{i}" for i in range(40))
    cut = shortened(reason, 160)
    print(cut)
    assert len(cut) <= 160 and cut.endswith(" …") and set(cut[:-2].split()) <= set(reason.split())
    said = failure_reason(1, "ValueError: " + "word " * 100)
    assert said.endswith("word …") and len(said) < 360


def test_a_failed_process_is_reported_with_the_exception_that_stopped_it():
    from grader.cohort.grading import failure_reason
    log = ("[AutogradeApp | INFO] Converting notebook\n    Traceback (most recent call last):\n"
           '      File "x.py", line 1, in <module>\n    TypeError: can only concatenate str\n'
           "[AutogradeApp | ERROR] There was an error processing assignment 'a1'\n"
           "[AutogradeApp | ERROR] Please see the the above traceback for details\n")
    assert failure_reason(1, log) == "nbgrader exited with status 1: TypeError: can only concatenate str"


def test_worker_processes_without_cgroups_take_turns(monkeypatch):
    """An ordinary user's Dask workers on one machine, with no cgroup to be had, share
    one per-user process limit: their kernels must not run side by side."""
    from traitlets.config import Config

    import grader.sandbox.cgroups
    from grader.plugins.worker import turn_without_cgroup
    monkeypatch.setattr(grader.sandbox.cgroups.KernelGroup, "create",
                        classmethod(lambda cls, *a, **k: (None, "no cgroup here")))
    monkeypatch.setattr(os, "geteuid", lambda: 4242)
    probe = ("import fcntl, os, sys, tempfile\n"
             "fd = os.open(os.path.join(tempfile.gettempdir(), 'course-grader-4242.lock'), os.O_RDWR)\n"
             "try:\n    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB); print('free')\n"
             "except BlockingIOError:\n    print('taken')\n")
    with turn_without_cgroup(Config()):  # another worker process tries meanwhile
        inside = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False)
    after = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False)
    print("during a kernel:", inside.stdout.strip(), "after it:", after.stdout.strip())
    assert (inside.stdout.strip(), after.stdout.strip()) == ("taken", "free")
    # with a cgroup per kernel, no turns: nothing is locked
    monkeypatch.setattr(grader.sandbox.cgroups.KernelGroup, "create",
                        classmethod(lambda cls, *a, **k: (type("G", (), {"remove": lambda self: None})(), "")))
    with turn_without_cgroup(Config()):
        assert subprocess.run([sys.executable, "-c", probe], capture_output=True,
                              text=True, check=False).stdout.strip() == "free"
    os.remove(os.path.join(tempfile.gettempdir(), "course-grader-4242.lock"))


@pytest.mark.parametrize("python", ["this", "without tar filters"])
def test_a_worker_gets_only_its_submissions_files(tmp_path, monkeypatch, python):
    """Python 3.11.0-3.11.3 (Debian 12's /usr/bin/python3) has no tar filters: the
    worker falls back to plain files and folders, and refuses the same archives."""
    import tarfile

    from grader.plugins.worker import pack, unpack
    if python == "without tar filters":
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
    mine = tmp_path / "autograded" / "ana" / "a1"
    (mine / "data").mkdir(parents=True)
    (mine / "theory03.ipynb").write_text("{}")
    (mine / "data" / "x.csv").write_text("1,2")
    (mine / "up").symlink_to(tmp_path / "autograded")  # a link out of the folder
    (tmp_path / "autograded" / "bea" / "a1").mkdir(parents=True)
    (tmp_path / "gradebook.db").write_text("grades")
    archive = pack(mine)
    assert b"grades" not in archive and b"bea" not in archive
    import io
    import tarfile
    made = io.BytesIO()  # an archive with a link out of the folder, made by hand
    with tarfile.open(fileobj=made, mode="w") as tar:
        link = tarfile.TarInfo("up")
        link.type, link.linkname = tarfile.SYMTYPE, str(tmp_path / "autograded")
        tar.addfile(link)
    with pytest.raises(tarfile.TarError):
        unpack(made.getvalue(), tmp_path / "worker")  # the worker refuses what leads out of its folder
    unpack(archive, tmp_path / "worker2")  # the link was never packed (grader/plugins/intake.py)
    assert sorted(str(p.relative_to(tmp_path / "worker2")) for p in (tmp_path / "worker2").rglob("*")) \
        == ["data", "data/x.csv", "theory03.ipynb"]


OLD_PYTHON = "/usr/bin/python3"  # Debian 12's: 3.11.2, without tar filters


@pytest.mark.skipif(not os.path.exists(OLD_PYTHON), reason="no system Python")
def test_a_worker_on_debians_python_unpacks_a_submission(tmp_path):
    """The worker's unpacking, run by the system's own Python (3.11.2 on Debian 12):
    it extracts a submission and refuses a link out of the folder."""
    import io
    import tarfile

    from grader.plugins.worker import pack
    mine = tmp_path / "ana"
    mine.mkdir()
    (mine / "theory03.ipynb").write_text("{}")
    (tmp_path / "good.tar").write_bytes(pack(mine))
    made = io.BytesIO()  # a link out of the folder, made by hand (pack() never packs one)
    with tarfile.open(fileobj=made, mode="w") as tar:
        link = tarfile.TarInfo("up")
        link.type, link.linkname = tarfile.SYMTYPE, str(tmp_path)
        tar.addfile(link)
    (tmp_path / "bad.tar").write_bytes(made.getvalue())
    script = ("import sys, tarfile\nsys.path.insert(0, sys.argv[1])\n"
              "from grader.plugins.worker import unpack\n"
              "print(sys.version.split()[0], hasattr(tarfile, 'data_filter'))\n"
              "unpack(open(sys.argv[2] + '/good.tar', 'rb').read(), sys.argv[2] + '/out')\n"
              "try:\n    unpack(open(sys.argv[2] + '/bad.tar', 'rb').read(), sys.argv[2] + '/bad')\n"
              "except tarfile.TarError as refused:\n    print('refused:', refused)\n")
    done = subprocess.run([OLD_PYTHON, "-c", script, str(Path(__file__).parents[1]), str(tmp_path)],
                          capture_output=True, text=True, check=False)
    print(done.stdout, done.stderr)
    assert done.returncode == 0 and "refused: " in done.stdout
    assert (tmp_path / "out" / "theory03.ipynb").read_text() == "{}"
    assert not (tmp_path / "bad" / "up").exists()


def test_as_root_each_worker_process_has_a_user_of_its_own(monkeypatch):
    from grader.plugins import worker
    monkeypatch.setattr(worker.os, "geteuid", lambda: 0)
    assert worker.worker_uid({}) == WORKER_UID_BASE + os.getpid()
    assert worker.worker_uid({"SandboxedKernelManager": {"uid": 5000}}) is None  # configured
    monkeypatch.setattr(worker.os, "geteuid", lambda: 1000)
    assert worker.worker_uid({}) is None
