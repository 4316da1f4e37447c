"""Small nbgrader preprocessors the course plugs in through nbgrader_config.py."""
import io
import os
import re

import nbformat
from nbconvert.exporters import NotebookExporter
from nbconvert.exporters.exporter import ResourcesDict
from nbgrader.preprocessors import ClearSolutions, NbGraderPreprocessor

from course.i18n import say
from grader.plugins.archives import archive_kind
from grader.plugins.execute import notebook_language
from grader.plugins.intake import Refused, open_regular


class LocalizedClearSolutions(ClearSolutions):
    """ClearSolutions with stubs in the notebook's own language (nbgrader's are English only).
    A stub set in the configuration (`ClearSolutions.code_stub`, `.text_stub`, or this class's)
    is the instructor's choice: it is used as nbgrader would use it, in every language."""

    def preprocess(self, nb, resources):
        lang = notebook_language(nb)
        if not self.configured("code_stub"):
            self.code_stub = {"python": say("code_stub", lang)}
        if not self.configured("text_stub"):
            self.text_stub = say("text_stub", lang)
        return super().preprocess(nb, resources)

    def configured(self, trait):
        return any(trait in self.config[name] for name in ("ClearSolutions", type(self).__name__)
                   if name in self.config)

    def _replace_solution_region(self, cell, language):
        """A solution of one line `NAME = value` (a prediction, a number) is released as
        `NAME = None`: the student replaces None, and a cell that reads NAME still runs."""
        lines = cell.source.split("\n")
        begins = [i for i, line in enumerate(lines) if self.begin_solution_delimeter in line]
        if cell.cell_type == "code" and len(begins) == 1 and len(lines) > begins[0] + 2 \
                and self.end_solution_delimeter in lines[begins[0] + 2]:
            answer = ONE_LINE_ANSWER.match(lines[begins[0] + 1])
            if answer:
                cell.source = "\n".join([*lines[:begins[0]], f"{answer.group(1)}{answer.group(2)} = None",
                                         *lines[begins[0] + 3:]])
                return True
        return super()._replace_solution_region(cell, language)


ONE_LINE_ANSWER = re.compile(r"^(\s*)([A-Z][A-Z0-9_]*) = \S.*$")


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


def release_notebook(configurable, resources):
    """The notebook students received for this submission (no solutions in it)."""
    while not hasattr(configurable, "coursedir"):  # preprocessor -> exporter -> converter
        configurable = configurable.parent
    coursedir = configurable.coursedir
    info = resources["nbgrader"]
    folder = coursedir.format_path(coursedir.release_directory, ".", info["assignment"])
    return nbformat.read(os.path.join(folder, info["notebook"] + ".ipynb"), as_version=4)


class TolerantNotebookExporter(NotebookExporter):
    """Reads a submission; one that is not a readable notebook is graded as the
    unmodified release, marked with the reason, instead of stopping nbgrader.

    Only `from_file` is replaced: nbconvert's `from_filename` still records the
    notebook's folder in `resources["metadata"]["path"]`, which is where the
    kernel works (without it, the kernel would start in the course root)."""

    def from_filename(self, filename, resources=None, **kw):
        """nbconvert's, reading only a regular file of the submission (a notebook that is
        a link, a FIFO or over the size cap is graded as the release, with the reason)."""
        resources = resources if resources is not None else ResourcesDict()
        if not resources.get("metadata"):
            resources["metadata"] = ResourcesDict()
        path, basename = os.path.split(filename)
        resources["metadata"].update(name=os.path.splitext(basename)[0], path=path)
        try:
            binary = open_regular(filename)
        except Refused as refused:
            lang = notebook_language(release_notebook(self.parent, resources))
            return self.unreadable(refused.say(lang), resources, **kw)
        except OSError as error:
            return self.unreadable(f"{type(error).__name__}: {error.strerror}", resources, **kw)
        with io.TextIOWrapper(binary, encoding="utf-8") as stream:
            kind = archive_kind(binary.peek(262)[:262])
            if kind:  # an archive handed in as the notebook (an LMS upload): not opened
                lang = notebook_language(release_notebook(self.parent, resources))
                return self.unreadable(say("archive_not_opened", lang, kind=kind, notebook=(
                    resources.get("nbgrader", {}).get("assignment") or "ASSIGNMENT") + ".ipynb"),
                    resources, **kw)
            return self.from_file(stream, resources=resources, **kw)

    def unreadable(self, reason, resources, **kw):
        nb = release_notebook(self.parent, resources)
        nb.metadata.setdefault("course", {})["unreadable"] = reason[:300]
        return self.from_notebook_node(nb, resources=resources, **kw)

    def from_file(self, file_stream, resources=None, **kw):
        try:
            nb = nbformat.read(file_stream, as_version=4)
            nbformat.validate(nb)
        except Exception as error:  # noqa: BLE001 - not JSON, not UTF-8, not a notebook, wrong version
            return self.unreadable(f"{type(error).__name__}: {error}", resources, **kw)
        return self.from_notebook_node(nb, resources=resources, **kw)


class RepairMetadata(NbGraderPreprocessor):
    """First sanitizer: nbgrader metadata is the student's to break, so keep only
    what matches the release (nbgrader then restores sources and points).

    Without it, one notebook with an edited schema_version stops nbgrader for
    the whole cohort (SchemaTooOldError), and a cell the student tagged as
    graded would be graded.
    """

    def preprocess(self, nb, resources):
        release = release_notebook(self.parent, resources)
        known = {c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"]
                 for c in release.cells if "nbgrader" in c.metadata}
        seen = set()
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader")
            if meta is None:
                continue
            grade_id = meta.get("grade_id") if isinstance(meta, dict) else None
            if grade_id in known and grade_id not in seen:
                cell.metadata["nbgrader"] = dict(known[grade_id])
                seen.add(grade_id)
            else:
                del cell.metadata["nbgrader"]  # a copy, or not from the release
        nb.metadata.setdefault("course", {})["missing_cells"] = sorted(set(known) - seen)
        language = release.metadata.get("course", {}).get("lang")
        nb.metadata["course"]["lang"] = language  # the assignment's, not the file's
        return nb, resources
