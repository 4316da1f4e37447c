"""The course code that runs in the student's kernel, beside `minigrad`.

What test cells call (`student`), what a hidden test may carry out of the kernel
(`evidence`) and the cases it draws (`probes/`), every sentence the machinery shows a
person in both languages (`i18n`), lab 03's injected bug (`breakit`) and the students'
commands (`start`: `python -m course start ASSIGNMENT`). It is mounted read-only in the
grading sandbox, so it holds no answer: the references and the verdicts live in `grader`.
"""
