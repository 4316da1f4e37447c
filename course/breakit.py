"""Break it and confirm (lab 03): a backward bug that exists only inside a `with` block.

    with sub_sign_bug():
        gradcheck(lambda a, c: a - c, (Value(2.0), Value(4.0)))   # must fail, input 1

Inside the block, `a - c` forgets the -1 of its right operand in the backward
(`c.grad += 1.0 * out.grad`): the intentional sign bug of the original notes. The forward is
untouched, so only a gradient check can see it. The original `Value.__sub__`
comes back in `finally`, even when the block raises (as a failing gradcheck does).
"""
from collections.abc import Iterator
from contextlib import contextmanager

from course.mutants import MUTANTS, mutated_method
from minigrad.engine import Value

# the -1 of the right operand missing from the backward of a - c, one of lab 03's mutants
SUB_SIGN_BUG = next(m for m in MUTANTS if m.method == "__sub__" and m.new == "other.grad += 1.0 * out.grad")


@contextmanager
def sub_sign_bug() -> Iterator[None]:
    """`Value.__sub__` with the sign bug for the duration of the block, then restored."""
    original = Value.__sub__
    Value.__sub__ = mutated_method(SUB_SIGN_BUG)  # type: ignore[method-assign]
    try:
        yield
    finally:
        Value.__sub__ = original  # type: ignore[method-assign]
