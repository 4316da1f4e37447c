"""Late penalties, through nbgrader's own late-submission plugin mechanism.

nbgrader knows a submission is late from the assignment's due date (in the
gradebook: `nbgrader db assignment add ASSIGNMENT --duedate="..."`, or
formgrader's Manage Assignments) and the submission's `timestamp.txt` (written
by `nbgrader collect`, or by `python -m grader late-flags` for an LMS export).
During autograding, nbgrader's `AssignLatePenalties` asks the plugin named by
`AssignLatePenalties.plugin_class` for each late notebook's penalty. This
course's plugin, `PercentPerDay`, takes a share of the score per day late:

    c.PercentPerDay.percent_per_day = 10   # each started day late costs 10% of the score
    c.PercentPerDay.max_percent = 100      # never more than this share
    c.PercentPerDay.grace_minutes = 0      # minutes late that cost nothing

Autograding knows only the automatic scores, so `python -m grader export` asks
the same plugin again with the final score (manual grades and extra credit
included): the penalty is always a share of what the student finally got.
"""
import math

from nbgrader.plugins import LateSubmissionPlugin
from traitlets import Float

DAY = 24 * 3600


class PercentPerDay(LateSubmissionPlugin):
    """A share of the score per started day late, after a grace period, up to a cap. nbgrader's
    own `LateSubmissionPlugin.penalty_method`, when the configuration sets it, is honoured as
    nbgrader defines it: 'none' takes nothing, 'zero' takes the whole score."""

    percent_per_day = Float(10.0, help="Percent of the score taken per started day late.").tag(config=True)
    max_percent = Float(100.0, help="The most, in percent of the score, a late "
                                    "submission loses.").tag(config=True)
    grace_minutes = Float(0.0, help="Minutes late that cost nothing.").tag(config=True)

    def late_submission_penalty(self, student_id, score, total_seconds_late):
        if any("penalty_method" in self.config[name] for name in ("LateSubmissionPlugin", "PercentPerDay")
               if name in self.config):
            return super().late_submission_penalty(student_id, score, total_seconds_late)
        late = total_seconds_late - 60 * self.grace_minutes
        if late <= 0 or score <= 0:
            return 0.0
        days = math.ceil(late / DAY)
        return score * min(self.max_percent, days * self.percent_per_day) / 100


def penalty(config, student, score, seconds_late):
    """What the configured plugin (AssignLatePenalties.plugin_class) takes from `score`,
    kept between 0 and the score, as nbgrader keeps it."""
    from nbgrader.preprocessors import AssignLatePenalties
    if seconds_late <= 0:
        return 0.0
    assigner = AssignLatePenalties(config=config)
    assigner.init_plugin()
    taken = assigner.plugin_inst.late_submission_penalty(student, score, seconds_late)
    return 0.0 if taken is None else min(max(0.0, float(taken)), max(0.0, score))


def stamp_late(root, assignment, students, options=()):
    """Canvas flags a late upload (`LATE_` in its export's file names) but gives no
    time, and `nbgrader zip_collect` carries none: write, for each flagged student,
    the submission's `timestamp.txt` one second after the assignment's due date (in
    the gradebook), so that nbgrader's own late mechanism charges the first day's
    penalty. Returns the students stamped; refuses when no due date is set."""
    from datetime import timedelta
    from pathlib import Path

    from nbgrader.api import MissingEntry

    from grader.config import gradebook
    with gradebook(root, options) as gb:
        try:
            due = gb.find_assignment(assignment).duedate
        except MissingEntry:
            due = None
    if due is None:
        raise SystemExit(f"{assignment} has no due date in the gradebook: "
                         f"nbgrader db assignment add {assignment} --duedate=...")
    stamp = (due + timedelta(seconds=1)).strftime("%Y-%m-%d %H:%M:%S.%f") + " UTC"
    stamped = []
    for student in students:
        folder = Path(root) / "submitted" / student / assignment
        if folder.is_dir():
            (folder / "timestamp.txt").write_text(stamp)
            stamped.append(student)
    return stamped


def main(argv):
    """python -m grader late-flags ASSIGNMENT: after `nbgrader zip_collect ASSIGNMENT`,
    the students Canvas flagged late are stamped late (see stamp_late)."""
    from pathlib import Path

    from course.commands import Parser
    from grader.arguments import known_assignments
    parser = Parser(prog="python -m grader late-flags", description=main.__doc__)
    parser.add_argument("assignment", help="an assignment filed by `nbgrader zip_collect`")
    argv = known_assignments(parser, Path.cwd(), [parser.parse_args(argv).assignment])
    from grader.arguments import existing_gradebook
    from grader.plugins.lms_collect import late_students
    root, assignment = Path.cwd(), argv[0]
    extracted = root / "downloaded" / assignment / "extracted"
    if not extracted.is_dir():
        parser.fail(f"nothing collected from the LMS for {assignment} ({extracted} is missing): "
                    f"run `nbgrader zip_collect {assignment}` first")
    existing_gradebook(parser, root)
    flagged = late_students(extracted)
    stamped = stamp_late(root, assignment, flagged)
    print(f"{len(stamped)} submission(s) of {assignment} stamped late: {', '.join(stamped) or '-'}")
    return 0
