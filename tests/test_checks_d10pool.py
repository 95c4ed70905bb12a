"""The d10 pool's Action and Contested Action, written only in rulesets/d10-pool/mechanics.rules.

The notes have no worked dice examples; spec d10pool.md §4.1 restates their numbers as golden
cases (D10-W01, W02, W03, W06, W14 concern the roll), given here with dice that show them.
Odds are compared with an enumeration of faces that follows 10-again chains to a depth: every
count below that depth is compared exactly, and so is the tail beyond it.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product
from typing import Any

import pytest

from runebook.interpreter.core.values import Bound
from runebook.interpreter.rules import load
from checks_helpers import chi_square_agrees

GAME = "d10-pool"
DEGREES = ["Normal", "Competent", "Excellence", "Amazing", "Divine"]


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load(GAME)


def named(results: dict[str, Any]) -> dict[str, Any]:
    return {k: v if isinstance(v, (int, bool, Fraction)) or v is None else str(v) for k, v in results.items()}


# ---------------------------------------------------------------- worked examples


def test_w01_target_number_eight(rules) -> None:  # type: ignore[no-untyped-def]
    """D10-W01: with the default target number 8, a die showing 8 is a success, 7 is not."""
    assert rules.resolve("action", dice=[8], pool=1).results["successes"] == 1
    seven = named(rules.resolve("action", dice=[7], pool=1).results)
    assert (seven["successes"], seven["outcome"]) == (0, "failure")


def test_w02_botch(rules) -> None:  # type: ignore[no-untyped-def]
    """D10-W02: [1, 4, 6] against Difficulty 1: no success and a 1, a Botch: 3 Momentum."""
    result = rules.resolve("action", dice=[1, 4, 6], pool=3)
    assert named(result.results) == {"successes": 0, "total_successes": 0, "outcome": "botch",
                                     "threshold_successes": 0, "degree": None, "momentum": 3}


def test_w03_failure_momentum(rules) -> None:  # type: ignore[no-untyped-def]
    """D10-W03: a failed roll gives 1 Momentum, 2 if it used a Specialty."""
    plain = named(rules.resolve("action", dice=[3, 4, 6], pool=3).results)
    assert (plain["outcome"], plain["momentum"]) == ("failure", 1)
    special = named(rules.resolve("action", dice=[3, 4, 6], pool=3, specialty=1).results)
    assert (special["outcome"], special["momentum"]) == ("failure", 2)


def test_a3_botch_with_a_specialty(rules) -> None:  # type: ignore[no-untyped-def]
    """A3: a Botch with a Specialty gives 4 (additive, the default) or 3 (fixed3)."""
    assert rules.resolve("action", dice=[1, 2], pool=2, specialty=1).results["momentum"] == 4
    fixed = rules.resolve("action", dice=[1, 2], pool=2, specialty=1, options={"botch_momentum": "fixed3"})
    assert fixed.results["momentum"] == 3


def test_w06_contested_tie_goes_to_the_defender(rules) -> None:  # type: ignore[no-untyped-def]
    """D10-W06: actor total 3 against defender total 3: the defender wins."""
    # the actor's 8, 9, 10, 2 and the 10's extra die (1); then the defender's 8, 8, 9, 1
    result = rules.resolve("contested action", dice=[8, 9, 10, 2, 1, 8, 8, 9, 1], pool=4, defender_pool=4)
    assert named(result.results) == {"successes": 3, "defender_successes": 3, "total": 3, "defender_total": 3,
                                     "outcome": "failure", "margin": 0}
    win = rules.resolve("contested action", dice=[8, 9, 10, 8, 3, 8, 8, 9, 1], pool=4, defender_pool=4)
    assert named(win.results)["outcome"] == "success"


@pytest.mark.parametrize(("threshold", "degree"), [(0, "Normal"), (1, "Competent"), (2, "Excellence"),
                                                   (3, "Amazing"), (4, "Divine"), (7, "Divine")])
def test_w14_degree_of_success(rules, threshold: int, degree: str) -> None:  # type: ignore[no-untyped-def]
    """D10-W14: threshold 0/1/2/3/4/7 is Normal / Competent / Excellence / Amazing / Divine / Divine."""
    successes = threshold + 1  # against Difficulty 1
    dice = [9] * successes + [2] * (8 - successes)
    result = named(rules.resolve("action", dice=dice, pool=8).results)
    assert (result["outcome"], result["threshold_successes"], result["degree"]) == ("success", threshold, degree)


def test_ten_again(rules) -> None:  # type: ignore[no-untyped-def]
    """DB.16: every 10 is rolled again, in order, after the pool: 10 and 3, then the 10's extra
    die shows 10 again and its own extra an 8: three successes."""
    result = rules.resolve("action", dice=[10, 3, 10, 8], pool=2, difficulty=2)
    assert [d.cause for d in result.trace.dice()] == [None, None, "explosion", "explosion"]
    assert named(result.results) == {"successes": 3, "total_successes": 3, "outcome": "success",
                                     "threshold_successes": 1, "degree": "Competent", "momentum": 0}


def test_a1_enhancement_gate(rules) -> None:  # type: ignore[no-untyped-def]
    """A1: one success and Enhancement 2 against Difficulty 3. With the default gate (one
    rolled success) the total is 3, a success; with meet_difficulty the bonus needs 3 rolled."""
    result = named(rules.resolve("action", dice=[9, 2, 3], pool=3, difficulty=3, enhancement=2).results)
    assert (result["total_successes"], result["outcome"], result["degree"]) == (3, "success", "Normal")
    gated = named(rules.resolve("action", dice=[9, 2, 3], pool=3, difficulty=3, enhancement=2,
                                options={"enhancement_gate": "meet_difficulty"}).results)
    assert (gated["total_successes"], gated["outcome"]) == (1, "failure")


def test_enhancement_needs_a_success(rules) -> None:  # type: ignore[no-untyped-def]
    """XB.4: no success, no bonus: Enhancement 3 does not save a roll of nothing."""
    result = named(rules.resolve("action", dice=[2, 3], pool=2, enhancement=3).results)
    assert (result["total_successes"], result["outcome"]) == (0, "failure")


def test_a2_failure_on_equal(rules) -> None:  # type: ignore[no-untyped-def]
    """A2: two successes against Difficulty 2 succeed by default (degree Normal); read literally
    ("less than or equal to the Difficulty" fails) they fail."""
    assert str(rules.resolve("action", dice=[8, 8, 1], pool=3, difficulty=2).results["outcome"]) == "success"
    literal = rules.resolve("action", dice=[8, 8, 1], pool=3, difficulty=2,
                            options={"fail_on_equal": "exceed_difficulty"})
    assert str(literal.results["outcome"]) == "failure"


def test_a19_no_dice(rules) -> None:  # type: ignore[no-untyped-def]
    """A19: a pool of 0 rolls nothing: 0 successes, a Failure, not a Botch."""
    result = named(rules.resolve("action", dice=[], pool=0).results)
    assert (result["successes"], result["outcome"], result["momentum"]) == (0, "failure", 1)


# ---------------------------------------------------------------- exact odds


DEPTH = 22  # dice per 10-again chain followed by hand: every count up to 21 is exact
TAIL = 21  # the engine follows chains 20 deep and reports every count from 21 up as one tail


def die_outcomes(target: int, depth: int = DEPTH) -> Counter:
    """One die and its 10-again chain, face by face to ``depth`` dice: (successes, first face
    was a 1) -> probability. A chain cut at the depth has ``depth`` successes or more."""
    out: Counter = Counter()

    def chain(level: int, count: int, p: Fraction, first_one: bool) -> None:
        for face in range(1, 11):
            hits = count + (face >= target)
            one = (face == 1) if level == 0 else first_one
            if face == 10 and level + 1 < depth:
                chain(level + 1, hits, p / 10, one)
            else:
                out[(hits, one)] += p / 10

    chain(0, 0, Fraction(1), False)
    return out


def pool_outcomes(pool: int, target: int) -> Counter:
    """The pool die by die: (successes, a 1 among the first faces) -> probability."""
    acc: Counter = Counter({(0, False): Fraction(1)})
    die = die_outcomes(target)
    for _ in range(pool):
        nxt: Counter = Counter()
        for ((hits_a, one_a), p), ((hits_b, one_b), q) in product(acc.items(), die.items()):
            nxt[(min(hits_a + hits_b, DEPTH), one_a or one_b)] += p * q
        acc = nxt
    return acc


def enumerate_action(pool: int, difficulty: int, enhancement: int, target: int) -> dict[str, Counter]:
    dists: dict[str, Counter] = {n: Counter() for n in ("successes", "outcome", "degree", "momentum")}
    for (rolled, one), p in pool_outcomes(pool, target).items():
        botch = rolled == 0 and one
        total = rolled + (enhancement if rolled >= 1 else 0)
        outcome = "botch" if botch else "success" if total >= difficulty else "failure"
        dists["successes"][min(rolled, TAIL)] += p
        dists["outcome"][outcome] += p
        dists["degree"][DEGREES[min(total - difficulty, 4)] if outcome == "success" else None] += p
        dists["momentum"][0 if outcome == "success" else 3 if botch else 1] += p
    return dists


def keyed(dist: Any) -> dict[Any, Fraction]:
    """Counts as numbers (the tail as TAIL), levels by name."""
    out: dict[Any, Fraction] = {}
    for k, p in dist.items():
        key = TAIL if isinstance(k, Bound) else k if k is None or isinstance(k, int) else str(k)
        out[key] = out.get(key, Fraction(0)) + p
    return out


@pytest.mark.parametrize(("pool", "difficulty", "enhancement", "target"),
                         [(1, 1, 0, 8), (3, 2, 1, 8), (4, 3, 0, 7), (2, 1, 0, 10), (0, 1, 0, 8)])
def test_action_odds_are_exact(rules, pool: int, difficulty: int, enhancement: int, target: int) -> None:  # type: ignore[no-untyped-def]
    odds = rules.odds("action", pool=pool, difficulty=difficulty, enhancement=enhancement, target_number=target)
    expected = enumerate_action(pool, difficulty, enhancement, target)
    assert odds.residual == 0
    for name in ("successes", "outcome", "degree", "momentum"):
        assert keyed(odds.results[name]) == {k: p for k, p in expected[name].items() if p}, name
    assert [k.low for k in odds.results["successes"].keys() if isinstance(k, Bound)] in ([], [TAIL])


def test_contested_odds_are_exact(rules) -> None:  # type: ignore[no-untyped-def]
    """Two dice against two: the actor wins only with more successes; a lost contest with no
    success and a 1 is a Botch. Every world where the defender stays below the tail (21+) is
    decided, and those are compared exactly; when the defender reaches the tail the engine may
    leave the world undecided (the residual: the check's margin cannot be known there), and
    never more than that."""
    odds = rules.odds("contested action", pool=2, defender_pool=2)
    counts: Counter = Counter()  # (successes, botch) -> probability
    for (hits, one), p in pool_outcomes(2, 8).items():
        counts[(min(hits, TAIL), hits == 0 and one)] += p
    defender: Counter = Counter()
    for (hits, _), p in counts.items():
        defender[hits] += p
    pairs = [(a, botch, pa * pd, d) for ((a, botch), pa), (d, pd) in product(counts.items(), defender.items())]
    win = sum(p for a, _, p, d in pairs if d < TAIL and a > d)
    botched = sum(p for a, botch, p, d in pairs if d < TAIL and botch)
    lose = sum(p for a, botch, p, d in pairs if d < TAIL and a <= d and not botch)
    got = keyed(odds.results["outcome"])
    assert got["success"] == win
    assert botched > 0 and botched <= got["botch"] <= botched + defender[TAIL]
    assert lose <= got["failure"] <= lose + defender[TAIL]
    assert got["failure"] + got["botch"] + odds.residual == 1 - win
    assert 0 < defender[TAIL] < Fraction(1, 10 ** 18)


# ---------------------------------------------------------------- rolls agree with odds




def test_action_rolls_agree_with_odds(rules) -> None:  # type: ignore[no-untyped-def]
    chi_square_agrees(rules, "action", "successes", 1500, 3, pool=5, difficulty=2, enhancement=1)
    chi_square_agrees(rules, "action", "outcome", 1500, 4, pool=3, difficulty=2)


def test_contested_rolls_agree_with_odds(rules) -> None:  # type: ignore[no-untyped-def]
    chi_square_agrees(rules, "contested action", "margin", 1000, 5, pool=3, defender_pool=2)


def test_w05_difficulty_below_one_is_refused(rules) -> None:  # type: ignore[no-untyped-def]
    from runebook.dsl.diagnostics import RunebookError

    with pytest.raises(RunebookError) as error:
        rules.resolve("action", pool=3, difficulty=0, dice=[8, 8, 8])
    assert [d.code for d in error.value.diagnostics] == ["E0613"]
