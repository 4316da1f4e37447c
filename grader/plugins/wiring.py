"""How the course wires itself into stock nbgrader (called from nbgrader_config.py), and the
text of every nbgrader_config.py the course writes (`config_text`: the classroom's course
folder, an instructor's settings, the students' environment).

Loading the configuration changes nothing else in the process that loads it (the report,
the export and the cohort command read it for its settings): the guards that change
nbgrader's own classes and the terminal's log are put in place only where an nbgrader
application starts, an nbgrader command or formgrader.
"""
import sys
from dataclasses import dataclass

from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import (
    AssignLatePenalties,
    CheckCellMetadata,
    ClearHiddenTests,
    ClearMarkScheme,
    ClearOutput,
    ComputeChecksums,
    DeduplicateIds,
    GetGrades,
    IgnorePattern,
    IncludeHeaderFooter,
    InstantiateTests,
    LimitOutput,
    LockCells,
    OverwriteCells,
    OverwriteKernelspec,
    SaveAutoGrades,
    SaveCells,
)

from course.names import PROJECT
from grader.plugins.bonus import SaveBonus
from grader.plugins.execute import GradingExecute
from grader.plugins.feedback import configure_feedback
from grader.plugins.formgrader import FORMGRADER, guard_formgrader
from grader.plugins.inert import MakeInert, TerminalSafe
from grader.plugins.intake import vet_before_copy
from grader.plugins.late import PercentPerDay
from grader.plugins.preprocessors import (
    HideHiddenTests,
    LocalizedClearSolutions,
    RepairMetadata,
    TolerantNotebookExporter,
)
from grader.plugins.student_fields import guard_gradebook
from grader.sandbox.kernel import announce_defences
from grader.sandbox.preflight import before_grading


def configure(c):
    if nbgrader_is_starting():
        _clean_terminal()
        # ids, names and emails with markup never enter the gradebook, and formgrader
        # escapes what it shows all the same (a gradebook filled by other means, an address)
        guard_gradebook()
        guard_formgrader()
    c.CourseDirectory.course_id = PROJECT
    # what a notebook writes next to itself when run (lab 01's report) is not handed out
    c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback",
                                "REPORT.md", "errors.csv", "manifest.json"]
    # nbgrader's own list, with the stubs in the notebook's language
    c.GenerateAssignment.preprocessors = [
        IncludeHeaderFooter, InstantiateTests, LockCells, LocalizedClearSolutions, ClearOutput,
        CheckCellMetadata, ComputeChecksums, SaveCells, ClearHiddenTests, ClearMarkScheme,
        ComputeChecksums, CheckCellMetadata]
    # nbgrader's own lists, with the student's metadata repaired first and the
    # verdict decided outside the student's kernel
    c.Autograde.exporter_class = TolerantNotebookExporter
    c.Autograde.sanitize_preprocessors = [
        RepairMetadata, ClearOutput, DeduplicateIds, OverwriteKernelspec, OverwriteCells,
        CheckCellMetadata]
    c.Autograde.autograde_preprocessors = [
        GradingExecute, MakeInert, IgnorePattern, ClearMetadataPreprocessor, LimitOutput, SaveAutoGrades,
        SaveBonus, AssignLatePenalties, CheckCellMetadata]
    c.GenerateFeedback.preprocessors = [GetGrades, HideHiddenTests, CSSHTMLHeaderPreprocessor]
    configure_feedback(c)  # its headings and links in the student's language
    c.Autograde.pre_convert_hook = before_each_submission
    # `nbgrader collect` takes in only regular files, for safe student ids (grader/plugins/intake.py),
    # and refuses a submission not made by the student it names or dated in the future;
    # `release_assignment` leaves inbound/ sticky (grader/plugins/exchange.py)
    c.ExchangeFactory.collect = "grader.plugins.exchange.CheckedCollect"
    c.ExchangeFactory.release_assignment = "grader.plugins.exchange.StickyRelease"
    # `nbgrader zip_collect ASSIGNMENT`: the same for an LMS export, whose file names
    # (Moodle's and Canvas's, grader/plugins/lms_collect.py) are read back
    c.ZipCollectApp.extractor_plugin = "grader.plugins.intake.SafeExtractor"
    c.ZipCollectApp.collector_plugin = "grader.plugins.intake.SafeCollector"
    # late penalties past the due date set in the gradebook (`nbgrader db assignment add A
    # --duedate=...`); PercentPerDay.percent_per_day = 0 disables them
    c.AssignLatePenalties.plugin_class = PercentPerDay
    # the limits are the defaults of the classes that apply them, each declared once there and
    # settable in nbgrader_config.py after configure(c) (`c.SandboxedKernelManager.memory_limit = ...`):
    # SandboxedKernelManager (grader/sandbox/kernel.py): memory 2 GiB, processes 512, 600 CPU s,
    #   /tmp and the working folder 256 MiB each, sandbox True (False: unsandboxed, and reports say so);
    # GradingExecute (grader/plugins/execute.py): output 1 MB a cell and 10 MB a notebook, 300 s a
    #   notebook; nbgrader's Execute.timeout: 30 s a cell; PercentPerDay (grader/plugins/late.py):
    #   10 % per started day late


@dataclass(frozen=True)
class FromEnvironment:
    """A setting's value read from the environment of the process nbgrader starts in."""
    variable: str
    default: str = ""

    def __repr__(self):
        return f"os.environ.get({self.variable!r}, {self.default!r})"


def config_text(settings, wired=False, about=None):
    """An nbgrader_config.py: the course's wiring (`configure(c)`, above) when `wired`, then
    `settings` ({"Class.trait": value}, each value written as Python: a FromEnvironment is
    read when nbgrader starts). Only a wired file imports the grader."""
    lines = [f'"""{about}"""'] if about else []
    if any(isinstance(value, FromEnvironment) for value in settings.values()):
        lines += ["import os", ""]
    if wired:
        lines += ["from grader.plugins.wiring import configure", ""]
    lines.append("c = get_config()  # noqa: F821 (nbgrader provides get_config)")
    if wired:
        lines.append("configure(c)")
    lines += [f"c.{name} = {value!r}" for name, value in settings.items()]
    return "\n".join(lines) + "\n"


def before_each_submission(**hook):
    """nbgrader's pre-convert hook: the defences (once), a kernel running the course the
    grader judges with (once, grader/sandbox/preflight.py), then the submission vetted before
    nbgrader copies it (grader/plugins/intake.py)."""
    announce_defences(**hook)
    before_grading(**hook)
    vet_before_copy(**hook)


def nbgrader_is_starting():
    """Is an nbgrader application loading the configuration: an nbgrader command (its
    application is the process's nbgrader singleton) or formgrader, in a Jupyter server
    that loaded nbgrader's formgrader extension?"""
    from nbgrader.apps.baseapp import NbGrader
    return NbGrader.initialized() or FORMGRADER in sys.modules


def _clean_terminal():
    """What nbgrader logs (student ids come from folder names) reaches the terminal
    without control characters."""
    from traitlets.config import Application
    if Application.initialized():
        for handler in Application.instance().log.handlers:
            handler.addFilter(TerminalSafe())
