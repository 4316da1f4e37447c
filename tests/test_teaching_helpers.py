"""The walk record and the graph drawing the notebooks show."""
import matplotlib

matplotlib.use("Agg")

from minigrad import Value
from minigrad.draw import draw_graph
from minigrad.trace import format_steps, reverse_walk


def diamond():
    a, b, c = Value(2, label="a"), Value(3, label="b"), Value(4, label="c")
    ab = a * b; ab.label = "ab"
    e = ab + c; e.label = "e"
    f = a - c; f.label = "f"
    L = e * f; L.label = "L"
    return {"a": a, "b": b, "c": c, "ab": ab, "e": e, "f": f, "L": L}


def walk(g, names, **options):
    return reverse_walk(g["L"], order=[g[n] for n in names], **options)


def test_seed_walk_has_the_seven_steps_of_the_notes():
    g = diamond()
    steps = walk(g, ["L", "f", "e", "ab", "c", "b", "a"])
    record = [(s.node.label, [(p.label, added, after) for p, added, after in s.contributions])
              for s in steps]
    assert record == [
        ("L", [("e", -2, -2), ("f", 10, 10)]),
        ("f", [("a", 10, 10), ("c", -10, -10)]),
        ("e", [("ab", -2, -2), ("c", -2, -12)]),
        ("ab", [("a", -6, 4), ("b", -4, -4)]),
        ("c", []), ("b", []), ("a", []),
    ]
    text = format_steps(steps, "es")
    assert "4. ab._backward()   [ab = a * b]" in text
    assert "c.grad += -2   → ahora c.grad = -12" in text
    assert text.count("hoja: no hace nada") == 3


def test_walk_matches_backward():
    g1, g2 = diamond(), diamond()
    reverse_walk(g1["L"])
    g2["L"].backward()
    assert [g1[n].grad for n in "abc"] == [g2[n].grad for n in "abc"] == [4, -4, -12]


def test_assignment_instead_of_accumulation():
    g = diamond()
    steps = walk(g, ["L", "f", "e", "ab", "c", "b", "a"], accumulate=False)
    assert [g[n].grad for n in "abc"] == [-6, -4, -2]
    assert "c.grad = -2" in format_steps(steps)


def test_wrong_order_loses_the_contribution_through_ab():
    g = diamond()
    walk(g, ["L", "ab", "f", "e", "c", "b", "a"])
    assert [g[n].grad for n in "abc"] == [10, 0, -12]


def test_drawing_has_one_box_per_node_with_data_and_grad():
    g = diamond()
    g["L"].backward()
    figure = draw_graph(g["L"], title="diamond")
    texts = [t.get_text() for t in figure.axes[0].texts if t.get_text()]
    arrows = [t for t in figure.axes[0].texts if not t.get_text()]
    assert len(texts) == 7
    assert len(arrows) == 8  # a->ab, b->ab, ab->e, c->e, a->f, c->f, e->L, f->L
    assert "a\ndata = 2\ngrad = 4" in texts
    assert "L  (·)\ndata = -20\ngrad = 1" in texts
    assert len(figure.axes[0].patches) == 7


def test_assignment_keeps_one_contribution_of_an_input_used_twice():
    """With `=`, x + x leaves x.grad = 1 (the second write), not the 2 that `+=` gives."""
    for make, assigned, added in ((lambda x: x + x, 1.0, 2.0), (lambda x: x * x, 3.0, 6.0),
                                  (lambda x: x - x, -1.0, 0.0)):
        x = Value(3.0, label="x")
        y = make(x)
        reverse_walk(y, accumulate=False)
        assert x.grad == assigned
        x2 = Value(3.0, label="x")
        reverse_walk(make(x2))
        assert x2.grad == added


def test_the_engine_order_is_creation_order():
    g = diamond()
    assert [n.label for n in reversed(g["L"].topological_order())] == ["L", "f", "e", "ab", "c", "b", "a"]


def test_no_edge_of_the_diamond_crosses_a_box():
    from minigrad.draw import COLUMN, heights, layers
    g = diamond()
    column = layers(g["L"])
    y = heights(g["L"], column)
    boxes = {n: (column[id(v)] * COLUMN, y[id(v)]) for n, v in g.items()}
    for name, node in g.items():
        for input_ in node._inputs:
            (x0, y0), (x1, y1) = boxes[input_.label], boxes[name]
            x0, x1 = x0 + 0.75, x1 - 0.75
            for other, (bx, by) in boxes.items():
                if other in (name, input_.label):
                    continue
                for t in [k / 200 for k in range(201)]:
                    px, py = x0 + t * (x1 - x0), y0 + t * (y1 - y0)
                    assert not (abs(px - bx) < 0.75 and abs(py - by) < 0.42), (input_.label, name, other)


def test_the_spanish_legend_covers_no_node_and_stays_in_the_figure():
    """Regression: inside the axes, the longer Spanish label pushed the legend onto the f (−) box."""
    from matplotlib.patches import FancyBboxPatch

    from minigrad.draw import legend
    for show_grad in (False, True):
        g = diamond()
        g["L"].backward()
        figure = draw_graph(g["L"], title="L = (a·b + c)·(a − c) tras el recorrido inverso",
                            show_grad=show_grad)
        box = legend(figure.axes[0], "hoja (una entrada que fijamos)", "operación")
        figure.canvas.draw()
        renderer = figure.canvas.get_renderer()
        extent = box.get_window_extent(renderer)
        nodes = [p for p in figure.axes[0].patches if isinstance(p, FancyBboxPatch)]
        assert len(nodes) == 7
        for node in nodes:
            assert not extent.overlaps(node.get_window_extent(renderer)), node
        for text in figure.axes[0].texts:  # the arrows and the words in the boxes
            assert not extent.overlaps(text.get_window_extent(renderer)), text.get_text()
        inside = figure.bbox
        assert inside.x0 <= extent.x0 and extent.x1 <= inside.x1 and inside.y0 <= extent.y0, extent
        # no dead space: the legend sits just below the lowest box, and the figure ends just below it
        lowest = min(node.get_window_extent(renderer).y0 for node in nodes)
        assert lowest - extent.y1 < 0.5 * figure.dpi and extent.y0 - inside.y0 < 0.5 * figure.dpi
