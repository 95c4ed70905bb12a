"""QuestWorlds group contests, the rest of the SRD's rules. In group extended contests:
desperation stakes (SRD 5.3.6), disengaging and rejoining (5.3.9), parting shots (5.3.4) and
a gifter's hero points. Replays from given dice and answers; exact odds against Extended
Contest and against enumerations written here."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.rules.procedures import CallbackDriver, ChoicePoint
from questworlds_helpers import Stop, absorb, ceil_div, exchange_moves, level_name, rolls

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


# --- several opponents ---------------------------------------------------------------------


def test_several_opponents_replayed(rules) -> None:  # type: ignore[no-untyped-def]
    """Members 15 and 12 against opponents 14 and 10. Round 1, by bid (ties: members, then the
    opponents in order): member 1 bids 5 against opponent 2: 1 vs 20, critical against fumble,
    3 x 5 = 15 from it, gained: opponent 2 at -5 (out), member 1 at 30; member 2 bids 3 against
    opponent 1: 5 vs 16, a minor victory (11); opponent 1 (bid 3) against member 1: 16 vs 5, a
    minor defeat (27); opponent 2, out, loses its turn. Round 2: member 1 bids 11 against
    opponent 1: 1 vs 20: 33 from it, -22. The level: of the two defeated, the less severe
    (-5: marginal, AMB-29's reading)."""
    script = Script(["exchange", "5", "2", "exchange", "3", "1", "first_standing", "2",
                     "exchange", "11", "1", "stand_aside", "first_standing"])
    results = play(rules, [1, 20, 5, 16, 16, 5, 1, 20], script, abilities=[15, 12], resistances=[14, 10])
    assert script.rounds == [((15, 12), 14), ((27, 12), 11)]
    assert [name for name, _ in script.asked].count("opposition_target") == 3
    assert results == {
        "winner": "player", "outcome": "victory", "degree": "marginal", "ap": [60, 12], "opposition_ap": -22,
        "consequences": ["unharmed", "unharmed"], "hero_points_spent": 0, "hero_left": [0, 0],
        "opposition_consequence": "hurt", "benefit": "fresh", "opposition_benefit": None,
        "opposition_aps": [-22, -5], "opposition_consequences": ["injured", "hurt"]}


def test_an_opponent_out_cannot_be_singled_out(rules) -> None:  # type: ignore[no-untyped-def]
    script = Script(["exchange", "5", "2", "first_standing", "first_standing", "exchange", "5", "2"])
    with pytest.raises(RunebookError, match="E0613"):
        play(rules, [1, 20, 9, 9], script, abilities=[15], resistances=[14, 10])


def _against_two(ability: int, first: int, second: int, bid: int) -> dict[Any, Fraction]:
    """Winner odds of one member (the standard bid, held at the AP held) against two opponents
    (bids 1), each round the member first, against the first opponent still in, then each
    opponent still in against the member. T15 exchanges; 0 AP or fewer is out; the contest
    ends when a side has no one in."""
    tables = [rolls(ability, first), rolls(ability, second)]

    def step(state: Any) -> list[tuple[Fraction, Any]]:
        turn, ap, foes = state
        if turn == 0:
            j, stake = (0 if foes[0] > 0 else 1), min(bid, ap)
        else:
            j, stake = turn - 1, 1
        if turn > 0 and foes[j] <= 0:
            return [(Fraction(1), ((turn + 1) % 3, ap, foes))]
        out: list[tuple[Fraction, Any]] = []
        for (outcome, steps, mine, theirs), p in tables[j].items():
            mine_change, theirs_change = exchange_moves(outcome, steps, mine, theirs, stake)
            now = list(foes)
            now[j] += theirs_change
            a = ap + mine_change
            if a <= 0:
                out.append((p, ("end", "opposition")))
            elif all(f <= 0 for f in now):
                out.append((p, ("end", "player")))
            else:
                out.append((p, ((turn + 1) % 3, a, tuple(now))))
        return out

    return absorb((0, ability, (first, second)), step)


def test_odds_against_two_opponents_match_an_enumeration(rules) -> None:  # type: ignore[no-untyped-def]
    odds = rules.odds(EXTENDED, abilities=[3], resistances=[2, 1], opposition_bid=1, default_bid=1)
    assert {k.name: v for k, v in odds.results["winner"].items() if v} == _against_two(3, 2, 1, 1)


# --- the full group scored contest: followers and the GM's free opponents ---------------------

FULL = "full group scored contest"


class Watch:
    """Answers choice points in order and records, at each `tactic`, `free_action`, `support`
    and `opponent_action`, the per-member lists named in `keys`; stops when answers run out."""

    def __init__(self, answers: list[str], *keys: str) -> None:
        self.answers = list(answers)
        self.keys = keys
        self.asked: list[str] = []
        self.seen: list[dict[str, Any]] = []

    def __call__(self, point: ChoicePoint) -> str:
        if point.name in ("tactic", "free_action", "support", "opponent_action"):
            self.seen.append({k: names(point.state[k]) for k in self.keys})
        if not self.answers:
            raise Stop
        self.asked.append(point.name)
        return self.answers.pop(0)


def watch(rules: Any, dice: list[int], answers: list[str], keys: tuple[str, ...], **inputs: Any) -> tuple[Watch, dict[str, Any]]:
    """Run until the answers run out (or the end): the watcher and the results (empty if stopped)."""
    driver = Watch(answers, *keys)
    try:
        run = rules.run(FULL, dice=dice, driver=CallbackDriver(driver), **inputs)
    except Stop:
        return driver, {}
    return driver, {k: names(v) for k, v in run.results.items()}


def test_points_shifted_onto_a_secondary_contestant(rules) -> None:  # type: ignore[no-untyped-def]
    """SRD 5.2.4. Round 1: 20 vs 5, a major defeat: 3 against the member; 2 shifted onto the
    secondary contestant. Round 2: 16 vs 5, minor: 1 + 2 = 3 against; 1 shifted: the follower
    has 3 and is removed, with 2 more (5). Round 3 (nothing to shift onto): 20 vs 5, 2 + 3 =
    5: the member is out, a difference of 5: injured; the follower's 5 points: injured too."""
    driver, results = watch(rules, [20, 5, 16, 5, 20, 5], ["normal", "2", "normal", "1", "normal"],
                            ("against", "tallies", "seconds"), abilities=[15], secondaries=[13])
    assert driver.asked == ["tactic", "shift", "tactic", "shift", "tactic"]
    assert driver.seen == [{"against": [0], "tallies": [0], "seconds": [True]},
                           {"against": [1], "tallies": [2], "seconds": [True]},
                           {"against": [2], "tallies": [5], "seconds": [False]}]
    assert results == {"winner": "opposition", "outcome": "defeat", "disengaged": False, "degree": "major",
                       "consequences": ["injured"], "opposition_consequences": ["unharmed"],
                       "follower_consequences": ["injured"]}


def test_a_shift_is_at_most_the_points_against(rules) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError, match="E0613"):
        watch(rules, [20, 5], ["normal", "4"], (), abilities=[15], secondaries=[13])


def test_a_secondary_contestant_protects_against_multiple_opponents(rules) -> None:  # type: ignore[no-untyped-def]
    """One member against two opponents, the second engaged by no one: the multiple-opponent
    penalty (6) applies unless a secondary contestant stands by. 12 vs 16: against 15 a
    success beating a failure (2 points); against 15 - 6 = 9 two failures, lost on the lower
    roll (1 against)."""
    inputs = {"abilities": [15], "resistances": [14, 14], "opponents": [1], "multiple_opponents": 6}
    guarded, _ = watch(rules, [12, 16], ["normal"], ("scored", "against"), secondaries=[13], **inputs)
    alone, _ = watch(rules, [12, 16], ["normal"], ("scored", "against"), **inputs)
    assert (guarded.seen[-1], alone.seen[-1]) == ({"scored": [2], "against": [0]}, {"scored": [0], "against": [1]})


def test_a_supporter_assists_and_never_engages(rules) -> None:  # type: ignore[no-untyped-def]
    """Member 2 (12) is a supporter (`followers` 2): unopposed from the start, asked `support`
    (a teammate to assist, or `stand_by`), never `free_action`. Round 1: member 1 loses 20 vs
    5 (3 against); the supporter's assist (against moderate, 14): 5 vs 16, a minor victory:
    -2. When member 1 is out the side has no participant left: the contest ends."""
    driver, _ = watch(rules, [20, 5, 5, 16, 20, 5], ["normal", "1", "normal"], ("against", "out"),
                      abilities=[15, 12], followers=[0, 2])
    assert driver.asked == ["tactic", "support", "tactic"]
    assert driver.seen[:3] == [{"against": [0, 0], "out": [False, False]}, {"against": [3, 0], "out": [False, False]},
                               {"against": [1, 0], "out": [False, False]}]
    # 20 vs 1, a complete defeat: member 1 is out (a difference of 5: injured) and the contest over.
    _, results = watch(rules, [20, 1], ["normal"], (), abilities=[15, 12], followers=[0, 2])
    assert (results["winner"], results["consequences"]) == ("opposition", ["injured", "unharmed"])
    with pytest.raises(RunebookError, match="E0611"):
        watch(rules, [20, 5], ["normal", "engage"], (), abilities=[15, 12], followers=[0, 2])


def test_a_free_opponent_picks_off_a_follower(rules) -> None:  # type: ignore[no-untyped-def]
    """Both members face opponent 1; opponent 2, engaged by no one, picks off member 2, a
    follower taking part (12 against 14): 16 vs 5, a minor defeat: out, with 2 + 2 points
    lodged (rising action: impaired)."""
    driver, _ = watch(rules, [16, 5, 9, 9, 9, 9], ["pick_off", "2", "normal", "wait_aside"], ("out", "foe_of"),
                      abilities=[15, 12], followers=[0, 1], resistances=[14, 14], opponents=[1, 1], free_opponents=1)
    assert driver.asked == ["opponent_action", "picked_member", "tactic", "opponent_action"]
    assert driver.seen[0] == {"out": [False, False], "foe_of": [0, 0]}
    assert driver.seen[1] == {"out": [False, True], "foe_of": [0, None]}


def test_a_free_opponent_picks_off_a_secondary_contestant(rules) -> None:  # type: ignore[no-untyped-def]
    """The secondary contestant (13 against 14): 20 vs 5, a major defeat: removed, 3 + 2 lodged."""
    driver, _ = watch(rules, [20, 5, 9, 9], ["pick_off", "1", "normal"], ("tallies", "seconds"), abilities=[15],
                      secondaries=[13], resistances=[14, 14], opponents=[1], free_opponents=1)
    assert driver.seen[-1] == {"tallies": [5], "seconds": [False]}
    with pytest.raises(RunebookError, match="E0613"):  # now there is no follower to pick off
        watch(rules, [20, 5, 9, 9], ["pick_off", "1", "normal", "pick_off", "1"], (), abilities=[15],
              secondaries=[13], resistances=[14, 14], opponents=[1], free_opponents=1)


def test_a_free_opponent_engages_an_unopposed_member(rules) -> None:  # type: ignore[no-untyped-def]
    """Round 1: opponent 2 waits; member 1 knocks opponent 1 out (1 vs 20, complete): member 2,
    who faced it too, is unopposed. Round 2: opponent 2 engages member 2."""
    driver, _ = watch(rules, [1, 20, 9, 9], ["wait_aside", "normal", "unrelated", "engage_member", "2", "unrelated",
                                             "normal"], ("foe_of",),
                      abilities=[15, 12], resistances=[14, 14], opponents=[1, 1], free_opponents=1)
    assert driver.seen[-1] == {"foe_of": [None, 1]}
    with pytest.raises(RunebookError, match="E0613"):  # member 1 is engaged with opponent 1
        watch(rules, [9, 9], ["engage_member", "1"], (), abilities=[15], resistances=[14, 14], opponents=[1],
              free_opponents=1)


def test_with_the_first_answers_it_is_the_group_scored_contest(rules) -> None:  # type: ignore[no-untyped-def]
    inputs = {"abilities": [15], "resistances": [14, 10], "multiple_opponents": 3, "hero_points": [1]}
    full = rules.odds(FULL, answers={"hero_point": "use"}, **inputs)
    plain = rules.odds("group scored contest", answers={"hero_point": "use"}, **inputs)
    assert full.states == plain.states
    for name, distribution in plain.results.items():
        assert full.results[name] == distribution, name


#: Resolution points by the result steps of a victory (T10): marginal 1 ... complete 5.
RESOLUTION = [1, 2, 3, 5]


def _shifting(ability: int, resistance: int) -> dict[Any, Fraction]:
    """Winner odds of a rising scored contest in which the player shifts 1 point onto a
    secondary contestant each time points are lodged against them, while it stands; at 3 it
    is removed (then 5). First to 5 wins; a standoff scores nothing."""
    table = rolls(ability, resistance)

    def step(state: Any) -> list[tuple[Fraction, Any]]:
        points, against, tally, standing = state
        out: list[tuple[Fraction, Any]] = []
        for (outcome, steps, _mine, _theirs), p in table.items():
            if outcome == "victory":
                new = (points + RESOLUTION[steps], against, tally, standing)
            elif outcome == "defeat":
                moved = 1 if standing else 0
                tally2 = tally + moved
                removed = standing and tally2 >= 3
                new = (points, against + RESOLUTION[steps] - moved, tally2 + (2 if removed else 0), standing and not removed)
            else:
                new = state
            out.append((p, ("end", "player") if new[0] >= 5 else ("end", "opposition") if new[1] >= 5 else new))
        return out

    return absorb((0, 0, 0, True), step)


def test_shifting_odds_match_an_enumeration(rules) -> None:  # type: ignore[no-untyped-def]
    odds = rules.odds(FULL, abilities=[15], resistances=[14], secondaries=[13], answers={"shift": "1"})
    found = {k.name: v for k, v in odds.results["winner"].items() if v}
    assert found == _shifting(15, 14)
    plain = rules.odds(FULL, abilities=[15], resistances=[14])
    assert found["player"] > plain.results["winner"][next(k for k in plain.results["winner"] if k.name == "player")]
