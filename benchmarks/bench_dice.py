"""Runebook's dice against d20 (rolling) and icepool (exact odds), in one run.

    python benchmarks/bench_dice.py            # full run (about a minute)
    python benchmarks/bench_dice.py --quick    # fewer repetitions

Needs the ``bench`` extra (``pip install -e .[bench]``): d20 and icepool are imported
here only, never by ``dsl/`` or ``interpreter/``.

Rolling: rolls per second on the same expression text, parse included on both sides
(each engine is called with the text every time; both keep their own parse cache:
d20 an LFU cache in ``Roller``, Runebook an LRU cache of compiled expressions). Runebook
builds its full trace on every roll; d20 builds its result tree and string. The engines
alternate in five short rounds and each keeps its best round.

Exact odds: time to the full distribution, with explosions cut at the same depth (9, and
80 for ``80d10x10cs>=8``) on both sides. *Cold* is the first computation in a fresh process (imports and interpreter
start-up excluded; median of several processes); *warm* repeats it in one process, each
engine keeping whatever it caches. The fractions of both engines are compared outcome by
outcome: icepool's explode(depth=9) stops exploding at the cut while Runebook folds
everything from 10 successes up into an exact tail ``10+``, so the outcomes 0..9 must be
equal and the tail must equal icepool's P(>= 10).
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ROLL_CASES = ["3d6+2", "4d6kh3", "1d20+5", "10d10", "4d6ro1", "2d20kl1+3", "8d6e6", "4d6mi2"]
DEPTH = 9
#: case → (title, expression, explosion depth on both sides)
ODDS_CASES = {
    "explode": ("10d10 exploding 10s, successes at 8+", "10d10x10cs>=8", DEPTH),
    "keep": ("8d6 keep highest 3", "8d6kh3", DEPTH),
    "sum50": ("50d6 summed", "50d6", DEPTH),
    "sum100": ("100d6 summed", "100d6", DEPTH),
    "explode80": ("80d10 exploding 10s, successes at 8+, depth 80", "80d10x10cs>=8", 80),
}
#: Cases icepool takes many seconds on (see main).
HEAVY = {"explode80"}


# ---------------------------------------------------------------- the computations


def runebook_odds(case: str) -> dict[Any, Fraction]:
    from runebook.interpreter import odds
    from runebook.interpreter.core.limits import Limits

    _title, expr, depth = ODDS_CASES[case]
    dist = odds(expr, limits=Limits(max_explosion_depth=depth))
    assert dist.residual == 0
    return dict(dist)


_DICE: dict[int, Any] = {}


def icepool_odds(case: str) -> dict[Any, Fraction]:
    import icepool

    if case in ("explode", "explode80"):
        # Total of an exploding d10 is 10 * (tens) + last face; successes = tens + (last >= 8).
        # The die is built once and kept, as a user of icepool would keep it between calls.
        depth = ODDS_CASES[case][2]
        die = _DICE.get(depth)
        if die is None:
            die = _DICE[depth] = icepool.d10.explode(depth=depth).map(lambda t: t // 10 + (t % 10 >= 8))
        result = (10 if case == "explode" else 80) @ die
    elif case == "keep":
        result = icepool.d6.pool(8).highest(3).sum()
    else:
        result = (50 if case == "sum50" else 100) @ icepool.d6
    denominator = result.denominator()
    return {outcome: Fraction(quantity, denominator) for outcome, quantity in result.items()}


ENGINES = {"runebook": runebook_odds, "icepool": icepool_odds}


def _child(engine: str, case: str) -> None:
    """Runs in a fresh process: import, then time one computation."""
    if engine == "runebook":
        from runebook import interpreter
        from runebook.interpreter.core.evaluate import compile_expression
        from runebook.interpreter.core.limits import Limits  # noqa: F401

        # Imports, not odds (as `import icepool` on the other side): the API's odds module and
        # the distributions it builds on load on first use.
        interpreter.odds  # noqa: B018

        # Start-up, not odds: load the grammar and let the lexer build its states.
        for warm_up in ("1d6", "2d8kl1 + 3", "3d12!>=11cs>=9", "d4r1dh1", "d4ro2dl1cf1", "d4cs4df2"):
            compile_expression(warm_up)
    else:
        import icepool  # noqa: F401
    # Start-up's garbage collected before the clock starts, on both sides: a full collection
    # of the grammar's objects (about 20 ms) otherwise lands in whichever computation
    # happens to allocate past the collector's threshold first.
    gc.collect()
    start = time.perf_counter()
    ENGINES[engine](case)
    print(json.dumps(time.perf_counter() - start))


# ---------------------------------------------------------------- measuring


def time_rolls(fn: Any, seconds: float) -> float:
    """Rolls per second, measured over about ``seconds``."""
    count = 0
    batch = 500
    start = time.perf_counter()
    while True:
        for _ in range(batch):
            fn()
        count += batch
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return count / elapsed


def cold(engine: str, case: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, __file__, "--child", engine, case], capture_output=True,
                             text=True, check=True, cwd=ROOT)
        times.append(json.loads(out.stdout))
    return statistics.median(times)


def warm(engine: str, case: str, runs: int) -> float:
    fn = ENGINES[engine]
    fn(case)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn(case)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def agree(ours: dict[Any, Fraction], theirs: dict[Any, Fraction]) -> str:
    from runebook.interpreter.core.values import Bound

    tail = next((k for k in ours if isinstance(k, Bound)), None)
    for outcome, p in ours.items():
        if isinstance(outcome, Bound):
            expected = sum((q for k, q in theirs.items() if k >= outcome.low), Fraction(0))
        else:
            expected = theirs.get(outcome, Fraction(0))
        if p != expected:
            return f"DIFFER at {outcome}: {p} vs {expected}"
    missing = [k for k in theirs if k not in ours and (tail is None or k < tail.low)]
    if missing:
        return f"DIFFER: icepool lists {missing[:5]}"
    shown = f"{len(ours)} outcomes" + (f", tail {tail} = P(>= {tail.low})" if tail else "")
    return f"identical fractions ({shown})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--odds-only", action="store_true", help="exact odds only, no rolling")
    parser.add_argument("--child", nargs=2, metavar=("ENGINE", "CASE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(*args.child)
        return

    import d20
    import icepool

    from runebook import interpreter
    from runebook.interpreter import roll

    seconds = 0.3 if args.quick else 1.0
    from importlib.metadata import version

    print(f"Python {sys.version.split()[0]}, d20 {version('d20')}, icepool {icepool.__version__}, "
          f"runebook from {Path(interpreter.__file__).parent.parent}\n")

    if not args.odds_only:
        print("Rolling: rolls per second (parse included on both sides; higher is better)")
        print("  default = roll(expr) with no generator given; rng = roll(expr, rng=random.Random(1))")
        print(f"  {'expression':<14}{'default':>11}{'rng':>11}{'d20':>11}{'default/d20':>13}{'rng/d20':>9}")
        rng = random.Random(1)
        for expr in ROLL_CASES:
            # Alternate the engines in short rounds and keep each one's best round, so that a
            # burst of load on the machine does not land on one side only.
            default = injected = theirs = 0.0
            for _ in range(5):
                default = max(default, time_rolls(lambda e=expr: roll(e), seconds / 5))
                injected = max(injected, time_rolls(lambda e=expr: roll(e, rng=rng), seconds / 5))
                theirs = max(theirs, time_rolls(lambda e=expr: d20.roll(e), seconds / 5))
            print(f"  {expr:<14}{default:>11,.0f}{injected:>11,.0f}{theirs:>11,.0f}"
                  f"{default / theirs:>12.2f}x{injected / theirs:>8.2f}x")

    runs = 3 if args.quick else 7
    print(f"\nExact odds: time to the whole distribution (explosions cut at the same depth on both sides, {DEPTH} "
          f"unless said; ratio = icepool time / runebook time, higher is better)")
    for case, (title, expr, _depth) in ODDS_CASES.items():
        # icepool takes about half a minute on 80d10 at depth 80: its cold time there is its
        # first computation in this process (the one compared), and warm is best of 3.
        heavy = case in HEAVY
        ours_dist = runebook_odds(case)
        start = time.perf_counter()
        theirs_dist = icepool_odds(case)
        first_icepool = time.perf_counter() - start
        check = agree(ours_dist, theirs_dist)
        print(f"  {title} ({expr}): {check}")
        for label, measure in (("cold", cold), ("warm", warm)):
            count = 3 if heavy else runs if label == "cold" else runs * 5
            r = measure("runebook", case, count)
            i = first_icepool if heavy and label == "cold" else measure("icepool", case, count)
            print(f"    {label:<5} runebook {r * 1000:8.3f} ms   icepool {i * 1000:8.3f} ms   ratio {i / r:6.2f}x",
                  flush=True)


if __name__ == "__main__":
    main()
