"""A scalar reverse-mode autograd engine, small enough to read in one sitting.

Each operation is one unit: the forward value, then right below it the
`_backward` closure that pushes `out.grad` into the inputs with `+=`.

Gradients of leaves ACCUMULATE: `backward()` adds into their `.grad`,
because a node reached along two paths (the "diamond") must receive the sum
of both contributions. Call `zero_grad()` before a second `backward()`.
"""
import math


class Value:
    """A scalar that remembers how it was computed, so it can be differentiated."""

    __slots__ = ("data", "grad", "label", "_prev", "_op", "_backward")

    def __init__(self, data, _children=(), _op="", label=""):
        self.data = float(data)
        self.grad = 0.0
        self.label = label
        self._prev = tuple(_children)
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

        Iterative depth-first search, so a chain 100,000 deep does not hit
        Python's recursion limit.
        """
        order, visited = [], set()
        stack = [(self, False)]
        while stack:
            node, inputs_done = stack.pop()
            if inputs_done:
                order.append(node)
                continue
            if id(node) in visited:
                continue
            visited.add(id(node))
            stack.append((node, True))
            # reversed, so inputs are visited left to right as in a recursive walk
            for child in reversed(node._prev):
                if id(child) not in visited:
                    stack.append((child, False))
        return order

    def backward(self):
        """Add d(self)/d(leaf) into `leaf.grad` for every leaf of the graph.

        Leaves accumulate across calls, as in PyTorch: call `zero_grad()` first
        for fresh gradients. Intermediate nodes restart from 0 on every call
        (else a second call would push their old grad again). Then `self.grad`
        is seeded with 1 and each `_backward` runs in reverse topological order.
        """
        order = self.topological_order()
        for node in order:
            if node._prev:
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
