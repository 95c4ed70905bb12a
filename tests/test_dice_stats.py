"""Random rolls agree with exact odds, one dice feature at a time.

Each case rolls an expression a few thousand times from a fixed seed and runs a
chi-square goodness-of-fit test against `odds`. The seed is fixed, so the test is
deterministic (no flakiness); the threshold is the 0.1% critical value, and a negative
control shows the test does reject a wrong distribution.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import Any

import pytest

from runebook.interpreter import odds, roll
from runebook.interpreter.core.values import Bound

FEATURES = [
    ("sum", "3d6+2"),
    ("keep highest", "4d6kh3"),
    ("keep lowest", "2d20kl1"),
    ("drop lowest", "4d6dl1"),
    ("drop highest", "5d6dh2"),
    ("explode and count", "5d10x10cs>=8"),
    ("explode on a set", "3d6!>=5"),
    ("compound", "2d6!!"),
    ("explode and keep", "4d6!kh3"),
    ("reroll", "3d6r<3"),
    ("reroll once", "3d6ro1"),
    ("count failures", "6d6cf<3"),
    ("deduct failures", "6d10cs>=8df1"),
    ("a face counting double", "5d10cs>=8cs10"),
    ("per-die modifier", "count(each(3d10) + 3 >= 11)"),
    ("per-die comparison", "5d10 >= 8"),
    ("step dice", "highest(ladder(7, d4, d6, d8, d10, d12))"),
    ("highest of a mixed pool", "highest(d8, d6)"),
    ("roll-under", "d20 <= 14"),
    ("fudge dice", "4dF"),
    ("custom faces", "2d{1,1,2,3}"),
    ("percentile", "d%"),
    ("computed count", "(1d4)d6"),
    ("sum where", "sum(5d6 <= 3)"),
    ("any", "any(4d6 == 1)"),
]

ROLLS = 3000


def chi_square(expr: str, expected_expr: str | None = None, seed: int = 20261121) -> tuple[float, float]:
    """(statistic, 0.1% critical value) of rolls of ``expr`` against odds of ``expected_expr``."""
    dist = odds(expected_expr or expr)
    assert dist.residual == 0
    rng = random.Random(seed)
    observed: dict[Any, int] = {}
    tail = next((k for k in dist if isinstance(k, Bound)), None)
    for _ in range(ROLLS):
        value = roll(expr, rng=rng).total
        if tail is not None and type(value) is int and value >= tail.low:
            value = tail
        observed[value] = observed.get(value, 0) + 1
    assert set(observed) <= set(dist), set(observed) - set(dist)
    # Merge outcomes (in order) until each bin expects at least 5 rolls.
    bins: list[tuple[float, int]] = []
    exp_acc, obs_acc = 0.0, 0
    for outcome, p in dist.items():
        exp_acc += float(p) * ROLLS
        obs_acc += observed.get(outcome, 0)
        if exp_acc >= 5:
            bins.append((exp_acc, obs_acc))
            exp_acc, obs_acc = 0.0, 0
    if exp_acc and bins:
        e, o = bins.pop()
        bins.append((e + exp_acc, o + obs_acc))
    statistic = sum((o - e) ** 2 / e for e, o in bins)
    df = max(len(bins) - 1, 1)
    z = 3.090  # one-sided 0.1%
    critical = df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3  # Wilson-Hilferty
    return statistic, critical


@pytest.mark.parametrize("feature, expr", FEATURES, ids=[f[0] for f in FEATURES])
def test_rolls_agree_with_odds(feature: str, expr: str) -> None:
    statistic, critical = chi_square(expr)
    assert statistic < critical, f"{expr}: chi-square {statistic:.1f} >= {critical:.1f}"


def test_the_check_rejects_a_wrong_distribution() -> None:
    """Negative control: rolls of 4d6kh3 do not pass as 4d6kl3."""
    statistic, critical = chi_square("4d6kh3", "4d6kl3")
    assert statistic > critical


def test_seeded_rolls_repeat() -> None:
    first = [roll("5d10x10cs>=8", seed=7).total for _ in range(3)]
    assert len(set(first)) == 1
    assert roll("4d6kh3", seed=1).dice == roll("4d6kh3", seed=1).dice


def test_mean_of_many_rolls_is_close_to_the_exact_mean() -> None:
    rng = random.Random(5)
    total = sum(roll("4d6kh3", rng=rng).total for _ in range(4000))
    mean = odds("4d6kh3").mean()
    assert mean == Fraction(15869, 1296)
    assert abs(total / 4000 - float(mean)) < 0.15
