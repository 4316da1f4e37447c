"""What each Predict of each unit must not give away before its measurement.

ANSWERS maps a prediction's grade id to patterns that state its outcome: the number, the option or
the printed measurement a student is asked to predict. A pattern must match something the unit says
at or after the measurement (the reveal cell's output, the prose after it, a later test): otherwise
it proves nothing, and `tests/test_predictions.py` says so. Before the reveal, nothing a student can
read may match one.
"""
import re
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]
MINUS = "[−-]"

ANSWERS = {
    # with `=` instead of `+=`: a.grad −6 (its contribution through ab), c.grad −2 (through e)
    "theory03-predict-assign": [
        rf"\ba\.grad`?\s*(=|is|vale|sale)\s*{MINUS}6(\.0)?\b",
        rf"\bc\.grad`?\s*(=|is|vale|sale)\s*{MINUS}2(\.0)?\b",
        rf"{MINUS}6,\s*{MINUS}2\b",
        rf"\({MINUS}6(\.0)?,\s*(None|{MINUS}4(\.0)?),\s*{MINUS}2(\.0)?\)",
    ],
    # the float64 central difference at eps = 1e-5: 4 to ten digits, then rounding
    "theory03-predict-digits": [
        r"4[.,]0000000000\d",
        r"2[.,]6e-11",
        r"(measured|medido): \(c\)",
    ],
    # lab 01, Part B: your fp32 formulas and autograd agree in every bit on this CPU (option a)
    "lab01-predict-fp32": [
        r"agree in every bit: 20 of 20|coinciden bit a bit: 20 de 20",
        r"dx: (max|máx\.) 0\.0e\+00",
        r"every error is exactly 0\.0|todos los errores son exactamente 0,0",
        r"largest 0\.0e\+00|el mayor, 0\.0e\+00",
    ],
    # lab 01, Part C: the first node of 0.5 * (...) is MulBackward0 (option b)
    "lab01-predict-node": [
        r"(?m)^MulBackward0 \[",
        r"(its node is|su nodo es) `?MulBackward0",
        r'\["MulBackward0", "SumBackward0"',
    ],
    # lab 01, Part D: dW is the furthest from float64 in rms units (option b)
    "lab01-predict-fp16": [
        r"fp16 (runs above|por encima de) 1e-3: dx \d+ (of|de) 20, dW 20 (of|de) 20",
        r"dW: 38400 \w+ .* 6[.,]2 rms",
        r"the largest error, 5[.,]9e-03|el mayor error, 5[.,]9e-03",
    ],
    # lab 01, Part E: 1.0 + 1e-4 kept in fp16 is 1.0 (option b)
    "lab01-predict-update": [
        r"1\.0 \+ 1e-4:\s+fp16 1\.0 ",
        r"rounds back to 1\.0|se redondea otra vez a 1,0",
        r"fp16 1\.0 ·",
    ],
    # lab 03, c's -1 forgotten in a - c: the diamond (a, b, c) is reported at input index 2, c
    "lab03-predict-sub": [
        r"(at|en el) (input index|índice)\s+2,?\s+\(?`c`",
        r"\(a - c\)\) (raised|lanzó):\s*gradcheck (FAILED at input index|FALLÓ en la entrada de índice) 2\b",
        r"(measured|medido): \(c\)",
    ],
    # lab 03, one expression per operation: what gets through is mostly `=` for `+=` and a missing
    # `* out.grad`, which give the right number where the operation is the root and used once
    "lab03-predict-blind": [
        r"= for \+=\s+(__\w+__|exp|log|tanh|relu): ",
        r"missing \* out\.grad\s+(exp|log|tanh|relu): ",
        r"(gives the right number|da el número correcto) (where|donde) (the operation is the root|la operación es la raíz)",
        r"(measured|medido): \(b\)",
    ],
}


def grade_ids(nb):
    return [cell.metadata["nbgrader"]["grade_id"] for cell in nb.cells
            if cell.metadata.get("nbgrader", {}).get("grade") and "-predict-" in
            cell.metadata["nbgrader"]["grade_id"]]


def variable(nb, grade_id):
    """The name a Predict cell assigns (PREDICT_...)."""
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == f"{grade_id}-answer")
    return re.search(r"^\s*(PREDICT_\w+) = ", cell.source, re.MULTILINE).group(1)


def reveal_index(nb, grade_id):
    """The index of the cell that measures a prediction: the first to call reveal(PREDICT_...)."""
    name = variable(nb, grade_id)
    return next(i for i, c in enumerate(nb.cells)
                if c.cell_type == "code" and re.search(rf"predictions\.reveal\({name}\b", c.source))


def cell_text(cell):
    """What a reader sees of a cell: its source and its outputs' text."""
    parts = [cell.source]
    for output in cell.get("outputs", []):
        parts.append(str(output.get("text", "")))
        parts.append(str(output.get("data", {}).get("text/plain", "")))
        parts.append(str(output.get("evalue", "")))
    return "\n".join(parts)


def stated(text, grade_id):
    """The patterns of `grade_id` that `text` matches."""
    return [p for p in ANSWERS[grade_id] if re.search(p, text)]


def source_notebook(unit, lang):
    return nbformat.read(ROOT / "source" / f"{unit}-{lang}" / f"{unit}.ipynb", 4)
