"""Cases of lab 03's hidden test: expressions handed to the student's gradcheck.

Correct expressions at random points, expressions whose backward has a bug
injected by hand (nodes built here with a faulty `_backward`, so minigrad
itself is never altered), borderline tolerances, an unused input, stale
gradients. The probe records what happened (returned True / raised, with the
message; the inputs' data before and after); it knows no answer.
"""
import cmath
import inspect

from course.probes import Probe
from minigrad import Value


def _node(data, inputs, backward):
    out = Value(data, inputs, "bug")
    out._backward = lambda: backward(out)
    return out


def sub_wrong_sign(x, y):
    def backward(out):
        x.grad += out.grad
        y.grad += out.grad  # should be -out.grad
    return _node(x.data - y.data, (x, y), backward)


def mul_assigns(x, y):
    def backward(out):
        x.grad = y.data * out.grad  # `=`: loses what other paths added
        y.grad = x.data * out.grad
    return _node(x.data * y.data, (x, y), backward)


def square_times(factor):
    def square(x):
        def backward(out):
            x.grad += factor * x.data * out.grad  # right when factor == 2
        return _node(x.data ** 2, (x,), backward)
    return square


def mul_swapped(x, y):
    def backward(out):
        x.grad += x.data * out.grad  # operands swapped
        y.grad += y.data * out.grad
    return _node(x.data * y.data, (x, y), backward)


def neg_wrong_sign(x):
    def backward(out):
        x.grad += out.grad
    return _node(-x.data, (x,), backward)


EXPRESSIONS = {
    "add": lambda a, b: a + b,
    "mul": lambda a, b: a * b,
    "sub": lambda a, b: a - b,
    "pow": lambda a, b: a ** 3 + b ** 2,
    "exp_log": lambda a, b: a.exp() * (b * b + 1.0).log(),
    "tanh": lambda a, b: (a * b).tanh(),
    "relu": lambda a, b: (a * b + 3.0).relu(),
    "div": lambda a, b: a / (b * b + 1.0),
    "diamond": lambda a, b, c: (a * b + c) * (a - c),
    # bugs: the case names the input index the grader expects in the message
    "bug_sign": lambda a, b: sub_wrong_sign(a, b),
    "bug_assign": lambda a, b: mul_assigns(a, b) + a,
    "bug_factor": lambda a, b: a + square_times(3.0)(b),
    "bug_swap": lambda a, b: mul_swapped(a, b),
    "bug_one": lambda a, b, c: a * b + neg_wrong_sign(c),
    "border": lambda a: square_times(2.02)(a),  # off by 1 % of the gradient
    "unused": lambda a, b, u: a * b,
}


def cases(rng):
    def point(n):
        return [round(rng.uniform(0.5, 2.0) * rng.choice((-1, 1)), 3) for _ in range(n)]
    default = [1e-4, 1e-3]  # [atol, rtol], the seed's defaults
    drawn = [[name, point(3 if name == "diamond" else 2), default, 0.0]
             for name in ("add", "mul", "sub", "pow", "exp_log", "tanh", "relu", "div", "diamond")]
    for name in ("bug_sign", "bug_assign", "bug_factor", "bug_swap"):
        drawn.append([name, [round(rng.uniform(1.0, 2.0), 3), round(rng.uniform(2.5, 4.0), 3)], default, 0.0])
    drawn.append(["bug_one", point(3), default, 0.0])
    # the border bug is off by 0.02 at a = 1 (gradient 2): inside or outside each tolerance
    for tolerances in ([0.0, 0.012], [0.0, 0.008], [0.025, 0.0], [0.015, 0.0]):
        drawn.append(["border", [1.0], tolerances, 0.0])
    drawn.append(["unused", point(2) + [0.0], default, 0.0])
    drawn.append(["mul", point(2), default, 100.0])  # stale .grad values before the call
    # a stale .grad on an input backward never reaches: out.zero_grad() alone leaves it there
    drawn.append(["unused", point(2) + [0.0], default, 7.0])
    return drawn


def call(objects, case):
    """[outcome, message, data before, data after] for one case."""
    gradcheck = objects[0]
    name, point, tolerances, stale = case
    inputs = tuple(Value(x) for x in point)
    for x in inputs:
        x.grad = stale
    before = [x.data for x in inputs]
    try:
        result = gradcheck(EXPRESSIONS[name], inputs, atol=tolerances[0], rtol=tolerances[1])
        outcome, message = ("True", "") if result is True else ("returned", repr(result)[:80])
    except AssertionError as error:
        outcome, message = "AssertionError", str(error)[:300]
    except Exception as error:  # noqa: BLE001 (the student's code may raise anything)
        outcome, message = type(error).__name__, str(error)[:300]
    return [outcome, message, before, [x.data for x in inputs]]


def annotations(objects, case):
    """The annotations of the student's gradcheck, as strings."""
    signature = inspect.signature(objects[0])
    return [str(p.annotation) for p in signature.parameters.values()] + [str(signature.return_annotation)]


# ---- bonus: the complex-step derivative of plain functions (complex arguments, via cmath) ----

FUNCTIONS = {
    "sin": cmath.sin,
    "exp_sin": lambda z: cmath.exp(cmath.sin(z)),
    "tanh": lambda z: cmath.tanh(2 * z - 0.5),
    "rational": lambda z: z ** 3 / (1 + z * z),
    "log": lambda z: cmath.log(z * z + 1),
}


def complex_cases(rng):
    return [[name, round(rng.uniform(-2.0, 2.0), 3)] for name in FUNCTIONS for _ in range(2)]


def complex_call(objects, case):
    name, x = case
    return objects[0](FUNCTIONS[name], x)


PROBES = {
    "lab03-bonus-complex": Probe("lab03-bonus-complex", complex_cases, call=complex_call),
    "lab03-gradcheck": Probe("lab03-gradcheck", cases, call=call),
    "lab03-annotations": Probe("lab03-annotations", lambda rng: [["signature"]], call=annotations),
}
