"""QuestWorlds: what the GM's side may do in a long contest. The GM withdrawing from a chained
contest (SRD "Chained Contest": "your GM makes a similar determination for the resistance");
in `Full Extended Contest`, the GM's unrelated actions and disengagement (SRD 5.3.7, 5.3.9)
and the player switching abilities mid-contest (5.3.8). Replays from given dice; exact odds
against enumerations of the two d20 faces written here from the rules text (no masteries:
every rating below 21)."""

from __future__ import annotations

import itertools
from fractions import Fraction
from functools import cache
from typing import Any

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.rules.procedures import CallbackDriver, ChoicePoint
from questworlds_helpers import by_name

FUMBLE, FAILURE, SUCCESS, CRITICAL = range(4)
CHAINED = "chained contest"


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("questworlds")


class Answers:
    """Answers choice points from a table by name (a list: one answer per time asked) and
    records the names asked."""

    def __init__(self, **answers: str | list[str]) -> None:
        self.answers = {k: (list(v) if isinstance(v, list) else v) for k, v in answers.items()}
        self.asked: list[str] = []

    def __call__(self, point: ChoicePoint) -> str:
        self.asked.append(point.name)
        answer = self.answers[point.name]
        return answer.pop(0) if isinstance(answer, list) else answer


def level(face: int, target: int) -> int:
    """§1.4: 1 critical, 20 fumble, at or under the target a success; a target of 0 fails."""
    if target <= 0:
        return FAILURE
    return CRITICAL if face == 1 else FUMBLE if face == 20 else SUCCESS if face <= target else FAILURE


def compare(mine: int, theirs: int, a: int, b: int) -> tuple[str, int]:
    """§1.6: outcome and result steps; equal results go to the higher roll; the same roll, or
    fumble against fumble, is a standoff."""
    if mine == theirs and (a == b or mine == FUMBLE):
        return "tie", 0
    if mine > theirs or (mine == theirs and a > b):
        return "victory", abs(mine - theirs)
    return "defeat", abs(mine - theirs)


def contest(target: int, resistance: int) -> dict[tuple[str, int], Fraction]:
    """One simple contest over the 400 face pairs: (outcome, steps) → chance."""
    found: dict[tuple[str, int], Fraction] = {}
    for a, b in itertools.product(range(1, 21), repeat=2):
        key = compare(level(a, target), level(b, resistance), a, b)
        found[key] = found.get(key, Fraction(0)) + Fraction(1, 400)
    return found


# ------------------------------------------------------------------ chained: the GM withdraws


def _chained(player_withdraws: bool, gm_withdraws: bool) -> dict[str | None, Fraction]:
    """Winner odds of a chained contest at 15 against 14 when each side always presses on or
    always withdraws. T21: a marginal or minor defeat hurts (hurt: injured; injured: dying),
    a major one injures (injured: dying), a complete one leaves the loser dying; penalties
    hurt 3, injured 9, the worst replacing, on both sides. A withdrawing side that wins the
    round leaves, inflicting nothing (no winner); one that loses takes the harm. Both
    withdrawing: the contest ends at once, with no winner."""
    cost = {"hurt": 3, "injured": 9}
    if player_withdraws and gm_withdraws:
        return {None: Fraction(1)}

    def worsen(h: str, steps: int) -> str:
        if steps == 3 or h == "injured":
            return "dying"
        return "injured" if steps == 2 or h == "hurt" else "hurt"

    @cache
    def finish(mine: str, theirs: str) -> dict[str | None, Fraction]:
        if theirs == "dying":
            return {"player": Fraction(1)}
        if mine == "dying":
            return {"opposition": Fraction(1)}
        rounds = contest(15 - cost.get(mine, 0), 14 - cost.get(theirs, 0))
        stay = rounds.get(("tie", 0), Fraction(0))
        total: dict[str | None, Fraction] = {}

        def add(who: str | None, p: Fraction) -> None:
            total[who] = total.get(who, Fraction(0)) + p / (1 - stay)

        for (outcome, steps), p in rounds.items():
            if outcome == "victory":
                if player_withdraws:
                    add(None, p)
                else:
                    for who, q in finish(mine, worsen(theirs, steps)).items():
                        add(who, p * q)
            elif outcome == "defeat":
                if gm_withdraws:
                    add(None, p)
                else:
                    for who, q in finish(worsen(mine, steps), theirs).items():
                        add(who, p * q)
        return total

    return finish("unharmed", "unharmed")


@pytest.mark.parametrize(("move", "opposition_move"), [
    ("press_on", "opposition_withdraw"), ("withdraw", "opposition_press_on"), ("press_on", "opposition_press_on"),
    ("withdraw", "opposition_withdraw")])
def test_chained_odds_with_the_gm_declaring_match_an_enumeration(rules, move: str, opposition_move: str) -> None:  # type: ignore[no-untyped-def]
    odds = rules.odds(CHAINED, ability=15, resistance=14, opposition_withdrawals=1,
                      answers={"move": move, "opposition_move": opposition_move})
    assert _winners(odds) == _chained(move == "withdraw", opposition_move == "opposition_withdraw")


def test_without_the_input_the_gm_is_not_asked(rules) -> None:  # type: ignore[no-untyped-def]
    """The default keeps today's contest: the GM is never asked and the results are the same."""
    driver = Answers(move="press_on")
    run = rules.run(CHAINED, ability=15, resistance=14, dice=[5, 16, 5, 16, 12, 5], driver=CallbackDriver(driver))
    assert driver.asked == ["move"] * 3
    assert "opposition_disengaged" not in run.results
    plain = rules.odds(CHAINED, ability=15, resistance=14)
    asked = rules.odds(CHAINED, ability=15, resistance=14, opposition_withdrawals=1)
    assert plain.results["winner"] == asked.results["winner"]
    assert _winners(plain) == _chained(False, False)


def _winners(odds: Any) -> dict[str | None, Fraction]:
    return {(None if k is None else k.name): v for k, v in odds.results["winner"].items() if v}


def test_the_gm_withdraws_on_a_won_round(rules) -> None:  # type: ignore[no-untyped-def]
    # 5 vs 16: the player wins (minor): the GM, withdrawing, is hurt and stays. 17 vs 5: the
    # GM wins the round (minor) and leaves, inflicting nothing: no winner, the prize is the
    # player's (a side that disengages forfeits it, AMB-25).
    driver = Answers(move="press_on", opposition_move="opposition_withdraw")
    run = rules.run(CHAINED, ability=15, resistance=14, opposition_withdrawals=1, dice=[5, 16, 17, 5],
                    driver=CallbackDriver(driver))
    assert driver.asked == ["move", "opposition_move"] * 2
    assert by_name(run.results) == {
        "winner": None, "outcome": "victory", "disengaged": False, "opposition_disengaged": True,
        "harm": "unharmed", "opposition_harm": "hurt", "penalty": 0, "opposition_penalty": 3}


def test_both_sides_withdrawing_end_the_contest_without_a_roll(rules) -> None:  # type: ignore[no-untyped-def]
    driver = Answers(move=["press_on", "withdraw"], opposition_move="opposition_withdraw")
    # 20 vs 16: the player loses (minor) while the GM withdraws: the GM leaves at once.
    run = rules.run(CHAINED, ability=15, resistance=14, opposition_withdrawals=1, dice=[20, 16],
                    driver=CallbackDriver(driver))
    assert by_name(run.results)["opposition_disengaged"] is True and by_name(run.results)["harm"] == "unharmed"
    run = rules.run(CHAINED, ability=15, resistance=14, opposition_withdrawals=1, dice=[5, 16],
                    driver=CallbackDriver(Answers(move=["press_on", "withdraw"],
                                                  opposition_move=["opposition_press_on", "opposition_withdraw"])))
    # 5 vs 16 hurts the GM; then both withdraw: the contest ends with no second roll.
    assert by_name(run.results) == {
        "winner": None, "outcome": "defeat", "disengaged": True, "opposition_disengaged": True,
        "harm": "unharmed", "opposition_harm": "hurt", "penalty": 0, "opposition_penalty": 3}
    # (two faces given: a second roll would have run out of dice, E0501)


def test_the_gm_declaration_is_checked(rules) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError, match="E0613"):
        rules.run(CHAINED, ability=15, resistance=14, opposition_withdrawals=2, dice=[5, 16])
