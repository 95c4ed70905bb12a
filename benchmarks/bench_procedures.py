"""Time exact odds of procedures (`runebook odds GAME PROCEDURE`), in process.

    python benchmarks/bench_procedures.py            # every case once, about half a minute
    python benchmarks/bench_procedures.py --repeat 3 # best of 3 per case
    python benchmarks/bench_procedures.py --quick    # skip the slowest case

Each case is the command line a user would type, run through ``interpreter.cli.main.main`` with
its output captured (run from the repository root: the skirmish case names example files).
A game's first case in the process includes parsing its files (later runs reuse the parsed
game); every run builds new rules, so its compiled checks and cached check results start
empty and it solves the whole chain again. The table shows the best of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from runebook.interpreter.cli.main import main as cli  # noqa: E402

SKIRMISH = "rulesets/mestezia/examples/skirmish"

#: (label, argv after `runebook`, slow?)
CASES: list[tuple[str, list[str], bool]] = [
    ("questworlds group scored contest", ["odds", "questworlds", "group scored contest", "--with", "abilities=15,12",
                                          "--with", "resistances=14", "--json"], True),
    ("questworlds extended contest", ["odds", "questworlds", "extended contest", "--with", "ability=15",
                                      "--with", "resistance=14", "--json"], False),
    ("questworlds scored contest", ["odds", "questworlds", "scored contest", "--with", "ability=15",
                                    "--with", "resistance=14", "--json"], False),
    ("mestezia Skirmish Round", ["odds", "mestezia", "Skirmish Round", "--as", f"{SKIRMISH}/raider.yaml",
                                 "--against", f"{SKIRMISH}/guard.yaml", "--with", "power=Berserker Charge",
                                 "--answer", "act=use_the_power", "--json"], False),
]


def run(argv: list[str]) -> tuple[float, int]:
    """One command: its wall time in seconds and the number of states of its chain."""
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli(argv)
    elapsed = time.perf_counter() - start
    if code != 0:
        raise SystemExit(f"runebook {' '.join(argv)} failed ({code}):\n{err.getvalue()}")
    return elapsed, int(json.loads(out.getvalue())["states"])


def _clear_caches() -> None:
    """Between runs: collect garbage. Each run builds new rules (so its compiled checks and
    cached check results start empty); only the parsed game stays loaded."""
    import gc

    gc.collect()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="skip the slowest case")
    args = parser.parse_args()
    os.chdir(ROOT)
    rows = []
    for label, argv, slow in CASES:
        if slow and args.quick:
            continue
        best, states = float("inf"), 0
        for _ in range(args.repeat):
            _clear_caches()
            elapsed, states = run(argv)
            best = min(best, elapsed)
        rows.append((label, states, best))
    print(f"| procedure odds | states | seconds (best of {args.repeat}) |")
    print("|---|---:|---:|")
    for label, states, best in rows:
        print(f"| {label} | {states:,} | {best:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
