"""The reference gradcheck (the answer to lab 03), and the command that runs it on minigrad.

    python -m grader gradcheck          # exit 0: every op and composite agrees
    python -m grader gradcheck --inject-sub-sign-bug   # shows the failure it must catch

It lives with the grader, never in a kernel or the handout: it is what the
students write. Central differences against `backward()`, input by input.
"""
import math
from collections.abc import Callable, Sequence
from typing import Protocol


class Node(Protocol):
    """What gradcheck needs from a minigrad `Value` (minigrad itself is untyped)."""

    data: float
    grad: float

    def backward(self) -> None: ...

    def zero_grad(self) -> None: ...


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
    for index, (x, num) in enumerate(zip(inputs, numerical)):
        analytic = x.grad
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
    """Every operation of minigrad and the lab's three composites, at fixed points."""
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
    ]


def check_minigrad() -> int:
    """Gradcheck every expression of the battery; print and count the failures."""
    from minigrad import Value

    leaf: Callable[[float], Node] = Value  # minigrad is untyped; the Protocol says what is used
    failures = 0
    for name, f, point in battery():
        try:
            gradcheck(f, [leaf(x) for x in point])
            print(f"ok      {name}")
        except AssertionError as error:
            failures += 1
            print(f"FAILED  {name}\n{error}")
    return failures


def main(argv: Sequence[str]) -> int:
    """Exit status of `python -m grader gradcheck [--inject-sub-sign-bug]`."""
    if list(argv) == ["--inject-sub-sign-bug"]:
        from course.breakit import sub_sign_bug

        with sub_sign_bug():
            return 1 if check_minigrad() else 0
    if argv:
        raise SystemExit("usage: python -m grader gradcheck [--inject-sub-sign-bug]")
    return 1 if check_minigrad() else 0
