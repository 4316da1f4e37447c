"""`nbgrader submit` as a student runs it on a shared exchange, leaving the submission
private: nbgrader makes each submission folder writable by every account (so that an
instructor who is not root can delete it later); this keeps it readable by its student
and by the instructor's group (inbound/ gives its folders that group), and by nobody else.
A submission over nbgrader's size cap is not handed in, and the student is told why in
their language. A student's nbgrader configuration names it (`SUBMIT`): turned off,
only that student's own submission is exposed, and collection still refuses whatever a
classmate plants in their name (grader/plugins/exchange.py); on a class's hub the
submission is frozen as soon as it is handed in (classroom/hand_in.py)."""
import os

from nbgrader.exchange.default.submit import ExchangeSubmit

from course.i18n import say
from course.names import language_of

SUBMIT = "course.exchange.PrivateSubmit"  # for c.ExchangeFactory.submit
SUBMISSION_MODE = 0o750  # the student: everything; the instructor's group: read; others: nothing
MIB = 1024 ** 2


class PrivateSubmit(ExchangeSubmit):
    def copy_files(self):
        # nbgrader's own cap (max_dir_size, measured as nbgrader measures it), said in the
        # student's language before anything is copied
        found, cap = self.get_size(self.src_path), 1000 * self.coursedir.max_dir_size
        if found > cap:
            self.fail(say("submit_too_big", language_of(self.coursedir.assignment_id),
                          assignment=self.coursedir.assignment_id, found=-(-found // MIB), mib=cap // MIB))
        super().copy_files()
        os.chmod(os.path.join(self.inbound_path, self.assignment_filename), SUBMISSION_MODE)
