"""How long theory03 takes to execute, against its floor: a kernel start plus the notebook's imports.

    python benchmarks/notebook_speed.py [source/theory03-en/theory03.ipynb]

Every graded submission pays for executing the whole notebook, demos included,
so its time over the floor is what the demos cost each grading. Medians of 5
alternating runs. It prints figures; it asserts nothing.
"""
import statistics
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
RUNS = 5


def run(nb):
    start = time.perf_counter()
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(ROOT)}}).execute()
    return time.perf_counter() - start


def main():
    import argparse
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebook", nargs="?", default=str(ROOT / "source" / "theory03-en" / "theory03.ipynb"),
                        help="the notebook to execute (default: source/theory03-en/theory03.ipynb)")
    path = Path(parser.parse_args().notebook).resolve()
    notebook = nbformat.read(path, as_version=4)
    floor = nbformat.v4.new_notebook()
    # the floor: the setup cell (every import the notebook makes at the top) and nothing else
    floor.cells = [nbformat.v4.new_code_cell(next(c.source for c in notebook.cells if c.cell_type == "code"))]
    times = {"notebook": [], "floor": []}
    for _ in range(RUNS):
        times["floor"].append(run(nbformat.from_dict(floor)))
        times["notebook"].append(run(nbformat.read(path, as_version=4)))
    whole, base = statistics.median(times["notebook"]), statistics.median(times["floor"])
    print(f"{path.relative_to(ROOT)}: {whole:.2f} s; floor (kernel start + imports): {base:.2f} s; "
          f"ratio {whole / base:.2f} (medians of {RUNS})")


if __name__ == "__main__":
    main()
