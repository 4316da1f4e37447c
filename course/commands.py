"""The command line of every course command (course, grader, classroom, authoring): argparse,
with each mistake said in one line that names it, before the command touches anything.

- `Parser`: an `argparse.ArgumentParser` whose error is one line (in the language of the
  command's assignment where a student reads it) naming the option or argument, with the
  `--help` to read; abbreviations are off (a shortened option could be another's).
- `check_config_options`: `--Class.trait=value` options meant for a Jupyter application
  (nbgrader, JupyterLab), refused when the class, the trait or the value is not one it knows:
  a typo would otherwise be ignored by that application, or fail it halfway.
- `check_jupyterlab_options`: the options `python -m course start/lab` hands to JupyterLab.
"""
import argparse
import re

from course.i18n import say
from course.names import LANGUAGES, unit_and_language

CONFIG_OPTION = re.compile(r"--(?P<cls>[A-Za-z_]\w*)\.(?P<trait>[A-Za-z_]\w*)=(?P<value>.*)", re.DOTALL)


class CommandError(ValueError):
    """A command line that is refused; its text is the one line to print."""


def plain(text):
    """`text` on one line of a terminal: control characters (a line break in an argument) shown as `?`."""
    return re.sub(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]", "?", str(text))


def language_in(argv):
    """The language a command line names (an assignment `theory03-es`, or `es`), else English."""
    for word in argv:
        split = unit_and_language(str(word))
        if split or word in LANGUAGES:
            return split[1] if split else word
    return "en"


# argparse's own messages (Python 3.11+), and the course's words for them
ARGPARSE = [
    (re.compile(r"unrecognized arguments: (?P<words>.*)"), "cli_unknown"),
    (re.compile(r"the following arguments are required: (?P<names>.*)"), "cli_required"),
    (re.compile(r"argument (?P<argument>[^:]+): invalid choice: (?P<value>.*?) \(choose from (?P<choices>.*)\)"),
     "cli_choice"),
    (re.compile(r"argument (?P<argument>[^:]+): expected (?:one|at least one) argument"), "cli_value"),
    (re.compile(r"argument (?P<argument>[^:]+): invalid (?P<kind>[\w ]+) value: (?P<value>.*)"), "cli_invalid"),
]


class Parser(argparse.ArgumentParser):
    """argparse's parser, whose error is one line naming the problem (see the module's docstring).
    `lang`: the language of that line (set it from the command line: `language_in`)."""

    lang = "en"

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)

    def add_subparsers(self, **kwargs):
        self.commands = commands = super().add_subparsers(**kwargs)
        parent = self

        class Child(type(self)):
            lang = property(lambda _: parent.lang)
        commands._parser_class = Child
        return commands

    def command(self, name):
        """The parser of the subcommand `name` (its errors name it)."""
        return self.commands.choices[name]

    def parse_args(self, args=None, namespace=None):
        """argparse's, where what is left over is refused by the subcommand's parser (its name in the line)."""
        arguments, extras = self.parse_known_args(args, namespace)
        if extras:
            chosen = getattr(arguments, self.commands.dest, None) if hasattr(self, "commands") else None
            (self.command(chosen) if chosen else self).error(f"unrecognized arguments: {' '.join(extras)}")
        return arguments

    def words(self, message):
        """argparse's `message` in the course's words, in `lang`."""
        for pattern, key in ARGPARSE:
            found = pattern.fullmatch(message)
            if found:
                return say(key, self.lang, **found.groupdict())
        return message

    def error(self, message):
        self.exit(2, self.one_line(self.words(message)))

    def one_line(self, text):
        return plain(f"{self.prog}: {text} " + say("cli_help", self.lang, prog=self.prog)) + "\n"

    def fail(self, text, status=2):
        """Stop with `text` as the command's one-line error."""
        self.exit(status, self.one_line(text))


def configurables():
    """{class name: class} of every traitlets Configurable imported so far."""
    from traitlets.config import Configurable
    found, pending = {}, [Configurable]
    while pending:
        cls = pending.pop()
        found.setdefault(cls.__name__, cls)
        pending += cls.__subclasses__()
    return found


def check_config_options(words, known=None, refused=()):
    """Each of `words` must be `--Class.trait=value` with a Configurable class imported (or in
    `known`), a configurable trait of it and a value the trait takes; `refused`: traits the
    command sets itself (`CourseDirectory.student_id`). Raises CommandError naming the first
    that is not."""
    classes = known if known is not None else configurables()
    for word in words:
        found = CONFIG_OPTION.fullmatch(word)
        if not found:
            raise CommandError(("cli_unknown", {"words": word}))
        cls = classes.get(found["cls"])
        if cls is None:
            raise CommandError(("cli_no_class", {"option": word, "cls": found["cls"]}))
        traits = cls.class_traits(config=True)
        if found["trait"] not in traits:
            raise CommandError(("cli_no_trait", {"option": word, "cls": found["cls"], "trait": found["trait"]}))
        if f"{found['cls']}.{found['trait']}" in refused:
            raise CommandError(("cli_set_here", {"option": word}))
        trait = traits[found["trait"]]
        try:
            trait.validate(None, trait.from_string(found["value"]))
        except Exception as error:  # noqa: BLE001 - traitlets says why in its own words
            raise CommandError(("cli_bad_value", {"option": word, "why": str(error).splitlines()[0]})) from None
    return list(words)


def check_jupyterlab_options(words):
    """The options `course start` and `course lab` hand to JupyterLab, checked as JupyterLab
    reads them: its flags (`--no-browser`), its aliases (`--port=8899`, `--port 8899`) and
    `--Class.trait=value` of the classes a Jupyter server configures. Raises CommandError."""
    from jupyter_server.serverapp import ServerApp  # noqa: F401 - its classes are then known
    from jupyterlab.labapp import LabApp

    # the class's own tables: an instance would ask node for yarn's configuration
    flags = {str(name) for name in LabApp.flags}
    aliases = {str(name) for name in LabApp.aliases}
    config, rest = [], list(words)
    while rest:
        word = rest.pop(0)
        name, equals, value = word[2:].partition("=") if word.startswith("--") else ("", "", "")
        if not name:
            raise CommandError(("cli_unknown", {"words": word}))
        if name in flags and not equals:
            continue
        if name in aliases:
            if not equals and (not rest or rest[0].startswith("-")):
                raise CommandError(("cli_value", {"argument": word}))
            value = value if equals else rest.pop(0)
            continue
        if "." in name and equals:
            config.append(word)
            continue
        raise CommandError(("cli_unknown", {"words": word}))
    check_config_options(config)
    return list(words)


def positive(kind):
    """An argparse type: a number of `kind` (int, float) above 0."""
    def check(text):
        value = kind(text)
        if value <= 0:
            raise ValueError(text)
        return value
    check.__name__ = f"positive {kind.__name__}"
    return check


def refuse(parser, error):
    """`parser` stops with a CommandError's one line."""
    key, fields = error.args[0]
    parser.fail(say(key, parser.lang, **fields))
