"""The course inside stock nbgrader: its preprocessors, plugins and settings.

`wiring` (the one place that names each class and setting for nbgrader_config.py, and writes
every nbgrader_config.py the course makes), `execute` (runs a submission in the sandbox and
decides its graded cells; `worker`: what crosses to a Dask worker), `inert` (what student code
produced is shown as text), `bonus` (extra credit), `preprocessors` (small preprocessors: stubs
in the notebook's language, a submission's metadata repaired, one that is not a notebook graded
as the release), `late` (late penalties), `intake` and `archives` (what of a submission is taken
in), `exchange` (who may put what in the shared exchange's inbound/, and what collection
refuses), `lms_collect` (submissions from an LMS export), `student_fields` (what the gradebook
may hold about a student), `formgrader` (formgrader shows names as text), `feedback`
(feedback's chrome in the student's language, with `templates/`).
"""
