"""Figures a screen reader can read: `show(figure, lang)` in place of `plt.show()`.

The figure is shown with a short alternative text and a longer description of what it
plots, both in the notebook's language and both read from the figure itself: its title,
its axes, the data of each line, the reference lines, a graph's nodes (minigrad.draw). No
sentence about a number is typed; each is computed from the number drawn.

One output carries them, for each place a notebook is read:

- text/html, a <figure> whose <img> has the alt text and whose <figcaption> is the
  description: JupyterLab and the website (myst-nb) show this one. Neither reads an `alt`
  from output metadata (JupyterLab's image renderer sets none; myst-nb takes one only from
  cell metadata), so the HTML is what carries it there;
- image/png, with {"image/png": {"alt": ...}} in the output's metadata: what nbconvert's
  HTML (nbgrader's feedback) writes as the image's alt; the grader keeps the PNG of an
  autograded output and gives it the plain text below as its alt (grader/plugins/inert.py);
- text/plain: the alt text and the description, for a terminal or any reader of text.

The metadata's "course" entry keeps the words and how each line looks (`looks`), which
tests/test_figures.py reads.
"""
import base64
import html
import itertools
import math
import statistics

from course.i18n import say

MARKERS = {"o": "circles", "s": "squares", "^": "triangles", "v": "triangles_down", "D": "diamonds",
           "x": "crosses", "+": "pluses", ".": "dots"}
LINES = {"-": "solid", "--": "dashed", ":": "dotted", "-.": "dashdot"}
SEGMENTS = 4  # a curve is told in at most this many stretches


def show(figure, lang="en"):
    """Display `figure` with its alt text and description (see the module), then close it, so
    that the inline backend does not draw it a second time. Returns nothing: the last line of
    a cell, it shows no value of its own."""
    import matplotlib.pyplot as plt
    from IPython.core.pylabtools import print_figure
    from IPython.display import display

    alt, description = describe(figure, lang)
    series = [list(each) for each in looks(figure, lang)]
    png = print_figure(figure, "png", bbox_inches="tight")
    plt.close(figure)
    display(bundle(png, alt, description), raw=True,
            metadata={"image/png": {"alt": alt},
                      "course": {"alt": alt, "description": description, "series": series}})


def bundle(png, alt, description):
    """The output's representations of one figure (PNG bytes): HTML, PNG, plain text."""
    encoded = base64.b64encode(png).decode("ascii")
    figure = (f'<figure class="course-figure" style="margin: 0">'
              f'<img src="data:image/png;base64,{encoded}" alt="{html.escape(alt)}" style="max-width: 100%">'
              f'<figcaption style="font-size: 0.9em; max-width: 50em">{html.escape(description)}</figcaption>'
              f"</figure>")
    return {"text/html": figure, "image/png": encoded, "text/plain": f"{alt}\n{description}"}


def describe(figure, lang="en"):
    """(alt, description) of a matplotlib figure, from what its axes draw."""
    alts, texts = [], []
    for ax in figure.axes:
        if not ax.get_visible():
            continue
        graph = getattr(ax, "drawn_graph", None)
        alt, text = graph_words(ax, graph, lang) if graph is not None else plot_words(ax, lang)
        alts.append(alt)
        texts.append(text)
    return "; ".join(alts), " ".join(texts)


# ---- numbers and lists, as the language writes them ----

def number(value, lang):
    """A number as the notebooks print it: 3 significant digits, or e-notation with one
    decimal (1.5e-11) for the very small and the very large; a minus sign (−) before a
    negative one, and a decimal comma in Spanish."""
    if value == 0:
        return "0"
    if not math.isfinite(value):
        return str(value)
    size = abs(value)
    if 1e3 <= size < 1e5:  # whole, five digits grouped with a space (38 400), as the notebooks write
        text = f"{round(size):,}".replace(",", " " if size >= 1e4 else "")
    else:
        text = f"{size:.3g}" if 1e-2 <= size < 1e3 else f"{size:.1e}"
    text = ("−" if value < 0 else "") + text
    return text.replace(".", ",") if lang == "es" else text


def listed(items, lang):
    items = list(items)
    if len(items) < 2:
        return "".join(items)
    return ", ".join(items[:-1]) + say("figure_and", lang) + items[-1]


def clean(label):
    """A label as read: matplotlib's mathtext marks dropped."""
    return " ".join(str(label).replace("$", "").split())


# ---- plots: axes, curves, points, reference lines ----

def kinds(ax):
    """The axes' lines by kind: curves (drawn with a line style), series of points (markers
    only), horizontal and vertical reference lines; and its shaded vertical bands."""
    curves, points, across, along, bands = [], [], [], [], []
    for line in ax.get_lines():
        if not line.get_visible():
            continue
        transform = line.get_transform()
        if transform is ax.get_yaxis_transform(which="grid"):
            across.append(line)
        elif transform is ax.get_xaxis_transform(which="grid"):
            along.append(line)
        elif line.get_linestyle() in LINES:
            curves.append(line)
        else:
            points.append(line)
    for patch in ax.patches:
        if patch.get_data_transform() is ax.get_xaxis_transform(which="grid") and hasattr(patch, "get_width"):
            bands.append(patch)
    return curves, points, across, along, bands


def looks(figure, lang="en"):
    """[(kind, label, style)] of every line of the figure's plots: what tells them apart
    without colour (a test checks that no two of a kind look alike)."""
    found = []
    for ax in figure.axes:
        if getattr(ax, "drawn_graph", None) is None:
            for kind, lines in zip(("curve", "points", "horizontal", "vertical"), kinds(ax)):
                found += [(kind, name_of(line, lang), style_of(line, lang)) for line in lines]
    return found


def plot_words(ax, lang):
    xname, yname = clean(ax.get_xlabel()) or "x", clean(ax.get_ylabel()) or "y"
    variable = xname if len(xname) <= 12 else "x"
    logx, logy = ax.get_xscale() == "log", ax.get_yscale() == "log"
    curves, points, across, along, bands = kinds(ax)
    axes = ("figure_axes_loglog" if logx and logy else "figure_axes_logy" if logy
            else "figure_axes_logx" if logx else "figure_axes_linear")
    counts = []
    if curves:
        counts.append(say("figure_count_lines", lang, n=len(curves)))
    if points:
        counts.append(say("figure_count_points", lang, n=len(points)))
    title = clean(ax.get_title()) or f"{yname} — {xname}"
    alt = say("figure_alt_plot", lang, title=title, series=listed(counts, lang), axes=say(axes, lang))
    (x0, x1), (y0, y1) = sorted(ax.get_xlim()), sorted(ax.get_ylim())
    log = say("figure_log", lang)
    (tx0, tx1), (ty0, ty1) = labelled(ax.get_xticks(), x0, x1), labelled(ax.get_yticks(), y0, y1)
    text = [say("figure_axis_x", lang, label=xname, low=number(tx0, lang), high=number(tx1, lang),
                log=log if logx else ""),
            say("figure_axis_y", lang, label=yname, low=number(ty0, lang), high=number(ty1, lang),
                log=log if logy else "")]
    view = (x0, x1, y0, y1)
    for line in curves:
        text.append(say("figure_series", lang, label=name_of(line, lang), style=style_of(line, lang),
                        summary=curve_words(visible(line, view, logx, logy), logx, logy, variable, lang)))
    for line in points:
        text.append(say("figure_series", lang, label=name_of(line, lang), style=style_of(line, lang),
                        summary=points_words(visible(line, view, logx, logy), variable, lang)))
    for line in across:
        level = line.get_ydata()[0]
        text.append(say("figure_series", lang, label=name_of(line, lang), style=style_of(line, lang),
                        summary=say("figure_horizontal", lang, y=number(level, lang))
                        + above_words(points, level, view, logx, logy, lang)))
    for line in along:
        text.append(say("figure_series", lang, label=name_of(line, lang), style=style_of(line, lang),
                        summary=say("figure_vertical", lang, x=variable, at=number(line.get_xdata()[0], lang))))
    for band in bands:
        text.append(say("figure_band", lang, x=variable, low=number(band.get_x(), lang),
                        high=number(band.get_x() + band.get_width(), lang)))
    return alt, " ".join(text)


def labelled(ticks, low, high):
    """The first and last of an axis's labelled ticks (what a reader of the figure sees
    written), or its limits when fewer than two ticks show."""
    shown = [float(t) for t in ticks if low <= t <= high]
    return (min(shown), max(shown)) if len(shown) >= 2 else (low, high)


def name_of(line, lang):
    label = clean(line.get_label())
    return label if label and not label.startswith("_") else say("figure_unnamed", lang)


def style_of(line, lang):
    """How the line looks, in words (a reader matching the legend without its colours)."""
    words = []
    marker = line.get_marker()
    if marker in MARKERS:
        hollow = str(line.get_markerfacecolor()).lower() == "none"
        words.append(say(f"figure_marker_{MARKERS[marker]}", lang)
                     + (say("figure_hollow", lang) if hollow else ""))
    if line.get_linestyle() in LINES:
        words.append(say(f"figure_line_{LINES[line.get_linestyle()]}", lang))
    return listed(words, lang) or say("figure_line_solid", lang)


def visible(line, view, logx, logy):
    """The line's points inside the axes' limits, sorted by x: [(x, y)]."""
    x0, x1, y0, y1 = view
    pairs = [(float(x), float(y)) for x, y in zip(line.get_xdata(), line.get_ydata())]
    return sorted((x, y) for x, y in pairs if math.isfinite(x) and math.isfinite(y)
                  and x0 <= x <= x1 and y0 <= y <= y1 and (x > 0 or not logx) and (y > 0 or not logy))


def points_words(pairs, variable, lang):
    if not pairs:
        return say("figure_outside", lang)
    ys = [y for _, y in pairs]
    return say("figure_points", lang, n=len(pairs), x=variable, first=number(pairs[0][0], lang),
               last=number(pairs[-1][0], lang), low=number(min(ys), lang), high=number(max(ys), lang),
               median=number(statistics.median(ys), lang))


def above_words(points, level, view, logx, logy, lang):
    """Of the series of points, how many lie above a horizontal line."""
    if not points:
        return ""
    found = []
    for line in points:
        pairs = visible(line, view, logx, logy)
        above = sum(y > level for _, y in pairs)
        if above:
            found.append(say("figure_above_count", lang, label=name_of(line, lang), n=above, of=len(pairs)))
    if not found:
        return say("figure_none_above", lang)
    return say("figure_above", lang, found=listed(found, lang)) + say("figure_others_below", lang)


def curve_words(pairs, logx, logy, variable, lang):
    """A curve told in a few stretches: where it starts, then how it rises, falls or stays,
    to where (on log axes, as what power of the variable)."""
    if not pairs:
        return say("figure_outside", lang)
    if len(pairs) == 1:
        return say("figure_single", lang, y=number(pairs[0][1], lang), x=variable, at=number(pairs[0][0], lang))
    fx = math.log10 if logx else float
    fy = math.log10 if logy else float
    xs, ys = [fx(x) for x, _ in pairs], [fy(y) for _, y in pairs]
    span = (max(ys) - min(ys)) or 1.0
    if max(ys) - min(ys) <= 1e-9 * max(1.0, abs(max(ys))):
        return say("figure_constant", lang, y=number(pairs[0][1], lang), x=variable,
                   first=number(pairs[0][0], lang), last=number(pairs[-1][0], lang))
    corners = simplified(xs, ys)
    words = [say("figure_starts", lang, y=number(pairs[0][1], lang), x=variable, at=number(pairs[0][0], lang))]
    for start, end in itertools.pairwise(corners):
        y, at = number(pairs[end][1], lang), number(pairs[end][0], lang)
        rise = ys[end] - ys[start]
        if abs(rise) <= 0.05 * span:
            words.append(say("figure_stays", lang, y=number(pairs[start][1], lang), x=variable, at=at))
        elif end - start == 1:
            words.append(say("figure_jumps", lang, y=y, x=variable, since=number(pairs[start][0], lang), at=at))
        else:
            how = power_words(slope(xs[start:end + 1], ys[start:end + 1]), variable, lang) if logx and logy else ""
            key = "figure_rises" if rise > 0 else "figure_falls"
            words.append(say(key, lang, how=how, y=y, x=variable, at=at))
    return ", ".join(words)


def simplified(xs, ys):
    """The indices of the corners of the curve (Ramer-Douglas-Peucker, in the units of each
    axis's range), with a tolerance raised until at most SEGMENTS stretches remain."""
    width, height = (max(xs) - min(xs)) or 1.0, (max(ys) - min(ys)) or 1.0
    points = [(x / width, y / height) for x, y in zip(xs, ys)]
    tolerance = 0.1
    while True:
        corners = rdp(points, 0, len(points) - 1, tolerance)
        if len(corners) - 1 <= SEGMENTS:
            return corners
        tolerance *= 1.5


def rdp(points, first, last, tolerance):
    (ax, ay), (bx, by) = points[first], points[last]
    length = math.hypot(bx - ax, by - ay) or 1.0
    far, index = 0.0, None
    for i in range(first + 1, last):
        px, py = points[i]
        distance = abs((bx - ax) * (ay - py) - (ax - px) * (by - ay)) / length
        if distance > far:
            far, index = distance, i
    if index is None or far <= tolerance:
        return [first, last]
    return rdp(points, first, index, tolerance)[:-1] + rdp(points, index, last, tolerance)


def slope(xs, ys):
    """The least-squares slope of ys against xs."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    spread = sum((x - mx) ** 2 for x in xs) or 1.0
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / spread


def power_words(k, variable, lang):
    """On log-log axes, a stretch of slope k grows as variable**k: said as ε², 1/ε, ..."""
    whole = round(k)
    if abs(k - whole) > 0.25 or whole == 0:
        return say("figure_slope", lang, k=number(round(k, 1), lang))
    powers = {1: variable, 2: f"{variable}²", 3: f"{variable}³",
              -1: f"1/{variable}", -2: f"1/{variable}²", -3: f"1/{variable}³"}
    return say("figure_as", lang, power=powers.get(whole, f"{variable}^{whole}"))


# ---- a computation graph drawn by minigrad.draw.draw_graph ----

def graph_words(ax, nodes, lang):
    """`nodes`: what draw_graph drew, [{"name", "op", "data", "grad", "inputs"}], inputs first."""
    leaves = [n for n in nodes if not n["inputs"]]
    operations = [n for n in nodes if n["inputs"]]
    title = clean(ax.get_title()) or say("figure_graph_untitled", lang)
    alt = say("figure_alt_graph", lang, title=title, nodes=len(nodes), operations=len(operations))

    def value(node):
        text = number(node["data"], lang)
        if node["grad"] is not None:
            text += say("figure_graph_grad", lang, grad=number(node["grad"], lang))
        return text

    def formula(node):
        if len(node["inputs"]) == 2:
            return f"{node['inputs'][0]} {node['op']} {node['inputs'][1]}"
        return f"{node['op']}({', '.join(node['inputs'])})"

    users = {}
    for node in operations:
        for input_ in dict.fromkeys(node["inputs"]):
            users.setdefault(input_, []).append(node["name"])
    shared = [say("figure_graph_feeds", lang, name=name, users=listed(used, lang))
              for name, used in users.items() if len(used) > 1]
    text = say("figure_graph", lang,
               leaves=listed((f"{n['name']} = {value(n)}" for n in leaves), lang),
               operations="; ".join(f"{n['name']} = {formula(n)} = {value(n)}" for n in operations))
    if shared:
        text += " " + say("figure_graph_shared", lang, shared="; ".join(shared))
    return alt, text
