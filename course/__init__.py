"""The course code that runs in the student's kernel, beside `minigrad`.

What test cells call (`student`, and lab 01's `lab01`), what figure cells call (`figures`: each
figure with its alt text and description), what a hidden test may carry out of the
kernel (`evidence`) and the cases it draws (`probes/`), every sentence the machinery shows a
person in both languages (`i18n`), the course's names: languages, units, assignments
(`names`), lab 03's engines with one backward rule wrong (`mutants`), its test per operation
(`expressions`), its broken `__sub__` (`breakit`), its bug hunt (`bughunt`) and its `mypy --strict`
check (`strict`), and the students' commands (`__main__`: start, lab, submit; `start`, `submit`,
`validate` and `work`, where the student's copies live). It is mounted read-only in the grading sandbox, so a
student can read all of it: the hidden checks' references and the verdicts live in `grader`.
The one answer here is the bug hunt's (`bughunt.culprit`: where a mutant's bug is), which the
grader computes on its own side from the mutant it knows it drew (grader/checks/lab03.py).
"""
