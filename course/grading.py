"""The grader's side of every hidden test: run the notebook, then decide.

`GradingExecute` takes the place of nbgrader's `Execute` in
`Autograde.autograde_preprocessors`. It executes the submission like Execute,
but (1) survives a dying kernel: the cell that killed it gets a reason, a new
kernel replays the cells before it and grading goes on; (2) draws a fresh seed
for the hidden checks and hands it to the kernel; (3) after execution, decides
each graded test cell from the evidence that cell printed, with the reference
computed here, in the grader's own process, which student code cannot reach.
It then rewrites the cell's outputs so that nbgrader's own scoring
(an error output means 0 points) records that verdict and nothing else.
"""
import copy
import json
import os
import re
import secrets

from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat.v4 import new_markdown_cell, new_output
from nbgrader.preprocessors import Execute
from traitlets import Integer

from course.checks import find_check
from course.i18n import say
from course.sandbox import SandboxedKernelManager
from course.student import EVIDENCE_MIME, SEED_VARIABLE

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class GradingExecute(Execute):
    """nbgrader's Execute, in a sandbox, surviving deaths, with the verdict decided here."""

    max_output_bytes = Integer(
        1_000_000, help="Output kept per cell; past it the cell's output is cut off "
                        "(protects the grader's memory from output floods)."
    ).tag(config=True)
    max_kernel_restarts = Integer(
        3, help="How many times a dead kernel is replaced before the rest of the "
                "notebook is given up (each replacement replays earlier cells)."
    ).tag(config=True)

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("kernel_manager_class", SandboxedKernelManager)
        super().__init__(*args, **kwargs)

    def output(self, outs, msg, display_id, cell_index):
        size = self._output_sizes.get(cell_index, 0) + len(json.dumps(msg.get("content", {})))
        self._output_sizes[cell_index] = size
        if size > self.max_output_bytes:
            if not self._output_sizes.get(("cut", cell_index)):
                self._output_sizes[("cut", cell_index)] = True
                outs.append(new_output("stream", name="stdout", text="\n[...] " + say(
                    "output_cut", self._lang, limit=self.max_output_bytes) + "\n"))
            return None
        return super().output(outs, msg, display_id, cell_index)

    def preprocess(self, nb, resources=None, km=None):
        lang = self._lang = notebook_language(nb)
        self._output_sizes = {}
        seed = secrets.randbelow(2 ** 31)
        previous = os.environ.get(SEED_VARIABLE)
        os.environ[SEED_VARIABLE] = str(seed)  # the kernel inherits the grader's environment
        try:
            unreadable = nb.metadata.get("course", {}).get("unreadable")
            if not unreadable:
                self._execute_surviving_deaths(nb, resources, lang)
        finally:
            if previous is None:
                os.environ.pop(SEED_VARIABLE, None)
            else:
                os.environ[SEED_VARIABLE] = previous
        missing = nb.metadata.get("course", {}).get("missing_cells", [])
        if missing:
            # say it where the student will look: at the top of the graded copy and feedback
            nb.cells.insert(0, new_markdown_cell(say("missing_cells", lang, ids=", ".join(missing))))
        sandboxed = SandboxedKernelManager(config=self.config).sandbox
        nb.metadata.setdefault("course", {})["grading"] = {"sandboxed": sandboxed}
        for cell in nb.cells:
            if unreadable and is_graded_test(cell):
                cell.outputs = [_error("Unreadable", say("unreadable", lang, error=unreadable))]
            elif is_graded_test(cell):
                decide(cell, seed, lang)
        return nb, resources

    def _execute_surviving_deaths(self, nb, resources, lang):
        killers = set()  # cells whose execution killed the kernel
        resume_at = 0
        for _ in range(self.max_kernel_restarts + 1):
            try:
                self._run_from(nb, resources, killers, resume_at)
                return
            except (DeadKernelError, CellTimeoutError) as error:
                # the kernel is dead, or stuck past an interrupt: a new one takes over
                index = self._current_index
                killers.add(index)
                if isinstance(error, CellTimeoutError):
                    reason = _error("CellTimeout", say("timeout", lang, seconds=self.timeout))
                else:
                    reason = _error("KernelDied", say("kernel_died", lang))
                nb.cells[index].outputs.append(reason)
                resume_at = index + 1
                self.km = None  # a new kernel next time round
                self.kc = None
        for cell in nb.cells[resume_at:]:
            if cell.cell_type == "code":
                cell.outputs = [_error("NotRun", say("not_run", lang))]

    def _run_from(self, nb, resources, killers, resume_at):
        NotebookClient.__init__(self, nb, None)  # as nbconvert's preprocess() does
        self.reset_execution_trackers()
        self._check_assign_resources(resources)
        with self.setup_kernel():
            info = self.wait_for_reply(self.kc.kernel_info())
            nb.metadata["language_info"] = info["content"]["language_info"]
            for index, cell in enumerate(nb.cells):
                self._current_index = index
                if index in killers or cell.cell_type != "code":
                    continue
                if index < resume_at:
                    # replay on a copy: the outputs of the first run stand
                    self.preprocess_cell(copy.deepcopy(cell), resources, index)
                else:
                    self.preprocess_cell(cell, resources, index)


def notebook_language(nb):
    lang = nb.metadata.get("course", {}).get("lang", "en")
    return lang if lang in ("en", "es") else "en"


def is_graded_test(cell):
    meta = cell.metadata.get("nbgrader", {})
    return cell.cell_type == "code" and meta.get("grade") and not meta.get("solution")


def decide(cell, seed, lang):
    """Replace the cell's outputs with the verdict first, then what it printed, defused."""
    grade_id = cell.metadata["nbgrader"]["grade_id"]
    evidence, printed = [], []
    for output in cell.outputs:
        data = output.get("data", {})
        if output.output_type in ("display_data", "execute_result") and EVIDENCE_MIME in data:
            evidence.append(data[EVIDENCE_MIME])
        else:
            printed.append(defuse(output))
    passed, reason = judge(grade_id, evidence, seed, lang, cell.outputs)
    verdict = (new_output("stream", name="stdout", text=reason + "\n") if passed
               else _error("CheckFailed", reason))
    cell.outputs = [verdict] + printed


def judge(grade_id, evidence, seed, lang, outputs):
    try:
        check = find_check(grade_id)
    except LookupError:
        return False, say("no_check", lang, grade_id=grade_id)
    if not evidence:
        errors = [f"{o.ename}: {ANSI.sub('', str(o.evalue))}"[:300]
                  for o in outputs if o.output_type == "error"]
        return False, say("no_evidence", lang, why=(": " + errors[-1]) if errors else "")
    if len(evidence) > 1:
        return False, say("bad_evidence", lang, detail="more than one report")
    try:
        report = json.loads(evidence[0], parse_constant=_reject_constant)
        if not isinstance(report, dict) or report.get("grade_id") != grade_id:
            return False, say("bad_evidence", lang, detail="grade_id")
        if report.get("seed") != seed:
            return False, say("bad_evidence", lang, detail="seed")
        verdict = check.judge(seed, report.get("results"), lang)
    except (TypeError, ValueError, AttributeError, RecursionError):
        return False, say("bad_evidence", lang, detail="unreadable")
    return verdict.passed, verdict.summary


def _reject_constant(name):
    raise ValueError(f"{name} is not allowed")


def defuse(output):
    """The same text, but no longer an error, stderr or result nbgrader would score."""
    if output.output_type == "error":
        # the message, not the traceback: a traceback quotes the hidden tests' source
        return new_output("stream", name="stdout",
                          text=f"{output.get('ename', '')}: {ANSI.sub('', str(output.get('evalue', '')))}\n")
    if output.output_type == "stream":
        return new_output("stream", name="stdout", text=output.get("text", ""))
    if output.output_type == "execute_result":
        return new_output("display_data", data=output.get("data", {}), metadata=output.get("metadata", {}))
    return output


def _error(name, reason):
    return new_output("error", ename=name, evalue=reason, traceback=[f"{name}: {reason}"])
