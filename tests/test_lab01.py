"""Lab 01's hidden checks, judged in-process on evidence made by its probes, and the
declared evidence size that lets its 20-run gradients through the per-cell output cap."""
import json

import nbformat
import pytest
import torch
import torch.nn.functional as F
from nbclient import NotebookClient

from course.probes import find_probe
from course.student import EVIDENCE_MIME
from grader.checks import find_check
from grader.plugins.execute import GradingExecute

SEED = 11


def formulas(x, W, b, target):
    dy = F.linear(x, W, b) - target
    return dy @ W, dy.T @ x, dy.sum(dim=0)


def formulas_with_matmul(x, W, b, target):  # the forward written out: rounds differently at fp16
    dy = x @ W.T + b - target
    return dy @ W, dy.T @ x, dy.sum(dim=0)


def autograd_shortcut(x, W, b, target):
    loss = 0.5 * ((F.linear(x, W, b) - target) ** 2).sum()
    loss.backward()
    return x.grad, W.grad, b.grad


def in_float32(x, W, b, target):
    return [g.float() for g in formulas(*(v.float() for v in (x, W, b, target)))]


def doubled(x, W, b, target):  # the missing ½
    return [2 * g for g in formulas(x, W, b, target)]


def transposed(x, W, b, target):  # x.T @ dy, compared with W.grad's layout
    dx, dW, db = formulas(x, W, b, target)
    return dx, dW.T.contiguous(), db


def judge(grade_id, function, lang="en", stated=None):
    check = find_check(grade_id)
    results = json.loads(json.dumps(find_probe(grade_id).gather(SEED, (function,))))
    return check.judge(SEED, results, lang, check.stated if stated is None else stated)


@pytest.mark.parametrize("function", [formulas, formulas_with_matmul])
@pytest.mark.parametrize("grade_id", ["lab01-formulas", "lab01-fp32", "lab01-fp16"])
def test_the_formulas_pass(grade_id, function):
    verdict = judge(grade_id, function)
    assert verdict.passed, verdict.summary


@pytest.mark.parametrize("grade_id", ["lab01-formulas", "lab01-fp32", "lab01-fp16"])
@pytest.mark.parametrize("lang, words", [("en", "without autograd"), ("es", "sin autograd")])
def test_autograd_instead_of_formulas_fails_saying_so(grade_id, lang, words):
    verdict = judge(grade_id, autograd_shortcut, lang)
    assert not verdict.passed and words in verdict.summary, verdict.summary


@pytest.mark.parametrize("function", [doubled, transposed])
def test_wrong_formulas_fail(function):
    for grade_id in ("lab01-formulas", "lab01-fp32", "lab01-fp16"):
        assert not judge(grade_id, function).passed, grade_id


def test_gradients_must_come_back_in_the_inputs_dtype():
    verdict = judge("lab01-formulas", in_float32)
    assert not verdict.passed and "expected float" in verdict.summary, verdict.summary
    assert not judge("lab01-fp16", in_float32).passed


def test_fp16_storage_alone_exceeds_the_fp16_threshold():
    """Formulas in float64, only the results rounded to fp16: still above 1e-3 in rms units,
    because storing an entry in fp16 costs up to 2**-11 of its own size and the largest
    entries are several rms. The fp16 check measures fp16 gradients, not fp16 arithmetic."""
    def rounded(x, W, b, target):
        return [g.to(x.dtype) for g in formulas(*(v.double() for v in (x, W, b, target)))]
    assert judge("lab01-fp16", rounded).passed


def test_a_threshold_other_than_the_cells_fails_closed():
    assert not judge("lab01-fp32", formulas, stated={"threshold": 1.0}).passed
    assert not judge("lab01-fp16", formulas, stated={}).passed


def walk(loss):
    names, seen = [], set()

    def visit(node):
        if node is not None and node not in seen:
            seen.add(node)
            names.append(type(node).__name__)
            for child, _ in node.next_functions:
                visit(child)
    visit(loss.grad_fn)
    return names


def first_inputs_only(loss):  # the seed's loop
    names, node = [], loss.grad_fn
    while node is not None:
        names.append(type(node).__name__)
        nexts = [n for n, _ in node.next_functions if n is not None]
        node = nexts[0] if nexts else None
    return names


def test_walk():
    assert judge("lab01-walk", walk).passed
    assert not judge("lab01-walk", first_inputs_only).passed
    literal = lambda loss: ["MulBackward0", "SumBackward0", "PowBackward0", "SubBackward0",
                            "AddmmBackward0", "AccumulateGrad", "AccumulateGrad", "TBackward0",
                            "AccumulateGrad"]
    verdict = judge("lab01-walk", literal)
    assert not verdict.passed and "expected" in verdict.summary


# ---- the evidence of a 20-run experiment and the per-cell output cap ----

def executor(cap=1_000_000):
    ex = GradingExecute(max_output_bytes=cap)
    NotebookClient.__init__(ex, nbformat.v4.new_notebook(), None)
    ex.reset_execution_trackers()
    ex.clear_before_next_output = False
    ex._cell_bytes, ex._notebook_bytes, ex._cut, ex._evidence_let_through = {}, 0, set(), set()
    ex._seed, ex._lang = SEED, "en"
    return ex


def graded_cell(grade_id):
    cell = nbformat.v4.new_code_cell(f'student.probe("{grade_id}", linear_grads, threshold=1e-5)')
    cell.metadata["nbgrader"] = {"grade": True, "solution": False, "grade_id": grade_id, "points": 2}
    return cell


def message(data):
    return {"msg_type": "display_data", "header": {"msg_type": "display_data"},
            "parent_header": {}, "content": {"data": data, "metadata": {}}}


def evidence_message(grade_id, function=formulas):
    results = find_probe(grade_id).gather(SEED, (function,))
    return message({EVIDENCE_MIME: json.dumps({"grade_id": grade_id, "seed": SEED, "results": results}),
                    "text/plain": "summary"})


@pytest.mark.parametrize("grade_id", ["lab01-fp32", "lab01-fp16"])
def test_honest_evidence_is_over_the_cap_and_within_its_declared_size(grade_id):
    size = len(json.dumps(evidence_message(grade_id)["content"]))
    assert 1_000_000 < size <= find_check(grade_id).evidence_bytes(SEED) < size * 1.05


def test_the_real_evidence_gets_through_and_a_flood_is_still_cut():
    ex, cell = executor(), graded_cell("lab01-fp32")
    flood = {"msg_type": "stream", "header": {"msg_type": "stream"}, "parent_header": {},
             "content": {"name": "stdout", "text": "x" * 400_000}}
    for _ in range(2):
        ex.process_message(flood, cell, 0)
    ex.process_message(evidence_message("lab01-fp32"), cell, 0)
    for _ in range(2):
        ex.process_message(flood, cell, 0)
    ex.process_message(evidence_message("lab01-fp32"), cell, 0)  # a second report: counted, cut
    evidence = [o for o in cell.outputs if EVIDENCE_MIME in o.get("data", {})]
    assert len(evidence) == 1
    assert "output cut off" in "".join(o.get("text", "") for o in cell.outputs)
    printed = sum(len(o.get("text", "")) for o in cell.outputs if o.output_type == "stream")
    assert printed < 1_000_000


def test_evidence_over_its_declared_size_is_cut():
    ex, cell = executor(), graded_cell("lab01-fp32")
    padded = evidence_message("lab01-fp32")
    padded["content"]["data"]["text/plain"] = "x" * find_check("lab01-fp32").evidence_bytes(SEED)
    ex.process_message(padded, cell, 0)
    assert not [o for o in cell.outputs if EVIDENCE_MIME in o.get("data", {})]


def test_cells_without_a_declared_size_keep_the_cap():
    ex, cell = executor(), graded_cell("lab01-formulas")
    big = message({EVIDENCE_MIME: "x" * 1_200_000, "text/plain": "summary"})
    ex.process_message(big, cell, 0)
    assert not [o for o in cell.outputs if EVIDENCE_MIME in o.get("data", {})]


# ---- bonus exercises ----

def two_layer(x, W1, b1, W2, b2, target):
    h = F.linear(x, W1, b1)
    d2 = F.linear(h, W2, b2) - target
    d1 = d2 @ W2
    return d1 @ W1, d1.T @ x, d1.sum(0), d2.T @ h, d2.sum(0)


class ByHand(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, W, b):
        ctx.save_for_backward(x, W)
        return F.linear(x, W, b)

    @staticmethod
    def backward(ctx, g):
        x, W = ctx.saved_tensors
        return g @ W, g.T @ x, g.sum(0)


class ForgotTheBias(ByHand):
    @staticmethod
    def backward(ctx, g):
        x, W = ctx.saved_tensors
        return g @ W, g.T @ x, 0 * g.sum(0)


def test_bonus_checks_pass_right_answers_and_fail_wrong_ones():
    assert judge("lab01-bonus-twolayer", two_layer).passed
    assert not judge("lab01-bonus-twolayer", lambda *a: two_layer(*a)[::-1]).passed
    right = lambda y, t: torch.softmax(y, 1) - F.one_hot(t, y.shape[1]).double()
    assert judge("lab01-bonus-softmax", right).passed
    assert not judge("lab01-bonus-softmax", lambda y, t: torch.softmax(y, 1)).passed
    assert judge("lab01-bonus-function", ByHand).passed
    assert not judge("lab01-bonus-function", ForgotTheBias).passed


def test_bonus_cells_are_extra_credit():
    for grade_id in ("lab01-bonus-twolayer", "lab01-bonus-softmax", "lab01-bonus-function"):
        assert find_check(grade_id).bonus == 1 and find_check(grade_id).stated == {"bonus": 1}
    assert find_check("lab01-fp32").bonus == 0


# ---- autograd in any form, decided from a trace of the call; the predicted mistakes named ----

def enable_grad_shortcut(x, W, b, target):  # switches autograd back on inside no_grad
    with torch.enable_grad():
        x, W, b = (v.clone().requires_grad_(True) for v in (x, W, b))
        loss = 0.5 * ((F.linear(x, W, b) - target) ** 2).sum()
        return torch.autograd.grad(loss, (x, W, b))


def func_grad_shortcut(x, W, b, target):
    loss = lambda x, W, b: 0.5 * ((F.linear(x, W, b) - target) ** 2).sum()
    return torch.func.grad(loss, argnums=(0, 1, 2))(x, W, b)


@pytest.mark.parametrize("function", [enable_grad_shortcut, func_grad_shortcut])
@pytest.mark.parametrize("grade_id", ["lab01-formulas", "lab01-fp32", "lab01-fp16"])
def test_autograd_that_returns_right_answers_still_fails(grade_id, function):
    verdict = judge(grade_id, function)
    assert not verdict.passed and "used autograd" in verdict.summary, verdict.summary


def test_the_trace_does_not_flag_honest_work():
    from course.lab01 import watched_call
    x, W, b, t = torch.randn(2, 3), torch.randn(4, 3), torch.randn(4), torch.randn(2, 4)
    assert watched_call(formulas, x, W, b, t)[1:] == ([], None)
    assert watched_call(enable_grad_shortcut, x, W, b, t)[1] == ["enable_grad()", "requires_grad_()",
                                                                 "torch.autograd.grad"]


def negated(x, W, b, target):
    return [-g for g in formulas(x, W, b, target)]


def two_of_three(x, W, b, target):
    return formulas(x, W, b, target)[:2]


@pytest.mark.parametrize("function, en, es", [
    (doubled, "the ½ is missing", "falta el ½"),
    (transposed, "dW is transposed", "dW está traspuesto"),
    (negated, "wrong sign", "signo cambiado"),
    (two_of_three, "returned 2 results; expected 3", "devolvió 2 resultados; se esperaban 3"),
    (in_float32, "came back as float32", "volvió en float32"),
])
def test_predicted_mistakes_are_named_in_both_languages(function, en, es):
    for grade_id in ("lab01-formulas", "lab01-fp16"):
        for lang, words in (("en", en), ("es", es)):
            verdict = judge(grade_id, function, lang)
            assert not verdict.passed and words in verdict.summary, (grade_id, verdict.summary)


def test_spanish_run_prefix():
    assert judge("lab01-fp16", doubled, "es").summary.count("ejecución 0:") == 1


def breadth_first_walk(loss):
    from grader.checks.lab01 import breadth_first
    return breadth_first(loss.grad_fn)


def walk_without_seen(loss):
    from grader.checks.lab01 import without_seen
    return without_seen(loss.grad_fn)


@pytest.mark.parametrize("function, words", [(breadth_first_walk, "breadth-first"),
                                             (walk_without_seen, "listed twice")])
def test_wrong_walks_fail_and_are_named(function, words):
    verdict = judge("lab01-walk", function)
    assert not verdict.passed and words in verdict.summary, verdict.summary


# ---- the visible tests (course/lab01.py) ----

def visible(function, lang):
    from course import lab01, student
    student.language(lang)
    torch.manual_seed(0)
    x, W, b = (torch.randn(*s, requires_grad=True) for s in ((2, 5), (7, 5), (7,)))
    target = torch.randn(2, 7)
    (0.5 * ((F.linear(x, W, b) - target) ** 2).sum()).backward()
    try:
        lab01.expect_gradients(function, (x, W, b, target), (x.grad, W.grad, b.grad))
    except AssertionError as failure:
        return str(failure)
    finally:
        student.language("en")
    return None


def blank(x, W, b, target):
    raise NotImplementedError("write your code here")


def returns_x_grad(x, W, b, target):
    return x.grad, W.grad, b.grad


@pytest.mark.parametrize("function, en, es", [
    (blank, "Exercise 1 (linear_grads) is not done yet", "Ejercicio 1 (linear_grads) aún no está hecho"),
    (returns_x_grad, "used autograd (.grad)", "usó autograd (.grad)"),
    (autograd_shortcut, "used autograd (backward())", "usó autograd (backward())"),
    (enable_grad_shortcut, "without autograd", "sin autograd"),
    (two_of_three, "returned 2 results", "devolvió 2 resultados"),
    (doubled, "the ½ is missing", "falta el ½"),
    (transposed, "dW is transposed", "dW está traspuesto"),
    (lambda *a: [g.double() for g in formulas(*a)], "came back as float64, expected float32", "volvió en float64, se esperaba float32"),
])
def test_visible_test_names_the_mistake_in_the_notebooks_language(function, en, es):
    for lang, words in (("en", en), ("es", es)):
        message = visible(function, lang)
        assert message is not None and words in message, message
    assert visible(formulas, "en") is None


def test_blank_bonus_passes_with_a_note(capsys):
    from course import lab01
    assert lab01.bonus_attempted(blank, (None, None, None, None), 1) is False
    assert lab01.bonus_attempted(None, (), 3) is False
    assert "bonus 1 not attempted" in capsys.readouterr().out


def test_evidence_summary_has_singular_and_plural():
    from course.i18n import say
    assert say("evidence", "es", grade_id="g", n=1) == "g: 1 caso oculto ejecutado; lo juzga el corrector"
    assert say("evidence", "es", grade_id="g", n=8) == "g: 8 casos ocultos ejecutados; los juzga el corrector"


# ---- Validate on a student's copy: half-done work, then fixed; the report files follow ----

@pytest.mark.slow  # nbgrader validate executes lab 01, twice
def test_validate_names_the_exercise_and_the_report_describes_the_last_run(tmp_path):
    """Stock `nbgrader validate` re-runs the notebook where it lies, as a student's Validate
    does: a half-done notebook is told which exercise is not done (no NameError), blank
    bonuses pass, and REPORT.md / errors.csv / manifest.json describe the last run."""
    import shutil

    import nbformat
    from support.course import fill

    from authoring.build import ROOT, nbgrader

    shutil.copy(ROOT / "release" / "lab01-en" / "lab01.ipynb", tmp_path / "lab01.ipynb")
    path = tmp_path / "lab01.ipynb"
    doubled_code = ("def linear_grads(x, W, b, target):\n    d = F.linear(x, W, b) - target\n"
                    "    return 2 * d @ W, 2 * d.T @ x, 2 * d.sum(0)\n")
    right_code = doubled_code.replace("2 * ", "")
    predicted = {f"lab01-predict-{part}-answer": f'{name} = "b"' for part, name in
                 (("fp32", "PREDICT_FP32"), ("node", "PREDICT_FIRST_NODE"), ("fp16", "PREDICT_FP16"),
                  ("update", "PREDICT_UPDATE"))}
    runs = {}
    for name, code in (("doubled", doubled_code), ("right", right_code)):
        answers = {"lab01-formulas-answer": code, **predicted}
        if name == "right":
            answers["lab01-reflection"] = "My own reading: the fp32 difference was 0.0 here."
        nbformat.write(fill(nbformat.read(path, 4), answers), path)
        result = nbgrader("validate", str(path), check=False, capture_output=True, text=True)
        runs[name] = (result.stdout, (tmp_path / "REPORT.md").read_text(),
                      json.loads((tmp_path / "manifest.json").read_text()), (tmp_path / "errors.csv").exists())
    out, report, manifest, csv_written = runs["doubled"]
    assert "Exercise 1 (linear_grads): dx: the ½ is missing" in out and "NameError" not in out, out
    assert "fix Exercise 1 (linear_grads) first: dx: the ½" in out, out  # Parts B and D
    assert "Exercise 2 (grad_fn_walk) is not done yet" in out, out
    assert report.splitlines()[2].startswith("NOT VALID") and not manifest["checks_passed"] and not csv_written
    assert "Exercise 4's answer is not written yet" in report
    out, report, manifest, csv_written = runs["right"]
    assert "the ½ is missing" not in out and "Exercise 2 (grad_fn_walk) is not done yet" in out, out
    assert "NOT VALID" not in report and manifest["checks_passed"] and csv_written, report
    assert "My own reading: the fp32 difference was 0.0 here." in report and manifest["answer_included"]
    assert manifest["predictions"] == {"B": "b", "C": "b", "D": "b", "E": "b"}
    assert "NotImplementedError" not in out, out  # blank bonuses pass quietly


# ---- Exercise 1a: the sums over paths, and each plausible wrong sum named ----

def by_paths(delta, x, W):
    n, d_out = delta.shape
    d_in = W.shape[1]
    dx, dW, db = torch.zeros(n, d_in, dtype=delta.dtype), torch.zeros_like(W), torch.zeros(d_out, dtype=delta.dtype)
    for i in range(n):
        for j in range(d_out):
            db[j] += delta[i, j]
            for k in range(d_in):
                dx[i, k] += delta[i, j] * W[j, k]
                dW[j, k] += delta[i, j] * x[i, k]
    return dx, dW, db


def paths(delta, x, W, dx_index="jk", over_outputs="+=", over_batch="+=", db_sum=True, dW_swapped=False,
          dx_with_x=False):
    """A sum over paths in loops, one += per path, with one of Exercise 1a's plausible slips."""
    n, d_out = delta.shape
    d_in = W.shape[1]
    dx, db = torch.zeros(n, d_in, dtype=delta.dtype), torch.zeros(d_out, dtype=delta.dtype)
    dW = torch.zeros(d_in, d_out, dtype=delta.dtype) if dW_swapped else torch.zeros_like(W)
    for i in range(n):
        for j in range(d_out):
            db[j] = db[j] + delta[i, j] if over_batch == "+=" else delta[i, j]
            for k in range(d_in):
                weight = x[i, k] if dx_with_x else W[j, k] if dx_index == "jk" else W[k, j]
                dx[i, k] = dx[i, k] + delta[i, j] * weight if over_outputs == "+=" else delta[i, j] * weight
                step = delta[i, j] * x[i, k]
                if dW_swapped:
                    dW[k, j] += step
                else:
                    dW[j, k] = dW[j, k] + step if over_batch == "+=" else step
    if not db_sum:
        return dx, dW, delta.clone()
    return dx, dW, db


def paths_dx_transposed(delta, x, W):  # W[k, j] where W[j, k] belongs: runs only where W is square
    return paths(delta, x, W, dx_index="kj")


def paths_assigned_dx(delta, x, W):  # `=` over the outputs: the last path only
    return paths(delta, x, W, over_outputs="=")


def paths_one_example(delta, x, W):  # `=` over the batch: dW and db of the last example
    return paths(delta, x, W, over_batch="=")


def paths_first_example_db(delta, x, W):
    dx, dW, _ = paths(delta, x, W)
    db = torch.zeros(delta.shape[1], dtype=delta.dtype)
    for j in range(delta.shape[1]):
        db[j] += delta[0, j]
    return dx, dW, db


def paths_db_not_summed(delta, x, W):
    return paths(delta, x, W, db_sum=False)


def paths_dW_shape_swapped(delta, x, W):
    return paths(delta, x, W, dW_swapped=True)


def paths_dW_square_swapped(delta, x, W):  # dW[k, j] where it has dW's shape (a square W)
    dx, dW, db = paths(delta, x, W, dW_swapped=W.shape[0] == W.shape[1])
    return dx, dW, db


def paths_dx_with_x(delta, x, W):  # the wrong variable: x where W belongs
    return paths(delta, x, W, dx_with_x=True)


def paths_autograd(delta, x, W):  # autograd inside: the vector-Jacobian product of y = x Wᵀ
    with torch.enable_grad():
        Wl, xl = W.clone().requires_grad_(True), x.clone().requires_grad_(True)
        dx, dW = torch.autograd.grad((xl @ Wl.T * delta).sum(), (xl, Wl))
    return dx, dW, paths(delta, x, W)[2]


def paths_matrix_products(delta, x, W):  # Exercise 1's answer, not a sum over paths
    return delta @ W, delta.T @ x, delta.sum(0)


def paths_einsum(delta, x, W):
    return torch.einsum("ij,jk->ik", delta, W), torch.einsum("ij,ik->jk", delta, x), torch.einsum("ij->j", delta)


def paths_broadcast(delta, x, W):  # every path's term at once, then summed
    return ((delta[:, :, None] * W[None]).sum(1), (delta[:, :, None] * x[:, None, :]).sum(0),
            paths(delta, x, W)[2])


def paths_db_vectorized(delta, x, W):  # loops for dx and dW, but db added over the batch at once
    dx, dW, _ = paths(delta, x, W)
    return dx, dW, delta.sum(dim=0)


PATHS_MISTAKES = [
    (paths_dx_transposed, "dx multiplies by Wᵀ", "dx multiplica por Wᵀ"),
    (paths_assigned_dx, "dx counts one output only", "dx cuenta una sola salida"),
    (paths_one_example, "dW counts one example of the batch only", "dW cuenta solo un ejemplo del lote"),
    (paths_first_example_db, "db counts one example of the batch only", "db cuenta solo un ejemplo del lote"),
    (paths_db_not_summed, "so db sums over the batch", "así que db suma sobre el lote"),
    (paths_dW_shape_swapped, "dW is transposed", "dW está traspuesto"),
    (paths_dW_square_swapped, "dW is transposed", "dW está traspuesto"),
    (paths_dx_with_x, "dx is off by", "dx se desvía en"),
    (paths_autograd, "without autograd", "sin autograd"),
    (paths_matrix_products, "adds many paths at once (@", "suma muchos caminos a la vez (@"),
    (paths_einsum, "adds many paths at once (@", "suma muchos caminos a la vez (@"),
    (paths_broadcast, "adds many paths at once (broadcast *", "suma muchos caminos a la vez (broadcast *"),
    (paths_db_vectorized, "adds many paths at once (sum(dim))", "suma muchos caminos a la vez (sum(dim))"),
]


def test_paths_pass_by_loops_one_path_or_one_row_at_a_time():
    assert judge("lab01-paths", by_paths).passed
    assert judge("lab01-paths", paths).passed

    def by_rows(delta, x, W):  # one += per (i, j): the paths through y[i, j], for every k at once
        dx, dW, db = torch.zeros_like(x), torch.zeros_like(W), torch.zeros(delta.shape[1], dtype=delta.dtype)
        for i in range(delta.shape[0]):
            for j in range(delta.shape[1]):
                dx[i] += delta[i, j] * W[j]
                dW[j] += delta[i, j] * x[i]
                db[j] += delta[i, j]
        return dx, dW, db
    assert judge("lab01-paths", by_rows).passed


@pytest.mark.parametrize("function, en, es", PATHS_MISTAKES)
def test_wrong_sums_over_paths_fail_naming_the_mistake(function, en, es):
    for lang, words in (("en", en), ("es", es)):
        verdict = judge("lab01-paths", function, lang)
        assert not verdict.passed and words in verdict.summary, verdict.summary


def visible_paths(function, lang):
    """The notebook's visible test of Exercise 1a, on its two examples."""
    from course import lab01, student
    student.language(lang)
    torch.manual_seed(1)
    examples = []
    for n, d_in, d_out in ((3, 3, 3), (2, 3, 4)):
        xs, Ws, bs = (torch.randn(*s, dtype=torch.float64, requires_grad=True) for s in ((n, d_in), (d_out, d_in), (d_out,)))
        ts = torch.randn(n, d_out, dtype=torch.float64)
        ys = F.linear(xs, Ws, bs)
        (0.5 * ((ys - ts) ** 2).sum()).backward()
        examples.append(((ys - ts).detach(), xs.detach(), Ws.detach(), (xs.grad, Ws.grad, bs.grad)))
    try:
        lab01.expect_paths(function, examples)
    except AssertionError as failure:
        return str(failure)
    finally:
        student.language("en")
    return None


@pytest.mark.parametrize("function, en, es", PATHS_MISTAKES)
def test_visible_paths_test_names_the_mistake(function, en, es):
    for lang, words in (("en", en), ("es", es)):
        message = visible_paths(function, lang)
        assert message is not None and words in message, message
    assert visible_paths(by_paths, "es") is None


@pytest.mark.parametrize("lang", ["en", "es"])
def test_no_formula_is_printed_before_the_exercise_that_derives_it(lang):
    """Exercise 1a asks for the sums over paths, Exercise 1 for the matrix products: no cell before
    each one (prose, code or output) writes it out."""
    import re

    import nbformat

    from authoring.build import ROOT
    nb = nbformat.read(ROOT / "source" / f"lab01-{lang}" / "lab01.ipynb", 4)
    ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells]
    sums = r"\\sum_j \\delta_\{?ij\}? ?W_\{?jk|\\sum_i \\delta_\{?ij\}?\\?,? ?x_\{?ik"
    products = r"delta @ W(?!\.T)\b|delta\.T @ x|\\delta\s*\\?,?\s*W\b|\\delta\^\\top\s*x|dy @ W|dy\.T @ x"
    for answer, pattern in (("lab01-paths-answer", sums), ("lab01-formulas-answer", sums + "|" + products)):
        before = nb.cells[:ids.index(answer)]
        found = [i for i, c in enumerate(before) if re.search(pattern, c.source + str(c.get("outputs", "")))]
        assert not found, (answer, [before[i].source[:80] for i in found])
    after = "\n".join(c.source for c in nb.cells[ids.index("lab01-formulas"):])
    assert re.search(products, after)  # the pattern does find the formulas where they are given
