"""Every figure the course draws says in words what it shows (course/figures.py): a short alt text
and a description computed from the numbers it plots, in the notebook's language, carried where
JupyterLab, the website and nbconvert each read it; and it can be read without its colours."""
import base64
import math
import re
from html.parser import HTMLParser

import matplotlib
import nbformat
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from authoring.build import ROOT
from course import figures
from course.names import LANGUAGES, UNITS

AXIS = {"en": "Horizontal axis", "es": "Eje horizontal"}
GRAPH = {"en": "computation graph", "es": "grafo de cómputo"}


def v_curve(k_rise=2, lowest_at=1e-5):
    """A log-log V: 1/eps below `lowest_at`, eps**k_rise above it (numbers, not words)."""
    epsilons = [10.0 ** (-k / 2) for k in range(2, 25)]
    errors = [(1e-16 / e if e < lowest_at else 1e-16 / lowest_at * (e / lowest_at) ** k_rise) for e in epsilons]
    fig, ax = plt.subplots()
    ax.loglog(epsilons, errors, "s-", label="tanh at x = 0.5")
    ax.set_xlabel("ε")
    ax.set_ylabel("error")
    ax.set_title("the error against ε")
    return fig


def test_a_curve_is_told_from_its_numbers():
    """The V of truncation against rounding: where it is lowest and how each side goes, read from
    the data; other data, other words (nothing is typed)."""
    alt, text = figures.describe(v_curve(), "en")
    print(alt, "|", text)
    assert alt == "the error against ε (1 line; both axes logarithmic)"
    assert "tanh at x = 0.5 (squares and solid line): from " in text
    assert "falls as 1/ε to 1.0e-11 at ε = 1.0e-05, rises as ε² to " in text
    _, other = figures.describe(v_curve(k_rise=1, lowest_at=1e-7), "en")
    assert "falls as 1/ε to 1.0e-09 at ε = 1.0e-07, rises as ε to " in other


def test_spanish_words_and_decimal_commas():
    alt, text = figures.describe(v_curve(), "es")
    print(alt, "|", text)
    assert alt.endswith("(1 línea; los dos ejes logarítmicos)")
    assert "baja como 1/ε hasta 1,0e-11 en ε = 1,0e-05, sube como ε² hasta " in text
    assert not re.search(r"\d\.\d", text.replace("x = 0.5", "")), text  # the label is the notebook's own
    assert figures.number(-0.25, "es") == "−0,25" and figures.number(3.2e-6, "en") == "3.2e-06"


def test_points_reference_lines_and_bands():
    """Points are summed up (how many, their range, median) and counted against a horizontal
    line; vertical lines and shaded bands are said where they are."""
    fig, ax = plt.subplots()
    ax.plot([0, 1, 2, 3], [1e-6, 3e-6, 2e-6, 4e-6], "o", label="fp32 dx")
    ax.plot([0, 1, 2, 3], [5e-4, 2e-3, 8e-4, 3e-3], "o", mfc="none", label="fp16 dx")
    ax.axhline(1e-3, linestyle=":", label="fp16 threshold")
    ax.axvline(1.5, linestyle="--", label="half way")
    ax.axvspan(0.5, 1.0, color="0.9")
    ax.set_yscale("log")
    ax.set_xlabel("run")
    _, text = figures.describe(fig, "en")
    print(text)
    assert "fp32 dx (circles): 4 points from run = 0 to 3, between 1.0e-06 and 4.0e-06, median 2.5e-06." in text
    assert "fp16 dx (circles, hollow):" in text
    assert ("fp16 threshold (dotted line): horizontal line at 1.0e-03; above it: fp16 dx 2 of 4; "
            "every other point below.") in text
    assert "half way (dashed line): vertical line at run = 1.5." in text
    assert "A shaded band from run = 0.5 to 1." in text


def test_a_step_is_a_jump():
    fig, ax = plt.subplots()
    xs = [i / 10 for i in range(-10, 11)]
    ax.plot(xs, [1.0 if x > 0 else 0.0 for x in xs], "--", label="relu'")
    ax.set_xlabel("a")
    _, text = figures.describe(fig, "en")
    print(text)
    assert "relu' (dashed line): from 0 at a = −1, stays at about 0 up to a = 0, jumps to 1 between a = 0 and 0.1" in text


def test_a_graph_is_told_node_by_node_and_its_boxes_differ_without_colour():
    from minigrad import Value
    from minigrad.draw import draw_graph
    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    product = a * b
    product.label = "p"
    total = product + a
    total.label = "L"
    total.backward()
    figure = draw_graph(total, title="L = a·b + a", show_grad=True)
    alt, text = figures.describe(figure, "en")
    print(alt, "|", text)
    assert alt == "L = a·b + a (drawing of a computation graph: 4 nodes, 2 operations)"
    assert "Leaves (inputs we set): a = 2, grad −2 and b = −3, grad 2." in text
    assert "p = a · b = −6, grad 1; L = p + a = −4, grad 1." in text
    assert "Inputs of more than one node: a feeds p and L." in text
    # a leaf and an operation: not only their colours differ, their outlines do
    boxes = {patch.get_facecolor(): (patch.get_linestyle(), patch.get_boxstyle().__class__.__name__)
             for patch in figure.axes[0].patches}
    assert len(set(boxes.values())) == 2, boxes


def test_show_puts_the_words_where_each_reader_finds_them(monkeypatch):
    """One display: HTML (JupyterLab, the website) whose <img> has the alt and whose figcaption is
    the description; PNG with the alt in its metadata (nbconvert); the words as plain text. The
    figure is closed (the inline backend draws it once), and the cell shows no value."""
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda *args, **kwargs: shown.append((args, kwargs)))
    fig = v_curve()
    assert figures.show(fig, "en") is None
    assert not plt.fignum_exists(fig.number)
    (data,), options = shown[0]
    alt, description = figures.describe(v_curve(), "en")
    assert options["raw"] and options["metadata"]["image/png"]["alt"] == alt
    assert options["metadata"]["course"] == {"alt": alt, "description": description,
                                             "series": [["curve", "tanh at x = 0.5", "squares and solid line"]]}
    assert data["text/plain"] == f"{alt}\n{description}"
    assert base64.b64decode(data["image/png"]).startswith(b"\x89PNG")
    page = Figure(data["text/html"])
    assert page.alt == [alt] and page.caption == description
    assert page.src[0] == f"data:image/png;base64,{data['image/png']}"


class Figure(HTMLParser):
    """An output's HTML: its images' alt and src, its figcaption's text."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.alt, self.src, self.caption, self._in_caption = [], [], "", False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "img":
            self.alt.append(attrs.get("alt"))
            self.src.append(attrs.get("src"))
        self._in_caption = self._in_caption or tag == "figcaption"

    def handle_endtag(self, tag):
        self._in_caption = self._in_caption and tag != "figcaption"

    def handle_data(self, data):
        if self._in_caption:
            self.caption += data


def figure_outputs(unit, lang):
    nb = nbformat.read(ROOT / "source" / f"{unit}-{lang}" / f"{unit}.ipynb", 4)
    return [output for cell in nb.cells for output in cell.get("outputs", [])
            if any(mime.startswith("image/") for mime in output.get("data", {}))]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("unit", UNITS)
def test_every_figure_of_the_notebooks_carries_its_words(unit, lang):
    """Every image a unit's executed notebook holds came through figures.show: its HTML has an
    <img> with the alt text and a figcaption with the description, in the notebook's language, and
    the description states numbers (read from the plot)."""
    found = figure_outputs(unit, lang)
    assert found, f"{unit}-{lang} draws no figure"
    for output in found:
        assert "course" in output["metadata"], f"{unit}-{lang}: a figure shown without figures.show"
        words = output["metadata"]["course"]
        page = Figure(output["data"]["text/html"])
        print(f"{unit}-{lang}: {words['alt']}")
        assert page.alt == [words["alt"]] and page.caption == words["description"]
        assert output["metadata"]["image/png"]["alt"] == words["alt"]
        assert len(words["alt"]) <= 200 and len(words["description"]) > 2 * len(words["alt"])
        assert re.search(r"\d", words["description"])
        other = "es" if lang == "en" else "en"
        assert AXIS[lang] in words["description"] or GRAPH[lang] in words["alt"]
        assert AXIS[other] not in words["description"] and GRAPH[other] not in words["alt"]


def test_no_two_series_of_a_figure_look_alike_without_colour():
    """In each figure of the notebooks, no two lines (or series of points, or reference lines) share
    their markers and line style: each can be told apart in greyscale, and its description says how."""
    for unit in UNITS:
        for output in figure_outputs(unit, "en"):
            words = output["metadata"]["course"]
            by_kind = {}
            for kind, label, style in words["series"]:
                by_kind.setdefault(kind, []).append((style, label))
                assert f"{label} ({style}): " in words["description"]
            print(unit, by_kind)
            for kind, seen in by_kind.items():
                looks = [style for style, _ in seen]
                assert len(looks) == len(set(looks)), f"{unit}: {kind} series styled alike: {seen}"
            assert sum(map(len, by_kind.values())) >= 2 or "graph" in words["alt"]


def test_the_style_check_finds_two_lines_alike():
    """The check above can fail: lab 03's two cancellation lines as they were, both dotted."""
    fig, ax = plt.subplots()
    ax.loglog([1e-3, 1e-1], [1e-13, 1e-15], ":", label="cancellation, float64")
    ax.loglog([1e-3, 1e-1], [1e-4, 1e-6], ":", label="cancellation, float32")
    styles = [style for kind, _, style in figures.looks(fig)]
    assert styles == ["dotted line", "dotted line"]


def test_numbers_as_the_notebooks_write_them():
    assert [figures.number(x, "en") for x in (0.0, math.inf, -0.25, 3.2e-6, 1234.4, 65504, 2.5e5)] == \
        ["0", "inf", "−0.25", "3.2e-06", "1234", "65 504", "2.5e+05"]
    assert [figures.number(x, "es") for x in (-0.25, 3.2e-6, 65504)] == ["−0,25", "3,2e-06", "65 504"]
