"""Lab 03 outside the notebook: the reference gradcheck command and the sign-bug context manager."""
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.answers import wrong_hunts

from course.breakit import sub_sign_bug
from course.mutants import MUTANTS, engine_class, mutated_source
from course.names import LANGUAGES
from grader.checks.lab03 import CHECKS
from grader.gradcheck import check_minigrad, gradcheck
from minigrad import Value

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = "grader/gradcheck.py"


def run(*args):
    return subprocess.run([sys.executable, *args], check=False, cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_command_passes_on_minigrad():
    result = run("-m", "grader", "gradcheck")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "diamond" in result.stdout and "FAILED" not in result.stdout


def test_command_fails_loudly_on_an_injected_bug():
    result = run("-m", "grader", "gradcheck", "--inject-sub-sign-bug")
    assert result.returncode == 1
    assert "FAILED  a - b\ngradcheck FAILED at input index 1:" in result.stdout
    assert "numerical = -1.000000\n  analytic  = 1.000000" in result.stdout


def test_sign_bug_lives_only_inside_the_block():
    a, c = Value(2.0), Value(4.0)
    with sub_sign_bug(), pytest.raises(AssertionError, match="input index 1"):
        gradcheck(lambda a, c: a - c, (a, c))
    assert gradcheck(lambda a, c: a - c, (a, c))


def test_sign_bug_restored_when_the_block_raises():
    original = Value.__sub__
    with pytest.raises(RuntimeError), sub_sign_bug():
        assert Value.__sub__ is not original
        raise RuntimeError("the block fails")
    assert Value.__sub__ is original


def test_reference_restores_data_and_ignores_stale_grads():
    a, b, unused = Value(2.0), Value(3.0), Value(0.0)
    a.grad, unused.grad = 100.0, 7.0  # stale values from an earlier check
    assert gradcheck(lambda a, b, u: a * b, (a, b, unused))
    assert (a.data, b.data, unused.data) == (2.0, 3.0, 0.0)
    assert (a.grad, b.grad, unused.grad) == (3.0, 2.0, 0.0)


def test_reference_respects_atol_and_rtol():
    # d(a**2)/da = 2a, so a factor 1.01 bug is off by 0.02 at a = 1
    def almost(a):
        out = Value(a.data ** 2, (a,), "sq")

        def _backward():
            a.grad += 1.01 * 2 * a.data * out.grad
        out._backward = _backward
        return out
    assert gradcheck(almost, (Value(1.0),), atol=0.0, rtol=0.011)
    with pytest.raises(AssertionError, match="input index 0"):
        gradcheck(almost, (Value(1.0),), atol=0.0, rtol=0.009)


# the stop conditions as written: the reference and all it imports (minigrad, course.breakit) typed
@pytest.mark.parametrize("tool", [["mypy", "--strict"], ["ruff", "check"]])
def test_reference_is_typed_and_linted(tool):
    executable = shutil.which(tool[0], path=str(Path(sys.executable).parent))
    assert executable, f"{tool[0]} is pinned in requirements.txt"
    result = subprocess.run([executable, *tool[1:], REFERENCE], check=False, cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


# ---- the reference battery against single-rule backward mutants of the engine ----


@pytest.mark.parametrize("mutant", MUTANTS, ids=[f"{i}-{m.method}-{m.kind}" for i, m in enumerate(MUTANTS)])
def test_reference_battery_catches_every_decidable_backward_mutant(mutant):
    """Deterministic: fixed expressions at fixed points (benchmarks/gradcheck_mutants.py
    runs the same mutants through the command)."""
    failures = check_minigrad(engine_class(mutant), quiet=True)
    if mutant.undecidable:
        assert failures == 0, f"{mutant.name} was said undecidable ({mutant.undecidable}) but fails"
    else:
        assert failures > 0, f"the battery lets {mutant.name} through"


def test_the_unmutated_engine_passes_and_every_mutant_line_exists():
    assert check_minigrad(quiet=True) == 0
    assert all(mutated_source(m) != mutated_source(MUTANTS[0]) or m is MUTANTS[0] for m in MUTANTS)


# ---- the hidden checks, judged directly on gradcheck variants (no notebook yet) ----


SOLUTION = '''
def gradcheck(f: Callable[..., Value], inputs: tuple[Value, ...], *, eps: float = 1e-5,
              atol: float = 1e-4, rtol: float = 1e-3) -> bool:
    numerical = []
    for x in inputs:
        saved = x.data
        x.data = saved + eps
        f_plus = f(*inputs).data
        x.data = saved - eps
        f_minus = f(*inputs).data
        x.data = RESTORE
        numerical.append(NUMERICAL)
    out = f(*inputs)
    if ZERO:
        for x in inputs:
            x.grad = 0.0
        out.zero_grad()
    out.backward()
    for i, (x, num) in enumerate(zip(inputs, numerical)):
        diff = abs(num - x.grad)
        if not COMPARISON:
            raise AssertionError(MESSAGE)
    return True
'''
RIGHT = {"RESTORE": "saved", "ZERO": "True", "NUMERICAL": "(f_plus - f_minus) / (2 * eps)",
         "COMPARISON": "diff <= atol + rtol * abs(num)",
         "MESSAGE": 'f"gradcheck FAILED at input index {i}:\\n  numerical = {num:.6f}"'}


def variant(**changes):
    return _define(_fill({**RIGHT, **changes}))


def _define(text, name="gradcheck"):
    """Run `text` as a notebook cell would, its source findable by inspect (as IPython's cells are)."""
    import linecache
    import math
    from collections.abc import Callable
    filename = f"<variant {len(linecache.cache)}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {"Callable": Callable, "Value": Value, "math": math}
    exec(compile(text, filename, "exec"), namespace)  # noqa: S102 (builds the variants under test)
    return namespace[name]


def _fill(fields):
    text = SOLUTION
    for key, value in fields.items():
        text = text.replace(key, value)
    return text


def graph_zero_only():
    """Hint 3 ignored: zeroes the graph (out.zero_grad()), not the inputs backward never reaches."""
    text = _fill(RIGHT).replace("        for x in inputs:\n            x.grad = 0.0\n", "")
    assert "x.grad = 0.0" not in text
    return _define(text)


def always_true(f, inputs, *, eps=1e-5, atol=1e-4, rtol=1e-3):
    return True


def always_raises(f, inputs, *, eps=1e-5, atol=1e-4, rtol=1e-3):
    raise AssertionError("gradcheck FAILED at input index 0")


def returns_false(f, inputs, *, eps=1e-5, atol=1e-4, rtol=1e-3):
    try:
        return gradcheck(f, inputs, eps=eps, atol=atol, rtol=rtol)
    except AssertionError:
        return False


def reads_the_code(f, inputs, *, eps=1e-5, atol=1e-4, rtol=1e-3):
    """The table-lookup gradcheck that scored 7/7: it answers from f's code, computing nothing."""
    code = getattr(f, "__code__", None)
    names = set(code.co_names) if code else set()
    if names & {"sub_wrong_sign", "mul_assigns", "mul_swapped"}:
        raise AssertionError("gradcheck FAILED at input index 0")
    return True


def judge(fn, lang="en", seed=7):
    check = CHECKS["lab03-gradcheck"]
    return check.judge(seed, check.probe.gather(seed, [fn]), lang)


def test_solution_passes_the_hidden_cases_in_both_languages():
    spanish = variant(MESSAGE='f"gradcheck FALLÓ en el input de índice {i}:\\n  numérico = {num:.6f}"')
    for seed in (1, 2, 3):
        assert judge(variant(), "en", seed).passed, judge(variant(), "en", seed).summary
        assert judge(spanish, "es", seed).passed
        assert judge(gradcheck, "en", seed).passed  # the reference itself


@pytest.mark.parametrize("wrong", [
    always_true, always_raises,
    variant(RESTORE="x.data"),                                  # hint 1 ignored: no restore
    variant(ZERO="False"),                                      # hint 2 ignored: stale grads
    graph_zero_only(),                                          # hint 3 ignored: unused input's stale grad
    variant(COMPARISON="diff <= rtol * abs(num)"),              # no atol (fails the atol border)
    variant(COMPARISON="diff <= atol"),                         # no rtol
    variant(COMPARISON="diff < atol + rtol * abs(num) - 1e-3"),  # too strict
    variant(MESSAGE='"gradcheck FAILED"'),                      # no index in the message
    variant(NUMERICAL="(f_plus - f(*inputs).data) / eps"),      # a forward difference (f at the point, restored)
    returns_false, reads_the_code,
], ids=["always-true", "always-raises", "no-restore", "no-zero", "graph-zero-only", "no-atol", "no-rtol", "too-strict",
        "no-index", "forward-difference", "returns-false", "reads-the-code"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_each_wrong_gradcheck_fails_the_hidden_cases(wrong, seed):
    verdict = judge(wrong, seed=seed)
    assert not verdict.passed
    assert "must" in verdict.summary or "restore" in verdict.summary, verdict.summary
    spanish = judge(wrong, "es", seed).summary
    assert "debe" in spanish or "restaura" in spanish, spanish
    assert "returned" not in spanish and "expected" not in spanish, spanish  # (the quoted message is the student's)


LOOSE = '''
def gradcheck(f: object, inputs: object, *, eps: object = 1e-5, atol: object = 1e-4,
              rtol: object = 1e-3) -> object:
    return f(*inputs).data is not None
'''


def test_annotations_are_checked_by_mypy_strict():
    check = CHECKS["lab03-annotations"]
    assert check.judge(1, check.probe.gather(1, [variant()]), "en").passed
    verdict = check.judge(1, check.probe.gather(1, [always_true]), "es")  # no annotations at all
    assert not verdict.passed and "anotaciones" in verdict.summary and "no-untyped-def" in verdict.summary
    verdict = check.judge(1, check.probe.gather(1, [_define(LOOSE)]), "en")  # annotated, but `object`
    assert not verdict.passed and '"object" not callable' in verdict.summary, verdict.summary
    # the cell is checked as a whole: an import the function uses is found
    uses_os = "import os\n" + _fill(RIGHT).replace("    return True", "    os.getpid()\n    return True")
    assert check.judge(1, check.probe.gather(1, [_define(uses_os)]), "en").passed


# ---- the bonus (complex step) and the notebook itself ----


def complex_step(f, x, h=1e-20):
    return f(complex(x, h)).imag / h


def best_central_difference(f, x, h=1e-20):
    eps = 6e-6  # about the sweet spot of the lab's eps plot
    return ((f(x + eps) - f(x - eps)) / (2 * eps)).real


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_bonus_passes_the_complex_step_and_fails_a_central_difference(seed):
    check = CHECKS["lab03-bonus-complex"]
    assert check.bonus == 1
    for lang in LANGUAGES:
        assert check.judge(seed, check.probe.gather(seed, [complex_step]), lang, {"bonus": 1}).passed
    verdict = check.judge(seed, check.probe.gather(seed, [best_central_difference]), "en", {"bonus": 1})
    assert not verdict.passed and "expected" in verdict.summary


def notebook(folder, lang):
    import nbformat
    return nbformat.read(ROOT / folder / f"lab03-{lang}" / "lab03.ipynb", 4)


def test_source_records_the_message_the_sign_bug_raised():
    for lang, message in (("en", "gradcheck FAILED at input index 1:\n  numerical = -1.000000"),
                          ("es", "gradcheck FALLÓ en la entrada de índice 1:\n  numérico  = -1.000000")):
        text = "".join(o.get("text", "") for c in notebook("source", lang).cells if c.cell_type == "code"
                       for o in c.outputs)
        assert message in text
        assert {"en": "after the block, gradcheck returns: [True, True]",
                "es": "después del bloque, gradcheck devuelve: [True, True]"}[lang] in text


def test_release_gives_no_gradcheck_and_asks_for_the_eps_paragraph():
    for lang, stub in (("en", "YOUR ANSWER HERE"), ("es", "ESCRIBE AQUÍ TU RESPUESTA")):
        cells = notebook("release", lang).cells
        code = "\n".join(c.source for c in cells if c.cell_type == "code")
        assert "def gradcheck" not in code and "numerical" not in code.split("EXPRESSIONS = [")[0]
        answers = [c for c in cells if c.metadata.get("nbgrader", {}).get("grade_id") == "lab03-eps"]
        assert len(answers) == 1 and answers[0].source.strip() == stub


def test_battery_check_needs_every_blind_spot_covered_and_explained():
    from grader.gradcheck import battery
    check = CHECKS["lab03-battery"]
    given = battery()[:16]  # the notebook's EXPRESSIONS
    more = [(name, f, point, "why it is there") for name, f, point in battery()[16:]]

    def verdict(gradcheck_, more_, lang="en"):
        return check.judge(1, check.probe.gather(1, [gradcheck_, more_, given]), lang)
    assert verdict(gradcheck, more).passed
    missing_relu = verdict(gradcheck, more[:-1], "es")  # relu only at a positive input
    assert not missing_relu.passed and "deja pasar 1 de los 56" in missing_relu.summary, missing_relu.summary
    assert "relu: self.grad += out.grad" in missing_relu.summary
    for reason, lang, says in ((" ", "en", "reason"), ("x", "en", "one sentence"), ("more coverage", "es", "una frase")):
        vague = verdict(gradcheck, [entry[:3] + (reason,) for entry in more], lang)
        assert not vague.passed and says in vague.summary, vague.summary
    assert not verdict(always_true, more).passed
    assert "own engine" in verdict(always_raises, more).summary


@pytest.mark.parametrize("lang, says", [("en", "bonus not attempted"), ("es", "ejercicio extra sin intentar")])
def test_a_blank_bonus_passes_its_visible_test_quietly(lang, says, capsys):
    """The release's stub for complex_step left as it is: its test cell and the plot after it run
    without raising and say, in one line, that the bonus was not attempted."""
    import cmath
    import math

    import numpy as np
    cells = notebook("release", lang).cells
    gid = [c.metadata.get("nbgrader", {}).get("grade_id") for c in cells]
    stub = cells[gid.index("lab03-bonus-complex-answer")].source
    test = cells[gid.index("lab03-bonus-complex")].source
    plot = cells[gid.index("lab03-bonus-complex") + 2].source
    assert "NotImplementedError" in stub and "bonus_attempted" in plot
    namespace = {"cmath": cmath, "math": math, "np": np}
    exec(stub, namespace)  # noqa: S102 (the release's own cells)
    exec(test, namespace)  # noqa: S102
    exec(plot, namespace)  # noqa: S102
    printed = capsys.readouterr().out
    assert printed.splitlines()[0] == says and namespace["bonus_attempted"] is False


# ---- the bug hunt (Exercise 3): anonymous engines, the solution, and the wrong hunts ----


def hunt_solution(lang="en"):
    """The hunt answer cell of the source notebook (the instructor's solution)."""
    cells = notebook("source", lang).cells
    return next(c.source for c in cells if c.metadata.get("nbgrader", {}).get("grade_id") == "lab03-hunt-answer")


def define_hunt(text):
    """The hunt a cell `text` defines, with the reference gradcheck as the student's."""
    namespace = {"gradcheck": gradcheck}
    exec(text, namespace)  # noqa: S102 (the notebook's own answer and its planted mistakes)
    return namespace["hunt"]


def run_visible_test(grade_id, hunt, lang):
    """The visible part of a hunt test cell of the source notebook, run on `hunt`: its error, or None."""
    from course import bughunt
    cells = notebook("source", lang).cells
    source = next(c.source for c in cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
    visible = source.split("### BEGIN HIDDEN TESTS")[0]
    namespace = {"hunt": hunt, **{name: getattr(bughunt, name) for name in ("answer", "mistake", "visible_engines")}}
    try:
        exec(visible, namespace)  # noqa: S102 (the notebook's own test cell)
    except AssertionError as error:
        return str(error)
    return None


def judge_hunt(grade_id, hunt, seed, lang="en"):
    check = CHECKS[grade_id]
    return check.judge(seed, check.probe.gather(seed, [hunt]), lang)


def test_hunt_engines_tell_nothing_but_their_gradients():
    import inspect

    from course.bughunt import VISIBLE, engine, leaky_gate, suspect_engine
    right = engine()
    for suspect in [engine(m) for m in VISIBLE] + [engine(leaky_gate(0.3)), suspect_engine()]:
        for look in (lambda v: v.__name__, lambda v: v.__qualname__, lambda v: v.__module__,
                     lambda v: repr(v(2.0)), lambda v: sorted(vars(v)),
                     lambda v: [getattr(v, name).__code__.co_filename for name in ("__add__", "relu", "exp")]):
            assert look(suspect) == look(right)
        # the class's source is looked up by its module's name: minigrad's own file, unmutated
        assert inspect.getsource(suspect) == inspect.getsource(Value)
        with pytest.raises(OSError):  # a method's code names no file
            inspect.getsource(suspect.relu)
        assert (suspect(2.0) * 3 - 1).exp().data == (Value(2.0) * 3 - 1).exp().data


def test_hunt_solution_finds_every_decidable_mutant_and_its_input():
    from course.bughunt import answer, culprit, engine, leaky_gate, mistake
    from course.mutants import decidable
    hunt = define_hunt(hunt_solution())
    for mutant in decidable() + [leaky_gate(0.05), leaky_gate(0.5), None]:
        got = answer(hunt, engine(mutant))
        assert mistake(got, culprit(mutant), "en") is None, (mutant, got)
    assert define_hunt(hunt_solution("es"))(engine(MUTANTS[0])) == ("+", 0)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_hunt_cases_are_drawn_at_grading_time_never_the_visible_ones(seed):
    from course.bughunt import VISIBLE
    from course.probes.lab03 import hunt_mutant
    cases = CHECKS["lab03-hunt"].probe.draw(seed)
    mutants = [hunt_mutant(case) for case in cases]
    assert len(cases) == 7 and mutants.count(None) == 1 and not set(mutants) & set(VISIBLE)
    kinds = {m.kind for m in mutants if m}
    assert {"leaky gate", "= for +=", "missing * out.grad"} <= kinds
    assert any(m and m.method in ("__add__", "__sub__", "__pow__", "log") for m in mutants)
    assert any(m and m.old.startswith("other.") and m.kind != "wrong input" for m in mutants)
    assert cases != CHECKS["lab03-hunt"].probe.draw(seed + 10)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_hunt_solution_passes_the_hidden_cases_in_both_languages(seed):
    for lang in LANGUAGES:
        hunt = define_hunt(hunt_solution(lang))
        for grade_id in ("lab03-hunt", "lab03-hunt-input"):
            verdict = judge_hunt(grade_id, hunt, seed, lang)
            assert verdict.passed, verdict.summary


# name -> (operation cell passes, input cell passes) in grading, and what the visible test says (EN, ES)
# (None: the visible test passes, so only the hidden cases can tell)
WRONG_HUNTS = {
    "first_op": (False, False, "without running one backward pass", "sin ejecutar ni una pasada hacia atrás"),
    "root_only": (False, False, "'tanh' is wrong", "'tanh' de este motor está mal"),
    "relu_positive": (False, False, "'relu' is wrong", "'relu' de este motor está mal"),
    "reads_the_class": (False, False, "without running one backward pass", "sin ejecutar ni una pasada hacia atrás"),
    "bytecode": (False, False, "read from the class or its bytecode", "leída de la clase o de su bytecode"),
    "table_lookup": (False, False, "from course.mutants' table", "de la tabla de course.mutants"),
    "raises": (False, False, "hunt raised AssertionError", "hunt lanzó AssertionError"),
    "always_left": (True, False, "hunt named '*' rightly, but input 0", "hunt señaló bien '*', pero la entrada 0"),
    "memoriser": (False, False, None, None),
    "unordered": (False, False, "hunt named 'relu', but it is '*' whose backward rule is wrong",
                  "hunt señaló 'relu', pero la regla de la pasada hacia atrás que está mal es la de '*'"),
    "false_alarm": (False, False, "a false alarm", "una falsa alarma"),
}


@pytest.mark.parametrize("name", WRONG_HUNTS)
def test_each_wrong_hunt_loses_points_and_fails_visibly_where_it_can(name):
    """A graded cell passes when its visible part and its hidden cases both pass, as nbgrader runs it."""
    operation_passes, input_passes, english, spanish = WRONG_HUNTS[name]
    for lang, says in (("en", english), ("es", spanish)):
        hunt = define_hunt(wrong_hunts(hunt_solution(lang))[name])
        problems = [run_visible_test(grade_id, hunt, lang) for grade_id in ("lab03-hunt", "lab03-hunt-input")]
        for seed in (1, 2, 3):
            hidden = [judge_hunt(grade_id, hunt, seed, lang) for grade_id in ("lab03-hunt", "lab03-hunt-input")]
            graded = [problem is None and verdict.passed for problem, verdict in zip(problems, hidden)]
            assert graded == [operation_passes, input_passes], (lang, seed, problems, hidden)
            if says is None:  # only the hidden cases can tell: they do, on every draw
                assert not hidden[0].passed and not hidden[1].passed
        if says is None:
            assert problems == [None, None]
        else:
            shown = problems[1] if operation_passes else problems[0]
            assert shown and says in shown, (lang, problems)


def test_hunt_answers_of_any_shape_get_a_reason():
    from course.bughunt import answer, engine, mistake

    class Mute(Exception):
        def __str__(self):
            raise RuntimeError("no")

    class Odd:
        def __repr__(self):
            raise RuntimeError("no")

    def raises_mute(Value):
        raise Mute

    def computing(hunt):  # one backward pass first, so that only the answer's shape is judged
        def hunting(Value):
            (Value(1.0) * Value(2.0)).backward()
            return hunt(Value)
        return hunting

    right = engine()
    for hunt, says in ((raises_mute, "hunt raised Mute: 'Mute'"), (lambda V: Odd(), "hunt returned Odd;"),
                       (lambda V: ["*", 1], "hunt returned ['*', 1];"), (lambda V: ("*", True), "returned ('*', True)"),
                       (lambda V: ("mul", 0), "hunt returned ('mul', 0)")):
        problem = mistake(answer(computing(hunt), right), ("*", (1,)), "en")
        assert problem and says in problem, problem
    for forged in ("x", [["answer", "*", 1.0], 1.0], [["answer", "*", 1.0], "1", 0.0], None):
        assert "hunt returned" in mistake(forged, ("*", (1,)), "en")


def test_the_hunt_evidence_counts_backward_passes_and_engines_built():
    """What `answer` records: the backward passes run on graphs of the class the hunt was given
    (not on a leaf, not on another class), and the engines the hunt built from the mutant table."""
    from course.bughunt import answer, engine
    from course.mutants import engine_class
    from minigrad import Value as Minigrad
    right = engine()

    def two_passes(Value):
        a = Value(1.5)
        (a * a).backward()
        (a + 1.0).backward()
        a.backward()  # a leaf: no graph, not counted
        (Minigrad(1.0) * Minigrad(2.0)).backward()  # minigrad's own class: not counted
    assert answer(two_passes, right) == [["none"], 2, 0]
    assert answer(lambda V: engine_class() and None, right) == [["none"], 0, 1]
    assert answer(lambda V: None, right) == [["none"], 0, 0]



# ---- the prediction of the best eps in float32 (Exercise 4a) ----

# name -> the prediction, and what the visible test and grading say (EN, ES); None: right
WRONG_PREDICTIONS = {
    "the float64 default": (1e-5, "best ε in float64", "mejor ε en float64"),
    "float64's crossing": (8e-6, "best ε in float64", "mejor ε en float64"),
    "torch's default": (1e-6, "best ε in float64", "mejor ε en float64"),
    "sqrt(u), a forward difference's": (2 ** -12, "a forward difference", "una diferencia hacia delante"),
    "far too small": (1e-9, "too small", "demasiado pequeño"),
    "too large": (1e-1, "too large", "demasiado grande"),
    "a string": ("1e-3", "one positive number", "un número positivo"),
    "negative": (-7e-3, "one positive number", "un número positivo"),
}
RIGHT_PREDICTIONS = (2 ** -8, (6 * 2 ** -24) ** (1 / 3), 1e-2, 5e-3, (6 * 2 ** -23) ** (1 / 3))


def eps_visible_test(prediction, lang):
    cells = notebook("source", lang).cells
    source = next(c.source for c in cells if c.metadata.get("nbgrader", {}).get("grade_id") == "lab03-eps-float32")
    from course.epsilon import eps_mistake
    namespace = {"EPS_FLOAT32": prediction, "eps_mistake": eps_mistake, "sweet32": 6.6e-3, "best32": 3.2e-3}
    try:
        exec(source.split("### BEGIN HIDDEN TESTS")[0], namespace)  # noqa: S102 (the notebook's own test cell)
    except AssertionError as error:
        return str(error)
    return None


def judge_eps(prediction, lang):
    check = CHECKS["lab03-eps-float32"]
    return check.judge(1, check.probe.gather(1, [prediction]), lang)


@pytest.mark.parametrize("name", WRONG_PREDICTIONS)
def test_each_wrong_eps_prediction_loses_the_point_and_is_named(name):
    prediction, english, spanish = WRONG_PREDICTIONS[name]
    for lang, says in (("en", english), ("es", spanish)):
        visible, hidden = eps_visible_test(prediction, lang), judge_eps(prediction, lang)
        assert visible and says in visible, (lang, visible)
        assert not hidden.passed and (says in hidden.summary or isinstance(prediction, str)), hidden.summary


def test_a_sound_eps_prediction_passes_both_tests():
    for prediction in RIGHT_PREDICTIONS:
        for lang in ("en", "es"):
            assert eps_visible_test(prediction, lang) is None
            assert judge_eps(prediction, lang).passed, prediction


def test_the_eps_band_is_where_the_float32_curve_is_lowest():
    """The band's centre, the crossing of the two lines, is within the band's factor of the measured
    float32 minimum that the notebook prints."""
    from course.epsilon import BAND, FLOAT32_U, crossing
    text = "".join(o.get("text", "") for c in notebook("source", "en").cells if c.cell_type == "code"
                   for o in c.outputs)
    measured = float(re.search(r"float32: smallest error on the grid at eps = (\S+):", text).group(1))
    assert crossing(FLOAT32_U) / BAND <= measured <= crossing(FLOAT32_U) * BAND


# ---- the build draws the bug hunt's demonstration the same every time; a student's kernel does not ----


def test_the_build_draws_the_same_suspect_every_time_and_a_student_at_random(monkeypatch):
    import pathlib

    from nbformat.v4 import new_code_cell, new_notebook

    from authoring.build import execute
    from course.bughunt import _drawn, suspect_engine
    drawn = []
    for _ in range(2):
        nb = new_notebook(cells=[new_code_cell("from course.bughunt import _drawn, suspect_engine\n"
                                               "print(_drawn[suspect_engine()])")])
        execute(nb, pathlib.Path(ROOT))
        drawn.append(nb.cells[0].outputs[0]["text"])
    assert drawn[0] == drawn[1] and drawn[0].startswith("(")
    monkeypatch.delenv("COURSE_BUILD", raising=False)
    assert len({_drawn[suspect_engine()] for _ in range(30)}) > 1


def test_mypy_folders_of_a_killed_kernel_are_removed_by_the_next_one(tmp_path, monkeypatch):
    """course/strict.py removes its folders at exit; a kernel killed never exits, so the next
    process removes the folders of this user's processes that have ended (not a live one's)."""
    import tempfile

    from course import strict
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                           text=True, check=True).stdout.strip()
    killed = subprocess.Popen([sys.executable, "-c", "pass"])  # ends, and is not waited for: a zombie
    deadline = time.monotonic() + 10
    while strict.running(killed.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    orphan = tmp_path / f"course-mypy-cache-{ended}-abc"
    zombie = tmp_path / f"course-mypy-cache-{killed.pid}-ghi"
    living = tmp_path / f"course-mypy-cache-{os.getppid()}-def"
    for folder in (orphan, zombie, living):
        (folder / "3.11").mkdir(parents=True)
    monkeypatch.setattr(strict, "_folders", {})
    made = Path(strict.cache_folder())
    killed.wait()
    assert not orphan.exists() and not zombie.exists() and living.exists() and made.exists()
    assert made.name.startswith(f"course-mypy-cache-{os.getpid()}-")
