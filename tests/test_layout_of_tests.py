"""The tests' own layout: what they share lives in tests/support/, so no test module,
and no benchmark, imports a test module (or reaches the tests through sys.path)."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def imported(path):
    """The modules a file imports, wherever in it (functions included)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module)
    return names


def test_no_test_module_or_benchmark_imports_a_test_module():
    files = [*(ROOT / "tests").rglob("*.py"), *(ROOT / "benchmarks").glob("*.py")]
    found = {f"{path.relative_to(ROOT)} imports {name}" for path in files for name in imported(path)
             if name.split(".")[-1].startswith("test_") or name.split(".")[-1] == "conftest"}
    assert not found, sorted(found)


def test_benchmarks_take_the_tests_support_as_a_package():
    for path in (ROOT / "benchmarks").glob("*.py"):
        assert '"tests")' not in path.read_text(), f"{path.name} puts tests/ on sys.path"


def test_the_check_can_fail(tmp_path):
    sneaky = tmp_path / "test_sneaky.py"
    sneaky.write_text("def test_x():\n    from test_cohort import stand_in\n")
    assert "test_cohort" in imported(sneaky)
