"""Grade a whole cohort at once, in parallel on this machine.

    python -m grader grade ASSIGNMENT [ASSIGNMENT...] [--workers N] [--force] [nbgrader options...]

Stock `nbgrader autograde ASSIGNMENT` grades one submission after another, on
one core. This runs stock `nbgrader autograde ASSIGNMENT --student ID`, one
process per submission, N at a time (default: the machine's cores). Each is the
same nbgrader, with the same configuration, sandbox, limits and reasons, so the
gradebook rows and the autograded notebooks are what the serial run makes. The
processes are forked from this one after it has imported nbgrader once:
starting Python and importing nbgrader costs about as much as grading a
theory03 submission, and a serial run pays it only once.
What parallel grading adds, and how it is handled:

- The gradebook (SQLite) has concurrent writers: each process waits for the
  lock (a long busy timeout in the database URL).
- Database faults (SQLite still locked, PostgreSQL stopped or restarting): the
  submission is graded again, after a pause that doubles with each fault
  (DatabaseWatch); faults with no success for `--db-patience` seconds stop the
  run cleanly: nothing more starts, and it says which students were graded and
  which not (no report: it needs the database).
- Each submission's log (its last attempt) is kept in logs/ASSIGNMENT/, where
  a NOT GRADED line and the report point.
- Concurrent kernels must not share a limit. Each kernel gets a cgroup of its
  own where one can be made; otherwise the process limit is an rlimit counted
  per user, so, run as root, each worker slot's kernels run as a user id of
  their own; run as an ordinary user without cgroups, there is no way to
  separate them and the cohort is graded one submission at a time (it says so).
- A grading process that dies (killed, out of memory) leaves nothing
  half-written: its autograded folder is removed and the submission is
  reported with a reason; running the command again grades it.
- Ctrl-C: each running process is interrupted once (nbgrader then removes its
  unfinished submission, as it does serially); what was graded stays graded,
  and the message names the command that finishes the job (interrupted_message:
  with --force, those never reached still hold an earlier grade). If this process itself is
  killed, each grading process is interrupted the same way (a parent-death
  signal), so none goes on grading unwatched.
- One run per assignment at a time (a lock in the course folder): two runs
  would grade, and write, the same submissions.

At the end it writes the cohort report (`grader/reports/report.py`): the CSV, and the
HTML page in the instructor's language (`--lang en|es`). Several assignments are
graded one after the other, each as above, in one run (one start, one preflight).
"""
import ctypes
import fcntl
import glob
import importlib
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from course.names import LANGUAGES, UNITS, unit_and_language
from grader.config import load_config
from grader.plugins.inert import for_terminal
from grader.plugins.intake import unsafe_id
from grader.reports.logs import LOGS, log_name
from grader.reports.report import write_report

DB_TIMEOUT = 600  # seconds a process waits for the gradebook's lock
# a submission whose process met a database fault (SQLite locked, PostgreSQL down or
# restarting) is graded again after a pause that doubles: 2, 4, 8, ... seconds
DB_BACKOFF = 2.0
DB_BACKOFF_MAX = 30.0
# database faults with no success in between for this long: the database is taken
# to be unreachable, and the run stops cleanly (the running processes finish)
DB_PATIENCE = 120.0
# what a grading process's log says when the gradebook's database failed it: the
# exception line a traceback ends with (Python's own, or nbgrader's). nbgrader logs a
# traceback as one ERROR record,
# which the terminal filter (grader/plugins/inert.py) flattens to one line; only such records
# are read, and only a name that follows white space and precedes a colon, so that no
# text a log line merely quotes, a student id for one, is taken for a database fault
TRACEBACK_RECORD = re.compile(r"^(?:\[\w+ \| ERROR\] )?Traceback \(most recent call last\):.*?(?=^\[\w+ \||\Z)",
                              re.MULTILINE | re.DOTALL)
DATABASE_FAULT = re.compile(
    r"(?<=\s)(sqlite3|psycopg2?(\.errors)?|sqlalchemy\.exc)\.(OperationalError|InterfaceError|"
    # PostgreSQL's "connection exception" and "operator intervention" errors (psycopg.errors)
    r"AdminShutdown|CrashShutdown|CannotConnectNow|ConnectionException|ConnectionFailure|"
    r"ConnectionDoesNotExist|SqlclientUnableToEstablishSqlconnection)(?=:)")


def database_fault(log_text):
    """Whether a grading process's log ends a traceback with a database fault."""
    return any(DATABASE_FAULT.search(record) for record in TRACEBACK_RECORD.findall(log_text))


INTERRUPT_GRACE = 30  # seconds an interrupted process has to clean up
# run as root without cgroups: worker slot k's kernels run as SLOT_UID_BASE + k
# (unused ids: nothing else on the machine counts against their process limit)
SLOT_UID_BASE = 1_900_000_000


@dataclass
class Outcome:
    student: str
    ok: bool
    reason: str = ""
    seconds: float = 0.0
    attempts: int = 1


@dataclass
class Plan:
    """How the cohort is run: how many at once, and each slot's extra options."""
    workers: int
    slot_options: list = field(default_factory=list)
    note: str = ""

    def options(self, slot):
        return self.slot_options[slot] if self.slot_options else []


def students(root, assignment):
    """The students with a submission, as stock nbgrader finds them (hidden folders skipped)."""
    pattern = os.path.join(glob.escape(str(root)), "submitted", "*", glob.escape(assignment))
    return sorted(Path(path).parent.name for path in glob.glob(pattern) if os.path.isdir(path))


def plan(root, workers, options):
    """Decide how kernels graded at the same moment are kept apart (see the module's docstring)."""
    from grader.sandbox.kernel import SandboxedKernelManager

    if workers <= 1:
        return Plan(1)
    manager = SandboxedKernelManager(config=load_config(root, options))
    if not manager.sandbox:
        return Plan(workers, note="unsandboxed: kernels have no limits to share")
    group, why = manager.trial_cgroup()
    if group is not None:
        return Plan(workers, note="each kernel in a cgroup of its own")
    if os.geteuid() == 0:
        uids = [SLOT_UID_BASE + slot for slot in range(workers)]
        if any(_uid_in_use(uid) for uid in uids):
            raise SystemExit(f"user ids {uids[0]}..{uids[-1]} are in use on this machine; "
                             "grader.cohort.grading.SLOT_UID_BASE must name unused ones")
        return Plan(workers, [[f"--SandboxedKernelManager.uid={uid}"] for uid in uids],
                    note=f"no cgroup ({why}): each worker's kernels run as a user of their own")
    return Plan(1, note=f"no cgroup ({why}) and not root: concurrent kernels would share one "
                        "process limit (counted per user), so submissions are graded one at a "
                        "time. Delegate a cgroup to this user (docs/en/threat-model.md) to grade in parallel.")


def _uid_in_use(uid):
    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        return False


def command(root, assignment, student, options):
    # --student is a glob in nbgrader: escape it, so one process grades exactly one student
    return [sys.executable, "-m", "nbgrader", "autograde", assignment,
            f"--student={glob.escape(student)}", f"--CourseDirectory.root={root}", *options]


class Forked:
    """A grading process forked from this one: `argv` run as `python -m nbgrader ...` would
    run it, without paying again for starting Python and importing nbgrader (seconds per
    submission, about what grading it costs). A stand-in command (tests) runs as a program."""

    def __init__(self, argv, cwd, log):
        self.returncode = None
        sys.stdout.flush(), sys.stderr.flush()  # nothing buffered is written twice
        parent = os.getpid()
        self.pid = os.fork()
        if self.pid == 0:  # the child: never returns
            code = 1
            try:
                # a session of its own: the terminal's Ctrl-C reaches only the parent,
                # which interrupts each grading process exactly once
                os.setsid()
                interrupt_when_orphaned(parent)
                fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                os.dup2(fd, 1), os.dup2(fd, 2)
                null = os.open(os.devnull, os.O_RDONLY)
                os.dup2(null, 0)
                os.chdir(cwd)
                os.environ.update(environment())
                if argv[1:3] != ["-m", "nbgrader"]:
                    os.execv(argv[0], argv)
                signal.signal(signal.SIGINT, signal.default_int_handler)
                sys.argv = ["nbgrader", *argv[3:]]
                from nbgrader.apps.nbgraderapp import main as nbgrader_main
                nbgrader_main()
                code = 0
            except SystemExit as done:
                code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
            except BaseException:  # noqa: BLE001 (a forked child must never return into the parent)
                import traceback
                traceback.print_exc()
            finally:
                sys.stdout.flush(), sys.stderr.flush()
                os._exit(code)

    def poll(self):
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout=None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired("nbgrader", timeout)
            time.sleep(0.05)
        return self.returncode

    def send_signal(self, number):
        if self.poll() is None:
            os.kill(self.pid, number)


PR_SET_PDEATHSIG = 1  # prctl(2): a signal this process gets when its parent dies


def interrupt_when_orphaned(parent):
    """If the parent dies (killed, its terminal closed), interrupt this grading process
    as Ctrl-C would: nbgrader then removes the submission it had not finished."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGINT)
    if os.getppid() != parent:  # it died before the request was made
        os.kill(os.getpid(), signal.SIGINT)


def lock(root, assignment):
    """Take the assignment's grading lock, or exit saying who holds it. The lock is held
    while the returned file is open (by this process or the grading processes it forks),
    so it goes with them however they end."""
    path = Path(root) / f".grader-grade-{assignment}.lock"
    held = open(path, "a+")  # noqa: SIM115
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        held.seek(0)
        raise SystemExit(f"another `python -m grader grade {assignment}` is grading this course "
                         f"(process {held.read().strip() or '?'}): wait for it to finish") from None
    held.truncate(0)
    held.write(str(os.getpid()))
    held.flush()
    return held


def warm_up(scheduler=None, assignment=""):
    """Import, once, what every grading process needs (the children inherit it): nbgrader,
    and the checks of the assignment's unit with what they import (lab 01's: torch, seconds
    a process)."""
    import nbgrader.apps.autogradeapp
    import nbgrader.apps.nbgraderapp  # noqa: F401

    import grader.plugins.wiring  # noqa: F401  (what nbgrader_config.py imports)
    unit = (unit_and_language(assignment) or ("",))[0]
    if unit in UNITS:
        importlib.import_module(f"grader.checks.{unit}")
    if scheduler:
        import distributed  # noqa: F401  (each process sends its submission through a client)


def launch(argv, root, log):
    return Forked(argv, root, log)


def environment():
    env = dict(os.environ)
    # nbgrader runs `alembic` from PATH: find it beside this interpreter
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", os.defpath)
    return env


def database_options(root, options):
    """A busy timeout for the SQLite gradebook nbgrader would use anyway."""
    config = load_config(root, options)
    if "db_url" in config.get("CourseDirectory", {}):
        return []  # the instructor's own database: theirs to configure
    path = os.path.abspath(os.path.join(root, "gradebook.db"))
    return [f"--CourseDirectory.db_url=sqlite:///{path}?timeout={DB_TIMEOUT}"]


def failure_reason(returncode, log):
    if returncode < 0:
        return f"grading process killed by signal {-returncode} ({signal.Signals(-returncode).name})"
    lines = log.splitlines()
    # the exception that stopped nbgrader (its own ERROR lines only point back at it)
    raised = [line for line in lines if re.match(r"\s*\S+(Error|Exception|Refused|Missing|Exit)\b.*", line)]
    errors = [line for line in lines if "| ERROR]" in line or "Error" in line]
    last = (raised or errors or [line for line in lines if line.strip()] or ["(no output)"])[-1]
    return f"nbgrader exited with status {returncode}: {last.strip()[:300]}"


def remove_unfinished(root, assignment, student):
    """A grading process that died may have left a half-made autograded folder; nbgrader
    would skip it next time. Remove it: the submission is then graded on the next run."""
    folder = Path(root) / "autograded" / student / assignment
    if folder.exists():
        shutil.rmtree(folder, ignore_errors=True)


def grade(root, assignment, workers=None, force=False, options=(), progress=True, report=True,
          lang=None, scheduler=None, db_patience=None):
    """Grade every submission of `assignment`; returns the list of Outcomes.
    With `scheduler` (a Dask scheduler's address), kernels run on that cluster."""
    sys.stdout.flush(), sys.stderr.flush()  # nothing buffered is written twice by a fork
    root = Path(root).resolve()
    options = list(options) + (["--force"] if force else [])
    held = lock(root, assignment)
    cohort = students(root, assignment)
    # ids a page or a terminal would take for markup or a new line are not graded (grader/plugins/intake.py)
    refused = [Outcome(student, False, f"student id {student!r} refused: {unsafe_id(student)}; "
                                       "rename its folder under submitted/ to a plain id")
               for student in cohort if unsafe_id(student)]
    cohort = [student for student in cohort if not unsafe_id(student)]
    if scheduler:
        from grader.cohort.cluster import threads_of
        wanted = workers or threads_of(scheduler)
        options.append(f"--GradingExecute.scheduler={scheduler}")
        how = Plan(min(wanted, max(1, len(cohort))),
                   note=f"kernels on the workers of the Dask cluster at {scheduler}")
    else:
        wanted = workers or os.cpu_count() or 1
        how = plan(root, min(wanted, max(1, len(cohort))), options)
    # a folder without the course's nbgrader_config.py does not grade with its sandbox
    if cohort and (root / "nbgrader_config.py").exists():
        preflight(root, options, scheduler)
    if how.note:
        print(f"grading {len(cohort)} submissions of {assignment}, {how.workers} at a time "
              f"({how.note})", file=sys.stderr)
    base = options + database_options(root, options)
    logs = Path(root) / LOGS / assignment
    logs.mkdir(parents=True, exist_ok=True)
    warm_up(scheduler, assignment)
    bar = _bar(len(cohort), progress)
    queue = [(student, 1) for student in cohort]
    running = {}  # slot -> (process, student, attempt, started, log path)
    outcomes = list(refused)
    database = DatabaseWatch(DB_PATIENCE if db_patience is None else db_patience)
    try:
        while queue or running:
            for slot in range(how.workers):
                if slot not in running and queue and database.may_launch():
                    student, attempt = queue.pop(0)
                    log = log_path(root, assignment, student)
                    process = launch(command(root, assignment, student, base + how.options(slot)),
                                     root, log)
                    running[slot] = (process, student, attempt, time.monotonic(), log)
            if database.unreachable and not running:
                for student, attempt in queue:  # never started: what they held, they hold
                    outcomes.append(Outcome(student, False, UNREACHABLE, 0.0, attempt - 1))
                queue = []
            time.sleep(0.05)
            for slot, (process, student, attempt, started, log) in list(running.items()):
                if process.poll() is None:
                    continue
                del running[slot]
                text = log.read_text(errors="replace")
                if process.returncode == 0:
                    database.succeeded()
                    outcome = Outcome(student, True, "", time.monotonic() - started, attempt)
                elif process.returncode > 0 and database_fault(text):
                    remove_unfinished(root, assignment, student)
                    database.failed()
                    if database.unreachable:
                        outcome = Outcome(student, False, UNREACHABLE + ": " + failure_reason(
                            process.returncode, text), time.monotonic() - started, attempt)
                    else:
                        queue.insert(0, (student, attempt + 1))
                        continue
                else:
                    remove_unfinished(root, assignment, student)
                    outcome = Outcome(student, False, failure_reason(process.returncode, text),
                                      time.monotonic() - started, attempt)
                outcomes.append(outcome)
                bar.done(outcome)
    except KeyboardInterrupt:
        _interrupt(root, assignment, running, outcomes)
        bar.close()
        print("\n" + interrupted_message(root, assignment, cohort, outcomes, force),
              file=sys.stderr)
        raise SystemExit(130)
    finally:
        held.close()
    bar.close()
    failed = [o for o in outcomes if not o.ok]
    for outcome in failed:
        print(for_terminal(f"NOT GRADED {outcome.student}: {outcome.reason} "
                           f"(log: {log_path(root, assignment, outcome.student)})"), file=sys.stderr)
    if database.unreachable:
        print(unreachable_message(root, assignment, outcomes, database.patience), file=sys.stderr)
    elif report:
        write_report(root, assignment, lang, options)
    return sorted(outcomes, key=lambda o: o.student)


UNREACHABLE = "the gradebook's database could not be reached"


class DatabaseWatch:
    """Database faults seen by the grading processes: after one, no process starts
    for a pause that doubles with each fault (DB_BACKOFF .. DB_BACKOFF_MAX seconds);
    a success resets it; faults with no success for `patience` seconds mean the
    database is unreachable: nothing more is started."""

    def __init__(self, patience, clock=time.monotonic):
        self.patience, self.clock = patience, clock
        self.faults = 0
        self.first_fault = None
        self.paused_until = 0.0
        self.unreachable = False

    def failed(self):
        now = self.clock()
        self.faults += 1
        self.first_fault = self.first_fault if self.first_fault is not None else now
        self.paused_until = now + min(DB_BACKOFF * 2 ** (self.faults - 1), DB_BACKOFF_MAX)
        self.unreachable = now - self.first_fault >= self.patience

    def succeeded(self):
        self.faults, self.first_fault, self.paused_until = 0, None, 0.0

    def may_launch(self):
        return not self.unreachable and self.clock() >= self.paused_until


def log_path(root, assignment, student):
    """Where a submission's grading log is kept (the last attempt's): logs/ASSIGNMENT/."""
    return Path(root) / LOGS / assignment / log_name(student)


def kept_earlier(root, assignment, students):
    """Those of `students` whose earlier run's graded copy is still in autograded/."""
    return [s for s in students if (Path(root) / "autograded" / s / assignment).exists()]


def unreachable_message(root, assignment, outcomes, patience):
    """What a run stopped by an unreachable database graded, and what it did not: those
    it tried lost their autograded folder (no half-graded copy is left), those it never
    started keep what an earlier run gave them, in autograded/ and the gradebook alike."""
    graded = sorted(o.student for o in outcomes if o.ok)
    missing = sorted(o.student for o in outcomes if not o.ok)
    earlier = kept_earlier(root, assignment, missing)
    text = (f"\nstopped: the gradebook's database could not be reached for {patience:g} s.\n"
            f"graded in this run ({len(graded)}): {for_terminal(', '.join(graded)) or '-'}\n"
            f"not graded ({len(missing)}): {for_terminal(', '.join(missing)) or '-'}\n")
    if earlier:
        text += (f"{len(earlier)} of them keep the grade of an earlier run (never started in "
                 f"this one): {for_terminal(', '.join(earlier))}\n")
    return text + ("When the database is back, `python -m grader grade "
                   f"{assignment}` (without --force) grades those with no grade; "
                   "no report was written.")


def interrupted_message(root, assignment, cohort, outcomes, force):
    """What Ctrl-C left, and the command that finishes the job, true with and without --force."""
    graded = {o.student for o in outcomes if o.ok}
    rest = [s for s in cohort if s not in graded]
    earlier = kept_earlier(root, assignment, rest)
    text = f"interrupted: {len(graded)} graded in this run, {len(rest)} not"
    if earlier:
        text += (f" ({len(earlier)} of them keep the grade of an earlier run, "
                 f"{len(rest) - len(earlier)} have none)")
    text += (f"; `python -m grader grade {assignment}` (without --force) grades the "
             f"{len(rest) - len(earlier)} with no grade")
    if force:
        text += ("; the same command again, with --force, grades all "
                 f"{len(cohort)} again")
    return text


def preflight(root, options, scheduler=None):
    """Once, before anything is graded: kernels here, or on every worker of the cluster,
    run the course this grader judges with (grader/sandbox/preflight.py); SystemExit if not.
    Asked from processes of their own: the grading processes are forked from this one.
    Not asked again in this process for the same course, options and grader (the next
    assignment of one run, the demo's second language)."""
    from grader.sandbox.preflight import stamp
    asked = (str(root), tuple(options), scheduler, stamp())
    if asked in PREFLIGHTED:
        return
    if scheduler:
        config = load_config(root, options)
        from grader.cohort.cluster import CONFIG_SECTIONS, refuse_on_worker_mismatch
        refuse_on_worker_mismatch(scheduler, {name: dict(config[name]) for name in CONFIG_SECTIONS
                                              if name in config})
    else:
        from grader.sandbox.preflight import refuse_on_mismatch_apart
        refuse_on_mismatch_apart(root, options)
    PREFLIGHTED.add(asked)


PREFLIGHTED = set()  # what preflight() found well in this process


def _interrupt(root, assignment, running, outcomes):
    for process, *_ in running.values():
        process.send_signal(signal.SIGINT)
    deadline = time.monotonic() + INTERRUPT_GRACE
    for process, student, attempt, started, log in running.values():
        try:
            process.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        if process.returncode != 0:
            remove_unfinished(root, assignment, student)
        outcomes.append(Outcome(student, process.returncode == 0,
                                "" if process.returncode == 0 else "interrupted"))


class _bar:
    """A progress bar: submissions done, failed, rate and time left (tqdm's)."""

    def __init__(self, total, show):
        self.failed = 0
        self.tqdm = None
        if show:
            from tqdm import tqdm
            tqdm.monitor_interval = 0  # no thread of its own: grading processes are forked
            self.tqdm = tqdm(total=total, unit="sub", file=sys.stderr, dynamic_ncols=True,
                             desc="grading")

    def done(self, outcome):
        self.failed += not outcome.ok
        if self.tqdm is not None:
            self.tqdm.set_postfix(failed=self.failed, refresh=False)
            self.tqdm.update(1)

    def close(self):
        if self.tqdm is not None:
            self.tqdm.close()


def main(argv):
    import argparse
    parser = argparse.ArgumentParser(prog="python -m grader grade", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("assignment", nargs="+", help="graded one after the other")
    parser.add_argument("--workers", type=int, default=None,
                        help="submissions graded at once (default: the machine's cores)")
    parser.add_argument("--force", action="store_true",
                        help="grade again submissions already graded (nbgrader's --force)")
    parser.add_argument("--lang", choices=LANGUAGES, default=None,
                        help="the HTML report's language (default: the assignment's)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--db-patience", type=float, default=DB_PATIENCE, metavar="SECONDS",
                        help="how long database faults may go on, with no submission "
                             "graded in between, before the run stops cleanly "
                             f"(default {DB_PATIENCE:g})")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="a Dask scheduler (tcp://host:8786): run the kernels on its "
                             "workers (default --workers: the cluster's threads)")
    arguments, options = parser.parse_known_args(argv)
    stray = [word for word in options if not word.startswith("-")
             and (Path.cwd() / "source" / word).is_dir()]
    if stray:  # argparse takes only the words before the first option as assignments
        raise SystemExit("name every assignment before the options: python -m grader grade "
                         f"{' '.join(arguments.assignment + stray)} [options]")
    failed = False
    for assignment in arguments.assignment:  # the options nbgrader takes follow them
        outcomes = grade(Path.cwd(), assignment, arguments.workers, arguments.force,
                         options, progress=not arguments.no_progress, lang=arguments.lang,
                         scheduler=arguments.scheduler, db_patience=arguments.db_patience)
        failed = failed or any(not o.ok for o in outcomes)
    return 1 if failed else 0
