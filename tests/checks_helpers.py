"""Helpers shared by the tests of the games' checks."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from fractions import Fraction
from itertools import product
from typing import Any

from runebook.interpreter import api
from runebook.interpreter.core import distribution
from runebook.interpreter.core.values import Bound

__all__ = ["chi_square_agrees", "enumerate_odds"]

def chi_square_agrees(rules, check: str, name: str, runs: int, seed: int, **inputs: Any) -> None:  # type: ignore[no-untyped-def]
    """Seeded rolls of a check against its exact odds (bins under 5 expected are merged)."""
    dist = rules.odds(check, **inputs).results[name]
    rng = random.Random(seed)
    seen = Counter(rules.resolve(check, rng=rng, **inputs).results[name] for _ in range(runs))
    for value in seen:
        assert value in dist.keys() or any(isinstance(k, Bound) and value >= k.low for k in dist.keys()), value
    big = {k: p * runs for k, p in dist.items() if p * runs >= 5 and not isinstance(k, Bound)}
    rest_expected = runs - sum(big.values())
    rest_seen = runs - sum(seen[k] for k in big)
    chi2 = sum((seen[k] - e) ** 2 / e for k, e in big.items())
    bins = len(big)
    if rest_expected >= 1:
        chi2 += (rest_seen - rest_expected) ** 2 / rest_expected
        bins += 1
    df = max(bins - 1, 1)
    critical = df * (1 - 2 / (9 * df) + 3.29 * math.sqrt(2 / (9 * df))) ** 3  # p = 0.0005
    assert float(chi2) < critical, (name, float(chi2), critical, seen)


def enumerate_odds(dice: Sequence[Sequence[int]], read: Callable[[tuple[int, ...]], Any]) -> dict[Any, Fraction]:
    """Every combination of faces, equally likely, read by ``read``."""
    combos = list(product(*dice))
    out: dict[Any, Fraction] = {}
    for combo in combos:
        key = read(combo)
        out[key] = out.get(key, Fraction(0)) + Fraction(1, len(combos))
    return out


def odds_work(expr: str, env: Any = None) -> int:
    """The steps the exact odds of ``expr`` count (the work counter of its enumeration)."""
    sessions: list[Any] = []

    class Noted(distribution._Session):
        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            sessions.append(self)

    real = distribution._Session
    distribution._Session = Noted  # type: ignore[misc]
    try:
        api.odds(expr, env=env)
    finally:
        distribution._Session = real  # type: ignore[misc]
    return sessions[0].work  # type: ignore[no-any-return]
