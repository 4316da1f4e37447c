"""nbgrader configuration of the course; the wiring itself is in course/nbgrader_setup.py."""
from course.nbgrader_setup import configure

c = get_config()  # noqa: F821 (nbgrader provides get_config)
configure(c)
