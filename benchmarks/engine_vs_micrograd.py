"""minigrad against micrograd on one balanced graph: build time and backward time.

    pip install -r benchmarks/requirements.txt
    python benchmarks/engine_vs_micrograd.py

Both engines build the same balanced tree over 100,000 leaves (pairs joined by
alternating * and +), then run backward from its root. Runs alternate between
the engines, garbage collection paused as `timeit` does, and the medians are
compared. It prints figures; it asserts nothing, so it is no test.
"""
import gc
import random
import statistics
import sys
import time
from functools import partial

from minigrad import Value as MiniValue

LEAVES = 100_000
RUNS = 7


def balanced(Value, numbers):
    level = [Value(x) for x in numbers]
    flip = False
    while len(level) > 1:
        joined = [(a * b if flip else a + b) for a, b in zip(level[::2], level[1::2])]
        if len(level) % 2:
            joined.append(level[-1])
        level, flip = joined, not flip
    return level[0]


def timed(function):
    gc.disable()
    try:
        start = time.perf_counter()
        result = function()
        return time.perf_counter() - start, result
    finally:
        gc.enable()


def main():
    import argparse
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    from micrograd.engine import Value as MicroValue  # benchmarks/requirements.txt
    sys.setrecursionlimit(10_000)  # micrograd's topological sort is recursive (depth ~17 here)
    numbers = [random.Random(0).uniform(0.9, 1.1) for _ in range(LEAVES)]
    times = {name: {"build": [], "backward": []} for name in ("minigrad", "micrograd")}
    for _ in range(RUNS):
        for name, Value in (("minigrad", MiniValue), ("micrograd", MicroValue)):
            seconds, root = timed(partial(balanced, Value, numbers))
            times[name]["build"].append(seconds)
            seconds, _ = timed(root.backward)
            times[name]["backward"].append(seconds)
            del root
            gc.collect()
    median = {name: {part: statistics.median(v) for part, v in parts.items()} for name, parts in times.items()}
    print(f"balanced graph, {LEAVES:,} leaves; medians of {RUNS} alternating runs, gc paused")
    for part in ("build", "backward"):
        mini, micro = median["minigrad"][part], median["micrograd"][part]
        print(f"{part:>9}: minigrad {mini * 1e3:7.1f} ms   micrograd {micro * 1e3:7.1f} ms   "
              f"ratio {mini / micro:.2f}")
    whole = [sum(median[name].values()) for name in ("minigrad", "micrograd")]
    print(f"{'whole':>9}: minigrad {whole[0] * 1e3:7.1f} ms   micrograd {whole[1] * 1e3:7.1f} ms   "
          f"ratio {whole[0] / whole[1]:.2f}")


if __name__ == "__main__":
    main()
