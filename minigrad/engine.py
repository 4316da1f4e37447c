"""A scalar reverse-mode autograd engine, small enough to read in one sitting.

Each operation is one unit: the forward value, then right below it the
`_backward` closure that pushes `out.grad` into the inputs with `+=`.

Gradients of leaves ACCUMULATE: `backward()` adds into their `.grad`,
because a node reached along two paths (the "diamond") must receive the sum
of both contributions. Call `zero_grad()` before a second `backward()`.

Edge cases follow float64 PyTorch: a result too large for a float is inf
(`exp(710)`, `1e200 ** 2`, `1 / 1e-310`), `0 ** -1` is inf, and the gradient
of `x ** 0` is 0 even at x = 0. Two choices differ, and raise ValueError
where PyTorch gives no real number: the log of a number <= 0 (PyTorch gives
-inf at 0 and nan below it), and a negative number to a power that is not a
whole number (`(-4) ** 0.5`, nan in PyTorch).
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from operator import attrgetter

_created = itertools.count()  # numbers every Value in the order it is made
_creation_number = attrgetter("_number")


class Value:
    """A scalar that remembers how it was computed, so it can be differentiated."""

    __slots__ = ("_backward", "_inputs", "_number", "_op", "data", "grad", "label")
    data: float
    grad: float
    label: str
    _inputs: tuple[Value, ...]
    _op: str
    _backward: Callable[[], None]
    _number: int

    def __init__(self, data: float, _inputs: Iterable[Value] = (), _op: str = "", label: str = "") -> None:
        self.data = float(data)
        self.grad = 0.0
        self.label = label
        self._inputs = tuple(_inputs)  # the nodes this one was computed from
        self._number = next(_created)  # after every input's: see topological_order
        self._op = _op
        self._backward = lambda: None  # a leaf has nothing to propagate

    def __repr__(self) -> str:
        name = f"{self.label}, " if self.label else ""
        return f"Value({name}data={self.data:g}, grad={self.grad:g})"

    # ---- primitive operations: forward and backward side by side ----

    def __add__(self, other: Value | float) -> Value:
        other = as_value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward() -> None:
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other: Value | float) -> Value:
        other = as_value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward() -> None:
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __sub__(self, other: Value | float) -> Value:
        # a primitive (not self + (-other)) so the graph of a - c has one node,
        # as drawn by hand in theory/03
        other = as_value(other)
        out = Value(self.data - other.data, (self, other), "-")

        def _backward() -> None:
            self.grad += out.grad
            other.grad += -1.0 * out.grad
        out._backward = _backward
        return out

    def __pow__(self, exponent: float) -> Value:
        if not isinstance(exponent, (int, float)):
            raise TypeError("Value ** x needs a plain number x (int or float)")
        out = Value(_power(self.data, exponent), (self,), f"**{exponent:g}")

        def _backward() -> None:
            if exponent != 0:  # d(x**0)/dx = 0, also at x = 0 where x**-1 is inf
                self.grad += exponent * _power(self.data, exponent - 1) * out.grad
        out._backward = _backward
        return out

    def exp(self) -> Value:
        try:
            e = math.exp(self.data)
        except OverflowError:  # above 709.78: inf, as in float64 PyTorch
            e = math.inf
        out = Value(e, (self,), "exp")

        def _backward() -> None:
            self.grad += out.data * out.grad  # d/dx e^x = e^x
        out._backward = _backward
        return out

    def log(self) -> Value:
        if self.data <= 0:
            raise ValueError(f"log needs a positive input, got {self.data:g}")
        out = Value(math.log(self.data), (self,), "log")

        def _backward() -> None:
            self.grad += out.grad / self.data
        out._backward = _backward
        return out

    def tanh(self) -> Value:
        t = math.tanh(self.data)
        out = Value(t, (self,), "tanh")

        def _backward() -> None:
            self.grad += (1.0 - t * t) * out.grad
        out._backward = _backward
        return out

    def relu(self) -> Value:
        out = Value(max(self.data, 0.0), (self,), "relu")

        def _backward() -> None:
            # the kink at 0 gets derivative 0, as in PyTorch
            self.grad += (1.0 if self.data > 0 else 0.0) * out.grad
        out._backward = _backward
        return out

    # ---- derived operations: built from the primitives above ----

    def __neg__(self) -> Value:
        return self * -1

    def __truediv__(self, other: Value | float) -> Value:
        return self * as_value(other) ** -1

    def __radd__(self, other: Value | float) -> Value:
        return self + other

    def __rmul__(self, other: Value | float) -> Value:
        return self * other

    def __rsub__(self, other: Value | float) -> Value:
        return as_value(other) - self

    def __rtruediv__(self, other: Value | float) -> Value:
        return as_value(other) / self

    # ---- the reverse walk ----

    def topological_order(self) -> list[Value]:
        """Every node this one depends on, each after all of its inputs.

        A node is always created after its inputs, so the order in which the
        nodes were created is a topological order: find which nodes this one
        depends on, then sort them by creation number. The search uses a stack,
        not recursion, so a chain 100,000 deep does not hit Python's recursion
        limit; and it is faster than a depth-first sort in Python.
        """
        reached, stack = {self}, [self]
        while stack:
            for input_ in stack.pop()._inputs:
                if input_ not in reached:  # a Value hashes by identity
                    reached.add(input_)
                    stack.append(input_)
        return sorted(reached, key=_creation_number)

    def backward(self) -> None:
        """Add d(self)/d(leaf) into `leaf.grad` for every leaf of the graph.

        Leaves accumulate across calls, as in PyTorch: call `zero_grad()` first
        for fresh gradients. Intermediate nodes restart from 0 on every call
        (else a second call would push their old grad again). Then `self.grad`
        is seeded with 1 and each `_backward` runs in reverse topological order.
        """
        order = self.topological_order()
        for node in order:
            if node._inputs:
                node.grad = 0.0
        self.grad += 1.0
        for node in reversed(order):
            node._backward()

    def zero_grad(self) -> None:
        """Set `.grad` back to 0 on this node and everything it depends on."""
        for node in self.topological_order():
            node.grad = 0.0


def as_value(x: Value | float) -> Value:
    return x if isinstance(x, Value) else Value(x)


def _power(base: float, exponent: float) -> float:
    """`base ** exponent` as float64 PyTorch gives it: inf (with the sign of an
    odd power) where the result is too large or divides by 0."""
    odd = float(exponent).is_integer() and exponent % 2 == 1
    try:
        result = base ** exponent
    except (OverflowError, ZeroDivisionError):
        return math.copysign(math.inf, base) if odd else math.inf
    if isinstance(result, complex):
        raise ValueError(f"Value ** {exponent:g}: a negative base ({base:g}) needs a whole exponent;"  # noqa: TRY004
                         " the result would not be a real number")  # a domain error, as math.sqrt(-1)
    return float(result)
