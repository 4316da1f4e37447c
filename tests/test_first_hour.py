"""A student's first hour: the errors they predictably cause are one line in their
language (a cell run too early, a stub left blank, a wrong number of results);
Validate and `submit` tell the truth; a submitted file goes through an LMS export
and `nbgrader zip_collect` to grading."""
import nbformat
import pytest
from nbclient import NotebookClient

from course import student
from course.student import explain


def run_cells(sources):
    """Run `sources` as one notebook's cells in a fresh kernel; each cell's error output or None."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    NotebookClient(nb, timeout=60, kernel_name="python3", allow_errors=True).execute()
    return [next((o for o in c.outputs if o.output_type == "error"), None) for c in nb.cells]


@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_cell_run_too_early_and_a_blank_stub_say_so_in_one_line(lang):
    setup, early, blank, blank_cell, library, defined = run_cells([
        f"from course import student\nstudent.language({lang!r})",
        "gradients(2, 3, 4)",
        "def forward(a, b, c):\n    raise NotImplementedError('STUB')\nforward(2, 3, 4)",
        "raise NotImplementedError('STUB')",
        "import fractions\nfractions.Fraction.__new__(fractions.Fraction, object())",
        "forward",
    ])
    assert setup is None and defined is None
    said = {"early": early.evalue, "blank": blank.evalue, "blank_cell": blank_cell.evalue}
    print(lang, said)
    assert early.ename == "NameError" and early.traceback == [f"NameError: {early.evalue}"]
    assert blank.ename == "NotImplementedError" and blank.traceback == [f"NotImplementedError: {blank.evalue}"]
    if lang == "en":
        assert early.evalue.startswith("`gradients` is not defined yet: run the cells above this one first")
        assert blank.evalue.startswith('this exercise is not done yet: forward() still says "STUB"')
        assert blank_cell.evalue.startswith('this cell is not done yet: it still says "STUB"')
    else:
        assert early.evalue.startswith("`gradients` aún no está definido: ejecuta antes las celdas de arriba")
        assert blank.evalue.startswith('este ejercicio aún no está hecho: forward() todavía dice "STUB"')
        assert blank_cell.evalue.startswith('esta celda aún no está hecha: todavía dice "STUB"')
    assert library.ename == "TypeError" and len(library.traceback) > 1  # other errors: IPython's own traceback


def test_wrong_number_of_results_says_how_many():
    assert explain((1, 2), (1, 2, 3), "g(1)", "en") == "g(1) returned (1, 2); expected (1, 2, 3) — 2 values where 3 are expected"
    assert explain(5, (1, 2, 3), "g(1)", "es") == \
        "g(1) devolvió 5; se esperaba (1, 2, 3) — un solo valor donde se espera una tupla de 3"
    assert explain((1, 2), 3, "g(1)", "en") == "g(1) returned (1, 2); expected 3 — 2 values where one number is expected"
    assert explain(None, (1, 2), "g(1)", "en") == "g(1) returned None (missing return?); expected (1, 2)"
    with pytest.raises(AssertionError, match="2 values where 3 are expected"):
        student.expect_close((1, 2), (1, 2, 3), "g(1)")
