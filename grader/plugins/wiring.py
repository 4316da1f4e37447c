"""How the course wires itself into stock nbgrader (called from nbgrader_config.py)."""
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

from grader.plugins.bonus import SaveBonus
from grader.plugins.execute import GradingExecute
from grader.plugins.feedback import configure_feedback
from grader.plugins.formgrader import guard_formgrader
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
    _clean_terminal()
    # ids, names and emails with markup never enter the gradebook, and formgrader
    # escapes what it shows all the same (a gradebook filled by other means, an address)
    guard_gradebook()
    guard_formgrader()
    c.CourseDirectory.course_id = "autograd-by-hand"
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
    # `nbgrader collect` takes in only regular files, for safe student ids (grader/plugins/intake.py)
    c.ExchangeFactory.collect = "grader.plugins.intake.SafeCollect"
    # `nbgrader zip_collect ASSIGNMENT`: the same for an LMS export, whose file names
    # (Moodle's and Canvas's, grader/plugins/lms_collect.py) are read back
    c.ZipCollectApp.extractor_plugin = "grader.plugins.intake.SafeExtractor"
    c.ZipCollectApp.collector_plugin = "grader.plugins.intake.SafeCollector"
    # late penalties (grader/plugins/late.py): 10% of the score per started day past the due date
    # set in the gradebook (`nbgrader db assignment add A --duedate=...`); 0 disables them
    c.AssignLatePenalties.plugin_class = PercentPerDay
    c.PercentPerDay.percent_per_day = 10.0
    # limits, each also settable in nbgrader_config.py after configure(c)
    c.Execute.timeout = 30  # seconds a cell may run
    c.GradingExecute.max_output_bytes = 1_000_000  # output kept per cell
    c.GradingExecute.max_notebook_output_bytes = 10_000_000  # output kept per notebook
    c.GradingExecute.notebook_timeout = 300  # seconds for a whole notebook, replays included
    c.SandboxedKernelManager.memory_limit = 2 * 1024 ** 3  # bytes (cgroup; and address space)
    c.SandboxedKernelManager.tmp_size = 256 * 1024 ** 2  # the kernel's /tmp
    c.SandboxedKernelManager.workdir_size = 256 * 1024 ** 2  # its copy of the submission
    c.SandboxedKernelManager.process_limit = 512  # processes and threads
    c.SandboxedKernelManager.cpu_seconds = 600  # CPU time of one kernel
    c.SandboxedKernelManager.sandbox = True  # False: unsandboxed, and reports say so


def before_each_submission(**hook):
    """nbgrader's pre-convert hook: the defences (once), a kernel running the course the
    grader judges with (once, grader/sandbox/preflight.py), then the submission vetted before
    nbgrader copies it (grader/plugins/intake.py)."""
    announce_defences(**hook)
    before_grading(**hook)
    vet_before_copy(**hook)


def _clean_terminal():
    """What nbgrader logs (student ids come from folder names) reaches the terminal
    without control characters."""
    from traitlets.config import Application
    if Application.initialized():
        for handler in Application.instance().log.handlers:
            handler.addFilter(TerminalSafe())
