"""QuestWorlds hero points, creation and advancement (rulesets/questworlds/advancement.rules,
characters.rules): the spec's worked examples T-15, T-16, T-21, T-23 and T-28
(questworlds.md §5.1), the advance menu (T26), catch-ups, flaws and the example characters'
creation budgets; bad input is a diagnostic that changes nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import pytest
import yaml

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.rules.entities import Held
from runebook.interpreter.rules.procedures import CallbackDriver

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "rulesets" / "questworlds" / "examples"


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("questworlds")


@pytest.fixture
def hero(rules, tmp_path: Path):  # type: ignore[no-untyped-def]
    def make(extra: str = "") -> Any:
        path = tmp_path / "hero.yaml"
        path.write_text("name: Test Hero\nstats:\n  Ability: 15\n" + extra, encoding="utf-8")
        return rules.entity(str(path))

    return make


def play(rules, name: str, entity: Any, answers: list[str] | None = None,
         **inputs: Any) -> tuple[dict[str, Any], Any]:  # type: ignore[no-untyped-def]
    queue = list(answers or [])
    run = rules.run(name, as_=entity, driver=CallbackDriver(lambda point: queue.pop(0)), **inputs)
    assert queue == []
    after = run.state["actor"]
    results = {k: getattr(v, "name", v) for k, v in run.results.items()}
    return results, attrs.evolve(entity, resources=dict(after["resources"]),
                                 conditions=[Held(c) for c in after["conditions"]])


# ------------------------------------------------------------------ T-28 hero points

def test_hero_points_start_at_three_and_come_back_each_session(rules, hero) -> None:  # type: ignore[no-untyped-def]
    entity = hero()
    assert entity.resources["HP"] == 3 and entity.resources["XP"] == 0
    results, entity = play(rules, "hero contest", entity, ["use"], resistance=14, dice=[3, 10])
    assert results["hero_points"] == 2
    results, entity = play(rules, "hero contest", entity, ["use"], resistance=14, dice=[3, 10])
    results, entity = play(rules, "new session", entity)
    # +3 at the start of the session, nothing carried over; the unspent point became experience
    assert (results["hero_points"], results["xp"]) == (3, 1)
    results, entity = play(rules, "new session", entity)
    assert (results["hero_points"], results["xp"]) == (3, 4)


def test_unspent_hero_points_may_be_lost(rules, hero) -> None:  # type: ignore[no-untyped-def]
    results, _ = play(rules, "new session", hero(), options={"unspent_hero_points": "lost"})
    assert (results["hero_points"], results["xp"]) == (3, 0)


def test_first_session_and_the_section_7_regime(rules, hero) -> None:  # type: ignore[no-untyped-def]
    assert play(rules, "new session", hero(), first=1)[0] == {"hero_points": 3, "xp": 0}
    assert play(rules, "new session", hero(), first=1,
                options={"first_session_points": "six_points"})[0]["hero_points"] == 6
    options = {"hero_point_regime": "section_7"}
    results, entity = play(rules, "new session", hero(), options=options)
    assert (results["hero_points"], results["xp"]) == (1, 3)
    results, entity = play(rules, "award hero points", entity, points=3, options=options)
    results, entity = play(rules, "award hero points", entity, points=2, options=options)
    assert results["hero_points"] == 6
    with pytest.raises(RunebookError):  # a sixth award in one session
        play(rules, "award hero points", entity, points=1, options=options)
    results, entity = play(rules, "new session", entity, options=options)
    results, entity = play(rules, "award hero points", entity, points=5, options=options)
    assert results["hero_points"] == 6
    with pytest.raises(RunebookError):  # no awards under the default regime
        play(rules, "award hero points", hero(), points=1)


@pytest.mark.parametrize(("dice", "keep", "use"), [
    ([3, 10], "defeat", "victory"),   # success vs success (worse roll); bumped: critical beats success
    ([16, 5], "defeat", "victory"),   # failure vs success; bumped: success on the higher roll
])
def test_one_hero_point_is_one_bump(rules, hero, dice: list[int], keep: str, use: str) -> None:  # type: ignore[no-untyped-def]
    # the choice comes after the roll (§1.5): the same dice, kept or used
    kept, entity = play(rules, "hero contest", hero(), ["keep"], resistance=14, dice=dice)
    used, after = play(rules, "hero contest", hero(), ["use"], resistance=14, dice=dice)
    assert (kept["outcome"], used["outcome"]) == (keep, use)
    assert entity.resources["HP"] == 3 and after.resources["HP"] == 2
    steps = ["fumble", "failure", "success", "critical"]
    assert steps.index(used["result"]) == min(3, steps.index(kept["result"]) + 1)
    # at most one per roll: the check takes 0 or 1, more is one
    twice = rules.resolve("contest", ability=15, resistance=14, hero_point=2, dice=dice).results["result"]
    assert twice.name == used["result"]


def test_no_hero_point_is_offered_on_a_critical(rules, hero) -> None:  # type: ignore[no-untyped-def]
    # 1 vs 5: a critical cannot go higher, so the player is not asked and keeps the point
    results, entity = play(rules, "hero contest", hero(), [], resistance=14, dice=[1, 5])
    assert (results["result"], results["outcome"], entity.resources["HP"]) == ("critical", "victory", 3)


def test_no_hero_point_is_offered_from_an_empty_pool(rules, hero, cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    broke = hero("resources:\n  HP: 0\n")
    results, after = play(rules, "hero contest", broke, [], resistance=14, dice=[3, 10])
    assert (results["outcome"], after.resources["HP"]) == ("defeat", 0)
    path = tmp_path / "broke.yaml"
    path.write_text("name: Broke\nstats:\n  Ability: 15\nresources:\n  HP: 0\n", encoding="utf-8")
    choices = tmp_path / "choices.yaml"
    choices.write_text("- use\n", encoding="utf-8")
    run = cli("run", "questworlds", "hero contest", "--as", str(path), "--with", "resistance=14",
              "--choices", str(choices), "--dice", "3,10", "--json")
    assert run.code == 0 and "Traceback" not in run.stderr
    payload = json.loads(run.stdout)
    assert payload["choices"] == [] and payload["results"]["outcome"] == "defeat"
    assert "HP: 0" in path.read_text(encoding="utf-8")


def test_states_change_the_hero_contest(rules, hero) -> None:  # type: ignore[no-untyped-def]
    hurt = attrs.evolve(hero(), conditions=[Held("Hurt State"), Held("Hurt State")])
    assert play(rules, "hero contest", hurt, ["keep"], resistance=14, dice=[9, 9])[0]["target"] == 9
    heroic = attrs.evolve(hero(), conditions=[Held("Heroic State")])
    # heroic: a bump up, to critical; no hero point is offered on top of a critical
    results, _ = play(rules, "hero contest", heroic, [], resistance=14, dice=[3, 10])
    assert results["result"] == "critical"


# ------------------------------------------------------------------ T-21 boosts

@pytest.mark.parametrize("heroes", range(1, 13))
def test_boost_cost(rules, heroes: int) -> None:  # type: ignore[no-untyped-def]
    bands = [(1, 3, 1), (4, 6, 2), (7, 9, 3), (10, 12, 4)]  # "and so on": one more per three heroes
    cost = next(c for low, high, c in bands if low <= heroes <= high)
    assert rules.resolve("hero point boost", heroes=heroes).results["cost"] == cost
    assert rules.resolve("hero point boost", heroes=heroes, double=1).results["cost"] == 2 * cost


def test_bad_boosts(cli) -> None:  # type: ignore[no-untyped-def]
    for args in (["--with", "heroes=0"], ["--with", "heroes=3", "--with", "double=2"]):
        run = cli("resolve", "questworlds", "hero point boost", *args)
        assert run.code == 1 and "E0613" in run.stderr and "Traceback" not in run.stderr


# ------------------------------------------------------------------ T-23 catch-ups, T26 advances

THRESHOLDS = (20, 40, 60)


@pytest.mark.parametrize(("old", "new"), [(19, 20), (20, 21), (21, 26), (39, 40), (40, 41), (17, 23),
                                          (35, 44), (21, 40), (55, 61), (14, 20)])
def test_catch_up_thresholds(rules, old: int, new: int) -> None:  # type: ignore[no-untyped-def]
    crossed = any(old <= t < new for t in THRESHOLDS)  # a rating past 20, 40, 60 gains a mastery
    for other in (13, new - 5, new - 4):
        results = rules.resolve("catch up", old=old, new=new, other=other).results
        assert results["triggered"] is crossed
        raised = crossed and other <= new - 5
        assert results["eligible"] is raised
        assert results["rating"] == other + (3 if raised else 0)
    # a breakout's bonus is never raised by a catch-up
    assert rules.resolve("catch up", old=old, new=new, other=13, breakout=1).results["rating"] == 13


def test_catch_up_in_the_book_notation(rules) -> None:  # type: ignore[no-untyped-def]
    results = rules.resolve("catch up", old="20M", new="1M2", other="16M").results
    assert (results["triggered"], results["rating"]) == (True, 39)


@pytest.mark.parametrize(("choice", "rating", "keyword", "breakout", "expected", "catch_up"), [
    ("big_raise", 15, 0, 0, 24, True),       # +9 to a standalone ability: 15 -> 24 (4M)
    ("big_raise", 17, 1, 0, 23, True),       # +6 to a keyword
    ("small_raise", 13, 0, 0, 19, False),
    ("small_raise", 19, 1, 0, 22, True),     # +3 to a keyword crossing 20
    ("big_raise", 2, 0, 1, 11, False),       # a breakout's bonus +9: never a catch-up
    ("new_or_breakout", 0, 0, 0, 13, False),
    ("new_or_breakout", 0, 0, 1, 1, False),  # a new breakout at +1
    ("new_ability", 0, 0, 0, 13, False),
    ("new_keyword", 0, 0, 0, 1, False),      # a standalone becomes a keyword with a +1 breakout
])
def test_the_advance_menu(rules, choice: str, rating: int, keyword: int, breakout: int, expected: int,
                          catch_up: bool) -> None:  # type: ignore[no-untyped-def]
    results = rules.resolve("improve", choice=choice, rating=rating, keyword=keyword, breakout=breakout).results
    assert (results["rating"], results["catch_up"]) == (expected, catch_up)


def test_an_advance_costs_ten_xp_for_two_different_choices(rules, hero, cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    results, entity = play(rules, "advance", hero("resources:\n  XP: 23\n"), first="big_raise", second="new_ability")
    assert results == {"first": "big_raise", "second": "new_ability", "xp": 13}
    with pytest.raises(RunebookError):
        play(rules, "advance", entity, first="new_ability", second="new_ability")
    with pytest.raises(RunebookError) as error:
        play(rules, "advance", hero("resources:\n  XP: 9\n"), first="big_raise", second="new_ability")
    assert "E0706" in str(error.value)
    path = tmp_path / "poor.yaml"
    path.write_text("name: Poor\nstats:\n  Ability: 15\nresources:\n  XP: 9\n", encoding="utf-8")
    run = cli("run", "questworlds", "advance", "--as", str(path), "--with", "first=big_raise",
              "--with", "second=huge_raise")
    assert run.code == 1 and "Traceback" not in run.stderr and "huge_raise" in run.stderr


# ------------------------------------------------------------------ T-15 resistance progression

@pytest.mark.parametrize(("policy", "gain", "base"), [
    ("no_progression", 6, 14), ("trailing", 6, 17), ("matching", 6, 20),   # T-15: +3 or +6
    ("matching", 9, 23), ("trailing", 3, 17), ("matching", 15, 23), ("trailing", 0, 14),
])
def test_resistance_progression(rules, policy: str, gain: int, base: int) -> None:  # type: ignore[no-untyped-def]
    results = rules.resolve("next season", keyword_gain=gain, options={"resistance_progression": policy}).results
    assert results["base"] == base and results["increase"] in (0, 3, 6, 9)


# ------------------------------------------------------------------ T-16 and creation

def test_detective_breakouts(rules) -> None:  # type: ignore[no-untyped-def]
    # T-16: "Detective 17 Forensics +2 Handgun +1"
    assert rules.resolve("breakout", keyword=17, bonus=2).results["rating"] == 19
    assert rules.resolve("breakout", keyword=17, bonus=1).results["rating"] == 18
    # and the Detective entry's printed ratings agree with its bonuses
    text = (REPO / "rulesets" / "questworlds" / "abilities.rules").read_text(encoding="utf-8")
    block = text[text.index("Detective [Keyword]"):text.index("Use: For most contests")]
    bonuses = [int(line.split(":*")[1]) for line in block.splitlines() if "*Bonus:*" in line]
    ratings = [int(line.split(":*")[1]) for line in block.splitlines() if "*Rating:*" in line]
    assert bonuses == [2, 1] and ratings == [17 + b for b in bonuses]


@pytest.mark.parametrize(("role", "points", "keyword", "rating"), [
    ("occupation", 0, 0, 17), ("characteristic", 4, 0, 21), ("other", 6, 0, 19),
    ("characteristic_breakout", 0, 17, 21), ("sidekick_first", 9, 0, 25), ("sidekick_other", 0, 0, 13),
])
def test_starting_ratings(rules, role: str, points: int, keyword: int, rating: int) -> None:  # type: ignore[no-untyped-def]
    assert rules.resolve("starting rating", role=role, points=points, keyword=keyword).results["rating"] == rating


@pytest.mark.parametrize(("name", "roles", "sidekick"), [
    ("sardonic_ex_mercenary", {"Ex-Mercenary": "occupation", "Sardonic": "characteristic"}, 0),
    ("haughty_priestess", {"Priestess": "occupation", "Haughty": "characteristic"}, 0),
    ("river_toll_keeper", {"Streetwise": "sidekick_first"}, 1),
])
def test_the_examples_keep_the_creation_budget(rules, name: str, roles: dict[str, str], sidekick: int) -> None:  # type: ignore[no-untyped-def]
    data = yaml.safe_load((EXAMPLES / f"{name}.yaml").read_text(encoding="utf-8"))
    spent = 0
    for stat, value in data["stats"].items():
        if stat == "Ability":
            continue
        role = roles.get(stat, "sidekick_other" if sidekick else "other")
        start = rules.resolve("starting rating", role=role).results["rating"]
        number = rules.resolve("breakout", keyword=value, bonus=0).results["rating"]
        points = number - start
        assert 0 <= points <= 10, (stat, points)
        assert rules.resolve("starting rating", role=role, points=points).results["rating"] == number
        spent += points
    assert rules.resolve("creation budget", spent=spent, sidekick=sidekick).results["left"] == 0
    ranked = sorted((rules.resolve("breakout", keyword=v, bonus=0).results["rating"]
                     for k, v in data["stats"].items() if k != "Ability"), reverse=True)
    for order, flaw in enumerate((data.get("flaws") or {}).values(), start=1):
        rating = rules.resolve("flaw rating", order=order, highest=ranked[0], second=ranked[1],
                               lowest=ranked[-1]).results["rating"]
        assert rating == rules.resolve("breakout", keyword=flaw, bonus=0).results["rating"]


def test_bad_creation_input(cli) -> None:  # type: ignore[no-untyped-def]
    for args in (["starting rating", "--with", "points=11"], ["starting rating", "--with", "role=characteristic_breakout"],
                 ["creation budget", "--with", "spent=21"], ["creation budget", "--with", "spent=16", "--with", "sidekick=1"],
                 ["flaw rating", "--with", "order=0", "--with", "highest=17", "--with", "second=17", "--with", "lowest=13"],
                 ["starting rating", "--with", "role=wizard"]):
        run = cli("resolve", "questworlds", *args)
        assert run.code == 1 and "Traceback" not in run.stderr and "E0" in run.stderr, args
