"""Cases of lab 01's hidden tests: the student's gradient formulas on fresh tensors,
the 20-run fp32 and fp16 experiments, and grad_fn walks of fresh graphs.

Everything here is public: it builds inputs from the grader's seed and calls the
student's code. Inputs are made on the CPU with their own `torch.Generator`, so the
grader, in its own process, makes bit-for-bit the same tensors (and the student's
global random state is left alone).
"""
import torch

from course.lab01 import AutogradWatch, PathsWatch
from course.probes import Probe, prediction

DTYPES = {"float16": torch.float16, "float32": torch.float32, "float64": torch.float64}
RUNS = 20  # Part D's number of runs
SHAPE = (2, 64, 600)  # batch, inputs, outputs of linear(64, 600)


def make_inputs(generator, n, d_in, d_out, dtype):
    """x (n, d_in), W (d_out, d_in), b (d_out,), target (n, d_out): Part D's draws, in
    Part D's order, then cast to `dtype` (so fp16 inputs are fp32 draws rounded)."""
    x = torch.randn(n, d_in, generator=generator)
    W = torch.randn(d_out, d_in, generator=generator)
    b = torch.randn(d_out, generator=generator)
    target = torch.randn(n, d_out, generator=generator)
    return tuple(t.to(DTYPES[dtype]) for t in (x, W, b, target))


def experiment_inputs(torch_seed, dtype, runs=RUNS, shape=SHAPE):
    """The inputs of the 20 runs of Part D drawn from `torch_seed`."""
    generator = torch.Generator().manual_seed(torch_seed)
    return [make_inputs(generator, *shape, dtype) for _ in range(runs)]


def call_formulas(function, inputs):
    """The student's formulas on plain tensors: no grad anywhere, so autograd cannot help."""
    with torch.no_grad():
        return [tensor for tensor in function(*inputs)]


def formula_cases(rng):
    """Fresh small shapes, values and dtypes, each dtype at least once (the lab's own
    shape is the fp32 and fp16 experiments' business)."""
    cases = [(rng.randrange(10 ** 6), rng.randint(1, 5), rng.randint(1, 40), rng.randint(1, 50), dtype)
             for dtype in sorted(DTYPES)]
    for _ in range(5):
        cases.append((rng.randrange(10 ** 6), rng.randint(1, 5), rng.randint(1, 40),
                      rng.randint(1, 50), rng.choice(sorted(DTYPES))))
    return cases


def formula_call(objects, case):
    seed, n, d_in, d_out, dtype = case
    with torch.no_grad():  # all of it: the AutogradWatch around it takes grad mode on as autograd
        return call_formulas(objects[0], make_inputs(torch.Generator().manual_seed(seed), n, d_in, d_out, dtype))


def experiment_cases(dtype):
    return lambda rng: [(rng.randrange(10 ** 6), dtype)]


def experiment_call(objects, case):
    with torch.no_grad():
        return [call_formulas(objects[0], inputs) for inputs in experiment_inputs(*case)]


# ---- Exercise 1a: the sums over paths, on small shapes (a square one and batches of 2 or more) ----

def paths_cases(rng):
    """Shapes that tell each predicted mistake apart: a batch of at least 2 (a missing sum
    over the batch shows), a square W (a Wᵀ runs there), and shapes that are not square."""
    cases = [(rng.randrange(10 ** 6), 3, 3, 3), (rng.randrange(10 ** 6), 2, 3, 4)]
    for _ in range(3):
        d_in = rng.randint(2, 5)
        cases.append((rng.randrange(10 ** 6), rng.randint(2, 4), d_in, d_in + rng.randint(1, 3)))
    return cases


def paths_inputs(seed, n, d_in, d_out):
    """delta = dL/dy (n, d_out), x (n, d_in), W (d_out, d_in), float64."""
    g = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(*shape, generator=g, dtype=torch.float64)
                 for shape in ((n, d_out), (n, d_in), (d_out, d_in)))


def paths_call(objects, case):
    with torch.no_grad():
        return objects[0](*paths_inputs(*case))


# ---- grad_fn walks: small random graphs, built the same way on both sides ----

STEPS = ("mul", "add", "sub", "pow", "square", "tanh", "exp", "neg", "div", "branch")


def build_graph(description):
    """A scalar loss from linear(x, W, b) followed by `description` (a list of
    STEPS names, then "sum" or "mean"): fresh leaves each time."""
    *steps, reduction = description
    generator = torch.Generator().manual_seed(len(description))
    x = torch.randn(2, 3, generator=generator, requires_grad=True)
    W = torch.randn(4, 3, generator=generator, requires_grad=True)
    b = torch.randn(4, generator=generator, requires_grad=True)
    h = torch.nn.functional.linear(x, W, b)
    for step in steps:
        h = {"mul": lambda h: 0.5 * h, "add": lambda h: h + 1.0, "sub": lambda h: h - b,
             "pow": lambda h: h ** 2, "square": lambda h: h * h, "tanh": torch.tanh,
             "exp": lambda h: torch.exp(-h.abs()), "neg": lambda h: -h,
             "div": lambda h: h / 3.0,
             # two inputs that both reach h: depth first and breadth first differ here
             "branch": lambda h: torch.tanh(h) * (h + 1.0)}[step](h)
    loss = h.sum() if reduction == "sum" else h.mean()
    return 0.5 * loss


def walk_cases(rng):
    """Part C's own loss, two graphs where depth first, breadth first and a walk without
    a set of seen nodes all differ, then random chains."""
    cases = [["sub", "pow", "sum"],  # Part C's shape of loss; h - b reuses the leaf b
             ["branch", "sum"], [rng.choice(STEPS), "branch", "square", "mean"]]
    for _ in range(5):
        cases.append([rng.choice(STEPS) for _ in range(rng.randint(0, 4))] + [rng.choice(["sum", "mean"])])
    return cases


def walk_call(objects, case):
    return [str(name) for name in objects[0](build_graph(case))]


def pitfall_call(objects, case):
    """The student's pitfall function (autograd allowed) on fresh float64 inputs of a small shape."""
    seed, n, d_in, d_out, _ = case
    inputs = make_inputs(torch.Generator().manual_seed(seed), n, d_in, d_out, "float64")
    return [tensor for tensor in objects[0](*inputs)]


def pitfall_cases(rng):
    return [(rng.randrange(10 ** 6), rng.randint(2, 4), rng.randint(2, 9), rng.randint(2, 9), "float64")
            for _ in range(3)]


PROBES = {
    # the formula probes record whether a call used autograd in any form (AutogradWatch)
    "lab01-formulas": Probe("lab01-formulas", formula_cases, call=formula_call, watch=AutogradWatch),
    "lab01-paths": Probe("lab01-paths", paths_cases, call=paths_call, watch=PathsWatch),
    "lab01-walk": Probe("lab01-walk", walk_cases, call=walk_call),
    "lab01-fp32": Probe("lab01-fp32", experiment_cases("float32"), call=experiment_call, watch=AutogradWatch),
    "lab01-fp16": Probe("lab01-fp16", experiment_cases("float16"), call=experiment_call, watch=AutogradWatch),
    "lab01-pitfall-half": Probe("lab01-pitfall-half", pitfall_cases, call=pitfall_call),
    "lab01-pitfall-twice": Probe("lab01-pitfall-twice", pitfall_cases, call=pitfall_call),
    **{grade_id: prediction(grade_id) for grade_id in ("lab01-predict-fp32", "lab01-predict-node",
                                                       "lab01-predict-fp16", "lab01-predict-update")},
}


# ---- bonus exercises (stretch): two layers, softmax + cross-entropy, a hand-written Function ----

def small_shape(rng):
    return rng.randint(1, 4), rng.randint(1, 12), rng.randint(1, 12), rng.randint(1, 12)


def two_layer_cases(rng):
    return [(rng.randrange(10 ** 6), *small_shape(rng)) for _ in range(4)]


def two_layer_inputs(seed, n, d_in, d_hidden, d_out):
    """x, W1, b1, W2, b2, target in float64 for y2 = linear(linear(x, W1, b1), W2, b2)."""
    g = torch.Generator().manual_seed(seed)
    shapes = ((n, d_in), (d_hidden, d_in), (d_hidden,), (d_out, d_hidden), (d_out,), (n, d_out))
    return [torch.randn(*shape, generator=g, dtype=torch.float64) for shape in shapes]


def two_layer_call(objects, case):
    with torch.no_grad():
        return list(objects[0](*two_layer_inputs(*case)))  # inputs made under no_grad too


def softmax_cases(rng):
    """Logits over up to 600 classes (the lab's 600 outputs) and one label per row."""
    cases = []
    for _ in range(4):
        n, classes = rng.randint(1, 4), rng.choice([3, 10, 600])
        cases.append((rng.randrange(10 ** 6), n, classes, [rng.randrange(classes) for _ in range(n)]))
    return cases


def softmax_inputs(seed, n, classes, labels):
    logits = 3 * torch.randn(n, classes, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    return logits, torch.tensor(labels)


def softmax_call(objects, case):
    with torch.no_grad():
        return objects[0](*softmax_inputs(*case))  # inputs made under no_grad too


def function_cases(rng):
    return [(rng.randrange(10 ** 6), *small_shape(rng)[:3]) for _ in range(4)]


def function_inputs(seed, n, d_in, d_out):
    """x, W, b (requiring grad) and the incoming gradient dL/dy, float64."""
    g = torch.Generator().manual_seed(seed)
    x, W, b, grad_y = (torch.randn(*shape, generator=g, dtype=torch.float64)
                       for shape in ((n, d_in), (d_out, d_in), (d_out,), (n, d_out)))
    return x, W, b, grad_y


def function_call(objects, case):
    """The student's Function on fresh leaves: its backward gives the three gradients."""
    x, W, b, grad_y = function_inputs(*case)
    leaves = [v.clone().requires_grad_(True) for v in (x, W, b)]
    y = objects[0].apply(*leaves)
    return [y.detach()] + list(torch.autograd.grad(y, leaves, grad_outputs=grad_y))


PROBES.update({
    "lab01-bonus-twolayer": Probe("lab01-bonus-twolayer", two_layer_cases, call=two_layer_call,
                                  watch=AutogradWatch),
    "lab01-bonus-softmax": Probe("lab01-bonus-softmax", softmax_cases, call=softmax_call, watch=AutogradWatch),
    "lab01-bonus-function": Probe("lab01-bonus-function", function_cases, call=function_call),
})
