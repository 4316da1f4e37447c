"""nbgrader configuration of the course; the wiring itself is in grader/plugins/wiring.py."""
from grader.plugins.wiring import configure

c = get_config()  # noqa: F821 (nbgrader provides get_config)
configure(c)
