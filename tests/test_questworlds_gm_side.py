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
from questworlds_helpers import Stop, absorb, by_name, ceil_div, compare, d20_level, exchange_moves, rolls

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


def contest(target: int, resistance: int) -> dict[tuple[str, int], Fraction]:
    """One simple contest over the 400 face pairs: (outcome, steps) → chance."""
    found: dict[tuple[str, int], Fraction] = {}
    for a, b in itertools.product(range(1, 21), repeat=2):
        key = compare(d20_level(a, target), d20_level(b, resistance), a, b)
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


# ------------------------------------------------------------------ the full extended contest

FULL = "full extended contest"


def _extended_with_gm_disengaging(ability: int, resistance: int, bid: int, gm_bid: int, gm: str) -> dict[Any, Fraction]:
    """Winner odds of an extended contest in which the player always acts with the standard
    bid (held at the AP held, T-26) and the GM always does `gm`: `respond` (an exchange with
    its bid, held at its AP), `unrelated` (nothing) or `disengage` (a simple contest, the
    player's die first: the player's defeat lets the GM leave, no winner; the player's victory
    takes T18's share of the GM's current AP: 1/8, 1/4, 1/2 rounded up, or all but 1). An
    exchange (T15): a standoff moves nothing; else the loser loses the bid times the result
    steps, or half the bid rounded up for equal results; a winner with a critical gains it.
    The contest ends at 0 AP or fewer; no parting shot (declined)."""
    table = rolls(ability, resistance)

    def exchange(ap: int, oap: int, stake: int, then: str) -> list[tuple[Fraction, Any]]:
        out = []
        for (outcome, steps, mine, theirs), p in table.items():
            mine_change, theirs_change = exchange_moves(outcome, steps, mine, theirs, stake)
            a, o = ap + mine_change, oap + theirs_change
            out.append((p, ("end", "player") if o <= 0 else ("end", "opposition") if a <= 0 else (then, a, o)))
        return out

    def step(state: Any) -> list[tuple[Fraction, Any]]:
        turn, ap, oap = state
        if turn == "player":
            return exchange(ap, oap, min(bid, ap), "gm")
        if gm == "respond":
            return exchange(ap, oap, min(gm_bid, oap), "player")
        if gm == "unrelated":
            return [(Fraction(1), ("player", ap, oap))]
        out = []
        for (outcome, steps, _mine, _theirs), p in table.items():
            if outcome == "defeat":
                out.append((p, ("end", None)))
                continue
            taken = 0 if outcome == "tie" else [ceil_div(oap, 8), ceil_div(oap, 4), ceil_div(oap, 2), oap - 1][steps]
            out.append((p, ("end", "player") if oap - taken <= 0 else ("player", ap + taken, oap - taken)))
        return out

    return absorb(("player", ability, resistance), step)


@pytest.mark.parametrize(("gm", "answer"), [("respond", "respond"), ("unrelated", "opposition_unrelated"),
                                            ("disengage", "opposition_disengage")])
def test_the_gms_actions_match_an_enumeration(rules, gm: str, answer: str) -> None:  # type: ignore[no-untyped-def]
    odds = rules.odds(FULL, ability=5, resistance=4, opposition_bid=2, answers={"opposition_action": answer})
    assert _winners(odds) == _extended_with_gm_disengaging(5, 4, 3, 2, gm)
    if gm == "disengage":
        assert odds.results["opposition_disengaged"][True] == _winners(odds)[None]


@pytest.mark.parametrize(("inputs", "answers"), [
    ({"ability": 5, "resistance": 4}, {}),
    ({"ability": 5, "resistance": 4, "hero_points": 1}, {"hero_point": "use"}),
    ({"ability": 6, "resistance": 5}, {"bid": "all_in", "parting_shot": "attempt"}),
    ({"ability": 5, "resistance": 4}, {"action": "desperation_stake", "bid": "all_in"}),
])
def test_with_the_first_answers_it_is_the_extended_contest(rules, inputs: dict[str, Any], answers: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    """The GM responding every time (the first option), the two procedures agree exactly."""
    full = rules.odds(FULL, answers=answers, **inputs)
    plain = rules.odds("extended contest", answers=answers, **inputs)
    assert full.states == plain.states
    for name, distribution in plain.results.items():
        assert full.results[name] == distribution, name
    assert set(full.results) == set(plain.results) | {"opposition_disengaged"}


def test_the_gm_disengages(rules) -> None:  # type: ignore[no-untyped-def]
    # The player acts (bid 3): 5 vs 16, success against failure, a minor victory: the
    # resistance loses 1 x 3 (14 - 3 = 11). The GM disengages: 1 vs 16, the player's critical
    # against a failure (major): the GM stays and hands over half its AP, rounded up (6: 11 -
    # 6, 15 + 6). The player acts again: 10 vs 10, a standoff. The GM disengages: 16 vs 5,
    # the player's defeat: the GM leaves.
    driver = Answers(action="act", bid="standard", opposition_action="opposition_disengage")
    run = rules.run(FULL, ability=15, resistance=14, dice=[5, 16, 1, 16, 10, 10, 16, 5], driver=CallbackDriver(driver))
    assert driver.asked == ["action", "bid", "opposition_action"] * 2
    assert by_name(run.results) == {
        "winner": None, "outcome": "victory", "disengaged": False, "opposition_disengaged": True,
        "ap": 21, "opposition_ap": 5, "degree": None, "consequence": "unharmed",
        "opposition_consequence": "unharmed", "benefit": None, "opposition_benefit": None}


def test_the_gm_forfeits_an_exchange(rules) -> None:  # type: ignore[no-untyped-def]
    # 5 vs 16: a minor victory, 14 - 3 = 11; the GM's unrelated action rolls nothing; 1 vs 20:
    # critical against fumble, complete: 3 x 3 = 9 moves to the player (a critical gains
    # them): 11 - 9 = 2, 15 + 9 = 24; nothing again; 1 vs 20 once more: 2 - 9 = -7, a
    # marginal defeat for the resistance.
    driver = Answers(action="act", bid="standard", opposition_action="opposition_unrelated", parting_shot="decline")
    run = rules.run(FULL, ability=15, resistance=14, dice=[5, 16, 1, 20, 1, 20], driver=CallbackDriver(driver))
    assert driver.asked == ["action", "bid", "opposition_action"] * 2 + ["action", "bid", "parting_shot"]
    results = by_name(run.results)
    assert (results["winner"], results["ap"], results["opposition_ap"], results["degree"]) == ("player", 33, -7, "marginal")


def test_switching_abilities_keeps_the_ap(rules) -> None:  # type: ignore[no-untyped-def]
    """5.3.8: the other ability is rolled from the switch on, back and forth, the AP stay as
    figured from the first, and the GM may set another resistance against it. Each round the
    player acts (bid 3) on 12 vs 5 and the GM forfeits its exchange. With 10 against 6 that
    is a failure against a success, a minor defeat: the player loses 3; with 15 against 14 a
    success against a success, won on the higher roll: the resistance loses half of 3, 2."""
    driver = Answers(switch=["switch_ability", "keep_ability", "switch_ability"], action="act", bid="standard",
                     opposition_action="opposition_unrelated")
    seen: list[tuple[int, int]] = []

    def answer(point: ChoicePoint) -> str:
        if point.name == "switch":
            seen.append((point.state["ap"], point.state["opposition_ap"]))
            if len(seen) == 4:
                raise Stop
        return driver(point)

    with pytest.raises(Stop):
        rules.run(FULL, ability=15, resistance=14, switches=10, switch_resistance=6,
                  dice=[12, 5] * 3, driver=CallbackDriver(answer))
    assert seen == [(15, 14), (12, 14), (9, 14), (9, 12)]
    assert driver.asked[:3] == ["switch", "action", "bid"]


def test_no_switch_is_asked_without_another_ability(rules) -> None:  # type: ignore[no-untyped-def]
    driver = Answers(action="act", bid="standard", opposition_action="opposition_disengage")
    rules.run(FULL, ability=15, resistance=14, dice=[5, 16, 16, 5], driver=CallbackDriver(driver))
    assert "switch" not in driver.asked


def test_switching_odds(rules) -> None:  # type: ignore[no-untyped-def]
    """Always switching to an ability rated as the first is the plain contest; always
    switching to a worse one (the GM's resistance unchanged) loses more often."""
    same = rules.odds(FULL, ability=5, resistance=4, switches=5, answers={"switch": "switch_ability"})
    plain = rules.odds(FULL, ability=5, resistance=4)
    worse = rules.odds(FULL, ability=5, resistance=4, switches=3, answers={"switch": "switch_ability"})
    assert same.results["winner"] == plain.results["winner"]
    assert _winners(worse) == _extended_switched(5, 3, 4)
    assert _winners(worse)["player"] < _winners(plain)["player"]


def _extended_switched(ability: int, other: int, resistance: int) -> dict[Any, Fraction]:
    """Winner odds when the player switches before every exchange of theirs: the first
    exchange on `other`, the GM's response on it too, the next exchange back on `ability`,
    and so on; AP from `ability` throughout; the GM responds with a bid of 3."""
    tables = {True: rolls(other, resistance), False: rolls(ability, resistance)}

    def exchange(table: Any, ap: int, oap: int, stake: int) -> list[tuple[int, int, Fraction]]:
        out = []
        for (outcome, steps, mine, theirs), p in table.items():
            mine_change, theirs_change = exchange_moves(outcome, steps, mine, theirs, stake)
            out.append((ap + mine_change, oap + theirs_change, p))
        return out

    def step(state: Any) -> list[tuple[Fraction, Any]]:
        turn, switched, ap, oap = state
        if turn == "player":
            switched = not switched
        stake = min(3, ap) if turn == "player" else min(3, oap)
        out = []
        for a, o, p in exchange(tables[switched], ap, oap, stake):
            nxt = ("gm" if turn == "player" else "player", switched, a, o)
            out.append((p, ("end", "player") if o <= 0 else ("end", "opposition") if a <= 0 else nxt))
        return out

    return absorb(("player", False, ability, resistance), step)


def test_a_failed_disengagement_to_zero_ends_the_contest(rules) -> None:  # type: ignore[no-untyped-def]
    """1 AP (8 with -7 from followers): the disengagement fails, 16 vs 5, a minor defeat: a
    quarter of 1, rounded up, goes over and the player is at 0: the contest is over there (the
    contest ends as soon as a side has 0 AP or fewer), with no response from the GM."""
    driver = Answers(action="disengage_attempt")
    run = rules.run(FULL, ability=8, resistance=14, followers=-7, dice=[16, 5], driver=CallbackDriver(driver))
    assert driver.asked == ["action"]
    results = by_name(run.results)
    assert (results["winner"], results["ap"], results["opposition_ap"], results["degree"]) == ("opposition", 0, 15, "marginal")
