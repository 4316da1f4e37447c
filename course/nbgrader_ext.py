"""Small nbgrader preprocessors the course plugs in through nbgrader_config.py."""
from nbgrader.preprocessors import ClearSolutions, NbGraderPreprocessor

from course.i18n import say
from course.grading import notebook_language


class LocalizedClearSolutions(ClearSolutions):
    """ClearSolutions with stubs in the notebook's own language (nbgrader's are English only)."""

    def preprocess(self, nb, resources):
        lang = notebook_language(nb)
        self.code_stub = {"python": say("code_stub", lang)}
        self.text_stub = say("text_stub", lang)
        return super().preprocess(nb, resources)


class HideHiddenTests(NbGraderPreprocessor):
    """For feedback: replace each hidden-test region with one line saying it is hidden.

    nbgrader shows hidden tests in feedback by design (upstream issue 917);
    the verdict, with its reason, stays in the cell's outputs.
    """
    begin = "### BEGIN HIDDEN TESTS"
    end = "### END HIDDEN TESTS"

    def preprocess(self, nb, resources):
        self.lang = notebook_language(nb)
        return super().preprocess(nb, resources)

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code" and self.begin in cell.source:
            kept, hidden = [], False
            for line in cell.source.splitlines():
                if line.strip() == self.begin:
                    hidden = True
                    kept.append(say("hidden_tests", self.lang))
                elif line.strip() == self.end:
                    hidden = False
                elif not hidden:
                    kept.append(line)
            cell.source = "\n".join(kept)
        return cell, resources
