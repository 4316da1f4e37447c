"""The grader: everything that runs only on the instructor's side, never in a student's kernel
(grader/sandbox.py hides every installed copy of it from kernels).

The references and the judge (`checks/`, `verdicts`, `gradcheck`), execution in the sandbox
(`execute`, `sandbox`, `cgroups`, `inert`, `preflight`), what of a submission is taken in
(`intake`), nbgrader's wiring (`nbgrader_setup`, `nbgrader_ext`, `bonus`), parallel and cluster
grading (`cohort`, `cluster`), reports (`report`), the students' handout (`handout`) and the demo
(`demo`).
"""
