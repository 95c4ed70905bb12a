"""Time exact odds of procedures against an earlier commit, side by side in one run.

    python benchmarks/bench_procedures.py                 # every case once against 9df3f25
    python benchmarks/bench_procedures.py --repeat 3      # best of 3 per case and side
    python benchmarks/bench_procedures.py --quick         # skip the slowest case
    python benchmarks/bench_procedures.py --against HEAD~5

The earlier commit (``--against``, by default ``9df3f25``, the last release before procedures
were compiled) is extracted with ``git archive`` into a temporary folder. Each case then runs
in a new process per side, the two sides alternating (the earlier commit, then this tree,
then again), so that a machine shared with other work loads both alike. A process loads the
game (not timed), then times one ``rules.odds(PROCEDURE, **inputs)`` on the new rules: the
whole exact computation, its chain explored and solved, every memo starting empty. The table
shows the best wall time of each side with its CPU time (the process's own: on a loaded
machine the fairer figure), their ratios, the states of each chain and this tree's states
per CPU second, and whether every result the two sides share has identical fractions.

Cases only this tree can run (the earlier one stops at its state limit) are timed here alone.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

#: (label, game, procedure, inputs here, inputs on the earlier commit (None: here only), slow?)
CASES: list[tuple[str, str, str, dict[str, Any], dict[str, Any] | None, bool]] = [
    ("questworlds group scored contest (15 and 12 vs 14)", "questworlds", "group scored contest",
     {"abilities": [15, 12], "resistances": [14]}, {"ability_1": 15, "ability_2": 12, "resistance_1": 14}, True),
    ("questworlds extended contest (15 vs 14)", "questworlds", "extended contest",
     {"ability": 15, "resistance": 14}, {"ability": 15, "resistance": 14}, False),
    ("questworlds scored contest (15 vs 14)", "questworlds", "scored contest",
     {"ability": 15, "resistance": 14}, {"ability": 15, "resistance": 14}, False),
    ("questworlds extended contest (25 vs 30)", "questworlds", "extended contest",
     {"ability": 25, "resistance": 30}, None, True),
]

#: What each process runs: load the game, then time one exact computation.
RUNNER = """
import json, sys, time
import os
tree = os.path.realpath(sys.argv[1])
sys.path.insert(0, tree)
# A tree from before the runebook namespace keeps interpreter/ at its top; importing
# runebook there would find the installed checkout instead of the tree's own code.
if os.path.isfile(os.path.join(tree, "runebook", "__init__.py")):
    from runebook import interpreter
else:
    import interpreter
if not os.path.realpath(interpreter.__file__).startswith(tree + os.sep):
    raise SystemExit(f"imported {interpreter.__file__}, not the code of {tree}")
game, procedure, inputs = sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
rules = interpreter.load(game)
start, cpu = time.perf_counter(), time.process_time()
odds = rules.odds(procedure, **inputs)
wall, cpu = time.perf_counter() - start, time.process_time() - cpu
print(json.dumps({"wall": wall, "cpu": cpu, "states": odds.states, "results": odds.to_dict()["results"]}))
"""


def extract(commit: str, into: Path) -> Path:
    """The files of ``commit`` in a folder under ``into`` (``git archive``, nothing checked out)."""
    archive = into / "tree.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "-C", str(ROOT), "archive", commit], stdout=out, check=True)
    tree = into / "tree"
    tree.mkdir()
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="data")
    return tree


def measure(tree: Path, game: str, procedure: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """One computation in a new process, run in ``tree`` with ``tree``'s code."""
    done = subprocess.run([sys.executable, "-c", RUNNER, str(tree), game, procedure, json.dumps(inputs)],
                          cwd=tree, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{procedure} in {tree} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def compare(here: dict[str, Any], there: dict[str, Any]) -> str:
    """Whether the results both sides give are the same fractions (and what only one gives)."""
    shared = set(here) & set(there)
    different = sorted(name for name in shared if here[name] != there[name])
    if different:
        return "DIFFERENT: " + ", ".join(different)
    return f"identical ({len(shared)} results)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="skip the slowest cases")
    parser.add_argument("--against", default="9df3f25", help="the commit to compare with (default 9df3f25)")
    args = parser.parse_args()
    rows = []
    failed = False
    with tempfile.TemporaryDirectory(prefix="runebook-bench-") as temp:
        earlier = extract(args.against, Path(temp))
        for label, game, procedure, inputs, old_inputs, slow in CASES:
            if slow and args.quick:
                continue
            best_here: dict[str, Any] | None = None
            best_there: dict[str, Any] | None = None
            for _ in range(args.repeat):
                if old_inputs is not None:
                    there = measure(earlier, game, procedure, old_inputs)
                    if best_there is None or there["wall"] < best_there["wall"]:
                        best_there = there
                here = measure(ROOT, game, procedure, inputs)
                if best_here is None or here["wall"] < best_here["wall"]:
                    best_here = here
            assert best_here is not None
            rate = best_here["states"] / best_here["cpu"]
            here_text = f"{best_here['wall']:.2f} ({best_here['cpu']:.2f})"
            if best_there is None:
                rows.append((label, "—", here_text, "—", f"— / {best_here['states']:,}", f"{rate:,.0f}",
                             "(here only)"))
                continue
            same = compare(best_here["results"], best_there["results"])
            failed = failed or same.startswith("DIFFERENT")
            rows.append((label, f"{best_there['wall']:.2f} ({best_there['cpu']:.2f})", here_text,
                         f"{best_there['wall'] / best_here['wall']:.1f}× ({best_there['cpu'] / best_here['cpu']:.1f}×)",
                         f"{best_there['states']:,} / {best_here['states']:,}", f"{rate:,.0f}", same))
    print(f"| procedure odds | {args.against}: wall s (CPU s) | this tree: wall s (CPU s) | ratio: wall (CPU) | "
          f"states (then / now) | states per CPU second now | fractions |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(f"(best wall time of {args.repeat}, with its CPU time; each side in its own process, alternating)")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
