"""The grader: everything that runs only on the instructor's side, never in a student's kernel.

The references and the judge (`checks/`, `verdicts`, `gradcheck`), execution in the sandbox
(`execute`, `sandbox`, `cgroups`, `inert`), nbgrader's wiring (`nbgrader_setup`,
`nbgrader_ext`, `bonus`), parallel and cluster grading (`cohort`, `cluster`), reports
(`report`), the students' handout (`handout`) and the demo (`demo`).
"""
