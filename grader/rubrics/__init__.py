"""Rubrics of the answers a person grades, shown to graders in formgrader beside each answer.

A unit with hand-graded answers has a module here, `grader/rubrics/<unit>.py`, whose `RUBRICS`
maps the answer cell's grade id to its rubric, in each language:

    RUBRICS = {"lab01-why-exact": Rubric(
        points=2,
        en=("2: ...; 1: ...; 0: ...", ["canned comment", ...]),
        es=("2: ...; 1: ...; 0: ...", ["comentario", ...]))}

The rubric says what earns each score; the canned comments are short remarks, in the student's
language, that a grader copies into formgrader's comment box. Rubrics are the instructor's: they
live in grader/, never in a notebook a student receives, and the website does not show them
(grader/plugins/formgrader.py adds them to the grading page only).
"""
from dataclasses import dataclass

from course.names import known_language
from course.probes import find_in_unit


@dataclass(frozen=True)
class Rubric:
    points: float
    en: tuple  # (what earns each score, [canned comments])
    es: tuple

    def text(self, lang):
        return getattr(self, known_language(lang))[0]

    def comments(self, lang):
        return list(getattr(self, known_language(lang))[1])


def find_rubric(grade_id):
    """The Rubric of the hand-graded answer `grade_id`; LookupError when there is none."""
    return find_in_unit("grader.rubrics", "RUBRICS", grade_id)
