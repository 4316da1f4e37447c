"""A class on one machine: JupyterHub, nbgrader's exchange and one system user per person.

Instructor/admin side only: it runs as root on the machine that hosts the class and never
in a student's kernel. `python -m classroom start ROSTER.csv` / `python -m classroom stop`.
"""
