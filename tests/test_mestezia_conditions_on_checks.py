"""Mestezia: what conditions do to a power's check (spec §2.1 item 2, §2.11, A3, §2.1 [I]).

The modifier of a check is "the sum of the check's skill bonuses, all applicable condition
modifiers, terrain modifiers and other bonuses"; a condition's modifier "to Attack" counts on
the check of every Attack power (A3); Lucky and Unlucky on every check; the target's
conditions on the stat a power's Threshold reads raise that threshold ("NPC-side Defense
modifiers raise the NPC's threshold"). Use Power used to SHOW these and apply none; Defend
applied them. Now every procedure that rolls for a creature applies them (option
`power_conditions = applied`, the default; `shown_only` is the old reading).

Each expected grade is worked out by hand in the comment beside it: Itzel's Berserker Charge
is [Attack + Strength] = 4 + 2 = +6 against the Inquisitor's Defense 12 (MZ-W04), her weapon
deals 12 + grade. The odds are compared with an enumeration of the 1,000 rolls of three d10.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.rulesets import RULESETS_DIR

MESTEZIA = RULESETS_DIR / "mestezia"
EXAMPLES = MESTEZIA / "examples"
DEFENDING = MESTEZIA / "homebrew" / "defending"
ITZEL, INQUISITOR = EXAMPLES / "itzel.yaml", EXAMPLES / "inquisitor.yaml"
XOCHITL, CULTIST = EXAMPLES / "xochitl.yaml", EXAMPLES / "cultist.yaml"
RAGWEED, MUSHROOM = DEFENDING / "ragweed.yaml", DEFENDING / "mushroom.yaml"
GRADES = {0: "Fail", 1: "Low", 2: "Medium", 3: "High"}


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("mestezia")


@pytest.fixture(scope="module")
def defending():  # type: ignore[no-untyped-def]
    return interpreter.load(str(DEFENDING))


def _under(tmp_path: Path, source: Path, conditions: list[str], name: str) -> str:
    """A copy of a character file holding the conditions."""
    path = tmp_path / name
    held = "conditions:\n" + "".join(f"  - {c}\n" for c in conditions) if conditions else ""
    path.write_text(source.read_text(encoding="utf-8") + held, encoding="utf-8")
    return str(path)


# ---------------------------------------------------------------- Use Power: the user's side

@pytest.mark.parametrize(("mine", "dice", "grade"), [
    ([], (6, 7, 9), "High"),                    # +6: 12, 13, 15 against 12
    (["Prone"], (6, 7, 9), "Low"),              # -2 to Attacks: 10, 11, 13
    (["Restrained"], (6, 7, 9), "Medium"),      # -1 to attack rolls: 11, 12, 14
    (["Faint"], (6, 7, 9), "Medium"),           # -1 Strength, a skill the Check names: 11, 12, 14
    (["Unlucky"], (6, 7, 9), "Medium"),         # -1 to all checks
    (['Marked("Someone")'], (6, 7, 9), "Medium"),  # -1: the attack is not at the marker
    (['Marked("Inquisitor")'], (6, 7, 9), "High"),  # at the marker: no penalty
    (["Lucky"], (5, 6, 9), "High"),             # +1: 12, 13, 16 (without it: Medium)
    (["Advantage"], (5, 6, 9), "High"),         # CA: +1 to Attack
    (["Distracted"], (6, 7, 9), "High"),        # -1 Will and Discipline: not on this check
])
def test_the_users_conditions_count_on_an_attack(rules, tmp_path: Path, mine: list[str], dice: tuple[int, ...],
                                                 grade: str) -> None:
    run = rules.run("Berserker Charge", as_=rules.entity(_under(tmp_path, ITZEL, mine, "itzel.yaml")),
                    against=rules.entity(str(INQUISITOR)), dice=list(dice))
    assert str(run.results["grade"]) == grade
    assert run.results["damage"] == 12 + {"Low": 1, "Medium": 2, "High": 3}[grade]


@pytest.mark.parametrize(("theirs", "dice", "grade", "threshold"), [
    (["Protected(2)"], (6, 7, 9), "Low", 14),        # +2 Defense: 12, 13, 15 against 14
    (["Concealed(2)"], (6, 7, 9), "Low", 14),        # +2 against a Directed attack
    (["Clumsy"], (5, 6, 9), "High", 11),             # -1 Defense: 11, 12, 15 against 11
    (["Unconscious"], (1, 1, 1), "High", 7),         # -5 Defense, and grants CA: 8, 8, 8 against 7
    (["Prone"], (5, 6, 9), "High", 12),              # grants CA in melee: +1, 12, 13, 16
    (["Distracted"], (6, 7, 9), "High", 12),         # -1 Will: not the stat the Threshold reads
])
def test_the_targets_conditions_raise_or_lower_its_threshold(rules, tmp_path: Path, theirs: list[str],
                                                             dice: tuple[int, ...], grade: str, threshold: int) -> None:
    run = rules.run("Berserker Charge", as_=rules.entity(str(ITZEL)),
                    against=rules.entity(_under(tmp_path, INQUISITOR, theirs, "foe.yaml")), dice=list(dice))
    assert str(run.results["grade"]) == grade and run.results["threshold"] == threshold


def test_combat_advantage_counts_once(rules, tmp_path: Path) -> None:
    """Advantage held AND granted by a Prone target (melee): still +1. 4, 6, 9 + 7 are 11, 13,
    16 against 12: Medium (counted twice, +8: High)."""
    run = rules.run("Berserker Charge", as_=rules.entity(_under(tmp_path, ITZEL, ["Advantage"], "itzel.yaml")),
                    against=rules.entity(_under(tmp_path, INQUISITOR, ["Prone"], "foe.yaml")), dice=[4, 6, 9])
    assert str(run.results["grade"]) == "Medium"
    assert run.shown["attack_bonus"] == 1


def test_sleep_against_a_distracted_will(rules, tmp_path: Path) -> None:
    """Sleep reads the target's Will (12): Distracted's -1 Will makes it 11; Xochitl's +3 and
    8, 8, 1 are 11, 11, 4: Medium (against 12: Fail). Her own Prone (-2 to Attacks, Sleep is an
    Attack) takes it back to a Fail."""
    foe = rules.entity(_under(tmp_path, CULTIST, ["Distracted"], "cultist.yaml"))
    run = rules.run("Sleep", as_=rules.entity(str(XOCHITL)), against=foe, skills=3, dice=[8, 8, 1])
    assert str(run.results["grade"]) == "Medium" and run.results["threshold"] == 11
    prone = rules.entity(_under(tmp_path, XOCHITL, ["Prone"], "xochitl.yaml"))
    assert str(rules.run("Sleep", as_=prone, against=foe, skills=3, dice=[8, 8, 1]).results["grade"]) == "Fail"


def test_shown_only_keeps_the_old_reading(rules, tmp_path: Path) -> None:
    """power_conditions = shown_only: the GM applies them by hand; the check has the bare
    skills (a Prone Itzel's 6, 7, 9 + 6: High) and the modifiers are shown."""
    run = rules.run("Berserker Charge", as_=rules.entity(_under(tmp_path, ITZEL, ["Prone"], "itzel.yaml")),
                    against=rules.entity(_under(tmp_path, INQUISITOR, ["Protected(2)"], "foe.yaml")),
                    dice=[6, 7, 9], options={"power_conditions": "shown_only"})
    assert str(run.results["grade"]) == "High" and run.results["threshold"] == 12
    assert (run.shown["attack_bonus"], run.shown["defense_bonus"]) == (-2, 2)


def test_odds_of_a_prone_attacker_match_an_enumeration(rules, tmp_path: Path) -> None:
    """A Prone Itzel (+6 - 2) against a Protected 1 Inquisitor (12 + 1)."""
    odds = rules.odds("Berserker Charge", as_=rules.entity(_under(tmp_path, ITZEL, ["Prone"], "itzel.yaml")),
                      against=rules.entity(_under(tmp_path, INQUISITOR, ["Protected(1)"], "foe.yaml")))
    grades: dict[str, Fraction] = {}
    for faces in product(range(1, 11), repeat=3):
        hits = sum(f + 4 >= 13 for f in faces)
        grades[GRADES[hits]] = grades.get(GRADES[hits], Fraction(0)) + Fraction(1, 1000)
    assert {str(k): v for k, v in odds.results["grade"].items()} == grades


# ---------------------------------------------------------------- the other procedures that roll

def test_several_targets_take_the_users_conditions(rules, tmp_path: Path) -> None:
    """Prone: 6, 7, 9 + 4 are 10, 11, 13: Low against 12, 12 and 13 (bare: High, High, Medium)."""
    run = rules.run("Use Power On Several", power="Berserker Charge",
                    as_=rules.entity(_under(tmp_path, ITZEL, ["Prone"], "itzel.yaml")),
                    against=rules.entity(str(INQUISITOR)), second=12, third=13, dice=[6, 7, 9])
    assert [str(run.results[k]) for k in ("grade", "grade_2", "grade_3")] == ["Low", "Low", "Low"]


def test_several_targets_first_threshold_takes_its_conditions(rules, tmp_path: Path) -> None:
    """The first target Protected 2 (14): 6, 7, 9 + 6 are 12, 13, 15: Low; the second, 12: High."""
    run = rules.run("Use Power On Several", power="Berserker Charge", as_=rules.entity(str(ITZEL)),
                    against=rules.entity(_under(tmp_path, INQUISITOR, ["Protected(2)"], "foe.yaml")),
                    second=12, dice=[6, 7, 9])
    assert (str(run.results["grade"]), str(run.results["grade_2"])) == ("Low", "High")


def test_sustain_and_halt_take_lucky(rules, tmp_path: Path) -> None:
    """Sleep's sustain: 8, 1, 1 + 3 against the original 12 fails; a Lucky caster's +1 keeps it.
    A Halt the same way: 8, 1, 1 + 3 against 12 with Lucky halts (without it, not)."""
    asleep = rules.entity(_under(tmp_path, CULTIST, ["Unconscious"], "asleep.yaml"))
    for caster, kept in ((XOCHITL, False), (Path(_under(tmp_path, XOCHITL, ["Lucky"], "lucky.yaml")), True)):
        run = rules.run("Sustain Effect", power="Sleep", threshold=12, skills=3, as_=rules.entity(str(caster)),
                        against=asleep, dice=[8, 1, 1])
        assert run.results["sustained"] is kept
    for conditions, halted in (([], False), (["Lucky"], True)):
        halter = rules.entity(_under(tmp_path, CULTIST, conditions, "halter.yaml"))
        run = rules.run("Halt Effect", power="Sleep", threshold=12, skills=3, as_=halter, dice=[8, 1, 1])
        assert run.results["halted"] is halted


def test_an_unconscious_creature_makes_no_sustain_or_halt_check(rules, tmp_path: Path) -> None:
    """§2.11: an Unconscious creature makes no checks. A sleeping caster's Sleep goes unsustained
    (no roll: given dice would be left over, E0502); the sleeper cannot try to halt (E0613)."""
    caster = rules.entity(_under(tmp_path, XOCHITL, ["Unconscious"], "caster.yaml"))
    run = rules.run("Sustain Effect", power="Sleep", threshold=12, skills=3, as_=caster,
                    against=rules.entity(_under(tmp_path, CULTIST, ["Unconscious"], "asleep.yaml")), dice=[])
    assert run.results["sustained"] is False and "Unconscious" not in run.state["target"]["conditions"]
    sleeper = rules.entity(_under(tmp_path, CULTIST, ["Unconscious", "Lucky"], "sleeper.yaml"))
    with pytest.raises(RunebookError) as refused:
        rules.run("Halt Effect", power="Sleep", threshold=12, skills=3, as_=sleeper, dice=[10, 10, 10])
    assert [d.code for d in refused.value.diagnostics] == ["E0613"]
    # unconscious_checks = sustain_and_halt: it rolls (8, 1, 1 + 3 + Lucky 1 against 12: halted).
    tried = rules.run("Halt Effect", power="Sleep", threshold=12, skills=3, as_=sleeper, dice=[8, 1, 1],
                      options={"unconscious_checks": "sustain_and_halt"})
    assert tried.results["halted"] is True


def test_sustain_is_not_helped_by_the_sleepers_own_unconsciousness(rules, tmp_path: Path) -> None:
    """An Unconscious target grants Advantage to attacks, but a sustain check is no attack:
    8, 1, 1 + 3 against 12 is a Fail and the Sleep ends."""
    run = rules.run("Sustain Effect", power="Sleep", skills=3, as_=rules.entity(str(XOCHITL)),
                    against=rules.entity(_under(tmp_path, CULTIST, ["Unconscious"], "asleep.yaml")), dice=[8, 1, 1])
    assert run.results["sustained"] is False


def test_defend_counts_every_skill_the_attack_names(defending, tmp_path: Path) -> None:
    """Spore Burst is against [Defense + Health] = +6 for 10: 4, 4, 4 are 10s, High (1 damage).
    A Faint Ragweed (-1 Health) has +5: 9s, a Fail (4 damage)."""
    faint = defending.entity(_under(tmp_path, RAGWEED, ["Faint"], "faint.yaml"))
    for defender, grade, harm in ((defending.entity(str(RAGWEED)), "High", 1), (faint, "Fail", 4)):
        run = defending.run("Defend", as_=defender, against=defending.entity(str(MUSHROOM)), attack="Spore Burst",
                            dice=[4, 4, 4])
        assert (str(run.results["grade"]), run.results["harm"]) == (grade, harm)


def test_an_evasion_counts_lucky_once(defending, tmp_path: Path) -> None:
    """Bastion of Defense in place of the defense check, by a Lucky Ragweed: +6 + 1 against 10;
    2, 2, 2 are 9s, a Fail (Lucky counted twice, 10s: a High), so the spores' 4 are taken."""
    from runebook.interpreter.rules.procedures import ScriptedDriver

    lucky = defending.entity(_under(tmp_path, RAGWEED, ["Lucky"], "lucky.yaml"))
    run = defending.run("Defend", as_=lucky, against=defending.entity(str(MUSHROOM)), attack="Spore Burst",
                        evade="Bastion of Defense", driver=ScriptedDriver(["happened"]), dice=[2, 2, 2])
    assert str(run.results["grade"]) == "Fail" and run.results["taken"] == 4
    higher = defending.run("Defend", as_=lucky, against=defending.entity(str(MUSHROOM)), attack="Spore Burst",
                           evade="Bastion of Defense", driver=ScriptedDriver(["happened"]), dice=[3, 3, 3])
    assert str(higher.results["grade"]) == "High" and higher.results["taken"] == 0  # 10s: resist 2 of 1


def test_a_combo_check_of_a_lucky_character(rules, tmp_path: Path) -> None:
    """MZ-W03's raider (Influence + Trickery = +4) Lucky: +5. 6, 5, 10 against 11 are 11, 10,
    15: Medium (without Lucky, +4: 10, 9, 14, Low). Skills given as numbers read no character."""
    lucky = rules.entity(_under(tmp_path, EXAMPLES / "skirmish" / "raider.yaml", ["Lucky"], "raider.yaml"))
    named = rules.resolve("Combo Check", as_=lucky, first="Influence", second="Trickery", threshold=11, dice=[6, 5, 10])
    assert (named.results["modifier"], str(named.results["grade"])) == (5, "Medium")
    numbers = rules.resolve("Combo Check", first=2, second=2, threshold=11, dice=[6, 5, 10])
    assert (numbers.results["modifier"], str(numbers.results["grade"])) == (4, "Low")


@pytest.mark.parametrize(("where", "grade"), [((), "High"), (("target",), "Medium"), (("thrower",), "Medium"),
                                             (("thrower", "target"), "Medium")])
def test_windy_on_a_ranged_attack_from_or_at_the_hex(rules, tmp_path: Path, where: tuple[str, ...], grade: str) -> None:
    """§2.12 Windy: a ranged weapon attack starting in or aimed at a Windy hex takes -1 (once).
    Citlali's javelin (Thrown: ranged) is +5 against the lookout's Defense 11: 6, 7, 9 are
    11, 12, 14, High; with -1: 10, 11, 13, Medium."""
    thrower = _under(tmp_path, EXAMPLES / "thrower.yaml", ["Windy"] if "thrower" in where else [], "thrower.yaml")
    lookout = _under(tmp_path, EXAMPLES / "skirmish" / "lookout.yaml", ["Windy"] if "target" in where else [], "lookout.yaml")
    run = rules.run("Berserker Charge", as_=rules.entity(thrower), against=rules.entity(lookout), dice=[6, 7, 9])
    assert str(run.results["grade"]) == grade
