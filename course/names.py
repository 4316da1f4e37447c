"""The course's names: its languages, its units and the assignment each unit is in each language.

Low enough for every package to import (it imports nothing), so each of these facts is written once.
"""
LANGUAGES = ("en", "es")
DEFAULT_LANGUAGE = "en"  # where a name carries no language of the course
PROJECT = "autograd-by-hand"  # the course's name: its distribution (pyproject.toml), nbgrader course, LMS tag
DISTRIBUTION = PROJECT.replace("-", "_")  # as an installed distribution's dist-info folder spells it
UNITS = ("theory03", "lab01", "lab03")  # in teaching order; notebooks/UNIT.md is each one's master


def assignment(unit, lang):
    """The assignment of `unit` in `lang`: theory03-es."""
    return f"{unit}-{lang}"


def unit_and_language(assignment):
    """(unit, lang) of an assignment name (theory03-es -> ("theory03", "es")); None when the
    name does not end in a language of the course."""
    unit, _, lang = assignment.rpartition("-")
    return (unit, lang) if unit and lang in LANGUAGES else None


def language_of(assignment):
    """An assignment's language: es for theory03-es; DEFAULT_LANGUAGE when it names none."""
    split = unit_and_language(assignment)
    return split[1] if split else DEFAULT_LANGUAGE


def known_language(lang):
    """`lang` if the course speaks it, else DEFAULT_LANGUAGE."""
    return lang if lang in LANGUAGES else DEFAULT_LANGUAGE
