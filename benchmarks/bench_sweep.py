"""Time a sweep (`runebook odds GAME NAME --vary ...`) on 1 worker and on every core, side by side.

    python benchmarks/bench_sweep.py           # QuestWorlds scored contest, ability 5..25 x resistance 10..20
    python benchmarks/bench_sweep.py --quick   # ability 10..16 x resistance 12..14
    python benchmarks/bench_sweep.py --dask    # also on a Dask LocalCluster of one process per core

Every run computes the same grid from a fresh process state (the game loaded once before
timing). With 1 worker each point is ``Rules.odds`` run here, one after the other: the
single computations; the script checks that every other run's grid is identical to it,
fraction for fraction, and gives each run's wall time, points per second and speed-up.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from runebook.interpreter.rules import load  # noqa: E402
from runebook.interpreter.rules.sweep import Sweep, sweep  # noqa: E402


def _grid(found: Sweep) -> dict[Any, Any]:
    return {k: {r: (dict(d.items()), d.residual) for r, d in v.items()} for k, v in found.points.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a 7 x 3 grid instead of 21 x 11")
    parser.add_argument("--dask", action="store_true", help="also on a dask.distributed LocalCluster "
                        "(one worker process per core; needs the dask extra)")
    args = parser.parse_args()
    abilities = range(10, 17) if args.quick else range(5, 26)
    resistances = range(12, 15) if args.quick else range(10, 21)
    vary = {"ability": [str(a) for a in abilities], "resistance": [str(r) for r in resistances]}
    load("questworlds")
    cores = os.cpu_count() or 1
    points = len(abilities) * len(resistances)
    print(f"scored contest sweep: {len(abilities)} x {len(resistances)} = {points} points, {cores} cores")
    print(f"{'executor':<28}  {'seconds':>8}  {'points/s':>8}  speed-up  grid")
    runs: list[tuple[str, dict[str, Any]]] = [(f"{w} local worker{'s' if w > 1 else ''}", {"workers": w})
                                              for w in sorted({1, 2, cores})]
    cluster = None
    if args.dask:
        from distributed import LocalCluster

        cluster = LocalCluster(n_workers=cores, threads_per_worker=1, processes=True, dashboard_address=None)
        runs.append((f"Dask LocalCluster, {cores} procs", {"scheduler": cluster.scheduler_address}))
    single = None
    first = None
    try:
        for label, how in runs:
            start = time.perf_counter()
            found = sweep("questworlds", "scored contest", vary, **how)
            took = time.perf_counter() - start
            first = first or took
            grid = _grid(found)
            single = single or grid
            same = "single computations" if grid is single else ("identical" if grid == single else "DIFFERENT")
            print(f"{label:<28}  {took:>8.2f}  {points / took:>8.1f}  {first / took:>7.2f}x  {same}")
    finally:
        if cluster is not None:
            cluster.close()


if __name__ == "__main__":
    main()
