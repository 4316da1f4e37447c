"""No import cycles among the grader's modules, lazy imports (inside functions)
included: grader/cohort/cluster.py <-> grader/plugins/execute.py and grader/cohort/grading.py <->
grader/reports/report.py were two (issue 23)."""
import ast

from authoring.build import ROOT


def imports():
    """{module: the grader modules it imports anywhere in its text}."""
    files = {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): p
             for p in (ROOT / "grader").rglob("*.py")}
    found = {}
    for name, path in files.items():
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module in files:
                deps.add(node.module)
            if isinstance(node, ast.ImportFrom) and node.module:
                deps |= {f"{node.module}.{a.name}" for a in node.names} & files.keys()
            if isinstance(node, ast.Import):
                deps |= {a.name for a in node.names} & files.keys()
        found[name] = deps - {name}
    return found


def test_no_import_cycles():
    graph = imports()
    cycles = []

    def visit(node, path):
        for dep in graph.get(node, ()):
            if dep == path[0]:
                cycles.append(" -> ".join([*path, dep]))
            elif dep not in path:
                visit(dep, [*path, dep])

    for module in graph:
        visit(module, [module])
    print(f"{len(graph)} modules, {sum(map(len, graph.values()))} imports")
    assert cycles == []
