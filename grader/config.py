"""The nbgrader configuration a course command will use: nbgrader_config.py, then
the `--Class.trait=value` options of its command line (as nbgrader reads them).
A module of its own: grading (grader/cohort/grading.py), the report and the export read it."""
import re
from pathlib import Path


def load_config(root, options):
    """The configuration nbgrader will use: nbgrader_config.py, then command-line options."""
    from traitlets.config import Application

    app = Application()
    # only nbgrader's --Class.trait=value options say anything about kernels and the database
    app.parse_command_line([o for o in options if re.fullmatch(r"--[A-Za-z_]\w*\.\w+=.*", o)])
    if (Path(root) / "nbgrader_config.py").exists():
        app.load_config_file("nbgrader_config.py", path=str(root))
    return app.config


def course_dir(root, options=()):
    """nbgrader's CourseDirectory of the course at `root`, as nbgrader_config.py and the
    nbgrader `options` of a command line configure it: its folders, its database."""
    from nbgrader.coursedir import CourseDirectory

    return CourseDirectory(config=load_config(root, list(options)), root=str(root))


def gradebook(root, options=()):
    """The course's nbgrader gradebook: the database its configuration names
    (`CourseDirectory.db_url` in nbgrader_config.py or among nbgrader `options`,
    PostgreSQL for instance), else nbgrader's default, gradebook.db in `root`."""
    from nbgrader.api import Gradebook

    coursedir = course_dir(root, options)
    return Gradebook(coursedir.db_url, coursedir.course_id)
