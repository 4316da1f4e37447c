"""No import cycles in any package, lazy imports (inside functions) included, and no import
running back up the layers: minigrad/ under course/ under grader/ and authoring/, under
classroom/ and benchmarks/. Inside grader/, its folders and modules in strict layers too (a
loop between two folders is a cycle even when no two modules close one)."""
import ast

from authoring.build import ROOT

PACKAGES = ("minigrad", "course", "grader", "authoring", "classroom", "benchmarks")
# what each package may import of the others (the trust boundary: a kernel holds only minigrad and course)
LAYERS = {"minigrad": set(), "course": {"minigrad"}, "grader": {"minigrad", "course"},
          "authoring": {"minigrad", "course"},
          "classroom": {"minigrad", "course", "grader", "authoring"},
          "benchmarks": {"minigrad", "course", "grader", "authoring", "classroom"}}

# grader/'s rooms (a folder, or a module of its own), lowest first: each imports only rooms of
# the layers below its own. shared: the course's folders, notebooks' language, safe text.
GRADER_LAYERS = [{"grader", "grader.config"}, {"grader.shared"}, {"grader.arguments"},
                 {"grader.sandbox"}, {"grader.gradcheck", "grader.rubrics"}, {"grader.checks"},
                 {"grader.plugins"}, {"grader.reports"}, {"grader.cohort"},
                 {"grader.handout", "grader.demo", "grader.__main__"}]


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


def room(module):
    """The folder a module lives in, under its package's own folder (grader.plugins for
    grader.plugins.execute), or the module itself when it lives there (grader.config)."""
    return ".".join(module.split(".")[:2])


def rooms(graph, package):
    """{room of `package`: the other rooms of `package` its modules import}."""
    found = {}
    for module, deps in graph.items():
        if module.partition(".")[0] == package:
            found.setdefault(room(module), set()).update(
                room(d) for d in deps if d.partition(".")[0] == package and room(d) != room(module))
    return found


def upward(graph):
    """What runs against GRADER_LAYERS: a room importing one of its own layer or above."""
    layer = {name: n for n, names in enumerate(GRADER_LAYERS) for name in names}
    return [f"{name} imports {dep}" for name, deps in rooms(graph, "grader").items()
            for dep in sorted(deps) if layer[dep] >= layer[name]]


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


def test_grader_folders_in_strict_layers():
    graph = imports()
    found = rooms(graph, "grader")
    assert set(found) == set().union(*GRADER_LAYERS), "a room of grader/ missing from GRADER_LAYERS"
    print({name: sorted(deps) for name, deps in sorted(found.items())})
    assert cycles(found) == []
    assert upward(graph) == []


def test_a_loop_between_folders_is_found():
    """The check can fail: grader/plugins/execute.py once imported grader/cohort/cluster.py
    (to send a kernel to a Dask worker), while the cohort imports plugins: no two modules
    closed a circle, the two folders did."""
    graph = imports()
    graph["grader.plugins.execute"] = graph["grader.plugins.execute"] | {"grader.cohort.cluster"}
    assert cycles(graph) == []  # module by module, nothing
    assert "grader.plugins -> grader.cohort -> grader.plugins" in cycles(rooms(graph, "grader"))
    assert "grader.plugins imports grader.cohort" in upward(graph)


def test_no_module_imports_another_ones_private_names():
    """A name with a leading underscore is its module's own: another module that needs it
    asks for a public one (course/student.py's `current_language`, not its `_state`)."""
    files = modules()
    private = [f"{name} imports {node.module}.{alias.name}"
               for name, path in files.items() for node in ast.walk(ast.parse(path.read_text()))
               if isinstance(node, ast.ImportFrom) and (node.module or "").partition(".")[0] in PACKAGES
               for alias in node.names if alias.name.startswith("_") and not alias.name.startswith("__")]
    assert private == []
