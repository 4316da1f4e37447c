"""Draw a computation graph with matplotlib (no Graphviz binary needed)."""
import matplotlib.pyplot as plt
from matplotlib.patches import FancyBboxPatch

from .trace import name

COLUMN = 2.4  # horizontal distance between layers of the graph


def layers(root):
    """Each node's column: 0 for leaves, else one more than its deepest input."""
    column = {}
    for node in root.topological_order():
        column[id(node)] = 1 + max((column[id(p)] for p in node._prev), default=-1)
    return column


def draw_graph(root, title="", show_grad=True, ax=None):
    """Draw `root` and everything it depends on, inputs on the left.

    Each box shows the node's name, the operation that made it, its data and
    (when `show_grad`) its grad. Returns the matplotlib Figure.
    """
    order = root.topological_order()
    column = layers(root)
    rows = {}
    position = {}
    for node in order:
        c = column[id(node)]
        position[id(node)] = (c, rows.get(c, 0))
        rows[c] = rows.get(c, 0) + 1
    tallest = max(rows.values())
    if ax is None:
        width = COLUMN * (max(rows) + 1)
        _, ax = plt.subplots(figsize=(width, 1.5 * tallest + 0.8))
    xy = {}
    for key, (c, r) in position.items():
        # centre each column vertically
        xy[key] = (c * COLUMN, (tallest - 1) / 2 - r + (rows[c] - 1) / 2)
    for node in order:
        x, y = xy[id(node)]
        for input_ in node._prev:
            px, py = xy[id(input_)]
            ax.annotate("", xy=(x - 0.75, y), xytext=(px + 0.75, py),
                        arrowprops=dict(arrowstyle="->", color="0.4"))
        text = name(node) + (f"  ({node._op})" if node._op else "")
        text += f"\ndata = {node.data:g}"
        if show_grad:
            text += f"\ngrad = {node.grad:g}"
        colour = "#dbe9f6" if not node._prev else "#fde9c9"
        ax.add_patch(FancyBboxPatch((x - 0.75, y - 0.38), 1.5, 0.76,
                                    boxstyle="round,pad=0.04", fc=colour, ec="0.3"))
        ax.text(x, y, text, ha="center", va="center", fontsize=9, family="monospace")
    ax.set_xlim(-1, COLUMN * max(rows) + 1)
    ax.set_ylim(-0.7, tallest - 0.3)
    ax.axis("off")
    if title:
        ax.set_title(title)
    return ax.figure
