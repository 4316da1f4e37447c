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
    """A share of the score per started day late, after a grace period, up to a cap."""

    percent_per_day = Float(10.0, help="Percent of the score taken per started day late.").tag(config=True)
    max_percent = Float(100.0, help="The most, in percent of the score, a late "
                                    "submission loses.").tag(config=True)
    grace_minutes = Float(0.0, help="Minutes late that cost nothing.").tag(config=True)

    def late_submission_penalty(self, student_id, score, total_seconds_late):
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
