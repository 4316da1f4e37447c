"""The course machinery: bilingual build, hidden checks, grading."""
