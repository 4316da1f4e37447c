"""Hidden checks of lab 01 (autograd by hand for linear(64, 600)): the answer key.

Error of a gradient G against its reference R, as the notebook defines it:
    error = max|G - R| / rms(R),  rms(R) = sqrt(mean(R**2)),
the worst entry's deviation in units of a typical entry's size. References are
computed here, in the grader's process, from the same inputs the probe made:
float64 formulas from those inputs for the formula check and the fp16 experiment,
PyTorch autograd at fp32 for the fp32 experiment (the seed's comparison).
"""
import numpy as np
import torch

from course.i18n import say
from course.probes.lab01 import (PROBES, RUNS, SHAPE, build_graph, experiment_inputs, function_inputs,
                                 make_inputs, softmax_inputs, two_layer_inputs)
from grader.checks import Check, Verdict

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
    """PyTorch's own gradients at fp32 (what the seed compares with)."""
    x, W, b = (t.float().clone().requires_grad_(True) for t in (x, W, b))
    y = torch.nn.functional.linear(x, W, b)
    loss = 0.5 * ((y - target.float()) ** 2).sum()
    loss.backward()
    return x.grad, W.grad, b.grad


def shape_problem(got, reference, dtype, lang):
    """None when `got` is three arrays of the reference's shapes in `dtype`, else the reason."""
    if not isinstance(got, list) or len(got) != 3 or not all(isinstance(g, np.ndarray) for g in got):
        return say("lab01_three_arrays", lang)
    for name, g, r in zip(NAMES, got, reference):
        if tuple(g.shape) != tuple(r.shape):
            return say("lab01_shape", lang, name=name, got=tuple(g.shape), want=tuple(r.shape))
        if str(g.dtype) != dtype:
            return say("lab01_dtype", lang, name=name, got=str(g.dtype), want=dtype)
        if not np.all(np.isfinite(g)):
            return say("lab01_not_finite", lang, name=name)
    return None


class FormulaCheck(Check):
    """A Check whose failures that come from calling autograd say so plainly."""

    def _judge(self, seed, results, lang, stated):
        for result in results if isinstance(results, list) else []:
            text = str(result.get("error", "")) + str(result.get("not_plain", "")) \
                if isinstance(result, dict) else ""
            if "grad" in text or "NoneType" in text:
                return Verdict(False, say("lab01_no_autograd", lang, detail=text[:200]))
        return super()._judge(seed, results, lang, stated)


def formula_reference(case):
    seed, n, d_in, d_out, dtype = case
    return formulas64(*make_inputs(torch.Generator().manual_seed(seed), n, d_in, d_out, dtype))


def compare_formulas(got, want, case, lang, stated):
    dtype = case[4]
    problem = shape_problem(got, want, dtype, lang)
    if problem:
        return problem
    for name, g, r in zip(NAMES, got, want):
        e = error(g, r.numpy())
        if e > FORMULA_TOL[dtype]:
            return say("lab01_wrong", lang, name=name, error=e, tol=FORMULA_TOL[dtype])
    return None


def experiment_reference(case, reference):
    return [reference(*inputs) for inputs in experiment_inputs(*case)]


def compare_fp32(got, want, case, lang, stated):
    if not isinstance(got, list) or len(got) != len(want):
        return say("lab01_runs", lang, n=len(want))
    threshold = stated["threshold"]
    for run, (g, r) in enumerate(zip(got, want)):
        problem = shape_problem(g, r, "float32", lang)
        if problem:
            return f"run {run}: {problem}"
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
            return f"run {run}: {problem}"
        for name, gi, ri in zip(NAMES, g, r):
            worst[name] = max(worst[name], error(gi, ri.numpy()))
    if max(worst.values()) > FP16_SANE:
        return say("lab01_wrong", lang, name=max(worst, key=worst.get), error=max(worst.values()),
                   tol=FP16_SANE)
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


def compare_walk(got, want, case, lang, stated):
    if got != want:
        return say("lab01_walk", lang, got=got, want=want)
    return None


def experiment_check(dtype, reference, compare, threshold):
    return FormulaCheck(PROBES[f"lab01-{'fp32' if dtype == 'float32' else 'fp16'}"],
                        reference=lambda case: experiment_reference(case, reference),
                        describe=lambda case: f"linear_grads × {RUNS} runs, torch seed {case[0]}, {dtype}",
                        stated={"threshold": threshold}, compare=compare,
                        evidence_bytes=lambda seed: experiment_bytes(dtype))


CHECKS = {
    "lab01-formulas": FormulaCheck(
        PROBES["lab01-formulas"], reference=formula_reference,
        describe=lambda case: f"linear_grads on x {case[1]}×{case[2]}, W {case[3]}×{case[2]}, {case[4]}",
        compare=compare_formulas),
    "lab01-walk": Check(
        PROBES["lab01-walk"], reference=lambda case: walk_reference(build_graph(case).grad_fn),
        describe=lambda case: f"grad_fn_walk(loss of {' → '.join(['linear'] + list(case))})",
        compare=compare_walk),
    "lab01-fp32": experiment_check("float32", autograd32, compare_fp32, 1e-5),
    "lab01-fp16": experiment_check("float16", formulas64, compare_fp16, 1e-3),
}


# ---- bonus exercises: extra credit, the cells are worth 0 points (see grader/bonus.py) ----

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
        lambda case: f"two_layer_grads on x {case[1]}×{case[2]}, hidden {case[3]}, out {case[4]}",
        ("dx", "dW1", "db1", "dW2", "db2")),
    "lab01-bonus-softmax": bonus_check(
        "lab01-bonus-softmax", softmax_reference,
        lambda case: f"cross_entropy_grad on {case[1]}×{case[2]} logits", ("dL/dy",)),
    "lab01-bonus-function": bonus_check(
        "lab01-bonus-function", function_reference,
        lambda case: f"LinearByHand on x {case[1]}×{case[2]}, W {case[3]}×{case[2]}",
        ("y", "dx", "dW", "db")),
})
