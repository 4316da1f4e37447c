"""Extra credit for bonus exercises, in nbgrader's own column.

nbgrader 0.9.6 has no cell metadata for extra credit: a grade's `extra_credit` is
set by hand in formgrader, and a grade's score is its auto (or manual) score plus
it. A bonus exercise is therefore a test cell worth 0 points (so full marks never
need it) whose check declares `bonus` points; `SaveBonus`, run after
SaveAutoGrades, records them as that grade's extra credit when the cell passed,
from the verdict the grader wrote (an error output when it failed). A grader can
still change it in formgrader; autograding again recomputes it.
"""
from nbgrader import utils
from nbgrader.preprocessors import SaveAutoGrades

from grader.checks import bonus_of


class SaveBonus(SaveAutoGrades):
    """Set `extra_credit` of the passed bonus cells (and 0 for the failed ones)."""

    def _add_score(self, cell, resources):
        bonus = bonus_of(cell.metadata["nbgrader"]["grade_id"])
        if not bonus or utils.is_solution(cell):
            return
        passed = cell.outputs and not any(
            o.output_type == "error" or (o.output_type == "stream" and o.get("name") == "stderr")
            for o in cell.outputs)
        grade = self.gradebook.find_grade(cell.metadata["nbgrader"]["grade_id"], self.notebook_id,
                                          self.assignment_id, self.student_id)
        grade.extra_credit = float(bonus) if passed else 0.0
        self.gradebook.db.commit()

    def _add_comment(self, cell, resources):
        pass  # SaveAutoGrades has recorded the comments
