"""Before grading anything: does a kernel in the sandbox run the course the grader means?

A kernel imports `course` and `minigrad` from wherever its interpreter finds them, while
the grader mounts and judges with its own copy: a checkout graded with another
checkout's install gave every submission 0 ("No module named 'minigrad'" in a cell) and
"15 of 15 graded". So grading starts one sandboxed kernel, once, and compares what it
sees with what the grader has: the Python version, the features grading relies on
(tarfile's `filter=`), the course packages (by the hash of their files) and the
libraries student code uses (by version). On a Dask cluster every worker does the same
(grader/cohort/cluster.py). A difference refuses to start, naming it.
"""
import json
import os
import shutil
import tempfile

import nbformat

# run here and, as text, in the sandboxed kernel: it must not import the grader
FACTS = r'''
def course_facts():
    import hashlib, importlib.metadata, importlib.util, json, os, sys, tarfile
    facts = {"python": ".".join(map(str, sys.version_info[:3])),
             "tarfile filter=": hasattr(tarfile, "data_filter")}
    for name in ("course", "minigrad"):
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.origin:
            facts[name] = "missing"
            continue
        folder, digest = os.path.dirname(spec.origin), hashlib.sha256()
        for root, folders, files in sorted(os.walk(folder)):
            folders[:] = sorted(f for f in folders if f != "__pycache__")
            for file in sorted(f for f in files if f.endswith(".py")):
                path = os.path.join(root, file)
                digest.update(os.path.relpath(path, folder).encode())
                with open(path, "rb") as stream:
                    digest.update(stream.read())
        facts[name] = digest.hexdigest()[:16]
    for library in ("ipykernel", "numpy", "torch", "matplotlib"):
        try:
            facts[library] = importlib.metadata.version(library)
        except importlib.metadata.PackageNotFoundError:
            facts[library] = "missing"
    return facts
'''
MARK = "COURSE-PREFLIGHT "


def grader_facts():
    """What this grader's interpreter sees."""
    space = {}
    exec(FACTS, space)  # noqa: S102 (our own constant text)
    return space["course_facts"]()


def kernel_facts(config):
    """What a kernel started in this machine's sandbox, with `config`, sees."""
    from nbclient import NotebookClient

    from grader.sandbox.kernel import SandboxedKernelManager

    folder = tempfile.mkdtemp(prefix="course-preflight-")
    try:
        os.chmod(folder, 0o755)  # run as root, the kernel's unprivileged user reads it
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(FACTS + f"\nimport json\nprint({MARK!r} + json.dumps(course_facts()))")]
        manager = SandboxedKernelManager(config=config)
        manager.submission_folder = folder
        client = NotebookClient(nb, km=manager, timeout=120, allow_errors=True,
                                resources={"metadata": {"path": folder}})
        try:
            client.execute(cwd=folder)
        finally:
            manager.release_sandbox()
        text = "".join(o.get("text", "") for o in nb.cells[0].outputs)
        errors = [f"{o.get('ename')}: {o.get('evalue')}" for o in nb.cells[0].outputs
                  if o.get("output_type") == "error"]
        for line in text.splitlines():
            if line.startswith(MARK):
                return json.loads(line[len(MARK):])
        raise RuntimeError("the sandboxed kernel did not report: " + ("; ".join(errors) or text[-300:]))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def differences(expected, found, where):
    return [f"{where}: {name} is {found.get(name)!r}, the grader's is {value!r}"
            for name, value in expected.items() if found.get(name) != value]


def check(config, expected=None):
    """[] when a sandboxed kernel here sees what `expected` (default: this grader) has;
    else one line per difference."""
    from grader.sandbox.kernel import SandboxedKernelManager, sandbox_available

    expected = expected or grader_facts()
    manager = SandboxedKernelManager(config=config)
    if manager.sandbox and not sandbox_available(manager.bwrap):
        return ["bubblewrap (bwrap), prlimit or setpriv is missing"]
    return differences(expected, kernel_facts(config), "a kernel in the sandbox")


def findings(config, expected=None):
    """`check`, where a kernel that cannot start or report is a finding too (nothing
    would grade): [] when all is well, here or on a Dask worker."""
    try:
        return check(config, expected)
    except Exception as error:  # noqa: BLE001 (see the docstring)
        return [f"a kernel in the sandbox did not start or report ({type(error).__name__}: {error})"]


PASSED = "COURSE_PREFLIGHT_PASSED"  # set for grading processes started after a check


def refuse_on_mismatch(config, log=None):
    """Check once per process, and not at all in a grading process started after a check
    of the same grader (`PASSED` in its environment); SystemExit naming every difference."""
    if os.environ.get(PASSED) == stamp():
        return
    found = findings(config)
    if found:
        raise SystemExit(REFUSAL + "\n  ".join(found) + ADVICE)
    os.environ[PASSED] = stamp()
    if log is not None:
        log.info("Preflight: a sandboxed kernel runs the course the grader judges with")


def before_grading(**_):
    """nbgrader's pre-convert hook (after `announce_defences`): a sandboxed kernel of this
    machine runs the course the grader judges with (a cluster's workers are checked by
    grader/cohort/cluster.py)."""
    from traitlets.config import Application

    from grader.sandbox.kernel import SandboxedKernelManager
    app = Application.instance()
    sandboxed = SandboxedKernelManager(config=app.config).sandbox
    if sandboxed and not app.config.get("GradingExecute", {}).get("scheduler"):
        refuse_on_mismatch(app.config, app.log)  # once per process


REFUSAL = "refusing to grade: a kernel would not run the course this grader judges with.\n  "
ADVICE = ("\nInstall this course (pip install -r requirements.txt) in the environment that "
          "grades it.")


def stamp():
    """What the check vouched for: this grader's facts."""
    return json.dumps(grader_facts(), sort_keys=True)


def refuse_on_mismatch_apart(root, options):
    """refuse_on_mismatch, in a process of its own (a kernel's client leaves threads and
    sockets that processes forked afterwards must not inherit); on success, processes
    started from this one afterwards skip the check."""
    import subprocess
    import sys
    result = subprocess.run([sys.executable, "-m", "grader.sandbox.preflight", str(root), *options], cwd=root,
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SystemExit(result.stderr.strip() or result.stdout.strip() or "preflight failed")
    os.environ[PASSED] = stamp()


if __name__ == "__main__":
    import sys

    from grader.config import load_config
    refuse_on_mismatch(load_config(sys.argv[1], sys.argv[2:]))
