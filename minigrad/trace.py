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
    `accumulate=False` shows what `=` instead of `+=` in every `_backward`
    would do: each input keeps only the last contribution written into it,
    and an input used twice by one node (x + x) keeps only its second.
    """
    nodes = list(reversed(root.topological_order())) if order is None else list(order)
    root.grad += 1.0
    steps = []
    for node in nodes:
        inputs = list(dict.fromkeys(node._inputs))  # x * x has x once here
        before = [x.grad for x in inputs]
        node._backward()
        if not accumulate:
            for x, b in zip(inputs, before):
                x.grad = _last_write(node, x, x.grad - b)
            before = [0.0] * len(inputs)
        steps.append(Step(node, [(x, x.grad - b, x.grad) for x, b in zip(inputs, before)], accumulate))
    return steps


def _last_write(node, x, added):
    """What `x.grad = ...` would leave after `node._backward()`, given what `+=` added.

    Used once, an input receives one contribution, all of `added`. Used twice
    (x + x, x - x, x * x), the second assignment wins: for + it is out.grad,
    for - it is -out.grad, and for * it is (first input's data) * out.grad.
    """
    if node._inputs.count(x) < 2:
        return added
    last = {"+": node.grad, "-": -node.grad, "*": node._inputs[0].data * node.grad}
    if node._op not in last:
        raise ValueError(f"accumulate=False: {node._op!r} with a repeated input is not modelled")
    return last[node._op]


def name(node):
    """The node's label, or its value when it is an unlabelled constant."""
    return node.label or f"{node.data:g}"


def format_steps(steps, lang="en"):
    """The walk as numbered lines, as one would write it by hand."""
    words = _WORDS[lang]
    lines = []
    for number, step in enumerate(steps, start=1):
        node = step.node
        if not node._inputs:
            lines.append(f"{number}. {name(node)}._backward(): {words['leaf']}")
            continue
        formula = f" {node._op} ".join(name(p) for p in node._inputs)
        lines.append(f"{number}. {name(node)}._backward()   [{name(node)} = {formula}]")
        sign = "+=" if step.accumulate else "="
        for input_, added, after in step.contributions:
            lines.append(f"     {name(input_)}.grad {sign} {added:g}   "
                         f"→ {words['now']} {name(input_)}.grad = {after:g}")
    return "\n".join(lines)
