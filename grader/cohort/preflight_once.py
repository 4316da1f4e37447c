"""The preflight (grader/sandbox/preflight.py) once per course, options and grader in this
process: the next assignment of one run, or the demo's second language, is not asked again."""
from grader.config import load_config


def preflight_once(root, options, scheduler=None):
    """Once, before anything is graded: kernels here, or on every worker of the cluster,
    run the course this grader judges with (grader/sandbox/preflight.py); SystemExit if not.
    Asked from processes of their own: the grading processes are forked from this one.
    Not asked again in this process for the same course, options and grader (the next
    assignment of one run, the demo's second language)."""
    from grader.sandbox.preflight import stamp
    asked = (str(root), tuple(options), scheduler, stamp())
    if asked in PREFLIGHTED:
        return
    if scheduler:
        config = load_config(root, options)
        from grader.cohort.cluster import refuse_on_worker_mismatch
        from grader.plugins.worker import CONFIG_SECTIONS
        refuse_on_worker_mismatch(scheduler, {name: dict(config[name]) for name in CONFIG_SECTIONS
                                              if name in config})
    else:
        from grader.sandbox.preflight import refuse_on_mismatch_apart
        refuse_on_mismatch_apart(root, options)
    PREFLIGHTED.add(asked)


PREFLIGHTED = set()  # what preflight() found well in this process
