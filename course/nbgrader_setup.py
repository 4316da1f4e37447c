"""How the course wires itself into stock nbgrader (called from nbgrader_config.py)."""
from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import (
    AssignLatePenalties, CheckCellMetadata, ClearHiddenTests, ClearMarkScheme, ClearOutput,
    ComputeChecksums, DeduplicateIds, GetGrades, IgnorePattern, IncludeHeaderFooter, InstantiateTests,
    LimitOutput, LockCells, OverwriteCells, OverwriteKernelspec, SaveAutoGrades, SaveCells)

from course.grading import GradingExecute
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
    c.Execute.timeout = 30  # seconds per cell
