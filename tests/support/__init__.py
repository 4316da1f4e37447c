"""What the tests share (no test module imports another):

- `course`: a throw-away course copy graded by an ordinary user (`Course`, `Grader`),
  and readers of what grading wrote;
- `answers`: plausible wrong answers and shortcuts graded by several modules;
- `hostile`: a cohort graded in one run of the parallel command, and its checks;
- `corpus`: the hostile corpus as named records (`Case`, `GradedCorpus`), its limits;
- `cohort`: stand-ins for nbgrader's grading process, and a local Dask cluster;
- `servers`: PostgreSQL on loopback, free ports;
- `browser`: JupyterLab driven in Chromium;
- `processes`: what the run's processes share under pytest-xdist (folders made once for the
  run, system users removed by its last process);
- `checkout`: a copy of the checkout, with its Python environment, for the classroom to run from.

Tests import them as `support.X` (tests/ is on sys.path under pytest); a benchmark as
`tests.support.X`, so these modules import each other relatively.
"""
