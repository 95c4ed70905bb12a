"""Mestezia's skill check (rulesets/mestezia/mechanics.rules) against the rulebook's examples.

Worked examples: spec mestezia.md §4.1 (MZ-W01 ... MZ-W11, the ones that roll a skill check).
The book prints totals (die + modifier) more often than dice; where it gives no dice, the test
picks dice and a modifier that give the printed totals. Odds are compared with an enumeration
of every face.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product
from typing import Any

import pytest

from runebook.interpreter.rules import load
from checks_helpers import chi_square_agrees

GAME = "mestezia"
GRADES = ["Fail", "Low", "Medium", "High"]


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load(GAME)


def named(results: dict[str, Any]) -> dict[str, Any]:
    return {k: v if isinstance(v, (int, bool, Fraction)) or v is None else str(v) for k, v in results.items()}


def totals(result: Any) -> list[int]:
    """The dice with the modifier added, as the trace shows them."""
    steps = [e for e in result.trace.to_list() if e.get("kind") == "op" and e.get("expr") == "each(dice) + modifier"]
    return list(steps[0]["value"])


# ---------------------------------------------------------------- worked examples


def test_w01_w02_duck_the_dart(rules) -> None:  # type: ignore[no-untyped-def]
    """8, 6 and 1 with +3 (Kinesthetics) are 11, 9 and 4; two meet the threshold 9: Medium."""
    result = rules.resolve("skill check", dice=[8, 6, 1], modifier=3, threshold=9)
    assert named(result.results) == {"successes": 2, "grade": "Medium"}
    assert totals(result) == [11, 9, 4]


def test_w03_combo_check_bluff(rules) -> None:  # type: ignore[no-untyped-def]
    """Influence + Trickery (+4) for 11: 4, 5 and 10 are 8, 9 and 14: Low, "so close to a Medium"."""
    result = rules.resolve("skill check", dice=[4, 5, 10], modifier=4, threshold=11)
    assert named(result.results) == {"successes": 1, "grade": "Low"}
    assert sorted(totals(result)) == [8, 9, 14]


def test_w03b_the_allys_aid_check(rules) -> None:  # type: ignore[no-untyped-def]
    """The ally's own check for 11 totals 12, 11 and 14: grade 3, a +3 to one of the bluffer's
    dice. (Adding that +3 to one die of the first check is not an input of the skill check.)"""
    result = rules.resolve("skill check", dice=[8, 7, 10], modifier=4, threshold=11)
    assert totals(result) == [12, 11, 14]
    assert named(result.results) == {"successes": 3, "grade": "High"}


def test_w03b_aid_lifts_the_bluff_to_medium(rules) -> None:
    """The ally's grade 3 becomes +3 on one of the bluffer's dice: 4, 5 and 10 with +4 against
    11 were Low; on the best die (the 5: 9 becomes 12) the grade is Medium."""
    result = rules.resolve("skill check", dice=[4, 5, 10], modifier=4, threshold=11, aid=3)
    assert named(result.results) == {"successes": 2, "grade": "Medium"}
    alone = rules.resolve("skill check", dice=[4, 5, 10], modifier=4, threshold=11)
    assert named(alone.results) == {"successes": 1, "grade": "Low"}


def test_aid_goes_to_one_die_only(rules) -> None:
    # +5 would lift both the 4 and the 5 past 11, but an ally's bonus goes on one die.
    result = rules.resolve("skill check", dice=[4, 5, 10], modifier=4, threshold=11, aid=5)
    assert result.results["successes"] == 2


def test_aid_odds_match_an_enumeration(rules) -> None:
    from fractions import Fraction
    from itertools import product

    expected: dict[int, Fraction] = {}
    for faces in product(range(1, 11), repeat=3):
        base = sum(f + 2 >= 10 for f in faces)
        best = max(base - (f + 2 >= 10) + (f + 2 + 3 >= 10) for f in faces)
        expected[best] = expected.get(best, Fraction(0)) + Fraction(1, 1000)
    odds = rules.odds("skill check", modifier=2, threshold=10, aid=3)
    assert dict(odds.results["successes"]) == expected


def test_w04_berserker_charge_high(rules) -> None:  # type: ignore[no-untyped-def]
    """Constructed dice for the Berserker Charge: 6, 7, 9 with +6 against Defense 12: High."""
    result = rules.resolve("skill check", dice=[6, 7, 9], modifier=6, threshold=12)
    assert named(result.results) == {"successes": 3, "grade": "High"}


def test_w06_accept_the_challenge_four_dice(rules) -> None:  # type: ignore[no-untyped-def]
    """Four dice totalling 16, 14, 11 and 7 against 12: two successes, Medium (a Breakthrough)."""
    result = rules.resolve("skill check", dice=[10, 8, 5, 1], pool=4, modifier=6, threshold=12)
    assert totals(result) == [16, 14, 11, 7]
    assert named(result.results) == {"successes": 2, "grade": "Medium"}


def test_w07_build_momentum_one_13(rules) -> None:  # type: ignore[no-untyped-def]
    """"I got one 13!" against 12: one success, Low, "made it"."""
    result = rules.resolve("skill check", dice=[10, 2, 1], modifier=3, threshold=12)
    assert named(result.results) == {"successes": 1, "grade": "Low"}


def test_w10_w11_defense_check_against_the_spores(rules) -> None:  # type: ignore[no-untyped-def]
    """Defense + Health against 10, totals 16, 10 and 12: High."""
    result = rules.resolve("skill check", dice=[10, 4, 6], modifier=6, threshold=10)
    assert totals(result) == [16, 10, 12]
    assert named(result.results) == {"successes": 3, "grade": "High"}


def test_four_successes_are_still_high(rules) -> None:  # type: ignore[no-untyped-def]
    """A7: the count is not capped; its name from 3 up is High."""
    result = rules.resolve("skill check", dice=[9, 9, 9, 9], pool=4, threshold=9)
    assert named(result.results) == {"successes": 4, "grade": "High"}


# ---------------------------------------------------------------- exact odds


@pytest.mark.parametrize(("pool", "modifier", "threshold"), [(3, 0, 8), (3, 3, 11), (4, -2, 6), (2, 0, 12)])
def test_odds_are_exact(rules, pool: int, modifier: int, threshold: int) -> None:  # type: ignore[no-untyped-def]
    odds = rules.odds("skill check", pool=pool, modifier=modifier, threshold=threshold)
    successes: Counter = Counter()
    grades: Counter = Counter()
    for faces in product(range(1, 11), repeat=pool):
        n = sum(1 for f in faces if f + modifier >= threshold)
        successes[n] += Fraction(1, 10 ** pool)
        grades[GRADES[min(n, 3)]] += Fraction(1, 10 ** pool)
    assert odds.residual == 0
    assert dict(odds.results["successes"].items()) == dict(successes)
    assert {str(k): p for k, p in odds.results["grade"].items()} == dict(grades)


# ---------------------------------------------------------------- rolls agree with odds




def test_rolls_agree_with_odds(rules) -> None:  # type: ignore[no-untyped-def]
    chi_square_agrees(rules, "skill check", "successes", 2000, 7, pool=4, modifier=2, threshold=9)
