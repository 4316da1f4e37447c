"""What the course controls for a keyboard and a screen reader, checked without a browser: Validate's
failures are reachable by keyboard, JupyterLab's course settings keep notebooks readable zoomed in,
and the audit's list of JupyterLab's own violations sets aside only what it names. (The audits
themselves, axe-core in Chromium, run with the browser tests: test_site.py, test_report.py,
test_browser.py; tests/support/axe.py.)"""
import json
from html.parser import HTMLParser

from support.axe import JUPYTERLAB, unexpected

from course import server_settings, validate


def test_validates_failures_are_reachable_by_keyboard(monkeypatch, tmp_path):
    """nbgrader's dialog shows the failures in a box that scrolls when they are many; a keyboard
    scrolls it only through something that takes the focus: each failure does, its text escaped."""
    monkeypatch.setattr(validate, "structure", lambda notebook, release: [])
    monkeypatch.setattr(validate, "failures", lambda notebook, log=None, kernels=None: [
        ("Exercise 1 (theory03-forward)", "AssertionError: <script>x</script> returned 1"),
        ("Exercise 2 (theory03-gradients)", "NotImplementedError: write your code here")])
    answer = validate.check(tmp_path / "theory03-en" / "theory03.ipynb", release=tmp_path)
    focusable = []

    class Reader(HTMLParser):
        def handle_starttag(self, tag, attrs):
            focusable.append(dict(attrs).get("tabindex"))

    for failure in answer["failed"]:
        print(failure["error"])
        Reader().feed(failure["error"])
        assert "<script>" not in failure["error"] and "&lt;script&gt;" in failure["error"] or "NotImpl" in failure["error"]
    assert focusable == ["0", "0"]  # one tab stop per failure, nothing else
    assert answer["failed"][0]["raw_error"] == "AssertionError: <script>x</script> returned 1"


def test_the_courses_jupyterlab_wraps_long_lines_and_keeps_every_cell_in_the_page(tmp_path):
    """The course's JupyterLab defaults (course/server_settings.py), where JupyterLab reads defaults:
    lines wrap in every kind of cell (no sideways scrolling when zoomed in), cells stay attached."""
    server_settings.write_config(tmp_path)
    written = json.loads((tmp_path / "labconfig" / "default_setting_overrides.json").read_text())
    tracker = written["@jupyterlab/notebook-extension:tracker"]
    assert all(tracker[kind]["lineWrap"] for kind in ("codeCellConfig", "markdownCellConfig", "rawCellConfig"))
    assert tracker["windowingMode"] != "full"


def test_the_list_of_jupyterlabs_own_violations_sets_aside_only_what_it_names():
    """A rule of the list on another element, or a rule not on the list, stays a failure."""
    found = [
        {"id": "aria-required-children", "impact": "critical", "help": "",
         "nodes": [{"target": ".jp-WindowedPanel-viewport", "html": '<div role="feed" aria-label="Cells">'}]},
        {"id": "aria-allowed-attr", "impact": "critical", "help": "",
         "nodes": [{"target": ".validate-button", "html": '<jp-button aria-pressed="false" aria-label="Validate">'},
                   {"target": ".course-figure", "html": '<figure aria-pressed="true" class="course-figure">'}]},
        {"id": "image-alt", "impact": "critical", "help": "",
         "nodes": [{"target": ".jp-RenderedImage img", "html": '<img src="data:image/png;base64,iVBO">'}]},
    ]
    left = unexpected(found, JUPYTERLAB)
    assert [(v["id"], [n["target"] for n in v["nodes"]]) for v in left] == [
        ("aria-allowed-attr", [".course-figure"]), ("image-alt", [".jp-RenderedImage img"])]
    assert all("#" in issue for _, _, issue in JUPYTERLAB)  # each names its upstream issue
