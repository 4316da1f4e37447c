"""The reference gradcheck (the answer to lab 03), and the command that runs it on minigrad.

    python -m grader gradcheck          # exit 0: every op and composite agrees
    python -m grader gradcheck --inject-sub-sign-bug   # shows the failure it must catch
    python benchmarks/gradcheck_mutants.py             # how many backward bugs it catches

It lives with the grader, never in a kernel or the handout: it is what the
students write. Central differences against `backward()`, input by input.
"""
import math
from collections.abc import Callable, Sequence
from typing import Protocol


class Node(Protocol):
    """What gradcheck needs from a minigrad `Value`."""

    data: float
    grad: float

    def backward(self) -> None: ...

    def zero_grad(self) -> None: ...


def gradients(f: Callable[..., Node], inputs: Sequence[Node], eps: float = 1e-5) -> list[tuple[float, float]]:
    """(central difference, backward's gradient) for every input, each input's `.data` restored."""
    numerical = []
    for x in inputs:
        saved = x.data
        try:
            x.data = saved + eps
            f_plus = f(*inputs).data
            x.data = saved - eps
            f_minus = f(*inputs).data
        finally:
            x.data = saved  # later evaluations must see the unperturbed point
        numerical.append((f_plus - f_minus) / (2 * eps))
    out = f(*inputs)
    out.zero_grad()
    for x in inputs:  # an input the expression does not use is not in its graph
        x.grad = 0.0
    out.backward()
    return [(num, x.grad) for x, num in zip(inputs, numerical)]


def gradcheck(
    f: Callable[..., Node],
    inputs: Sequence[Node],
    *,
    eps: float = 1e-5,
    atol: float = 1e-4,
    rtol: float = 1e-3,
) -> bool:
    """True when every input's analytic gradient matches the central difference
    within `atol + rtol * |numerical|`; AssertionError with the diagnostic otherwise."""
    for index, (num, analytic) in enumerate(gradients(f, inputs, eps)):
        diff = abs(num - analytic)
        if not diff <= atol + rtol * abs(num):  # `not <=` also catches NaN
            rel = diff / abs(num) if num != 0 else math.inf
            raise AssertionError(
                f"gradcheck FAILED at input index {index}:\n"
                f"  numerical = {num:.6f}\n"
                f"  analytic  = {analytic:.6f}\n"
                f"  abs diff  = {diff:.6f}\n"
                f"  rel diff  = {rel:.6g}")
    return True


Expression = tuple[str, Callable[..., Node], tuple[float, ...]]


def battery() -> list[Expression]:
    """Every operation of minigrad, the lab's three composites, and the expressions that make
    each backward rule show: every op away from the root (where out.grad is 1 and a missing
    `* out.grad` hides), every input reused by a later node (where `=` for `+=` loses a
    contribution), relu on both sides of its kink. Points are irregular so that no wrong
    rule agrees with the right one by coincidence."""
    return [
        ("a + b", lambda a, b: a + b, (1.5, -2.0)),
        ("a * b", lambda a, b: a * b, (1.5, -2.0)),
        ("a - b", lambda a, b: a - b, (1.5, -2.0)),
        ("a ** 3", lambda a: a ** 3, (1.3,)),
        ("a ** -1.5", lambda a: a ** -1.5, (0.7,)),
        ("exp(a)", lambda a: a.exp(), (0.4,)),
        ("log(a)", lambda a: a.log(), (2.5,)),
        ("tanh(a)", lambda a: a.tanh(), (0.3,)),
        ("relu(a)", lambda a: a.relu(), (0.8,)),
        ("-a", lambda a: -a, (0.8,)),
        ("a / b", lambda a, b: a / b, (1.5, -2.0)),
        ("2 + a, 2 * a, 2 - a, 2 / a", lambda a: (2 + a) * (2 * a) * (2 - a) * (2 / a), (0.9,)),
        ("diamond (a*b + c) * (a - c)", lambda a, b, c: (a * b + c) * (a - c), (2.0, 3.0, 4.0)),
        ("relu(a*b + c)", lambda a, b, c: (a * b + c).relu(), (2.0, 3.0, -4.0)),
        ("tanh(a*b + c)", lambda a, b, c: (a * b + c).tanh(), (0.2, 0.5, -0.3)),
        ("a / (b + 1.0)", lambda a, b: a / (b + 1.0), (2.0, 3.0)),
        # each binary op inside the graph, both its inputs reused later
        ("(a + b) * a * b", lambda a, b: (a + b) * a * b, (1.3, -0.7)),
        ("(a - b) * a * b", lambda a, b: (a - b) * a * b, (1.3, -0.7)),
        ("(a * b) * a * b", lambda a, b: (a * b) * a * b, (1.3, -0.7)),
        # each unary op inside the graph (out.grad is not 1), its input reused later
        ("a ** 3 * a", lambda a: a ** 3 * a, (1.3,)),
        ("exp(a) * a", lambda a: a.exp() * a, (0.45,)),
        ("log(a) * a", lambda a: a.log() * a, (2.5,)),
        ("tanh(a) * a", lambda a: a.tanh() * a, (0.35,)),
        ("relu(a) * a, a > 0", lambda a: a.relu() * a, (0.8,)),
        ("relu(a) * b, a < 0", lambda a, b: a.relu() * b, (-0.6, 1.7)),
    ]


def check_minigrad(leaf: Callable[[float], Node] | None = None, quiet: bool = False) -> int:
    """Gradcheck every expression of the battery on `leaf` (minigrad's `Value` unless given);
    print and count the failures."""
    if leaf is None:
        from minigrad import Value

        leaf = Value
    failures = 0
    for name, f, point in battery():
        try:
            gradcheck(f, [leaf(x) for x in point])
            if not quiet:
                print(f"ok      {name}")
        except (AssertionError, ArithmeticError, ValueError) as error:  # a broken engine may raise too
            failures += 1
            if not quiet:
                print(f"FAILED  {name}\n{error}")
    return failures


def main(argv: Sequence[str]) -> int:
    """Exit status of `python -m grader gradcheck [--inject-sub-sign-bug]`."""
    import importlib
    # the course's parser (one-line errors), imported by name: `mypy --strict` checks this reference
    # and what it imports, and the command line is not part of the answer
    parser = importlib.import_module("course.commands").Parser(prog="python -m grader gradcheck",
                                                                description=__doc__)
    parser.add_argument("--inject-sub-sign-bug", action="store_true",
                        help="run it on minigrad with a sign bug in subtraction: it must fail")
    if parser.parse_args(argv).inject_sub_sign_bug:
        from course.breakit import sub_sign_bug

        with sub_sign_bug():
            return 1 if check_minigrad() else 0
    return 1 if check_minigrad() else 0
