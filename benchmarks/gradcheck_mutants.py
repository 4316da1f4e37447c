"""How many single-rule backward bugs of minigrad does the reference gradcheck catch?

    python benchmarks/gradcheck_mutants.py

For each mutant of course/mutants.py (one line of one `_backward` changed: a sign, a
dropped factor, swapped operands, `=` for `+=`, an off-by-one power, a missing
`* out.grad`, the gradient sent to the wrong input) it writes a copy of `minigrad/`
with that engine into a temporary folder and runs the command as a user would,
`python -m grader gradcheck`, with that copy first on the path: exit 1 is caught.
It prints caught/decidable, the survivors, and the mutants no gradcheck can decide
and why. It prints figures; it asserts nothing (the test that the battery catches
them is tests/test_lab03.py).
"""
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from course.mutants import MUTANTS, mutated_source


def caught(mutant, folder):
    copy = Path(folder) / "minigrad"
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(ROOT / "minigrad", copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "engine.py").write_text(mutated_source(mutant))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([folder, str(ROOT)]), "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run([sys.executable, "-m", "grader", "gradcheck"], cwd=folder, env=env,
                            capture_output=True, text=True, timeout=120, check=False)
    if result.returncode not in (0, 1):
        raise RuntimeError(f"{mutant.name}: exit {result.returncode}\n{result.stderr}")
    return result.returncode == 1


def main():
    import argparse
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    with tempfile.TemporaryDirectory() as folder:
        results = [(mutant, caught(mutant, folder)) for mutant in MUTANTS]
    decidable = [(m, c) for m, c in results if not m.undecidable]
    survivors = [m for m, c in decidable if not c]
    print(f"python -m grader gradcheck caught {len(decidable) - len(survivors)}/{len(decidable)}"
          f" decidable single-rule backward mutants of minigrad/engine.py ({len(results)} mutants in all)")
    by_kind = Counter(m.kind for m, _ in decidable)
    caught_by_kind = Counter(m.kind for m, c in decidable if c)
    for kind in sorted(by_kind):
        print(f"  {kind:<20} {caught_by_kind[kind]}/{by_kind[kind]}")
    print("survivors:" if survivors else "survivors: none")
    for m in survivors:
        print(f"  {m.name}")
    print("undecidable by any gradcheck:")
    for m, c in results:
        if m.undecidable:
            print(f"  {m.name}\n    ({'caught anyway' if c else 'not caught'}): {m.undecidable}")


if __name__ == "__main__":
    main()
