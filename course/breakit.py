"""Break it and confirm (lab 03): a backward bug that exists only inside a `with` block.

    with sub_sign_bug():
        gradcheck(lambda a, c: a - c, (Value(2.0), Value(4.0)))   # must fail, input 1

Inside the block, `a - c` forgets the -1 of its right operand in the backward
(`c.grad += out.grad`): the intentional sign bug of the original notes. The forward is
untouched, so only a gradient check can see it. The original `Value.__sub__`
comes back in `finally`, even when the block raises (as a failing gradcheck does).
"""
from collections.abc import Iterator
from contextlib import contextmanager

from minigrad.engine import Value, _as_value


def _sub_with_sign_bug(self: Value, other: Value | float) -> Value:
    other = _as_value(other)
    out = Value(self.data - other.data, (self, other), "-")

    def _backward() -> None:
        self.grad += out.grad
        other.grad += out.grad  # the bug: the -1 is missing
    out._backward = _backward
    return out


@contextmanager
def sub_sign_bug() -> Iterator[None]:
    """`Value.__sub__` with the sign bug for the duration of the block, then restored."""
    original = Value.__sub__
    Value.__sub__ = _sub_with_sign_bug  # type: ignore[method-assign]
    try:
        yield
    finally:
        Value.__sub__ = original  # type: ignore[method-assign]
