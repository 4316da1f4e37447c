"""What the README's install brings into every process that reads a notebook.

Every nbgrader command, every grading process, JupyterLab and the hub's servers import
nbformat, which imports jsonschema. jsonschema 4.25 and later import rfc3987-syntax
when it is installed (its `format-nongpl` extra brings it), and rfc3987-syntax builds an
Earley grammar with lark at import: `import nbformat` took 1.07 s of CPU with them and
0.12 s without, here; `nbgrader --version` 2.2 s and 0.97 s. requirements.txt pins the
jsonschema before it.
"""
import subprocess
import sys

GRAMMAR_MODULES = {"rfc3987_syntax", "lark"}


def test_reading_a_notebook_builds_no_grammar():
    imported = subprocess.run(
        [sys.executable, "-c", ("import sys, nbformat, nbgrader.apps\n"
                                "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))")],
        check=True, capture_output=True, text=True).stdout.split()
    print("grammar modules imported by nbformat and nbgrader:", sorted(GRAMMAR_MODULES & set(imported)))
    assert "nbformat" in imported and "jsonschema" in imported  # the check looked where it should
    assert not GRAMMAR_MODULES & set(imported)
