"""Time a sweep (`runebook odds GAME NAME --vary ...`) on 1 worker and on every core, side by side.

    python benchmarks/bench_sweep.py           # QuestWorlds scored contest, ability 5..25 x resistance 10..20
    python benchmarks/bench_sweep.py --quick   # ability 10..16 x resistance 12..14

Both runs compute the same grid from a fresh process state (the game loaded once before
timing); the table gives each one's wall time, points per second and the speed-up, and the
script checks that the two grids are identical.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from runebook.interpreter.rules import load  # noqa: E402
from runebook.interpreter.rules.sweep import sweep  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a 7 x 3 grid instead of 21 x 11")
    args = parser.parse_args()
    abilities = range(10, 17) if args.quick else range(5, 26)
    resistances = range(12, 15) if args.quick else range(10, 21)
    vary = {"ability": [str(a) for a in abilities], "resistance": [str(r) for r in resistances]}
    load("questworlds")
    cores = os.cpu_count() or 1
    grids = {}
    print(f"scored contest sweep: {len(abilities)} x {len(resistances)} = {len(abilities) * len(resistances)} "
          f"points, {cores} cores")
    print(f"{'workers':>7}  {'seconds':>8}  {'points/s':>8}  speed-up")
    first = None
    for workers in sorted({1, cores}):
        start = time.perf_counter()
        grids[workers] = sweep("questworlds", "scored contest", vary, workers=workers)
        took = time.perf_counter() - start
        first = first or took
        points = len(grids[workers].points)
        print(f"{workers:>7}  {took:>8.2f}  {points / took:>8.1f}  {first / took:.2f}x")
    same = len({repr(sorted((k, {r: dict(d.items()) for r, d in v.items()}) for k, v in g.points.items()))
                for g in grids.values()}) == 1
    print("grids identical:", same)


if __name__ == "__main__":
    main()
