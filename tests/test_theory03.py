"""Theory 03: what its student sees (messages, languages, no stand-in globals) and its hidden checks."""
import ast
import re

import nbformat
import pytest

from authoring.build import ROOT
from authoring.masters import LANGUAGE_TAIL
from course import student
from course.probes.theory03 import PROBES
from grader.checks.theory03 import CHECKS

MASTER = ROOT / "notebooks" / "theory03.md"


def source(lang):
    return nbformat.read(ROOT / "source" / f"theory03-{lang}" / "theory03.ipynb", as_version=4)


def role(cell):
    return cell.metadata.get("nbgrader", {})


def fails(call):
    with pytest.raises(AssertionError) as error:
        call()
    return str(error.value)


# ---- the visible tests' messages (course.student.expect_close) ----

@pytest.fixture
def spanish():
    student.language("es")
    yield
    student.language("en")


def test_message_names_the_wrong_element_and_shows_what_was_returned():
    message = fails(lambda: student.expect_close((6, 10, 1, -20), (6, 10, -2, -20), "forward(2, 3, 4)",
                                                 names=("ab", "e", "f", "L")))
    assert message.splitlines() == ["forward(2, 3, 4) returned (6, 10, 1, -20):",
                                    "  f is 1, expected -2"]


def test_none_says_missing_return(spanish):
    message = fails(lambda: student.expect_close(None, (4, -4, -12), "gradients(2, 3, 4)"))
    assert message == "gradients(2, 3, 4) devolvió None (¿falta un return?); se esperaba (4, -4, -12)"


def test_predicted_mistakes_are_named_in_spanish_without_english(spanish):
    message = fails(lambda: student.expect_close(
        (-6.0, -4.0, -2.0), (4, -4, -12), "gradients(2, 3, 4)", names=("dL_da", "dL_db", "dL_dc"),
        mistakes={"theory03_only_through_e": (-6, None, -2),
                  "theory03_only_through_f": (10, None, -10)}))
    lines = message.splitlines()
    assert lines[0] == "gradients(2, 3, 4) devolvió (-6.0, -4.0, -2.0):"
    assert lines[1].startswith("  dL_da vale -6.0, se esperaba 4 — eso es solo el camino a través de e")
    assert lines[2].startswith("  dL_dc vale -2.0, se esperaba -12 — eso es solo el camino a través de e")
    assert len(lines) == 3  # b is right: no line for it
    assert not re.search(r"\b(returned|expected|only|path|through|with)\b", message)
    forward = fails(lambda: student.expect_close(4.00003, 4.0, "central_difference(L, 2)", tol=1e-6,
                                                 mistakes={"theory03_forward_difference": 4.00003}))
    assert "diferencia hacia delante" in forward


def test_wrong_length_and_non_numbers():
    assert "returned (1, 2); expected (1, 2, 3)" in fails(
        lambda: student.expect_close((1, 2), (1, 2, 3), "x"))
    assert "returned str" in fails(lambda: student.expect_close("4", 4, "x"))
    student.expect_close((4.0, -4.0), (4, -4), "x")  # right answers pass silently


# ---- what a student's notebook contains ----

def test_a_notebook_contains_only_its_own_language():
    text = MASTER.read_text()
    code = "\n".join(re.findall(r"```python[^\n]*\n(.*?)```", text, flags=re.S))
    assert not re.search(r"\[LANG\]|LANG ==|LANG !=|\bLANG\b", code)
    strings = {"en": set(), "es": set()}
    for line in code.splitlines():
        tail = LANGUAGE_TAIL.match(line)
        if tail:
            for node in ast.walk(ast.parse(tail.group(1).strip())):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) > 3:
                    strings[tail.group(2)].add(node.value)
    assert strings["en"] and strings["es"]
    for lang, other in (("en", "es"), ("es", "en")):
        built = "\n".join(c.source for c in source(lang).cells if c.cell_type == "code")
        # every string written for the other language, and no f-string part of one either
        literals = "\n".join(node.value for node in ast.walk(ast.parse(built))
                             if isinstance(node, ast.Constant) and isinstance(node.value, str))
        leaked = [s for s in strings[other] - strings[lang] if s in literals]
        assert leaked == [], (lang, leaked)


ARGUMENTS = {"a", "b", "c", "e", "f", "x", "eps", "point", "i", "accumulate", "ab", "L"}


def test_no_notebook_global_can_stand_in_for_an_argument():
    """An answer that reads a global instead of its argument must fail the visible test."""
    assigned = set()
    for cell in source("en").cells:
        if cell.cell_type != "code" or role(cell).get("solution"):
            continue
        for node in ast.parse(cell.source).body:
            for target in ast.walk(node) if not isinstance(node, (ast.FunctionDef, ast.ClassDef)) else ():
                if isinstance(target, ast.Name) and isinstance(target.ctx, ast.Store):
                    assigned.add(target.id)
    assert assigned & ARGUMENTS == set()


def test_every_visible_test_checks_a_second_point():
    for cell in source("en").cells:
        if role(cell).get("grade"):
            visible = cell.source.split("### BEGIN HIDDEN TESTS")[0]
            calls = re.findall(r"expect_close\(\w+\(([^)]*)\)", visible)
            assert len({call.split(",")[0] for call in calls}) >= 2 or len(set(calls)) >= 2, cell.source


def test_hidden_cells_state_the_diamond():
    cells = {role(c).get("grade_id"): c.source for c in source("en").cells if role(c).get("grade")}
    assert "known={(2, 3, 4): (4, -4, -12)}" in cells["theory03-gradients"]
    assert "(2, 3, 4, True): (4, -4, -12)" in cells["theory03-walk"]
    assert "(2, 3, 4, 1): -4, (2, 3, 4, 2): -12" in cells["theory03-partial"]


# ---- the hidden check of partial_difference ----

def central(f, x, eps=1e-5):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


def partial_difference(f, point, i, eps=1e-5):
    moved = list(point)

    def along(t):
        moved[i] = t
        return f(*moved)
    return central(along, point[i], eps)


def forward_partial(f, point, i, eps=1e-5):
    up = list(point)
    up[i] += eps
    return (f(*up) - f(*point)) / eps


def ignores_i(f, point, i, eps=1e-5):
    return partial_difference(f, point, 0, eps)


@pytest.mark.parametrize("answer,passes", [(partial_difference, True), (forward_partial, False),
                                           (ignores_i, False)])
def test_partial_check(answer, passes):
    check = CHECKS["theory03-partial"]
    for seed in range(5):
        results = PROBES["theory03-partial"].gather(seed, (answer,))
        verdict = check.judge(seed, results, "es", check.stated)
        assert verdict.passed is passes, verdict.summary


def test_checks_describe_calls_without_words():
    describe = CHECKS["theory03-central"].describe
    assert describe([[1.2, -1, -1.97, 0], 0.5, 1e-3]) == \
        "central_difference(f, 0.5, eps=0.001), f(x) = 1.2 − x − 1.97x²"


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_deep_chain_demo_walks_past_the_recursion_limit_and_shows_the_recursive_sort_fail(lang):
    """Made shorter for speed (issue 9, item 15), the demo must still show what it is there for."""
    cell = next(c for c in source(lang).cells if c.cell_type == "code" and "recursive_order" in c.source)
    printed = "".join(o.get("text", "") for o in cell.outputs)
    depth, limit = (int(n.replace(",", "").replace(".", ""))
                    for n in re.findall(r"\d[\d,.]*\d", printed.splitlines()[0])[:2])
    assert depth >= 5 * limit, printed  # "far deeper" than the limit, and the prose says how many times
    assert "start.grad = 1" in printed and "RecursionError" in printed.splitlines()[1], printed
    assert {"en": "five times deeper", "es": "cinco veces más\nprofunda"}[lang] in MASTER.read_text()
