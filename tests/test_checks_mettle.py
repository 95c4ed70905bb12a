"""METTLE Core's Check and Twist, written only in rulesets/mettle/mechanics.rules.

Worked examples: spec mettle.md §6 (P-01 to P-04, S-11) and the SRD Engine chapter in
shared/seeds/mettle-core-srd/. Odds are compared with an enumeration of every face.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product
from typing import Any

import pytest

from runebook.interpreter.rules import load
from checks_helpers import chi_square_agrees

GAME = "mettle"
QUALITY = ["OK", "Good", "Great", "Excellent", "Amazing", "Legendary"]


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load(GAME)


def named(results: dict[str, Any]) -> dict[str, Any]:
    """Levels by name; numbers and true/false as they are."""
    return {k: v if isinstance(v, (int, bool, Fraction)) or v is None else str(v) for k, v in results.items()}


# ---------------------------------------------------------------- worked examples


def test_p01_score_and_edge_engine_example(rules) -> None:  # type: ignore[no-untyped-def]
    """Engine chapter: [4, 1, 3, 5, 2, 2] is a Score of 8 (1+3+2+2) and 2 Edge (4 and 5)."""
    result = rules.resolve("check", dice=[4, 1, 3, 5, 2, 2], pool=6, difficulty=8)
    assert named(result.results) == {"score": 8, "edge": 2, "outcome": "success", "quality": "Great",
                                     "twist_allowed": False}


def test_p02_failure_then_twist(rules) -> None:  # type: ignore[no-untyped-def]
    """Engine chapter: 5 dice against 3 show [1, 4, 4, 5, 6]: Score 1, Edge 4, a failure; the
    Twist keeps the Score and rerolls the four Edge dice: [1, 3, 5, 5] gives Score 5, Edge 2."""
    first = rules.resolve("check", dice=[1, 4, 4, 5, 6], pool=5, difficulty=3)
    assert named(first.results) == {"score": 1, "edge": 4, "outcome": "failure", "quality": "Amazing",
                                    "twist_allowed": True}
    twist = rules.resolve("twist", dice=[1, 3, 5, 5], kept_score=first.results["score"],
                          edge_dice=first.results["edge"], difficulty=3)
    assert named(twist.results) == {"score": 5, "edge": 2, "outcome": "success"}


def test_p03_viktor_bribes_the_clerk(rules) -> None:  # type: ignore[no-untyped-def]
    """Example of play: NATURE 5 +1D (the wallet), dice 3, 2, 2, 4, 4, 6 against MOTIVE 4:
    Score 7, Edge 3, success."""
    result = rules.resolve("check", dice=[3, 2, 2, 4, 4, 6], pool=5, modifier=1, difficulty=4)
    assert named(result.results) == {"score": 7, "edge": 3, "outcome": "success", "quality": "Excellent",
                                     "twist_allowed": False}


def test_p04_kirin_under_at_least(rules) -> None:  # type: ignore[no-untyped-def]
    """Kirin: POISE 5 rolls 1, 2, 2, 5, 6 against 5: Score 5, Edge 2. Under the Engine chapter's
    own rule (>=) that is a success (the spec's default; the example itself reads it as `>`)."""
    result = rules.resolve("check", dice=[1, 2, 2, 5, 6], pool=5, difficulty=5)
    assert named(result.results) == {"score": 5, "edge": 2, "outcome": "success", "quality": "Great",
                                     "twist_allowed": False}


def test_p04_kirin_as_the_example_reads_it(rules) -> None:  # type: ignore[no-untyped-def]
    """With `success_comparison=beats` Kirin fails as the text says; his Twist rerolls the two
    Edge dice to 3 and 4: Score 8 (1+2+2+3), Edge 1, success."""
    beats = {"success_comparison": "beats"}
    first = rules.resolve("check", dice=[1, 2, 2, 5, 6], pool=5, difficulty=5, options=beats)
    assert named(first.results) == {"score": 5, "edge": 2, "outcome": "failure", "quality": "Great",
                                    "twist_allowed": True}
    twist = rules.resolve("twist", dice=[3, 4], kept_score=5, edge_dice=2, difficulty=5, options=beats)
    assert named(twist.results) == {"score": 8, "edge": 1, "outcome": "success"}


def test_s11_tripwire_detection(rules) -> None:  # type: ignore[no-untyped-def]
    """Scenes chapter, Tripwire: POISE 3 shows 1, 2, 6 against 4: Score 3, a failure, with 1 Edge
    so a Twist may be called."""
    result = rules.resolve("check", dice=[1, 2, 6], pool=3, difficulty=4)
    assert named(result.results) == {"score": 3, "edge": 1, "outcome": "failure", "quality": "Good",
                                     "twist_allowed": True}


def test_penalty_never_takes_the_pool_below_no_dice(rules) -> None:  # type: ignore[no-untyped-def]
    result = rules.resolve("check", dice=[], pool=2, modifier=-3, difficulty=0)
    assert named(result.results) == {"score": 0, "edge": 0, "outcome": "success", "quality": "OK",
                                     "twist_allowed": False}


# ---------------------------------------------------------------- exact odds


def enumerate_check(pool: int, difficulty: int, beats: bool = False) -> dict[str, Counter]:
    """Every face of every die, counted by hand."""
    dists: dict[str, Counter] = {n: Counter() for n in ("score", "edge", "outcome", "quality", "twist_allowed")}
    p = Fraction(1, 6 ** pool)
    for faces in product(range(1, 7), repeat=pool):
        score = sum(f for f in faces if f <= 3)
        edge = sum(1 for f in faces if f >= 4)
        ok = score > difficulty if beats else score >= difficulty
        outcome = "success" if ok else "failure"
        for name, value in (("score", score), ("edge", edge), ("outcome", outcome),
                            ("quality", QUALITY[min(edge, 5)]), ("twist_allowed", not ok and edge >= 1)):
            dists[name][value] += p
    return dists


def plain(dist: Any) -> dict[Any, Fraction]:
    return {(k if isinstance(k, (int, bool)) else str(k)): p for k, p in dist.items()}


@pytest.mark.parametrize(("pool", "difficulty", "beats"), [(1, 1, False), (3, 4, False), (4, 6, True), (6, 9, False)])
def test_check_odds_are_exact(rules, pool: int, difficulty: int, beats: bool) -> None:  # type: ignore[no-untyped-def]
    options = {"success_comparison": "beats"} if beats else None
    odds = rules.odds("check", pool=pool, difficulty=difficulty, options=options)
    assert odds.residual == 0
    expected = enumerate_check(pool, difficulty, beats)
    for name, dist in expected.items():
        assert plain(odds.results[name]) == dict(dist), name


def test_twist_odds_are_exact(rules) -> None:  # type: ignore[no-untyped-def]
    odds = rules.odds("twist", kept_score=2, edge_dice=3, difficulty=5)
    outcome: Counter = Counter()
    for faces in product(range(1, 7), repeat=3):
        score = 2 + sum(f for f in faces if f <= 3)
        outcome["success" if score >= 5 else "failure"] += Fraction(1, 216)
    assert plain(odds.results["outcome"]) == dict(outcome)


# ---------------------------------------------------------------- rolls agree with odds




def test_rolls_agree_with_odds(rules) -> None:  # type: ignore[no-untyped-def]
    chi_square_agrees(rules, "check", "score", 1500, 11, pool=4, difficulty=4)
    chi_square_agrees(rules, "check", "edge", 1500, 12, pool=4, difficulty=4)
    chi_square_agrees(rules, "twist", "score", 1500, 13, kept_score=1, edge_dice=3, difficulty=4)
