"""nbgrader configuration of the course; the wiring itself is in grader/nbgrader_setup.py."""
from grader.nbgrader_setup import configure

c = get_config()  # noqa: F821 (nbgrader provides get_config)
configure(c)
