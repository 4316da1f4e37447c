"""What student code produces is inert for the instructor: HTML, terminal, CSV."""
from html.parser import HTMLParser

import nbformat
import pytest

from grader.plugins.inert import MakeInert, clean_html, inert_output
from grader.sandbox.cgroups import KernelGroup
from grader.shared import for_spreadsheet, for_terminal


@pytest.mark.parametrize("payload", [
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "<svg onload=alert(1)>",
    "<a href='javascript:alert(1)'>x</a>", "<iframe src=//evil></iframe>",
    "<style>body{display:none}</style>", "<img src='/formgrader/api/submission/1'>",
])
def test_html_loses_everything_active(payload):
    text = clean_html(payload)
    for word in ("script", "onerror", "onload", "javascript", "iframe", "style", "src", "href"):
        assert word not in text, text


def test_outputs_keep_only_passive_kinds():
    output = nbformat.v4.new_output("display_data", data={
        "application/javascript": "alert(1)", "image/svg+xml": "<svg onload=alert(1)/>",
        "text/html": "<b>ok</b><script>x</script>", "text/plain": "ok"})
    data = inert_output(output)["data"]
    assert data == {"text/html": "<b>ok</b>", "text/plain": "ok"}
    only_js = inert_output(nbformat.v4.new_output("display_data", data={"application/javascript": "x"}))
    assert only_js["data"] == {"text/plain": "[removed by the grader: application/javascript]"}


PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="


def test_a_figure_keeps_its_image_and_its_words_as_alt_in_feedback():
    """A course figure (course/figures.py: HTML with an <img>, PNG, plain text): the grader keeps
    the PNG and gives it the plain text as its alt, which nbconvert writes escaped; the HTML,
    whose <img> the sanitizer removes, is dropped so that the image is what feedback shows.
    A hostile alt stays text."""
    from nbconvert import HTMLExporter

    hostile = 'tanh: the error\nfalls as 1/ε "><script>alert(1)</script><img src=x onerror=alert(2)>'
    output = nbformat.v4.new_output("display_data", data={
        "text/html": f'<figure><img src="data:image/png;base64,{PNG}" alt="x"><figcaption>y</figcaption></figure>',
        "image/png": PNG, "text/plain": hostile}, metadata={"image/png": {"alt": "ignored"}, "other": 1})
    kept = inert_output(output)
    assert sorted(kept["data"]) == ["image/png", "text/plain"]
    assert kept["metadata"] == {"image/png": {"alt": for_terminal(hostile)}}
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("figures.show(fig)")
    cell.outputs = [kept]
    nb.cells = [cell]
    page, _ = HTMLExporter(template_name="classic").from_notebook_node(nb)
    tags = []

    class Tags(HTMLParser):
        def handle_starttag(self, tag, attrs):
            tags.append((tag, dict(attrs)))

    Tags().feed(page.split("<body", 1)[1])
    images = [attrs for tag, attrs in tags if tag == "img"]
    print(images[0]["alt"])
    assert len(images) == 1 and images[0]["alt"] == for_terminal(hostile)
    assert images[0]["src"].startswith("data:image/png;base64,") and "onerror" not in images[0]
    assert "script" not in {tag for tag, _ in tags}
    # an image without words keeps no metadata; the size of a stated alt is capped
    bare = inert_output(nbformat.v4.new_output("display_data", data={"image/png": PNG}))
    assert bare["metadata"] == {}
    long = inert_output(nbformat.v4.new_output("display_data", data={"image/png": PNG, "text/plain": "w" * 10**5}))
    assert len(long["metadata"]["image/png"]["alt"]) == 3000


def test_student_cells_are_sanitized_but_locked_cells_are_not():
    student = nbformat.v4.new_markdown_cell("answer <img src=x onerror=alert(1)>")
    locked = nbformat.v4.new_markdown_cell("$a < b$ <b>instructor</b>")
    locked.metadata["nbgrader"] = {"locked": True}
    MakeInert().preprocess_cell(student, {}, 0)
    MakeInert().preprocess_cell(locked, {}, 1)
    assert "onerror" not in student.source and locked.source == "$a < b$ <b>instructor</b>"


def test_terminal_text_has_no_escape_sequences():
    text = for_terminal("\x1b[2J\x1b]0;title\x07\rforged\x9b1m line\x00")
    assert text == " forged1m line"


def test_terminal_text_stays_on_one_line():
    """Regression: newlines were kept, and a reason or an id printed a forged report row."""
    text = for_terminal("boom\nhonest                  12/12\r\nx\u2028y\tz")
    assert text == "boom honest                  12/12 x y z"


MARKDOWN_LINKS = ["![](http://a.test/x.png)", "[x](javascript:alert(1))", "[x][r]\n\n[r]: javascript:alert(1)",
                  "see http://a.test/ now", "![x](data:image/svg+xml;base64,PHN2Zz4=)",
                  "[x](<data:text/html,hi>)", "$\\href{javascript:alert(1)}{y}$ $\\require{foo}$"]


@pytest.mark.parametrize("text", MARKDOWN_LINKS)
def test_student_markdown_renders_with_no_link(text):
    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    from grader.plugins.inert import clean_markdown
    html = markdown2html_mistune(clean_markdown(text))
    assert "href" not in html and "src" not in html and "\\require" not in html, html


@pytest.mark.parametrize("field", ["=1+1", "+1", "-cmd", "@SUM(A1)", "\t=x", "\r=x"])
def test_spreadsheet_formulas_are_neutralized(field):
    assert for_spreadsheet(field).startswith("'")
    assert for_spreadsheet(3.5) == 3.5 and for_spreadsheet("ok") == "ok"


def test_cgroup_v2_delegation_writes_the_limits(tmp_path, monkeypatch):
    """The v2 path (this machine has v1), on a stand-in tree: the grader moves itself
    into a leaf, enables the controllers, and sets the kernel's limits."""
    monkeypatch.setattr("grader.sandbox.cgroups.own_path", lambda controller: "/user.slice/scope")
    base = tmp_path / "user.slice" / "scope"
    base.mkdir(parents=True)
    (tmp_path / "cgroup.controllers").write_text("memory pids")
    (base / "cgroup.controllers").write_text("memory pids")  # delegated to the grader's cgroup
    (base / "cgroup.subtree_control").write_text("")
    (base / "cgroup.procs").write_text("4242\n")
    group, why = KernelGroup.create(2 << 30, 512, root=tmp_path)
    assert why is None and group.version == 2
    assert (base / "course-grader" / "cgroup.procs").read_text() == "4242"
    assert (base / "cgroup.subtree_control").read_text() == "+memory +pids"
    assert (group.folders[0] / "memory.max").read_text() == str(2 << 30)
    assert (group.folders[0] / "pids.max").read_text() == "512"
    # the next submission's grading process (forked from the grader) lives in the leaf
    # now: its kernel's group goes beside the leaf, and nothing moves one level deeper
    monkeypatch.setattr("grader.sandbox.cgroups.own_path", lambda controller: "/user.slice/scope/course-grader")
    (base / "cgroup.subtree_control").write_text("memory pids")  # as the kernel shows it
    (base / "course-grader" / "cgroup.subtree_control").write_text("")
    second, why = KernelGroup.create(2 << 30, 512, root=tmp_path)
    assert why is None and second.folders[0].parent == base, second.folders
    assert not (base / "course-grader" / "course-grader").exists()


def test_no_cgroup_hierarchy_gives_a_reason(tmp_path):
    group, why = KernelGroup.create(1 << 30, 64, root=tmp_path)
    assert group is None and "no cgroup" in why
