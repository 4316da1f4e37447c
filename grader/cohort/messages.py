"""What a cohort run says: why a submission was not graded, where its log is, and what an
interrupted or stopped run left and which command finishes the job."""
import re
import signal
import textwrap
from pathlib import Path

from grader.plugins.inert import for_terminal
from grader.reports.logs import LOGS, log_name


def failure_reason(returncode, log):
    if returncode < 0:
        return f"grading process killed by signal {-returncode} ({signal.Signals(-returncode).name})"
    lines = log.splitlines()
    # the exception that stopped nbgrader (its own ERROR lines only point back at it)
    raised = [line for line in lines if re.match(r"\s*\S+(Error|Exception|Refused|Missing|Exit)\b.*", line)]
    errors = [line for line in lines if "| ERROR]" in line or "Error" in line]
    last = (raised or errors or [line for line in lines if line.strip()] or ["(no output)"])[-1]
    return f"nbgrader exited with status {returncode}: " + textwrap.shorten(last.strip(), 300, placeholder=" …")


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
