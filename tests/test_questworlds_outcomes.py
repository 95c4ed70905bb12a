"""QuestWorlds outcomes that last (rulesets/questworlds/outcomes.rules): consequences of defeat
and benefits of victory as conditions, their stacking, benefits meeting consequences (T-19),
recovery, waning and healing (T3, T4, T5); the special contests of special.rules (automatic,
costly and Pyrrhic victories, mobs, ganging up, mass effort, escalation). Exact odds are
checked against an enumeration of the d20 contest written here."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import attrs
import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.rules.entities import Held
from questworlds_helpers import hero_maker

REPO = Path(__file__).resolve().parent.parent
DEGREES = ["marginal", "minor", "major", "complete"]
# The tables as the SRD prints them (T3, T4, T5 at base 14, T6).
DEFEAT = {"marginal": "hurt", "minor": "impaired", "major": "injured", "complete": "dying"}
VICTORY = {"marginal": "fresh", "minor": "pumped", "major": "invigorated", "complete": "heroic"}
VALUE = {"Hurt State": -3, "Impaired State": -6, "Injured State": -9,
         "Fresh State": 3, "Pumped State": 6, "Invigorated State": 9}
HEALING = {"hurt": 8, "impaired": 14, "injured": 20, "dying": 34}
PYRRHIC = {("victory", "marginal"): "dead", ("victory", "minor"): "dying",
           ("victory", "major"): "injured", ("victory", "complete"): "impaired"}


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("questworlds")


@pytest.fixture
def hero(rules, tmp_path: Path):  # type: ignore[no-untyped-def]
    return hero_maker(rules, tmp_path)


def names(results: dict[str, Any]) -> dict[str, Any]:
    return {k: getattr(v, "name", v) for k, v in results.items()}


def play(rules, name: str, entity: Any, **inputs: Any) -> tuple[dict[str, Any], Any]:  # type: ignore[no-untyped-def]
    """Run a procedure on an entity; its results and the entity as the run left it."""
    run = rules.run(name, as_=entity, **inputs)
    after = run.state["actor"]
    return names(run.results), attrs.evolve(entity, resources=dict(after["resources"]),
                                            conditions=[Held(c) for c in after["conditions"]])


def conditions(entity: Any) -> list[str]:
    return [c.name for c in entity.conditions]


# ------------------------------------------------------------------ an independent contest

LEVELS = ["fumble", "failure", "success", "critical"]


def _level(face: int, target: int) -> int:
    if target <= 0:
        return 1
    if face == 1:
        return 3
    if face == 20:
        return 0
    return 2 if face <= target else 1


def contest(ability: int, resistance: int, bumps: int, mine: int, theirs: int) -> tuple[str, int]:
    """(outcome, |result difference|) of one roll: masteries are whole twenties above 20 and
    their difference bumps the favoured side, spilling onto the other side past critical;
    other bumps come after; the higher roll breaks equal results, equal rolls tie, two fumbles
    tie."""
    m_a, m_r = max(0, (ability - 1) // 20), max(0, (resistance - 1) // 20)
    a, r = _level(mine, ability - 20 * m_a), _level(theirs, resistance - 20 * m_r)
    net = m_a - m_r
    if net > 0:
        a, spill = min(3, a + net), max(0, a + net - 3)
        r = max(0, r - spill)
    elif net < 0:
        r, spill = min(3, r - net), max(0, r - net - 3)
        a = max(0, a - spill)
    a = max(0, min(3, a + bumps))
    if a != r:
        return ("victory" if a > r else "defeat"), abs(a - r)
    if mine == theirs or a == 0:
        return "tie", 0
    return ("victory" if mine > theirs else "defeat"), 0


def contest_odds(ability: int, resistance: int, bumps: int = 0) -> dict[tuple[str, int], Fraction]:
    found: dict[tuple[str, int], Fraction] = {}
    for mine, theirs in itertools.product(range(1, 21), repeat=2):
        key = contest(ability, resistance, bumps, mine, theirs)
        found[key] = found.get(key, Fraction(0)) + Fraction(1, 400)
    return found


# ------------------------------------------------------------------ consequences and benefits

@pytest.mark.parametrize("degree", DEGREES)
def test_a_defeat_leaves_the_consequences_table_state(rules, hero, degree: str) -> None:  # type: ignore[no-untyped-def]
    results, after = play(rules, "aftermath", hero(), outcome="defeat", degree=degree)
    assert results["state"] == DEFEAT[degree]
    assert conditions(after) == [f"{DEFEAT[degree].capitalize()} State"]
    assert results["modifier"] == sum(VALUE.get(c, 0) for c in conditions(after))


@pytest.mark.parametrize("degree", DEGREES)
def test_a_victory_leaves_the_benefits_table_state(rules, hero, degree: str) -> None:  # type: ignore[no-untyped-def]
    results, after = play(rules, "aftermath", hero(), outcome="victory", degree=degree)
    assert results["state"] == VICTORY[degree]
    assert conditions(after) == [f"{VICTORY[degree].capitalize()} State"]
    assert results["bumps"] == (1 if degree == "complete" else 0)  # heroic: a bump, not a number


def test_a_tie_leaves_nothing(rules, hero) -> None:  # type: ignore[no-untyped-def]
    results, after = play(rules, "aftermath", hero("Hurt State"), outcome="tie")
    assert conditions(after) == ["Hurt State"] and results["state"] is None


def test_consequences_stack(rules, hero) -> None:  # type: ignore[no-untyped-def]
    entity = hero()
    for degree in ["marginal", "marginal", "minor", "minor", "major", "major"]:
        results, entity = play(rules, "aftermath", entity, outcome="defeat", degree=degree)
    # hurts add up, impairments add up and combine with hurts; an injury is held once
    assert sorted(conditions(entity)) == ["Hurt State", "Hurt State", "Impaired State", "Impaired State",
                                          "Injured State"]
    assert results["modifier"] == -3 - 3 - 6 - 6 - 9


def test_fresh_states_add_up_until_a_defeat(rules, hero) -> None:  # type: ignore[no-untyped-def]
    entity = hero()
    for _ in range(3):
        results, entity = play(rules, "aftermath", entity, outcome="victory", degree="marginal")
    assert results["modifier"] == 9 and conditions(entity) == ["Fresh State"] * 3
    results, entity = play(rules, "aftermath", entity, outcome="defeat", degree="minor")
    assert conditions(entity) == ["Impaired State"] and results["modifier"] == -6


@pytest.mark.parametrize(("used", "resistance", "earned"), [(19, 14, True), (20, 14, False), ("1M", 14, False),
                                                            ("1M", "1M", True), (14, 20, True)])
def test_no_benefit_against_a_clearly_inferior_opponent(rules, hero, used: Any, resistance: Any,
                                                        earned: bool) -> None:  # type: ignore[no-untyped-def]
    results, after = play(rules, "aftermath", hero(), outcome="victory", degree="minor",
                          ability_used=used, resistance_used=resistance)
    assert results["eligible"] is earned
    assert conditions(after) == (["Pumped State"] if earned else [])


def test_long_contest_states_are_taken_as_given(rules, hero) -> None:  # type: ignore[no-untyped-def]
    # a rising-action winner hurt at a difference of 1 (T11) takes the hurt and a fresh benefit
    _, after = play(rules, "aftermath", hero(), outcome="victory", degree="marginal", harm="hurt",
                    options={"benefits_meet_consequences": "combine"})
    assert sorted(conditions(after)) == ["Fresh State", "Hurt State"]
    _, after = play(rules, "aftermath", hero(), outcome="defeat", harm="dead")
    assert conditions(after) == ["Dead State"]
    _, after = play(rules, "aftermath", hero(), outcome="defeat", harm="dazed")
    assert conditions(after) == []  # dazed has no mechanical effect (AMB-9)
    # an extended contest's winner: the benefit of its outcome table (T16), whatever the degree
    results, after = play(rules, "aftermath", hero(), outcome="victory", fortune="pumped")
    assert results["state"] == "pumped" and conditions(after) == ["Pumped State"]
    with pytest.raises(RunebookError):
        rules.run("aftermath", as_=hero(), outcome="victory", fortune="hurt")


# T-19: Invigorated then Hurt.
@pytest.mark.parametrize(("policy", "expected", "modifier"), [
    ("difference", ["Pumped State"], 6),        # the default: +9 - 3 = +6, pumped
    ("cancel", [], 0),                          # they cancel out
    ("combine", ["Invigorated State", "Hurt State"], 6),
])
def test_invigorated_then_hurt(rules, hero, policy: str, expected: list[str], modifier: int) -> None:  # type: ignore[no-untyped-def]
    options = {"benefits_meet_consequences": policy}
    _, entity = play(rules, "aftermath", hero(), outcome="victory", degree="major", options=options)
    assert conditions(entity) == ["Invigorated State"]
    results, entity = play(rules, "aftermath", entity, outcome="defeat", degree="marginal", options=options)
    assert conditions(entity) == expected
    assert results["modifier"] == modifier


@pytest.mark.parametrize("held", [
    ["Fresh State", "Injured State"], ["Invigorated State", "Pumped State", "Hurt State"],
    ["Pumped State", "Hurt State", "Hurt State"], ["Fresh State", "Fresh State", "Impaired State", "Hurt State"],
])
def test_the_difference_keeps_the_net_value(rules, hero, held: list[str]) -> None:  # type: ignore[no-untyped-def]
    # a tie applies nothing, then the states held settle into their net value
    results, entity = play(rules, "aftermath", hero(*held), outcome="tie")
    net = sum(VALUE[c] for c in held)
    assert results["modifier"] == net
    assert all(VALUE[c] * net > 0 for c in conditions(entity))  # only one side is left
    assert len(conditions(entity)) == len(_greedy(net))


def _greedy(net: int) -> list[int]:
    """The fewest states of ±3, ±6, ±9 worth `net` (nine once)."""
    parts, sign, left = [], (1 if net > 0 else -1), abs(net)
    if left >= 9:
        parts.append(9)
        left -= 9
    while left:
        parts.append(6 if left >= 6 else 3)
        left -= parts[-1]
    return [sign * p for p in parts]


# ------------------------------------------------------------------ recovery and waning

@pytest.mark.parametrize(("period", "left"), [
    ("session", ["Impaired State", "Injured State", "Dying State", "Pumped State", "Invigorated State",
                 "Heroic State"]),
    ("week", ["Injured State", "Dying State", "Invigorated State", "Heroic State"]),
    ("month", ["Dying State", "Heroic State"]),
    ("season", ["Dying State"]),
])
def test_recovery_by_period(rules, hero, period: str, left: list[str]) -> None:  # type: ignore[no-untyped-def]
    held = ["Hurt State", "Hurt State", "Impaired State", "Injured State", "Dying State", "Fresh State",
            "Pumped State", "Invigorated State", "Heroic State"]
    _, entity = play(rules, "recover", hero(*held), period=period,
                     options={"benefits_meet_consequences": "combine"})
    assert conditions(entity) == left


def test_waning_ends_every_benefit(rules, hero) -> None:  # type: ignore[no-untyped-def]
    held = ["Impaired State", "Fresh State", "Fresh State", "Pumped State", "Heroic State"]
    results, entity = play(rules, "recover", hero(*held), waning=1)
    assert conditions(entity) == ["Impaired State"] and results["modifier"] == -6


# ------------------------------------------------------------------ healing (T5)

@pytest.mark.parametrize("state", ["hurt", "impaired", "injured", "dying"])
def test_healing_resistance_by_state(rules, hero, state: str) -> None:  # type: ignore[no-untyped-def]
    results, _ = play(rules, "heal", hero(f"{state.capitalize()} State"), healing=15, dice=[9, 9])
    assert results["resistance"] == HEALING[state] and results["before"] == state


@pytest.mark.parametrize(("dice", "after"), [
    ([3, 10], "impaired"),   # success and success, the resistance's higher roll: a marginal defeat
    ([10, 3], "hurt"),       # the healer's higher roll: a marginal victory, one level off
])
def test_healing_an_impairment(rules, hero, dice: list[int], after: str) -> None:  # type: ignore[no-untyped-def]
    results, entity = play(rules, "heal", hero("Impaired State"), healing=15, dice=dice)
    assert results["after"] == after
    assert conditions(entity) == [f"{after.capitalize()} State"]


@pytest.mark.parametrize(("dice", "after"), [
    ([1, 19], "unharmed"),    # critical against success: minor victory, two levels off injured
    ([5, 1], "injured"),      # success against critical: a minor defeat changes nothing
    ([12, 5], "impaired"),    # success and success, the higher roll: marginal, one level off
])
def test_healing_removes_one_level_per_level_of_victory(rules, hero, dice: list[int], after: str) -> None:  # type: ignore[no-untyped-def]
    # 15 against an injured patient's high resistance, 20
    results, entity = play(rules, "heal", hero("Injured State"), healing=15, dice=dice)
    levels = ["unharmed", "dazed", "hurt", "impaired", "injured"]
    outcome, gap = contest(15, 20, 0, *dice)
    assert results["outcome"] == outcome
    removed = gap + 1 if outcome == "victory" else 0
    expected = levels[max(0, 4 - removed)] if 4 - removed >= 2 else "unharmed"
    assert results["after"] == expected
    assert conditions(entity) == ([] if expected == "unharmed" else [f"{expected.capitalize()} State"])


def test_a_failed_healing_worsens_the_state(rules, hero) -> None:  # type: ignore[no-untyped-def]
    # 15 against 8 (hurt): 20 against 1 is a fumble against a critical, a complete defeat: +2
    results, entity = play(rules, "heal", hero("Hurt State"), healing=15, dice=[20, 1])
    assert (results["outcome"], results["degree"], results["after"]) == ("defeat", "complete", "injured")
    # a major defeat: +1 (failure 16 against critical 1)
    results, entity = play(rules, "heal", hero("Hurt State"), healing=15, dice=[16, 1])
    assert (results["degree"], results["after"]) == ("major", "impaired")
    # worsening stops at dying (AMB-24), or goes on to dead with option healing_cap
    results, _ = play(rules, "heal", hero("Injured State"), healing=15, dice=[20, 1])
    assert results["after"] == "dying"
    results, entity = play(rules, "heal", hero("Injured State"), healing=15, dice=[20, 1],
                           options={"healing_cap": "on_to_dead"})
    assert results["after"] == "dead" and conditions(entity) == ["Dead State"]


def test_the_dying_are_saved_to_injured_or_impaired(rules, hero) -> None:  # type: ignore[no-untyped-def]
    # 1M2 (41) against very high 14M (34): a net mastery; 5 against 18 is success vs failure
    results, entity = play(rules, "heal", hero("Dying State"), healing="1M2", dice=[5, 18])
    assert results["outcome"] == "victory" and results["degree"] != "complete"
    assert results["after"] == "injured" and conditions(entity) == ["Injured State"]
    results, entity = play(rules, "heal", hero("Dying State"), healing="1M2", dice=[1, 20])
    assert results["degree"] == "complete" and results["after"] == "impaired" and not results["doomed"]
    results, entity = play(rules, "heal", hero("Dying State"), healing=15, dice=[5, 18])
    # the one intervention failed: still dying, and marked so that no second one is tried
    assert results["outcome"] == "defeat" and results["doomed"] and conditions(entity) == ["Dying State", "Doomed"]


def test_healing_only_treats_one_instance(rules, hero) -> None:  # type: ignore[no-untyped-def]
    results, entity = play(rules, "heal", hero("Hurt State", "Hurt State"), healing=15, dice=[10, 3])
    assert results["after"] == "unharmed" and conditions(entity) == ["Hurt State"]


@pytest.mark.parametrize("state", ["hurt", "injured"])
def test_healing_odds_match_an_enumeration(rules, hero, state: str) -> None:  # type: ignore[no-untyped-def]
    dist = rules.odds("heal", as_=hero(f"{state.capitalize()} State"), healing=15).results["after"]
    got = {getattr(k, "name", k): p for k, p in dist.items()}
    ladder = ["unharmed", "dazed", "hurt", "impaired", "injured", "dying"]
    expected: dict[str, Fraction] = {}
    for (outcome, gap), p in contest_odds(15, HEALING[state]).items():
        rank = ladder.index(state)
        if outcome == "victory":
            rank -= gap + 1
        elif outcome == "defeat" and gap >= 2:
            rank += gap - 1  # major +1, complete +2
        name = "unharmed" if rank <= 1 else ladder[min(rank, 5)]
        expected[name] = expected.get(name, Fraction(0)) + p
    assert got == expected


def test_healing_needs_a_patient_in_need(rules, hero, cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as error:
        rules.run("heal", as_=hero(), healing=15, dice=[5, 5])
    assert "E0613" in str(error.value)
    with pytest.raises(RunebookError):
        rules.run("heal", as_=hero("Dead State"), healing=15, dice=[5, 5])
    path = tmp_path / "whole.yaml"
    path.write_text("name: Whole\nstats:\n  Ability: 15\n", encoding="utf-8")
    run = cli("run", "questworlds", "heal", "--as", str(path), "--with", "healing=15", "--dice", "5,5")
    assert run.code == 1 and "E0613" in run.stderr and "Traceback" not in run.stderr


# ------------------------------------------------------------------ special contests

@pytest.mark.parametrize(("dice", "outcome", "degree"), [
    ([3, 10], "victory", "minor"),     # success and success, bumped to critical: minor
    ([1, 20], "victory", "complete"),
    ([1, 5], "victory", "minor"),      # critical against success: already critical
    ([16, 5], "victory", "marginal"),  # failure bumped to success, the higher roll
    ([16, 1], "defeat", "minor"),
    ([20, 1], "defeat", "major"),
])
def test_pyrrhic_victory(rules, hero, dice: list[int], outcome: str, degree: str) -> None:  # type: ignore[no-untyped-def]
    results, entity = play(rules, "pyrrhic victory", hero(), ability=15, resistance=14, dice=dice)
    assert (results["outcome"], results["degree"]) == (outcome, degree) == contest(15, 14, 1, *dice)[:1] + (
        DEGREES[contest(15, 14, 1, *dice)[1]],)
    state = PYRRHIC.get((outcome, degree), "dead")
    assert results["state"] == state and conditions(entity) == [f"{state.capitalize()} State"]


def test_pyrrhic_odds_match_an_enumeration(rules, hero) -> None:  # type: ignore[no-untyped-def]
    dist = rules.odds("pyrrhic victory", as_=hero(), ability=15, resistance=14).results["state"]
    expected: dict[str, Fraction] = {}
    for (outcome, gap), p in contest_odds(15, 14, bumps=1).items():
        state = PYRRHIC.get((outcome, DEGREES[gap]), "dead")
        expected[state] = expected.get(state, Fraction(0)) + p
    assert {k.name: p for k, p in dist.items()} == expected


@pytest.mark.parametrize("dice", [[3, 10], [10, 3], [16, 1], [20, 1], [5, 5]])
def test_costly_automatic_victory(rules, hero, dice: list[int]) -> None:  # type: ignore[no-untyped-def]
    results, entity = play(rules, "costly automatic victory", hero(), ability=15, resistance=14, dice=dice)
    outcome, gap = contest(15, 14, 0, *dice)
    assert results["outcome"] == "victory" and results["contest_outcome"] == outcome
    cost = DEFEAT[DEGREES[gap]] if outcome == "defeat" else "unharmed"
    assert results["state"] == cost
    assert conditions(entity) == ([] if cost == "unharmed" else [f"{cost.capitalize()} State"])


def test_automatic_victories_roll_nothing(rules) -> None:  # type: ignore[no-untyped-def]
    for arduous in (0, 1):
        result = rules.resolve("automatic victory", arduous=arduous)
        assert names(result.results) == {"outcome": "victory", "arduous": arduous == 1}
        assert list(result.trace.dice()) == []


@pytest.mark.parametrize(("foes", "heroes", "outnumbered", "social", "share", "engaging", "resistance"), [
    (10, 2, 2, 0, 5, 5, 20), (30, 3, 3, 0, 10, 6, 23), (7, 2, 1, 1, 4, 2, 17), (1, 1, 0, 0, 1, 1, 14),
])
def test_mob(rules, foes: int, heroes: int, outnumbered: int, social: int, share: int, engaging: int,
             resistance: int) -> None:  # type: ignore[no-untyped-def]
    results = rules.resolve("mob", resistance=14, foes=foes, heroes=heroes, outnumbered=outnumbered,
                            social=social).results
    assert (results["share"], results["engaging"], results["resistance"]) == (share, engaging, resistance)


def test_ganging_up_and_bad_multitudes(rules) -> None:  # type: ignore[no-untyped-def]
    results = rules.resolve("ganging up", resistance="14M", heroes=8, outnumbering=3).results
    assert (results["engaging"], results["resistance"]) == (6, 34 - 9)
    assert rules.resolve("ganging up", resistance=14, heroes=3, social=1).results["engaging"] == 2
    for name, inputs in [("mob", {"resistance": 14, "outnumbered": 4}), ("mob", {"resistance": 14, "heroes": 0}),
                         ("ganging up", {"resistance": 14, "outnumbering": -1})]:
        with pytest.raises(RunebookError):
            rules.resolve(name, **inputs)


def test_mass_effort(rules) -> None:  # type: ignore[no-untyped-def]
    # determining: the leadership ability itself
    results = names(rules.run("mass effort", ability=15, resistance=14, dice=[10, 3]).results)
    assert (results["outcome"], results["degree"], results["augment"]) == ("victory", "marginal", 0)
    # contributing: the force's 12, augmented by the leadership's rolled augment (10 vs 3:
    # a marginal victory, +3), then 12 + 3 = 15 against 14
    results = names(rules.run("mass effort", role="contributing", ability=15, force=12, resistance=14,
                              dice=[10, 3, 15, 9]).results)
    assert (results["augment"], results["outcome"]) == (3, "victory")
    # a quick augment: a fifth of 15
    results = names(rules.run("mass effort", role="contributing", ability=15, force=12, resistance=14,
                              dice=[15, 9], options={"augment_mode": "quick"}).results)
    assert results["augment"] == 3
    with pytest.raises(RunebookError):
        rules.run("mass effort", role="contributing", ability=15, resistance=14, dice=[5, 5])


def test_escalating_into_a_scored_contest(rules) -> None:  # type: ignore[no-untyped-def]
    # T-14: a marginal victory opens a scored contest with 1 point to the winner
    results = names(rules.resolve("escalate", ability=15, resistance=14, dice=[10, 3]).results)
    assert (results["degree"], results["points"], results["opposition_points"]) == ("marginal", 1, 0)
    results = names(rules.resolve("escalate", ability=15, resistance=14, dice=[20, 1]).results)
    assert (results["points"], results["opposition_points"]) == (0, 5)


@pytest.mark.parametrize(("dice", "harm", "opposition_harm"), [
    ([10, 3], "unharmed", "hurt"), ([3, 20], "unharmed", "injured"), ([20, 1], "dying", "unharmed"),
    ([5, 5], "unharmed", "unharmed"),
])
def test_escalating_into_a_chained_contest(rules, dice: list[int], harm: str, opposition_harm: str) -> None:  # type: ignore[no-untyped-def]
    results = names(rules.resolve("escalate", ability=15, resistance=14, into="chained", dice=dice).results)
    assert (results["harm"], results["opposition_harm"]) == (harm, opposition_harm)


def test_escalating_option_scored_only(rules, cli) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError):
        rules.resolve("escalate", ability=15, resistance=14, into="chained", dice=[10, 3],
                      options={"escalating": "scored_only"})
    run = cli("resolve", "questworlds", "escalate", "--with", "ability=15", "--with", "resistance=14",
              "--with", "into=chained", "--option", "escalating=scored_only", "--dice", "10,3")
    assert run.code == 1 and "E0613" in run.stderr and "Traceback" not in run.stderr


def test_a_run_with_states_snapshot(cli, tmp_path: Path, snapshot) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "patient.yaml"
    path.write_text("name: Patient\nstats:\n  Ability: 15\nconditions: [Injured State]\n", encoding="utf-8")
    run = cli("run", "questworlds", "heal", "--as", str(path), "--with", "healing=15", "--dice", "12,5", "--json")
    assert run.code == 0
    shown = json.loads(run.stdout)
    shown.pop("trace")
    assert shown["results"]["after"] == "impaired"
    assert shown["state"]["actor"]["conditions"] == ["Impaired State"]
    assert shown == snapshot


# ------------------------------------------------------------------ resistance classes (T1)

@pytest.mark.parametrize(("cls", "base", "rule", "value"), [
    ("nearly_impossible", 14, "floor6", 54), ("very_high", 14, "floor6", 34), ("high", 14, "floor6", 20),
    ("moderate", 14, "floor6", 14), ("low", 14, "floor6", 8), ("very_low", 14, "floor6", 6),
    ("very_low", 14, "literal_min", -6), ("very_low", 14, "base_minus_m", -6), ("very_low", 14, "fixed6", 6),
    ("very_low", 30, "floor6", 10), ("very_low", 30, "literal_min", 6), ("very_high", 17, "floor6", 37),
])
def test_resistance_classes(rules, cls: str, base: int, rule: str, value: int) -> None:  # type: ignore[no-untyped-def]
    results = rules.resolve("resistance", **{"class": cls}, base=base, options={"very_low_rule": rule}).results
    assert results["resistance"] == value
    assert (results["target"], results["masteries"]) == ((value, 0) if value <= 20 else
                                                         (value - 20 * ((value - 1) // 20), (value - 1) // 20))


# ------------------------------------------------------------------ community resources (T23, T24)

DEPLETION = {("victory", "complete"): 0, ("victory", "major"): -3, ("victory", "minor"): -3,
             ("victory", "marginal"): -3, ("defeat", "marginal"): -6, ("defeat", "minor"): -6,
             ("defeat", "major"): -6, ("defeat", "complete"): -9}
FLUCTUATION = {("victory", "complete"): 9, ("victory", "major"): 6, ("victory", "minor"): 3,
               ("victory", "marginal"): 0, ("defeat", "marginal"): 0, ("defeat", "minor"): -3,
               ("defeat", "major"): -6, ("defeat", "complete"): -9}


@pytest.mark.parametrize(("outcome", "degree"), list(DEPLETION))
def test_resource_depletion(rules, outcome: str, degree: str) -> None:  # type: ignore[no-untyped-def]
    assert rules.resolve("resource depletion", outcome=outcome, degree=degree).results["penalty"] == \
        DEPLETION[(outcome, degree)]


def test_a_tie_depletes_nothing(rules) -> None:  # type: ignore[no-untyped-def]
    assert rules.resolve("resource depletion", outcome="tie").results["penalty"] == 0


def test_background_event_odds(rules) -> None:  # type: ignore[no-untyped-def]
    ratings = {"resource_1": "12W", "resource_2": "9W", "resource_3": 18, "resource_4": 18, "resource_5": 12}
    result = rules.resolve("background event", resource="9W", dice=[5, 5], **ratings).results
    assert result["average"] == (32 + 29 + 18 + 18 + 12) // 5  # 21, rounded down
    nearest = rules.resolve("background event", resource="9W", dice=[5, 5], options={"combined_rounding": "nearest"},
                            **ratings).results
    assert nearest["average"] == 22
    dist = rules.odds("background event", resource="9W", **ratings).results["modifier"]
    expected: dict[int, Fraction] = {}
    for (outcome, gap), p in contest_odds(29, 21).items():
        value = 0 if outcome == "tie" else FLUCTUATION[(outcome, DEGREES[gap])]
        expected[value] = expected.get(value, Fraction(0)) + p
    assert dict(dist.items()) == expected


# ------------------------------------------------------------------ dying: the final action

@pytest.mark.parametrize(("dice", "waive", "acted", "bump_down", "outcome"), [
    ([5, 9], 0, False, False, None),                   # 15 - 3 (hurt) = 12: success, the worse roll: no action
    ([9, 5, 3, 10], 0, True, True, "defeat"),          # wherewithal won; the 3, a success, is bumped down to a failure
    ([1, 20, 3, 10], 1, True, False, "defeat"),        # complete victory, waived: success vs success, worse roll
    ([1, 20, 10, 3], 1, True, False, "victory"),
    ([9, 5, 10, 3], 1, True, True, "defeat"),          # a marginal victory cannot waive the bump down
])
def test_final_action(rules, hero, dice: list[int], waive: int, acted: bool, bump_down: bool,
                      outcome: str | None) -> None:  # type: ignore[no-untyped-def]
    results, entity = play(rules, "final action", hero("Dying State", "Hurt State"), wherewithal=15,
                           resistance=14, waive=waive, dice=dice)
    assert (results["acted"], results["bump_down"], results["outcome"]) == (acted, bump_down, outcome)
    if acted:  # the action is rolled at 15 - 3 with a bump down unless waived (independent check)
        expected = contest(12, 14, -1 if bump_down else 0, *dice[2:])
        assert results["outcome"] == expected[0]
    assert conditions(entity) == ["Dying State", "Hurt State"]


def test_only_the_dying_take_a_final_action_and_the_dying_take_no_other(rules, hero) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as error:
        rules.run("final action", as_=hero(), wherewithal=15, resistance=14, dice=[9, 5, 9, 9])
    assert "E0613" in str(error.value)
    for state in ("Dying State", "Dead State"):
        with pytest.raises(RunebookError):
            rules.run("hero contest", as_=hero(state), resistance=14, dice=[9, 5])


@pytest.mark.parametrize("args", [
    ["run", "questworlds", "aftermath", "--with", "outcome=defeat", "--with", "degree=huge"],
    ["run", "questworlds", "aftermath", "--with", "outcome=defeat", "--with", "degree=3"],
    ["run", "questworlds", "aftermath", "--with", "outcome=win"],
    ["run", "questworlds", "recover", "--with", "period=year"],
    ["run", "questworlds", "aftermath", "--option", "benefits_meet_consequences=halve"],
    ["resolve", "questworlds", "resource depletion", "--with", "outcome=defeat", "--with", "degree=hurt"],
    ["resolve", "questworlds", "resistance", "--with", "class=impossible"],
])
def test_bad_input_is_a_diagnostic_and_changes_nothing(cli, tmp_path: Path, args: list[str]) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "hero.yaml"
    text = "name: Hero\nstats:\n  Ability: 15\nconditions: [Invigorated State]\n"
    path.write_text(text, encoding="utf-8")
    run = cli(*args, "--as", str(path))
    assert run.code == 1 and "Traceback" not in run.stderr and run.stdout == ""
    assert "E0" in run.stderr
    assert path.read_text(encoding="utf-8") == text


@pytest.mark.parametrize(("outcome", "degree", "mismatch", "primary", "secondary"), [
    ("victory", "marginal", 0, True, False), ("victory", "minor", 0, True, False),
    ("victory", "major", 0, True, True), ("victory", "complete", 0, True, True),
    ("tie", "marginal", 0, False, False), ("defeat", "complete", 0, False, False),
    ("defeat", "major", 1, True, True),
])
def test_graduated_goals(rules, outcome: str, degree: str, mismatch: int, primary: bool,
                         secondary: bool) -> None:  # type: ignore[no-untyped-def]
    results = rules.resolve("goals", outcome=outcome, degree=degree, mismatch=mismatch).results
    assert (results["primary"], results["secondary"]) == (primary, secondary)
