"""Mezzo's Action Check, Major Action and Tiebreaker, written only in rulesets/mezzo/mechanics.rules.

Worked examples: spec mezzo.md §5.1 (T01-T04, T13-T15) and the book's Leave to Chance,
Law Limits, Restraint and Major Actions sections. Odds are compared with an enumeration of
every face of the dice the votes give, built from the book's table, not from the engine.
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from itertools import product
from typing import Any

import pytest

from runebook.interpreter.rules import load
from checks_helpers import chi_square_agrees

GAME = "mezzo"
LADDER = [4, 6, 8, 10, 12]


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load(GAME)


def named(results: dict[str, Any]) -> dict[str, Any]:
    return {k: v if isinstance(v, (int, bool, Fraction)) or v is None else str(v) for k, v in results.items()}


def dice_for(votes: int, restraints: int = 0, shorter: bool = False) -> list[int]:
    """The sides of the dice an option with these votes rolls (the book's table, spec §3.2, A4)."""
    if restraints >= 5:
        return []
    ladder = LADDER[: 5 - restraints] if shorter else LADDER
    v = max(votes, 0)
    sides = [ladder[-1]] * (v // len(ladder)) + ([ladder[v % len(ladder) - 1]] if v % len(ladder) else [])
    return [min(s, LADDER[4 - restraints]) for s in sides]


def labels(result: Any) -> list[str]:
    """The dice a resolution rolled, in order."""
    return [d.label for d in result.trace.dice()]


# ---------------------------------------------------------------- worked examples


@pytest.mark.parametrize(("votes", "dice"), [(0, []), (1, ["d4"]), (2, ["d6"]), (3, ["d8"]), (4, ["d10"]),
                                            (5, ["d12"]), (6, ["d12", "d4"]), (7, ["d12", "d6"]),
                                            (8, ["d12", "d8"])])
def test_t01_t02_votes_become_dice(rules, votes: int, dice: list[str]) -> None:  # type: ignore[no-untyped-def]
    """T01/T02: the book's table of votes and dice (the 2nd vote makes the d4 a d6, the 3rd a d8)."""
    result = rules.resolve("action check", dice=[1] * len(dice), action_votes=votes, failure_votes=0)
    assert labels(result) == dice


def test_score_is_the_highest_single_die(rules) -> None:  # type: ignore[no-untyped-def]
    """§3.3: d12 & d4 showing 3 and 4 score 4; a d8 showing 4 against it ties."""
    result = rules.resolve("action check", dice=[3, 4, 4], action_votes=6, failure_votes=3)
    assert named(result.results) == {"action_score": 4, "failure_score": 4, "outcome": "tie"}


def test_t03_no_dice_scores_one(rules) -> None:  # type: ignore[no-untyped-def]
    """T03: an option with no votes has no dice and scores 1; a failure d6 showing 1 ties it."""
    result = rules.resolve("action check", dice=[1], action_votes=0, failure_votes=2)
    assert labels(result) == ["d6"]
    assert named(result.results) == {"action_score": 1, "failure_score": 1, "outcome": "tie"}
    beaten = rules.resolve("action check", dice=[2], action_votes=0, failure_votes=2)
    assert named(beaten.results)["outcome"] == "failure"


def test_t04_law_limits(rules) -> None:  # type: ignore[no-untyped-def]
    """T04: 4 laws for the action and 1 against it would be +3 votes; Law Limits make it +2.
    With Occasional base chance (1 vote) the action rolls a d8, not a d10."""
    result = rules.resolve("action check", dice=[8, 3], action_votes=1, action_laws=4 - 1, failure_votes=1)
    assert labels(result) == ["d8", "d4"]
    assert named(result.results) == {"action_score": 8, "failure_score": 3, "outcome": "success"}


def test_a6_law_limits_per_check(rules) -> None:  # type: ignore[no-untyped-def]
    """A6: per option (default) the failure's 3 laws are held at +2 too; per check the net
    (1 - 3 = -2) is taken from the action and the failure gets none."""
    per_option = rules.resolve("action check", dice=[1, 1], action_votes=2, action_laws=1, failure_votes=1,
                               failure_laws=3)
    assert labels(per_option) == ["d8", "d8"]
    per_check = rules.resolve("action check", dice=[1], action_votes=2, action_laws=1, failure_votes=1,
                              failure_laws=3, options={"law_limits": "per_check"})
    assert labels(per_check) == ["d4"]


def test_t13_one_restraint_caps_at_d10(rules) -> None:  # type: ignore[no-untyped-def]
    """T13: one restraint, 5 votes (normally a d12): a d10."""
    result = rules.resolve("action check", dice=[10, 2], action_votes=5, failure_votes=1, restraints=1)
    assert labels(result) == ["d10", "d4"]
    assert named(result.results)["action_score"] == 10


def test_t14_all_dice_locked_out(rules) -> None:  # type: ignore[no-untyped-def]
    """T14: five restraints lock out every die: the action scores 1 whatever its votes."""
    result = rules.resolve("action check", dice=[1], action_votes=9, failure_votes=1, restraints=5)
    assert labels(result) == ["d4"]
    assert named(result.results) == {"action_score": 1, "failure_score": 1, "outcome": "tie"}


@pytest.mark.parametrize(("cap", "dice"), [("each_die", ["d10", "d4"]), ("shorter_ladder", ["d10", "d6"])])
def test_a4_restraint_with_six_votes(rules, cap: str, dice: list[str]) -> None:  # type: ignore[no-untyped-def]
    """A4: 6 votes and one restraint: each die held at d10 (d10 & d4, default) or a shorter
    ladder that climbs again after d10 (d10 & d6)."""
    result = rules.resolve("action check", dice=[1, 1, 1], action_votes=6, failure_votes=1, restraints=1,
                           options={"restraint_cap": cap})
    assert labels(result) == dice + ["d4"]


def test_a2_negative_votes_roll_nothing(rules) -> None:  # type: ignore[no-untyped-def]
    """A2: a law can take an option below 0 votes: it has no dice and scores 1."""
    result = rules.resolve("action check", dice=[1], action_votes=1, action_laws=-2, failure_votes=1)
    assert labels(result) == ["d4"]
    assert named(result.results)["action_score"] == 1


def test_a12_sudden_surge(rules) -> None:  # type: ignore[no-untyped-def]
    """A12: Sudden Surge adds 1 to the action's score, after the roll, before the winner is
    decided: a 3 against a 4 becomes a tie."""
    result = rules.resolve("action check", dice=[3, 4], action_votes=2, failure_votes=2, surge=1)
    assert named(result.results) == {"action_score": 4, "failure_score": 4, "outcome": "tie"}


@pytest.mark.parametrize(("faces", "outcome", "major", "minor", "adversity"), [
    ([8, 4], "double_success", 2, 0, 0),
    ([8, 5], "major_success", 1, 0, 0),
    ([5, 5], "major_tie", 0, 1, 0),
    ([3, 5], "major_failure", 0, 0, 1),
])
def test_t15_major_action(rules, faces: list[int], outcome: str, major: int, minor: int, adversity: int) -> None:  # type: ignore[no-untyped-def]
    """T15 and the Major Actions section: double the highest opposing roll or more is 2 major
    perks; higher is 1; a tie 1 minor perk; lower nothing and a point of adversity."""
    result = rules.resolve("major action", dice=faces, action_votes=3, opposing_votes=3)
    assert named(result.results) == {"action_score": faces[0], "opposing_score": faces[1], "outcome": outcome,
                                     "major_perks": major, "minor_perks": minor, "adversity": adversity}


def test_a_major_action_is_an_action_check_under_restraints_and_surge(rules) -> None:  # type: ignore[no-untyped-def]
    """§3.12: major actions are treated as action checks, so a restraint caps them too (T13):
    5 votes and one restraint roll a d10 (10) against a d12 (5): double. Sudden Surge (A12)
    adds 1 to the score: a d10 showing 4 against 5 becomes a tie, one minor perk."""
    capped = rules.resolve("major action", dice=[10, 5], action_votes=5, opposing_votes=5, restraints=1)
    assert labels(capped) == ["d10", "d12"]
    assert named(capped.results)["outcome"] == "double_success"
    surged = rules.resolve("major action", dice=[4, 5], action_votes=4, opposing_votes=5, surge=1)
    assert named(surged.results)["action_score"] == 5 and named(surged.results)["minor_perks"] == 1
    locked = rules.resolve("major action", dice=[1], action_votes=9, opposing_votes=1, restraints=5)
    assert labels(locked) == ["d4"] and named(locked.results)["outcome"] == "major_tie"


def test_tiebreaker_roll(rules) -> None:  # type: ignore[no-untyped-def]
    """Breaking Ties: a d12 for each tied option; the D6 variant rolls d6s."""
    result = rules.resolve("tiebreaker", dice=[11, 4])
    assert labels(result) == ["d12", "d12"]
    assert named(result.results) == {"outcome": "success"}
    d6 = rules.resolve("tiebreaker", dice=[2, 2], options={"tiebreaker_die": "six_sided"})
    assert labels(d6) == ["d6", "d6"]
    assert named(d6.results) == {"outcome": "tie"}


# ---------------------------------------------------------------- exact odds


def enumerate_check(action: list[int], failure: list[int], surge: int = 0) -> dict[str, Counter]:
    dists: dict[str, Counter] = {n: Counter() for n in ("action_score", "failure_score", "outcome")}
    sides = action + failure
    p = Fraction(1, math.prod(sides))
    for faces in product(*[range(1, s + 1) for s in sides]):
        a = max(faces[: len(action)], default=1) + surge
        f = max(faces[len(action):], default=1)
        dists["action_score"][a] += p
        dists["failure_score"][f] += p
        dists["outcome"]["success" if a > f else "failure" if a < f else "tie"] += p
    return dists


@pytest.mark.parametrize(("inputs", "options"), [
    ({"action_votes": 2, "failure_votes": 1}, None),
    ({"action_votes": 6, "failure_votes": 3}, None),
    ({"action_votes": 0, "failure_votes": 4}, None),
    ({"action_votes": 7, "failure_votes": 2, "restraints": 1}, None),
    ({"action_votes": 7, "failure_votes": 2, "restraints": 2}, {"restraint_cap": "shorter_ladder"}),
    ({"action_votes": 1, "failure_votes": 2, "action_laws": 4, "surge": 1}, None),
])
def test_action_check_odds_are_exact(rules, inputs: dict[str, int], options: dict[str, str] | None) -> None:  # type: ignore[no-untyped-def]
    odds = rules.odds("action check", options=options, **inputs)
    restraints = inputs.get("restraints", 0)
    shorter = bool(options and options.get("restraint_cap") == "shorter_ladder")
    action = dice_for(inputs["action_votes"] + max(-2, min(2, inputs.get("action_laws", 0))), restraints, shorter)
    failure = dice_for(inputs["failure_votes"])
    expected = enumerate_check(action, failure, inputs.get("surge", 0))
    assert odds.residual == 0
    for name, dist in expected.items():
        assert {(k if isinstance(k, int) else str(k)): p for k, p in odds.results[name].items()} == dict(dist), name


def test_major_action_odds_are_exact(rules) -> None:  # type: ignore[no-untyped-def]
    odds = rules.odds("major action", action_votes=4, opposing_votes=7)
    outcome: Counter = Counter()
    for a, o1, o2 in product(range(1, 11), range(1, 13), range(1, 7)):
        o = max(o1, o2)
        outcome["double_success" if a > o and a >= 2 * o else "major_success" if a > o
                else "major_tie" if a == o else "major_failure"] += Fraction(1, 10 * 12 * 6)
    assert {str(k): p for k, p in odds.results["outcome"].items()} == dict(outcome)


def test_tiebreaker_odds_are_exact(rules) -> None:  # type: ignore[no-untyped-def]
    odds = rules.odds("tiebreaker")
    outcome: Counter = Counter()
    for a, f in product(range(1, 13), repeat=2):
        outcome["success" if a > f else "failure" if a < f else "tie"] += Fraction(1, 144)
    assert {str(k): p for k, p in odds.results["outcome"].items()} == dict(outcome)


# ---------------------------------------------------------------- rolls agree with odds




def test_action_check_rolls_agree_with_odds(rules) -> None:  # type: ignore[no-untyped-def]
    chi_square_agrees(rules, "action check", "action_score", 1200, 21, action_votes=7, failure_votes=2)


def test_major_action_rolls_agree_with_odds(rules) -> None:  # type: ignore[no-untyped-def]
    chi_square_agrees(rules, "major action", "outcome", 800, 22, action_votes=5, opposing_votes=3)


def test_tiebreaker_rolls_agree_with_odds(rules) -> None:  # type: ignore[no-untyped-def]
    chi_square_agrees(rules, "tiebreaker", "outcome", 800, 23)
