"""QuestWorlds gaps closed after the third audit: a simple contest resolved `--as` a sheet
applies the sheet's states (§1.11: hurt -3, impaired -6, injured -9) and refuses the dying and
the dead; a dying character gets one intervention only (§1.11, AMB-24); a stretch (§1.8, T-27,
AMB-34) holds in the scored and extended contests: its penalty on every roll, and a stretched
victory at most minor (L688). Expected values come from the spec's numbers and from the
independent d20 model of questworlds_helpers."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.rules.procedures import CallbackDriver, ChoicePoint
from questworlds_helpers import Stop, by_name, hero_maker, rolls

# The penalties of the states of adversity (spec §1.11 table) and the stretch's (§1.8, T-27).
PENALTY = {"Hurt State": -3, "Impaired State": -6, "Injured State": -9}
STRETCH = {"minus_six": -6, "minus_three": -3, "minus_nine": -9}


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("questworlds")


@pytest.fixture
def hero(rules, tmp_path: Path):  # type: ignore[no-untyped-def]
    return hero_maker(rules, tmp_path)


# ------------------------------------------------------------ 1. a resolved contest `--as` a sheet

@pytest.mark.parametrize("name", ["contest", "simple contest"])
@pytest.mark.parametrize("state", sorted(PENALTY))
def test_a_resolved_contest_applies_the_sheets_state(rules, hero, name: str, state: str) -> None:  # type: ignore[no-untyped-def]
    results = rules.resolve(name, as_=hero(state), resistance=14, dice=[9, 9]).results
    assert results["target"] == 15 + PENALTY[state]


def test_states_on_a_sheet_add_up_in_a_resolved_contest(rules, hero) -> None:  # type: ignore[no-untyped-def]
    # three hurts, two impairments and an injury: -3 * 3 - 6 * 2 - 9 = -30; a modifier given adds
    sheet = hero("Hurt State", "Hurt State", "Hurt State", "Impaired State", "Impaired State", "Injured State")
    assert rules.resolve("contest", as_=sheet, resistance=14, modifier=33, dice=[9, 9]).results["target"] == 15 - 30 + 33


def test_a_heroic_sheet_bumps_a_resolved_contest(rules, hero) -> None:  # type: ignore[no-untyped-def]
    # heroic: an automatic bump up (§1.11): 9 against 5 is a success, bumped to a critical
    results = by_name(rules.resolve("contest", as_=hero("Heroic State"), resistance=14, dice=[9, 5]).results)
    assert (results["result"], results["outcome"], results["degree"]) == ("critical", "victory", "minor")


def test_modified_contest_reads_the_sheet_too(rules, hero) -> None:  # type: ignore[no-untyped-def]
    results = rules.resolve("modified contest", as_=hero("Impaired State"), resistance=14, situational=3,
                            dice=[9, 9]).results
    assert (results["rating"], results["target"]) == (15 - 6 + 3, 15 - 6 + 3)


def test_the_odds_of_a_contest_as_an_injured_sheet(rules, hero) -> None:  # type: ignore[no-untyped-def]
    dist = rules.odds("contest", as_=hero("Injured State"), resistance=14).results["outcome"]
    expected: dict[str, Fraction] = {}
    for (outcome, *_), chance in rolls(15 - 9, 14).items():
        expected[outcome] = expected.get(outcome, Fraction(0)) + chance
    assert {getattr(k, "name", k): v for k, v in dist.items()} == expected


def test_the_procedures_do_not_count_the_states_twice(rules, hero) -> None:  # type: ignore[no-untyped-def]
    # Costly Automatic Victory reads the sheet itself and rolls once: 12 is a success at 15 - 3
    # against 13's success (13 the higher roll: a marginal defeat, T3 hurt); counted twice (9),
    # 12 would fail: a minor defeat.
    run = rules.run("costly automatic victory", as_=hero("Hurt State"), resistance=14, dice=[12, 13])
    assert by_name(run.results)["degree"] == "marginal"


@pytest.mark.parametrize("state", ["Dying State", "Dead State"])
@pytest.mark.parametrize("name", ["contest", "simple contest", "modified contest"])
def test_the_dying_and_the_dead_take_no_simple_contest(cli, tmp_path: Path, name: str, state: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "sheet.yaml"
    path.write_text(f"name: Fallen\nstats:\n  Ability: 15\nconditions: [{state}]\n", encoding="utf-8")
    run = cli("resolve", "questworlds", name, "--as", str(path), "--with", "resistance=14", "--dice", "9,9")
    assert run.code == 1 and "E0613" in run.stderr and "not_dying_or_dead" in run.stderr
    assert "Traceback" not in run.stderr and run.stdout == ""


# ------------------------------------------------------------ 2. one intervention for the dying

def _heal(rules, sheet: Any, dice: list[int], healing: Any = 15) -> tuple[dict[str, Any], list[str]]:  # type: ignore[no-untyped-def]
    run = rules.run("heal", as_=sheet, healing=healing, dice=dice)
    return by_name(run.results), list(run.state["actor"]["conditions"])


def test_a_failed_intervention_dooms_and_a_second_is_refused(rules, hero) -> None:  # type: ignore[no-untyped-def]
    # 15 against very high (14M, 34): 5 vs 18, success against a success with a mastery: a defeat
    results, held = _heal(rules, hero("Dying State"), [5, 18])
    assert results["doomed"] and held == ["Dying State", "Doomed"]
    doomed = hero(*held)
    with pytest.raises(RunebookError) as error:
        rules.run("heal", as_=doomed, healing="1M2", dice=[1, 20])
    text = str(error.value)
    assert "E0613" in text and "rescue_not_yet_tried(actor) = false" in text
    # the doomed may still take their final action (9 vs 5: the wherewithal won by the higher roll)
    assert rules.run("final action", as_=doomed, wherewithal=15, resistance=14, dice=[9, 5, 5, 9]).results["acted"]


def test_a_saved_character_is_not_doomed(rules, hero) -> None:  # type: ignore[no-untyped-def]
    # 1M2 (a net mastery over 14M) with 1 against 20: a complete victory, impaired (§1.11)
    results, held = _heal(rules, hero("Dying State"), [1, 20], healing="1M2")
    assert results["after"] == "impaired" and held == ["Impaired State"]


def test_the_second_intervention_from_the_command_line_changes_nothing(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "doomed.yaml"
    path.write_text("name: Doomed\nstats:\n  Ability: 15\nconditions: [Dying State, Doomed]\n", encoding="utf-8")
    before = path.read_text(encoding="utf-8")
    run = cli("run", "questworlds", "heal", "--as", str(path), "--with", "healing=15", "--dice", "1,20")
    assert run.code == 1 and "E0613" in run.stderr and "Traceback" not in run.stderr
    assert path.read_text(encoding="utf-8") == before


def test_other_states_are_healed_as_often_as_wanted(rules, hero) -> None:  # type: ignore[no-untyped-def]
    # only the dying get one chance: a failed healing of an injury (15 against high, 20: 16 fails
    # against 5's success, a minor defeat, no worse) may be tried again
    _, held = _heal(rules, hero("Injured State"), [16, 5])
    assert held == ["Injured State"]
    _, held = _heal(rules, hero(*held), [16, 5])
    assert held == ["Injured State"]


# ------------------------------------------------------------ 3. stretches in long contests

def _first_round(rules, name: str, dice: list[int], answers: dict[str, str], watch: str,  # type: ignore[no-untyped-def]
                 keys: tuple[str, ...], options: dict[str, str] | None = None, rounds: int = 2,
                 **inputs: Any) -> list[tuple[Any, ...]]:
    """The values `keys` at the first `rounds` `watch` choices (before rounds 1 and 2)."""
    seen: list[tuple[Any, ...]] = []

    def answer(point: ChoicePoint) -> str:
        if point.name == watch:
            seen.append(tuple(point.state[k] for k in keys))
            if len(seen) == rounds:
                raise Stop
        return answers[point.name]

    with pytest.raises(Stop):
        rules.run(name, dice=dice, driver=CallbackDriver(answer), options=options or {},
                  **{"ability": 15, "resistance": 14, **inputs})
    return seen


SCORED = {"tactic": "normal", "parting_shot": "decline"}


@pytest.mark.parametrize("stretch", sorted(STRETCH))
@pytest.mark.parametrize("margin", [0, 1])
def test_a_stretch_penalises_every_scored_round(rules, stretch: str, margin: int) -> None:  # type: ignore[no-untyped-def]
    target = 15 + STRETCH[stretch]
    face = target + margin
    # the die at the stretched target succeeds (minor victory over 18's failure: 2 points); one
    # above it fails (failure against failure, 18 the higher roll: a marginal defeat, 1 point)
    scores = _first_round(rules, "scored contest", [face, 18, 9, 9], SCORED, "tactic",
                          ("points", "opposition_points"), {"stretch": stretch}, stretched=1)
    assert scores[1] == ((2, 0) if margin == 0 else (0, 1))
    plain = _first_round(rules, "scored contest", [face, 18, 9, 9], SCORED, "tactic",
                         ("points", "opposition_points"), {"stretch": stretch})
    assert plain[1] == (2, 0)  # unstretched, 15 succeeds either way


def test_a_stretch_as_a_bump_down_in_a_scored_contest(rules) -> None:  # type: ignore[no-untyped-def]
    # 5 vs 18 at 15: a success bumped down to a failure, against a failure, 18 higher: 1 against
    scores = _first_round(rules, "scored contest", [5, 18, 9, 9], SCORED, "tactic",
                          ("points", "opposition_points"), {"stretch": "bump_down"}, stretched=1)
    assert scores[1] == (0, 1)


@pytest.mark.parametrize(("phase", "degree", "harm"), [
    ("rising", "major", "injured"),   # T11: difference 5 is a major victory, the loser injured
    ("climax", "major", "injured"),   # T12/T13: 5 points + 1 against the loser: injured, major
])
def test_a_stretched_scored_victory_is_at_most_minor(rules, phase: str, degree: str, harm: str) -> None:  # type: ignore[no-untyped-def]
    # 1 vs 20: critical against fumble, a complete round: 5 points at once; no parting shot
    def results(**inputs: Any) -> dict[str, Any]:
        run = rules.run("scored contest", dice=[1, 20], driver=CallbackDriver(lambda p: SCORED[p.name]),
                        ability=15, resistance=14, phase=phase, **inputs)
        return by_name(run.results)

    plain, stretched = results(), results(stretched=1)
    assert (plain["winner"], plain["degree"], plain["opposition_consequence"]) == ("player", degree, harm)
    # a minor victory's row: T11 difference 3-4 (impaired), T12 4-5 points against (impaired)
    assert (stretched["winner"], stretched["degree"], stretched["opposition_consequence"]) == (
        "player", "minor", "impaired")


def test_a_stretched_scored_defeat_is_not_capped(rules) -> None:  # type: ignore[no-untyped-def]
    run = rules.run("scored contest", dice=[20, 1], driver=CallbackDriver(lambda p: SCORED[p.name]),
                    ability=15, resistance=14, stretched=1)
    assert by_name(run.results)["degree"] == "major" and by_name(run.results)["consequence"] == "injured"


@pytest.mark.parametrize("stretch", sorted(STRETCH))
def test_a_stretch_lowers_the_starting_ap(rules, stretch: str) -> None:  # type: ignore[no-untyped-def]
    # starting AP: the rating plus the modifiers known at the start (T-25), the stretch's among them
    held = _first_round(rules, "extended contest", [], {}, "action", ("ap",), {"stretch": stretch}, rounds=1,
                        stretched=1)
    assert held[0] == (15 + STRETCH[stretch],)


EXTENDED = {"action": "act", "bid": "9", "parting_shot": "decline"}


def test_a_stretched_extended_victory_is_at_most_minor(rules) -> None:  # type: ignore[no-untyped-def]
    # 15 stretched: 9 AP against 5. A bid of 9 won by critical against fumble (three steps):
    # the resistance loses 27, 5 - 27 = -22: T16's major row (-21 to -30)
    def results(**inputs: Any) -> dict[str, Any]:
        run = rules.run("extended contest", dice=[1, 20], driver=CallbackDriver(lambda p: EXTENDED[p.name]),
                        ability=15, resistance=5, **inputs)
        return by_name(run.results)

    plain, stretched = results(), results(stretched=1)
    assert plain["opposition_ap"] == stretched["opposition_ap"] == 5 - 3 * 9
    assert (plain["degree"], plain["benefit"], plain["opposition_consequence"]) == ("major", "invigorated", "injured")
    assert (stretched["degree"], stretched["benefit"], stretched["opposition_consequence"]) == (
        "minor", "pumped", "impaired")


@pytest.mark.parametrize("name", ["scored contest", "extended contest"])
def test_a_stretch_is_zero_or_one(cli, name: str) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "questworlds", name, "--with", "ability=15", "--with", "resistance=14",
              "--with", "stretched=2", "--seed", "1")
    assert run.code == 1 and "E0613" in run.stderr and "Traceback" not in run.stderr
