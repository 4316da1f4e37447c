"""Theory 03: what its student sees (messages, languages, no stand-in globals) and its hidden checks."""
import ast
import re
from fractions import Fraction

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
    code = "\n".join(re.findall(r"```python[^\n]*\n(.*?)```", text, flags=re.DOTALL))
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


# What an answer might read by mistake instead of its own argument: the exercises' parameters and
# the names people give them (an index `axis` for `i`, a step `h` for `eps`).
ARGUMENTS = {"a", "b", "c", "e", "f", "x", "t", "eps", "epsilon", "h", "step", "delta", "dx", "point", "p",
             "pt", "i", "j", "k", "n", "axis", "index", "idx", "dim", "accumulate", "ab", "L"}


def test_no_notebook_global_can_stand_in_for_an_argument():
    """An answer that reads a global instead of its argument must fail the visible test.

    Regression: the partial_difference test looped `for axis, want in ...`, leaving `axis`
    equal to the `i` of its last call, and `h = 1e-5` equalled the default eps."""
    assigned = set()
    for cell in source("en").cells:
        if cell.cell_type == "code" and not role(cell).get("solution"):
            assigned |= module_level_names(ast.parse(cell.source))
    assert assigned & ARGUMENTS == set()


def module_level_names(tree):
    """The names a cell binds as globals: assignments and loop variables, not those of a function,
    a class, a lambda or a comprehension (each has a scope of its own)."""
    names = set()
    own_scope = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp,
                 ast.SetComp, ast.DictComp, ast.GeneratorExp)
    stack = [tree]
    while stack:
        for child in ast.iter_child_nodes(stack.pop()):
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                names.add(child.id)
            elif not isinstance(child, own_scope):
                stack.append(child)
    return names


def test_no_global_left_after_running_the_notebook_is_named_like_an_argument():
    """The same, on the globals the notebook really leaves (loop variables included): none is named
    like an exercise's parameter, and no number hides behind a short name (`h`, `i`, `dx`)."""
    import inspect

    import matplotlib
    matplotlib.use("Agg")
    namespace = {}
    for cell in source("en").cells:
        if cell.cell_type == "code":
            exec(compile(cell.source, "theory03", "exec"), namespace)  # noqa: S102 (the notebook's own cells)
    exercises = [value for name, value in namespace.items()
                 if name in ("forward", "gradients", "central_difference", "partial_difference", "walk_by_hand")]
    assert len(exercises) == 5
    parameters = {name for fn in exercises for name in inspect.signature(fn).parameters}
    assert parameters <= ARGUMENTS
    values = {name: value for name, value in namespace.items()
              if not name.startswith("_") and not callable(value) and not inspect.ismodule(value)}
    assert set(values) & ARGUMENTS == set()
    short_numbers = {name for name, value in values.items()
                     if len(name) <= 3 and isinstance(value, (int, float, Fraction)) and not isinstance(value, bool)}
    assert short_numbers == set()


def test_every_visible_test_checks_a_second_point():
    for cell in source("en").cells:
        if role(cell).get("grade") and "-predict-" not in role(cell)["grade_id"]:  # a prediction: any is fine
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
    """Made shorter so the suite stays fast, the demo must still show what it is there for."""
    cell = next(c for c in source(lang).cells if c.cell_type == "code" and "recursive_order" in c.source)
    printed = "".join(o.get("text", "") for o in cell.outputs)
    depth, limit = (int(n.replace(",", "").replace(".", ""))
                    for n in re.findall(r"\d[\d,.]*\d", printed.splitlines()[0])[:2])
    assert depth >= 5 * limit, printed  # "far deeper" than the limit, and the prose says how many times
    assert "start.grad = 1" in printed and "RecursionError" in printed.splitlines()[1], printed
    assert {"en": "five times deeper", "es": "cinco veces más profunda"}[lang] in " ".join(MASTER.read_text().split())


# ---- the hidden checks word their reasons as the visible tests do ----

def judged(grade_id, answer, lang, seed=3):
    check = CHECKS[grade_id]
    verdict = check.judge(seed, PROBES[grade_id].gather(seed, (answer,)), lang, check.stated)
    assert not verdict.passed
    return verdict.summary


def only_through_e(a, b, c):
    f = a - c
    return f * b, f * a, f


def test_hidden_gradients_names_the_element_and_the_missing_path():
    assert judged("theory03-gradients", only_through_e, "en").splitlines() == [
        "gradients(2, 3, 4) returned [-6.0, -4.0, -2.0]:",
        ("  dL_da is -6.0, expected 4 — that is only the path through e: the path through f is missing"
         " (a diamond: add both)"),
        ("  dL_dc is -2.0, expected -12 — that is only the path through e: the path through f is missing"
         " (a diamond: add both)")]
    assert judged("theory03-gradients", only_through_e, "es").splitlines() == [
        "gradients(2, 3, 4) devolvió [-6.0, -4.0, -2.0]:",
        ("  dL_da vale -6.0, se esperaba 4 — eso es solo el camino a través de e: falta el camino a"
         " través de f (un diamante: suma los dos)"),
        ("  dL_dc vale -2.0, se esperaba -12 — eso es solo el camino a través de e: falta el camino a"
         " través de f (un diamante: suma los dos)")]


def test_hidden_checks_say_missing_return_for_none():
    def forgot(a, b, c):
        e, f = a * b + c, a - c
        (f * b + e, f * a, f - e)  # the mistake under test
    assert judged("theory03-gradients", forgot, "en") == \
        "gradients(2, 3, 4) returned None (missing return?); expected (4, -4, -12)"
    assert judged("theory03-gradients", forgot, "es") == \
        "gradients(2, 3, 4) devolvió None (¿falta un return?); se esperaba (4, -4, -12)"


def test_hidden_checks_name_a_forward_difference():
    def forward_central(f, x, eps=1e-5):
        return (f(x + eps) - f(x)) / eps
    for lang, words in (("en", "that is a forward difference, (f(x + eps) − f(x)) / eps: use the central one"),
                        ("es", "eso es una diferencia hacia delante, (f(x + eps) − f(x)) / eps: usa la central")):
        message = judged("theory03-central", forward_central, lang)
        assert message.startswith("central_difference(f, ") and words in message, message
        message = judged("theory03-partial", forward_partial, lang)
        assert message.startswith("partial_difference(L, (2, 3, 4), 0) ") and words in message, message
    assert "4.00003" in judged("theory03-partial", forward_partial, "en")
    assert "returned" not in judged("theory03-partial", forward_partial, "es")


def test_hidden_walk_names_assignment():
    def assigns(a, b, c, accumulate=True):
        f = a - c
        return f * b, f * a, f
    message = judged("theory03-walk", assigns, "es")
    assert message.splitlines()[0] == "walk_by_hand(2, 3, 4, accumulate=True) devolvió [-6.0, -4.0, -2.0]:"
    assert "eso es lo que deja `=`" in message


def test_the_visible_partial_test_names_a_forward_difference():
    cell = next(c.source for c in source("en").cells if role(c).get("grade_id") == "theory03-partial")
    visible = cell.split("### BEGIN HIDDEN TESTS")[0]
    namespace = {"student": student, "partial_difference": forward_partial,
                 "L_of": lambda a, b, c: (a * b + c) * (a - c)}
    message = fails(lambda: exec(visible, namespace))  # noqa: S102 (the notebook's own test cell)
    assert message.startswith("partial_difference(L, (2, 3, 4), 0) returned 4.0000") and \
        "forward difference" in message, message


def test_a_none_inside_a_tuple_is_not_called_a_missing_return():
    message = judged("theory03-gradients", lambda a, b, c: (4.0, None, -12.0), "en")
    assert "missing return" not in message and "NoneType" in message, message
