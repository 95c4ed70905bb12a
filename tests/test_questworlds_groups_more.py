"""QuestWorlds group contests, the rest of the SRD's rules. In group extended contests:
desperation stakes (SRD 5.3.6), disengaging and rejoining (5.3.9), parting shots (5.3.4) and
a gifter's hero points. Replays from given dice and answers; exact odds against Extended
Contest and against enumerations written here."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from questworlds_helpers import (
    Stop,
    absorb,
    ceil_div,
    exchange_moves,
    level_name,
    rolls,
)
from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.rules.procedures import CallbackDriver, ChoicePoint

from runebook import interpreter

EXTENDED = "group extended contest"


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("questworlds")


def names(value: Any) -> Any:
    return [names(v) for v in value] if isinstance(value, tuple) else level_name(value)


class Script:
    """Answers choice points in order from a list, recording (name, answer) and, at each
    round's first declaration, the AP then (every member's, and the resistance's)."""

    def __init__(self, answers: list[str], stop_after: int | None = None) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[str, str]] = []
        self.rounds: list[tuple[tuple[int, ...], int]] = []
        self.stop_after = stop_after
        self.fresh = True

    def __call__(self, point: ChoicePoint) -> str:
        state = point.state
        if self.fresh and point.name in ("group_action", "rejoin", "final_action") and state["slot"] == 0:
            self.fresh = False
            self.rounds.append((tuple(state["ap"]), state["opposition_ap"]))
            if self.stop_after is not None and len(self.rounds) > self.stop_after:
                raise Stop
        self.fresh = self.fresh or point.name == "opposition_target"
        answer = self.answers.pop(0)
        self.asked.append((point.name, answer))
        return answer


def play(rules: Any, dice: list[int], script: Script, **inputs: Any) -> dict[str, Any]:
    if script.stop_after is not None:
        with pytest.raises(Stop):
            rules.run(EXTENDED, dice=dice, driver=CallbackDriver(script), **inputs)
        return {}
    run = rules.run(EXTENDED, dice=dice, driver=CallbackDriver(script), **inputs)
    assert script.answers == [], f"answers left over: {script.answers}"
    return {k: names(v) for k, v in run.results.items()}


# --- desperation stakes -----------------------------------------------------------------


def test_a_desperation_stake_bids_above_the_ap_held(rules) -> None:  # type: ignore[no-untyped-def]
    """SRD 5.3.6: a stake above the AP held, up to the starting AP. Round 1: the member bids
    6: 16 vs 5, failure against success, a minor defeat (15 - 6 = 9); the GM's exchange (bid
    3) is a standoff. Round 2: a desperation stake of 12 (above 9, below 15): 5 vs 16, a minor
    victory: the resistance loses 12 (14 - 12 = 2)."""
    script = Script(["exchange", "6", "first_standing", "desperate_exchange", "12", "first_standing"], stop_after=2)
    play(rules, [16, 5, 9, 9, 5, 16, 9, 9], script, abilities=[15], resistance=14)
    assert script.rounds == [((15,), 14), ((9,), 14), ((9,), 2)]


@pytest.mark.parametrize(("action", "bid"), [("desperate_exchange", "16"), ("exchange", "12")])
def test_stakes_above_what_is_allowed_are_refused(rules, action: str, bid: str) -> None:  # type: ignore[no-untyped-def]
    """Above the starting AP (15) even desperately; above the AP held (9) otherwise."""
    script = Script(["exchange", "6", "first_standing", action, bid])
    with pytest.raises(RunebookError, match="E0613"):
        play(rules, [16, 5, 9, 9], script, abilities=[15], resistance=14)


def test_one_member_staking_desperately_is_the_extended_contest(rules) -> None:  # type: ignore[no-untyped-def]
    """All in on a desperation stake every round (the starting AP, or more when more is held):
    with one member bidding before the GM's bid of 1, the exact odds are those of `Extended
    Contest` with the same answers."""
    group = rules.odds(EXTENDED, abilities=[3], resistance=3, opposition_bid=1,
                       answers={"group_action": "desperate_exchange", "bid": "all_in"})
    single = rules.odds("extended contest", ability=3, resistance=3, opposition_bid=1,
                        answers={"action": "desperation_stake", "bid": "all_in"})
    plain = rules.odds(EXTENDED, abilities=[3], resistance=3, opposition_bid=1, answers={"bid": "all_in"})
    for name in ("winner", "degree", "opposition_ap"):
        assert group.results[name] == single.results[name]
    assert group.results["winner"] != plain.results["winner"]


# --- disengaging and rejoining ------------------------------------------------------------


def test_a_member_disengages_stays_away_and_rejoins(rules) -> None:  # type: ignore[no-untyped-def]
    """SRD 5.3.9. Round 1: member 1 breaks off (no bid: after the bids), member 2 bids 3, the GM
    (bid 3) targets member 2. Member 2 (tied with the GM, members first): 9 vs 9, a standoff;
    the GM against member 2: 9 vs 9; member 1's disengagement: 5 vs 16, a victory: away, with
    15 AP. Round 2: member 1 stays away; member 2 stands aside; the GM's first standing is
    member 2: 16 vs 5, a minor defeat, 12 - 3 = 9. Round 3: member 1 comes back with 15 and is
    the GM's first standing again: 16 vs 5, 15 - 3 = 12."""
    script = Script(["break_off", "exchange", "standard", "2",
                     "stay_away", "stand_aside", "first_standing",
                     "come_back", "stand_aside", "stand_aside", "first_standing"], stop_after=3)
    play(rules, [9, 9, 9, 9, 5, 16, 16, 5, 16, 5], script, abilities=[15, 12], resistance=14)
    assert script.rounds == [((15, 12), 14), ((15, 12), 14), ((15, 9), 14), ((12, 9), 14)]
    assert [name for name, _ in script.asked[4:6]] == ["rejoin", "group_action"]


def test_a_failed_disengagement_hands_ap_over(rules) -> None:  # type: ignore[no-untyped-def]
    """T18: 16 vs 5, a minor defeat: a quarter of the 15 AP held, rounded up (4), goes to the
    resistance; the member stays in."""
    script = Script(["break_off", "first_standing", "stand_aside"], stop_after=1)
    play(rules, [9, 9, 16, 5], script, abilities=[15], resistance=14)
    assert script.rounds == [((15,), 14), ((11,), 18)]


def test_when_every_member_leaves_nobody_wins(rules) -> None:  # type: ignore[no-untyped-def]
    # The GM's exchange (bid 3) first: 9 vs 9; the disengagement: 5 vs 16, a victory.
    results = play(rules, [9, 9, 5, 16], Script(["break_off", "first_standing"]), abilities=[15], resistance=14)
    assert results == {
        "winner": None, "outcome": "defeat", "degree": None, "ap": [15], "opposition_ap": 14,
        "consequences": ["unharmed"], "hero_points_spent": 0, "hero_left": [0], "opposition_consequence": "unharmed",
        "benefit": None, "opposition_benefit": None, "disengaged": [True]}


def test_a_member_away_is_no_target_and_no_recipient(rules) -> None:  # type: ignore[no-untyped-def]
    """Member 1 leaves in round 1; in round 2 the GM's target, member 1, is away: it turns on
    member 2 (16 vs 5: 12 - 3); a loan to member 1 is refused."""
    script = Script(["break_off", "stand_aside", "1", "stay_away", "stand_aside", "1"], stop_after=2)
    play(rules, [9, 9, 5, 16, 16, 5], script, abilities=[15, 12], resistance=14)
    # Round 1: the GM (bid 3) against member 1 first: 9 vs 9; then member 1 leaves (5 vs 16).
    assert script.rounds[-1] == ((15, 9), 14)
    script = Script(["break_off", "stand_aside", "1", "stay_away", "lend", "3", "1"])
    with pytest.raises(RunebookError, match="E0613"):
        play(rules, [9, 9, 5, 16], script, abilities=[15, 12], resistance=14)


def test_the_others_fight_on_and_win_without_the_one_who_left(rules) -> None:  # type: ignore[no-untyped-def]
    # Round 1: member 2 bids 5 (first): 1 vs 20, critical against fumble: 3 x 5 = 15 from the
    # resistance (14): out. Member 1's disengagement comes later, never: the contest is over.
    results = play(rules, [1, 20], Script(["break_off", "exchange", "5", "first_standing"]), abilities=[15, 12],
                   resistance=14)
    assert (results["winner"], results["opposition_ap"], results["ap"]) == ("player", -1, [15, 27])
    assert "disengaged" not in results


def _breaking_off(ability: int, resistance: int, gm_bid: int) -> dict[Any, Fraction]:
    """Winner odds of one member who breaks off every round. The GM's exchange comes first
    (its bid before no bid): T15 with its bid, held at its AP. Then the disengagement, a
    simple contest: a victory leaves (no winner); a defeat hands T18's share of the AP held
    (1/8, 1/4, 1/2 rounded up; complete: all but 1) to the resistance; a standoff nothing.
    0 AP or fewer is out."""
    table = rolls(ability, resistance)

    def step(state: Any) -> list[tuple[Fraction, Any]]:
        ap, oap = state
        out: list[tuple[Fraction, Any]] = []
        for (outcome, steps, mine, theirs), p in table.items():
            mine_change, theirs_change = exchange_moves(outcome, steps, mine, theirs, min(gm_bid, oap))
            a, o = ap + mine_change, oap + theirs_change
            if a <= 0 or o <= 0:
                out.append((p, ("end", "opposition" if a <= 0 else "player")))
                continue
            for (leaving, depth, _m, _t), q in table.items():
                if leaving == "victory":
                    out.append((p * q, ("end", None)))
                    continue
                handed = 0 if leaving == "tie" else [ceil_div(a, 8), ceil_div(a, 4), ceil_div(a, 2), a - 1][depth]
                out.append((p * q, ("end", "opposition") if a - handed <= 0 else (a - handed, o + handed)))
        return out

    return absorb((ability, resistance), step)


def test_breaking_off_odds_match_an_enumeration(rules) -> None:  # type: ignore[no-untyped-def]
    odds = rules.odds(EXTENDED, abilities=[5], resistance=4, opposition_bid=2, answers={"group_action": "break_off"})
    found = {(None if k is None else k.name): v for k, v in odds.results["winner"].items() if v}
    assert found == _breaking_off(5, 4, 2)
    assert odds.results["disengaged"][(True,)] == found[None]


# --- parting shots --------------------------------------------------------------------------


def test_a_parting_shot_after_knocking_the_resistance_out(rules) -> None:  # type: ignore[no-untyped-def]
    """SRD 5.3.4. The member bids 5: 5 vs 16, a minor victory: the resistance (4) is at -1 and
    out. The parting shot, bid 3: 1 vs 20, critical against fumble: 9 more, and the critical
    gains them: -10, still a marginal defeat; the member 24."""
    script = Script(["exchange", "5", "first_standing", "attempt", "standard"])
    results = play(rules, [5, 16, 1, 20], script, abilities=[15], resistance=4, parting_shots=1)
    assert (results["winner"], results["ap"], results["opposition_ap"], results["degree"]) == ("player", [24], -10, "marginal")


def test_a_failed_parting_shot_brings_the_resistance_back(rules) -> None:  # type: ignore[no-untyped-def]
    """The shot (bid 3) rolls 20 vs 1: fumble against critical, 9 from the member to the
    resistance: back at 8. Its own exchange (declared at 3) follows this round: 16 vs 16, two
    failures on the same roll, a standoff."""
    script = Script(["exchange", "5", "first_standing", "attempt", "standard"], stop_after=1)
    play(rules, [5, 16, 20, 1, 16, 16], script, abilities=[15], resistance=4, parting_shots=1)
    assert script.rounds == [((15,), 4), ((6,), 8)]


def test_no_parting_shot_unless_asked_for(rules) -> None:  # type: ignore[no-untyped-def]
    script = Script(["exchange", "5", "first_standing"])
    results = play(rules, [5, 16], script, abilities=[15], resistance=4)
    assert results["opposition_ap"] == -1 and "parting_shot" not in [name for name, _ in script.asked]


# --- a gifter's hero points -----------------------------------------------------------------


def test_the_gifter_spends_a_hero_point(rules) -> None:  # type: ignore[no-untyped-def]
    """A gifter (15, one hero point) bids 5 for member 1 against 10: 16 vs 5 is a failure
    against a success (the resistance would gain 5); the point bumps it to a success, won on
    the higher roll: a marginal victory, member 1 gains half of 5, 3."""
    script = Script(["stand_aside", "first_standing", "1", "5", "use"], stop_after=1)
    play(rules, [16, 5, 9, 9], script, abilities=[15], resistance=14, gifter=15, gifter_hero_points=1)
    assert script.rounds == [((15,), 14), ((18,), 14)]
    assert ("hero_point", "use") in script.asked
    without = Script(["stand_aside", "first_standing", "1", "5"], stop_after=1)
    play(rules, [16, 5, 9, 9], without, abilities=[15], resistance=14, gifter=15)
    assert without.rounds[-1] == ((15,), 19)
