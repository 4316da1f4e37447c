"""Build the course: bilingual masters -> per-language nbgrader source -> release.

    python -m authoring build   # write source/ (executed, outputs stored) and release/
    python -m authoring check   # fail if source/ or release/ is stale, or EN and ES differ
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from course.i18n import LANGUAGES
from authoring.masters import differences, for_language, read_master

ROOT = Path(__file__).resolve().parent.parent


def units(root=ROOT):
    return sorted(path.stem for path in (root / "notebooks").glob("*.md"))


def assignment(unit, lang):
    return f"{unit}-{lang}"


def language_versions(unit, root=ROOT):
    """{lang: notebook} for one unit, after checking the languages match."""
    master = read_master(root / "notebooks" / f"{unit}.md")
    versions = {lang: for_language(master, lang, unit) for lang in LANGUAGES}
    problems = differences(versions["en"], versions["es"])
    if problems:
        raise SystemExit(f"{unit}: English and Spanish differ:\n  " + "\n  ".join(problems))
    return versions


def execute(nb, where):
    NotebookClient(nb, timeout=600, kernel_name="python3", record_timing=False,
                   resources={"metadata": {"path": str(where)}}).execute()
    return nb


def nbgrader(*arguments, root=ROOT, check=True, env=None, **options):
    """Run a stock nbgrader command on the course in `root`."""
    env = dict(os.environ if env is None else env)
    # nbgrader runs `alembic` from PATH: find it beside this interpreter
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", os.defpath)
    return subprocess.run([sys.executable, "-m", "nbgrader", *arguments,
                           f"--CourseDirectory.root={root}"],
                          cwd=root, env=env, check=check, **options)


def generate_release(assignment_id, root):
    nbgrader("generate_assignment", assignment_id, "--force", "--log-level=WARN", root=root)


def drop_large_evidence(nb, limit=1_000_000):
    """Keep only the one-line summary of evidence outputs over `limit` bytes (lab 01's
    20-run gradients are megabytes): evidence matters only when grading, and those
    cells carry NBVAL_IGNORE_OUTPUT so nbval does not compare them."""
    from course.student import EVIDENCE_MIME
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if len(data.get(EVIDENCE_MIME, "")) > limit:
                if "NBVAL_IGNORE_OUTPUT" not in cell.source:
                    raise SystemExit(f"a cell with large evidence needs NBVAL_IGNORE_OUTPUT: {cell.source[:80]}")
                del data[EVIDENCE_MIME]
    return nb


def build(root=ROOT, run=True):
    for unit in units(root):
        for lang, nb in language_versions(unit, root).items():
            folder = root / "source" / assignment(unit, lang)
            folder.mkdir(parents=True, exist_ok=True)
            if run:
                print(f"executing {folder.name}/{unit}.ipynb", flush=True)
                drop_large_evidence(execute(nb, folder))
            nbformat.write(nb, folder / f"{unit}.ipynb")
            generate_release(assignment(unit, lang), root)


def without_outputs(path):
    nb = json.loads(Path(path).read_text())
    nb["metadata"].pop("language_info", None)
    for cell in nb["cells"]:
        cell.pop("outputs", None)
        cell.pop("execution_count", None)
    return nb


def stale_files(root=ROOT):
    """Generated files that differ from what the masters give now."""
    stale = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        shutil.copytree(root / "notebooks", tmp / "notebooks")
        shutil.copy(root / "nbgrader_config.py", tmp)
        build(tmp, run=False)
        for fresh in sorted(tmp.glob("source/*/*.ipynb")) + sorted(tmp.glob("release/*/*.ipynb")):
            relative = fresh.relative_to(tmp)
            committed = root / relative
            if not committed.exists() or without_outputs(committed) != without_outputs(fresh):
                stale.append(str(relative))
        expected = {p.relative_to(tmp) for p in tmp.glob("*/*/*.ipynb") if p.parts[-3] in ("source", "release")}
        for existing in list(root.glob("source/*/*.ipynb")) + list(root.glob("release/*/*.ipynb")):
            if existing.relative_to(root) not in expected:
                stale.append(f"{existing.relative_to(root)} (no master makes it)")
    return stale


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    command = argv[0] if argv else "build"
    if command == "build":
        build()
    elif command == "check":
        stale = stale_files()
        if stale:
            raise SystemExit("stale, run `python -m authoring build`:\n  " + "\n  ".join(stale))
        print("source/ and release/ match the masters; English and Spanish match")
    else:
        raise SystemExit(__doc__)
