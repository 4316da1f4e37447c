"""The grader: everything that runs only on the instructor's side, never in a student's kernel
(grader/sandbox/kernel.py hides every installed copy of it from kernels).

In layers, each importing only those below it (tests/test_no_import_cycles.py): `config` and
`shared` (the course's folders, a notebook's language, text safe to print), `sandbox/`,
`checks/`, `plugins/`, `reports/`, `cohort/`, then the commands.

`checks/` (the references and the judge: the hidden checks and `verdicts`), `gradcheck` (lab
03's reference gradcheck and its command), `sandbox/` (where a kernel runs: bubblewrap, cgroups, seccomp, preflight),
`plugins/` (the course inside stock nbgrader: preprocessors, plugins and the one wiring file),
`cohort/` (a whole cohort graded in parallel, here or on a Dask cluster), `reports/` (the cohort
report, LMS export, similarity hints, grading logs), `config` (the nbgrader configuration a
command uses), `shared` (what every layer reads alike), `handout` (what students get), `demo` (a demo cohort) and `__main__` (the
instructors' commands).
"""
