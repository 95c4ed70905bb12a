"""QuestWorlds extended contest (rulesets/questworlds/extended.rules), augments, modifiers,
stretches, combined abilities and flaws (augments.rules), and the example characters
(rulesets/questworlds/examples/): exchanges replayed from given dice and answers, the tables
T2 and T15 to T18, the spec's worked examples (questworlds.md §5.1) and bad bids."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.rules.procedures import CallbackDriver, ChoicePoint
from questworlds_helpers import level_name as _name, Stop

NAME = "extended contest"
REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "rulesets" / "questworlds" / "examples"


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("questworlds")


def play(rules, dice: list[int], answers: list[str], options: dict[str, str] | None = None,
         **inputs: Any) -> tuple[dict[str, Any], list[tuple[int, int]]]:  # type: ignore[no-untyped-def]
    """Run an extended contest; return its results (levels by name) and the AP (player's,
    resistance's) before each of the player's actions."""
    queue = list(answers)
    held: list[tuple[int, int]] = []

    def answer(point: ChoicePoint) -> str:
        if point.name == "action":
            held.append((point.state["ap"], point.state["opposition_ap"]))
        if not queue:
            raise Stop
        return queue.pop(0)

    run = rules.run(NAME, dice=dice, driver=CallbackDriver(answer), options=options or {},
                    **{"ability": 15, "resistance": 14, **inputs})
    assert queue == [], f"answers left over: {queue}"
    return {k: _name(v) for k, v in run.results.items()}, held


def ap_by_round(rules, dice: list[int], answers: list[str], options: dict[str, str] | None = None,  # type: ignore[no-untyped-def]
                keys: tuple[str, ...] = ("ap", "opposition_ap"), **inputs: Any) -> list[tuple[Any, ...]]:
    """The values ``keys`` at the first two `action` choices (the start of rounds 1 and 2)."""
    queue = list(answers)
    seen: list[tuple[Any, ...]] = []

    def answer(point: ChoicePoint) -> str:
        if point.name == "action":
            seen.append(tuple(point.state[k] for k in keys))
            if len(seen) == 2:
                raise Stop
        return queue.pop(0)

    with pytest.raises(Stop):
        rules.run(NAME, dice=dice, driver=CallbackDriver(answer), options=options or {},
                  **{"ability": 15, "resistance": 14, **inputs})
    return seen


def ap_after_round(rules, dice: list[int], answers: list[str], **inputs: Any) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """Both sides' AP after round 1 (two more dice for the round-2 roll it stops before)."""
    return ap_by_round(rules, dice + [9, 9], answers, **inputs)[-1]  # type: ignore[return-value]


# ability 15 against resistance 14: two rounds, then a parting shot.
FULL_DICE = [3, 10, 17, 2, 5, 16, 1, 20, 9, 4]
FULL_ANSWERS = ["act", "3", "act", "10", "attempt", "5"]


def test_full_extended_contest_round_by_round(rules) -> None:  # type: ignore[no-untyped-def]
    results, held = play(rules, FULL_DICE, FULL_ANSWERS, ability=15, resistance=14)
    # Round 1, bid 3: 3 vs 10, both succeed and 10 is the higher roll: the player loses half
    # the bid, rounded up (2); the GM's response (bid 3): 17 vs 2, failure against success,
    # the player loses 1x bid (3). Round 2, bid 10: 5 vs 16, the resistance loses 10; the
    # response: 1 vs 20, a critical against a fumble: 3x bid (9) moves from the resistance to
    # the player (only a critical gains AP): 19 to -5. The parting shot, bid 5: 9 vs 4, a
    # marginal victory: the resistance loses 3 more.
    assert held == [(15, 14), (10, 14)]
    assert results == {
        "winner": "player", "outcome": "victory", "disengaged": False, "ap": 19, "opposition_ap": -8,
        "degree": "marginal", "consequence": "unharmed", "opposition_consequence": "hurt",
        "benefit": "fresh", "opposition_benefit": None,
    }


def test_full_extended_contest_from_the_command_line(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    choices = tmp_path / "choices.yaml"
    choices.write_text("".join(f"- {a}\n" for a in FULL_ANSWERS))
    run = cli("run", "questworlds", NAME, "--with", "ability=15", "--with", "resistance=14",
              "--dice", ",".join(map(str, FULL_DICE)), "--choices", str(choices), "--json")
    assert run.code == 0, run.stderr
    payload = json.loads(run.stdout)
    assert (payload["results"]["ap"], payload["results"]["opposition_ap"]) == (19, -8)
    assert [c["answer"] for c in payload["choices"]] == FULL_ANSWERS
    assert payload["dice"] == FULL_DICE


@pytest.mark.parametrize("dice, after", [
    ([3, 10], (13, 14)),   # success vs success, worse roll: the player loses 1/2 bid, rounded up
    ([10, 3], (15, 12)),   # the same, the resistance's worse roll
    ([17, 16], (15, 12)),  # failure vs failure: the worse roll loses 1/2 bid
    ([5, 16], (15, 10)),   # success vs failure: the loser loses 1x bid
    ([20, 5], (7, 14)),    # fumble vs success: 2x bid
    ([1, 5], (19, 10)),    # critical vs success: the loser transfers 1x bid
    ([1, 16], (23, 6)),    # critical vs failure: transfers 2x bid
    ([1, 20], (27, 2)),    # critical vs fumble: transfers 3x bid
    ([16, 1], (7, 22)),    # the resistance's critical: transfers to the resistance
    ([9, 9], (15, 14)),    # same result, same roll: a standoff
    ([20, 20], (15, 14)),  # fumble against fumble: a tie (Tie*)
    ([1, 1], (15, 14)),    # critical against critical, same roll: a tie
])
def test_exchange_table(rules, dice: list[int], after: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """T15 with a bid of 4 in the player's exchange."""
    assert ap_after_round(rules, dice, ["act", "4"]) == after


def test_bid_three_loses_twice_the_bid(rules) -> None:  # type: ignore[no-untyped-def]
    """T-18: a bid of 3 and "Opponent loses 2x bid": the loser loses 6."""
    assert ap_after_round(rules, [5, 20], ["act", "3"]) == (15, 8)  # success vs fumble: 2 steps


def test_default_bid_is_three_and_the_gm_responds(rules) -> None:  # type: ignore[no-untyped-def]
    """T-26: an undeclared bid is 3; the GM's response bids `opposition_bid` (3)."""
    assert ap_after_round(rules, [5, 16], ["act", "standard"]) == (15, 11)
    # the response: 16 vs 5, the player loses 1x the GM's bid of 5
    seen = ap_by_round(rules, [9, 9, 16, 5], ["act", "standard"], opposition_bid=5)
    assert seen == [(15, 14), (10, 14)]


def test_starting_ap_count_masteries_modifiers_and_followers(rules) -> None:  # type: ignore[no-untyped-def]
    """T-25: +20 AP per mastery; followers add their relevant ratings (L1553)."""
    seen: list[tuple[int, int]] = []

    def record(point: ChoicePoint) -> str:
        seen.append((point.state["ap"], point.state["opposition_ap"]))
        raise Stop

    for inputs, held in (({"ability": "7M", "resistance": "14M"}, (27, 34)),
                         ({"ability": 15, "resistance": 14, "modifier": 3, "followers": 13}, (31, 14))):
        with pytest.raises(Stop):
            rules.run(NAME, driver=CallbackDriver(record), **inputs)
        assert seen[-1] == held


def test_all_in_and_desperation_stakes(rules) -> None:  # type: ignore[no-untyped-def]
    # 20 vs 5 (bid 4: -8), then a desperation stake of 15 with 7 AP: 5 vs 16, the resistance
    # loses 15 and is out.
    results, held = play(rules, [20, 5, 9, 9, 5, 16], ["act", "4", "desperation_stake", "15", "decline"])
    assert held == [(15, 14), (7, 14)]
    assert (results["winner"], results["ap"], results["opposition_ap"]) == ("player", 7, -1)
    # All in: every AP held (15), 1x against a failure.
    results, _ = play(rules, [5, 16], ["act", "all_in", "decline"])
    assert results["opposition_ap"] == -1


@pytest.mark.parametrize("answers, condition", [
    (["act", "20"], "stake <= ap or action == desperation_stake"),
    (["act", "50"], "stake <= ap or action == desperation_stake"),
    (["desperation_stake", "16"], "stake <= max(ap, start_ap)"),
])
def test_a_bid_above_the_ap_held_is_refused(rules, answers: list[str], condition: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as error:
        play(rules, [5, 16], answers, ability=15, resistance=14)
    assert [d.code for d in error.value.diagnostics] == ["E0613"]
    assert condition in error.value.diagnostics[0].message


def test_a_bid_above_the_ap_held_from_the_command_line(cli, tmp_path: Path, snapshot) -> None:  # type: ignore[no-untyped-def]
    choices = tmp_path / "choices.yaml"
    choices.write_text("- act\n- 20\n")
    run = cli("run", "questworlds", NAME, "--as", str(EXAMPLES / "river_toll_keeper.yaml"),
              "--with", "ability=15", "--with", "resistance=14", "--dice", "5,16", "--choices", str(choices))
    assert run.code == 1 and "E0613" in run.stderr and "Traceback" not in run.stderr
    assert run.stdout == ""
    text = run.stderr.replace(str(tmp_path), "<tmp>").replace(str(REPO), "<repo>")
    assert text == snapshot


def test_the_gm_bid_cannot_exceed_the_resistance(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "questworlds", NAME, "--with", "ability=15", "--with", "resistance=14",
              "--with", "opposition_bid=15", "--dice", "5,16")
    assert run.code == 1 and "E0613" in run.stderr and "opposition_bid <= opposition_ap" in run.stderr


@pytest.mark.parametrize("answers, code", [(["act", "eleventy"], "E0611"), (["act"], "E0610"),
                                           (["charge"], "E0611")])
def test_bad_choices(cli, tmp_path: Path, answers: list[str], code: str) -> None:  # type: ignore[no-untyped-def]
    choices = tmp_path / "choices.yaml"
    choices.write_text("".join(f"- {a}\n" for a in answers))
    run = cli("run", "questworlds", NAME, "--with", "ability=15", "--with", "resistance=14",
              "--dice", "3,10,17,2", "--choices", str(choices))
    assert run.code == 1 and code in run.stderr and "Traceback" not in run.stderr and run.stdout == ""


@pytest.mark.parametrize("bid, dice, opposition_ap, degree, consequence, benefit", [
    ("8", [10, 3], 0, "marginal", "hurt", "fresh"),           # 4 - 8 / 2
    ("15", [5, 16], -11, "minor", "impaired", "pumped"),     # 4 - 15
    ("15", [1, 16], -26, "major", "injured", "invigorated"),  # 4 - 2x15
    ("15", [1, 20], -41, "complete", "dying", "heroic"),     # 4 - 3x15
])
def test_outcome_table(rules, bid: str, dice: list[int], opposition_ap: int, degree: str, consequence: str,
                       benefit: str) -> None:  # type: ignore[no-untyped-def]
    """T16: the loser's final AP gives the level, the loser's consequence, the winner's benefit."""
    results, _ = play(rules, dice, ["act", bid, "decline"], ability=15, resistance=4)
    assert (results["opposition_ap"], results["degree"], results["opposition_consequence"], results["benefit"]) == (
        opposition_ap, degree, consequence, benefit)
    assert (results["consequence"], results["opposition_benefit"]) == ("unharmed", None)


def test_the_player_defeated(rules) -> None:  # type: ignore[no-untyped-def]
    # The player passes; the GM bids 15: 16 vs 1, failure against critical: 2x15 moves to the
    # resistance, the player is at 4 - 30 = -26.
    results, _ = play(rules, [16, 1], ["unrelated_action"], ability=4, resistance=15, opposition_bid=15)
    assert results == {
        "winner": "opposition", "outcome": "defeat", "disengaged": False, "ap": -26, "opposition_ap": 45,
        "degree": "major", "consequence": "injured", "opposition_consequence": "unharmed",
        "benefit": None, "opposition_benefit": "invigorated",
    }


def test_the_gm_stakes_no_more_than_it_holds(rules) -> None:  # type: ignore[no-untyped-def]
    # 5 vs 16 with bid 12: the resistance has 2 left; its response bid of 5 is held at 2:
    # 16 vs 5, the player loses 2.
    assert ap_after_round(rules, [5, 16], ["act", "12"], opposition_bid=5) == (15, 2)
    assert ap_after_round(rules, [5, 16, 16, 5], ["act", "12"], opposition_bid=5) == (13, 2)


def test_failed_parting_shot_brings_the_opponent_back(rules) -> None:  # type: ignore[no-untyped-def]
    # 5 vs 16 with bid 16 (sixteen): the resistance is at -2, out. Parting shot, bid 2: 17 vs 1,
    # a failure against a critical: 2x2 moves to the resistance (2): back in, and it responds
    # (its bid of 3 held at 2): 9 vs 9, a standoff.
    seen = ap_by_round(rules, [5, 16, 17, 1, 9, 9], ["act", "16", "attempt", "2"], ability=16)
    assert seen == [(16, 14), (12, 2)]
    # A failed shot can also knock the shooter out: 16 - 20 = -4 against 18; the resistance,
    # back in, wins.
    results, held = play(rules, [5, 16, 17, 1], ["act", "16", "attempt", "10"], ability=16, resistance=14)
    assert (results["winner"], results["ap"], results["opposition_ap"]) == ("opposition", -4, 18)


def test_disengaging(rules) -> None:  # type: ignore[no-untyped-def]
    # A victory leaves the contest: no winner, the prize forfeited.
    results, _ = play(rules, [5, 16], ["disengage_attempt"])
    assert (results["winner"], results["outcome"], results["disengaged"], results["degree"]) == (
        None, "defeat", True, None)
    # A minor defeat: a quarter of the current AP (15 / 4, rounded up: 4) go to the opponent
    # (T18), and the GM's response follows.
    assert ap_after_round(rules, [16, 5], ["disengage_attempt"]) == (11, 18)
    # A complete defeat hands over all but 1.
    assert ap_after_round(rules, [20, 1], ["disengage_attempt"]) == (1, 28)


@pytest.mark.parametrize("rounding, after", [("ceil", (14, 17)), ("half_up", (15, 16))])
def test_disengage_rounding_option(rules, rounding: str, after: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """AMB-21: 3 vs 10 is a marginal defeat: 17 / 8 = 2.125 is 3 rounded up, 2 to the nearest."""
    seen = ap_by_round(rules, [3, 10, 9, 9], ["disengage_attempt"], {"ap_rounding": rounding}, ability=17)
    assert seen[-1] == after


def test_augment_in_an_unrelated_action(rules) -> None:  # type: ignore[no-untyped-def]
    # A rolled augment with 17 against 14: 5 vs 16, a minor victory: +6 for the rest of the
    # contest. The response: 19 vs 15 with 15 + 6 = 21 (1M): a failure bumped to a success
    # against a failure, a minor victory: the resistance loses 1x the GM's bid.
    seen = ap_by_round(rules, [5, 16, 19, 15], ["augment_attempt"], keys=("ap", "opposition_ap", "bonus"),
                       augment_ability=17)
    assert seen == [(15, 14, 0), (15, 11, 6)]


def test_only_one_augment_per_contest(rules) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as error:
        play(rules, [5, 16, 9, 9, 5, 16], ["augment_attempt", "augment_attempt"], augment_ability=17, ability=15, resistance=14)
    assert [d.code for d in error.value.diagnostics] == ["E0613"]


def test_quick_augment_option(rules) -> None:  # type: ignore[no-untyped-def]
    queue = ["augment_attempt"]
    seen: list[int] = []

    def answer(point: ChoicePoint) -> str:
        if point.name == "action":
            seen.append(point.state["bonus"])
            if len(seen) == 2:
                raise Stop
        return queue.pop(0)

    with pytest.raises(Stop):  # no roll for the augment: the response's dice come first
        rules.run(NAME, dice=[9, 9], driver=CallbackDriver(answer), options={"augment_mode": "quick"},
                  ability=15, resistance=14, augment_ability="1M")
    assert seen == [0, 4]


def test_hero_point_in_an_exchange(rules) -> None:  # type: ignore[no-untyped-def]
    asked: list[str] = []
    answers = iter(["act", "4", "use"])

    def answer(point: ChoicePoint) -> str:
        asked.append(point.name)
        if point.name == "action" and len(asked) > 1:
            raise Stop
        return next(answers)

    # 17 vs 5, then the hero point (asked after the roll): a failure bumped to a success, won
    # by the higher roll: the resistance loses 2; 9 vs 9 in the response could use one, but
    # none is left.
    with pytest.raises(Stop):
        rules.run(NAME, dice=[17, 5, 9, 9], driver=CallbackDriver(answer), ability=15, resistance=14, hero_points=1)
    assert asked == ["action", "bid", "hero_point", "action"]


def test_exact_odds(rules) -> None:  # type: ignore[no-untyped-def]
    odds = rules.odds(NAME, ability=5, resistance=4)
    winner = {str(k): v for k, v in odds.results["winner"].items()}
    assert set(winner) == {"player", "opposition"} and sum(winner.values()) == 1
    assert all(isinstance(p, Fraction) for p in winner.values())
    assert winner["player"] > Fraction(1, 2)
    # Bids of 3 can take at most 9 from a side with 1 to 5 AP: every defeat is marginal.
    assert {str(k) for k in odds.results["degree"]} == {"marginal"}


def test_exact_odds_from_the_command_line(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("odds", "questworlds", NAME, "--with", "ability=4", "--with", "resistance=4",
              "--answer", "bid=all_in", "--json")
    assert run.code == 0, run.stderr
    payload = json.loads(run.stdout)
    total = sum(Fraction(p) for p in payload["results"]["winner"].values())
    assert total == 1


# ---------------------------------------------------------------- augments and modifiers

@pytest.mark.parametrize("dice, bonus", [
    ([1, 20], 20),  # complete victory: +M
    ([1, 16], 9),   # major
    ([5, 16], 6),   # minor
    ([10, 3], 3),   # marginal
    ([9, 9], 0),    # tie (AMB-32)
    ([3, 10], 0),   # marginal defeat
    ([18, 5], 0),   # minor defeat
    ([20, 5], 0),   # major defeat
    ([20, 1], -3),  # complete defeat
])
def test_augment_table(rules, dice: list[int], bonus: int) -> None:  # type: ignore[no-untyped-def]
    """T2: a rolled augment against the moderate base 14 (T-13)."""
    run = rules.resolve("augment", dice=dice, augmenting=17)
    assert run.results["bonus"] == bonus


@pytest.mark.parametrize("dice, entertaining, bonus", [([5, 16], 0, 3), ([5, 16], 1, 6), ([1, 20], 0, 3),
                                                       ([20, 1], 0, 0)])
def test_basic_augments(rules, dice: list[int], entertaining: int, bonus: int) -> None:  # type: ignore[no-untyped-def]
    run = rules.resolve("augment", dice=dice, options={"augment_table": "basic"}, augmenting=17,
                        entertaining=entertaining)
    assert run.results["bonus"] == bonus


@pytest.mark.parametrize("rating, bonus", [(17, 3), ("1M", 4), (20, 4), (9, 1)])
def test_quick_augment(rules, rating: Any, bonus: int) -> None:  # type: ignore[no-untyped-def]
    """L604, AMB-41: a fifth of the numeric rating, rounded down (1M = 21: +4)."""
    assert rules.resolve("quick augment", augmenting=rating).results["bonus"] == bonus


@pytest.mark.parametrize("grade, bonus", [(1, 3), (2, 6), (3, 9), (4, 20)])
def test_plot_augment(rules, grade: int, bonus: int) -> None:  # type: ignore[no-untyped-def]
    assert rules.resolve("plot augment", grade=grade).results["bonus"] == bonus


def test_plot_augment_out_of_range(rules) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as error:
        rules.resolve("plot augment", grade=5)
    assert [d.code for d in error.value.diagnostics] == ["E0613"]


def _modified(rules, dice: list[int] | None = None, options: dict[str, str] | None = None,
              **inputs: Any) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    run = rules.resolve("modified contest", dice=dice or [9, 9], options=options or {},
                        **{"ability": 15, "resistance": 14, **inputs})
    return {k: _name(v) for k, v in run.results.items()}


def test_flaw_as_a_penalty(rules) -> None:  # type: ignore[no-untyped-def]
    """T-17: a flaw of 19 is -4 (19 / 5 = 3.8, to the nearest)."""
    assert _modified(rules, flaw=19)["rating"] == 11


@pytest.mark.parametrize("second, rounding, rating", [
    ("7M", "floor", 21),    # (15 + 27) / 2
    (16, "floor", 15),      # 15.5 rounds down (AMB-26)
    (16, "nearest", 16),
])
def test_combined_abilities(rules, second: Any, rounding: str, rating: int) -> None:  # type: ignore[no-untyped-def]
    assert _modified(rules, options={"combined_rounding": rounding}, second_ability=second)["rating"] == rating


def test_combined_ability_then_modifiers(rules) -> None:  # type: ignore[no-untyped-def]
    # (15 + 16) / 2 = 15, then +6 augment, +3 situational, +6 plot augment (grade 2), -3 hurt.
    assert _modified(rules, second_ability=16, augment=6, situational=3, plot_augment=2,
                     penalties=-3)["rating"] == 27


@pytest.mark.parametrize("stretch, rating", [("minus_six", 9), ("minus_three", 12), ("minus_nine", 6),
                                             ("bump_down", 15)])
def test_stretch(rules, stretch: str, rating: int) -> None:  # type: ignore[no-untyped-def]
    """T-27: a stretch is -6 by default."""
    assert _modified(rules, options={"stretch": stretch}, stretched=1)["rating"] == rating


def test_stretch_as_a_bump_down(rules) -> None:  # type: ignore[no-untyped-def]
    # 5 vs 16: a success bumped down to a failure, against a failure: 16 is the higher roll.
    results = _modified(rules, dice=[5, 16], options={"stretch": "bump_down"}, stretched=1)
    assert (results["result"], results["outcome"], results["degree"]) == ("failure", "defeat", "marginal")


def test_a_stretched_victory_is_at_most_minor(rules) -> None:  # type: ignore[no-untyped-def]
    assert _modified(rules, dice=[1, 20], stretched=1)["degree"] == "minor"
    assert _modified(rules, dice=[1, 20])["degree"] == "complete"


def test_modifiers_can_gain_masteries(rules) -> None:  # type: ignore[no-untyped-def]
    """§1.8: 15 + 6 = 21 is 1M: target 1 and a bump."""
    results = _modified(rules, dice=[19, 15], augment=6)
    assert (results["rating"], results["target"], results["result"], results["outcome"]) == (
        21, 1, "success", "victory")


# ---------------------------------------------------------------- example characters

@pytest.mark.parametrize("character, target", [("sardonic_ex_mercenary", 7), ("haughty_priestess", 5),
                                               ("river_toll_keeper", 5)])
def test_example_characters_roll_their_ability(cli, character: str, target: int) -> None:  # type: ignore[no-untyped-def]
    run = cli("resolve", "questworlds", "contest", "--as", str(EXAMPLES / f"{character}.yaml"),
              "--with", "resistance=14", "--dice", "10,3", "--json")
    assert run.code == 0, run.stderr
    results = json.loads(run.stdout)["results"]
    assert results["target"] == target and results["outcome"] == "victory"  # bumped by the mastery


def test_example_character_in_an_extended_contest(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    choices = tmp_path / "choices.yaml"
    choices.write_text("- act\n- 25\n- decline\n")
    run = cli("run", "questworlds", NAME, "--as", str(EXAMPLES / "sardonic_ex_mercenary.yaml"),
              "--with", "resistance=14", "--dice", "5,16", "--choices", str(choices), "--json")
    assert run.code == 0, run.stderr
    results = json.loads(run.stdout)["results"]
    # 7M: 27 AP; 5 vs 16, a success bumped to a critical against a failure: 2x25 transferred.
    assert (results["ap"], results["opposition_ap"], results["degree"]) == (77, -36, "complete")
