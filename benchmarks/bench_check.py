"""Measure `runebook check` on a generated content file of N lines (default 100,000).

    python benchmarks/bench_check.py [--lines N] [--repeat R] [--one-core]

The file is homebrew content for a built-in game: powers written the way authors
write them, with brackets, keywords, graded results and nested bullets.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runebook.dsl.loader import LIMITS, check_paths  # noqa: E402

TEMPLATE = """\
{name}
Cost: [Weapon + {cost}] CP
Before: Walk up to [Speed + {move}] hexes
Target: Enemy in [Weapon Reach]
Threshold: Target's Defense
Check: [Attack + {stat}]
Result: [Weapon + Grade] damage
Result 2: The target is pushed {push} hexes and takes [Grade + {bonus}] more damage
Effect 3: The target is dazed until the end of its next turn
Keywords: *Berserker Melee [Weapon] Charge*
"""

STATS = ("Strength", "Speed", "Will", "Defense", "Aim")


def generate(lines: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    chunks = ["extends mestezia\n"]
    count = 1
    index = 0
    while count < lines:
        block = TEMPLATE.format(
            name=f"Generated Power {index}", cost=rng.randint(0, 3), move=rng.randint(0, 3),
            stat=rng.choice(STATS), push=rng.randint(1, 4), bonus=rng.randint(0, 5),
        )
        chunks.append("\n" + block)
        count += block.count("\n") + 1
        index += 1
    return "".join(chunks)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--one-core", action="store_true",
                        help="check in this process only (no workers for large files)")
    args = parser.parse_args()
    if args.one_core:
        LIMITS.parallel_lines = sys.maxsize
    text = generate(args.lines)
    lines = text.count("\n")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "generated.rules"
        path.write_text(text, encoding="utf-8")
        check_paths([str(path)])  # warm up: grammar build, built-in game load
        best = best_cpu = float("inf")
        for _ in range(args.repeat):
            start, start_cpu = time.perf_counter(), time.process_time()
            report = check_paths([str(path)])
            best = min(best, time.perf_counter() - start)
            best_cpu = min(best_cpu, time.process_time() - start_cpu)
        errors = [d for d in report.diagnostics if d.severity == "error"]
    mode = "one core" if args.one_core else "all cores"
    print(f"runebook check ({mode}): {lines:,} lines, {report.entries:,} entries, {len(errors)} errors")
    print(f"best of {args.repeat}: {best:.2f} s wall = {lines / best:,.0f} lines/s "
          f"(CPU time of this process: {best_cpu:.2f} s)")
    return 0 if not errors else 1


if __name__ == "__main__":
    sys.exit(main())
