"""`nbgrader submit` as a student runs it on a shared exchange, leaving the submission
private: nbgrader makes each submission folder writable by every account (so that an
instructor who is not root can delete it later); this keeps it readable by its student
and by the instructor's group (inbound/ gives its folders that group), and by nobody else.
A student's nbgrader configuration names it (`SUBMIT`): turned off, only that student's
own submission is exposed, and collection still refuses whatever a classmate plants in
their name (grader/plugins/exchange.py)."""
import os

from nbgrader.exchange.default.submit import ExchangeSubmit

SUBMIT = "course.exchange.PrivateSubmit"  # for c.ExchangeFactory.submit
SUBMISSION_MODE = 0o750  # the student: everything; the instructor's group: read; others: nothing


class PrivateSubmit(ExchangeSubmit):
    def copy_files(self):
        super().copy_files()
        os.chmod(os.path.join(self.inbound_path, self.assignment_filename), SUBMISSION_MODE)
