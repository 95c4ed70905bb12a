"""QuestWorlds hero points decided after the roll (SRD 2.2 §2.3.5.5; spec questworlds.md §1.5):
the `Contest` check shows what one hero point's bump would give from the same dice, and the
procedures offer the point only after the roll, only while one is left and only when the bump
changes the result, one per roll. Replays from given dice; exact odds against an enumeration
of the two d20 faces written here from the rules text."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from runebook import interpreter
from runebook.interpreter.rules.procedures import CallbackDriver, ChoicePoint
from questworlds_helpers import level_name as _name

LEVELS = ["fumble", "failure", "success", "critical"]
POINTS = {0: 1, 1: 2, 2: 3, 3: 5}  # resolution points by result steps (T10)


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("questworlds")


class Recorder:
    """Answers choice points from a table and keeps, for each `hero_point` asked, the roll
    the player saw (the Contest record `r` already in the procedure's state)."""

    def __init__(self, answers: dict[str, str]) -> None:
        self.answers = answers
        self.asked: list[str] = []
        self.seen: list[dict[str, Any]] = []

    def __call__(self, point: ChoicePoint) -> str:
        self.asked.append(point.name)
        if point.name == "hero_point":
            self.seen.append({k: _name(v) for k, v in point.state["r"].items()})
        return self.answers[point.name]


# ------------------------------------------------------------------ the check shows both


def test_resolve_shows_what_a_hero_point_would_do(cli) -> None:  # type: ignore[no-untyped-def]
    # 17 vs 5 at 15 against 14: failure against success, a minor defeat; bumped, success
    # against success and 17 is the higher roll: a marginal victory.
    run = cli("resolve", "questworlds", "contest", "--with", "ability=15", "--with", "resistance=14",
              "--dice", "17,5", "--json")
    assert run.code == 0, run.stderr
    results = json.loads(run.stdout)["results"]
    assert (results["outcome"], results["degree"]) == ("defeat", "minor")
    assert (results["hero_result"], results["hero_outcome"], results["hero_degree"]) == (
        "success", "victory", "marginal")


def test_a_hero_point_cannot_bump_a_zero_target(rules) -> None:  # type: ignore[no-untyped-def]
    # 3 - 3 = 0: a failure even on a 1 (AMB-50), and the hero view is the same failure
    r = rules.resolve("contest", ability=3, resistance=14, modifier=-3, dice=[1, 5]).results
    assert (_name(r["hero_result"]), _name(r["hero_outcome"])) == ("failure", "defeat")
    allowed = rules.resolve("contest", ability=3, resistance=14, modifier=-3, dice=[1, 5],
                            options={"zero_target": "hero_point_allowed"}).results
    assert (_name(allowed["hero_result"]), _name(allowed["hero_outcome"])) == ("success", "defeat")


# ------------------------------------------------------------------ scored contest


def test_a_defeat_turned_into_a_victory_after_seeing_the_roll(rules) -> None:  # type: ignore[no-untyped-def]
    driver = Recorder({"tactic": "normal", "hero_point": "use", "parting_shot": "decline"})
    # Round 1, 17 vs 5: seen as a minor defeat; the hero point makes it success against
    # success won by the higher roll: 1 point. Round 2, 1 vs 20: critical against fumble, a
    # complete victory (5); no point is left, and a critical could not go higher anyway.
    run = rules.run("scored contest", dice=[17, 5, 1, 20], driver=CallbackDriver(driver),
                    ability=15, resistance=14, hero_points=1)
    assert driver.asked == ["tactic", "hero_point", "tactic", "parting_shot"]
    assert [(s["outcome"], s["degree"], s["hero_outcome"], s["hero_degree"]) for s in driver.seen] == [
        ("defeat", "minor", "victory", "marginal")]
    assert (run.results["points"], run.results["opposition_points"]) == (6, 0)


def test_keeping_the_point_after_seeing_the_roll(rules) -> None:  # type: ignore[no-untyped-def]
    # Round 1 kept: the minor defeat stands (2 against). Round 2, 3 vs 10: success against
    # success lost on the worse roll; the kept point turns it into critical against success,
    # a minor victory (2). Round 3, 1 vs 20: complete victory (5), not offered.
    hero_answers = iter(["keep", "use"])
    asked: list[str] = []

    def answer(point: ChoicePoint) -> str:
        asked.append(point.name)
        return {"tactic": "normal", "parting_shot": "decline"}.get(point.name) or next(hero_answers)

    run = rules.run("scored contest", dice=[17, 5, 3, 10, 1, 20], driver=CallbackDriver(answer),
                    ability=15, resistance=14, hero_points=1)
    assert asked.count("hero_point") == 2
    assert (run.results["points"], run.results["opposition_points"]) == (7, 2)
    assert run.state["hero_left"] == 0


def test_the_point_is_not_offered_when_none_is_left_or_it_cannot_help(rules) -> None:  # type: ignore[no-untyped-def]
    answers = {"tactic": "normal", "hero_point": "use", "parting_shot": "decline"}
    dice = [17, 5, 17, 5, 1, 20]  # two bumpable minor defeats, then a complete victory
    none_held = Recorder(answers)
    run = rules.run("scored contest", dice=dice, driver=CallbackDriver(none_held), ability=15, resistance=14)
    assert "hero_point" not in none_held.asked
    assert (run.results["points"], run.results["opposition_points"]) == (5, 4)
    one_held = Recorder(answers)
    run = rules.run("scored contest", dice=dice, driver=CallbackDriver(one_held),
                    ability=15, resistance=14, hero_points=1)
    assert one_held.asked.count("hero_point") == 1  # only the first round: then none is left
    assert (run.results["points"], run.results["opposition_points"]) == (6, 2)
    plenty = Recorder(answers)
    run = rules.run("scored contest", dice=dice, driver=CallbackDriver(plenty),
                    ability=15, resistance=14, hero_points=3)
    assert plenty.asked.count("hero_point") == 2  # not on the critical of round 3
    assert run.state["hero_left"] == 1
    assert (run.results["points"], run.results["opposition_points"]) == (7, 0)


def test_one_hero_point_per_roll(rules) -> None:  # type: ignore[no-untyped-def]
    driver = Recorder({"tactic": "normal", "hero_point": "use", "parting_shot": "decline"})
    # With two points, 17 vs 5 is asked about once and bumped once: success against success
    # (a marginal victory, 1), not critical against success (minor, 2). The second point goes
    # on round 2 (3 vs 10: a marginal defeat bumped to a minor victory, 2); 1 vs 20 ends it.
    run = rules.run("scored contest", dice=[17, 5, 3, 10, 1, 20], driver=CallbackDriver(driver),
                    ability=15, resistance=14, hero_points=2)
    assert driver.asked == ["tactic", "hero_point", "tactic", "hero_point", "tactic", "parting_shot"]
    assert (run.results["points"], run.results["opposition_points"]) == (8, 0)


def test_a_hero_point_on_the_parting_shot(rules) -> None:  # type: ignore[no-untyped-def]
    driver = Recorder({"tactic": "normal", "hero_point": "use", "parting_shot": "attempt"})
    # 1 vs 20: a complete victory (5), not offered. The parting shot, 17 vs 5: a minor defeat
    # would take 2 of the 5 back; with the point it is a marginal victory, +1.
    run = rules.run("scored contest", dice=[1, 20, 17, 5], driver=CallbackDriver(driver),
                    ability=15, resistance=14, hero_points=1)
    assert driver.asked == ["tactic", "parting_shot", "hero_point"]
    assert (run.results["points"], run.results["opposition_points"]) == (6, 0)


def test_a_replay_file_answers_the_point_after_the_roll(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    choices = tmp_path / "choices.yaml"
    choices.write_text("- normal\n- use\n- normal\n- decline\n", encoding="utf-8")
    run = cli("run", "questworlds", "scored contest", "--with", "ability=15", "--with", "resistance=14",
              "--with", "hero_points=1", "--dice", "17,5,1,20", "--choices", str(choices), "--json")
    assert run.code == 0, run.stderr
    payload = json.loads(run.stdout)
    assert [c["choice"] for c in payload["choices"]] == ["tactic", "hero_point", "tactic", "parting_shot"]
    assert (payload["results"]["points"], payload["results"]["opposition_points"]) == (6, 0)


# ------------------------------------------------------------------ extended and hero contests


def test_extended_exchange_and_response(rules) -> None:  # type: ignore[no-untyped-def]
    class Stop(Exception):
        pass

    asked: list[str] = []
    answers = iter(["act", "4", "use"])

    def answer(point: ChoicePoint) -> str:
        asked.append(point.name)
        if point.name == "action" and len(asked) > 1:
            raise Stop(point.state["ap"], point.state["opposition_ap"])
        return next(answers)

    # The exchange, 17 vs 5, bid 4: a minor defeat (the player would lose 8); the point makes
    # it a marginal victory, the resistance losing half the bid, 2 (14 -> 12). The response,
    # 3 vs 10, would be worth bumping but no point is left: a marginal defeat, the player
    # loses half the GM's bid of 3, rounded up: 15 -> 13.
    with pytest.raises(Stop) as stop:
        rules.run("extended contest", dice=[17, 5, 3, 10], driver=CallbackDriver(answer),
                  ability=15, resistance=14, hero_points=1)
    assert asked == ["action", "bid", "hero_point", "action"]
    assert stop.value.args == (13, 12)


def test_a_hero_point_on_a_disengagement(rules) -> None:  # type: ignore[no-untyped-def]
    asked: list[str] = []

    def answer(point: ChoicePoint) -> str:
        asked.append(point.name)
        return {"action": "disengage_attempt", "hero_point": "use"}[point.name]

    # 17 vs 5: a minor defeat (a quarter of the AP handed over); with the point, a marginal
    # victory: the player leaves the contest.
    run = rules.run("extended contest", dice=[17, 5], driver=CallbackDriver(answer),
                    ability=15, resistance=14, hero_points=1)
    assert asked == ["action", "hero_point"]
    assert (run.results["disengaged"], run.results["ap"], run.results["opposition_ap"]) == (True, 15, 14)


def test_hero_contest_turns_a_defeat_into_a_tie(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "hero.yaml"
    path.write_text("name: Test Hero\nstats:\n  Ability: 5\n", encoding="utf-8")
    hero = rules.entity(str(path))
    seen: list[tuple[str, str]] = []

    def answer(point: ChoicePoint) -> str:
        seen.append((_name(point.state["r"]["outcome"]), _name(point.state["r"]["hero_outcome"])))
        return "use"

    # 10 vs 10 at 5 against 14: failure against success; bumped, success against success on
    # the same roll: a standoff.
    run = rules.run("hero contest", as_=hero, driver=CallbackDriver(answer), resistance=14, dice=[10, 10])
    assert seen == [("defeat", "tie")]
    assert (_name(run.results["outcome"]), run.results["degree"]) == ("tie", None)
    assert run.results["hero_points"] == 2


# ------------------------------------------------------------------ exact odds


def _level(face: int, target: int) -> int:
    if target <= 0:
        return 1
    return 3 if face == 1 else 0 if face == 20 else 2 if face <= target else 1


def _round(mine: int, theirs: int, a: int, b: int) -> tuple[str, int]:
    """Outcome and resolution points of one round, with no masteries (§1.6, T10)."""
    if mine == theirs and (a == b or mine == 0):
        return "tie", 0
    if mine > theirs or (mine == theirs and a > b):
        return "victory", POINTS[abs(mine - theirs)]
    return "defeat", POINTS[abs(mine - theirs)]


def _faces(target: int, resistance: int, hero: bool) -> dict[tuple[str, int, bool], Fraction]:
    """One round over the 400 face pairs; with `hero`, a point goes on every roll it improves."""
    found: dict[tuple[str, int, bool], Fraction] = {}
    for a, b in itertools.product(range(1, 21), repeat=2):
        mine, theirs = _level(a, target), _level(b, resistance)
        used = hero and mine < 3
        key = (*_round(mine + used, theirs, a, b), used)
        found[key] = found.get(key, Fraction(0)) + Fraction(1, 400)
    return found


def _scored(target: int, resistance: int, hero_points: int) -> dict[tuple[int, int], Fraction]:
    """Final (points, opposition points) of a scored contest with normal tactics, the parting
    shot declined, a hero point spent whenever one is left and it improves the roll."""

    @cache
    def finish(points: int, against: int, left: int) -> dict[tuple[int, int], Fraction]:
        if points >= 5 or against >= 5:
            return {(points, against): Fraction(1)}
        rounds = _faces(target, resistance, left > 0)
        stay = sum((p for (o, _, used), p in rounds.items() if o == "tie" and not used), Fraction(0))
        total: dict[tuple[int, int], Fraction] = {}
        for (outcome, scored, used), p in rounds.items():
            if outcome == "tie" and not used:
                continue  # a standoff repeats the round from the same state
            after = (points + scored, against, left - used) if outcome == "victory" else (
                points, against + scored, left - used)
            for end, q in finish(*after).items():
                total[end] = total.get(end, Fraction(0)) + p * q / (1 - stay)
        return total

    return finish(0, 0, hero_points)


def test_scored_contest_odds_with_a_hero_point_policy(rules) -> None:  # type: ignore[no-untyped-def]
    odds = rules.odds("scored contest", ability=15, resistance=14, hero_points=2, answers={"hero_point": "use"})
    expected = _scored(15, 14, 2)
    assert sum(expected.values()) == 1
    for name, index in (("points", 0), ("opposition_points", 1)):
        marginal: dict[int, Fraction] = {}
        for key, p in expected.items():
            marginal[key[index]] = marginal.get(key[index], Fraction(0)) + p
        assert dict(odds.results[name].items()) == marginal
    won = sum((p for (points, _), p in expected.items() if points >= 5), Fraction(0))
    assert {_name(k): v for k, v in odds.results["winner"].items()} == {"player": won, "opposition": 1 - won}


def test_hero_contest_odds_with_and_without_the_point(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "hero.yaml"
    path.write_text("name: Test Hero\nstats:\n  Ability: 12\n", encoding="utf-8")
    hero = rules.entity(str(path))
    for policy, hero_on in (("use", True), ("keep", False)):
        odds = rules.odds("hero contest", as_=hero, resistance=14, answers={"hero_point": policy})
        expected: dict[str, Fraction] = {}
        for (outcome, _, _), p in _faces(12, 14, hero_on).items():
            expected[outcome] = expected.get(outcome, Fraction(0)) + p
        assert {_name(k): v for k, v in odds.results["outcome"].items()} == expected
