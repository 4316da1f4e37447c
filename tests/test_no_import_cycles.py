"""No import cycles in any package, lazy imports (inside functions) included, and no import
running back up the layers: minigrad/ under course/ under grader/ and authoring/, under
classroom/ and benchmarks/."""
import ast

from authoring.build import ROOT

PACKAGES = ("minigrad", "course", "grader", "authoring", "classroom", "benchmarks")
# what each package may import of the others (the trust boundary: a kernel holds only minigrad and course)
LAYERS = {"minigrad": set(), "course": {"minigrad"}, "grader": {"minigrad", "course"},
          "authoring": {"minigrad", "course"},
          "classroom": {"minigrad", "course", "grader", "authoring"},
          "benchmarks": {"minigrad", "course", "grader", "authoring", "classroom"}}


def modules():
    """{dotted name: file} of every module of PACKAGES."""
    return {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): p
            for package in PACKAGES for p in (ROOT / package).rglob("*.py")}


def imports():
    """{module: the course's modules it imports anywhere in its text}."""
    files = modules()
    found = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: from .engine import Value
                    parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                    base = f"{parent}.{base}" if base else parent
                if base in files:
                    deps.add(base)
                deps |= {f"{base}.{a.name}" for a in node.names} & files.keys()
            if isinstance(node, ast.Import):
                deps |= {a.name for a in node.names} & files.keys()
        found[name] = deps - {name}
    return found


def cycles(graph):
    found = []

    def visit(node, path):
        for dep in graph.get(node, ()):
            if dep == path[0]:
                found.append(" -> ".join([*path, dep]))
            elif dep not in path:
                visit(dep, [*path, dep])

    for module in graph:
        visit(module, [module])
    return found


def test_no_import_cycles():
    graph = imports()
    print(f"{len(graph)} modules, {sum(map(len, graph.values()))} imports")
    assert {name.partition(".")[0] for name in graph} == set(PACKAGES)
    assert cycles(graph) == []


def test_a_lazy_import_back_is_a_cycle():
    """The check can fail: course.submit imports course.validate, so an import of
    course.submit inside one of validate's functions would close a circle."""
    graph = imports()
    assert "course.validate" in graph["course.submit"]
    graph["course.validate"] = graph["course.validate"] | {"course.submit"}
    assert "course.submit -> course.validate -> course.submit" in cycles(graph)


def test_no_import_runs_back_up_the_layers():
    upward = [f"{module} imports {dep}" for module, deps in imports().items() for dep in deps
              if (top := module.partition(".")[0]) != (other := dep.partition(".")[0])
              and other not in LAYERS[top]]
    assert upward == []
