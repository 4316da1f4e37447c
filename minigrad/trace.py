"""Record the reverse walk one node at a time, for teaching.

`reverse_walk` does what `Value.backward` does, but calls each `_backward`
separately and notes what it added to each input's `.grad`. It reads the
engine from the outside (gradients before and after each call), so the
record is exactly what the engine did.
"""
from dataclasses import dataclass, field

_WORDS = {
    "en": {"leaf": "leaf: nothing to do", "now": "now"},
    "es": {"leaf": "hoja: no hace nada", "now": "ahora"},
}


@dataclass
class Step:
    """One call of `node._backward()`: (input, added, grad after) per input."""
    node: object
    contributions: list = field(default_factory=list)
    accumulate: bool = True


def reverse_walk(root, order=None, accumulate=True):
    """Seed `root.grad` with 1, then run `_backward` node by node.

    `order` is the list of nodes to visit; by default the engine's own
    reverse topological order. Pass another order to see what goes wrong.
    `accumulate=False` shows what `=` instead of `+=` would do: after each
    step an input keeps only the contribution it has just received.
    """
    nodes = list(reversed(root.topological_order())) if order is None else list(order)
    root.grad += 1.0
    steps = []
    for node in nodes:
        inputs = list(dict.fromkeys(node._prev))  # x * x has x once here
        before = [p.grad for p in inputs]
        node._backward()
        if not accumulate:
            for p, b in zip(inputs, before):
                p.grad = p.grad - b  # what `p.grad = ...` would have left
            before = [0.0] * len(inputs)
        steps.append(Step(node, [(p, p.grad - b, p.grad) for p, b in zip(inputs, before)], accumulate))
    return steps


def name(node):
    """The node's label, or its value when it is an unlabelled constant."""
    return node.label or f"{node.data:g}"


def format_steps(steps, lang="en"):
    """The walk as numbered lines, as one would write it by hand."""
    words = _WORDS[lang]
    lines = []
    for number, step in enumerate(steps, start=1):
        node = step.node
        if not node._prev:
            lines.append(f"{number}. {name(node)}._backward(): {words['leaf']}")
            continue
        formula = f" {node._op} ".join(name(p) for p in node._prev)
        lines.append(f"{number}. {name(node)}._backward()   [{name(node)} = {formula}]")
        sign = "+=" if step.accumulate else "="
        for parent, added, after in step.contributions:
            lines.append(f"     {name(parent)}.grad {sign} {added:g}   "
                         f"→ {words['now']} {name(parent)}.grad = {after:g}")
    return "\n".join(lines)
