"""Every Predict is blind and binding. Nothing a student reads before its measurement states the
outcome: no earlier cell or output, no heading, no module of the course a kernel can import, no
rubric (the website is checked in test_site.py). The cell that measures refuses, in the notebook's
language, until the prediction is recorded (run in a kernel, both languages). A recorded prediction
earns its point, right or wrong; one the options do not allow earns nothing and says why."""
import copy
import json
import re

import pytest
from nbclient import NotebookClient
from support.predictions import (
    ANSWERS,
    ROOT,
    cell_text,
    grade_ids,
    reveal_index,
    source_notebook,
    stated,
    variable,
)

from course import predictions, student
from course.names import LANGUAGES, UNITS
from course.probes import find_probe
from grader.checks import find_check

PREDICTS = [(unit, grade_id) for unit in UNITS for grade_id in grade_ids(source_notebook(unit, "en"))]
REFUSAL = {"en": "only after your prediction", "es": "solo muestra la medida después de tu predicción"}


def from_the_measurement_on(nb, grade_id):
    """What the notebook says at and after the cell that measures a prediction."""
    return "\n".join(cell_text(c) for c in nb.cells[reveal_index(nb, grade_id):])


def test_every_unit_asks_for_predictions_and_each_has_its_patterns():
    by_unit = {unit: [g for u, g in PREDICTS if u == unit] for unit in UNITS}
    assert len(by_unit["theory03"]) >= 2, by_unit
    assert sorted(ANSWERS) == sorted(g for _, g in PREDICTS)


@pytest.mark.parametrize("unit, grade_id", PREDICTS)
def test_each_pattern_states_what_the_unit_measures(unit, grade_id):
    """A pattern that matches nothing the notebook measures would make the blindness tests vacuous."""
    measured = "\n".join(from_the_measurement_on(source_notebook(unit, lang), grade_id) for lang in LANGUAGES)
    unmatched = [p for p in ANSWERS[grade_id] if not re.search(p, measured)]
    assert not unmatched, f"{grade_id}: these patterns match nothing the notebook measures: {unmatched}"


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("unit, grade_id", PREDICTS)
def test_nothing_before_the_measurement_states_its_outcome(unit, grade_id, lang):
    nb = source_notebook(unit, lang)
    index = reveal_index(nb, grade_id)
    own = (f"{grade_id}-answer", grade_id)  # the prediction itself, and its test echoing it
    found = [(number, stated(cell_text(cell), grade_id)) for number, cell in enumerate(nb.cells[:index])
             if cell.metadata.get("nbgrader", {}).get("grade_id") not in own]
    found = [(number, patterns) for number, patterns in found if patterns]
    print(f"{grade_id} ({lang}): {index} cells before its measurement read, {len(found)} state it")
    assert not found, f"{grade_id}: cells before the measurement state its outcome: {found}"


def test_no_module_a_kernel_can_import_states_an_outcome():
    modules = sorted((ROOT / "course").rglob("*.py")) + sorted((ROOT / "minigrad").rglob("*.py"))
    found = [(path.name, grade_id) for path in modules for grade_id in ANSWERS
             if stated(path.read_text(encoding="utf-8"), grade_id)]
    print(f"{len(modules)} modules read, {len(found)} state an outcome")
    assert len(modules) > 15 and not found, found


@pytest.mark.parametrize("unit, grade_id", PREDICTS)
def test_the_predict_cell_is_released_empty(unit, grade_id):
    """The student's copy holds `PREDICT_... = None`, not the model prediction of the source."""
    import nbformat
    for lang in LANGUAGES:
        release = nbformat.read(ROOT / "release" / f"{unit}-{lang}" / f"{unit}.ipynb", 4)
        cell = next(c for c in release.cells if c.metadata.get("nbgrader", {}).get("grade_id") == f"{grade_id}-answer")
        assert re.search(rf"^{variable(release, grade_id)} = None$", cell.source, re.MULTILINE), cell.source
        assert "BEGIN SOLUTION" not in cell.source


@pytest.mark.slow  # executes each unit in a kernel, in both languages
@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("unit", UNITS)
def test_each_measurement_refuses_until_its_prediction_is_recorded(unit, lang, tmp_path):
    nb = copy.deepcopy(source_notebook(unit, lang))
    ids = grade_ids(nb)
    if not ids:
        pytest.skip(f"{unit} asks for no prediction")
    for grade_id in ids:  # as released: every prediction still None
        cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == f"{grade_id}-answer")
        cell.source = f"{variable(nb, grade_id)} = None"
    reveals = {grade_id: reveal_index(nb, grade_id) for grade_id in ids}
    nb.cells = nb.cells[:max(reveals.values()) + 1]
    NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    for grade_id, index in reveals.items():
        outputs = nb.cells[index].outputs
        errors = [o for o in outputs if o.output_type == "error"]
        shown = [o for o in outputs if o.output_type != "error"]
        assert len(errors) == 1 and errors[0].ename == "NotYet", (grade_id, outputs)
        assert REFUSAL[lang] in errors[0].evalue and len(errors[0].traceback) == 1, errors[0]
        assert not shown, f"{grade_id}: the measurement printed before the prediction: {shown}"
    print(f"{unit}-{lang}: {len(reveals)} measurements refused until their prediction")


# ---- the mechanism (course/predictions.py) and its hidden check ----

@pytest.fixture
def spanish():
    student.language("es")
    yield
    student.language("en")


@pytest.mark.parametrize("value, allowed, ok", [
    ("b", "abcd", True), (" (B) ", "abcd", True), ("e", "abcd", False), (None, "abcd", False),
    (2, "abcd", False), ((4, -2), 2, True), ([4.0, -2], 2, True), ((4,), 2, False), (3, 1, True),
    ((True, 1), 2, False), ((float("nan"), 1), 2, False), ("4, -2", 2, False), (None, 2, False)])
def test_a_prediction_is_recorded_only_when_the_options_allow_it(value, allowed, ok, capsys):
    if ok:
        predictions.recorded(value, allowed)
        assert "✔ prediction recorded" in capsys.readouterr().out
    else:
        with pytest.raises(AssertionError) as error:
            predictions.recorded(value, allowed)
        assert "\n" not in str(error.value)


def test_the_reveal_refuses_in_the_students_language_and_notes_a_changed_prediction(spanish, capsys):
    with pytest.raises(predictions.NotYet, match="regístrala antes: aún no hay predicción"):
        predictions.reveal(None, "abcd")
    with pytest.raises(predictions.NotYet, match='"e" no es una de las opciones|\'e\' no es una de las opciones'):
        predictions.reveal("e", "abcd")
    predictions.reveal("b", "abcd")
    assert capsys.readouterr().out == ""
    predictions.reveal("c", "abcd")
    assert "tu predicción era (b)" in capsys.readouterr().out
    predictions.compare("c", "c")
    predictions.compare((4, -2), (-6.0, -2.0))
    said = capsys.readouterr().out
    assert "✔ como predijiste" in said and "✘ no es lo que predijiste" in said and "−6, −2" in said


@pytest.mark.parametrize("value, passed", [("c", True), ("C", True), ("z", False), (None, False), (7, False)])
def test_the_hidden_check_gives_the_point_for_any_recorded_prediction(value, passed):
    check = find_check("theory03-predict-digits")
    results = json.loads(json.dumps(find_probe("theory03-predict-digits").gather(3, (value,))))
    verdict = check.judge(3, results, "en", {"allowed": "abcd"})
    assert verdict.passed is passed, verdict.summary
    assert not check.judge(3, results, "en", {"allowed": "abcdefgh"}).passed  # the cell says otherwise


def test_the_hidden_check_of_numbers():
    check = find_check("theory03-predict-assign")
    for value, passed in (((4, -2), True), ((1, 2, 3), False), ("4, -2", False)):
        results = json.loads(json.dumps(find_probe("theory03-predict-assign").gather(3, (value,))))
        assert check.judge(3, results, "es", {"allowed": 2}).passed is passed, value
