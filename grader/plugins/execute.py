"""Run a submission for grading, then decide its graded cells.

`GradingExecute` takes the place of nbgrader's `Execute` in
`Autograde.autograde_preprocessors`. It executes the submission like Execute,
in the sandbox (`grader/sandbox/kernel.py`), but:
- the kernel works only on a copy of the submission's own folder;
- it survives a dying kernel: the cell that killed it gets a reason, a new
  kernel replays the cells before it (their first outputs stand) and grading
  goes on, up to `max_kernel_restarts`;
- the whole notebook has a wall-clock budget, and output is capped per cell
  and per notebook, counting every kind of output message;
- it draws a fresh seed for the hidden checks, then decides each graded test
  cell from the evidence that cell printed (`grader/checks/verdicts.py`).
"""
import contextlib
import copy
import json
import os
import secrets
import tempfile
import threading
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat.v4 import new_markdown_cell, new_output
from nbgrader.preprocessors import Execute
from traitlets import Integer, Unicode, default

from course.i18n import say
from course.student import EVIDENCE_MIME
from grader.checks import evidence_allowance
from grader.checks.verdicts import decide, error_output, is_graded_test
from grader.plugins.intake import refusal_note, vet
from grader.plugins.worker import (
    CONFIG_SECTIONS,
    CONNECT_TIMEOUT,
    TASK_GRACE,
    pack,
    turn_without_cgroup,
    unpack,
    worker_uid,
)
from grader.sandbox.kernel import (
    REMOTE_PREFIX,
    SandboxedKernelManager,
    SandboxMissing,
    SandboxRefused,
)
from grader.shared import notebook_language

OUTPUT_MESSAGES = {"stream", "display_data", "execute_result", "error", "update_display_data",
                   "comm_open", "comm_msg"}


class GradingExecute(Execute):
    """nbgrader's Execute, in a sandbox, surviving deaths, within budgets, with the verdict decided here."""

    max_output_bytes = Integer(
        1_000_000, help="Output kept per cell; past it the cell's output is cut off."
    ).tag(config=True)
    max_notebook_output_bytes = Integer(
        10_000_000, help="Output kept for the whole notebook (protects the grader's memory "
                         "and the size of the graded copy)."
    ).tag(config=True)
    notebook_timeout = Integer(
        300, help="Seconds of wall-clock time for the whole notebook, replays after "
                  "kernel deaths included; past it, the cells left are not run."
    ).tag(config=True)
    max_kernel_restarts = Integer(
        3, help="How many times a dead kernel is replaced before the rest of the "
                "notebook is given up (each replacement replays earlier cells)."
    ).tag(config=True)
    max_start_attempts = Integer(
        3, help="How many times a kernel that dies (or does not answer) while starting is "
                "started again before the submission is given up: under load a kernel can "
                "miss kernel_info, which says nothing about the submission."
    ).tag(config=True)
    scheduler = Unicode(
        "", help="A Dask scheduler's address (tcp://host:8786): run each submission's kernels "
                 "on that cluster's workers (grader/cohort/cluster.py). Empty: on this machine."
    ).tag(config=True)

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("kernel_manager_class", SandboxedKernelManager)
        super().__init__(*args, **kwargs)

    @default("shutdown_kernel")
    def _kill_at_once(self):
        # the outputs are in: a graceful shutdown would only wait (about a second, more
        # under load); the sandbox's release waits until its processes are gone
        return "immediate"

    # ---- budgets: output and time ----

    def process_message(self, msg, cell, cell_index):
        if msg["msg_type"] in OUTPUT_MESSAGES:
            size = len(json.dumps(msg.get("content", {})))
            if self._declared_evidence(msg, cell, cell_index, size):
                return super().process_message(msg, cell, cell_index)
            self._cell_bytes[cell_index] = self._cell_bytes.get(cell_index, 0) + size
            over = self._cell_bytes[cell_index] > self.max_output_bytes and self.max_output_bytes
            # graded test cells have only their own cap: a flood elsewhere must not
            # cost the student the evidence of every later check
            if not is_graded_test(cell):
                self._notebook_bytes += size
                if self._notebook_bytes > self.max_notebook_output_bytes:
                    over = over or self.max_notebook_output_bytes
            if over:
                if cell_index not in self._cut:
                    self._cut.add(cell_index)
                    cell.outputs.append(new_output("stream", name="stdout", text="\n[...] " + say(
                        "output_cut", self._lang, limit=over) + "\n"))
                return None
        return super().process_message(msg, cell, cell_index)

    def _declared_evidence(self, msg, cell, cell_index, size):
        """Whether `msg` is the one evidence output of a graded test cell whose check
        declares honest evidence larger than the cell's cap, and fits that size: it
        passes outside the cap, once per cell; everything else is counted as usual."""
        if not is_graded_test(cell) or cell_index in self._evidence_let_through:
            return False
        if msg["msg_type"] != "display_data" or EVIDENCE_MIME not in msg["content"].get("data", {}):
            return False
        allowed = evidence_allowance(cell.metadata["nbgrader"]["grade_id"], self._seed)
        if allowed is None or size > allowed:
            return False
        self._evidence_let_through.add(cell_index)
        return True

    def _get_timeout(self, cell):
        left = self._deadline - time.monotonic()
        return max(1, min(int(left) + 1, super()._get_timeout(cell) or self.notebook_timeout))

    # ---- the run ----

    def create_kernel_manager(self):
        km = self._manager = super().create_kernel_manager()
        km.submission_folder = self._submission
        km.grading_seed = self._seed  # in the kernel's environment: the probes draw from it
        km.mypy_cache = runs_mypy(self.nb)
        return km

    def preprocess(self, nb, resources=None, km=None):
        lang = notebook_language(nb)
        submission = self.submission_folder(resources)
        seed = secrets.randbelow(2 ** 31)
        manager = SandboxedKernelManager(config=self.config)
        defences = manager.defences()
        unreadable = nb.metadata.get("course", {}).get("unreadable")
        if not unreadable and self.scheduler:
            defences = execute_on_cluster(self, nb, submission, seed)
        elif not unreadable:
            defences = self.execute(nb, resources, submission, seed) or defences
        refused = refused_files(self, resources)
        if refused:  # what nbgrader's copy skipped (grader/plugins/intake.py), and why
            nb.cells.insert(0, new_markdown_cell(refusal_note(refused, lang)))
        missing = nb.metadata.get("course", {}).get("missing_cells", [])
        if missing:
            # say it where the student will look: at the top of the graded copy and feedback
            nb.cells.insert(0, new_markdown_cell(say("missing_cells", lang, ids=", ".join(missing))))
        nb.metadata.setdefault("course", {})["grading"] = {
            "sandboxed": manager.sandbox, "defences": defences}
        for cell in nb.cells:
            if unreadable and is_graded_test(cell):
                cell.outputs = [error_output("Unreadable", say("unreadable", lang, error=unreadable))]
            elif is_graded_test(cell):
                decide(cell, seed, lang)
        return nb, resources

    def execute(self, nb, resources, submission, seed):
        """Run `nb`'s cells in sandboxed kernels working on a copy of `submission`,
        writing their outputs into `nb`; returns what protected the machine.
        Nothing is decided here: on a Dask cluster this runs on a worker."""
        self._lang = notebook_language(nb)
        self._cell_bytes, self._notebook_bytes, self._cut = {}, 0, set()
        self._evidence_let_through = set()
        self._submission, self._seed, self._defences = submission, seed, None
        self._deadline = time.monotonic() + self.notebook_timeout
        self._execute_surviving_deaths(nb, resources, self._lang)
        return self._defences

    def submission_folder(self, resources):
        """The folder nbgrader made for this submission under autograded/; nothing else."""
        path = (resources or {}).get("metadata", {}).get("path")
        coursedir = _coursedir(self)
        autograded = Path(coursedir.root, coursedir.autograded_directory).resolve()
        if not path or autograded not in Path(path).resolve().parents:
            raise SandboxRefused(f"refusing to grade outside {autograded}: got {path!r}")
        return str(Path(path).resolve())

    def _execute_surviving_deaths(self, nb, resources, lang):
        killers = set()  # cells whose execution killed the kernel
        resume_at = 0
        failed_starts = 0
        deaths = 0
        while deaths <= self.max_kernel_restarts:
            try:
                self._run_from(nb, resources, killers, resume_at)
                return
            except KernelDidNotStart:
                # no cell has run on it: start another (bounded), costing no death
                failed_starts += 1
                self.km = None
                self.kc = None
                if failed_starts >= self.max_start_attempts or time.monotonic() >= self._deadline:
                    raise
                time.sleep(min(2 ** failed_starts, 10))  # let the load that starved it pass
                continue
            except (SandboxRefused, SandboxMissing):
                raise
            except Exception as error:  # whatever the kernel sends, grading goes on
                if self._current_index is None:  # the kernel never started: not the student's doing
                    raise
                # the kernel is dead, stuck past an interrupt, or sent a message the
                # grader cannot decode (100,000-deep JSON, a bad signature): a new one takes over
                deaths += 1
                index = self._current_index
                killers.add(index)
                if not isinstance(error, (DeadKernelError, CellTimeoutError)):
                    reason = error_output("UnreadableMessage", say(
                        "unreadable_message", lang, error=type(error).__name__))
                elif isinstance(error, CellTimeoutError):
                    reason = error_output("CellTimeout", say("timeout", lang, seconds=self.timeout))
                elif self._out_of_memory:
                    reason = error_output("MemoryLimit", say("out_of_memory", lang))
                else:
                    reason = error_output("KernelDied", say("kernel_died", lang))
                nb.cells[index].outputs.append(reason)
                resume_at = index + 1
                self.km = None  # a new kernel next time round
                self.kc = None
                if time.monotonic() >= self._deadline:
                    break
        self._not_run(nb, resume_at, say("not_run", lang) if time.monotonic() < self._deadline
                      else say("out_of_time", lang, seconds=self.notebook_timeout))

    def _not_run(self, nb, start, reason):
        for cell in nb.cells[start:]:
            if cell.cell_type == "code":
                cell.outputs = [error_output("NotRun", reason)]

    def _run_from(self, nb, resources, killers, resume_at):
        NotebookClient.__init__(self, nb, None)  # as nbconvert's preprocess() does
        self.reset_execution_trackers()
        self._check_assign_resources(resources)
        self._out_of_memory, self._manager = False, None
        self._current_index = None  # not in a cell yet: a failure to start is the grader's
        try:
            with self.started_kernel() as info:
                self._defences = self.km.defences()
                nb.metadata["language_info"] = info["content"]["language_info"]
                for index, cell in enumerate(nb.cells):
                    self._current_index = index
                    if index in killers or cell.cell_type != "code":
                        continue
                    if time.monotonic() >= self._deadline:
                        self._not_run(nb, index, say("out_of_time", self._lang,
                                                     seconds=self.notebook_timeout))
                        return
                    if index < resume_at:
                        # replay on a copy; nbclient writes the copy back, so put the
                        # first run's cell back: its outputs stand
                        self.preprocess_cell(copy.deepcopy(cell), resources, index)
                        nb.cells[index] = cell
                    else:
                        self.preprocess_cell(cell, resources, index)
        finally:
            if self._manager is not None:  # nbclient may have dropped self.km by now
                self._manager.release_sandbox()
                self._out_of_memory = self._manager.was_out_of_memory


    @contextlib.contextmanager
    def started_kernel(self):
        """nbclient's setup_kernel, and the kernel's first answer, where a kernel that
        dies or does not answer while starting raises KernelDidNotStart (the sandbox
        refusing to start one does not: that is no accident of load)."""
        with contextlib.ExitStack() as stack:
            try:
                stack.enter_context(self.setup_kernel())
                info = self.wait_for_reply(self.kc.kernel_info())
                self.km.seal_private()  # before any student code runs
            except (SandboxRefused, SandboxMissing):
                raise
            except (RuntimeError, DeadKernelError, TimeoutError) as error:
                raise KernelDidNotStart(str(error) or type(error).__name__) from error
            yield info


class KernelDidNotStart(RuntimeError):
    """A kernel died, or did not answer, before any cell ran on it."""


_one_at_a_time = threading.Lock()  # one submission per worker process (see execute_submission)


def execute_submission(notebook, files, seed, settings):
    """The worker's side: run one submission's cells in this machine's sandbox."""
    from traitlets.config import Config

    config = Config(settings)
    uid = worker_uid(settings)
    if uid is not None:
        config.SandboxedKernelManager.uid = uid
    nb = nbformat.reads(notebook, as_version=4)
    # one at a time: each worker process grades one submission (start workers
    # with --nthreads 1 and as many processes as cores: --nworkers)
    with _one_at_a_time, turn_without_cgroup(config), \
            tempfile.TemporaryDirectory(prefix=f"{REMOTE_PREFIX}{os.getpid()}-") as folder:
        unpack(files, folder)
        if os.geteuid() == 0:
            os.chmod(folder, 0o755)  # the kernel's unprivileged user reads the copy
        step = GradingExecute(config=config)
        defences = step.execute(nb, {"metadata": {"path": folder}}, folder, seed)
    return nbformat.writes(nb), defences


def execute_on_cluster(step, nb, submission, seed):
    """What `step` (a GradingExecute) does with `nb`, done by `execute_submission` on a
    worker of the cluster at `step.scheduler`: the outputs are written into `nb`, and what
    protected the worker is returned (grader/cohort/cluster.py)."""
    from distributed import Client

    # the values as given (a command line's are strings: the worker's traits parse them)
    settings = {name: dict(step.config[name]) for name in CONFIG_SECTIONS if name in step.config}
    timeout = step.notebook_timeout + TASK_GRACE
    with Client(step.scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False) as client:
        task = client.submit(execute_submission, nbformat.writes(nb), pack(submission), seed,
                             settings, pure=False)
        executed, defences = task.result(timeout=timeout)
    executed = nbformat.reads(executed, as_version=4)
    if len(executed.cells) != len(nb.cells):
        raise RuntimeError("the worker sent back a notebook with other cells")
    # only what running the cells makes comes back: the sources and nbgrader's
    # metadata stay as nbgrader restored them here
    for cell, ran in zip(nb.cells, executed.cells):
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = ran.outputs, ran.execution_count
    if "language_info" in executed.metadata:
        nb.metadata["language_info"] = executed.metadata["language_info"]
    return defences


def refused_files(configurable, resources):
    """What grader/plugins/intake.py refused of this submission's folder under submitted/."""
    info = (resources or {}).get("nbgrader", {})
    if "student" not in info or "assignment" not in info:
        return []
    coursedir = _coursedir(configurable)
    folder = coursedir.format_path(coursedir.submitted_directory, info["student"], info["assignment"])
    return vet(folder)[1] if os.path.isdir(folder) else []


def runs_mypy(nb):
    """Whether a test cell of `nb` runs mypy (lab 03's): its kernels then start from a cache."""
    return any(is_graded_test(cell) and "mypy_strict" in cell.source for cell in nb.cells)


def _coursedir(configurable):
    while not hasattr(configurable, "coursedir"):  # preprocessor -> exporter -> converter
        configurable = configurable.parent
    return configurable.coursedir
