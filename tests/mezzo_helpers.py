"""What several Mezzo test files share: the book's dice, computed independently of the ruleset,
and entity files written from a run's state."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import yaml

#: The die sizes of the step ladder, smallest first (spec §3.2).
LADDER = [4, 6, 8, 10, 12]


def book_pool(votes: int) -> list[int]:
    """§3.2: a d12 per five votes, then the die of what is left; no votes, no dice (A2)."""
    v = max(votes, 0)
    return [12] * (v // 5) + ([LADDER[v % 5 - 1]] if v % 5 else [])


def action_odds(action_votes: int, failure_votes: int) -> dict[str, Fraction]:
    """Success against failure on the book's dice; a tie is broken by d12s rolled until they
    differ, which is even: half to each."""
    a, f = book_pool(action_votes), book_pool(failure_votes)
    weight = Fraction(1, math.prod(a + f))
    odds: Counter = Counter()
    for faces in product(*[range(1, s + 1) for s in a + f]):
        sa = max(faces[: len(a)], default=1)
        sf = max(faces[len(a):], default=1)
        if sa == sf:
            odds["success"] += weight / 2
            odds["failure"] += weight / 2
        else:
            odds["success" if sa > sf else "failure"] += weight
    return dict(odds)


def six_sided_score_odds(votes: int) -> Counter:
    """§3.20 by hand: a multiplier of 1 + full sixes, the rest the threshold; a first d6 at or
    under the threshold bursts (multiplier + 1, roll again); no votes scores 1."""
    if votes <= 0:
        return Counter({1: Fraction(1)})
    multiplier = 1 + votes // 6
    threshold = votes - 6 * (votes // 6)
    dist: Counter = Counter()
    for first in range(1, 7):
        if first <= threshold:
            for second in range(1, 7):
                dist[second * (multiplier + 1)] += Fraction(1, 36)
        else:
            dist[first * multiplier] += Fraction(1, 6)
    return dist


def saved(tmp_path: Path, state: dict[str, Any], name: str) -> str:
    """An entity's state after a run, written as the entity file a GM would keep."""
    path = tmp_path / f"{name}.yaml"
    kept = {k: state[k] for k in ("name", "resources", "conditions") if state.get(k)}
    path.write_text(yaml.safe_dump(kept), encoding="utf-8")
    return str(path)
