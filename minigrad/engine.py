"""A scalar reverse-mode autograd engine, small enough to read in one sitting.

Each operation is one unit: the forward value, then right below it the
`_backward` closure that pushes `out.grad` into the inputs with `+=`.

Gradients of leaves ACCUMULATE: `backward()` adds into their `.grad`,
because a node reached along two paths (the "diamond") must receive the sum
of both contributions. Call `zero_grad()` before a second `backward()`.
"""
import itertools
import math
from operator import attrgetter

_created = itertools.count()  # numbers every Value in the order it is made
_creation_number = attrgetter("_number")


class Value:
    """A scalar that remembers how it was computed, so it can be differentiated."""

    __slots__ = ("data", "grad", "label", "_inputs", "_op", "_backward", "_number")

    def __init__(self, data, _inputs=(), _op="", label=""):
        self.data = float(data)
        self.grad = 0.0
        self.label = label
        self._inputs = tuple(_inputs)  # the nodes this one was computed from
        self._number = next(_created)  # after every input's: see topological_order
        self._op = _op
        self._backward = lambda: None  # a leaf has nothing to propagate

    def __repr__(self):
        name = f"{self.label}, " if self.label else ""
        return f"Value({name}data={self.data:g}, grad={self.grad:g})"

    # ---- primitive operations: forward and backward side by side ----

    def __add__(self, other):
        other = _as_value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = _as_value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __sub__(self, other):
        # a primitive (not self + (-other)) so the graph of a - c has one node,
        # as drawn by hand in theory/03
        other = _as_value(other)
        out = Value(self.data - other.data, (self, other), "-")

        def _backward():
            self.grad += out.grad
            other.grad += -1.0 * out.grad
        out._backward = _backward
        return out

    def __pow__(self, exponent):
        if not isinstance(exponent, (int, float)):
            raise TypeError("Value ** x needs a plain number x (int or float)")
        out = Value(self.data ** exponent, (self,), f"**{exponent:g}")

        def _backward():
            self.grad += exponent * self.data ** (exponent - 1) * out.grad
        out._backward = _backward
        return out

    def exp(self):
        out = Value(math.exp(self.data), (self,), "exp")

        def _backward():
            self.grad += out.data * out.grad  # d/dx e^x = e^x
        out._backward = _backward
        return out

    def log(self):
        if self.data <= 0:
            raise ValueError(f"log needs a positive input, got {self.data:g}")
        out = Value(math.log(self.data), (self,), "log")

        def _backward():
            self.grad += out.grad / self.data
        out._backward = _backward
        return out

    def tanh(self):
        t = math.tanh(self.data)
        out = Value(t, (self,), "tanh")

        def _backward():
            self.grad += (1.0 - t * t) * out.grad
        out._backward = _backward
        return out

    def relu(self):
        out = Value(max(self.data, 0.0), (self,), "relu")

        def _backward():
            # the kink at 0 gets derivative 0, as in PyTorch
            self.grad += (1.0 if self.data > 0 else 0.0) * out.grad
        out._backward = _backward
        return out

    # ---- derived operations: built from the primitives above ----

    def __neg__(self):
        return self * -1

    def __truediv__(self, other):
        return self * _as_value(other) ** -1

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def __rsub__(self, other):
        return _as_value(other) - self

    def __rtruediv__(self, other):
        return _as_value(other) / self

    # ---- the reverse walk ----

    def topological_order(self):
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

    def backward(self):
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

    def zero_grad(self):
        """Set `.grad` back to 0 on this node and everything it depends on."""
        for node in self.topological_order():
            node.grad = 0.0


def _as_value(x):
    return x if isinstance(x, Value) else Value(x)
