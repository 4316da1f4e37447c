"""Build the course: bilingual masters -> per-language nbgrader source -> release.

    python -m authoring build           # write source/ (executed, outputs stored) and release/
    python -m authoring build --force   # the same, even over notebooks a person edited
    python -m authoring check           # fail if source/ or release/ is stale, or EN and ES differ

Every notebook the build writes carries a digest of its cells. A notebook whose
cells no longer match it was edited by a person (a student working in release/,
an author editing source/ instead of the master), and the build refuses to
overwrite it, or a folder holding files it did not make.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from authoring.masters import differences, for_language, read_master
from course.names import LANGUAGES, UNITS, assignment

ROOT = Path(__file__).resolve().parent.parent


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
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = merge_streams(cell.outputs)
    return nb


def merge_streams(outputs):
    """Join consecutive stdout (or stderr) outputs into one: how a kernel splits
    printed text depends on timing, so two builds would differ."""
    merged = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (output.get("output_type") == "stream" and previous is not None
                and previous.get("output_type") == "stream" and previous.get("name") == output.get("name")):
            previous["text"] += output["text"]
        else:
            merged.append(output)
    return merged


def nbgrader(*arguments, root=ROOT, check=True, env=None, **options):
    """Run a stock nbgrader command on the course in `root`."""
    env = dict(os.environ if env is None else env)
    # nbgrader runs `alembic` from PATH: find it beside this interpreter
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", os.defpath)
    return subprocess.run([sys.executable, "-m", "nbgrader", *arguments,
                           f"--CourseDirectory.root={root}"],
                          cwd=root, env=env, check=check, **options)


def generate_releases(assignment_ids, root):
    """`nbgrader generate_assignment ID --force` for each of `assignment_ids`: in one
    nbgrader process (ID "*", which nbgrader reads as a glob) when they are every folder
    of source/, as after a build; starting nbgrader costs seconds, generating one
    assignment a fraction of a second."""
    every = sorted(folder.name for folder in (root / "source").iterdir() if folder.is_dir())
    for assignment_id in ["*"] if sorted(assignment_ids) == every else assignment_ids:
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


def build(root=ROOT, run=True, force=False):
    if not force:
        edited = edited_files(root)
        if edited:
            raise SystemExit("not overwritten, these were edited after the last build:\n  "
                             + "\n  ".join(edited) + "\n" + EDITED_HELP)
    written = {}  # assignment -> (unit, its source notebook)
    for unit in UNITS:
        for lang, nb in language_versions(unit, root).items():
            folder = root / "source" / assignment(unit, lang)
            folder.mkdir(parents=True, exist_ok=True)
            if run:
                print(f"executing {folder.name}/{unit}.ipynb", flush=True)
                drop_large_evidence(execute(nb, folder))
            write_signed(nb, folder / f"{unit}.ipynb")
            written[folder.name] = unit, nb
    generate_releases(list(written), root)
    # the release is left exactly as `nbgrader generate_assignment` writes it (the
    # instructor runs that command too: it must change nothing), so its digest
    # travels in the source's metadata, which generate_assignment copies
    for assignment_id, (unit, nb) in written.items():
        release = root / "release" / assignment_id / f"{unit}.ipynb"
        nb.metadata["course"][RELEASE_DIGEST] = cells_digest(nbformat.read(release, 4))
        write_signed(nb, root / "source" / assignment_id / f"{unit}.ipynb")
    generate_releases(list(written), root)


EDITED_HELP = ("Students: your work belongs in my-work/ (`python -m course start ASSIGNMENT`); "
               "move it there first. Authors: edit notebooks/<unit>.md, not the generated "
               "notebooks. `python -m authoring build --force` overwrites them anyway.")


RELEASE_DIGEST = "release_digest"  # in a source notebook: the digest of its release's cells


def cells_digest(nb):
    """A digest of what a person edits in a notebook: its cells' kinds and sources."""
    # a notebook file may store a source as a list of lines
    cells = [[cell["cell_type"], "".join(cell["source"])] for cell in nb["cells"]]
    return hashlib.sha256(json.dumps(cells, ensure_ascii=False).encode()).hexdigest()


def write_signed(nb, path):
    nb.metadata.setdefault("course", {})["digest"] = cells_digest(nb)
    nbformat.write(nb, path)


def edited_files(root=ROOT):
    """Files under source/ and release/ that the build would overwrite but did not write
    as they are: notebooks whose cells changed, files a person added to release/."""
    edited = []
    for path in sorted(root.glob("source/*/*.ipynb")) + sorted(root.glob("release/*/*.ipynb")):
        key = RELEASE_DIGEST if path.parts[-3] == "release" else "digest"
        try:
            nb = json.loads(path.read_text(encoding="utf-8"))
            intact = nb["metadata"]["course"][key] == cells_digest(nb)
        except (ValueError, KeyError, TypeError):
            intact = False
        if not intact:
            edited.append(str(path.relative_to(root)))
    for folder in sorted(root.glob("release/*")):
        source = root / "source" / folder.name
        made = {p.relative_to(source) for p in source.rglob("*")}
        for path in sorted(folder.rglob("*")):
            relative = path.relative_to(folder)
            if relative not in made and ".ipynb_checkpoints" not in relative.parts:
                edited.append(f"{path.relative_to(root)} (not made by the build)")
    return edited


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
