"""Mestezia: cases derived from the rules (spec shared/specs/mestezia.md), second-opinion audit.

Defects this audit found and fixed in rulesets/mestezia/ (each test below fails without its fix):

- §2.7 step 3 (L488-496, L568, L576): the first turn's CP reset (`First Turn`, and the
  character's turn in `Skirmish Round`) ignored Dazed (2 fewer CP) and Hasted (1 more), which
  `Reset CP` counts on every other turn.
- Inputs out of range: a negative amount healed took HP away (`Heal --with amount=-3` left
  the creature 3 HP lower and reported `healed: -3`); negative damage, a negative Elemental N
  and a negative round-1 CP bonus were accepted. They are refused now (E0613).
- Spec A3: `Attack` in a Check (`Check: [Attack + Strength]`) is the Aim skill; a character
  file with Aim and no `Attack` stat got "E0405 '+' cannot apply to the level 'attack'"
  (the keyword level of the same name). `Attack` is now `derive Attack = Aim` (a file's own
  `Attack` still wins).

Then a compact table of golden cases derived from the rules: given dice -> expected results,
and exact odds compared with enumerations written here.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from math import comb
from pathlib import Path

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.rulesets import RULESETS_DIR
from mestezia_helpers import challenge_win

MESTEZIA = RULESETS_DIR / "mestezia"
EXAMPLES = MESTEZIA / "examples"
ITZEL, INQUISITOR = EXAMPLES / "itzel.yaml", EXAMPLES / "inquisitor.yaml"
XOCHITL, CULTIST = EXAMPLES / "xochitl.yaml", EXAMPLES / "cultist.yaml"
RAIDER, GUARD = EXAMPLES / "skirmish" / "raider.yaml", EXAMPLES / "skirmish" / "guard.yaml"
GRADES = {0: "Fail", 1: "Low", 2: "Medium"}


def grade_name(hits: int) -> str:
    return GRADES.get(hits, "High")


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("mestezia")


def _file(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _with(tmp_path: Path, source: Path, extra: str, name: str = "x.yaml") -> str:
    return _file(tmp_path, name, source.read_text(encoding="utf-8") + extra)


def _conditions(names: list[str]) -> str:
    """A character file's `conditions:` block, one item a line (items may hold commas)."""
    return "conditions:\n" + "".join(f"  - {n}\n" for n in names) if names else ""


def _driver(*answers: str):  # type: ignore[no-untyped-def]
    from runebook.interpreter.rules.procedures import ScriptedDriver

    return ScriptedDriver(list(answers))


def _codes(error: pytest.ExceptionInfo[RunebookError]) -> list[str]:
    return [d.code for d in error.value.diagnostics]


# ---------------------------------------------------------------- defect: first turn's CP reset

def _reset(conditions: list[str]) -> int:
    """CP after a turn's reset (§2.7): 6, Dazed 2 fewer, Hasted 1 more."""
    return 6 - (2 if "Dazed" in conditions else 0) + (1 if "Hasted" in conditions else 0)


@pytest.mark.parametrize("conditions", [[], ["Hasted"], ["Dazed"], ["Dazed", "Hasted"]])
def test_first_turn_resets_cp_as_every_turn_does(rules, tmp_path: Path, conditions: list[str]) -> None:  # type: ignore[no-untyped-def]
    """Initiative 3, die 9: total 12, segment 10, 2 extra CP on top of the turn's reset."""
    text = "name: Q\nstats:\n  Initiative: 3\nresources:\n  CP: 0\n"
    if conditions:
        text += "conditions: [" + ", ".join(conditions) + "]\n"
    quick = rules.entity(_file(tmp_path, "q.yaml", text))
    run = rules.run("First Turn", as_=quick, dice=[9])
    assert (run.results["segment"], run.results["bonus_cp"]) == (10, 2)
    assert run.results["cp"] == _reset(conditions) + 2
    # The same as Reset CP with the bonus, the procedure of every other turn.
    again = rules.run("Reset CP", as_=rules.entity(_file(tmp_path, "q.yaml", text)), bonus=2)
    assert again.results["cp"] == run.results["cp"]


@pytest.mark.parametrize("condition", ["Hasted", "Dazed"])
def test_the_skirmish_rounds_reset_counts_hasted_and_dazed(rules, tmp_path: Path, condition: str) -> None:  # type: ignore[no-untyped-def]
    """The raider rolls 6 + Initiative 2 = 8 (before the guard's 7, no bonus) and passes."""
    raider = rules.entity(_with(tmp_path, RAIDER, f"conditions: [{condition}]\n", "raider.yaml"))
    run = rules.run("Skirmish Round", power="Berserker Charge", target_segment=7, as_=raider,
                    against=rules.entity(str(GUARD)), dice=[6], driver=_driver("pass"))
    assert run.results["cp_at_start"] == _reset([condition])


# ---------------------------------------------------------------- defect: negative inputs

NAYELI = EXAMPLES / "nayeli.yaml"  # 20 Max HP, full; FP 2, CP 2


@pytest.mark.parametrize(("procedure", "inputs"), [
    ("Heal", {"amount": -3}), ("Take Damage", {"amount": -3}), ("Enter Elemental", {"N": -2}),
    ("Reset CP", {"bonus": -3})])
def test_negative_amounts_are_refused_and_change_nothing(rules, tmp_path: Path, procedure: str, inputs: dict) -> None:  # type: ignore[no-untyped-def,type-arg]
    hurt = rules.entity(_file(tmp_path, "n.yaml", NAYELI.read_text(encoding="utf-8").replace("  FP: 2\n", "  FP: 2\n  HP: 10\n")))
    with pytest.raises(RunebookError) as error:
        rules.run(procedure, as_=hurt, **inputs)
    assert _codes(error) == ["E0613"]
    assert (hurt.resources["HP"], hurt.resources["CP"]) == (10, 2)


def test_negative_damage_dealt_is_refused(rules) -> None:  # type: ignore[no-untyped-def]
    guard = rules.entity(str(GUARD))
    with pytest.raises(RunebookError) as error:
        rules.run("Deal Damage", as_=rules.entity(str(RAIDER)), against=guard, amount=-4)
    assert _codes(error) == ["E0613"] and guard.resources["HP"] == 24


# ---------------------------------------------------------------- defect: Attack is Aim (A3)

AIMER = "name: Aimer\nstats:\n  Aim: 4\n  Strength: 2\n  Speed: 2\n  Weapon Cost: 3\n  Weapon Damage: 12\n" \
        "resources:\n  CP: 6\npowers: [Berserker Charge]\n"


def test_attack_in_a_check_reads_aim(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """[Attack + Strength] = Aim 4 + 2: 6, 5, 5 are 12, 11, 11 against Defense 12, a Low: 12 + 1."""
    aimer = rules.entity(_file(tmp_path, "a.yaml", AIMER))
    run = rules.run("Berserker Charge", as_=aimer, against=rules.entity(str(INQUISITOR)), dice=[6, 5, 5])
    assert (str(run.results["grade"]), run.results["damage"]) == ("Low", 13)
    assert run.state["actor"]["resources"]["CP"] == 2
    odds = rules.odds("Berserker Charge", as_=rules.entity(_file(tmp_path, "a.yaml", AIMER)),
                      against=rules.entity(str(INQUISITOR)))
    expected: dict[str, Fraction] = {}
    for faces in product(range(1, 11), repeat=3):
        name = grade_name(sum(f + 6 >= 12 for f in faces))
        expected[name] = expected.get(name, Fraction(0)) + Fraction(1, 1000)
    assert {str(k): v for k, v in odds.results["grade"].items()} == expected


def test_a_files_own_attack_wins_over_aim(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Attack 1 given: 1 + 2 = 3; 6, 5, 5 are 9, 8, 8 against 12, a Fail."""
    both = rules.entity(_file(tmp_path, "b.yaml", AIMER.replace("  Aim: 4\n", "  Aim: 4\n  Attack: 1\n")))
    run = rules.run("Berserker Charge", as_=both, against=rules.entity(str(INQUISITOR)), dice=[6, 5, 5])
    assert (str(run.results["grade"]), run.results["damage"]) == ("Fail", 0)


# ---------------------------------------------------------------- golden cases: the skill check

# (dice, modifier, threshold, aid) -> successes (§2.1: each die + modifier against the threshold;
# §2.4: an ally's grade on ONE die).
SKILL = [
    ((8, 6, 1), 3, 9, 0, 2),        # MZ-W01: 11, 9, 4 -> Medium
    ((8, 6, 1), 3, 11, 0, 1),       # 11 exactly meets 11
    ((5, 5, 5), 0, 5, 0, 3),        # all dice equal, all exactly at the threshold
    ((4, 4, 4), 0, 5, 0, 0),        # all equal, one short
    ((10, 10, 10), -2, 9, 0, 0),    # a negative modifier: 8s against 9
    ((10, 10, 10), -2, 8, 0, 3),
    ((4, 5, 10), 4, 11, 3, 2),      # MZ-W03b: the ally's +3 lifts one die only
    ((1, 1, 1), 4, 11, 9, 1),       # a huge aid still lifts one die
    ((10, 10, 10), 1, 11, -3, 3),   # a negative aid (no grade is) takes no success away
    ((10, 10, 10, 10), 0, 9, 0, 4), # a pool of four: 4 successes, named High
]


@pytest.mark.parametrize(("dice", "modifier", "threshold", "aid", "hits"), SKILL)
def test_skill_check_golden(rules, dice, modifier, threshold, aid, hits) -> None:  # type: ignore[no-untyped-def]
    run = rules.resolve("Skill Check", pool=len(dice), modifier=modifier, threshold=threshold, aid=aid, dice=list(dice))
    assert run.results["successes"] == hits and str(run.results["grade"]) == grade_name(hits)


@pytest.mark.parametrize(("pool", "modifier", "threshold"), [(3, 3, 11), (3, -2, 9), (4, 0, 1), (3, 0, 20), (2, 5, 12)])
def test_skill_check_odds_match_an_enumeration(rules, pool: int, modifier: int, threshold: int) -> None:  # type: ignore[no-untyped-def]
    odds = rules.odds("Skill Check", pool=pool, modifier=modifier, threshold=threshold)
    expected: dict[int, Fraction] = {}
    for faces in product(range(1, 11), repeat=pool):
        hits = sum(f + modifier >= threshold for f in faces)
        expected[hits] = expected.get(hits, Fraction(0)) + Fraction(1, 10 ** pool)
    assert {int(k): v for k, v in odds.results["successes"].items() if v} == expected


@pytest.mark.parametrize(("inputs", "dice", "code"), [
    ({"threshold": 9}, [11, 1, 1], "E0503"), ({"threshold": 9}, [0, 1, 1], "E0503"),
    ({"threshold": 9, "pool": -1}, None, "E0403"), ({}, [5, 1, 1], "E0602")])
def test_skill_check_refuses_out_of_range_inputs(rules, inputs: dict, dice, code: str) -> None:  # type: ignore[no-untyped-def,type-arg]
    with pytest.raises(RunebookError) as error:
        rules.resolve("Skill Check", dice=dice, **inputs)
    assert _codes(error) == [code]


def test_aided_check_odds_match_an_enumeration(rules) -> None:  # type: ignore[no-untyped-def]
    """MZ-W03/W03b: +4 against 11, one ally also +4 against 11 putting its grade on the best die."""
    odds = rules.odds("Aided Check", threshold=11, modifier=4, ally_modifier=4)
    ally = {g: Fraction(comb(3, g) * 4 ** g * 6 ** (3 - g), 1000) for g in range(4)}  # P(d10 + 4 >= 11) = 4/10
    expected: dict[int, Fraction] = {}
    for faces in product(range(1, 11), repeat=3):
        for g, p in ally.items():
            best = max(sum(f + 4 + (g if i == j else 0) >= 11 for j, f in enumerate(faces)) for i in range(3))
            expected[best] = expected.get(best, Fraction(0)) + p / 1000
    assert {int(k): v for k, v in odds.results["successes"].items() if v} == expected


# ---------------------------------------------------------------- golden cases: advancement (A8)

@pytest.mark.parametrize(("xp", "options", "level", "tier", "pool"), [
    (0, {}, 1, 1, 3), (49, {}, 1, 1, 3), (50, {}, 2, 1, 3), (249, {}, 5, 1, 3), (250, {}, 6, 2, 4),
    (200, {"tier_start_levels": "level_5"}, 5, 2, 4), (149, {"xp_per_level": "rising_50"}, 2, 1, 3),
    (150, {"xp_per_level": "rising_50"}, 3, 1, 3), (0, {"pool_base": "four"}, 1, 1, 4)])
def test_advancement_golden(rules, xp: int, options: dict, level: int, tier: int, pool: int) -> None:  # type: ignore[no-untyped-def,type-arg]
    run = rules.resolve("Advancement", xp=xp, options=options)
    assert (run.results["level"], run.results["tier"], run.results["pool"]) == (level, tier, pool)


# ---------------------------------------------------------------- golden cases: powers

@pytest.mark.parametrize(("dice", "options", "grade", "damage"), [
    ([6, 7, 9], {}, "High", 15),                                   # MZ-W04
    ([6, 5, 5], {}, "Low", 13),                                    # 12 exactly meets Defense 12
    ([1, 1, 1], {}, "Fail", 0),                                    # A5 default: no damage on a Fail
    ([1, 1, 1], {"ungraded_min_grade": "from_fail"}, "Fail", 12),  # A5 alternative: Weapon + 0
    ([10, 10, 10, 10], {}, "High", 16),                            # A7: [Grade] uncapped, 4
    ([10, 10, 10, 10], {"grade_cap": "capped_at_3"}, "High", 15),
])
def test_berserker_charge_golden(rules, dice: list[int], options: dict, grade: str, damage: int) -> None:  # type: ignore[no-untyped-def,type-arg]
    itzel = rules.entity(str(ITZEL))
    run = rules.run("Berserker Charge", as_=itzel, against=rules.entity(str(INQUISITOR)), pool=len(dice),
                    dice=dice, options=options)
    assert (str(run.results["grade"]), run.results["damage"]) == (grade, damage)
    assert run.state["actor"]["resources"]["CP"] == 2  # [Weapon + 1] = 4 CP of 6


def test_a_cost_above_the_cp_held_is_refused(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    poor = rules.entity(_file(tmp_path, "p.yaml", ITZEL.read_text(encoding="utf-8").replace("  CP: 6", "  CP: 3")))
    with pytest.raises(RunebookError) as error:
        rules.run("Berserker Charge", as_=poor, against=rules.entity(str(INQUISITOR)), dice=[6, 7, 9])
    assert _codes(error) == ["E0706"] and poor.resources["CP"] == 3  # nothing spent


def test_sleep_golden(rules) -> None:  # type: ignore[no-untyped-def]
    """MZ-W09: 9, 10, 9 + 3 against Will 12: High, 12 Quietus damage, Unconscious; CP 5 -> 2, Sg 1 -> 0.
    A Medium (9, 9, 1) does nothing but still pays."""
    xochitl, cultist = rules.entity(str(XOCHITL)), rules.entity(str(CULTIST))
    run = rules.run("Sleep", as_=xochitl, against=cultist, skills=3, dice=[9, 10, 9])
    assert (str(run.results["grade"]), run.results["damage"], str(run.results["damage_type"])) == ("High", 12, "Quietus")
    assert "Unconscious" in run.state["target"]["conditions"]
    assert (run.state["actor"]["resources"]["CP"], run.state["actor"]["resources"]["Sg"]) == (2, 0)
    other = rules.run("Sleep", as_=rules.entity(str(XOCHITL)), against=rules.entity(str(CULTIST)), skills=3, dice=[9, 9, 1])
    assert (str(other.results["grade"]), other.results["damage"], other.results["effect"]) == ("Medium", 0, "")


# ---------------------------------------------------------------- golden cases: damage, healing, health

W20 = "name: W\nstats:\n  Max HP: 20\nresources:\n  HP: 20\n"


@pytest.mark.parametrize(("inputs", "conditions", "options", "taken"), [
    ({"amount": 7, "weakened": 1}, [], {}, 4),                                      # A11 half up
    ({"amount": 7, "weakened": 1}, [], {"weakened_rounding": "half_down"}, 3),
    ({"amount": 7, "kind": "Cold"}, ["Vulnerable(2, Cold)"], {}, 9),
    ({"amount": 2, "kind": "Fire"}, ["Resistant(3, Fire)"], {}, 0),                # never below 0
    ({"amount": 5}, ["Insubstantial"], {}, 3),                                      # half, rounded up
    ({"amount": 8, "weakened": 1}, ["Insubstantial", "Vulnerable(2)"], {}, 3),      # 4 + 2 = 6, halved
    ({"amount": 8, "weakened": 1}, ["Insubstantial", "Vulnerable(2)"], {"damage_order": "halve_first"}, 4),
    ({"amount": 6, "kind": "Fire", "also": "Cold"}, ["Resistant(3, Fire)", "Resistant(1, Cold)"], {}, 5),
    ({"amount": 6, "kind": "Fire", "also": "Cold"}, ["Resistant(3, Fire)", "Resistant(1, Cold)"],
     {"multi_resist": "resist_sum"}, 2),
    ({"amount": 6, "kind": "Fire", "also": "Cold"}, ["Vulnerable(3, Fire)", "Vulnerable(1, Cold)"], {}, 9),
    ({"amount": 6, "kind": "Fire", "also": "Cold"}, ["Vulnerable(3, Fire)", "Vulnerable(1, Cold)"],
     {"multi_vuln": "vuln_sum"}, 10),
    ({"amount": 25}, [], {}, 25),
])
def test_take_damage_golden(rules, tmp_path: Path, inputs: dict, conditions: list[str], options: dict, taken: int) -> None:  # type: ignore[no-untyped-def,type-arg]
    extra = _conditions(conditions)
    run = rules.run("Take Damage", as_=rules.entity(_file(tmp_path, "w.yaml", W20 + extra)), options=options, **inputs)
    assert run.results["taken"] == taken and run.results["hp"] == max(0, 20 - taken)
    assert (run.results["status"] == "Dying") == (taken >= 20)


@pytest.mark.parametrize(("amount", "conditions", "healed"), [
    (2, ["Sickly(3)", "Boosted(1)"], 1), (5, ["Sickly(3)", "Boosted(1)"], 3), (50, ["Sickly(3)"], 15),
    (4, ["Boosted(2)"], 6), (0, [], 0)])
def test_heal_golden(rules, tmp_path: Path, amount: int, conditions: list[str], healed: int) -> None:  # type: ignore[no-untyped-def]
    text = "name: S\nstats:\n  Max HP: 20\nresources:\n  HP: 5\n"
    if conditions:
        text += "conditions: [" + ", ".join(conditions) + "]\n"
    run = rules.run("Heal", as_=rules.entity(_file(tmp_path, "s.yaml", text)), amount=amount)
    assert (run.results["healed"], run.results["hp"]) == (healed, 5 + healed)


@pytest.mark.parametrize("hp", range(0, 19))
def test_health_status_boundaries(rules, tmp_path: Path, hp: int) -> None:  # type: ignore[no-untyped-def]
    """§2.10 with Max HP 18, exact: Healthy 4 HP >= 54, Bloodied 2 HP <= 18, Maimed 4 HP <= 18."""
    expected = ("Dying" if hp == 0 else "Maimed" if 4 * hp <= 18 else "Bloodied" if 2 * hp <= 18
                else "Injured" if 4 * hp < 54 else "Healthy")
    run = rules.run("Take Damage", as_=rules.entity(_file(tmp_path, "h.yaml", f"name: H\nstats:\n  Max HP: 18\nresources:\n  HP: {hp}\n")), amount=0)
    assert run.results["status"] == expected


@pytest.mark.parametrize(("conditions", "cp"), [([], 6), (["Dazed"], 4), (["Hasted"], 7), (["Dominated", "Hasted"], 5)])
def test_reset_cp_golden(rules, tmp_path: Path, conditions: list[str], cp: int) -> None:  # type: ignore[no-untyped-def]
    text = "name: C\nresources:\n  CP: 1\n" + ("conditions: [" + ", ".join(conditions) + "]\n" if conditions else "")
    assert rules.run("Reset CP", as_=rules.entity(_file(tmp_path, "c.yaml", text))).results["cp"] == cp


@pytest.mark.parametrize(("conditions", "options", "reach"), [
    (["Hasted", "Faint"], {}, 4), (["Hasted", "Faint", "Entangled"], {}, 1),
    (["Hasted", "Faint", "Entangled"], {"slowed_override": "base"}, 2), (["Hasted", "Grabbed", "Prone"], {}, 0)])
def test_speed_with_conditions_on_the_same_stat(rules, tmp_path: Path, conditions: list[str], options: dict, reach: int) -> None:  # type: ignore[no-untyped-def,type-arg]
    """Speed 3: Hasted +2 and Faint -1 add; Slowed (Entangled) 1 after them, or 1 + them (base);
    Immobilized (Grabbed) 0, the lowest."""
    text = "name: M\nposition: [0, 0]\nstats:\n  Speed: 3\nconditions: [" + ", ".join(conditions) + "]\n"
    mover = rules.entity(_file(tmp_path, "m.yaml", text))
    assert rules.run("Move", as_=mover, q=reach, r=0, options=options).results["distance"] == reach
    with pytest.raises(RunebookError) as error:
        rules.run("Move", as_=rules.entity(_file(tmp_path, "m.yaml", text)), q=reach + 1, r=0, options=options)
    assert _codes(error) == ["E0613"]


# ---------------------------------------------------------------- golden cases: challenges (§2.8)

def test_challenge_odds_match_a_markov_enumeration(rules) -> None:  # type: ignore[no-untyped-def]
    """MZ-W06's challenge: 5 Breakthroughs before 4 Setbacks, +4 against 12 (a die passes on 8+),
    always Accept the Challenge: a Medium or better a Breakthrough, a Fail a Setback."""
    odds = rules.odds("Challenge", modifier=4, answers={"task": "accept_the_challenge", "other": "no_other_power"})
    p = Fraction(3, 10)
    grade = [comb(3, k) * p ** k * (1 - p) ** (3 - k) for k in range(4)]

    won = challenge_win(grade[2] + grade[3], grade[0])
    assert {str(k): v for k, v in odds.results["outcome"].items() if v} == {"won": won, "lost": 1 - won}


# ---------------------------------------------------------------- defect: several targets and upgrades

SONIC = """extends mestezia

Thunder Clap
Cost: 2 CP
Target: Enemy
Threshold: Target's Defense
Check: [Will]
Result: 5 Sound damage
Keywords: *Evocation Sound Attack*
"""


@pytest.mark.parametrize("tier", [1, 2])
def test_several_targets_take_the_upgrades_added_damage(tmp_path: Path, tier: int) -> None:
    """Clockwork Engineer: Sound damage goes up by [Tier+1] on each hit of one roll against several
    targets, as on one target (§2.5, L366). 9, 9, 2 + Will 3: 12, 12, 5 against Defense 12 and
    the thresholds 10 and 14: Medium, Medium, Fail."""
    (tmp_path / "sonic.rules").write_text(SONIC, encoding="utf-8")
    caster = _file(tmp_path, "c.yaml", "name: Tlaloc\nstats:\n  Will: 3\nresources:\n  CP: 5\n"
                   "powers: [Thunder Clap]\ntraits: [Clockwork Engineer]\n")
    sonic = interpreter.load(str(tmp_path))
    single = sonic.run("Thunder Clap", as_=sonic.entity(caster), against=sonic.entity(str(INQUISITOR)),
                       tier=tier, dice=[9, 9, 2])
    run = sonic.run("Use Power On Several", power="Thunder Clap", second=10, third=14, tier=tier,
                    as_=sonic.entity(caster), against=sonic.entity(str(INQUISITOR)), dice=[9, 9, 2])
    hit = 5 + tier + 1
    assert single.results["damage"] == hit
    assert [str(run.results[k]) for k in ("grade", "grade_2", "grade_3")] == ["Medium", "Medium", "Fail"]
    assert [run.results[k] for k in ("damage", "damage_2", "damage_3")] == [hit, hit, 0]
    assert run.state["actor"]["resources"]["CP"] == 3


def test_several_targets_follow_use_powers_timing_and_trigger(rules) -> None:  # type: ignore[no-untyped-def]
    """§1.6: an Attack only on its user's turn (Berserker Charge off-turn is refused, CP kept);
    §1.2: a triggered power needs its trigger (Bastion of Defense, not happened, is refused)."""
    itzel = rules.entity(str(ITZEL))
    with pytest.raises(RunebookError) as error:
        rules.run("Use Power On Several", power="Berserker Charge", second=14, on_turn=False, as_=itzel,
                  against=rules.entity(str(INQUISITOR)), dice=[6, 8, 10])
    assert _codes(error) == ["E0613"] and "usable_now" in error.value.diagnostics[0].message
    assert itzel.resources["CP"] == 6
    with pytest.raises(RunebookError) as trigger:
        rules.run("Use Power On Several", power="Bastion of Defense", second=10, skills=6, threshold=10,
                  as_=rules.entity(str(XOCHITL)), dice=[10, 4, 6], driver=_driver("not_happened"))
    assert _codes(trigger) == ["E0613"]
    fine = rules.run("Use Power On Several", power="Bastion of Defense", second=12, skills=6, threshold=10,
                     as_=rules.entity(str(XOCHITL)), dice=[10, 4, 6], driver=_driver("happened"))
    assert [str(fine.results[k]) for k in ("grade", "grade_2")] == ["High", "Medium"]


# ---------------------------------------------------------------- defect: Slippery halts holds

HOLDS = """extends mestezia

Iron Grip
Cost: 1 CP
Target: Enemy in 1
Threshold: Target's Defense
Check: [Attack + Strength]
Effect 1: The target is Grabbed.
Keywords: *Grapple*

Ember Touch
Cost: 1 CP
Target: Enemy in 1
Threshold: Target's Defense
Check: [Attack]
Effect 1: The target is Dazed.
Keywords: *Strike*
"""


@pytest.mark.parametrize(("conditions", "power", "face", "halted", "left"), [
    (["Grabbed", "Slippery"], "Iron Grip", 7, True, ["Slippery"]),       # 7 + 2 + 1 = 10: Low
    (["Grabbed"], "Iron Grip", 7, False, ["Grabbed"]),                   # 7 + 2 = 9: Fail
    (["Grabbed", "Slippery"], "Iron Grip", 6, False, ["Grabbed", "Slippery"]),  # 9: still held
    (["Grabbed", "Dazed", "Slippery"], "Ember Touch", 8, False, ["Grabbed", "Dazed", "Slippery"]),  # 8 + 1 = 9
])
def test_slippery_adds_one_to_halting_a_hold(tmp_path: Path, conditions: list[str], power: str, face: int,
                                             halted: bool, left: list[str]) -> None:
    """§2.11 Slippery: +1 to the checks that halt Restrained and Grabbed, not other effects.
    The halter has Aim 1 (its [Attack]) and Strength 1; the threshold is 10."""
    (tmp_path / "holds.rules").write_text(HOLDS, encoding="utf-8")
    holds = interpreter.load(str(tmp_path))
    halter = _file(tmp_path, "h.yaml", "name: H\nstats:\n  Aim: 1\n  Strength: 1\n" + _conditions(conditions))
    run = holds.run("Halt Effect", power=power, threshold=10, as_=holds.entity(halter), dice=[face, 1, 1])
    assert run.results["halted"] is halted
    assert sorted(run.state["actor"]["conditions"]) == sorted(left)


# ---------------------------------------------------------------- defect: pool_base sets the pools

@pytest.mark.parametrize(("option", "pool"), [("three", 3), ("four", 4)])
def test_pool_base_is_the_default_pool_of_every_roll(rules, option: str, pool: int) -> None:  # type: ignore[no-untyped-def]
    """A8/A23: the pool at Tier 1 is three dice, or four with pool_base = four; the skill check and
    a power's check roll it when no pool is given (too few faces would be E0501)."""
    faces = [9] * pool
    check = rules.resolve("Skill Check", threshold=9, dice=faces, options={"pool_base": option})
    assert check.results["successes"] == pool
    run = rules.run("Berserker Charge", as_=rules.entity(str(ITZEL)), against=rules.entity(str(INQUISITOR)),
                    dice=faces, options={"pool_base": option})
    assert run.results["damage"] == 12 + pool  # [Weapon + Grade], the grade uncapped (A7)
    odds = rules.odds("Skill Check", threshold=9, options={"pool_base": option})
    assert max(int(k) for k, v in odds.results["successes"].items() if v) == pool


# ---------------------------------------------------------------- golden cases: start phase, aid, turn order

@pytest.mark.parametrize(("conditions", "ongoing"), [
    (["Ongoing Damage(2, Fire)", "Ongoing Damage(3, Fire)", "Ongoing Damage(2, Cold)"], 5),  # same type: the larger
    (["Ongoing Damage(2, Fire)", "Ongoing Damage(3, Fire)", "Ongoing Damage(2, Cold)", "Insubstantial"], 3),  # 2 + 1
    (["Ongoing Damage(4, Fire)", "Resistant(3, Fire)"], 1)])
def test_start_phase_golden(rules, tmp_path: Path, conditions: list[str], ongoing: int) -> None:  # type: ignore[no-untyped-def]
    run = rules.run("Start Phase", as_=rules.entity(_file(tmp_path, "b.yaml", "name: B\nstats:\n  Max HP: 30\n" + _conditions(conditions))))
    assert (run.results["ongoing"], run.results["hp"]) == (ongoing, 30 - ongoing)


def test_aided_check_golden(rules) -> None:  # type: ignore[no-untyped-def]
    """MZ-W03/W03b: 4, 5, 10 + 4 against 11 is a Low; the ally's 8, 7, 10 + 4 (12, 11, 14) a High,
    whose +3 on one failing die makes a Medium."""
    run = rules.run("Aided Check", threshold=11, modifier=4, ally_modifier=4, dice=[4, 5, 10, 8, 7, 10])
    assert (run.results["unaided"], run.results["aid"], run.results["lifted"], str(run.results["grade"])) == (1, 3, 1, "Medium")
    with pytest.raises(RunebookError) as error:
        rules.run("Aided Check", threshold=11, modifier=4, power_check=True, dice=[4, 5, 10, 8, 7, 10])
    assert _codes(error) == ["E0613"]


@pytest.mark.parametrize(("inputs", "dice", "segment", "bonus"), [
    ({"initiative": 3}, [9], 10, 2), ({"initiative": 0}, [10], 10, 0), ({"initiative": -3}, [2], 1, 0),
    ({"initiative": 3, "combat": False}, [9], 9, 0), ({"segment": 7}, None, 7, 0)])
def test_turn_order_golden(rules, inputs: dict, dice, segment: int, bonus: int) -> None:  # type: ignore[no-untyped-def,type-arg]
    run = rules.run("Turn Order", dice=dice, **inputs)
    assert (run.results["segment"], run.results["bonus_cp"]) == (segment, bonus)


# ---------------------------------------------------------------- defect: conditions on terrain checks

@pytest.mark.parametrize(("conditions", "options", "grade"), [
    ([], {}, "Low"),                                                  # 7 + Will 3 = 10 against 10
    (["Distracted"], {}, "Fail"),                                     # -1 to Will
    (["Unlucky"], {}, "Fail"),                                        # -1 to every check
    (["Lucky", "Distracted"], {}, "Low"),
    (["Distracted", "Unlucky"], {"power_conditions": "shown_only"}, "Low"),
])
def test_eerie_will_check_takes_the_creatures_conditions(rules, tmp_path: Path, conditions: list[str], options: dict,  # type: ignore[no-untyped-def,type-arg]
                                                        grade: str) -> None:
    """§2.12 Eerie: a Will defense check on entering; §2.11: Distracted -1 to Will, Lucky and
    Unlucky +-1 to all checks. `will` comes from the file's Will (3)."""
    walker = rules.entity(_file(tmp_path, "e.yaml", "name: E\nstats:\n  Will: 3\n" + _conditions(conditions)))
    run = rules.run("Enter Eerie", as_=walker, N=2, threshold=10, dice=[7, 1, 1], options=options,
                    driver=_driver("move_to_edge"))
    assert str(run.results["grade"]) == grade and run.results["failed"] is (grade == "Fail")


@pytest.mark.parametrize("procedure", ["Enter Entangling", "Move On Slippery"])
def test_unlucky_counts_on_the_terrain_checks(rules, tmp_path: Path, procedure: str) -> None:  # type: ignore[no-untyped-def]
    """Entangling and Slippery N (A16, N the threshold): 8 + 2 = 10 against 10 passes; Unlucky
    makes it 9, a Fail (Entangled, or Prone)."""
    inputs = {"threshold": 10} if procedure == "Enter Entangling" else {"N": 10}
    plain = rules.run(procedure, as_=rules.entity(_file(tmp_path, "p.yaml", "name: P\n")), modifier=2, dice=[8, 1, 1], **inputs)
    unlucky = rules.run(procedure, as_=rules.entity(_file(tmp_path, "u.yaml", "name: U\n" + _conditions(["Unlucky"]))),
                        modifier=2, dice=[8, 1, 1], **inputs)
    assert (str(plain.results["grade"]), str(unlucky.results["grade"])) == ("Low", "Fail")
    gained = "Entangled" if procedure == "Enter Entangling" else "Prone"
    assert gained not in plain.state["actor"]["conditions"] and gained in unlucky.state["actor"]["conditions"]


# ---------------------------------------------------------------- defect: Invest longer than a round

LONG_FUSE = """extends mestezia

Long Fuse
Cost: 1 CP
Target: Enemy
Threshold: Target's Defense
Check: [Attack]
Invest: {invest}
Result 1: 4 Fire damage
Keywords: *Alchemy Fire Attack*
"""


@pytest.mark.parametrize(("segment", "invest"), [(5, 15), (2, 3), (3, 3), (10, 10), (1, 20), (7, 2)])
def test_invest_shows_when_it_resolves(tmp_path: Path, segment: int, invest: int) -> None:
    """§2.7 [I]: segments count down from 10; a result invested N segments at segment s of round 1
    lands N segments later: counting every segment of the rounds in between."""
    (tmp_path / "fuse.rules").write_text(LONG_FUSE.format(invest=invest), encoding="utf-8")
    fuse = interpreter.load(str(tmp_path))
    user = _file(tmp_path, "f.yaml", "name: F\nstats:\n  Attack: 3\nresources:\n  CP: 6\npowers: [Long Fuse]\n")
    run = fuse.run("Long Fuse", as_=fuse.entity(user), against=fuse.entity(str(GUARD)), segment=segment, dice=[9, 9, 9])
    # Walk the segments one by one: 10, 9, ..., 1, then the next round's 10.
    rnd, seg = 1, segment
    for _ in range(invest):
        rnd, seg = (rnd + 1, 10) if seg == 1 else (rnd, seg - 1)
    assert (run.state["resolves_round"], run.state["resolves_segment"]) == (rnd, seg)
