"""Draw a computation graph with matplotlib (no Graphviz binary needed)."""
import itertools

import matplotlib.pyplot as plt
from matplotlib.patches import FancyBboxPatch

from .trace import name

COLUMN = 2.4  # horizontal distance between layers of the graph
SYMBOL = {"*": "·", "-": "−"}  # the operations as the notebooks' prose writes them
# a leaf and an operation differ in colour, and also in outline, for a reader who cannot tell
# the colours apart: a leaf is a square box drawn dashed, an operation a rounded box drawn solid
LEAF, OPERATION = "#dbe9f6", "#fde9c9"
BOX = {"leaf": {"fc": LEAF, "ec": "0.2", "linestyle": "--", "linewidth": 1.2},
       "operation": {"fc": OPERATION, "ec": "0.2", "linestyle": "-", "linewidth": 1.6}}
SHAPE = {"leaf": "square,pad=0.04", "operation": "round,pad=0.04"}


def layers(root):
    """Each node's column: leaves at 0, every other node as close to `root` as it
    can be (its distance from the root, counted from the right), so that two
    nodes feeding the same node stand side by side and no edge skips a column
    of operations."""
    order = root.topological_order()
    distance = {id(root): 0}
    for node in reversed(order):
        for input_ in node._inputs:
            distance[id(input_)] = max(distance.get(id(input_), 0), distance[id(node)] + 1)
    deepest = max(distance.values())
    return {id(n): (deepest - distance[id(n)]) if n._inputs else 0 for n in order}


def heights(root, column):
    """Each node's height: leaves evenly spaced, ordered by where they are first
    used (a leaf used twice between the others); every other node at the mean
    height of its inputs, then spread so that boxes in a column never touch."""
    order = root.topological_order()
    rank = {id(n): i for i, n in enumerate(order)}
    users = {}
    for node in order:
        for input_ in node._inputs:
            users.setdefault(id(input_), []).append(rank[id(node)])
    leaves = sorted((n for n in order if not n._inputs),
                    key=lambda n: (min(users.get(id(n), [0])), len(users.get(id(n), []))))
    y = {id(n): float(len(leaves) - 1 - i) for i, n in enumerate(leaves)}
    for c in range(1, max(column.values()) + 1):
        nodes = [n for n in order if column[id(n)] == c]
        for n in nodes:
            y[id(n)] = sum(y[id(x)] for x in n._inputs) / len(n._inputs)
        nodes.sort(key=lambda n: -y[id(n)])
        for upper, lower in itertools.pairwise(nodes):
            gap = y[id(upper)] - y[id(lower)]
            if gap < 1:  # push the pair apart around its middle
                middle = (y[id(upper)] + y[id(lower)]) / 2
                y[id(upper)], y[id(lower)] = middle + 0.5, middle - 0.5
    return y


def draw_graph(root, title="", show_grad=True, ax=None):
    """Draw `root` and everything it depends on, inputs on the left.

    Each box shows the node's name, the operation that made it, its data and
    (when `show_grad`) its grad. Returns the matplotlib Figure; its axes keep what was
    drawn, node by node, as `ax.drawn_graph` (course/figures.py puts it into words).
    """
    order = root.topological_order()
    column = layers(root)
    y = heights(root, column)
    xy = {id(n): (column[id(n)] * COLUMN, y[id(n)]) for n in order}
    low, high = min(y.values()), max(y.values())
    if ax is None:
        # constrained layout makes room below the axes for a `legend`, and only when there is one
        _, ax = plt.subplots(figsize=(COLUMN * (max(column.values()) + 1) * 0.95, 1.2 * (high - low) + 1.6),
                             layout="constrained")
    ax.drawn_graph = []
    for node in order:
        x, y_ = xy[id(node)]
        for input_ in node._inputs:
            px, py = xy[id(input_)]
            ax.annotate("", xy=(x - 0.75, y_), xytext=(px + 0.75, py),
                        arrowprops={"arrowstyle": "->", "color": "0.4"})
        op = SYMBOL.get(node._op, node._op)
        text = name(node) + (f"  ({op})" if op else "")
        text += f"\ndata = {node.data:g}"
        if show_grad:
            text += f"\ngrad = {node.grad:g}"
        kind = "operation" if node._inputs else "leaf"
        ax.add_patch(FancyBboxPatch((x - 0.75, y_ - 0.38), 1.5, 0.76, boxstyle=SHAPE[kind], **BOX[kind]))
        ax.text(x, y_, text, ha="center", va="center", fontsize=9, family="monospace")
        ax.drawn_graph.append({"name": name(node), "op": op, "data": node.data,
                               "grad": node.grad if show_grad else None,
                               "inputs": [name(input_) for input_ in node._inputs]})
    ax.set_xlim(-0.9, COLUMN * max(column.values()) + 0.9)
    ax.set_ylim(low - 0.55, high + 0.55)
    ax.axis("off")
    if title:
        ax.set_title(title)
    return ax.figure


def legend(ax, leaf, operation):
    """Name the two kinds of box, colour and outline (the words come from the notebook, in its language).

    The legend goes below the graph, outside the axes, in one row: however long
    the words of a language, it can never cover a node."""
    from matplotlib.patches import Patch
    return ax.legend(handles=[Patch(**BOX["leaf"], label=leaf), Patch(**BOX["operation"], label=operation)],
                     loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2, fontsize=8,
                     frameon=False, borderaxespad=0.0)
