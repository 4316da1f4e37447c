"""What grading leaves for people: `report` (per-cohort scores and reasons), `export` (grades
for an LMS), `similarity` (hints of identical answers), `logs` (each submission's grading log)."""
