"""The grader: references, judge, sandbox, nbgrader wiring and reports. Never
visible to student code (grader/sandbox.py hides every installed copy of it)."""
