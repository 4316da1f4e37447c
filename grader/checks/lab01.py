"""Hidden checks of lab 01 (autograd by hand for linear(64, 600)): the answer key.

Error of a gradient G against its reference R, as the notebook defines it:
    error = max|G - R| / rms(R),  rms(R) = sqrt(mean(R**2)),
the worst entry's deviation in units of a typical entry's size. References are
computed here, in the grader's process, from the same inputs the probe made:
float64 formulas from those inputs for the formula check and the fp16 experiment,
PyTorch autograd at fp32 for the fp32 experiment (the original notes' comparison).
Mistakes the lab predicts are named with course.lab01's words, as the visible tests do;
a call that used autograd in any form (the probe's AutogradWatch evidence) fails,
whatever it returned.
"""
import numpy as np
import torch

from course.i18n import say
from course.lab01 import (
    count_problem,
    gradient_problem,
    paths_problem,
    pitfall_problem,
    raised_problem,
    used_problem,
    walk_message,
)
from course.probes.lab01 import (
    PROBES,
    RUNS,
    SHAPE,
    build_graph,
    experiment_inputs,
    function_inputs,
    make_inputs,
    paths_inputs,
    softmax_inputs,
    two_layer_inputs,
)
from grader.checks import Check, Verdict, decode, prediction_check

NAMES = ("dx", "dW", "db")
# Tolerances of the formula check, per input dtype. fp16's unit roundoff is 2**-11 ≈ 4.9e-4
# and the worst of a few thousand entries is a few rms in size: measured on 50 seeds, honest
# fp16 gradients of linear(64, 600) are off by at most 1.1e-2 (a forward written x @ W.T + b),
# so 5e-2 leaves 4.5x while a wrong formula (the missing ½: about 3; a wrong sign: about 7) fails.
FORMULA_TOL = {"float64": 1e-10, "float32": 1e-4, "float16": 5e-2}
FP16_SANE = 5e-2  # above this, fp16 "gradients" are not the formulas


def error(got, reference):
    """max|G - R| / rms(R), in float64."""
    got, reference = np.asarray(got, dtype=np.float64), np.asarray(reference, dtype=np.float64)
    scale = np.sqrt(np.mean(reference ** 2))
    return float(np.max(np.abs(got - reference)) / scale) if scale > 0 else float(np.max(np.abs(got)))


def formulas64(x, W, b, target):
    """The answer key: Part A's formulas in float64 from the given inputs."""
    x, W, b, target = (t.double() for t in (x, W, b, target))
    dy = x @ W.T + b - target
    return dy @ W, dy.T @ x, dy.sum(dim=0)


def autograd32(x, W, b, target):
    """PyTorch's own gradients at fp32 (what the original notes compare with)."""
    x, W, b = (t.float().clone().requires_grad_(True) for t in (x, W, b))
    y = torch.nn.functional.linear(x, W, b)
    loss = 0.5 * ((y - target.float()) ** 2).sum()
    loss.backward()
    return x.grad, W.grad, b.grad


def shape_problem(got, reference, dtype, lang):
    """None when `got` is three arrays of the reference's shapes in `dtype`, else the reason."""
    problem = count_problem(got, NAMES, lang)
    if problem:
        return problem
    if not all(isinstance(g, np.ndarray) for g in got):
        return say("lab01_arrays", lang, n=3, names=", ".join(NAMES))
    return gradient_problem(got, [np.asarray(r) for r in reference], float("inf"), lang, dtype=dtype)


class FormulaCheck(Check):
    """A Check that fails every case whose call used autograd (the probe's "used"
    evidence: backward, torch.autograd.grad, .grad, enable_grad...), whatever it gave."""

    def _judge(self, seed, results, lang, stated):
        for case, result in zip(self.probe.draw(seed), results if isinstance(results, list) else []):
            used = result.get("used") if isinstance(result, dict) else None
            if used:
                used = [str(name)[:40] for name in used[:10]] if isinstance(used, list) else ["?"]
                return Verdict(False, f"{self.describe(case)}: " + used_problem(used, lang))
        for case, result in zip(self.probe.draw(seed), results if isinstance(results, list) else []):
            if isinstance(result, dict) and "error" in result:  # worded as the visible test words it
                return Verdict(False, f"{self.describe(case)}: " + raised_problem(str(result["error"])[:300], lang))
        return super()._judge(seed, results, lang, stated)


def paths_reference(case):
    """Exercise 1a's answer key: the sums over paths, as matrix products, in float64."""
    delta, x, W = paths_inputs(*case)
    return delta @ W, delta.T @ x, delta.sum(dim=0)


def compare_paths(got, want, case, lang, stated):
    return paths_problem(got, [r.numpy() for r in want], *(v.numpy() for v in paths_inputs(*case)), lang)


class PathsCheck(FormulaCheck):
    """Exercise 1a: a wrong index that raises on shapes that are not square (a Wᵀ) is
    named from the square case where it runs, before the raised error is reported."""

    def _judge(self, seed, results, lang, stated):
        if stated == self.stated and isinstance(results, list) and not any(
                isinstance(r, dict) and r.get("used") for r in results):
            for case, result in zip(self.probe.draw(seed), results):
                if isinstance(result, dict) and "value" in result:
                    problem = self.compare(decode(result["value"]), self.reference(case), case, lang, stated)
                    if problem:
                        return Verdict(False, f"{self.describe(case)}: {problem}")
        return super()._judge(seed, results, lang, stated)


def formula_reference(case):
    seed, n, d_in, d_out, dtype = case
    return formulas64(*make_inputs(torch.Generator().manual_seed(seed), n, d_in, d_out, dtype))


def compare_formulas(got, want, case, lang, stated):
    dtype = case[4]
    problem = shape_problem(got, want, dtype, lang)
    if problem:
        return problem
    return gradient_problem(got, [r.numpy() for r in want], FORMULA_TOL[dtype], lang)


def experiment_reference(case, reference):
    return [reference(*inputs) for inputs in experiment_inputs(*case)]


def compare_fp32(got, want, case, lang, stated):
    if not isinstance(got, list) or len(got) != len(want):
        return say("lab01_runs", lang, n=len(want))
    threshold = stated["threshold"]
    for run, (g, r) in enumerate(zip(got, want)):
        problem = shape_problem(g, r, "float32", lang)
        if problem:
            return say("lab01_run", lang, run=run, problem=problem)
        for name, gi, ri in zip(NAMES, g, r):
            e = error(gi, ri.numpy())
            if not e < threshold:
                return say("lab01_fp32_over", lang, run=run, name=name, error=e, threshold=threshold)
    return None


def compare_fp16(got, want, case, lang, stated):
    if not isinstance(got, list) or len(got) != len(want):
        return say("lab01_runs", lang, n=len(want))
    worst = dict.fromkeys(NAMES, 0.0)
    for run, (g, r) in enumerate(zip(got, want)):
        problem = shape_problem(g, r, "float16", lang)
        if problem:
            return say("lab01_run", lang, run=run, problem=problem)
        for name, gi, ri in zip(NAMES, g, r):
            worst[name] = max(worst[name], error(gi, ri.numpy()))
    if max(worst.values()) > FP16_SANE:
        for run, (g, r) in enumerate(zip(got, want)):
            problem = gradient_problem(g, [v.numpy() for v in r], FP16_SANE, lang)
            if problem:
                return say("lab01_run", lang, run=run, problem=problem)
    if not max(worst.values()) > stated["threshold"]:
        return say("lab01_fp16_under", lang, threshold=stated["threshold"],
                   errors=", ".join(f"{k} {v:.1e}" for k, v in worst.items()))
    return None


def experiment_bytes(dtype):
    """The size of an honest report of one 20-run experiment, in bytes of output: the
    arrays' base64 plus room for the JSON around them. GradingExecute lets this one
    evidence output of the cell through up to this size (20 runs of 600x64 at fp32 are
    about 4.2 MB of base64, over the 1 MB a cell may print otherwise)."""
    n, d_in, d_out = SHAPE
    entries = n * d_in + d_out * d_in + d_out
    raw = entries * np.dtype(dtype).itemsize
    return RUNS * (4 * (raw + 2) // 3 + 600) + 10_000


def walk_reference(node):
    """Depth first from loss.grad_fn, each node's inputs in next_functions order, each node once."""
    names, seen = [], set()

    def visit(fn):
        if fn is None or fn in seen:
            return
        seen.add(fn)
        names.append(type(fn).__name__)
        for child, _ in fn.next_functions:
            visit(child)

    visit(node)
    return names


def breadth_first(node):
    """A plausible wrong answer: the nodes in breadth-first order (a queue)."""
    names, seen, queue = [], {node}, [node]
    while queue:
        fn = queue.pop(0)
        names.append(type(fn).__name__)
        for child, _ in fn.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                queue.append(child)
    return names


def without_seen(node):
    """A plausible wrong answer: depth first, with no set of seen nodes."""
    if node is None:
        return []
    return [type(node).__name__] + [name for child, _ in node.next_functions for name in without_seen(child)]


def reversed_inputs(node):
    """A plausible wrong answer: depth first with a stack, each node's inputs last first."""
    names, seen, stack = [], set(), [node]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        names.append(type(fn).__name__)
        stack.extend(child for child, _ in fn.next_functions)
    return names


def compare_walk(got, want, case, lang, stated):
    if got == want:
        return None
    for key, wrong in (("lab01_walk_bfs", breadth_first), ("lab01_walk_no_seen", without_seen),
                       ("lab01_walk_reversed", reversed_inputs)):
        if got == wrong(build_graph(case).grad_fn) != want:
            return walk_message(got, want, say(key, lang), lang)
    return walk_message(got, want, None, lang)


def pitfall_check(grade_id, which):
    """Exercise 3: autograd's gradients of a pitfall, twice the formulas' (Part A's, in float64)."""
    def reference(case):
        return formulas64(*make_inputs(torch.Generator().manual_seed(case[0]), *case[1:]))

    def compare(got, want, case, lang, stated):
        return pitfall_problem(got, [w.numpy() for w in want], which, lang)
    name = "grads_without_half" if which == "without_half" else "grads_backward_twice"
    return Check(PROBES[grade_id], reference=reference, compare=compare,
                 describe=lambda case: f"{name}(x {case[1]}×{case[2]}, W {case[3]}×{case[2]}, float64)")


def experiment_check(dtype, reference, compare, threshold):
    return FormulaCheck(PROBES[f"lab01-{'fp32' if dtype == 'float32' else 'fp16'}"],
                        reference=lambda case: experiment_reference(case, reference),
                        describe=lambda case: f"linear_grads × {RUNS} ({dtype}, #{case[0]})",
                        stated={"threshold": threshold}, compare=compare,
                        evidence_bytes=lambda seed: experiment_bytes(dtype))


CHECKS = {
    "lab01-paths": PathsCheck(
        PROBES["lab01-paths"], reference=paths_reference,
        describe=lambda case: f"grads_by_paths(delta {case[1]}×{case[3]}, x {case[1]}×{case[2]}, W {case[3]}×{case[2]})",
        compare=compare_paths),
    "lab01-formulas": FormulaCheck(
        PROBES["lab01-formulas"], reference=formula_reference,
        describe=lambda case: f"linear_grads(x {case[1]}×{case[2]}, W {case[3]}×{case[2]}, {case[4]})",
        compare=compare_formulas),
    "lab01-walk": Check(
        PROBES["lab01-walk"], reference=lambda case: walk_reference(build_graph(case).grad_fn),
        describe=lambda case: f"grad_fn_walk(L: {' → '.join(['linear'] + list(case))})",
        compare=compare_walk),
    "lab01-fp32": experiment_check("float32", autograd32, compare_fp32, 1e-5),
    "lab01-fp16": experiment_check("float16", formulas64, compare_fp16, 1e-3),
}


# ---- bonus exercises: extra credit, the cells are worth 0 points (see grader/plugins/bonus.py) ----

def two_layer_reference(case):
    x, W1, b1, W2, b2, target = (v.double() for v in two_layer_inputs(*case))
    h = x @ W1.T + b1
    dy2 = h @ W2.T + b2 - target
    dh = dy2 @ W2
    return [dh @ W1, dh.T @ x, dh.sum(0), dy2.T @ h, dy2.sum(0)]


def softmax_reference(case):
    logits, labels = softmax_inputs(*case)
    return torch.softmax(logits, dim=1) - torch.nn.functional.one_hot(labels, logits.shape[1]).double()


def function_reference(case):
    x, W, b, grad_y = function_inputs(*case)
    return [x @ W.T + b, grad_y @ W, grad_y.T @ x, grad_y.sum(0)]


def compare_arrays(names, tol=1e-9):
    """Arrays of the reference's shapes, each within `tol` (rms-relative) in float64."""
    def compare(got, want, case, lang, stated):
        want = [w.numpy() for w in (want if isinstance(want, list) else [want])]
        got = got if isinstance(got, list) else [got]
        if len(got) != len(want) or not all(isinstance(g, np.ndarray) for g in got):
            return say("lab01_arrays", lang, n=len(want), names=", ".join(names))
        for name, g, w in zip(names, got, want):
            if tuple(g.shape) != tuple(w.shape):
                return say("lab01_shape", lang, name=name, got=tuple(g.shape), want=tuple(w.shape))
            e = error(g, w)
            if not e <= tol:
                return say("lab01_wrong", lang, name=name, error=e, tol=tol)
        return None
    return compare


def bonus_check(grade_id, reference, describe, names):
    return FormulaCheck(PROBES[grade_id], reference=reference, describe=describe,
                        compare=compare_arrays(names), stated={"bonus": 1}, bonus=1)


CHECKS.update({
    "lab01-bonus-twolayer": bonus_check(
        "lab01-bonus-twolayer", two_layer_reference,
        lambda case: f"two_layer_grads(x {case[1]}×{case[2]}, W1 {case[3]}×{case[2]}, W2 {case[4]}×{case[3]})",
        ("dx", "dW1", "db1", "dW2", "db2")),
    "lab01-bonus-softmax": bonus_check(
        "lab01-bonus-softmax", softmax_reference,
        lambda case: f"cross_entropy_grad(logits {case[1]}×{case[2]})", ("dL/dy",)),
    "lab01-bonus-function": bonus_check(
        "lab01-bonus-function", function_reference,
        lambda case: f"LinearByHand(x {case[1]}×{case[2]}, W {case[3]}×{case[2]})",
        ("y", "dx", "dW", "db")),
})

CHECKS.update({
    "lab01-pitfall-half": pitfall_check("lab01-pitfall-half", "without_half"),
    "lab01-pitfall-twice": pitfall_check("lab01-pitfall-twice", "twice"),
    **{grade_id: prediction_check(grade_id, "abcd") for grade_id in (
        "lab01-predict-fp32", "lab01-predict-node", "lab01-predict-fp16", "lab01-predict-update")},
})
