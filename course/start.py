"""Start an assignment the student's way: a copy of their own, opened in JupyterLab.

    python -m course start theory03-es            # copy, then open it in JupyterLab
    python -m course start theory03-es --no-open  # copy only
    python -m course lab es                       # open JupyterLab again on your work (en/es)
    python -m course submit theory03-es           # check it and write the file to hand in
    python -m course settings --sys-prefix PREFIX # student mode in an environment (course/server_settings.py)

Any further options go to JupyterLab (`--no-browser`, `--port=8899`). The commands
work from any folder: the course is the nearest folder (this one or above) that holds `release/`, or else
the clone this package was installed from.

The copy goes to `my-work/<assignment>/` (ignored by git), so nothing the course
does later touches it: not a rebuild of `release/`, not a `git pull`, not a second
`start`, which opens the work already there instead of copying again. JupyterLab
opens in student mode: the Validate button (the course's, see course/validate.py)
without nbgrader's instructor tools, in the assignment's language.
"""
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from course import server_settings
from course.i18n import say
from course.names import language_of
from course.work import WORK, course_root, release_notebook

KERNEL_TRANSPORT = "ipc"  # local sockets, where the system has them (os.name == "posix")


def start(assignment, root=None):
    """Copy release/<assignment>/ to my-work/<assignment>/; the copied notebook's path.
    When the copy is already there it is the student's work: it is opened, never copied over."""
    root = course_root() if root is None else Path(root)
    lang = language_of(assignment)
    release = root / "release" / assignment
    if not release.is_dir():
        known = sorted(p.name for p in (root / "release").glob("*-*")) if (root / "release").is_dir() else []
        raise SystemExit(say("start_unknown", lang, assignment=assignment, known=", ".join(known) or "-"))
    target = root / WORK / assignment
    name = release_notebook(root, assignment).name
    if target.exists():
        if not (target / name).exists():
            raise SystemExit(say("start_exists", lang, folder=target.relative_to(root), notebook=name))
        print(say("start_again", lang, folder=target.relative_to(root)))
        return target / name
    # copied beside the target and renamed into place: a copy cut short leaves no
    # folder that a second `start` would take for the student's work
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f".{assignment}-", dir=target.parent))
    try:
        shutil.copytree(release, partial, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        for notebook in partial.glob("*.ipynb"):
            match_this_python(notebook)
        partial.chmod(0o755)  # mkdtemp's 0700 would hide the work from the student's other tools
        partial.rename(target)
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    print(say("start_done", lang, folder=target.relative_to(root)))
    return target / name


def match_this_python(path):
    """Write the kernel's own language_info into the copy, so that JupyterLab,
    which rewrites it on opening, finds nothing to change (no unsaved mark)."""
    from ipykernel.ipkernel import IPythonKernel
    nb = json.loads(path.read_text(encoding="utf-8"))
    nb["metadata"]["language_info"] = dict(IPythonKernel.language_info)
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def student_settings(root, lang):
    """Jupyter config and JupyterLab settings for student mode (course/server_settings.py's),
    under my-work/.jupyter/. Each language has its settings folder, and its locale is written
    at every start: the interface speaks the language asked for, whatever was started before.
    No news and no update check (a toast asking about them covers the notebook), unless the
    student chose otherwise in JupyterLab's settings."""
    base = Path(root) / WORK / ".jupyter"
    config, settings = base / "config", base / f"lab-settings-{lang}"
    server_settings.write_config(config, exchange=False)
    server_settings.write_locale(settings, lang)
    server_settings.write_no_news(settings)
    return config, settings


def lab_command(root, lang, notebook=None, extra=()):
    """The `jupyter lab` command line and environment of student mode. Each assignment has its
    own workspace (the tabs JupyterLab reopens): starting one never reopens another's notebook;
    `lab` (all the work) has one of its own. Kernels talk to JupyterLab over local sockets (IPC)
    where the system has them: nothing listens on a TCP port, and ipykernel has no plain-TCP
    warning to print."""
    root = Path(root)
    config, settings = student_settings(root, lang)
    workspace = Path(notebook).resolve().parent.name if notebook is not None else "all"
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(config), JUPYTERLAB_SETTINGS_DIR=str(settings),
               JUPYTERLAB_WORKSPACES_DIR=str(root / WORK / ".jupyter" / "workspaces" / workspace))
    # the folder of the student's work, not the course root: its nbgrader_config.py
    # is the instructor's, and Validate must run the release's visible tests only
    arguments = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={root / WORK}"]
    if os.name == "posix":
        arguments.append(f"--KernelManager.transport={KERNEL_TRANSPORT}")
    if notebook is not None:
        # relative to root_dir, which is how jupyter_server resolves file_to_run (a
        # positional path would be taken relative to the folder the command ran in);
        # default_url makes the address printed in the terminal open it too
        relative = Path(notebook).resolve().relative_to((root / WORK).resolve()).as_posix()
        arguments += [f"--ServerApp.file_to_run={relative}", f"--LabApp.default_url=/lab/tree/{relative}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0 and "--allow-root" not in extra:
        print(say("lab_root", lang))
        arguments.append("--allow-root")
    return arguments + list(extra), env


def lab(lang, notebook=None, root=None, extra=()):
    root = course_root() if root is None else Path(root)
    (root / WORK).mkdir(exist_ok=True)
    arguments, env = lab_command(root, lang, notebook, extra)
    sys.stdout.flush()
    # this process becomes JupyterLab: Ctrl+C, or a signal to this PID, stops JupyterLab itself
    os.execve(arguments[0], arguments, env)
