"""Grading a whole cohort: `grading` (the command and its loop, in parallel on this machine),
beside it `forking` (the grading processes and their parent-death signal), `lock` (one run per
assignment), `database` (database faults, back-off, patience), `plan` (kernels kept apart: a
cgroup or a user id each), `preflight_once`, `messages`, `progress`; and `cluster` (a Dask cluster's
workers: how many submissions at once, their preflight)."""
