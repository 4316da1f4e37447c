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

This module is the loop; beside it: `forking` (the grading processes), `lock`, `database`
(faults and back-off), `plan` (kernels kept apart), `preflight_once`, `messages`, `progress`.
"""

import glob
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from course.commands import Parser, positive
from course.names import LANGUAGES
from grader.cohort.database import (
    DB_BACKOFF,
    DB_PATIENCE,
    UNREACHABLE,
    DatabaseWatch,
    database_fault,
    database_options,
)
from grader.cohort.forking import command, launch, warm_up
from grader.cohort.lock import lock
from grader.cohort.messages import (
    failure_reason,
    interrupted_message,
    log_path,
    unreachable_message,
)
from grader.cohort.plan import Plan, plan
from grader.cohort.preflight_once import preflight_once
from grader.cohort.progress import Progress
from grader.plugins.inert import for_terminal
from grader.plugins.intake import unsafe_id
from grader.reports.logs import LOGS
from grader.reports.report import write_report

INTERRUPT_GRACE = 30  # seconds an interrupted process has to clean up


@dataclass
class Outcome:
    student: str
    ok: bool
    reason: str = ""
    seconds: float = 0.0
    attempts: int = 1


@dataclass
class Job:
    """A submission being graded: its process, which attempt, since when, its log."""
    process: object
    student: str
    attempt: int
    started: float
    log: Path


def students(root, assignment):
    """The students with a submission, as stock nbgrader finds them (hidden folders skipped)."""
    pattern = os.path.join(glob.escape(str(root)), "submitted", "*", glob.escape(assignment))
    return sorted(Path(path).parent.name for path in glob.glob(pattern) if os.path.isdir(path))


def already_graded(root, assignment, student):
    """Whether stock `nbgrader autograde` (without --force) would skip this submission: its
    autograded folder is there, and the submission is not newer than it (timestamp.txt)."""
    from nbgrader.utils import parse_utc
    graded = Path(root) / "autograded" / student / assignment
    if not graded.is_dir():
        return False
    stamps = [folder / "timestamp.txt" for folder in (Path(root) / "submitted" / student / assignment, graded)]
    try:
        new, old = (parse_utc(path.read_text().strip()) if path.is_file() else None for path in stamps)
    except ValueError:  # nbgrader stops on it: let it say so
        return False
    return not (new is not None and old is not None and new > old)


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
    cohort, outcomes = accepted(students(root, assignment))
    done = [] if force else [student for student in cohort if already_graded(root, assignment, student)]
    cohort = [student for student in cohort if student not in done]
    if done and not cohort and not outcomes:  # nothing new: no grading, no report rewritten
        held.close()
        print(f"{assignment}: already graded ({len(done)} submissions); use --force to grade them again",
              file=sys.stderr)
        return []
    if done:
        print(f"{assignment}: {len(done)} submission(s) already graded, left as they are "
              "(use --force to grade them again)", file=sys.stderr)
    how, options = kept_apart(root, len(cohort), workers, options, scheduler)
    warm_up(scheduler, assignment, root, options)  # first: the preflight's kernel is forked and reads the caches too
    # a folder without the course's nbgrader_config.py does not grade with its sandbox
    if cohort and (root / "nbgrader_config.py").exists():
        preflight_once(root, options, scheduler)
    if how.note:
        print(f"grading {len(cohort)} submissions of {assignment}, {how.workers} at a time "
              f"({how.note})", file=sys.stderr)
    base = options + database_options(root, options)
    (root / LOGS / assignment).mkdir(parents=True, exist_ok=True)
    bar = Progress(len(cohort), progress)
    queue = [(student, 1) for student in cohort]  # (student, attempt), next first
    running = {}  # worker slot -> Job
    database = DatabaseWatch(DB_PATIENCE if db_patience is None else db_patience, DB_BACKOFF)
    try:
        while queue or running:
            for slot in range(how.workers):
                if slot not in running and queue and database.may_launch():
                    student, attempt = queue.pop(0)
                    log = log_path(root, assignment, student)
                    process = launch(command(root, assignment, student, base + how.options(slot)), root, log)
                    running[slot] = Job(process, student, attempt, time.monotonic(), log)
            if database.unreachable and not running:
                # never started: what they held, they hold
                outcomes += [Outcome(s, False, UNREACHABLE, 0.0, attempt - 1) for s, attempt in queue]
                queue = []
            time.sleep(0.05)
            for slot, job in list(running.items()):
                if job.process.poll() is None:
                    continue
                del running[slot]
                outcome = settle(root, assignment, job, database)
                if outcome is None:  # a database fault: graded again, first, after the pause
                    queue.insert(0, (job.student, job.attempt + 1))
                    continue
                outcomes.append(outcome)
                bar.done(outcome)
    except KeyboardInterrupt:
        outcomes += interrupt(root, assignment, running.values())
        bar.close()
        print("\n" + interrupted_message(root, assignment, cohort, outcomes, force), file=sys.stderr)
        raise SystemExit(130)
    finally:
        held.close()
    bar.close()
    for outcome in outcomes:
        if not outcome.ok:
            print(for_terminal(f"NOT GRADED {outcome.student}: {outcome.reason} "
                               f"(log: {log_path(root, assignment, outcome.student)})"), file=sys.stderr)
    if database.unreachable:
        print(unreachable_message(root, assignment, outcomes, database.patience), file=sys.stderr)
    elif report:
        write_report(root, assignment, lang, options)
    return sorted(outcomes, key=lambda o: o.student)


def accepted(cohort):
    """(the students graded, the Outcomes of those refused): ids a page or a terminal would
    take for markup or a new line are not graded (grader/plugins/intake.py)."""
    refused = [Outcome(student, False, f"student id {student!r} refused: {unsafe_id(student)}; "
                                       "rename its folder under submitted/ to a plain id")
               for student in cohort if unsafe_id(student)]
    return [student for student in cohort if not unsafe_id(student)], refused


def kept_apart(root, count, workers, options, scheduler):
    """(the Plan for `count` submissions, the options with the cluster's address if any)."""
    if scheduler:
        from grader.cohort.cluster import threads_of
        wanted = workers or threads_of(scheduler)
        return (Plan(min(wanted, max(1, count)), note=f"kernels on the workers of the Dask cluster at {scheduler}"),
                [*options, f"--GradingExecute.scheduler={scheduler}"])
    wanted = workers or os.cpu_count() or 1
    return plan(root, min(wanted, max(1, count)), options), options


def settle(root, assignment, job, database):
    """The Outcome of a finished Job; None when a database fault means grading it again
    (its unfinished copy removed, the database's back-off counted)."""
    text = job.log.read_text(errors="replace")
    returncode, seconds = job.process.returncode, time.monotonic() - job.started
    if returncode == 0:
        database.succeeded()
        return Outcome(job.student, True, "", seconds, job.attempt)
    remove_unfinished(root, assignment, job.student)
    if returncode > 0 and database_fault(text):
        database.failed()
        if not database.unreachable:
            return None
        return Outcome(job.student, False, UNREACHABLE + ": " + failure_reason(returncode, text),
                       seconds, job.attempt)
    return Outcome(job.student, False, failure_reason(returncode, text), seconds, job.attempt)


def interrupt(root, assignment, jobs):
    """Ctrl-C: each running process interrupted once (nbgrader removes what it had not
    finished), given INTERRUPT_GRACE seconds, then killed; their Outcomes."""
    jobs = list(jobs)
    for job in jobs:
        job.process.send_signal(signal.SIGINT)
    deadline = time.monotonic() + INTERRUPT_GRACE
    outcomes = []
    for job in jobs:
        try:
            job.process.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(job.process.pid, signal.SIGKILL)
            job.process.wait()
        if job.process.returncode != 0:
            remove_unfinished(root, assignment, job.student)
        outcomes.append(Outcome(job.student, job.process.returncode == 0,
                                "" if job.process.returncode == 0 else "interrupted"))
    return outcomes


def parser():
    parser = Parser(prog="python -m grader grade", description=(
        "Grade every submission of each ASSIGNMENT (submitted/STUDENT/ASSIGNMENT/) with stock\n"
        "`nbgrader autograde ASSIGNMENT --student ID`, several at once, in the sandbox; then write\n"
        "the cohort report (reports/ASSIGNMENT.csv and .html). A submission already graded is left\n"
        "as it is unless --force (or unless it was handed in again since). What was graded stays\n"
        "graded whatever stops the run; docs/en/grading.md says what each fault does."),
        epilog="nbgrader options: --Class.trait=value, as nbgrader reads them (in one word, with =), "
               "e.g. --CourseDirectory.db_url=postgresql://... or --SandboxedKernelManager.memory_limit=...")
    parser.add_argument("assignment", nargs="+", help="graded one after the other: theory03-en, lab01-es, ...")
    parser.add_argument("--workers", type=positive(int), default=None,
                        help="submissions graded at once (default: the machine's cores; with --scheduler, "
                             "the cluster's threads)")
    parser.add_argument("--force", action="store_true",
                        help="grade again submissions already graded (nbgrader's --force; default: skip them)")
    parser.add_argument("--lang", choices=LANGUAGES, default=None,
                        help="the HTML report's language (default: the assignment's)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (default: a bar on the terminal)")
    parser.add_argument("--db-patience", type=positive(float), default=DB_PATIENCE, metavar="SECONDS",
                        help="how long database faults may go on, with no submission "
                             "graded in between, before the run stops cleanly "
                             f"(default: {DB_PATIENCE:g})")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="a Dask scheduler (tcp://host:8786): run the kernels on its "
                             "workers (default: none, kernels on this machine)")
    return parser


def main(argv):
    from grader.arguments import known_assignments, nbgrader_options, split_options
    command_line = parser()
    options, rest = split_options(argv)
    arguments = command_line.parse_intermixed_args(rest)
    options = nbgrader_options(command_line, options)
    root = Path.cwd()
    known_assignments(command_line, root, arguments.assignment)
    empty = [a for a in arguments.assignment if not students(root, a)]
    if empty:  # before anything is graded: a report of nobody would replace the last one
        command_line.fail(f"no submissions of {', '.join(empty)} in {root / 'submitted'} "
                          "(submitted/STUDENT/ASSIGNMENT/): collect them first (nbgrader collect or zip_collect)")
    failed = False
    for assignment in arguments.assignment:  # the options nbgrader takes follow them
        outcomes = grade(root, assignment, arguments.workers, arguments.force,
                         options, progress=not arguments.no_progress, lang=arguments.lang,
                         scheduler=arguments.scheduler, db_patience=arguments.db_patience)
        failed = failed or any(not o.ok for o in outcomes)
    return 1 if failed else 0
