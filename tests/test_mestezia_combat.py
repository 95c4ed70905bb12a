"""Mestezia combat state: CP, FP, HP and Jolts, conditions and their stacking, the damage
pipeline, healing and health statuses (spec §2.2, §2.6, §2.7, §2.9-§2.12).

Expected numbers come from the book's worked examples (MZ-W12, MZ-W13, MZ-W16) or from a
reference written here in plain Python from the spec's wording, never from the rules' output.
"""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product
from math import ceil, floor
from pathlib import Path

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.rules.entities import Entity
from runebook.rulesets import RULESETS_DIR

EXAMPLES = RULESETS_DIR / "mestezia" / "examples"
NAYELI, WISP = str(EXAMPLES / "nayeli.yaml"), str(EXAMPLES / "ember-wisp.yaml")

# A table's own additions on top of Mestezia: procedures that put conditions on creatures
# (the way powers would) and read what the rules make of them.
HOMEBREW = """\
extends mestezia

condition Aim Training ()
  modifier Aim = 1

condition Ally Boost ()
  modifier Aim = 1

procedure Sense Deprive ()
  apply Sense Deprived for 1 round
  apply Sense Deprived for 2 rounds
  result perception = modifier(actor, "Perception")

procedure Advantage Twice ()
  apply Advantage
  apply Advantage
  apply High Ground
  apply Dazed on target
  result attack = modifier(actor, "Attack")
  result bonus = attack_bonus(actor, target, false, true)

procedure Aim Help ()
  apply Aim Training
  apply Ally Boost
  result aim = modifier(actor, "Aim")

procedure Probe (ranged = 0, directed = 1)
  result speed = current_speed(actor)
  result defense = defense_bonus(actor, target, directed == 1, ranged == 1)
  result attack = attack_bonus(actor, target, ranged == 1, false)
  result perception = modifier(actor, "Perception")
  result advantage_for_foe = grants_advantage(actor, ranged == 1)
  result react = can_react(actor)
  result powers = can_use_powers(actor)
  result hex_cost = hex_cost(actor)

procedure Health Probe ()
  result healthy = is_healthy(actor)
  result injured = is_injured(actor)
  result bloodied = is_bloodied(actor)
  result maimed = is_maimed(actor)
  result dying = is_dying(actor)
  result shown = health_of(actor)
  result jolts = Jolt

procedure Attack Roll (skill = 0, threshold = 12)
  let roll = Skill Check(3, skill + attack_bonus(actor, target, false, true), threshold)
  result grade = roll.grade

procedure Nonstack Probe (best = 0, worst = 0)
  result total = nonstack(best, worst)
"""


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("mestezia")


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("mestezia-table")
    (folder / "table.rules").write_text(HOMEBREW)
    return interpreter.load(str(folder))


@pytest.fixture
def creature(tmp_path: Path):  # type: ignore[no-untyped-def]
    """``creature(rules, stats, resources, conditions)``: an entity file written and loaded."""
    count = [0]

    def make(rules, stats=None, resources=None, conditions=()):  # type: ignore[no-untyped-def]
        count[0] += 1
        lines = [f"name: C{count[0]}", "stats:"]
        lines += [f"  {k}: {v}" for k, v in {"Max HP": 20, "Speed": 3, "Sturdiness": 0, **(stats or {})}.items()]
        if resources:
            lines += ["resources:"] + [f"  {k}: {v}" for k, v in resources.items()]
        if conditions:
            lines += ["conditions:"] + [f"  - {c}" for c in conditions]
        path = tmp_path / f"c{count[0]}.yaml"
        path.write_text("\n".join(lines) + "\n")
        return rules.entity(str(path))

    return make


# ---------------------------------------------------------------- the book's worked examples


def test_conditions_do_not_stack_sense_deprived(table, creature) -> None:  # type: ignore[no-untyped-def]
    """MZ-W12: Sense Deprived for 1 round and for 2 rounds is Sense Deprived for 2 rounds,
    Perception -2 (not -4)."""
    run = table.run("Sense Deprive", as_=creature(table))
    assert run.results == {"perception": -2}
    assert run.state["actor"]["conditions"] == ["Sense Deprived for 2 rounds"]


def test_sense_deprived_wears_off_after_its_rounds(table, creature) -> None:  # type: ignore[no-untyped-def]
    """MZ-W12, continued: still there after one round (End Phase), gone after the second."""
    hero = _after(table, "Sense Deprive", creature(table))
    seen = []
    for _ in range(3):
        seen.append(table.run("Probe", as_=hero, against=creature(table)).results["perception"])
        hero = _after(table, "End Phase", hero)
    assert seen == [-2, -2, 0]


def _after(rules, procedure: str, entity, **inputs):  # type: ignore[no-untyped-def]
    """Run a procedure and give back the actor as the run left it (runs work on copies)."""
    made: list = []
    original = Entity.copy

    def keep(self):  # type: ignore[no-untyped-def]
        made.append(original(self))
        return made[-1]

    Entity.copy = keep  # type: ignore[method-assign]
    try:
        rules.run(procedure, as_=entity, **inputs)
    finally:
        Entity.copy = original  # type: ignore[method-assign]
    return made[0]


def test_advantage_from_several_sources_is_plus_one(table, creature) -> None:  # type: ignore[no-untyped-def]
    """MZ-W12: CA from two sources (and from High ground, and a Dazed foe) is still +1 Attack."""
    run = table.run("Advantage Twice", as_=creature(table), against=creature(table))
    assert run.results == {"attack": 1, "bonus": 1}
    assert run.state["actor"]["conditions"] == ["Advantage", "High Ground"]


def test_bonuses_from_different_sources_add(table, creature) -> None:  # type: ignore[no-untyped-def]
    """MZ-W13: +1 to Aim and an ally's +1 make +2."""
    assert table.run("Aim Help", as_=creature(table)).results == {"aim": 2}


@pytest.mark.parametrize("into, cp, sg", [("CP", 2 + 3, 0), ("Sg", 2, 0 + 4)])
def test_one_fate_point_buys_three_cp_or_four_surges(rules, into: str, cp: int, sg: int) -> None:
    """MZ-W16: 1 FP -> 3 CP or 4 Sg (Nayeli starts with 2 FP, 2 CP, no surges)."""
    run = rules.run("Exchange FP", as_=rules.entity(NAYELI), into=into)
    assert run.results == {"cp": cp, "sg": sg, "fp": 1}


def test_the_fp_exchange_from_the_command_line(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "mestezia", "Exchange FP", "--as", NAYELI, "--with", "into=CP", "--json")
    assert run.code == 0, run.stderr
    resources = json.loads(run.stdout)["state"]["actor"]["resources"]
    assert (resources["FP"], resources["CP"], resources["Exchanges"]) == (1, 5, 0)


def test_cp_have_no_maximum(rules, creature) -> None:  # type: ignore[no-untyped-def]
    """§2.6: CP have no cap. A fate point traded at 5 CP gives 8; a reset still refills to 6
    (and drops the extra points, which are lost unspent)."""
    hero = creature(rules, resources={"FP": 1, "CP": 5})
    traded = _after(rules, "Exchange FP", hero, into="CP")
    assert traded.resources["CP"] == 5 + 3
    assert rules.run("Reset CP", as_=traded).results == {"cp": 6}


# ---------------------------------------------------------------- FP exchange limits (A2)


def test_one_exchange_per_turn_and_none_for_cp_while_dazed(rules, creature) -> None:  # type: ignore[no-untyped-def]
    hero = creature(rules, resources={"FP": 3, "CP": 0})
    once = _after(rules, "Exchange FP", hero, into="Sg")
    with pytest.raises(RunebookError) as error:
        rules.run("Exchange FP", as_=once, into="Sg")
    assert [d.code for d in error.value.diagnostics] == ["E0706"]
    assert "cannot pay 1 Exchanges: it has 0" in str(error.value)
    assert once.resources["FP"] == 2  # the refused exchange took nothing
    dazed = creature(rules, resources={"FP": 1}, conditions=["Dazed"])
    with pytest.raises(RunebookError) as error:
        rules.run("Exchange FP", as_=dazed, into="CP")
    assert [d.code for d in error.value.diagnostics] == ["E0613"]
    assert rules.run("Exchange FP", as_=dazed, into="Sg").results["sg"] == 4  # surges are allowed


@pytest.mark.parametrize("limit, others_turn, own_turn, new_round", [
    ("per_any_turn", 1, 1, 1), ("per_own_turn", 0, 1, 0), ("per_round", 0, 0, 1)])
def test_when_the_exchange_comes_back(rules, creature, limit: str, others_turn: int, own_turn: int,
                                      new_round: int) -> None:  # type: ignore[no-untyped-def]
    spent = creature(rules, resources={"Exchanges": 0})
    options = {"fp_exchange_limit": limit}
    got = [rules.run("Turn Begins", as_=spent, options=options, **kw).results["exchanges"]
           for kw in ({"mine": 0}, {"mine": 1}, {"round_start": 1})]
    assert got == [others_turn, own_turn, new_round]


# ---------------------------------------------------------------- CP reset (§2.7)


@pytest.mark.parametrize("conditions, bonus, cp", [
    ([], 0, 6), (["Dazed"], 0, 6 - 2), (["Dazed", "Hasted"], 0, 6 - 2 + 1), (["Dominated"], 0, 6 - 2),
    (["Dazed"], 1, 6 - 2 + 1), (["Hasted"], 0, 6 + 1), ([], 2, 6 + 2), (["Hasted"], 3, 6 + 1 + 3)])
def test_reset_cp_loses_unspent_and_gains_six(rules, creature, conditions, bonus: int, cp: int) -> None:  # type: ignore[no-untyped-def]
    hero = creature(rules, resources={"CP": 1}, conditions=conditions)
    assert rules.run("Reset CP", as_=hero, bonus=bonus).results == {"cp": cp}


# ---------------------------------------------------------------- Jolts (A9)


@pytest.mark.parametrize("rounding", ["quarter_down", "quarter_nearest", "quarter_up"])
@pytest.mark.parametrize("max_hp", [16, 17, 18, 19])
def test_jolts_are_a_quarter_of_max_hp_plus_sturdiness(table, creature, rounding: str, max_hp: int) -> None:  # type: ignore[no-untyped-def]
    quarter = Fraction(max_hp, 4)
    expected = {"quarter_down": floor(quarter), "quarter_up": ceil(quarter),
                "quarter_nearest": floor(quarter + Fraction(1, 2))}[rounding] + 2
    hero = creature(table, stats={"Max HP": max_hp, "Sturdiness": 2})
    run = table.run("Health Probe", as_=hero, options={"jolt_rounding": rounding})
    assert run.results["jolts"] == expected


# ---------------------------------------------------------------- health statuses (§2.10, A14)


def _statuses(hp: int, max_hp: int, exclusive: bool) -> dict[str, object]:
    ratio = Fraction(hp, max_hp)
    nested = {"healthy": ratio >= Fraction(3, 4), "injured": ratio < Fraction(3, 4),
              "bloodied": ratio <= Fraction(1, 2), "maimed": ratio <= Fraction(1, 4), "dying": hp == 0}
    order = ["dying", "maimed", "bloodied", "injured", "healthy"]
    worst = next(name for name in order if nested[name])
    if exclusive:
        nested = {k: v and (k == worst or k in ("dying", "healthy")) for k, v in nested.items()}
    return {**nested, "shown": worst.capitalize()}


@pytest.mark.parametrize("setting", ["nested", "exclusive"])
def test_health_statuses_are_exact_fractions_of_max_hp(table, creature, setting: str) -> None:  # type: ignore[no-untyped-def]
    for max_hp in (1, 2, 3, 4, 7, 8, 12):
        hero = creature(table, stats={"Max HP": max_hp})
        for hp in range(max_hp + 1):
            hero.resources["HP"] = hp
            results = table.run("Health Probe", as_=hero, options={"health_status": setting}).results
            results.pop("jolts")
            assert results == _statuses(hp, max_hp, setting == "exclusive"), (hp, max_hp)


# ---------------------------------------------------------------- damage (§2.9, A11, A12)


def _reference_damage(base: int, kinds: tuple[str, str], source: str, weakened: bool, bonus: int,
                      defender: dict, options: dict[str, str]) -> int:
    """The pipeline as the spec lists it, written independently of the rules."""
    amount = base
    if source == "attack" and weakened:
        amount = ceil(Fraction(amount, 2)) if options["weakened_rounding"] == "half_up" else amount // 2
    amount += bonus
    types = [t for t in kinds if t != "untyped"]
    resist, vuln = defender.get("resist", {}), defender.get("vuln", {})

    def vuln_and_resist(x: int) -> int:
        matching = [vuln.get(t, 0) for t in types] + [vuln.get("untyped", 0)]
        extra = max(matching) if options["multi_vuln"] == "vuln_max" else sum(matching)
        typed = [resist.get(t, 0) for t in types]
        if not typed:
            covered = 0
        elif options["multi_resist"] == "resist_min":
            covered = min(typed)
        else:
            covered = sum(typed) if all(typed) else 0
        return max(0, x + extra - covered - resist.get("untyped", 0))

    def halve(x: int) -> int:
        return ceil(Fraction(x, 2)) if defender.get("insubstantial") and source != "other" else x

    if options["damage_order"] == "resist_first":
        return halve(vuln_and_resist(amount))
    return vuln_and_resist(halve(amount))


DEFENDERS = [
    {"resist": {"Fire": 3}, "vuln": {"Cold": 2}},
    {"resist": {"Fire": 2, "Cold": 4}, "vuln": {"untyped": 1}, "insubstantial": True},
    {"resist": {"untyped": 2, "Cold": 1}, "vuln": {"Fire": 1, "Cold": 3}, "insubstantial": True},
]
DEFAULTS = {"damage_order": "resist_first", "weakened_rounding": "half_up", "multi_resist": "resist_min",
            "multi_vuln": "vuln_max"}


def _defender(rules, creature, profile: dict, hp: int = 40):  # type: ignore[no-untyped-def]
    conditions = [f"Resistant({n}, {t})" for t, n in profile.get("resist", {}).items()]
    conditions += [f"Vulnerable({n}, {t})" for t, n in profile.get("vuln", {}).items()]
    conditions += ["Insubstantial"] if profile.get("insubstantial") else []
    return creature(rules, stats={"Max HP": 40}, resources={"HP": hp}, conditions=conditions)


@pytest.mark.parametrize("profile", range(len(DEFENDERS)))
def test_damage_pipeline_matches_the_reference(rules, creature, profile: int) -> None:  # type: ignore[no-untyped-def]
    defender = _defender(rules, creature, DEFENDERS[profile])
    cases = product((0, 1, 5, 8), (("Fire", "untyped"), ("Fire", "Cold"), ("untyped", "untyped")),
                    (("attack", True), ("attack", False), ("ongoing", True), ("other", False)))
    for base, kinds, (source, weak) in cases:
        run = rules.run("Take Damage", as_=defender, amount=base, kind=kinds[0], also=kinds[1], source=source,
                        weakened=int(weak), bonus=1)
        expected = _reference_damage(base, kinds, source, weak, 1, DEFENDERS[profile], DEFAULTS)
        assert run.results["taken"] == expected, (base, kinds, source, weak)
        assert run.results["hp"] == 40 - expected


@pytest.mark.parametrize("options", [dict(zip(DEFAULTS, values)) for values in product(
    ("resist_first", "halve_first"), ("half_up", "half_down"), ("resist_min", "resist_sum"), ("vuln_max", "vuln_sum"))])
def test_damage_options_match_the_reference(rules, creature, options: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    for profile in DEFENDERS[1:]:
        defender = _defender(rules, creature, profile)
        for base, kinds in product((3, 7), (("Fire", "Cold"), ("Cold", "untyped"))):
            run = rules.run("Take Damage", as_=defender, amount=base, kind=kinds[0], also=kinds[1], weakened=1,
                            options=options)
            assert run.results["taken"] == _reference_damage(base, kinds, "attack", True, 0, profile, options)


def test_evasion_resistance_swallows_small_damage(rules, creature) -> None:  # type: ignore[no-untyped-def]
    """MZ-W11: resist 2 against 1 damage: no damage at all."""
    hero = creature(rules, resources={"HP": 12}, conditions=["Resistant(2)"])
    assert rules.run("Take Damage", as_=hero, amount=1).results == {"taken": 0, "hp": 12, "status": "Injured"}


def test_deal_damage_reads_the_attackers_weakness(rules, creature) -> None:  # type: ignore[no-untyped-def]
    weak, foe = creature(rules, conditions=["Weakened"]), creature(rules, resources={"HP": 20})
    run = rules.run("Deal Damage", as_=weak, against=foe, amount=7, kind="Fire")
    assert run.results == {"taken": 4, "hp": 16, "status": "Healthy"}  # ceil(7 / 2)


def test_damage_to_zero_leaves_a_creature_dying_unconscious_and_prone(table, rules, creature) -> None:  # type: ignore[no-untyped-def]
    hero = creature(rules, resources={"HP": 3})
    after = _after(rules, "Take Damage", hero, amount=10)
    assert after.resources["HP"] == 0 and after.conditions == ["Dying"]
    probe = table.run("Probe", as_=after, against=creature(table))
    # Dying -> Unconscious (-5 Defense, grants Advantage, no powers) -> Prone -> Slowed.
    assert probe.results == {"speed": 1, "defense": -5, "attack": -2, "perception": 0, "advantage_for_foe": True,
                             "react": False, "powers": False, "hex_cost": 1}
    healed = _after(rules, "Heal", after, amount=2)
    assert healed.resources["HP"] == 2 and healed.conditions == []


def test_damage_from_the_command_line(cli, snapshot) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "mestezia", "Take Damage", "--as", WISP, "--with", "amount=7", "--with", "kind=Cold", "--json")
    assert run.code == 0, run.stderr
    payload = json.loads(run.stdout)
    assert payload["results"] == {"taken": 7 + 2, "hp": 13 - 9, "status": "Maimed"}  # Vulnerable Cold 2; 4/16
    assert payload["state"]["actor"] == snapshot


def test_a_bad_damage_type_or_source_is_a_diagnostic(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "mestezia", "Take Damage", "--as", WISP, "--with", "amount=7", "--with", "kind=Lava")
    assert run.code == 1 and "E0603" in run.stderr and "Traceback" not in run.stderr
    run = cli("run", "mestezia", "Take Damage", "--as", WISP, "--with", "amount=7", "--with", "source=trap")
    assert run.code == 1 and "E0613" in run.stderr and "source ==" in run.stderr


# ---------------------------------------------------------------- start phase (§2.7)


def test_start_phase_ongoing_then_regeneration_then_terrain(rules, creature) -> None:  # type: ignore[no-untyped-def]
    # Ongoing fire 3 (a second fire 1 is the same condition: max 3) and cold 2 stack: 5;
    # regenerating 2; elemental fire terrain 4 (resisted by 1).
    hero = creature(rules, resources={"HP": 10}, conditions=[
        "Ongoing Damage(3, Fire)", "Ongoing Damage(1, Fire)", "Ongoing Damage(2, Cold)", "Regenerating(2)",
        "Elemental(4, Fire)", "Resistant(1, Fire)"])
    assert [str(c) for c in hero.conditions][:2] == ["Ongoing Damage(3, Fire)", "Ongoing Damage(2, Cold)"]
    run = rules.run("Start Phase", as_=hero)
    ongoing = (3 - 1) + 2
    elemental = 4 - 1
    assert run.results == {"ongoing": ongoing, "regenerated": 2, "elemental": elemental,
                           "hp": 10 - ongoing + 2 - elemental, "status": "Maimed"}


def test_insubstantial_halves_ongoing_but_not_terrain(rules, creature) -> None:  # type: ignore[no-untyped-def]
    hero = creature(rules, resources={"HP": 20}, conditions=["Ongoing Damage(5)", "Elemental(5)", "Insubstantial"])
    assert rules.run("Start Phase", as_=hero).results["ongoing"] == 3
    assert rules.run("Start Phase", as_=hero).results["elemental"] == 5


@pytest.mark.parametrize("setting, regained, still_dying", [("regen_plain", 2, True), ("regen_heal", 2 + 3 - 1, False)])
def test_regeneration_is_not_a_heal_unless_chosen(rules, creature, setting: str, regained: int,
                                                   still_dying: bool) -> None:  # type: ignore[no-untyped-def]
    hero = creature(rules, resources={"HP": 0}, conditions=["Dying", "Regenerating(2)", "Boosted(3)", "Sickly(1)"])
    run = rules.run("Start Phase", as_=hero, options={"regen_is_heal": setting})
    assert run.results["regenerated"] == regained
    assert ("Dying" in run.state["actor"]["conditions"]) is still_dying


# ---------------------------------------------------------------- healing (§2.10)


@pytest.mark.parametrize("conditions, base, hp, healed", [
    ([], 5, 10, 5), (["Boosted(2)"], 5, 10, 7), (["Sickly(3)"], 5, 10, 2), (["Sickly(4)"], 5, 10, 1),
    (["Sickly(9)"], 5, 10, 1), (["Boosted(2)", "Sickly(3)"], 5, 10, 4), ([], 5, 18, 2), (["Boosted(1)"], 0, 10, 1)])
def test_heal_boosted_sickly_and_the_cap(rules, creature, conditions, base: int, hp: int, healed: int) -> None:  # type: ignore[no-untyped-def]
    hero = creature(rules, resources={"HP": hp}, conditions=conditions)
    run = rules.run("Heal", as_=hero, amount=base)
    assert run.results["healed"] == healed and run.results["hp"] == hp + healed <= 20


# ---------------------------------------------------------------- conditions' numbers (§2.11, §2.12)


@pytest.mark.parametrize("conditions, foe, expected", [
    (["Hasted"], [], {"speed": 5}),
    (["Faint", "Hasted"], [], {"speed": 4}),
    (["Hasted", "Prone"], [], {"speed": 1, "attack": -2, "react": False}),
    (["Entangled", "Faint"], [], {"speed": 1}),
    (["Restrained", "Prone"], [], {"speed": 0, "attack": -3, "advantage_for_foe": True}),
    (["Grabbed"], [], {"speed": 0}),
    (["Protected(2)", "Shielding(3)"], [], {"defense": 3}),
    (["Protected(3)", "Shielding(1)"], [], {"defense": 3}),
    (["Concealed(1)", "Dim(2)"], [], {"defense": 2}),
    (["Clumsy", "Unlucky"], [], {"defense": -2, "attack": -1}),
    (["Lucky", "Marked"], [], {"defense": 1, "attack": 0}),
    (["Windy"], [], {"perception": -1}),
    (["Rough(2)"], [], {"hex_cost": 2}),
    (["Rough(2)", "Phasing"], [], {"hex_cost": 1}),
    (["Stunned"], [], {"powers": False, "advantage_for_foe": True}),
    ([], ["Sense Deprived"], {"defense": 5, "attack": 1}),
    ([], ["Focused"], {"attack": 1}),
    # Relative conditions; the creature here is C1 and its foe C2.
    (["Advantage(C2)"], [], {"attack": 1}),
    (["Advantage(C9)"], [], {"attack": 0}),
    (["Advantage(C2)", "Advantage"], ["Dazed"], {"attack": 1}),
    (["Concealed(2, C2)"], [], {"defense": 2}),
    (["Concealed(2, C9)", "Concealed(1)"], [], {"defense": 1}),
    (["Marked(C2)"], [], {"attack": 0}),
    (["Marked(C9)"], [], {"attack": -1}),
])
def test_condition_effects(table, creature, conditions, foe, expected) -> None:  # type: ignore[no-untyped-def]
    run = table.run("Probe", as_=creature(table, conditions=conditions), against=creature(table, conditions=foe))
    assert {k: run.results[k] for k in expected} == expected


def test_prone_is_protected_against_ranged_attacks_but_grants_advantage_in_melee(table, creature) -> None:  # type: ignore[no-untyped-def]
    prone, foe = creature(table, conditions=["Prone"]), creature(table)
    melee = table.run("Probe", as_=prone, against=foe, ranged=0).results
    ranged = table.run("Probe", as_=prone, against=foe, ranged=1).results
    assert (melee["defense"], melee["advantage_for_foe"]) == (0, True)
    assert (ranged["defense"], ranged["advantage_for_foe"]) == (1, False)
    shielded = creature(table, conditions=["Prone", "Protected(2)"])
    assert table.run("Probe", as_=shielded, against=foe, ranged=1).results["defense"] == 2  # not 3
    area = table.run("Probe", as_=creature(table, conditions=["Concealed(2)"]), against=foe, directed=0)
    assert area.results["defense"] == 0  # Concealed is only against Directed attacks


@pytest.mark.parametrize("setting, speed", [("final", 1), ("base", 1 + 2 - 1)])
def test_slowed_before_or_after_other_speed_modifiers(table, creature, setting: str, speed: int) -> None:  # type: ignore[no-untyped-def]
    hero = creature(table, conditions=["Slowed", "Hasted", "Faint"])
    assert table.run("Probe", as_=hero, against=creature(table), options={"slowed_override": setting}) \
        .results["speed"] == speed


@pytest.mark.parametrize("setting, best, worst, total", [
    ("worst", 2, -1, 1), ("worst", 0, -2, -2), ("ignore", 2, -1, 2), ("ignore", 0, -2, 0)])
def test_a_set_that_does_not_stack_keeps_the_best_bonus_and_worst_penalty(table, setting, best, worst, total) -> None:  # type: ignore[no-untyped-def]
    run = table.run("Nonstack Probe", best=best, worst=worst, options={"nonstack_penalty": setting})
    assert run.results == {"total": total}


def test_a_creature_file_with_a_wrong_condition_value_is_a_diagnostic(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bad.yaml"
    path.write_text("name: Bad\nstats:\n  Max HP: 10\nconditions:\n  - Resistant(2, Lava)\n  - Protected\n")
    run = cli("run", "mestezia", "Heal", "--as", str(path), "--with", "amount=1")
    assert run.code == 1 and run.stdout == "" and "Traceback" not in run.stderr
    assert "bad.yaml:5:5: E0702 'Resistant' expects one of untyped, Air," in run.stderr
    assert "bad.yaml:6:5: E0702 'Protected' expects 1 value(s): 'Protected(N)'" in run.stderr


def test_entering_elemental_terrain_hurts_now_and_at_the_start_of_the_turn(rules, creature) -> None:  # type: ignore[no-untyped-def]
    hero = creature(rules, resources={"HP": 10}, conditions=["Vulnerable(1, Fire)", "Insubstantial"])
    inside = _after(rules, "Enter Elemental", hero, N=3, kind="Fire")
    assert inside.resources["HP"] == 10 - (3 + 1)  # not an attack: Insubstantial does not halve it
    assert [str(c) for c in inside.conditions][-1] == "Elemental(3, Fire)"
    assert rules.run("Start Phase", as_=inside).results["elemental"] == 3 + 1


def test_attack_odds_with_conditions_match_an_enumeration(table, creature) -> None:  # type: ignore[no-untyped-def]
    """A Prone attacker (-2) against a Dazed foe (Advantage, +1) with skill 4: each die gets
    +3 against 12. The odds of each grade, counted over all 1000 rolls of 3d10."""
    attacker, foe = creature(table, conditions=["Prone"]), creature(table, conditions=["Dazed"])
    odds = table.odds("Attack Roll", as_=attacker, against=foe, skill=4)
    names = {0: "Fail", 1: "Low", 2: "Medium", 3: "High"}
    counts: dict[str, int] = {}
    for faces in product(range(1, 11), repeat=3):
        grade = names[sum(1 for face in faces if face + 4 - 2 + 1 >= 12)]
        counts[grade] = counts.get(grade, 0) + 1
    expected = {grade: Fraction(n, 1000) for grade, n in counts.items()}
    assert {str(k): v for k, v in odds.results["grade"].items()} == expected
