"""The student's Jupyter server, set up once for every way a student runs it: the course's
Validate (course.validate) in place of nbgrader's, none of nbgrader's instructor tools, and
JupyterLab in the student's language.

    python -m course settings --sys-prefix PREFIX [--exchange] [--language en|es]

writes them into an environment's own configuration (PREFIX/etc/jupyter and PREFIX/share/
jupyter/lab/settings): owned by whoever runs it (root, for a class), so a student cannot turn
the course's Validate off. `python -m course start` writes the same settings at user level
(my-work/.jupyter); the classroom (classroom/student_env.py) and the Kubernetes image call
this command. JupyterLab asks no question about news or updates (its toast covers the notebook).

`--exchange` keeps nbgrader's Assignments panel and menu (fetch and submit through an
exchange, as on a hub); without it a student works from a copy (`course start`) and hands in
through the LMS, so those are hidden too. `--language` makes that language JupyterLab's
default for everyone of the environment (each person can still choose theirs).
"""
import json
from pathlib import Path

from course.names import PROJECT

LOCALES = {"en": "en", "es": "es_ES"}
# where an environment made for students (a hub's, an image's) holds the release notebooks,
# under its sys.prefix: Validate compares a student's notebook with its release from there
INSTALLED_COURSE = Path("share") / PROJECT
# nbgrader's lab plugins an instructor needs and a student must not see;
# `validate-assignment` (the Validate button) stays
INSTRUCTOR_PLUGINS = ("@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:create-assignment",
                      "@jupyter/nbgrader:course-list")
EXCHANGE_PLUGINS = ("@jupyter/nbgrader:menu", "@jupyter/nbgrader:assignment-list")
INSTRUCTOR_SERVER_EXTENSIONS = ("nbgrader.server_extensions.formgrader",
                                "nbgrader.server_extensions.course_list")
EXCHANGE_SERVER_EXTENSIONS = ("nbgrader.server_extensions.assignment_list",)
NBGRADER_VALIDATE = "nbgrader.server_extensions.validate_assignment"
COURSE_VALIDATE = "course.validate"


# JupyterLab's defaults for everyone of the environment (each person may change them in Settings):
# long lines wrap in code and Markdown cells, so that a notebook read zoomed in never scrolls
# sideways (WCAG 1.4.10, reflow); and every cell stays in the page ("contentVisibility", not the
# "full" windowing that detaches the cells out of view), where a screen reader and the browser's
# search find it. docs/*/accessibility.md says what JupyterLab itself still lacks.
READABLE_NOTEBOOKS = {"@jupyterlab/notebook-extension:tracker": {
    "codeCellConfig": {"lineWrap": True}, "markdownCellConfig": {"lineWrap": True},
    "rawCellConfig": {"lineWrap": True}, "windowingMode": "contentVisibility"}}


def hidden_plugins(exchange):
    return INSTRUCTOR_PLUGINS + (() if exchange else EXCHANGE_PLUGINS)


def server_extensions(exchange):
    """jpserver_extensions: the course's Validate on; nbgrader's (same URL) and the instructor's off."""
    off = INSTRUCTOR_SERVER_EXTENSIONS + (NBGRADER_VALIDATE,) + (() if exchange else EXCHANGE_SERVER_EXTENSIONS)
    return {**{name: False for name in off}, COURSE_VALIDATE: True}


def write_config(config_dir, exchange=False):
    """The server's and JupyterLab's configuration, in the Jupyter config folder `config_dir`.
    jupyter_server_config.json is read after the folder's jupyter_server_config.d/ (where
    packages enable themselves, nbgrader's validate_assignment too), so it decides. JupyterLab's
    default settings (READABLE_NOTEBOOKS) go in labconfig/, beside its page config."""
    config_dir = Path(config_dir)
    (config_dir / "labconfig").mkdir(parents=True, exist_ok=True)
    (config_dir / "labconfig" / "page_config.json").write_text(json.dumps(
        {"disabledExtensions": {name: True for name in hidden_plugins(exchange)}}, indent=1))
    # JupyterLab's own place for default settings in a config folder (jupyterlab_server)
    (config_dir / "labconfig" / "default_setting_overrides.json").write_text(json.dumps(READABLE_NOTEBOOKS, indent=1))
    server = {"ServerApp": {"jpserver_extensions": server_extensions(exchange)}}
    (config_dir / "jupyter_server_config.json").write_text(json.dumps(server, indent=1))
    return config_dir


def locale_settings(lang):
    """JupyterLab's translation setting for `lang` (en, es)."""
    return {"locale": LOCALES[lang]}


def write_locale(settings_dir, lang):
    """JupyterLab's user setting of the interface language, in `settings_dir`."""
    path = Path(settings_dir) / "@jupyterlab" / "translation-extension" / "plugin.jupyterlab-settings"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(locale_settings(lang)))
    return path


# JupyterLab's notifications: no news, no update check (each asks in a toast that covers the notebook)
NO_NEWS = {"fetchNews": "false", "checkForUpdates": False}
NOTIFICATIONS = "@jupyterlab/apputils-extension:notification"


def write_no_news(settings_dir):
    """JupyterLab's user setting for news and update checks, off, unless one is there already
    (the person's own choice, made in JupyterLab's settings)."""
    plugin, name = NOTIFICATIONS.split(":")
    path = Path(settings_dir) / plugin / f"{name}.jupyterlab-settings"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(NO_NEWS))
    return path


def write_sys_prefix(prefix, exchange=False, lang=None):
    """The settings in the environment at `prefix` (its etc/jupyter, and its JupyterLab
    overrides for the default language); the config folder written."""
    prefix = Path(prefix)
    config = write_config(prefix / "etc" / "jupyter", exchange)
    overrides = prefix / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    overrides.parent.mkdir(parents=True, exist_ok=True)
    known = json.loads(overrides.read_text()) if overrides.exists() else {}
    known.setdefault(NOTIFICATIONS, NO_NEWS)  # everyone's default; each person may change theirs
    if lang:
        known["@jupyterlab/translation-extension:plugin"] = locale_settings(lang)
    overrides.write_text(json.dumps(known, indent=1))
    return config


def main(argv=None):
    from course.commands import Parser
    parser = Parser(prog="python -m course settings", description=__doc__)
    parser.add_argument("--sys-prefix", required=True, metavar="PREFIX",
                        help="the environment's folder (its sys.prefix), whose settings are written (required: no default)")
    parser.add_argument("--exchange", action="store_true",
                        help="keep nbgrader's Assignments panel (a hub with an exchange); "
                             "default: hidden, students hand in through the LMS")
    parser.add_argument("--language", choices=sorted(LOCALES),
                        help="JupyterLab's default language (default: none set, JupyterLab's own: English)")
    arguments = parser.parse_args(argv)
    config = write_sys_prefix(arguments.sys_prefix, arguments.exchange, arguments.language)
    print(f"wrote the student server's settings in {config}")
