"""QuestWorlds as a GM meets it at the table (spec questworlds.md): the simple contest under
the book's name (SRD 4.1), the chained contest option no other test plays (AMB-25
`chained_npc_penalties`), a target number of 0 or less (§1.8, AMB-50) and equal results
under `tied_results=same_result` (AMB-7)."""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from typing import Any

import pytest

from runebook import interpreter
from runebook.interpreter.rules.procedures import ScriptedDriver
from questworlds_helpers import by_name, compare, d20_level


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("questworlds")


RESULTS = ["fumble", "failure", "success", "critical"]
DEGREES = ["marginal", "minor", "major", "complete"]


# ---------------------------------------------------------------- the book's name for the roll


@pytest.mark.parametrize(("ability", "resistance", "faces"), [
    ("7M", 14, (10, 3)),    # T-8: a failure bumped to a success, won on the higher roll
    (15, "14M", (1, 20)),   # the resistance's mastery: its fumble bumped to a failure
    (15, 14, (17, 5)),      # a defeat a hero point would turn (hero_outcome)
    (15, 14, (12, 12)),     # same result, same roll: a standoff
])
def test_simple_contest_is_the_contest(rules, ability: Any, resistance: Any, faces: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """`Simple Contest`, as SRD 4.1 names it, gives what `Contest` gives on the same dice."""
    simple = rules.resolve("simple contest", dice=list(faces), ability=ability, resistance=resistance).results
    plain = rules.resolve("contest", dice=list(faces), ability=ability, resistance=resistance).results
    assert by_name(simple) == by_name(plain)


def test_simple_contest_odds_match_an_enumeration(rules) -> None:  # type: ignore[no-untyped-def]
    """15 against 14, no masteries: every pair of faces, compared as §1.4-§1.6 say."""
    outcomes: dict[str, Fraction] = {}
    degrees: dict[Any, Fraction] = {}
    for a, b in product(range(1, 21), repeat=2):
        outcome, steps = compare(d20_level(a, 15), d20_level(b, 14), a, b)
        degree = None if outcome == "tie" else DEGREES[steps]
        outcomes[outcome] = outcomes.get(outcome, Fraction(0)) + Fraction(1, 400)
        degrees[degree] = degrees.get(degree, Fraction(0)) + Fraction(1, 400)
    odds = rules.odds("simple contest", ability=15, resistance=14)
    assert odds.residual == 0
    assert {str(k): p for k, p in odds.results["outcome"].items()} == outcomes
    assert {(None if k is None else str(k)): p for k, p in odds.results["degree"].items()} == degrees


# ---------------------------------------------------------------- AMB-25: chained penalties on the resistance


def chained(rules, option: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """15 against 14. Round 1 (5, 17): success against failure, a minor victory: the
    resistance is hurt. Round 2 (16, 13): the player fails; the resistance's 13 fails against
    14 - 3 = 11 (a failure each, the higher roll 16 wins: hurt again, so injured) or succeeds
    against 14 when the penalty is ignored (a minor defeat: the player is hurt). Round 3
    (1, 20): critical against fumble, complete: the resistance is dying."""
    run = rules.run("chained contest", ability=15, resistance=14, dice=[5, 17, 16, 13, 1, 20],
                    driver=ScriptedDriver(["press_on"] * 3), options={"chained_npc_penalties": option})
    return by_name(run.results)


def test_chained_penalties_apply_to_the_resistance_by_default(rules) -> None:  # type: ignore[no-untyped-def]
    r = chained(rules, "apply")
    assert (r["winner"], r["harm"], r["penalty"], r["opposition_harm"]) == ("player", "unharmed", 0, "dying")


def test_chained_penalties_on_the_resistance_can_be_ignored(rules) -> None:  # type: ignore[no-untyped-def]
    r = chained(rules, "ignore")
    assert (r["winner"], r["harm"], r["penalty"], r["opposition_harm"]) == ("player", "hurt", 3, "dying")


# ---------------------------------------------------------------- reported, not fixed: TN 0 or less


@pytest.mark.parametrize("faces", [(18, 16), (18, 20)])
def test_a_target_of_zero_or_less_cannot_win(rules, faces: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """§1.8 (SRD 2.12, L899), AMB-50: penalties that take the target number to 0 or less make
    any attempt with the ability fail ("You must find another way"): no roll of the player's
    die can win the contest. Ability 5 with -6 (target -1) against 14: the resistance fails
    (16) or fumbles (20), and the player must still not take the prize."""
    r = by_name(rules.resolve("contest", dice=list(faces), ability=5, modifier=-6, resistance=14).results)
    assert r["result"] == "failure"
    assert r["outcome"] == "defeat"


@pytest.mark.parametrize(("faces", "points", "opposition_points"), [
    ((10, 5), 5, 0),   # success against success, the player's higher roll: no score, then 5
    ((5, 10), 0, 5),   # the resistance's higher roll: no score, then 5 against the player
])
def test_equal_results_leave_the_score_unchanged_under_same_result(rules, faces: tuple[int, int], points: int,  # type: ignore[no-untyped-def]
                                                                   opposition_points: int) -> None:
    """AMB-7 option `tied_results=same_result`: "tied results leave the score unchanged" — any
    two equal results score nothing, a risky gambit's adjustment included (it changes what a
    round's winner lodges; such a round has none). Round 2 is a complete result (5 points)."""
    second = [1, 20] if points else [20, 1]
    answers = ["risky_gambit", "normal"] + (["decline"] if points else [])
    run = rules.run("scored contest", ability=15, resistance=14, dice=[*faces, *second],
                    driver=ScriptedDriver(answers), options={"tied_results": "same_result"})
    assert (run.results["points"], run.results["opposition_points"]) == (points, opposition_points)


def test_a_target_of_zero_or_less_never_wins_in_exact_odds(rules) -> None:  # type: ignore[no-untyped-def]
    """The same over every pair of faces: Contest's exact odds put no chance on a victory."""
    odds = rules.odds("contest", ability=5, modifier=-6, resistance=14)
    assert dict(odds.results["outcome"]) == {by_name_level(rules, "defeat"): 1}


def by_name_level(rules, name: str) -> Any:  # type: ignore[no-untyped-def]
    """The level named ``name`` as odds key it."""
    return next(level for level in rules.odds("contest", ability=15, resistance=14).results["outcome"]
                if str(level).lower() == name)


@pytest.mark.parametrize(("faces", "outcome"), [((18, 16), "victory"), ((18, 20), "victory"), ((18, 1), "defeat")])
def test_a_hero_point_allowed_at_a_target_of_zero_meets_the_resistance(rules, faces: tuple[int, int],  # type: ignore[no-untyped-def]
                                                                       outcome: str) -> None:
    """Option zero_target=hero_point_allowed: the spent hero point bumps the forced failure to
    a success, which then meets the resistance's result as any other (16: a failure; 20: a
    fumble; 1: a critical, which wins)."""
    r = by_name(rules.resolve("contest", dice=list(faces), ability=5, modifier=-6, resistance=14, hero_point=1,
                              options={"zero_target": "hero_point_allowed"}).results)
    assert r["result"] == "success"
    assert r["outcome"] == outcome
    unspent = by_name(rules.resolve("contest", dice=list(faces), ability=5, modifier=-6, resistance=14,
                                    options={"zero_target": "hero_point_allowed"}).results)
    assert unspent["outcome"] == "defeat" and unspent["hero_outcome"] == outcome


def test_against_roll_at_a_target_of_zero_is_a_defeat(rules) -> None:  # type: ignore[no-untyped-def]
    """`Against Roll` (the GM's one roll met by each member) fails a target of 0 or less too."""
    r = by_name(rules.resolve("against roll", dice=[18], ability=5, modifier=-6, resistance=14,
                              resistance_face=16).results)
    assert (r["result"], r["outcome"], r["hero_outcome"]) == ("failure", "defeat", "defeat")
    fine = by_name(rules.resolve("against roll", dice=[12], ability=15, resistance=14, resistance_face=16).results)
    assert fine["outcome"] == "victory"


def test_group_scored_contest_lodges_nothing_for_equal_results_under_same_result(rules) -> None:  # type: ignore[no-untyped-def]
    """The group scored contest's pairings score as the scored contest does: one member (15)
    against one opponent (14), risky gambits both rounds. Round 1, equal results (10 and 5,
    both successes) lodge nothing under same_result; round 2, a complete result (1 against 20)
    lodges 5 + 1. The opponent, out at 6 to 0, takes Rising Loser[6]: injured (the gamble's +1
    lodged in round 1 made it 7: dying). Under the default the higher roll wins round 1 (a
    marginal victory, 1 + 1): 8 to 0, dead."""
    def loser(options: dict[str, str]) -> str:
        run = rules.run("group scored contest", abilities=[15], resistances=[14], dice=[10, 5, 1, 20],
                        driver=ScriptedDriver(["risky_gambit", "risky_gambit"]), options=options)
        return str(run.results["opposition_consequences"][0]).lower()

    assert loser({"tied_results": "same_result"}) == "injured"
    assert loser({}) == "dead"
