"""The course website (`python -m authoring site`): it builds from the repository,
shows every unit in both languages without a solution, a hidden test or a reference,
its links resolve, and its language switch lands on the same page in a browser."""
import os
import re
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pytest
from support.axe import AXE_MISSING, audit, axe_script, report
from support.predictions import ANSWERS, stated
from support.servers import free_port

from course.names import LANGUAGES, UNITS

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"

SHORTEST = 12  # shorter solution lines ("return x") are too common to mean anything


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    """The site as the documented command builds it (one build for every test)."""
    out = tmp_path_factory.mktemp("website") / "_site"
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "authoring", "site", "--out", str(out)],
                   cwd=ROOT, check=True, timeout=600)
    print(f"site built in {time.monotonic() - started:.1f} s")
    return out


class Page(HTMLParser):
    """A page's text (what a reader sees or a search finds), its links and its ids."""

    def __init__(self, path):
        super().__init__(convert_charrefs=True)
        self.text, self.links, self.ids, self.resources = [], [], set(), []
        self.feed(Path(path).read_text(encoding="utf-8"))

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        for name in ("src", "href"):
            if attrs.get(name) and (tag != "a"):
                self.resources.append(attrs[name])

    def handle_data(self, data):
        self.text.append(data)


def normal(text):
    """Text as compared: Markdown and math marks dropped, whitespace collapsed."""
    text = re.sub(r"[`*$]|\\\(|\\\)", "", text)
    return " ".join(text.split())


def between(source, begin, end):
    lines, inside = [], False
    for line in source.splitlines():
        if line.strip().startswith(begin):
            inside = True
        elif line.strip().startswith(end):
            inside = False
        elif inside:
            lines.append(line)
    return lines


def secrets(root=ROOT):
    """Every line of a solution (nbgrader's solution regions and answer cells), of a
    hidden test, and of lab 03's reference gradcheck, that the release does not show."""
    public = normal(" ".join(cell.source for path in root.glob("release/*/*.ipynb")
                             for cell in nbformat.read(path, 4).cells))
    lines = []
    for path in root.glob("source/*/*.ipynb"):
        for cell in nbformat.read(path, 4).cells:
            role = cell.metadata.get("nbgrader", {})
            if role.get("solution"):
                solution = between(cell.source, "### BEGIN SOLUTION", "### END SOLUTION")
                lines += solution if "### BEGIN SOLUTION" in cell.source else cell.source.splitlines()
            if role.get("grade") and cell.cell_type == "code":
                lines += between(cell.source, "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS")
    lines += (root / "grader" / "gradcheck.py").read_text().splitlines()
    # nbval's marker is a directive, not an answer
    return {normal(line) for line in lines if len(normal(line)) >= SHORTEST
            and normal(line) not in public and not line.strip().startswith("# NBVAL")}


def site_text(site):
    """{file: its text} for everything in the site a reader or a search could see
    (the theme's and MathJax's own files aside)."""
    texts = {}
    for path in site.rglob("*"):
        if not path.is_file() or "_static" in path.relative_to(site).parts:
            continue
        if path.suffix == ".html":
            texts[path] = normal(" ".join(Page(path).text))
        elif path.suffix in (".js", ".txt", ".json", ".ipynb", ".md", ".inv", ".py"):
            texts[path] = normal(path.read_text(encoding="utf-8", errors="replace"))
    return texts


def leaks(site, lines):
    return sorted((str(path.relative_to(site)), line)
                  for path, text in site_text(site).items() for line in lines if line in text)


def broken_links(site):
    """Links and resources inside the site that lead nowhere: (page, link)."""
    pages = {path.resolve(): Page(path) for path in site.rglob("*.html")}
    broken = []
    for path, page in pages.items():
        for link in page.links + page.resources:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc:
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file() or site.resolve() not in target.parents or parts.fragment and target in pages and parts.fragment not in pages[target].ids:
                broken.append((str(path.relative_to(site.resolve())), link))
    return broken


def title(unit, lang):
    nb = nbformat.read(ROOT / "release" / f"{unit}-{lang}" / f"{unit}.ipynb", 4)
    first = next(cell.source for cell in nb.cells if cell.cell_type == "markdown")
    return first.splitlines()[0].lstrip("# ").strip()


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("unit", UNITS)
def test_every_unit_in_both_languages(site, unit, lang):
    page = Page(site / lang / "units" / f"{unit}.html")
    text = normal(" ".join(page.text))
    other = "es" if lang == "en" else "en"
    assert normal(title(unit, lang)) in text
    assert f"../../{other}/units/{unit}.html" in page.links, "no language switch to the same page"
    assert text.startswith("English · Español") or "English · Español" in text[:2000]
    assert f"python -m course start {unit}-{lang}" in text
    assert ("Back to top" if lang == "en" else "Volver arriba") in text  # the theme's words too
    # equations and MathJax, served by the site itself
    assert "\\frac" in text or "\\partial" in text or "\\varepsilon" in text
    assert "../_static/mathjax/tex-chtml.js" in page.resources
    assert (site / lang / "_static" / "mathjax" / "tex-chtml.js").is_file()
    external = [r[:80] for r in page.resources if urlsplit(r).scheme not in ("", "data")]  # data: is inline
    assert not external, f"the page loads {external}"


def test_figures_without_solutions(site):
    """The figures that owe nothing to an answer are there (the graph drawings of
    theory 03, the figure of relu's kink in lab 03), inside the page with their words
    (course/figures.py); the fp32/fp16 error plot of lab 01 plots the student's gradients, so
    it is not."""
    images = {unit: len([r for r in Page(site / "en" / "units" / f"{unit}.html").resources
                         if r.startswith("data:image/png;base64,") or "_images/" in r]) for unit in UNITS}
    assert images["theory03"] >= 2 and images["lab03"] >= 1
    assert images["lab01"] == 0


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_unit_page_states_what_a_prediction_measures(site, lang):
    """A reader of the site has recorded no prediction: no page may state an outcome (the
    measurements' outputs depend on the prediction and are left out; so is the prose after them)."""
    found = []
    for unit in UNITS:
        text = " ".join(Page(site / lang / "units" / f"{unit}.html").text)
        found += [(unit, grade_id, stated(text, grade_id)) for grade_id in ANSWERS
                  if grade_id.startswith(f"{unit}-") and stated(text, grade_id)]
    print(f"{len(UNITS)} unit pages ({lang}) read against {len(ANSWERS)} predictions: {len(found)} outcomes stated")
    assert not found, found


def test_no_solution_hidden_test_or_reference_in_site(site):
    lines = secrets()
    assert len(lines) > 100, "the search would prove nothing"
    found = leaks(site, lines)
    print(f"searched {len(site_text(site))} files for {len(lines)} lines of solutions, hidden tests "
          f"and reference: {len(found)} found")
    assert not found


def test_the_search_finds_a_planted_solution(site, tmp_path):
    """The no-solution search can fail: a solution line planted in a page is found."""
    line = min(secrets())
    (tmp_path / "page.html").write_text(f"<html><body><pre><span>{line}</span></pre></body></html>")
    assert leaks(tmp_path, {line}) == [("page.html", line)]


def test_links_resolve(site):
    broken = broken_links(site)
    print(f"{sum(len(Page(p).links) for p in site.rglob('*.html'))} links checked")
    assert not broken


def test_the_link_check_finds_a_broken_link(tmp_path):
    (tmp_path / "a.html").write_text('<a href="b.html">ok</a> <a href="missing.html">gone</a>'
                                     ' <a href="b.html#nowhere">no anchor</a>')
    (tmp_path / "b.html").write_text('<p id="here">b</p>')
    assert broken_links(tmp_path) == [("a.html", "missing.html"), ("a.html", "b.html#nowhere")]


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Chromium is missing (apt-get install chromium)")
def test_language_switch_in_a_browser(site):
    """From a local web server: an English unit page, its equations typeset by the
    site's own MathJax, "Español" leads to the same unit in Spanish, and back."""
    from playwright.sync_api import Error, sync_playwright

    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                               "--directory", str(site)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    shots = os.environ.get("SITE_SCREENSHOTS")
    try:
        base = f"http://127.0.0.1:{port}"
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                         args=["--no-sandbox", "--disable-dev-shm-usage"])
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            requests = []
            page.on("request", lambda request: requests.append(request.url))
            for attempt in range(50):  # the server takes a moment to listen
                try:
                    page.goto(f"{base}/en/units/theory03.html")
                    break
                except Error:
                    time.sleep(0.2)
            assert page.locator("h1").first.inner_text().startswith(title("theory03", "en")[:10])
            page.wait_for_selector("mjx-container", timeout=30_000)
            if shots:
                page.screenshot(path=f"{shots}/theory03-en.png")
            page.click("p.language-switch a:has-text('Español')")
            page.wait_for_url(f"{base}/es/units/theory03.html")
            assert page.locator("h1").first.inner_text().startswith(title("theory03", "es")[:10])
            assert "python -m course start theory03-es" in page.inner_text("body")
            page.wait_for_selector("mjx-container", timeout=30_000)
            if shots:
                page.screenshot(path=f"{shots}/theory03-es.png")
            page.click("p.language-switch a:has-text('English')")
            page.wait_for_url(f"{base}/en/units/theory03.html")
            browser.close()
        outside = [url for url in requests if not url.startswith(base)]
        assert not outside, f"the site fetched {outside}"
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_a_private_guide_stays_off_the_site(tmp_path):
    from authoring.site import PRIVATE, guides
    (tmp_path / "docs" / "en").mkdir(parents=True)
    (tmp_path / "docs" / "en" / "rubric.md").write_text(f"# Rubric\n\n{PRIVATE}\n\nthe model answer\n")
    (tmp_path / "docs" / "en" / "open.md").write_text(f"# Open\n\nMark a private guide with `{PRIVATE}`.\n")
    assert list(guides(tmp_path, "en")) == ["docs/open"]


def test_outputs_that_owe_something_to_a_solution_are_dropped():
    """A cell shows its output only when nothing it reads comes from a solution: not
    through a name, a name assigned from one, nor an object a solution's result was
    put into; a name assigned again without one is clean again."""
    from authoring.site import solution_free_outputs

    def cell(source, role=None):
        new = nbformat.v4.new_code_cell(source)
        new.outputs = [nbformat.v4.new_output("stream", name="stdout", text=source)]
        if role:
            new.metadata["nbgrader"] = {"solution": role == "solution", "grade": role == "tests"}
        return new

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        cell("import math\nrows = []\nx = 2.0\nprint(math.tau)"),                 # 0 shown
        cell("def answer(v):\n    return 3 * v", "solution"),                     # 1 solution
        cell("assert answer(1) == 3", "tests"),                                   # 2 test
        cell("y = answer(x)\nprint(y)"),                                          # 3 reads answer
        cell("print(y + 1)"),                                                     # 4 reads y
        cell("for v in (1, 2):\n    rows.append(answer(v))"),                     # 5 fills rows
        cell("print(len(rows))"),                                                 # 6 reads rows
        cell("y = 5\nprint(x, y, math.pi)"),                                      # 7 y clean again
        cell("%matplotlib inline\nprint(y)"),                                     # 8 magic, clean
    ]
    for number, each in enumerate(nb.cells):
        each.id = f"c{number}"
    shown = solution_free_outputs(nb)
    assert sorted(shown) == ["c0", "c7", "c8"]


def navigation(site, lang):
    """[(link, title)] of the site's navigation (the theme's sidebar), in its order."""
    html = (site / lang / "index.html").read_text(encoding="utf-8")
    tree = html.split('class="sidebar-tree"', 1)[1]
    return [(href, normal(re.sub(r"<[^>]+>", "", title))) for href, title in re.findall(
        r'<li class="toctree-l1[^"]*"><a class="reference internal" href="([^"]+)">(.*?)</a>', tree)]


def test_navigation_in_teaching_order_and_in_each_language(site):
    """Units come in the order they are taught (lab 01 builds on theory 03's diamond), and no
    title of one language's navigation is the other language's: every page is titled in the
    language of its site."""
    teaching_order = ["units/theory03.html", "units/lab01.html", "units/lab03.html"]
    titles = {}
    for lang in LANGUAGES:
        nav = navigation(site, lang)
        print(lang, nav)
        assert [href for href, _ in nav if href.startswith("units/")] == teaching_order
        titles[lang] = dict(nav)
    assert titles["en"].keys() == titles["es"].keys()
    same = [(href, title) for href, title in titles["es"].items() if title == titles["en"][href]]
    assert not same, f"titled alike in both languages: {same}"


NARROW = ["scrollable-region-focusable"]


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Chromium is missing (apt-get install chromium)")
def test_every_page_passes_axe_in_both_languages(site):
    """axe-core at WCAG 2.1 A and AA on every page of the site, in both languages, from a local web
    server in Chromium, once its math is typeset: no violation, at a desktop's width; and at a
    phone's, on the units (where code scrolls most), none of what a width changes. Each page declares its language, and every image's
    alt text is words (a figure's, computed from its numbers), not its file's path."""
    from playwright.sync_api import sync_playwright

    if not axe_script():
        pytest.skip(AXE_MISSING)
    pages = sorted(path.relative_to(site).as_posix() for path in site.rglob("*.html")
                   if not {"_static", "_sources"} & set(path.relative_to(site).parts))
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                               "--directory", str(site)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    found, languages, images = {}, {}, []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                         args=["--no-sandbox", "--disable-dev-shm-usage"])
            widths = {"desktop": 1280, "phone": 390}
            for name, width in widths.items():
                page = browser.new_page(viewport={"width": width, "height": 900})
                for attempt in range(50):  # the server takes a moment to listen
                    try:
                        page.goto(f"http://127.0.0.1:{port}/index.html")
                        break
                    except Exception:  # noqa: BLE001 (Playwright's connection refused)
                        time.sleep(0.2)
                for path in pages if name == "desktop" else [p for p in pages if "/units/" in p]:
                    page.goto(f"http://127.0.0.1:{port}/{path}")
                    page.evaluate("() => window.MathJax && MathJax.startup ? MathJax.startup.promise : null")
                    # narrower, only what a width changes: which boxes scroll
                    found[f"{path} ({name})"] = audit(page, rules=None if name == "desktop" else NARROW)
                    languages[path] = page.evaluate("() => document.documentElement.lang")
                    images += page.locator("img").evaluate_all(
                        "els => els.map(e => [e.getAttribute('alt'), e.getAttribute('src').slice(0, 60)])")
                page.close()
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
    print(f"{len(found)} pages audited ({len(pages)} at a desktop's width), "
          f"{sum(map(len, found.values()))} violations; {len(images)} images:", [alt for alt, _ in images])
    assert len(pages) >= 2 * len(UNITS) + 2
    assert not any(found.values()), "\n".join(line for where, violations in found.items()
                                              for line in report(where, violations))
    assert {path: lang for path, lang in languages.items() if path.split("/")[0] not in (lang, "index.html")} == {}
    assert images and all(alt and not alt.startswith(("../", "_images")) and src not in alt
                          for alt, src in images), images


def test_the_glossary_says_the_language_of_each_part(site):
    """The glossary, one page in both languages on both sites: each paragraph, heading part and
    table column is marked with its language (WCAG 3.1.2), so a screen reader reads each in it."""
    for lang in LANGUAGES:
        text = (site / lang / "glossary.html").read_text(encoding="utf-8")
        body = text[text.index('<article'):]
        marked = {other: len(re.findall(rf'<(?:p|td|th|span) lang="{other}"', body)) for other in LANGUAGES}
        print(lang, "parts marked:", marked)
        assert re.search(r'<p lang="es">Un único glosario', body) and re.search(r'<p lang="en">One bilingual', body)
        assert '<span lang="es">Común</span>' in body and '<span lang="en">Shared</span>' in body
        assert re.search(r'<td lang="es"><p>pasada hacia delante</p>', body), body[:2000]
        assert re.search(r'<td lang="en"><p>forward pass</p>', body)
