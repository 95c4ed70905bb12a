"""Start-up: `runebook roll 1d20` as a whole process against the d20 one-liner.

    python benchmarks/bench_startup.py            # 20 alternating runs of each
    python benchmarks/bench_startup.py --runs 50

What a chat bot that starts a process per command pays. Each run is a fresh interpreter
started the way the installed ``runebook`` script starts (``from interpreter.cli.main import
main``), from the repository root, against ``python -c "import d20; print(d20.roll('1d20'))"``;
the two alternate, so that a busy machine slows both alike. Bytecode is written and used
(``PYTHONDONTWRITEBYTECODE`` is dropped, one unmeasured run of each warms it), as an
installed package has it. It prints both medians and their ratio; the goal (issue 18) is a
ratio of at most 1.2. d20 comes from the ``bench`` extra.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RUNEBOOK = [sys.executable, "-c", "import sys; from interpreter.cli.main import main; sys.argv[0] = 'runebook'; "
            "sys.exit(main())", "roll", "1d20"]
D20 = [sys.executable, "-c", "import d20; print(d20.roll('1d20'))"]


def _seconds(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def measure(runs: int) -> tuple[float, float]:
    """Median seconds of (runebook, d20) over ``runs`` alternating runs of each."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    for command in (RUNEBOOK, D20):  # bytecode written, grammar tables cached
        _seconds(command, env)
    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(runs):
        ours.append(_seconds(RUNEBOOK, env))
        theirs.append(_seconds(D20, env))
    return statistics.median(ours), statistics.median(theirs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20, help="runs of each (default 20)")
    args = parser.parse_args()
    ours, theirs = measure(args.runs)
    print(f"runebook roll 1d20: {ours * 1000:7.1f} ms  (median of {args.runs})")
    print(f"d20 one-liner:      {theirs * 1000:7.1f} ms  (median of {args.runs})")
    print(f"ratio:              {ours / theirs:7.2f}  (goal: at most 1.20)")


if __name__ == "__main__":
    main()
