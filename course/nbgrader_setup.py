"""How the course wires itself into stock nbgrader (called from nbgrader_config.py)."""
from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import (
    AssignLatePenalties, CheckCellMetadata, ClearHiddenTests, ClearMarkScheme, ClearOutput,
    ComputeChecksums, DeduplicateIds, GetGrades, IgnorePattern, IncludeHeaderFooter, InstantiateTests,
    LimitOutput, LockCells, OverwriteCells, OverwriteKernelspec, SaveAutoGrades, SaveCells)

from course.grading import GradingExecute
from course.sandbox import refuse_without_sandbox
from course.nbgrader_ext import (
    HideHiddenTests, LocalizedClearSolutions, RepairMetadata, TolerantNotebookExporter)


def configure(c):
    c.CourseDirectory.course_id = "autograd-by-hand"
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
        GradingExecute, IgnorePattern, ClearMetadataPreprocessor, LimitOutput, SaveAutoGrades,
        AssignLatePenalties, CheckCellMetadata]
    c.GenerateFeedback.preprocessors = [GetGrades, HideHiddenTests, CSSHTMLHeaderPreprocessor]
    c.Autograde.pre_convert_hook = refuse_without_sandbox
    # limits, each also settable in nbgrader_config.py after configure(c)
    c.Execute.timeout = 30  # seconds a cell may run
    c.GradingExecute.max_output_bytes = 1_000_000  # output kept per cell
    c.SandboxedKernelManager.memory_limit = 2 * 1024 ** 3  # bytes of address space
    c.SandboxedKernelManager.process_limit = 512  # processes and threads
    c.SandboxedKernelManager.cpu_seconds = 600  # CPU time of one kernel
    c.SandboxedKernelManager.sandbox = True  # False: unsandboxed, and reports say so
