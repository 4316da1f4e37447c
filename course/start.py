"""Start an assignment the student's way: a copy of their own, opened in JupyterLab.

    python -m course start theory03-es            # copy, then open it in JupyterLab
    python -m course start theory03-es --no-open  # copy only
    python -m course lab es                       # open JupyterLab again on your work (en/es)

The copy goes to `my-work/<assignment>/` (ignored by git), so nothing the course
does later touches it: not a rebuild of `release/`, not a `git pull`, not a second
`start`, which refuses rather than overwrite. JupyterLab opens in student mode:
the Validate button without nbgrader's instructor tools, in the assignment's
language.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from course.i18n import LANGUAGES, say

WORK = "my-work"
# nbgrader's lab plugins an instructor needs and a student must not see;
# `validate-assignment` (the Validate button) stays.
INSTRUCTOR_PLUGINS = ("@jupyter/nbgrader:menu", "@jupyter/nbgrader:formgrader",
                      "@jupyter/nbgrader:create-assignment", "@jupyter/nbgrader:course-list",
                      "@jupyter/nbgrader:assignment-list")
INSTRUCTOR_SERVER_EXTENSIONS = ("nbgrader.server_extensions.formgrader",
                                "nbgrader.server_extensions.course_list",
                                "nbgrader.server_extensions.assignment_list")
LOCALES = {"en": "en", "es": "es_ES"}


def language_of(assignment):
    lang = assignment.rsplit("-", 1)[-1]
    return lang if lang in LANGUAGES else "en"


def start(assignment, root=None):
    """Copy release/<assignment>/ to my-work/<assignment>/; the copied notebook's path."""
    root = Path.cwd() if root is None else Path(root)
    lang = language_of(assignment)
    release = root / "release" / assignment
    if not release.is_dir():
        known = sorted(p.name for p in (root / "release").glob("*-*")) if (root / "release").is_dir() else []
        raise SystemExit(say("start_unknown", lang, assignment=assignment, known=", ".join(known) or "-"))
    target = root / WORK / assignment
    if target.exists():
        raise SystemExit(say("start_exists", lang, folder=target.relative_to(root)))
    shutil.copytree(release, target, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    for notebook in target.glob("*.ipynb"):
        match_this_python(notebook)
    print(say("start_done", lang, folder=target.relative_to(root)))
    return next(target.glob("*.ipynb"))


def match_this_python(path):
    """Write the kernel's own language_info into the copy, so that JupyterLab,
    which rewrites it on opening, finds nothing to change (no unsaved mark)."""
    from ipykernel.ipkernel import IPythonKernel
    nb = json.loads(path.read_text(encoding="utf-8"))
    nb["metadata"]["language_info"] = dict(IPythonKernel.language_info)
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def student_settings(root, lang):
    """Jupyter config and JupyterLab settings for student mode, under my-work/.jupyter/
    (made once: a language the student picks later in the Settings menu is kept)."""
    base = Path(root) / WORK / ".jupyter"
    config, settings = base / "config", base / "lab-settings"
    (config / "labconfig").mkdir(parents=True, exist_ok=True)
    (config / "labconfig" / "page_config.json").write_text(json.dumps(
        {"disabledExtensions": {name: True for name in INSTRUCTOR_PLUGINS}}, indent=1))
    (config / "jupyter_server_config.json").write_text(json.dumps(
        {"ServerApp": {"jpserver_extensions": {name: False for name in INSTRUCTOR_SERVER_EXTENSIONS}}},
        indent=1))
    locale = settings / "@jupyterlab" / "translation-extension" / "plugin.jupyterlab-settings"
    if not locale.exists():
        locale.parent.mkdir(parents=True, exist_ok=True)
        locale.write_text(json.dumps({"locale": LOCALES[lang]}))
    return config, settings


def lab_command(root, lang, notebook=None, extra=()):
    """The `jupyter lab` command line and environment of student mode."""
    root = Path(root)
    config, settings = student_settings(root, lang)
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(config), JUPYTERLAB_SETTINGS_DIR=str(settings))
    # the folder of the student's work, not the course root: its nbgrader_config.py
    # is the instructor's, and Validate must run the release's visible tests only
    arguments = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={root / WORK}", *extra]
    if notebook is not None:
        arguments.append(str(Path(notebook).relative_to(root / WORK)))
    return arguments, env


def main(argv):
    if argv[:1] == ["start"] and len(argv) in (2, 3) and argv[2:] in ([], ["--no-open"]):
        notebook = start(argv[1])
        if argv[2:] != ["--no-open"]:
            lab(language_of(argv[1]), notebook)
    elif argv[:1] == ["lab"] and len(argv) in (1, 2):
        lab(argv[1] if len(argv) == 2 else "en")
    else:
        raise SystemExit(__doc__)


def lab(lang, notebook=None, root=None):
    root = Path.cwd() if root is None else Path(root)
    (root / WORK).mkdir(exist_ok=True)
    arguments, env = lab_command(root, lang, notebook)
    raise SystemExit(subprocess.call(arguments, env=env))
