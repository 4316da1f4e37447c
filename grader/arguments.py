"""What the instructor's commands accept, checked before any of them touches a file: nbgrader's
options (`--Class.trait=value`, as nbgrader reads them) of classes and settings that exist, and
assignments the course has (a folder of release/).

An option nbgrader does not know would stop each grading process halfway, or be ignored
without a word; an assignment misspelt would grade nothing and report an empty cohort. Each is
said in one line naming it (course/commands.py), and nothing is written.
"""
from pathlib import Path

from course.commands import CONFIG_OPTION, CommandError, check_config_options, refuse

# what a course command sets itself: the course is the current folder, and grading picks each student
SET_BY_THE_COMMAND = ("CourseDirectory.root", "CourseDirectory.student_id", "CourseDirectory.assignment_id",
                      "CourseDirectory.notebook_id")


def split_options(argv):
    """(nbgrader's `--Class.trait=value` options, the rest), in their order."""
    options = [word for word in argv if CONFIG_OPTION.fullmatch(word)]
    return options, [word for word in argv if not CONFIG_OPTION.fullmatch(word)]


def nbgrader_options(parser, options, root=None):
    """`options` if nbgrader, with the course's configuration (nbgrader_config.py in `root`, the
    current folder by default, and the classes it brings in), knows every one; else `parser`
    stops with one line naming the first it does not."""
    import nbgrader.apps  # noqa: F401 - nbgrader's own classes

    from grader.config import load_config
    load_config(Path.cwd() if root is None else root, [])  # the course's classes, as nbgrader will load them
    try:
        return check_config_options(options, refused=SET_BY_THE_COMMAND)
    except CommandError as error:
        refuse(parser, error)


def assignments(root):
    """The course's assignments: the folders of release/ that hold a notebook."""
    release = Path(root) / "release"
    return sorted(p.parent.name for p in release.glob("*/*.ipynb")) if release.is_dir() else []


def known_assignments(parser, root, names):
    """`names` if each is an assignment of the course at `root`; else `parser` stops, naming it."""
    known = assignments(root)
    for name in names:
        if name not in known:
            parser.fail(f"there is no assignment {name!r} in {Path(root) / 'release'} "
                        f"(assignments: {', '.join(known) or 'none: run this in the course folder'})")
    return names


def existing_gradebook(parser, root, options=()):
    """Stops `parser` when the gradebook the configuration names is an SQLite file that is not
    there (opening it would make an empty one): nothing has been generated or graded here."""
    from nbgrader.coursedir import CourseDirectory
    from sqlalchemy.engine import make_url

    from grader.config import load_config
    url = make_url(CourseDirectory(config=load_config(root, list(options)), root=str(root)).db_url)
    if url.get_backend_name() == "sqlite" and url.database and not Path(root, url.database).exists():
        parser.fail(f"no gradebook at {Path(root, url.database)}: run this in the course folder, after "
                    "`nbgrader generate_assignment` and grading")
