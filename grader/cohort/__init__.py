"""Grading a whole cohort: `grading` (in parallel on this machine), `cluster` (kernels on the
workers of a Dask cluster)."""
