"""Build the course website: `python -m authoring site` writes `_site/`.

The site is made with Sphinx and myst-nb from what the build already made: each unit's
page is its release notebook (what a student starts from), with the outputs of the
executed source notebook kept only for cells that never touch a solution (so figures
show, answers do not). The guides are the Markdown files of docs/. English and Spanish
are two Sphinx projects with the same pages, `_site/en/` and `_site/es/`; every page
opens with "English · Español", a link to the same page in the other language.

Nothing is fetched: MathJax comes from the `sphinx-mathjax-offline` package and is
copied into the site, and the theme (Furo) ships its own files.
"""
import ast
import copy
import json
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

from course.i18n import MESSAGES, say
from course.names import DEFAULT_LANGUAGE, LANGUAGES, UNITS

ROOT = Path(__file__).resolve().parent.parent
LANGUAGE_NAMES = {"en": "English", "es": "Español"}
# outputs a reader may see: figures and text; never evidence for the grader, never errors
SHOWN_MIME = ("image/png", "image/jpeg", "image/svg+xml", "text/plain", "text/html", "text/latex")


def statements(source):
    """The cell's top-level statements as (names read, names defined); None when the
    cell is not Python (IPython magics aside)."""
    tree = parse(source)
    return None if tree is None else [names(statement) for statement in tree.body]


def parse(source):
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError:
        return None


def base_name(node):
    """`rows` for rows["fp16"].append, rows.x, rows[0]; None for anything else."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def names(statement):
    """(names it reads, names it may change): assigned names, and the objects it
    assigns into or calls a method of (`rows[k] = ...`, `rows[k].append(...)`)."""
    loads, stores, changed = set(), set(), set()
    for node in ast.walk(statement):
        if isinstance(node, ast.Name):
            (loads if isinstance(node.ctx, ast.Load) else stores).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stores.add(node.name)
        elif isinstance(node, ast.arg):
            stores.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            stores.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.Attribute, ast.Subscript)) and not isinstance(node.ctx, ast.Load):
            changed.add(base_name(node))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            changed.add(base_name(node.func.value))
    changed = (changed - {None}) | stores
    if isinstance(statement, ast.Assign):
        # `x = f(x)` reads the old x: only the value's names are read
        value_loads = {n.id for n in ast.walk(statement.value) if isinstance(n, ast.Name)}
        return value_loads | (loads - stores), changed
    if isinstance(statement, ast.AugAssign):
        return loads | stores, changed
    # loop variables, arguments, locals of a function: bound inside the statement
    return loads - stores, changed


def solution_free_outputs(source_nb):
    """{cell id: outputs} for the code cells whose results owe nothing to a solution.

    A solution defines names; a statement that reads one depends on the solution, and
    so do the names it defines, until a statement that does not depend on one defines
    them again. A cell with any such statement shows no output; graded cells
    (solutions, tests) never do."""
    tainted, shown = set(), {}
    modules = {alias.asname or alias.name.split(".")[0]
               for cell in source_nb.cells if cell.cell_type == "code"
               for node in ast.walk(parse(cell.source) or ast.Module(body=[], type_ignores=[]))
               if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
    for cell in source_nb.cells:
        if cell.cell_type != "code":
            continue
        role = cell.metadata.get("nbgrader", {})
        found = statements(cell.source)
        graded = role.get("solution") or role.get("grade")
        depends = graded or found is None
        for reads, changes in found or []:
            if graded or reads & tainted:
                tainted |= changes - modules
                depends = True
            else:
                tainted -= changes
        if not depends:
            shown[cell.id] = [output for output in (shown_output(o) for o in cell.outputs) if output]
    return shown


def shown_output(output):
    kind = output.get("output_type")
    if kind == "stream":
        return output if output.get("name") == "stdout" else None
    if kind in ("display_data", "execute_result"):
        data = {mime: value for mime, value in output.get("data", {}).items() if mime in SHOWN_MIME}
        if not data:
            return None
        kept = copy.deepcopy(output)
        kept["data"] = data
        return kept
    return None


def unit_page(root, unit, lang):
    """The release notebook of a unit, with the solution-free outputs of its source
    and, after the title, how to start it."""
    assignment = f"{unit}-{lang}"
    page = nbformat.read(root / "release" / assignment / f"{unit}.ipynb", 4)
    outputs = solution_free_outputs(nbformat.read(root / "source" / assignment / f"{unit}.ipynb", 4))
    for cell in page.cells:
        if cell.cell_type == "code":
            cell.outputs = outputs.get(cell.id, [])
            cell.execution_count = None
        elif "after" in cell.metadata.get("course", {}):  # what a prediction's measurement showed
            cell.source = say("site_after_prediction", lang)
    start = nbformat.v4.new_markdown_cell(
        "````{admonition} " + say("site_start_title", lang) + "\n:class: tip\n\n"
        + say("site_start_body", lang, assignment=assignment) + "\n````")
    start.id = "course-start-here"
    page.cells.insert(1, start)
    page.metadata.pop("course", None)
    return page


# a guide holding what students must not read (a rubric, say) carries this line, alone
PRIVATE = "<!-- instructors only: not on the website -->"


def guides(root, lang):
    """{page path in the site (no suffix): Markdown file} for the guides in `lang`:
    docs/<lang>/NAME.md -> docs/NAME, docs/NAME.md (one language only) -> NAME.
    A guide with the PRIVATE line is left out."""
    found = [(path.stem, path) for path in sorted((root / "docs").glob("*.md"))]
    found += [(f"docs/{path.stem}", path) for path in sorted((root / "docs" / lang).glob("*.md"))]
    return {page: path for page, path in found
            if PRIVATE not in (line.strip() for line in path.read_text(encoding="utf-8").splitlines())}


# the guides in the order of the roles: students, instructors, authors; others after them
GUIDE_ORDER = ["docs/index", "docs/student", "docs/instructor", "docs/classroom", "docs/grading",
               "docs/scaling", "docs/deploy", "docs/operations", "docs/threat-model", "docs/authoring",
               "docs/hidden-tests", "glossary", "docs/accessibility"]


def guide_order(page):
    return (GUIDE_ORDER.index(page) if page in GUIDE_ORDER else len(GUIDE_ORDER), page)


def index_page(root, lang):
    unit_titles = []
    for unit in UNITS:
        nb = nbformat.read(root / "release" / f"{unit}-{lang}" / f"{unit}.ipynb", 4)
        first = next(c.source for c in nb.cells if c.cell_type == "markdown")
        title = first.splitlines()[0].lstrip("# ").strip()
        unit_titles.append(f"- [{title}](units/{unit}.ipynb)")
    guide_pages = guides(root, lang)
    return "\n".join([
        f"# {say('site_title', lang)}", "",
        say("site_intro", lang), "",
        f"## {say('site_units', lang)}", "",
        *unit_titles, "",
        say("site_units_note", lang), "",
        f"## {say('site_guides', lang)}", "",
        say("site_guides_note", lang), "",
        "```{toctree}", ":hidden:", f":caption: {say('site_units', lang)}", "",
        *[f"units/{unit}" for unit in UNITS], "```", "",
        "```{toctree}", ":hidden:", f":caption: {say('site_guides', lang)}", "",
        *sorted(guide_pages, key=guide_order), "```", "",
    ])


CONF = '''\
# Written by `python -m authoring site`; edit authoring/site.py instead.
import sys
sys.path.insert(0, {root!r})
from authoring.site import sphinx_setup as setup

project = {project!r}
language = {lang!r}
extensions = ["myst_nb", "sphinx-mathjax-offline"]
html_theme = "furo"
html_static_path = ["_static"]
html_js_files = ["course-keyboard.js"]
templates_path = ["_templates"]
html_title = {project!r}
html_copy_source = False
html_show_sourcelink = False
html_permalinks = False
html_show_copyright = False
locale_dirs = ["locales"]
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
nb_execution_mode = "off"
nb_merge_streams = True
suppress_warnings = ["myst.header"]
exclude_patterns = []
course_language = {lang!r}
course_other_pages = {other_pages!r}
'''


def sphinx_setup(app):
    """Sphinx hook (used by the generated conf.py): the language switch on every page."""
    app.add_config_value("course_language", DEFAULT_LANGUAGE, "html")
    app.add_config_value("course_other_pages", [], "html")
    app.connect("html-page-context", add_language_switch)
    app.connect("doctree-resolved", mark_glossary_languages)
    return {"parallel_read_safe": True}


def mark_glossary_languages(app, doctree, docname):
    """The glossary is written once for both sites, in both languages (docs/glossary.md): each of
    its parts says its language (WCAG 3.1.2), a screen reader then reading each in its own. Each
    paragraph comes in English, then in Spanish; a heading is "English / Spanish"; a table's
    columns are in the languages GLOSSARY_COLUMNS gives their headings. Docutils writes a class
    "language-xx" as lang="xx"."""
    from docutils import nodes

    if docname != "glossary":
        return
    for section in doctree.findall(nodes.section):
        paragraphs = [child for child in section.children if isinstance(child, nodes.paragraph)]
        for index, paragraph in enumerate(paragraphs):
            paragraph["classes"].append(f"language-{LANGUAGES[index % 2]}")
        title = section.next_node(nodes.title)
        text = title.astext() if title is not None else ""
        if " / " in text and len(title.children) == 1 and isinstance(title[0], nodes.Text):
            english, spanish = text.split(" / ", 1)
            title.children = [nodes.inline(english, english, classes=["language-en"]), nodes.Text(" / "),
                              nodes.inline(spanish, spanish, classes=["language-es"])]
    for table in doctree.findall(nodes.table):
        head = table.next_node(nodes.thead)
        columns = [entry.astext().strip().lower() for entry in head.next_node(nodes.row).children] if head else []
        for row in table.findall(nodes.row):
            for lang, entry in zip(columns, row.children):
                if lang in GLOSSARY_COLUMNS:
                    entry["classes"].append(f"language-{GLOSSARY_COLUMNS[lang]}")


# the glossary's table headings -> the language of their column (its regular expressions: none)
GLOSSARY_COLUMNS = {"en": "en", "es": "es", "note": "en", "write instead": "es", "why": "en"}


# Furo's sidebar tree (furo/theme/furo/sidebar/navigation.html), overridden where Furo lets a
# site override its sidebar's templates: Sphinx writes a toctree's caption ("Units", "Guides") as
# <p class="caption" role="heading"> without the level that role requires (WCAG 4.1.2; axe's
# aria-required-attr), so the tree is shown with each caption given one
SIDEBAR_TREE = """{#- Written by `python -m authoring site` (authoring/site.py) -#}
<div class="sidebar-tree">
  {{ furo_navigation_tree | replace('<p class="caption" role="heading">',
                                    '<p class="caption" role="heading" aria-level="2">') }}
</div>
"""


def add_language_switch(app, pagename, templatename, context, doctree):
    """Prepend "English · Español" to the page; the other language links to the same
    page in the other site (its index when that language has no such page)."""
    lang = app.config.course_language
    up = "../" * (pagename.count("/") + 1)
    parts = []
    for other in LANGUAGES:
        if other == lang:
            parts.append(f'<strong lang="{other}">{LANGUAGE_NAMES[other]}</strong>')
        else:
            target = pagename if pagename in app.config.course_other_pages else "index"
            parts.append(f'<a class="language-switch-link" href="{up}{other}/{target}.html" '
                         f'hreflang="{other}" lang="{other}">{LANGUAGE_NAMES[other]}</a>')
    switch = '<p class="language-switch">' + " · ".join(parts) + "</p>\n"
    context["body"] = switch + context.get("body", "")


# the theme's own words that Furo has no Spanish for (Sphinx's are translated already)
THEME_WORDS = {
    "es": {"Next": "Siguiente", "Previous": "Anterior", "Back to top": "Volver arriba",
           "On this page": "En esta página", "Made with ": "Hecho con ",
           '<a href="https://www.sphinx-doc.org/">Sphinx</a> and ':
               '<a href="https://www.sphinx-doc.org/">Sphinx</a> y '},
}


def write_theme_words(lang, folder):
    """A message catalog for the theme's words in `lang` (Sphinx's locale_dirs)."""
    from babel.messages.catalog import Catalog
    from babel.messages.mofile import write_mo

    catalog = Catalog(locale=lang, domain="sphinx")
    for english, translated in THEME_WORDS.get(lang, {}).items():
        catalog.add(english, translated)
    target = folder / "locales" / lang / "LC_MESSAGES"
    target.mkdir(parents=True)
    with open(target / "sphinx.mo", "wb") as mo:
        write_mo(mo, catalog)


# What scrolls, code or an output wider than the page, needs a tab stop for a keyboard to scroll
# it (WCAG 2.1.1; axe's scrollable-region-focusable): each such box gets one, with a name that
# says what it is, and loses it when a wider window shows it whole.
KEYBOARD_JS = """// Written by `python -m authoring site` (authoring/site.py).
(function () {
  var names = %s;
  function mark() {
    document.querySelectorAll("pre, .cell_output .output, .table-wrapper").forEach(function (box) {
      var scrolls = box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1;
      if (scrolls && !box.hasAttribute("tabindex")) {
        box.setAttribute("tabindex", "0");
        box.setAttribute("role", "group");
        box.setAttribute("aria-label", box.closest(".cell_output") ? names.output : names.code);
        box.dataset.courseScrolls = "yes";
      } else if (!scrolls && box.dataset.courseScrolls) {
        ["tabindex", "role", "aria-label", "data-course-scrolls"].forEach(function (name) {
          box.removeAttribute(name);
        });
      }
    });
  }
  var waiting;
  window.addEventListener("resize", function () { clearTimeout(waiting); waiting = setTimeout(mark, 200); });
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", mark); } else { mark(); }
  window.addEventListener("load", mark);
})();
"""


def write_keyboard_js(lang, folder):
    names = {"code": say("site_scrolls_code", lang), "output": say("site_scrolls_output", lang)}
    (folder / "_static").mkdir(exist_ok=True)
    (folder / "_static" / "course-keyboard.js").write_text(KEYBOARD_JS % json.dumps(names, ensure_ascii=False),
                                                            encoding="utf-8")


def titled(page, text, lang):
    """A page written once for both languages (docs/glossary.md) gets its title in `lang`, so
    that every title of a language's site is in that language."""
    key = f"site_page_{page}"
    if key not in MESSAGES or not text.startswith("# "):
        return text
    return f"# {say(key, lang)}" + text[text.index("\n"):]


def stage(root, lang, folder):
    """Write the Sphinx project of one language into `folder`; return its page names."""
    if folder.exists():
        shutil.rmtree(folder)
    (folder / "units").mkdir(parents=True)
    (folder / "index.md").write_text(index_page(root, lang), encoding="utf-8")
    write_theme_words(lang, folder)
    write_keyboard_js(lang, folder)
    (folder / "_templates" / "sidebar").mkdir(parents=True)
    (folder / "_templates" / "sidebar" / "navigation.html").write_text(SIDEBAR_TREE, encoding="utf-8")
    pages = ["index"]
    for unit in UNITS:
        nbformat.write(unit_page(root, unit, lang), folder / "units" / f"{unit}.ipynb")
        pages.append(f"units/{unit}")
    for page, path in guides(root, lang).items():
        target = folder / f"{page}.md"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(titled(page, path.read_text(encoding="utf-8"), lang), encoding="utf-8")
        pages.append(page)
    return pages


ROOT_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Autograd by Hand · Autograd a mano</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 4em auto">
<p class="language-switch"><a href="en/index.html" hreflang="en" lang="en">English</a> ·
<a href="es/index.html" hreflang="es" lang="es">Español</a></p>
<h1><span lang="en">Autograd by Hand</span> · <span lang="es">Autograd a mano</span></h1>
</body></html>
"""


def build_site(root=ROOT, out=None, quiet=True):
    """Build the website of the course in `root` into `out` (default root/_site): stage
    each language's Sphinx project in _build/site/<lang>/, build both at once (one
    Sphinx process each), then gather them with a bilingual front page."""
    out = Path(out).resolve() if out else root / "_site"
    work = (root / "_build" if out == root / "_site" else out.parent / f"{out.name}.build") / "site"
    pages = {lang: stage(root, lang, work / lang / "src") for lang in LANGUAGES}
    builds = {}
    for lang in LANGUAGES:
        other = [page for other_lang in LANGUAGES if other_lang != lang for page in pages[other_lang]]
        conf = CONF.format(root=str(ROOT), project=say("site_title", lang), lang=lang, other_pages=other)
        (work / lang / "src" / "conf.py").write_text(conf, encoding="utf-8")
        html = work / lang / "html"
        if html.exists():
            shutil.rmtree(html)
        builds[lang] = subprocess.Popen(
            [sys.executable, "-m", "sphinx", "-b", "html", "-E", *(["-q"] if quiet else []),
             "-d", str(work / lang / "doctrees"), str(work / lang / "src"), str(html)])
    failed = [lang for lang, process in builds.items() if process.wait() != 0]
    if failed:
        raise SystemExit(f"the site did not build ({', '.join(failed)}): see Sphinx's messages above")
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for lang in LANGUAGES:
        shutil.copytree(work / lang / "html", out / lang)
    (out / "index.html").write_text(ROOT_PAGE, encoding="utf-8")
    return out
