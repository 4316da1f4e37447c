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


def test_release_gives_no_answer_and_asks_for_the_eps_paragraph():
    for lang, stub in (("en", "YOUR ANSWER HERE"), ("es", "ESCRIBE AQUÍ TU RESPUESTA")):
        cells = notebook("release", lang).cells
        code = "\n".join(c.source for c in cells if c.cell_type == "code")
        assert "def gradcheck" not in code and "numerical.append" not in code and "EXPRESSIONS = [\n" not in code
        assert "c.grad += out.grad" not in code and "HUNT = [" not in code
        answers = [c for c in cells if c.metadata.get("nbgrader", {}).get("grade_id") == "lab03-eps"]
        assert len(answers) == 1 and answers[0].source.strip() == stub


def test_battery_check_needs_every_blind_spot_covered():
    from grader.gradcheck import battery
    check = CHECKS["lab03-battery"]
    given = battery()[:16]  # a battery of one expression per operation and the composites
    more = battery()[16:]

    def verdict(gradcheck_, more_, lang="en"):
        return check.judge(1, check.probe.gather(1, [gradcheck_, more_, given]), lang)
    assert verdict(gradcheck, more).passed
    missing_relu = verdict(gradcheck, more[:-1], "es")  # relu only at a positive input
    assert not missing_relu.passed and "deja pasar 1 de los 56" in missing_relu.summary, missing_relu.summary
    assert "relu: self.grad += out.grad" in missing_relu.summary
    assert verdict(gradcheck, [entry + ("a fourth item is ignored",) for entry in more]).passed
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
    "bytecode_show": (False, False, "so it earns nothing", "así que no puntúa"),
    "table_lookup": (False, False, "from course.mutants' table", "de la tabla de course.mutants"),
    "raises": (False, False, "hunt raised AssertionError", "hunt lanzó AssertionError"),
    "always_left": (True, False, "hunt named '*' rightly, but input 0", "hunt señaló bien '*', pero la entrada 0"),
    "memoriser": (False, False, "so it earns nothing", "así que no puntúa"),
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
    (not on a leaf, not on another class), each with its graph and its leaves' .grad before and
    after, and the engines the hunt built from the mutant table."""
    from course.bughunt import answer, engine
    from course.mutants import engine_class
    from minigrad import Value as Minigrad
    right = engine()

    def two_passes(Value):
        a = Value(1.5)
        a.grad = 7.0  # a stale gradient: recorded as it was before the pass
        (a * a).backward()
        (a + 1.0).backward()
        a.backward()  # a leaf: no graph, not counted
        (Minigrad(1.0) * Minigrad(2.0)).backward()  # minigrad's own class: not counted
    returned, passes, built, records = answer(two_passes, right)
    assert (returned, passes, built) == (["none"], 2, 0)
    assert records == [[[["", [], 1.5], ["*", [0, 0], 2.25]], [[0, 7.0, 10.0]]],
                       [[["", [], 1.5], ["", [], 1.0], ["+", [0, 1], 2.5]], [[0, 10.0, 11.0], [1, 0.0, 1.0]]]]
    assert answer(lambda V: engine_class() and None, right)[:3] == [["none"], 0, 1]
    assert answer(lambda V: None, right) == [["none"], 0, 0, []]


def test_a_pass_is_judged_right_or_wrong_by_minigrad_rebuilding_its_graph():
    """The tie rule's facts: a pass of a broken engine that shows the bug is wrong, one that hides it
    is right; a pass with a node the engine did not make, or a graph that is not what its values say,
    is neither; a forged record is read, never trusted."""
    from course.bughunt import VISIBLE, answer, engine, judged
    from minigrad import Value as Minigrad
    tanh_at_root = engine(VISIBLE[1])  # tanh without `* out.grad`: right at the root only

    def passes(Value):
        (Value(0.35).tanh() * Value(2.0)).backward()  # below the root: wrong
        Value(0.35).tanh().backward()  # the root (a leaf under it): right
        a = Value(0.5)
        forged = Value(a.data * 3, (a,), "tanh")  # a node the engine did not make
        forged._backward = lambda: None
        forged.backward()
    records = answer(passes, tanh_at_root)[3]
    assert records[2] == ["foreign"]
    assert judged(records, Minigrad) == [({"tanh", "*"}, False), ({"tanh"}, True)]
    lying = [[[["", [], 0.5], ["tanh", [0], 0.9]], [[0, 0.0, 0.5]]]]  # tanh(0.5) is not 0.9
    assert judged(lying + [["large"], "x", [[["exp", [5], 1.0]], []]], Minigrad) == []


# ---- a test per operation (Exercise 2), break __sub__ yourself (Exercise 3), the blind spots (Exercise 4) ----


def answer_cell(grade_id, lang="en"):
    cells = notebook("source", lang).cells
    return next(c.source for c in cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def expressions_solution():
    namespace = {}
    exec(answer_cell("lab03-expressions-answer"), namespace)  # noqa: S102 (the notebook's own answer)
    return namespace["EXPRESSIONS"]


def visible_failure(grade_id, lang, **names):
    """The visible part of a test cell of the source notebook, run with `names` (and the setup's
    imports): its AssertionError's message, or None when it passes."""
    from course import student
    before = student.current_language()
    cells = notebook("source", lang).cells
    namespace = {}
    exec(cells[1].source, namespace)  # noqa: S102 (the setup cell: it sets the messages' language)
    namespace.update(names)
    source = next(c.source for c in cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
    try:
        exec(source.split("### BEGIN HIDDEN TESTS")[0], namespace)  # noqa: S102 (the notebook's own test cell)
    except AssertionError as error:
        return str(error)
    finally:
        student.language(before)  # the setup cell set the notebook's (tests/conftest.py checks it)
    return None


def without(expressions, *names):
    return [entry for entry in expressions if entry[0] not in names]


def moved(expressions, name, point):
    return [(n, f, point if n == name else p) for n, f, p in expressions]


# name -> EXPRESSIONS made from the solution's, and what the visible test and grading say (EN, ES)
WRONG_EXPRESSIONS = {
    "no log": (lambda e: without(e, "log(a)"), "uses log", "usa log"),
    "no diamond": (lambda e: without(e, "(a*b + c) * (a - c)"), "lacks (a*b + c) * (a - c)",
                   "le falta (a*b + c) * (a - c)"),
    "the chain without relu": (lambda e: [(n, (lambda a, b, c: a * b + c) if n == "relu(a*b + c)" else f, p)
                                          for n, f, p in e], "lacks relu(a*b + c)", "le falta relu(a*b + c)"),
    "relu at its kink": (lambda e: moved(e, "relu(a)", (0.0,)), "relu's kink", "punto anguloso de relu"),
    "log of a negative number": (lambda e: moved(e, "log(a)", (-2.5,)), "log needs a positive",
                                 "log necesita un número positivo"),
    "names only": (lambda e: [(n, n, p) for n, f, p in e], "is not (name, f, point)", "no es (name, f, point)"),
}


def judge_expressions(expressions, lang, seed=1):
    check = CHECKS["lab03-expressions"]
    return check.judge(seed, check.probe.gather(seed, [expressions, gradcheck]), lang)


def test_the_solutions_expressions_pass_both_tests():
    for lang in LANGUAGES:
        assert visible_failure("lab03-expressions", lang, EXPRESSIONS=expressions_solution(), gradcheck=gradcheck) is None
        for seed in (1, 2, 3):
            verdict = judge_expressions(expressions_solution(), lang, seed)
            assert verdict.passed, verdict.summary


@pytest.mark.parametrize("name", WRONG_EXPRESSIONS)
def test_each_wrong_set_of_expressions_loses_the_points_and_is_named(name):
    make, english, spanish = WRONG_EXPRESSIONS[name]
    for lang, says in (("en", english), ("es", spanish)):
        visible = visible_failure("lab03-expressions", lang, EXPRESSIONS=make(expressions_solution()), gradcheck=gradcheck)
        hidden = judge_expressions(make(expressions_solution()), lang)
        assert visible and says in visible, (lang, visible)
        assert not hidden.passed and says in hidden.summary, hidden.summary


def test_the_composites_are_recognised_at_the_points_drawn_not_by_their_names():
    """Grading draws new points, where relu(a*b + c) is negative inside as often as positive: a chain
    named right but computing a*b + c alone, or tanh, is not the chain; a diamond written with other
    names or a different but equal formula is."""
    expressions = [(n, f, p) for n, f, p in expressions_solution()]
    renamed = [("L", f, p) if n == "(a*b + c) * (a - c)" else (n, f, p) for n, f, p in expressions]
    assert judge_expressions(renamed, "en").passed
    expanded = moved(renamed, "L", (2.0, 3.0, 4.0))
    expanded = [("L", lambda a, b, c: a * b * a - a * b * c + c * a - c * c, p) if n == "L" else (n, f, p)
                for n, f, p in expanded]
    assert judge_expressions(expanded, "en").passed
    as_tanh = [(n, (lambda a, b, c: (a * b + c).tanh()) if n == "relu(a*b + c)" else f, p) for n, f, p in expressions]
    assert "relu(a*b + c)" in judge_expressions(as_tanh, "en").summary


def rule_not_broken(a, c, out):
    a.grad += out.grad
    c.grad += -1.0 * out.grad


def rule_left_broken(a, c, out):
    a.grad += -out.grad
    c.grad += -out.grad


def rule_without_out_grad(a, c, out):
    a.grad += out.grad
    c.grad += 1.0


def rule_nothing(a, c, out):
    pass


def rule_asked_for(a, c, out):
    a.grad += out.grad
    c.grad += out.grad


# name -> the rule, what the visible test and grading say (EN, ES)
WRONG_RULES = {
    "not broken (minigrad's own)": (rule_not_broken, "nothing is broken", "no hay nada roto"),
    "the left operand broken": (rule_left_broken, "the bug asked for gives", "el error que se pide da"),
    "`* out.grad` dropped": (rule_without_out_grad, "the bug asked for gives", "el error que se pide da"),
    "no gradient at all": (rule_nothing, "the bug asked for gives", "el error que se pide da"),
}


def judge_break(rule, gradcheck_, lang, seed=1):
    check = CHECKS["lab03-break"]
    return check.judge(seed, check.probe.gather(seed, [rule, gradcheck_]), lang)


def test_the_rule_asked_for_passes_and_broken_sub_always_restores():
    from course.breakit import broken_sub, rule_mistake, sub_gradients
    original = Value.__sub__
    spanish = variant(MESSAGE='f"gradcheck FALLÓ en la entrada de índice {i}:\\n  numérico = {num:.6f}"')
    for lang, gradcheck_ in (("en", gradcheck), ("es", spanish)):
        assert rule_mistake(sub_gradients(rule_asked_for, 2.0, 4.0, 3.0), 3.0, lang) is None
        for seed in (1, 2, 3):
            assert judge_break(rule_asked_for, gradcheck_, lang, seed).passed
    with pytest.raises(RuntimeError), broken_sub(rule_asked_for):
        raise RuntimeError("the block fails")
    assert Value.__sub__ is original
    with pytest.raises(TypeError, match="rule"), broken_sub("c.grad += out.grad"):
        pass
    assert Value.__sub__ is original


@pytest.mark.parametrize("name", WRONG_RULES)
def test_each_wrong_rule_loses_the_point_and_is_named(name):
    from course.breakit import rule_mistake, sub_gradients
    rule, english, spanish = WRONG_RULES[name]
    for lang, says in (("en", english), ("es", spanish)):
        visible = rule_mistake(sub_gradients(rule, 2.0, 4.0, 3.0), 3.0, lang)
        hidden = judge_break(rule, gradcheck, lang)
        assert visible and says in visible, (lang, visible)
        assert not hidden.passed and says in hidden.summary, hidden.summary


def test_the_rule_asked_for_with_a_gradcheck_that_misses_it_loses_the_point():
    for wrong, says in ((always_true, "it returned True; it must raise"), (variant(MESSAGE='"gradcheck FAILED"'), "names input index 1")):
        verdict = judge_break(rule_asked_for, wrong, "en")
        assert not verdict.passed and says in verdict.summary, verdict.summary


ROOT_ONLY_BATTERY = [("a + b", lambda a, b: a + b, (1.3, -0.7)), ("a * b", lambda a, b: a * b, (1.3, -0.7)),
                     ("a - b", lambda a, b: a - b, (1.3, -0.7)), ("a ** 3", lambda a: a ** 3, (1.3,)),
                     ("exp(a)", lambda a: a.exp(), (0.45,)), ("log(a)", lambda a: a.log(), (2.5,)),
                     ("tanh(a)", lambda a: a.tanh(), (0.35,)), ("relu(a)", lambda a: a.relu(), (-0.6,))]
# name -> MORE_EXPRESSIONS, and what the visible test and grading say (EN, ES)
WRONG_BATTERIES = {
    "every operation again, only at the root": (ROOT_ONLY_BATTERY, "lets 11 of the 56 bugs through",
                                                "deja pasar 11 de los 56 errores"),
    "relu only at a positive input": (lambda more: more[:-1], "lets 1 of the 56", "deja pasar 1 de los 56"),
    "nothing more": ([], "lets 12 of the 56", "deja pasar 12 de los 56"),
}


@pytest.mark.parametrize("name", WRONG_BATTERIES)
def test_each_wrong_battery_loses_the_points_and_names_what_it_lets_through(name):
    more, english, spanish = WRONG_BATTERIES[name]
    namespace = {}
    exec(answer_cell("lab03-battery-answer"), namespace)  # noqa: S102 (the notebook's own answer)
    more = more(namespace["MORE_EXPRESSIONS"]) if callable(more) else more
    check = CHECKS["lab03-battery"]
    for lang, says in (("en", english), ("es", spanish)):
        visible = visible_failure("lab03-battery", lang, EXPRESSIONS=expressions_solution(),
                                  MORE_EXPRESSIONS=more, gradcheck=gradcheck)
        hidden = check.judge(1, check.probe.gather(1, [gradcheck, more, expressions_solution()]), lang)
        assert visible and says.replace(" bugs through", "") in visible, (lang, visible)
        assert not hidden.passed, hidden.summary


# ---- the predictions of lab 03 ----


def test_what_each_prediction_explains_after_its_measurement_would_be_caught_before_it():
    """The answer patterns (tests/support/predictions.py) are not vacuous: the prose after each lab 03
    measurement, and the measurement's output, each state the outcome by one of them, in both
    languages; so either, moved before the measurement, fails tests/test_predictions.py."""
    from support.predictions import cell_text, grade_ids, reveal_index, stated
    for lang in LANGUAGES:
        nb = notebook("source", lang)
        ids = [g for g in grade_ids(nb) if g.startswith("lab03-")]
        assert ids == ["lab03-predict-sub", "lab03-predict-blind"]
        for grade_id in ids:
            after = [c for c in nb.cells if c.metadata.get("course", {}).get("after") == grade_id]
            assert after and all(stated(c.source, grade_id) for c in after), (lang, grade_id)
            assert stated(cell_text(nb.cells[reveal_index(nb, grade_id)]), grade_id), (lang, grade_id)


def test_the_eps_plot_waits_for_the_prediction_and_nothing_before_it_gives_the_crossing(tmp_path):
    """EPS_FLOAT32 is graded within its band, and its plot is a measurement like the others: nothing
    before it states where the lines cross (6.6e-3), and, run in a kernel with the prediction left
    None, the plot cell refuses, in the notebook's language, and shows nothing."""
    import copy

    from nbclient import NotebookClient
    from support.predictions import cell_text
    crossing = re.compile(r"\b(6[.,]\de-0?3|7e-0?3|0[.,]00[67])")
    for lang, refusal in (("en", "only after your prediction"), ("es", "solo muestra la medida después")):
        nb = notebook("source", lang)
        ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells]
        plot = next(i for i, c in enumerate(nb.cells) if c.source.startswith("predictions.reveal(EPS_FLOAT32, 1)\n"))
        before = [i for i, c in enumerate(nb.cells[:plot]) if crossing.search(cell_text(c))]
        assert not before and crossing.search(cell_text(nb.cells[plot])), before
        run = copy.deepcopy(nb)
        answer = run.cells[ids.index("lab03-eps-float32-answer")]
        answer.source = "EPS_FLOAT32 = None"
        run.cells = [run.cells[1], answer, run.cells[plot]]
        NotebookClient(run, timeout=120, kernel_name="python3", allow_errors=True,
                       resources={"metadata": {"path": str(tmp_path)}}).execute()
        outputs = run.cells[2].outputs
        assert [o.output_type for o in outputs] == ["error"] and outputs[0].ename == "NotYet", outputs
        assert refusal in outputs[0].evalue


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


def test_the_one_hand_graded_answer_has_its_rubric_in_both_languages():
    """Exercise 6b is lab 03's only hand-graded answer: its rubric (grader/rubrics/lab03.py) gives
    the cell's points, what earns each score and canned comments, in English and Spanish, with the
    numbers the notebook prints (Spanish with a decimal comma)."""
    from grader.rubrics import find_rubric
    cells = notebook("source", "en").cells
    hand = {c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"]["points"] for c in cells
            if c.cell_type == "markdown" and c.metadata.get("nbgrader", {}).get("grade")}
    assert hand == {"lab03-eps": 2}
    rubric = find_rubric("lab03-eps")
    assert rubric.points == 2
    for lang, criterion in (("en", "8.9e-4"), ("es", "8,9e-4")):
        assert "2:" in rubric.text(lang) and "0:" in rubric.text(lang) and criterion in rubric.text(lang)
        assert len(rubric.comments(lang)) >= 5
    printed = "".join(o.get("text", "") for c in cells if c.cell_type == "code" for o in c.outputs)
    assert "atol + rtol|num| = 8.9e-04, 94 times the error" in printed and "8.9e-04, 26 times" in printed


# (what the English prose says, what the output beside it prints): every number a sentence of lab 03
# states about an output is that output's
SAID_AND_PRINTED = [
    ("`a - c` fails at input index 1", "gradcheck(a - c) raised:\ngradcheck FAILED at input index 1"),
    ("numerical −12 and analytic 8", "numerical = -12.000000\n  analytic  = 8.000000"),
    ("where it is 0, as for `*`'s right operand",
     "__mul__: other.grad = self.data * out.grad   (its operand used again in 0 of them)"),
    ("in the diamond, `a - c` writes `a.grad`", "__sub__: self.grad = out.grad   (its operand used again in 1 of them)"),
    ("cross near 8e-6", "the lines cross at eps = 8.2e-06"),
    ("at 0.44 of it in the median and 1.27 at most", "0.44 times u|f|/eps (median), 1.27 at most"),
    ("atol + rtol·|num| = 8.9e-4 here", "atol + rtol|num| = 8.9e-04"),
    ("by 94 and 26 times", "eps = 1e-02: error 9.4e-06"),
    ("by 94 and 26 times", "8.9e-04, 94 times the error"),
    ("by 94 and 26 times", "8.9e-04, 26 times the error"),
    ("flat at 0.79", "the estimate is 0 and its error the whole derivative, 0.79"),
    ("the gradient, 3.7e-13, is below", "numerical 0.000e+00   backward 3.744e-13   relative error 1.0e+00"),
    ("the central difference gives 1/2", "at a = 0: central difference 0.5, backward 0"),
    ("3.3e-16 at most as printed", "largest error 3.3e-16"),
    ("some 20,000 times below", "central difference, smallest error: 6.6e-12"),
    ("The defaults hold up to $M = 10^8$ and fail at $10^{10}$", " 1e+08     2.3e-04    1.1e-03       True"),
    ("The defaults hold up to $M = 10^8$ and fail at $10^{10}$", " 1e+10     2.8e-02    1.1e-01      False"),
]


@pytest.mark.parametrize("said, printed", SAID_AND_PRINTED)
def test_every_sentence_about_a_number_is_true_of_the_output_beside_it(said, printed):
    cells = notebook("source", "en").cells
    prose = " ".join(" ".join(c.source.split()) for c in cells if c.cell_type == "markdown")
    output = "".join(o.get("text", "") for c in cells if c.cell_type == "code" for o in c.outputs)
    assert " ".join(said.split()) in prose, said
    assert printed in output, printed
