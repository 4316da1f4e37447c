"""Break it and confirm (lab 03): a backward rule of `a - c` that exists only inside a `with` block.

    def sub_backward_bug(a, c, out):      # the student's rule, for out = a - c
        a.grad += out.grad
        c.grad += out.grad                # the -1 of the right operand forgotten

    with broken_sub(sub_backward_bug):
        gradcheck(lambda a, c: a - c, (Value(2.0), Value(4.0)))   # must fail

Inside the block, minigrad's `Value.__sub__` computes the same forward value and runs the
given rule as its backward; the original `__sub__` comes back in `finally`, even when the
block raises (as a failing gradcheck does). `sub_sign_bug()` is the same with the sign bug of
the original notes, the course's own (`python -m grader gradcheck --inject-sub-sign-bug`).
`sub_gradients` and `rule_mistake` check a student's rule, for the visible test and the grader.
"""
import importlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from course.mutants import MUTANTS, mutated_method
from minigrad.engine import Value, as_value

# the -1 of the right operand missing from the backward of a - c, one of lab 03's mutants
SUB_SIGN_BUG = next(m for m in MUTANTS if m.method == "__sub__" and m.new == "other.grad += 1.0 * out.grad")


def _sub_with(rule: Callable[[Value, Value, Value], object]) -> Callable[[Value, Value | float], Value]:
    """`Value.__sub__` whose backward is `rule(self, other, out)`."""
    def __sub__(self: Value, other: Value | float) -> Value:
        other = as_value(other)
        out = Value(self.data - other.data, (self, other), "-")

        def _backward() -> None:
            rule(self, other, out)
        out._backward = _backward
        return out
    return __sub__


@contextmanager
def _swapped(method: Callable[[Value, Value | float], Value]) -> Iterator[None]:
    original = Value.__sub__
    Value.__sub__ = method  # type: ignore[method-assign]
    try:
        yield
    finally:
        Value.__sub__ = original  # type: ignore[method-assign]


@contextmanager
def broken_sub(rule: Callable[[Value, Value, Value], object]) -> Iterator[None]:
    """For the duration of the block, `a - c` runs `rule(a, c, out)` as its backward; then
    minigrad's own `__sub__` is back."""
    if not callable(rule):
        raise TypeError(f"broken_sub needs a function rule(a, c, out), not {type(rule).__name__}")
    with _swapped(_sub_with(rule)):
        yield


@contextmanager
def sub_sign_bug() -> Iterator[None]:
    """`Value.__sub__` with the sign bug of the original notes for the duration of the block."""
    with _swapped(mutated_method(SUB_SIGN_BUG)):
        yield


def sub_gradients(rule: Callable[[Value, Value, Value], object], a: float, c: float, k: float) -> list[float]:
    """[a.grad, c.grad] of (a - c) * k, with `rule` as the backward of a - c (there out.grad is
    k: a rule that drops `* out.grad` gives another number)."""
    x, y = Value(a), Value(c)
    with broken_sub(rule):
        ((x - y) * k).backward()
    return [x.grad, y.grad]


def rule_mistake(grads: object, k: float, lang: str) -> str | None:
    """Why `grads`, what `sub_gradients` gave for a student's rule, are not those of the sign bug
    asked for (the right operand's -1 forgotten: a.grad = k, c.grad = +k), or None."""
    # course.i18n is untyped, and `mypy --strict` of the reference gradcheck reads this module
    say = importlib.import_module("course.i18n").say
    if not (isinstance(grads, list) and len(grads) == 2 and all(isinstance(g, float) for g in grads)):
        return str(say("lab03_break_shape", lang, got=repr(grads)[:120]))
    a_grad, c_grad = grads
    shown = {"k": f"{k:g}", "a": f"{a_grad:g}", "c": f"{c_grad:g}"}
    if _near(a_grad, k) and _near(c_grad, -k):
        return str(say("lab03_break_not_broken", lang, **shown))
    if not (_near(a_grad, k) and _near(c_grad, k)):
        return str(say("lab03_break_other", lang, **shown))
    return None


def _near(got: float, want: float) -> bool:
    return abs(got - want) <= 1e-9 * max(1.0, abs(want))
