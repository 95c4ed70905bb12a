"""QuestWorlds completeness (issue 6): the hero point offered after the roll in every procedure
where a player rolls (healing, special contests, augments, group contests), the GM's tactics,
parting shots and the multiple-opponent penalty in group scored contests, option
`chained_stack` (AMB-25), and the golden cases T-13 and T-20. Replays from given dice; exact
odds against enumerations of the two d20 faces written here from the rules text (no
masteries: every rating below 21)."""

from __future__ import annotations

import itertools
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.rules.procedures import CallbackDriver, ChoicePoint
from questworlds_helpers import hero_maker, level_name as _name, Stop

FUMBLE, FAILURE, SUCCESS, CRITICAL = range(4)
DEGREES = ["marginal", "minor", "major", "complete"]


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("questworlds")


@pytest.fixture
def hero(rules, tmp_path: Path):  # type: ignore[no-untyped-def]
    return hero_maker(rules, tmp_path)


def names(results: dict[str, Any]) -> dict[str, Any]:
    return {k: _name(v) for k, v in results.items()}


class Answers:
    """Answers choice points from a table by name and records the names asked."""

    def __init__(self, **answers: str) -> None:
        self.answers = answers
        self.asked: list[str] = []

    def __call__(self, point: ChoicePoint) -> str:
        self.asked.append(point.name)
        return self.answers[point.name]


# ------------------------------------------------------------------ an independent d20 model


def level(face: int, target: int) -> int:
    """§1.4: 1 critical, 20 fumble, at or under the target a success; a target of 0 fails."""
    if target <= 0:
        return FAILURE
    return CRITICAL if face == 1 else FUMBLE if face == 20 else SUCCESS if face <= target else FAILURE


def compare(mine: int, theirs: int, a: int, b: int) -> tuple[str, int]:
    """§1.6: outcome and result steps; equal results go to the higher roll; the same roll,
    or fumble against fumble, is a standoff."""
    if mine == theirs and (a == b or mine == FUMBLE):
        return "tie", 0
    if mine > theirs or (mine == theirs and a > b):
        return "victory", abs(mine - theirs)
    return "defeat", abs(mine - theirs)


def faces(target: int, resistance: int, hero: bool) -> dict[tuple[str, int], Fraction]:
    """One simple contest over the 400 face pairs; with `hero`, a point is spent whenever the
    bump changes the player's result (never on a critical)."""
    found: dict[tuple[str, int], Fraction] = {}
    for a, b in itertools.product(range(1, 21), repeat=2):
        mine, theirs = level(a, target), level(b, resistance)
        if hero and mine < CRITICAL and target > 0:
            mine += 1
        key = compare(mine, theirs, a, b)
        found[key] = found.get(key, Fraction(0)) + Fraction(1, 400)
    return found


def signed(outcome: str, steps: int) -> int:
    return 0 if outcome == "tie" else (steps + 1) * (1 if outcome == "victory" else -1)


# ------------------------------------------------------------------ healing


def test_heal_offers_the_point_after_the_roll(rules, hero) -> None:  # type: ignore[no-untyped-def]
    # Injured: high resistance, 20. 12 vs 5 at 15: success against success, the higher roll:
    # a marginal victory (one level: impaired). With the point: critical against success, a
    # minor victory (two levels: hurt).
    kept = Answers(hero_point="keep")
    run = rules.run("heal", as_=hero("Injured State"), healing=15, hero_points=1, dice=[12, 5],
                    driver=CallbackDriver(kept))
    assert kept.asked == ["hero_point"]
    assert (_name(run.results["after"]), run.results["hero_left"]) == ("impaired", 1)
    used = Answers(hero_point="use")
    run = rules.run("heal", as_=hero("Injured State"), healing=15, hero_points=1, dice=[12, 5],
                    driver=CallbackDriver(used))
    assert (_name(run.results["degree"]), _name(run.results["after"]), run.results["hero_left"]) == (
        "minor", "hurt", 0)
    assert run.state["actor"]["conditions"] == ["Hurt State"]
    # No point held: nothing is asked (a driver that would fail is never called).
    run = rules.run("heal", as_=hero("Injured State"), healing=15, dice=[12, 5], driver=CallbackDriver(Answers()))
    assert _name(run.results["after"]) == "impaired"


def test_heal_odds_with_a_hero_point_match_an_enumeration(rules, hero) -> None:  # type: ignore[no-untyped-def]
    # T5: injured heals against high (14 + 6 = 20). §1.11: a victory removes one level per
    # level of victory (below hurt: unharmed); a major defeat worsens one level, a complete
    # defeat two, stopping at dying.
    ladder = ["unharmed", "dazed", "hurt", "impaired", "injured", "dying"]
    expected: dict[str, Fraction] = {}
    for (outcome, steps), p in faces(15, 20, hero=True).items():
        after = 4
        if outcome == "victory":
            after = 4 - (steps + 1)
            after = 0 if after <= 1 else after
        elif outcome == "defeat" and steps >= 2:
            after = min(5, 4 + steps - 1)
        expected[ladder[after]] = expected.get(ladder[after], Fraction(0)) + p
    odds = rules.odds("heal", as_=hero("Injured State"), healing=15, hero_points=1, answers={"hero_point": "use"})
    assert {_name(k): v for k, v in odds.results["after"].items()} == expected


# ------------------------------------------------------------------ special contests


@pytest.mark.parametrize("answer, outcome, state", [("keep", "defeat", "Impaired State"), ("use", "victory", None)])
def test_costly_automatic_victory_with_a_hero_point(rules, hero, answer: str, outcome: str, state: str | None) -> None:  # type: ignore[no-untyped-def]
    # 17 vs 5: failure against success, a minor defeat (impaired); bumped, success against
    # success won by 17: a marginal victory, no cost.
    run = rules.run("costly automatic victory", as_=hero(), ability=15, resistance=14, hero_points=1,
                    dice=[17, 5], driver=CallbackDriver(Answers(hero_point=answer)))
    assert (_name(run.results["outcome"]), _name(run.results["contest_outcome"])) == ("victory", outcome)
    assert run.state["actor"]["conditions"] == ([state] if state else [])


@pytest.mark.parametrize("answer, degree, state", [("keep", "marginal", "dead"), ("use", "minor", "dying")])
def test_pyrrhic_victory_with_a_hero_point(rules, hero, answer: str, degree: str, state: str) -> None:  # type: ignore[no-untyped-def]
    # 17 vs 5 with the Pyrrhic bump: success against success, 17 higher: a marginal victory
    # (T6: dead). The hero point on top: critical against success, minor (T6: dying).
    run = rules.run("pyrrhic victory", as_=hero(), ability=15, resistance=14, hero_points=1,
                    dice=[17, 5], driver=CallbackDriver(Answers(hero_point=answer)))
    assert names(run.results) == {"outcome": "victory", "degree": degree, "state": state,
                                  "hero_left": 0 if answer == "use" else 1}


def test_mass_effort_offers_a_point_after_each_roll(rules) -> None:  # type: ignore[no-untyped-def]
    # Contributing: the augment (15 vs 14), 17 vs 5, a minor defeat (+0); with the point a
    # marginal victory, +3. The force, 12 + 3 = 15 against 14, 17 vs 5 again: offered only
    # while a point is left.
    one = Answers(hero_point="use")
    run = rules.run("mass effort", role="contributing", ability=15, force=12, resistance=14, hero_points=1,
                    dice=[17, 5, 17, 5], driver=CallbackDriver(one))
    assert one.asked == ["hero_point"]
    assert names(run.results) == {"augment": 3, "outcome": "defeat", "degree": "minor", "hero_left": 0}
    two = Answers(hero_point="use")
    run = rules.run("mass effort", role="contributing", ability=15, force=12, resistance=14, hero_points=2,
                    dice=[17, 5, 17, 5], driver=CallbackDriver(two))
    assert two.asked == ["hero_point", "hero_point"]
    assert names(run.results) == {"augment": 3, "outcome": "victory", "degree": "marginal", "hero_left": 0}
    # Determining: the one roll.
    run = rules.run("mass effort", ability=15, resistance=14, hero_points=1, dice=[17, 5],
                    driver=CallbackDriver(Answers(hero_point="use")))
    assert (_name(run.results["outcome"]), _name(run.results["degree"])) == ("victory", "marginal")


def test_final_action_offers_a_point_after_each_roll(rules, hero) -> None:  # type: ignore[no-untyped-def]
    # Wherewithal 15 against 14, 17 vs 5: a minor defeat, no final action; with the point a
    # marginal victory. The action, 15 against 14 with a bump down, 3 vs 10: success down to
    # failure, a minor defeat; the second point brings it back to success, lost on the roll.
    run = rules.run("final action", as_=hero("Dying State"), wherewithal=15, ability=15, resistance=14,
                    dice=[17, 5], driver=CallbackDriver(Answers(hero_point="keep")))
    assert (run.results["acted"], run.results["hero_left"]) == (False, 0)
    both = Answers(hero_point="use")
    run = rules.run("final action", as_=hero("Dying State"), wherewithal=15, ability=15, resistance=14,
                    hero_points=2, dice=[17, 5, 3, 10], driver=CallbackDriver(both))
    assert both.asked == ["hero_point", "hero_point"]
    assert names(run.results) == {
        "wherewithal_outcome": "victory", "wherewithal_degree": "marginal", "acted": True, "bump_down": True,
        "outcome": "defeat", "degree": "marginal", "hero_left": 0}


# ------------------------------------------------------------------ augments

AUGMENT = {-4: -3, -3: 0, -2: 0, -1: 0, 0: 0, 1: 3, 2: 6, 3: 9, 4: 20}  # T2


def test_augment_check_shows_the_bumped_bonus(rules) -> None:  # type: ignore[no-untyped-def]
    # 17 vs 5 at 17: success against success, 17 higher: a marginal victory, +3; bumped, a
    # critical against success: minor, +6.
    results = names(rules.resolve("augment", augmenting=17, dice=[17, 5]).results)
    assert (results["bonus"], results["hero_result"], results["hero_degree"], results["hero_bonus"]) == (
        3, "critical", "minor", 6)
    results = names(rules.resolve("modified contest", ability=15, resistance=14, dice=[17, 5]).results)
    assert (results["outcome"], results["hero_outcome"], results["hero_degree"]) == ("defeat", "victory", "marginal")


def test_rolled_augment_from_a_choices_file(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    choices = tmp_path / "choices.yaml"
    choices.write_text("- use\n", encoding="utf-8")
    run = cli("run", "questworlds", "rolled augment", "--with", "augmenting=17", "--with", "hero_points=1",
              "--dice", "17,5", "--choices", str(choices))
    assert run.code == 0, run.stderr
    assert "bonus: 6" in run.stdout and "hero_left: 0" in run.stdout


def test_rolled_augment_odds_match_an_enumeration(rules) -> None:  # type: ignore[no-untyped-def]
    for policy, hero_on in (("use", True), ("keep", False)):
        expected: dict[int, Fraction] = {}
        for (outcome, steps), p in faces(17, 14, hero_on).items():
            bonus = AUGMENT[signed(outcome, steps)]
            expected[bonus] = expected.get(bonus, Fraction(0)) + p
        odds = rules.odds("rolled augment", augmenting=17, hero_points=1, answers={"hero_point": policy})
        assert dict(odds.results["bonus"].items()) == expected


def test_extended_contest_augment_takes_a_hero_point(rules) -> None:  # type: ignore[no-untyped-def]
    # The augment (17 against 14), 17 vs 5: a marginal victory, +3; the point makes it a
    # critical against a success, minor: +6 for the rest of the contest.
    asked: list[str] = []
    seen: list[int] = []

    def answer(point: ChoicePoint) -> str:
        asked.append(point.name)
        if point.name == "action" and asked.count("action") == 2:
            seen.append(point.state["bonus"])
            raise Stop
        return {"action": "augment_attempt", "hero_point": "use"}[point.name]

    with pytest.raises(Stop):
        rules.run("extended contest", ability=15, resistance=14, augment_ability=17, hero_points=1,
                  dice=[17, 5, 1, 20], driver=CallbackDriver(answer))
    assert asked == ["action", "hero_point", "action"]
    assert seen == [6]


# ------------------------------------------------------------------ group simple contest

OUTCOME_POINTS = {0: 1, 1: 2, 2: 3, 3: 5}  # T7 by result steps


def test_group_simple_hero_point_per_member(rules) -> None:  # type: ignore[no-untyped-def]
    # Member 1 (15 vs 14), 3 vs 10: a marginal defeat (1 against); with the point, critical
    # against success: a minor victory (2). Member 2 (7M vs 12), 5 vs 16: a critical by the
    # mastery against a failure, 3 points; no bump can help a critical, so nothing is asked.
    driver = Answers(hero_point="use")
    run = rules.run("group simple contest", abilities=[15, "7M"], resistance=14, resistances=[0, 12],
                    hero_points=[1, 1], dice=[3, 10, 5, 16], driver=CallbackDriver(driver))
    assert driver.asked == ["hero_point"]
    results = names(run.results)
    assert (results["points"], results["opposition_points"], results["outcome"], results["degree"]) == (
        5, 0, "victory", "complete")
    assert (_name(run.results["pairings"][0]), results["hero_points_spent"]) == ("minor_win", 1)


@pytest.mark.parametrize("answer, outcome, degree", [("keep", "defeat", "major"), ("use", "tie", None)])
def test_group_simple_hero_point_against_a_single_gm_roll(rules, answer: str, outcome: str, degree: str | None) -> None:  # type: ignore[no-untyped-def]
    # Option group_gm_roll=single: the GM's 5 (a success against 14) meets every member's roll.
    # Member 1 (15): 17, a failure, a minor defeat (2 against); with the point a success won on
    # the higher roll (1 for). Member 2 (12): 3, a success lost on the lower roll (1 against).
    run = rules.run("group simple contest", abilities=[15, 12], resistance=14, hero_points=[1],
                    dice=[5, 17, 3], options={"group_gm_roll": "single"},
                    driver=CallbackDriver(Answers(hero_point=answer)))
    assert (_name(run.results["outcome"]), _name(run.results["degree"])) == (outcome, degree)


def test_group_simple_odds_with_hero_points_match_an_enumeration(rules) -> None:  # type: ignore[no-untyped-def]
    def pairing(target: int, hero: bool) -> dict[int, Fraction]:
        found: dict[int, Fraction] = {}
        for (outcome, steps), p in faces(target, 14, hero).items():
            points = 0 if outcome == "tie" else OUTCOME_POINTS[steps] * (1 if outcome == "victory" else -1)
            found[points] = found.get(points, Fraction(0)) + p
        return found

    expected: dict[tuple[str, Any], Fraction] = {}
    for (x, p), (y, q) in itertools.product(pairing(15, True).items(), pairing(12, False).items()):
        difference = x + y
        gap = abs(difference)
        degree = None if gap == 0 else "marginal" if gap == 1 else "minor" if gap == 2 else "major" if gap <= 4 else "complete"
        outcome = "tie" if gap == 0 else "victory" if difference > 0 else "defeat"
        expected[(outcome, degree)] = expected.get((outcome, degree), Fraction(0)) + p * q
    odds = rules.odds("group simple contest", abilities=[15, 12], resistance=14, hero_points=[1],
                      answers={"hero_point": "use"})
    outcomes: dict[str, Fraction] = {}
    degrees: dict[Any, Fraction] = {}
    for (outcome, degree), p in expected.items():
        outcomes[outcome] = outcomes.get(outcome, Fraction(0)) + p
        degrees[degree] = degrees.get(degree, Fraction(0)) + p
    assert {_name(k): v for k, v in odds.results["outcome"].items()} == outcomes
    assert {_name(k): v for k, v in odds.results["degree"].items()} == degrees


# ------------------------------------------------------------------ group scored contest

SCORED = "group scored contest"


def _member_value(state: dict[str, Any], key: str) -> Any:
    """`scored_1`: member 1's item of the per-member list `scored` in a procedure's state."""
    name, _, number = key.rpartition("_")
    return state[name][int(number) - 1]


def _look(answers: dict[str, str], at: int, keys: tuple[str, ...]) -> tuple[Any, list[str], Any]:
    """A driver that answers by name and stops at the `at`-th `tactic` asked, keeping `keys`
    of the state there (`against_2`: member 2's item of the per-member list `against`)."""
    asked: list[str] = []
    seen: dict[str, Any] = {}

    def answer(point: ChoicePoint) -> str:
        asked.append(point.name)
        if point.name == "tactic" and asked.count("tactic") == at:
            seen.update({k: _member_value(point.state, k) for k in keys})
            raise Stop
        return answers[point.name]

    return answer, asked, seen


@pytest.mark.parametrize("tactic, against", [("opposition_normal", 1), ("opposition_gambit", 2),
                                              ("opposition_defensive", 0)])
def test_group_scored_gm_tactics(rules, tactic: str, against: int) -> None:  # type: ignore[no-untyped-def]
    # 3 vs 10: success against success, the worse roll loses: a marginal defeat, 1 point
    # against the member; the GM's gamble +1, its defensive response -1 (§3.5).
    answer, asked, seen = _look({"tactic": "normal", "opposition_tactic": tactic}, 2, ("against_1", "scored_1"))
    with pytest.raises(Stop):
        rules.run(SCORED, abilities=[15], resistances=[14], opposition_tactics=1, dice=[3, 10],
                  driver=CallbackDriver(answer))
    assert asked == ["tactic", "opposition_tactic", "tactic"]
    assert seen == {"against_1": against, "scored_1": 0}


def test_group_scored_hero_point_after_the_members_roll(rules) -> None:  # type: ignore[no-untyped-def]
    # 17 vs 5: a minor defeat (2 against); with the point a marginal victory (1 scored).
    answer, asked, seen = _look({"tactic": "normal", "hero_point": "use"}, 2,
                                ("against_1", "scored_1", "hero_left_1"))
    with pytest.raises(Stop):
        rules.run(SCORED, abilities=[15], resistances=[14], hero_points=[1], dice=[17, 5], driver=CallbackDriver(answer))
    assert asked == ["tactic", "hero_point", "tactic"]
    assert seen == {"against_1": 0, "scored_1": 1, "hero_left_1": 0}


def test_group_scored_hero_point_on_an_assist(rules) -> None:  # type: ignore[no-untyped-def]
    # Round 1: member 1 (15) 1 vs 20, a complete victory, opponent 1 out; member 2 (12) 17 vs
    # 5, a minor defeat: 2 against. Round 2: member 1 assists member 2 against 14, 17 vs 5: a
    # minor defeat would add 1 against; with member 1's point, a marginal victory takes 1 off.
    answers = {"tactic": "normal", "free_action": "2", "hero_point": "use"}  # `2`: assist member 2
    answer, asked, seen = _look(answers, 3, ("against_2", "hero_left_1", "hero_left_2"))
    with pytest.raises(Stop):
        rules.run(SCORED, abilities=[15, 12], resistances=[14, 14], opponents=[0, 2],
                  hero_points=[1], dice=[1, 20, 17, 5, 17, 5], driver=CallbackDriver(answer))
    assert asked == ["tactic", "tactic", "free_action", "hero_point", "tactic"]
    assert seen == {"against_2": 1, "hero_left_1": 0, "hero_left_2": 0}


def test_group_scored_parting_shot(rules) -> None:  # type: ignore[no-untyped-def]
    # 1 vs 20: a complete victory, 5: the opponent is out, and the member takes a parting
    # shot: 17 vs 5, a minor defeat, takes 2 of the 5 back: the opponent is back in at 3.
    answer, asked, seen = _look({"tactic": "normal", "parting_shot": "attempt"}, 2, ("scored_1",))
    with pytest.raises(Stop):
        rules.run(SCORED, abilities=[15], resistances=[14], parting_shots=1, dice=[1, 20, 17, 5],
                  driver=CallbackDriver(answer))
    assert asked == ["tactic", "parting_shot", "tactic"]
    assert seen == {"scored_1": 3}
    # Then 1 vs 20 again: 8 to 0, declined: T11 at a difference of 8 leaves the opponent dead.
    driver = Answers(tactic="normal", parting_shot="attempt")
    answers = iter(["attempt", "decline"])
    driver.answers = {"tactic": "normal"}

    def answer2(point: ChoicePoint) -> str:
        driver.asked.append(point.name)
        return next(answers) if point.name == "parting_shot" else "normal"

    run = rules.run(SCORED, abilities=[15], resistances=[14], parting_shots=1, dice=[1, 20, 17, 5, 1, 20],
                    driver=CallbackDriver(answer2))
    results = names(run.results)
    assert (results["winner"], _name(run.results["consequences"][0]),
            _name(run.results["opposition_consequences"][0])) == (
        "player", "unharmed", "dead")
    # A hero point on the shot: the minor defeat becomes a marginal victory, +1: 6 to 0.
    shot = Answers(tactic="normal", parting_shot="attempt", hero_point="use")
    run = rules.run(SCORED, abilities=[15], resistances=[14], parting_shots=1, hero_points=[1], dice=[1, 20, 17, 5],
                    driver=CallbackDriver(shot))
    assert shot.asked == ["tactic", "parting_shot", "hero_point"]
    assert _name(run.results["opposition_consequences"][0]) == "injured"  # T11 at 6


@pytest.mark.parametrize("penalty, scored", [(0, 3), (3, 2)])
def test_group_scored_multiple_opponent_penalty(rules, penalty: int, scored: int) -> None:  # type: ignore[no-untyped-def]
    # One member against two opponents: the second is engaged by no one, so the member's
    # exchange takes the penalty. 13 vs 20 at 15: success against fumble, a major victory (3);
    # at 15 - 3 = 12, failure against fumble, a minor victory (2).
    answer, _, seen = _look({"tactic": "normal"}, 2, ("scored_1",))
    with pytest.raises(Stop):
        rules.run(SCORED, abilities=[15], resistances=[14, 14], multiple_opponents=penalty,
                  dice=[13, 20], driver=CallbackDriver(answer))
    assert seen == {"scored_1": scored}


def test_one_member_group_scored_plays_as_the_scored_contest(rules) -> None:  # type: ignore[no-untyped-def]
    # With the GM gambling every round and a hero point, one member against one opponent has
    # the exact odds of `Scored Contest` (which its own tests check against an enumeration).
    # Parting shots are left to the replays above: always attempting one makes the single
    # contest's chain large (its score may rise and fall), and the test slow.
    answers = {"tactic": "normal", "opposition_tactic": "opposition_gambit", "hero_point": "use",
               "parting_shot": "decline"}
    single = rules.odds("scored contest", ability=15, resistance=14, hero_points=1, opposition_tactics=1,
                        answers=answers)
    group = rules.odds(SCORED, abilities=[15], resistances=[14], hero_points=[1], opposition_tactics=1,
                       parting_shots=1, answers=answers)
    # The group's per-member results are lists (of one item here).
    for mine, theirs in (("winner", "winner"), ("consequence", "consequences"),
                         ("opposition_consequence", "opposition_consequences")):
        assert {_name(k): v for k, v in single.results[mine].items()} == {
            _name(k[0] if isinstance(k, tuple) else k): v for k, v in group.results[theirs].items()}


def test_group_extended_hero_point_per_roll(rules) -> None:  # type: ignore[no-untyped-def]
    # Member 1 (15 against 14) bids 3: 17 vs 5 would be a minor defeat (-6); with the point a
    # marginal victory, the resistance loses half the bid, 2. The GM's exchange, 3 vs 10, a
    # marginal defeat for the member (-2): the point is spent, so nothing is asked.
    asked: list[str] = []
    seen: dict[str, Any] = {}

    def answer(point: ChoicePoint) -> str:
        asked.append(point.name)
        if point.name == "group_action" and asked.count("group_action") == 2:
            seen.update(ap_1=point.state["ap"][0], opposition_ap=point.state["opposition_ap"],
                        hero_left_1=point.state["hero_left"][0])
            raise Stop
        return {"group_action": "exchange", "bid": "standard", "opposition_target": "first_standing",
                "hero_point": "use"}[point.name]

    with pytest.raises(Stop):
        rules.run("group extended contest", abilities=[15], resistance=14, hero_points=[1], dice=[17, 5, 3, 10],
                  driver=CallbackDriver(answer))
    assert asked == ["group_action", "bid", "opposition_target", "hero_point", "group_action"]
    assert seen == {"ap_1": 13, "opposition_ap": 12, "hero_left_1": 0}


def test_one_member_group_extended_with_hero_points_plays_as_the_extended_contest(rules) -> None:  # type: ignore[no-untyped-def]
    # One member, bids of 3 and 1 (the member acts first, as in `Extended Contest`), two hero
    # points spent whenever they help, on the member's rolls and on the GM's rolls against them.
    answers = {"hero_point": "use"}
    group = rules.odds("group extended contest", abilities=[3], resistance=3, opposition_bid=1, hero_points=[2],
                       answers=answers)
    single = rules.odds("extended contest", ability=3, resistance=3, opposition_bid=1, hero_points=2,
                        answers=answers)
    plain = rules.odds("extended contest", ability=3, resistance=3, opposition_bid=1)
    for name in ("winner", "degree", "opposition_ap"):
        assert group.results[name] == single.results[name]
    assert single.results["winner"] != plain.results["winner"]


# ------------------------------------------------------------------ chained contest: AMB-25


def _chained(stack: bool, hero_points: int = 0) -> dict[str, Fraction]:
    """Winner odds of a chained contest at 15 against 14, both pressing on. T21: a marginal or
    minor defeat hurts (hurt: injured; injured: dying), a major one injures (injured: dying),
    a complete one leaves the loser dying. Penalties (hurt 3, injured 9) apply to both sides:
    the worst state's, or every state's added up (`stack`). Hero points go on every roll a
    bump improves while any is left."""
    cost = {"hurt": 3, "injured": 9}

    def worsen(h: str, steps: int) -> str:
        if steps == 3 or h == "injured":
            return "dying"
        return "injured" if steps == 2 or h == "hurt" else "hurt"

    def penalty(h: str, taken: int) -> int:
        return taken if stack else cost.get(h, 0)

    @cache
    def finish(mine: str, theirs: str, taken: int, dealt: int, left: int) -> dict[str, Fraction]:
        if theirs == "dying":
            return {"player": Fraction(1)}
        if mine == "dying":
            return {"opposition": Fraction(1)}
        target, resistance = 15 - penalty(mine, taken), 14 - penalty(theirs, dealt)
        rounds: dict[tuple[str, int, int], Fraction] = {}
        for a, b in itertools.product(range(1, 21), repeat=2):
            own = level(a, target)
            used = 1 if left > 0 and own < CRITICAL and target > 0 else 0
            key = (*compare(own + used, level(b, resistance), a, b), used)
            rounds[key] = rounds.get(key, Fraction(0)) + Fraction(1, 400)
        stay = rounds.get(("tie", 0, 0), Fraction(0))
        total: dict[str, Fraction] = {}
        for (outcome, steps, used), p in rounds.items():
            if outcome == "tie" and not used:
                continue
            if outcome == "tie":
                after = (mine, theirs, taken, dealt, left - used)
            elif outcome == "victory":
                new = worsen(theirs, steps)
                after = (mine, new, taken, dealt + cost.get(new, 0), left - used)
            else:
                new = worsen(mine, steps)
                after = (new, theirs, taken + cost.get(new, 0), dealt, left - used)
            for who, q in finish(*after).items():
                total[who] = total.get(who, Fraction(0)) + p * q / (1 - stay)
        return total

    return finish("unharmed", "unharmed", 0, 0, hero_points)


@pytest.mark.parametrize("option", ["replace", "stack"])
def test_chained_odds_match_an_enumeration(rules, option: str) -> None:  # type: ignore[no-untyped-def]
    odds = rules.odds("chained contest", ability=15, resistance=14, options={"chained_stack": option})
    assert {_name(k): v for k, v in odds.results["winner"].items()} == _chained(option == "stack")


def test_chained_odds_with_hero_points_match_an_enumeration(rules) -> None:  # type: ignore[no-untyped-def]
    odds = rules.odds("chained contest", ability=15, resistance=14, hero_points=2, answers={"hero_point": "use"})
    assert {_name(k): v for k, v in odds.results["winner"].items()} == _chained(False, 2)
    assert _chained(False, 2) != _chained(False)


def test_chained_hero_point_after_the_roll(rules) -> None:  # type: ignore[no-untyped-def]
    # 17 vs 5: a minor defeat would hurt the player; with the point a marginal victory hurts
    # the opponent. Then 1 vs 20: complete, the opponent is dying.
    driver = Answers(move="press_on", hero_point="use")
    run = rules.run("chained contest", ability=15, resistance=14, hero_points=1, dice=[17, 5, 1, 20],
                    driver=CallbackDriver(driver))
    assert driver.asked == ["move", "hero_point", "move"]
    assert (_name(run.results["harm"]), _name(run.results["opposition_harm"])) == ("unharmed", "dying")


def test_the_two_chained_readings_differ() -> None:
    assert _chained(True) != _chained(False)


# ------------------------------------------------------------------ Pyrrhic long contest: AMB-49

RESOLUTION = {0: 1, 1: 2, 2: 3, 3: 5}  # T10 by result steps


def _pyrrhic_scored(bump_once: bool) -> dict[tuple[str, str], Fraction]:
    """(winner, T6 state) of a scored contest at 15 against 14, normal tactics, the parting
    shot declined, with a Pyrrhic bump on every roll or on the first roll only (AMB-49)."""

    def rounds(bump: int) -> dict[tuple[str, int], Fraction]:
        found: dict[tuple[str, int], Fraction] = {}
        for a, b in itertools.product(range(1, 21), repeat=2):
            key = compare(min(CRITICAL, level(a, 15) + bump), level(b, 14), a, b)
            found[key] = found.get(key, Fraction(0)) + Fraction(1, 400)
        return found

    def state(points: int, against: int) -> tuple[str, str]:
        if against >= 5:
            return ("opposition", "dead")
        difference = min(9, points - against)  # T11: 1-2 marginal ... 7+ complete; T6
        return ("player", "dead" if difference <= 2 else "dying" if difference <= 4
                else "injured" if difference <= 6 else "impaired")

    @cache
    def finish(points: int, against: int, bump: int) -> dict[tuple[str, str], Fraction]:
        if points >= 5 or against >= 5:
            return {state(points, against): Fraction(1)}
        after_bump = 0 if bump_once else bump
        found = rounds(bump)
        stay = found.get(("tie", 0), Fraction(0)) if after_bump == bump else Fraction(0)
        total: dict[tuple[str, str], Fraction] = {}
        for (outcome, steps), p in found.items():
            if outcome == "tie" and after_bump == bump:
                continue
            scored = 0 if outcome == "tie" else RESOLUTION[steps]
            nxt = (points + scored, against, after_bump) if outcome == "victory" else (points, against + scored, after_bump)
            for key, q in finish(*nxt).items():
                total[key] = total.get(key, Fraction(0)) + p * q / (1 - stay)
        return total

    return finish(0, 0, 1)


@pytest.mark.parametrize("option", ["every_roll", "once"])
def test_pyrrhic_scored_contest_odds(rules, option: str) -> None:  # type: ignore[no-untyped-def]
    expected = _pyrrhic_scored(option == "once")
    odds = rules.odds("scored contest", ability=15, resistance=14, pyrrhic=1, options={"pyrrhic_bump": option})
    states: dict[str, Fraction] = {}
    winners: dict[str, Fraction] = {}
    for (winner, state), p in expected.items():
        states[state] = states.get(state, Fraction(0)) + p
        winners[winner] = winners.get(winner, Fraction(0)) + p
    assert {_name(k): v for k, v in odds.results["pyrrhic_state"].items()} == states
    assert {_name(k): v for k, v in odds.results["winner"].items()} == winners


def test_pyrrhic_scored_contest_replay(rules) -> None:  # type: ignore[no-untyped-def]
    # 17 vs 5 with the bump: success against success, 17 higher: 1 point; under `once` the
    # second 17 vs 5 is a minor defeat (2 against), on every roll another point.
    def play(option: str) -> dict[str, Any]:
        run = rules.run("scored contest", ability=15, resistance=14, pyrrhic=1, dice=[17, 5, 17, 5, 1, 20],
                        options={"pyrrhic_bump": option},
                        driver=CallbackDriver(lambda point: {"tactic": "normal", "parting_shot": "decline"}[point.name]))
        return names(run.results)

    every, once = play("every_roll"), play("once")
    assert (every["points"], every["opposition_points"], every["pyrrhic_state"]) == (7, 0, "impaired")  # T11: 7 is complete; T6: impaired
    assert (once["points"], once["opposition_points"], once["pyrrhic_state"]) == (6, 2, "dying")  # 4: minor
    with pytest.raises(RunebookError):
        rules.run("scored contest", ability=15, resistance=14, pyrrhic=2, dice=[17, 5])


# ------------------------------------------------------------------ golden cases T-1 to T-7, T-13, T-20


@pytest.mark.parametrize("rating, value, masteries, target", [
    (27, 27, 1, 7),         # T-1: "7M"
    (43, 43, 2, 3),         # T-2: "3M2"
    ("10M2", 50, 2, 10),    # T-3: 10 + 20 + 20
    ("10M3", 70, 3, 10),    # T-4: three masteries
    (21, 21, 1, 1),         # T-5: 20 raised by 1 is 1M
    (40, 40, 1, 20),        # T-6 and AMB-1: 40 is still one mastery (20M) ...
    (41, 41, 2, 1),         # ... and 41 is the second (1M2)
    (15, 15, 0, 15), ("5M", 25, 1, 5), ("1M2", 41, 2, 1),  # T-7: apprentice, journeyman, master
])
def test_t1_to_t7_ratings(rules, rating: Any, value: int, masteries: int, target: int) -> None:  # type: ignore[no-untyped-def]
    # The numeric value, read as a community resource averaged with itself alone, and its
    # masteries and target number, read as a base resistance.
    assert rules.resolve("background event", resource=rating, resource_1=rating, dice=[10, 10]).results["average"] == value
    results = rules.resolve("resistance", base=value).results
    assert (results["masteries"], results["target"]) == (masteries, target)


def test_t13_base_resistance_and_augments(rules) -> None:  # type: ignore[no-untyped-def]
    # The base resistance is 14 (moderate), and an augment is rolled against it, unmodified.
    assert rules.resolve("resistance").results["resistance"] == 14
    assert rules.resolve("augment", augmenting=14, dice=[14, 15]).results["outcome"].name == "victory"
    assert rules.resolve("augment", augmenting=14, dice=[15, 14]).results["outcome"].name == "defeat"


def test_t20_community_ratings(rules) -> None:  # type: ignore[no-untyped-def]
    # {12W, 9W, 18, 18, 12} are 32, 29, 18, 18, 12 (W is the community section's mastery): a
    # resource averaged with itself alone is its numeric value; the five average 109 / 5,
    # rounded down (option combined_rounding): 21.
    ratings = ("12W", "9W", 18, 18, 12)
    alone = [rules.resolve("background event", resource=r, resource_1=r, dice=[10, 10]).results["average"]
             for r in ratings]
    assert alone == [32, 29, 18, 18, 12]
    five = dict(zip(("resource_1", "resource_2", "resource_3", "resource_4", "resource_5"), ratings))
    assert rules.resolve("background event", resource="12W", dice=[10, 10], **five).results["average"] == 109 // 5


# ------------------------------------------------------------------ bad answers


def test_a_hero_point_answer_not_offered_is_refused(cli, hero, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "patient.yaml"
    text = "name: Patient\nstats:\n  Ability: 15\nconditions: [Injured State]\n"
    path.write_text(text, encoding="utf-8")
    for answers, code in (("- spend\n", "E0611"), ("", "E0610")):
        choices = tmp_path / "choices.yaml"
        choices.write_text(answers or "[]\n", encoding="utf-8")
        run = cli("run", "questworlds", "heal", "--as", str(path), "--with", "healing=15", "--with", "hero_points=1",
                  "--dice", "12,5", "--choices", str(choices))
        assert run.code == 1 and code in run.stderr and "hero_point" in run.stderr
        assert "Traceback" not in run.stderr and run.stdout == ""
        assert path.read_text(encoding="utf-8") == text


def test_a_check_takes_no_hero_point_pool(rules) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError):
        rules.resolve("augment", augmenting=17, hero_points=1, dice=[17, 5])


def test_a_refused_run_leaves_the_entity_as_it_was(rules, hero) -> None:  # type: ignore[no-untyped-def]
    patient = hero("Injured State")
    before = (dict(patient.resources), list(patient.conditions))
    with pytest.raises(RunebookError) as error:
        rules.run("heal", as_=patient, healing=15, hero_points=1, dice=[12, 5],
                  driver=CallbackDriver(lambda point: "spend"))
    assert [d.code for d in error.value.diagnostics] == ["E0611"]
    assert (dict(patient.resources), list(patient.conditions)) == before


def test_a_check_in_the_branch_not_taken_rolls_nothing(tmp_path: Path) -> None:
    """Game-neutral: the parting shot's `Contest(...) if shooting else r` relies on a
    conditional evaluating only the branch taken (docs/expressions.md)."""
    (tmp_path / "game.rules").write_text(
        "check Die (n = 6)\n  roll d = 1d6\n  result face = sum(d)\n\n"
        "procedure Maybe (go = 0)\n  roll first = 1d6\n  let x = Die(6) if go == 1 else none\n"
        "  result a = sum(first)\n  result b = x.face if go == 1 else 0\n", encoding="utf-8")
    game = interpreter.load(str(tmp_path))
    assert game.run("maybe", dice=[3]).results == {"a": 3, "b": 0}  # one die given, one used
    assert game.run("maybe", go=1, dice=[3, 4]).results == {"a": 3, "b": 4}
    assert dict(game.odds("maybe").results["b"].items()) == {0: 1}
