"""Mestezia rules the ruleset did not play before (audit of spec mestezia.md against the README):

- §2.11: a Stunned or Unconscious creature (a Dying one is Unconscious) uses no powers, and a
  Dazed or Slowed one (Prone and Entangled imply Slowed) takes no Reactions: Use Power and Use
  Power On Several refuse them (E0613), changing nothing.
- §1.7 Summonings and the book's Clockwork Engineer (L366): a summoner commands its summon and
  pays the cost from its own CP; a summoned Construct attacks with the upgrade's +1
  (`procedure Command Summon`).
- §2.9 Defending (L522-528, MZ-W10, MZ-W11): an NPC's attack is a Defense check the player
  rolls; the attack's Result lines say what it does at each grade of the defense; an Evasion
  replaces the check and its resistance comes off the harm (`procedure Defend`).

Every expected number is worked out by hand from the rule in the comment beside it; the odds
are compared with an enumeration of the 1,000 rolls of three d10.
"""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.rulesets import RULESETS_DIR

MESTEZIA = RULESETS_DIR / "mestezia"
EXAMPLES = MESTEZIA / "examples"
HOMEBREW = MESTEZIA / "homebrew"
DEFENDING = HOMEBREW / "defending"
ITZEL, INQUISITOR = EXAMPLES / "itzel.yaml", EXAMPLES / "inquisitor.yaml"
XOCHITL = EXAMPLES / "xochitl.yaml"
GUARD = EXAMPLES / "skirmish" / "guard.yaml"
COG, TINKER = HOMEBREW / "cog.yaml", HOMEBREW / "tinker.yaml"
MENDER, WOUNDED = HOMEBREW / "mender.yaml", HOMEBREW / "wounded.yaml"
RAGWEED, MUSHROOM = DEFENDING / "ragweed.yaml", DEFENDING / "mushroom.yaml"


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("mestezia")


@pytest.fixture(scope="module")
def homebrew():  # type: ignore[no-untyped-def]
    return interpreter.load(str(HOMEBREW))


@pytest.fixture(scope="module")
def defending():  # type: ignore[no-untyped-def]
    return interpreter.load(str(DEFENDING))


def _with(tmp_path: Path, source: Path, extra: str, name: str = "x.yaml") -> str:
    """A copy of a character file with lines added (conditions, resources ...)."""
    path = tmp_path / name
    path.write_text(source.read_text(encoding="utf-8") + extra, encoding="utf-8")
    return str(path)


def _answers(*answers: str):  # type: ignore[no-untyped-def]
    from runebook.interpreter.rules.procedures import ScriptedDriver

    return ScriptedDriver(list(answers))


def _codes(error: pytest.ExceptionInfo[RunebookError]) -> list[str]:
    return [d.code for d in error.value.diagnostics]


# ---------------------------------------------------------------- §2.11: no powers, no reactions


@pytest.mark.parametrize("condition", ["Stunned", "Unconscious", "Dying"])
def test_a_stunned_or_unconscious_creature_uses_no_powers(rules, tmp_path: Path, condition: str) -> None:  # type: ignore[no-untyped-def]
    """Stunned: "can't ... use powers"; Unconscious: "can't use powers"; Dying: "You're
    Unconscious". Itzel's Berserker Charge is refused and her 6 CP stay."""
    itzel = rules.entity(_with(tmp_path, ITZEL, f"conditions: [{condition}]\n"))
    with pytest.raises(RunebookError) as error:
        rules.run("Berserker Charge", as_=itzel, against=rules.entity(str(INQUISITOR)), dice=[6, 7, 9])
    assert _codes(error) == ["E0613"] and "can_use_powers(actor)" in error.value.diagnostics[0].message
    assert itzel.resources["CP"] == 6
    with pytest.raises(RunebookError) as several:
        rules.run("Use Power On Several", power="Berserker Charge", second=14, as_=itzel,
                  against=rules.entity(str(INQUISITOR)), dice=[6, 8, 10])
    assert _codes(several) == ["E0613"]


@pytest.mark.parametrize("condition", ["Dazed", "Slowed", "Prone", "Entangled"])
def test_a_dazed_or_slowed_creature_takes_no_reactions(rules, tmp_path: Path, condition: str) -> None:  # type: ignore[no-untyped-def]
    """Dazed and Slowed: "can't take/use Reactions"; Prone and Entangled are Slowed. Bastion
    of Defense (an Evasion, a Reaction) is refused; Xochitl's 5 CP stay."""
    xochitl = rules.entity(_with(tmp_path, XOCHITL, f"conditions: [{condition}]\n"))
    with pytest.raises(RunebookError) as error:
        rules.run("Bastion of Defense", as_=xochitl, dice=[10, 4, 6], skills=6, threshold=10, incoming=1,
                  driver=_answers("happened"))
    assert _codes(error) == ["E0613"] and "can_react(actor)" in error.value.diagnostics[0].message
    assert xochitl.resources["CP"] == 5


def test_a_dazed_creature_still_attacks(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Dazed forbids Reactions only: the charge (6, 7, 9 + 6 against 12) is still High, 12 + 3."""
    itzel = rules.entity(_with(tmp_path, ITZEL, "conditions: [Dazed]\n"))
    run = rules.run("Berserker Charge", as_=itzel, against=rules.entity(str(INQUISITOR)), dice=[6, 7, 9])
    assert str(run.results["grade"]) == "High" and run.results["damage"] == 15


SECOND_WIND = """extends mestezia

Second Wind
Cost: 1 CP
Target: You
Threshold: 5
Check: [Will]
Result 1: You regain 4 HP.
Keywords: *Heal Recovery*
"""


def test_a_dying_creature_cannot_heal_itself_but_an_allys_heal_ends_dying(homebrew, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Dying is Unconscious, so its own Second Wind is refused (this case used to heal; the
    book forbids it). The mender's Mending Touch on a Dying scout (5, 1, 1 + Will 3 against
    8: one success, Low) heals the scout's Jolt, 20 / 4 + Sturdiness 2 = 7, from 0 HP, and
    being Healed ends Dying (§2.10)."""
    (tmp_path / "wind.rules").write_text(SECOND_WIND, encoding="utf-8")
    (tmp_path / "h.yaml").write_text("name: H\npowers: [Second Wind]\nstats:\n  Will: 2\n  Max HP: 10\n"
                                     "resources:\n  HP: 0\nconditions: [Dying]\n", encoding="utf-8")
    wind = interpreter.load(str(tmp_path))
    with pytest.raises(RunebookError) as error:
        wind.run("Second Wind", as_=wind.entity(str(tmp_path / "h.yaml")), dice=[5, 1, 1])
    assert _codes(error) == ["E0613"]
    dying = tmp_path / "dying.yaml"
    dying.write_text(WOUNDED.read_text(encoding="utf-8").replace("  HP: 4\n", "  HP: 0\n") + "conditions: [Dying]\n",
                     encoding="utf-8")
    run = homebrew.run("Mending Touch", as_=homebrew.entity(str(MENDER)), against=homebrew.entity(str(dying)), dice=[5, 1, 1])
    assert run.results["healed"] == 7
    assert run.state["target"]["resources"]["HP"] == 7 and "Dying" not in run.state["target"]["conditions"]


# ---------------------------------------------------------------- summons and Clockwork Engineer


def _command(homebrew, *, cog: str = str(COG), tinker: str = str(TINKER), dice=(8, 9, 2), **inputs):  # type: ignore[no-untyped-def]
    return homebrew.run("Command Summon", as_=[homebrew.entity(cog), homebrew.entity(tinker)],
                        against=homebrew.entity(str(GUARD)), dice=list(dice), power="Piston Strike", **inputs)


def test_a_construct_attacks_with_its_engineers_plus_one(homebrew) -> None:  # type: ignore[no-untyped-def]
    """Clockwork Engineer: the Brass Cog (Attack 3, a Construct) strikes the guard (Defense 12)
    with +1: 8, 9, 2 + 4 are 12, 13, 6, two successes, Medium; Piston Strike's [Grade + 3] is
    5 Bludgeoning damage (the guard resists only Piercing), 24 HP -> 19. Its summoner pays the
    2 CP from her own 6; the cog's points are untouched."""
    run = _command(homebrew, upgrade="Clockwork Engineer")
    assert str(run.results["grade"]) == "Medium"
    assert run.results["damage"] == 5 and run.results["target_taken"] == 5
    assert str(run.results["damage_type"]) == "Bludgeoning"
    assert run.results["summoner_cp"] == 6 - 2
    assert run.shown["construct_bonus"] == 1
    assert run.state["actors"][1]["resources"]["CP"] == 4
    assert run.state["actor"]["resources"]["CP"] == 6  # its file gives none: the start, unspent
    assert run.state["target"]["resources"]["HP"] == 24 - 5


def test_without_the_upgrade_the_construct_has_no_bonus(homebrew) -> None:  # type: ignore[no-untyped-def]
    """8, 9, 2 + 3 are 11, 12, 5: one success, Low, 1 + 3 = 4 damage."""
    run = _command(homebrew)
    assert str(run.results["grade"]) == "Low" and run.results["damage"] == 4
    assert run.shown["construct_bonus"] == 0 and run.results["summoner_cp"] == 4


def test_the_bonus_is_for_constructs_and_not_the_engineers_tier(homebrew, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The [Tier+1] of the same Add line is the engineer's own Sound or Electricity damage: a
    Tier 2 engineer's construct still gets +1 (Medium, 5). A summon that is no Construct gets
    nothing (Low, 4)."""
    assert _command(homebrew, upgrade="Clockwork Engineer", tier=2).results["damage"] == 5
    plain = tmp_path / "plain.yaml"
    plain.write_text(COG.read_text(encoding="utf-8").replace("creature keywords: [Construct]\n", ""), encoding="utf-8")
    run = _command(homebrew, cog=str(plain), upgrade="Clockwork Engineer")
    assert run.shown["construct_bonus"] == 0 and str(run.results["grade"]) == "Low"


ARTIFICER = """extends mestezia

Gear Jab
Cost: 1 CP
Target: Enemy
Threshold: Target's Defense
Check: [Attack]
Result: [Grade] damage
Keywords: *Techno Melee Strike*

Oil Up
Target: You
Threshold: 6
Check: [Attack]
Effect 1: You are Protected 1.
Keywords: *Techno Buf Utility*

Master Artificer
To: Gear Jab
Add: Creatures under your control that carry the Construct keyword get +2 to their Attacks.
Keywords: *Techno Upgrade*
"""


def test_the_bonus_is_read_from_the_upgrade_and_only_on_attacks(tmp_path: Path) -> None:
    """A homebrew upgrade saying +2 gives +2 (2, 1, 1 + 3 + 2 against Defense 7: 7, 6, 6, one
    success); a Utility of the construct gets no bonus (Oil Up: 2, 1, 1 + 3 against 6 fails)."""
    (tmp_path / "art.rules").write_text(ARTIFICER, encoding="utf-8")
    (tmp_path / "cog.yaml").write_text("name: Cog\nsummoner: Ana\ncreature keywords: [Construct]\nstats:\n  Attack: 3\n"
                                       "powers: [Gear Jab, Oil Up]\n", encoding="utf-8")
    (tmp_path / "ana.yaml").write_text("name: Ana\nresources:\n  CP: 3\ntraits: [Master Artificer]\n", encoding="utf-8")
    (tmp_path / "foe.yaml").write_text("name: Foe\nstats:\n  Defense: 7\n", encoding="utf-8")
    game = interpreter.load(str(tmp_path))
    party = [game.entity(str(tmp_path / "cog.yaml")), game.entity(str(tmp_path / "ana.yaml"))]
    jab = game.run("Command Summon", as_=party, against=game.entity(str(tmp_path / "foe.yaml")), dice=[2, 1, 1],
                   power="Gear Jab", upgrade="Master Artificer")
    assert jab.shown["construct_bonus"] == 2 and str(jab.results["grade"]) == "Low" and jab.results["summoner_cp"] == 2
    oil = game.run("Command Summon", as_=party, dice=[2, 1, 1], power="Oil Up", upgrade="Master Artificer")
    assert oil.shown["construct_bonus"] == 0 and str(oil.results["grade"]) == "Fail"


@pytest.mark.parametrize(("change", "needs"), [
    ({"cog_summoner": "Someone Else"}, 'data_of(actor, "summoner") == summoner\'s name'),
    ({"line_of_effect": False}, "line_of_effect"),
    ({"no_upgrade": True}, "owns(summoner, upgrade)"),
    ({"alone": True}, "count(actors) == 2")])
def test_commanding_is_refused_and_changes_nothing(homebrew, tmp_path: Path, change: dict, needs: str) -> None:  # type: ignore[no-untyped-def]
    """Only its own summoner commands a summon, only with a line of effect (§2.14), an upgrade
    counts only if the summoner owns it, and the summoner is the second `--as`."""
    cog, tinker = str(COG), str(TINKER)
    if "cog_summoner" in change:
        cog = str(tmp_path / "cog.yaml")
        Path(cog).write_text(COG.read_text(encoding="utf-8").replace("summoner: Tlaloc", "summoner: Someone Else"), encoding="utf-8")
    if "no_upgrade" in change:
        tinker = str(tmp_path / "tinker.yaml")
        Path(tinker).write_text(TINKER.read_text(encoding="utf-8").replace("traits: [Clockwork Engineer]\n", ""), encoding="utf-8")
    summoner = homebrew.entity(tinker)
    actors = [homebrew.entity(cog)] + ([] if "alone" in change else [summoner])
    with pytest.raises(RunebookError) as error:
        homebrew.run("Command Summon", as_=actors, against=homebrew.entity(str(GUARD)), dice=[8, 9, 2],
                     power="Piston Strike", upgrade="Clockwork Engineer",
                     line_of_effect=change.get("line_of_effect", True))
    assert _codes(error) == ["E0613"] and needs in error.value.diagnostics[0].message
    assert summoner.resources["CP"] == 6


def test_command_summon_odds_match_an_enumeration(homebrew) -> None:  # type: ignore[no-untyped-def]
    """Each die + 3 + 1 against 12 (a 8 or better); damage Grade + 3 from a Low, all of it
    taken by the guard (no Bludgeoning resistance)."""
    odds = homebrew.odds("Command Summon", as_=[homebrew.entity(str(COG)), homebrew.entity(str(TINKER))],
                         against=homebrew.entity(str(GUARD)), power="Piston Strike", upgrade="Clockwork Engineer")
    expected: dict[int, Fraction] = {}
    for faces in product(range(1, 11), repeat=3):
        hits = sum(f + 3 + 1 >= 12 for f in faces)
        dealt = hits + 3 if hits else 0
        expected[dealt] = expected.get(dealt, Fraction(0)) + Fraction(1, 1000)
    assert dict(odds.results["damage"]) == expected
    assert dict(odds.results["target_taken"]) == expected
    assert odds.residual == 0


def test_the_powers_own_command_is_still_use_power(homebrew) -> None:  # type: ignore[no-untyped-def]
    """`runebook run homebrew "Piston Strike"` runs Use Power (declared first): the cog pays
    its own 2 CP and rolls without any bonus (Low, 4)."""
    run = homebrew.run("Piston Strike", as_=homebrew.entity(str(COG)), against=homebrew.entity(str(GUARD)), dice=[8, 9, 2])
    assert run.results["damage"] == 4 and run.state["actor"]["resources"]["CP"] == 6 - 2


def test_command_summon_from_the_command_line(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", str(HOMEBREW), "command summon", "--as", str(COG), "--as", str(TINKER), "--against", str(GUARD),
              "--with", "power=Piston Strike", "--with", "upgrade=Clockwork Engineer", "--dice", "8,9,2", "--json")
    assert run.code == 0, run.stderr
    payload = json.loads(run.stdout)
    assert payload["results"]["damage"] == 5 and payload["shown"]["construct_bonus"] == 1


# ---------------------------------------------------------------- defending (§2.9)


def _defend(defending, *, defender: str = str(RAGWEED), attacker: str = str(MUSHROOM), dice=(10, 4, 6), **inputs):  # type: ignore[no-untyped-def]
    return defending.run("Defend", as_=defending.entity(defender), against=defending.entity(attacker), dice=list(dice),
                         attack="Spore Burst", **inputs)


def test_w10_the_spores_against_a_high_defense(defending) -> None:  # type: ignore[no-untyped-def]
    """MZ-W10: Defense + Health (+6) against 10; 10, 4, 6 are 16, 10, 12: High, and the spores
    still do 1 damage (untyped): Ragweed's 16 HP -> 15."""
    run = _defend(defending)
    assert str(run.results["grade"]) == "High"
    assert run.results["harm"] == 1 and run.results["taken"] == 1 and run.results["hp"] == 15
    assert str(run.results["damage_type"]) == "untyped"


def test_w11_bastion_of_defense_replaces_the_check_and_resists(defending) -> None:  # type: ignore[no-untyped-def]
    """MZ-W11: the Evasion, for 1 CP, rolls in place of the defense check (the same +6 against
    10: High); the spores' High row is 1 damage, its resist 2 leaves 0. CP 6 -> 5, HP 16."""
    run = _defend(defending, evade="Bastion of Defense", driver=_answers("happened"))
    assert str(run.results["grade"]) == "High"
    assert (run.results["harm"], run.results["resisted"], run.results["taken"]) == (1, 2, 0)
    assert run.state["actor"]["resources"]["CP"] == 5 and run.state["actor"]["resources"]["HP"] == 16


@pytest.mark.parametrize(("dice", "grade", "harm"), [
    ((1, 1, 1), "Fail", 4),    # 7, 7, 7 against 10
    ((4, 1, 1), "Low", 3),     # 10, 7, 7
    ((4, 4, 1), "Medium", 2),  # 10, 10, 7
    ((4, 4, 4), "High", 1)])
def test_the_attacks_rows_by_the_grade_of_the_defense(defending, dice, grade: str, harm: int) -> None:  # type: ignore[no-untyped-def]
    run = _defend(defending, dice=dice)
    assert str(run.results["grade"]) == grade and run.results["harm"] == harm and run.results["hp"] == 16 - harm


def test_an_evasion_below_its_grade_resists_nothing(defending) -> None:  # type: ignore[no-untyped-def]
    """Bastion of Defense resists only on a High (Result 3): at Medium (10, 10, 7) the spores'
    Medium row, 2, is all taken; the CP is spent all the same."""
    run = _defend(defending, dice=(4, 4, 1), evade="Bastion of Defense", driver=_answers("happened"))
    assert str(run.results["grade"]) == "Medium" and run.results["resisted"] == 0 and run.results["taken"] == 2
    assert run.state["actor"]["resources"]["CP"] == 5


@pytest.mark.parametrize(("mine", "theirs", "dice", "grade", "taken"), [
    # Protected 2: +2 on each die: 2, 2, 1 + 8 are 10, 10, 9: Medium, 2 (without it: Fail, 4).
    (["Protected(2)"], [], (2, 2, 1), "Medium", 2),
    ([], [], (2, 2, 1), "Fail", 4),
    # The mushroom with Advantage raises the threshold to 11: 4, 5, 6 + 6 are 10, 11, 12: Medium.
    ([], ["Advantage"], (4, 5, 6), "Medium", 2),
    ([], [], (4, 5, 6), "High", 1),
    # Unconscious: -5 Defense, and it grants Advantage (+1 to the attacker): 10s + 1 against 11.
    (["Unconscious"], [], (10, 10, 10), "High", 1),
    (["Unconscious"], [], (9, 9, 9), "Fail", 4),
    # A Weakened attacker deals half, rounded up: Fail 4 -> 2; an untyped Resistant 1: 4 -> 3.
    ([], ["Weakened"], (1, 1, 1), "Fail", 2),
    (["Resistant(1)"], [], (1, 1, 1), "Fail", 3)])
def test_conditions_on_both_sides(defending, tmp_path: Path, mine, theirs, dice, grade: str, taken: int) -> None:  # type: ignore[no-untyped-def]
    defender = _with(tmp_path, RAGWEED, f"conditions: {json.dumps(mine)}\n", "d.yaml") if mine else str(RAGWEED)
    attacker = _with(tmp_path, MUSHROOM, f"conditions: {json.dumps(theirs)}\n", "a.yaml") if theirs else str(MUSHROOM)
    run = _defend(defending, defender=defender, attacker=attacker, dice=dice)
    assert str(run.results["grade"]) == grade and run.results["taken"] == taken


def test_the_last_hp_leaves_the_defender_dying(defending, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    hurt = tmp_path / "hurt.yaml"
    hurt.write_text(RAGWEED.read_text(encoding="utf-8").replace("  CP: 6\n", "  CP: 6\n  HP: 2\n"), encoding="utf-8")
    run = _defend(defending, defender=str(hurt), dice=(1, 1, 1))
    assert run.results["hp"] == 0 and "Dying" in run.state["actor"]["conditions"]


@pytest.mark.parametrize(("change", "needs"), [
    ("attack not owned", "owns(target, attack)"),
    ("evade not owned", "owns(actor, evade)"),
    ("evade no evasion", "replaces == evasion or replaces == hide"),
    ("dazed", "can_react(actor)")])
def test_defending_refusals(defending, tmp_path: Path, change: str, needs: str) -> None:  # type: ignore[no-untyped-def]
    """The attack must be the NPC's; an Evasion or Hide (a Reaction) of the defender's may
    replace the check, not another power, and not while Dazed. Nothing changes."""
    defender, attacker, evade = str(RAGWEED), str(MUSHROOM), "Bastion of Defense"
    if change == "attack not owned":
        attacker = str(tmp_path / "m.yaml")
        Path(attacker).write_text("name: Stone\nstats:\n  Defense: 9\n", encoding="utf-8")
    if change == "evade not owned":
        defender = str(tmp_path / "r.yaml")
        Path(defender).write_text(RAGWEED.read_text(encoding="utf-8").replace("powers: [Bastion of Defense]\n", ""),
                                  encoding="utf-8")
    if change == "evade no evasion":
        defender = str(tmp_path / "r.yaml")
        Path(defender).write_text(RAGWEED.read_text(encoding="utf-8").replace("[Bastion of Defense]", "[Bastion of Defense, Sleep]"),
                                  encoding="utf-8")
        evade = "Sleep"
    if change == "dazed":
        defender = _with(tmp_path, RAGWEED, "conditions: [Dazed]\n")
    entity = defending.entity(defender)
    with pytest.raises(RunebookError) as error:
        defending.run("Defend", as_=entity, against=defending.entity(attacker), dice=[10, 4, 6],
                      attack="Spore Burst", evade=evade, driver=_answers("happened"))
    assert _codes(error) == ["E0613"] and needs in error.value.diagnostics[0].message
    assert entity.resources["CP"] == 6 and entity.resources["HP"] == 16


def test_defend_odds_match_an_enumeration(defending) -> None:  # type: ignore[no-untyped-def]
    """+6 against 10 (a 4 or better per die); harm 4, 3, 2, 1 by the grade."""
    odds = defending.odds("Defend", as_=defending.entity(str(RAGWEED)), against=defending.entity(str(MUSHROOM)),
                          attack="Spore Burst")
    expected: dict[int, Fraction] = {}
    for faces in product(range(1, 11), repeat=3):
        harm = [4, 3, 2, 1][sum(f + 6 >= 10 for f in faces)]
        expected[harm] = expected.get(harm, Fraction(0)) + Fraction(1, 1000)
    assert dict(odds.results["taken"]) == expected
    assert odds.residual == 0


def test_defend_from_the_command_line(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", str(DEFENDING), "defend", "--as", str(RAGWEED), "--against", str(MUSHROOM),
              "--with", "attack=Spore Burst", "--dice", "10,4,6")
    assert run.code == 0, run.stderr
    assert "grade: High" in run.stdout and "taken: 1" in run.stdout and "hp: 15" in run.stdout


# ---------------------------------------------------------------- a move's CP, after the encounter


def _state_file(tmp_path: Path, name: str, state: dict, extra: str = "") -> str:
    """A character file holding what a run left (its stats, points and conditions)."""
    import yaml

    data = {"name": state["name"], "stats": state["stats"], "resources": state["resources"],
            "conditions": state["conditions"]}
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data) + extra, encoding="utf-8")
    return str(path)


MOVER = """name: Xochitl
position: [0, 0]
stats:
  Will: 3
  Defense: 4
  Health: 2
  Speed: 3
resources:
  CP: 0
  Sg: 1
powers: [Sleep]
"""


def test_w09_the_sleep_turn_from_the_reset(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """MZ-W09 from the start of the turn: the reset gives 6 CP; "one CP to move" (A4 default)
    leaves 5; Sleep's 3 CP and a surge leave 2 CP and no surge, and a High against the
    cultist's Will 12 (9, 10, 9 + 3) deals 12 Quietus damage and puts him to sleep."""
    (tmp_path / "xochitl.yaml").write_text(MOVER, encoding="utf-8")
    reset = rules.run("Reset CP", as_=rules.entity(str(tmp_path / "xochitl.yaml")))
    assert reset.results["cp"] == 6
    powers = "powers: [Sleep]\nposition: [0, 0]\n"
    moved = rules.run("Combat Move", as_=rules.entity(_state_file(tmp_path, "reset.yaml", reset.state["actor"], powers)),
                      path=[1, 0])
    assert moved.results["spent"] == 1 and moved.results["cp"] == 5
    slept = rules.run("Sleep", as_=rules.entity(_state_file(tmp_path, "moved.yaml", moved.state["actor"], powers)),
                      against=rules.entity(str(EXAMPLES / "cultist.yaml")), skills=3, dice=[9, 10, 9])
    assert slept.state["actor"]["resources"]["CP"] == 2 and slept.state["actor"]["resources"]["Sg"] == 0
    assert slept.results["damage"] == 12 and "Unconscious" in slept.state["target"]["conditions"]


@pytest.mark.parametrize(("setting", "cp"), [("one_cp", 6 - 1), ("free", 6)])
def test_the_move_cost_option(rules, tmp_path: Path, setting: str, cp: int) -> None:  # type: ignore[no-untyped-def]
    """A4: a move costs 1 CP by default, nothing with move_cost=free; 3 hexes with Speed 3."""
    mover = _with(tmp_path, EXAMPLES / "skirmish" / "raider.yaml", "")
    run = rules.run("Combat Move", as_=rules.entity(mover), path=[0, 1, 0, 2, 0, 3], options={"move_cost": setting})
    assert run.results["spent"] == 3 and run.results["cp"] == cp


def test_a_move_without_cp_or_beyond_speed_is_refused(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "x.yaml").write_text(MOVER, encoding="utf-8")
    broke = rules.entity(str(tmp_path / "x.yaml"))
    with pytest.raises(RunebookError) as error:
        rules.run("Combat Move", as_=broke, path=[1, 0])
    assert _codes(error) == ["E0706"] and broke.resources["CP"] == 0
    raider = rules.entity(str(EXAMPLES / "skirmish" / "raider.yaml"))
    with pytest.raises(RunebookError) as far:  # 4 hexes with Speed 3
        rules.run("Combat Move", as_=raider, path=[0, 1, 0, 2, 0, 3, 0, 4])
    assert _codes(far) == ["E0613"] and raider.resources["CP"] == 6


@pytest.mark.parametrize(("setting", "level", "tier", "pool", "new"), [
    ("flat_50", 6, 2, 4, True),    # 240 + 20 = 260 XP: 1 + 260 // 50 = 6 (was 5): Tier 2, 4 dice
    ("rising_50", 3, 1, 3, False)])  # the rising scale: 150 to 299 XP is level 3, before and after
def test_after_the_encounter(rules, tmp_path: Path, setting: str, level: int, tier: int, pool: int, new: bool) -> None:  # type: ignore[no-untyped-def]
    """§2.7 step 4: the unspent CP are lost (4 -> 0); the GM's 1 FP joins the 1 held; the
    20 XP awarded join the file's 240."""
    hero = _with(tmp_path, EXAMPLES / "nayeli.yaml", "xp: 240\n")
    text = Path(hero).read_text(encoding="utf-8").replace("  FP: 2\n  CP: 2\n", "  FP: 1\n  CP: 4\n")
    Path(hero).write_text(text, encoding="utf-8")
    run = rules.run("After The Encounter", as_=rules.entity(hero), awarded_fp=1, awarded_xp=20,
                    options={"xp_per_level": setting})
    assert (run.results["cp"], run.results["fp"], run.results["xp_total"]) == (0, 2, 260)
    assert (run.results["level"], run.results["tier"], run.results["pool"], run.results["new_level"]) == (level, tier, pool, new)


def test_after_the_encounter_refuses_a_negative_award(rules) -> None:  # type: ignore[no-untyped-def]
    nayeli = rules.entity(str(EXAMPLES / "nayeli.yaml"))
    with pytest.raises(RunebookError) as error:
        rules.run("After The Encounter", as_=nayeli, awarded_fp=-1)
    assert _codes(error) == ["E0613"] and nayeli.resources["CP"] == 2


# ---------------------------------------------------------------- movement with Speed conditions


SPEEDS = [([], "final", 4), (["Hasted"], "final", 4 + 2), (["Faint"], "final", 4 - 1), (["Slowed"], "final", 1),
          (["Slowed", "Hasted"], "final", 1), (["Slowed", "Hasted"], "base", 1 + 2), (["Prone"], "final", 1),
          (["Entangled"], "final", 1), (["Immobilized"], "final", 0), (["Grabbed", "Hasted"], "final", 0)]


@pytest.mark.parametrize(("conditions", "setting", "movement"), SPEEDS)
def test_moving_reads_the_movers_speed_conditions(rules, tmp_path: Path, conditions: list[str], setting: str,
                                                  movement: int) -> None:  # type: ignore[no-untyped-def]
    """§2.11: Hasted +2 Speed, Faint -1, Slowed "Speed becomes 1" (Prone and Entangled are
    Slowed), Immobilized no move (Grabbed is Immobilized). A Speed 4 walker used to move 4
    hexes whatever it held (a defect): now one hex east leaves `movement - 1`, and none is
    allowed at 0."""
    walker = tmp_path / "walker.yaml"
    walker.write_text(f"name: Walker\nposition: [0, 0]\nstats:\n  Speed: 4\nconditions: {json.dumps(conditions)}\n",
                      encoding="utf-8")
    entity = rules.entity(str(walker))
    if movement == 0:
        with pytest.raises(RunebookError) as error:
            rules.run("Move Along", as_=entity, path=[1, 0], options={"slowed_override": setting})
        assert _codes(error) == ["E0613"]
        return
    run = rules.run("Move Along", as_=entity, path=[1, 0], options={"slowed_override": setting})
    assert run.results["left"] == movement - 1
    assert rules.run("Move", as_=entity, q=movement, r=0, options={"slowed_override": setting}).results["distance"] == movement
    with pytest.raises(RunebookError):
        rules.run("Move", as_=entity, q=movement + 1, r=0, options={"slowed_override": setting})


@pytest.mark.parametrize(("conditions", "setting", "movement"), SPEEDS)
def test_speed_from_agrees_with_the_stat_and_its_conditions(tmp_path: Path, conditions: list[str], setting: str,
                                                            movement: int) -> None:
    """`speed_from` (a base given as a number) restates what the conditions' `modifier` and
    `becomes` lines make of the Speed stat (`current_speed`): the two must agree."""
    (tmp_path / "probe.rules").write_text("extends mestezia\n\nprocedure Probe ()\n  result given = speed_from(actor, actor's Speed)\n"
                                          "  result stat = current_speed(actor)\n", encoding="utf-8")
    (tmp_path / "w.yaml").write_text(f"name: W\nstats:\n  Speed: 4\nconditions: {json.dumps(conditions)}\n", encoding="utf-8")
    game = interpreter.load(str(tmp_path))
    run = game.run("Probe", as_=game.entity(str(tmp_path / "w.yaml")), options={"slowed_override": setting})
    assert run.results["given"] == run.results["stat"] == movement


# ---------------------------------------------------------------- occupied hexes (§2.12)


@pytest.mark.parametrize(("path", "allies", "enemies", "phasing", "needs"), [
    ([1, 0, 2, 0], [1, 0], [], False, None),                 # through an ally's hex: allowed
    ([1, 0, 2, 0], [], [1, 0], False, "index(enemy_cells, c) == none"),  # not through an enemy's
    ([1, 0, 2, 0], [], [1, 0], True, None),                  # Phasing: through any creature
    ([1, 0], [1, 0], [], False, "index(ally_cells, here) == none"),       # not stopping on an ally
    ([1, 0], [], [1, 0], True, "index(enemy_cells, here) == none")])      # Phasing still stops empty
def test_moving_past_and_onto_creatures(rules, tmp_path: Path, path, allies, enemies, phasing: bool, needs) -> None:  # type: ignore[no-untyped-def]
    walker = tmp_path / "walker.yaml"
    walker.write_text("name: Walker\nposition: [0, 0]\nstats:\n  Speed: 4\n" + ("conditions: [Phasing]\n" if phasing else ""),
                      encoding="utf-8")
    entity = rules.entity(str(walker))
    if needs is None:
        run = rules.run("Move Along", as_=entity, path=path, allies=allies, enemies=enemies)
        assert run.results["spent"] == len(path) // 2
        return
    with pytest.raises(RunebookError) as error:
        rules.run("Move Along", as_=entity, path=path, allies=allies, enemies=enemies)
    assert _codes(error) == ["E0613"] and needs in error.value.diagnostics[0].message


# ---------------------------------------------------------------- a grab ends by itself (§2.11)

GRABBED = EXAMPLES / "grabbed.yaml"


@pytest.mark.parametrize(("grabber", "conditions", "reach", "ended"), [
    ("guard.yaml", [], 1, False),            # next to her (1 hex), able to act: the grab holds
    ("lookout.yaml", [], 1, True),           # 7 hexes away: beyond a melee grab's reach
    ("lookout.yaml", [], 7, False),          # ... but within a grab reaching 7
    ("guard.yaml", ["Stunned"], 1, True),    # a grabber that cannot act lets go
    ("guard.yaml", ["Unconscious"], 1, True),
    ("guard.yaml", ["Dazed"], 1, False)])    # Dazed still acts
def test_a_grab_ends_when_the_grabber_cannot_act_or_reach(rules, tmp_path: Path, grabber: str, conditions: list[str],
                                                          reach: int, ended: bool) -> None:  # type: ignore[no-untyped-def]
    source = EXAMPLES / "skirmish" / grabber
    holder = _with(tmp_path, source, "") if not conditions else str(tmp_path / "g.yaml")
    if conditions:
        text = source.read_text(encoding="utf-8")
        text = text.replace("conditions:\n", f"conditions:\n  - {conditions[0]}\n") if "conditions:" in text else \
            text + f"conditions: [{conditions[0]}]\n"
        Path(holder).write_text(text, encoding="utf-8")
    run = rules.run("Review Grab", as_=rules.entity(str(GRABBED)), against=rules.entity(holder), reach=reach)
    assert run.results["ended"] is ended
    assert ("Grabbed" in run.state["actor"]["conditions"]) is not ended


def test_only_a_grabbed_creature_is_reviewed(rules) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as error:
        rules.run("Review Grab", as_=rules.entity(str(EXAMPLES / "skirmish" / "raider.yaml")),
                  against=rules.entity(str(GUARD)))
    assert _codes(error) == ["E0613"]


# ---------------------------------------------------------------- when a power may be used (§1.6)

TIMING = """extends mestezia

Riposte
Trigger: An enemy misses you in melee.
Cost: 1 CP
Target: Enemy
Threshold: Target's Defense
Check: [Attack]
Result: [Grade + 1] damage
Keywords: *Melee Opportunity*

Rain Dance
Target: You
Threshold: 6
Check: [Will]
Effect 1: You are Lucky.
Keywords: *Water Ritual*
"""


def _timing(tmp_path: Path):  # type: ignore[no-untyped-def]
    (tmp_path / "t.rules").write_text(TIMING, encoding="utf-8")
    (tmp_path / "f.yaml").write_text("name: F\nstats:\n  Attack: 3\n  Strength: 2\n  Speed: 2\n  Will: 3\n  Weapon Cost: 3\n  Weapon Damage: 12\n"
                                     "resources:\n  CP: 6\npowers: [Riposte, Rain Dance, Berserker Charge]\n", encoding="utf-8")
    game = interpreter.load(str(tmp_path))
    return game, game.entity(str(tmp_path / "f.yaml")), game.entity(str(INQUISITOR))


def test_an_attack_only_on_its_users_turn(tmp_path: Path) -> None:
    """Attacks "can only be used on your turn"; Opportunities attack on other turns when
    their trigger happened (Riposte: 9, 9, 1 + 3 against 12, two successes: 2 + 1 = 3)."""
    game, fighter, foe = _timing(tmp_path)
    with pytest.raises(RunebookError) as error:
        game.run("Berserker Charge", as_=fighter, against=foe, dice=[6, 7, 9], on_turn=False)
    assert _codes(error) == ["E0613"] and "usable_now" in error.value.diagnostics[0].message
    assert fighter.resources["CP"] == 6
    riposte = game.run("Riposte", as_=fighter, against=foe, dice=[9, 9, 1], on_turn=False, driver=_answers("happened"))
    assert riposte.results["damage"] == 3


def test_a_ritual_only_outside_combat(tmp_path: Path) -> None:
    """Rituals "can only be used outside of combat": refused with in_combat=true; outside,
    3, 1, 1 + 3 against 6 is a Low and the caster is Lucky."""
    game, caster, _ = _timing(tmp_path)
    with pytest.raises(RunebookError) as error:
        game.run("Rain Dance", as_=caster, dice=[3, 1, 1], in_combat=True)
    assert _codes(error) == ["E0613"]
    assert game.run("Rain Dance", as_=caster, dice=[3, 1, 1]).state["actor"]["conditions"] == ["Lucky"]


# ---------------------------------------------------------------- Solid terrain (§2.12)


@pytest.mark.parametrize(("extra", "allowed"), [("", False), ("conditions: [Phasing]\n", True),
                                                ("movement modes: [Burrow]\n", True)])
def test_solid_hexes_need_phasing_or_burrowing(rules, tmp_path: Path, extra: str, allowed: bool) -> None:  # type: ignore[no-untyped-def]
    walker = tmp_path / "walker.yaml"
    walker.write_text("name: Walker\nposition: [0, 0]\nstats:\n  Speed: 4\n" + extra, encoding="utf-8")
    inputs = {"path": [1, 0, 2, 0], "solid": [1, 0]}
    if allowed:
        assert rules.run("Move Along", as_=rules.entity(str(walker)), **inputs).results["spent"] == 2
        return
    with pytest.raises(RunebookError) as error:
        rules.run("Move Along", as_=rules.entity(str(walker)), **inputs)
    assert _codes(error) == ["E0613"] and "can_enter_solid" in error.value.diagnostics[0].message


# ---------------------------------------------------------------- delaying a turn (§2.7)


@pytest.mark.parametrize(("segment", "to", "combat", "allowed"), [
    (8, 3, True, True),      # down the order, within the round
    (8, 1, True, True),      # to the last segment
    (8, 0, True, False),     # past the end of the round: not allowed
    (8, 8, True, False),     # no delay at all
    (8, 9, True, False),     # up the order
    (8, 3, False, False)])   # a challenge turn may not be delayed
def test_delaying_a_turn(rules, segment: int, to: int, combat: bool, allowed: bool) -> None:  # type: ignore[no-untyped-def]
    if allowed:
        run = rules.run("Delay Turn", segment=segment, to=to, combat=combat)
        assert (run.results["segment"], run.results["delayed_by"]) == (to, segment - to)
        return
    with pytest.raises(RunebookError) as error:
        rules.run("Delay Turn", segment=segment, to=to, combat=combat)
    assert _codes(error) == ["E0613"]


def test_the_odds_of_a_move_along_hexes_hold_its_cells(rules) -> None:  # type: ignore[no-untyped-def]
    """A state of the exact odds kept only plain values and a grid's cells (a type of their
    own) were left out: `Move Along`'s odds stopped on its loop's list of cells (E0607 "has
    no '#items1'") while the same run went through. Three steps of Speed 3 end at [0, 3]."""
    raider = str(EXAMPLES / "skirmish" / "raider.yaml")
    run = rules.run("Move Along", as_=rules.entity(raider), path=[0, 1, 0, 2, 0, 3])
    odds = rules.odds("Move Along", as_=raider, path=[0, 1, 0, 2, 0, 3])
    assert [dict(odds.results[n]) for n in ("spent", "end")] == [{run.results["spent"]: 1}, {run.results["end"]: 1}]
    assert run.results["spent"] == 3
