"""axe-core, the accessibility rules engine, run inside a page of Debian's Chromium (Playwright).

axe-core comes from npm, installed beside the checkout by `.ci/run`
(`npm install --prefix .ci/axe axe-core@4.14.1`; or the file AXE_CORE names); nothing is fetched
while the tests run. `audit(page)` injects it into the page and returns the violations of
WCAG 2.1 levels A and AA: [{"id", "impact", "help", "nodes": [{"target", "html"}]}].

What is upstream JupyterLab's (not the course's to fix) is listed in `UPSTREAM`, each with the
issue that tracks it and the elements it is found on; `unexpected` keeps every other violation,
so a new one, the course's or upstream's, fails the test that reads it.
"""
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VERSION = "4.14.1"
INSTALLED = ROOT / ".ci" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
AXE_MISSING = f"axe-core is not installed (`npm install --prefix .ci/axe axe-core@{VERSION}`; .ci/run does it)"


# JupyterLab's own violations (4.5), none of them the course's to fix: (rule, where it is found, the
# upstream issue). Each is matched on the element axe names, so that anything else, or the same
# rule elsewhere, fails the test that reads an audit.
JUPYTERLAB = [
    ("aria-allowed-attr", r"<jp-button [^>]*aria-pressed=",
     ("jupyterlab/jupyterlab#16891: aria-pressed on a toolbar's jp-button (Upload, File filter, Debugger, and "
      "Validate, which nbgrader makes with JupyterLab's ToolbarButton)")),
    ("aria-input-field-name", r"\.cm-content|class=\"cm-content",
     ("jupyterlab/jupyterlab#10347: a cell's editor (CodeMirror) has no name; CodeMirror leaves it to the "
      "application, codemirror/dev#1127")),
    ("aria-required-children", r"jp-WindowedPanel-viewport",
     "jupyterlab/jupyterlab#14765: the notebook's cells are a role=feed without its article children"),
    ("button-name", r"jp-collapseHeadingButton",
     ("a Markdown heading's collapse button has no name; under the open audit jupyterlab/jupyterlab#16890 "
      "(4.1.2 Name, Role, Value), where this button is not listed yet")),
]


def axe_script():
    """The path of axe.min.js, or None when it is not installed."""
    path = Path(os.environ.get("AXE_CORE", INSTALLED))
    return path if path.is_file() else None


def audit(page, within=None, rules=None):
    """The page's WCAG 2.1 A/AA violations, as axe-core reports them: of the whole page, or of what
    the CSS selector `within` matches; of every rule of those levels, or of `rules` only."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=axe_script().read_text(encoding="utf-8"))
    run_only = {"type": "rule", "values": rules} if rules else {"type": "tag", "values": TAGS}
    return page.evaluate(
        """async ([within, runOnly]) => {
            const result = await axe.run(within || document, {runOnly, resultTypes: ["violations"]});
            return result.violations.map(v => ({
                id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.map(n => ({target: n.target.join(" "), html: n.html.slice(0, 300)}))}));
        }""", [within, run_only])


def count(violations):
    """{rule id: how many elements}."""
    return {v["id"]: len(v["nodes"]) for v in violations}


def unexpected(violations, upstream=()):
    """The violations left once the `upstream` ones are set aside: [(rule, pattern, issue)],
    where a node of `rule` whose target or HTML matches `pattern` (a regular expression) is
    upstream's, tracked at `issue`."""
    left = []
    for violation in violations:
        nodes = [node for node in violation["nodes"]
                 if not any(rule == violation["id"] and (re.search(pattern, node["target"])
                                                         or re.search(pattern, node["html"]))
                            for rule, pattern, _ in upstream)]
        if nodes:
            left.append({**violation, "nodes": nodes})
    return left


def report(where, violations):
    """One line per violation, for the test's output."""
    return [f"{where}: {v['id']} ({v['impact']}) x{len(v['nodes'])}: {v['help']} — "
            f"{v['nodes'][0]['target']} {v['nodes'][0]['html'][:160]}" for v in violations]
