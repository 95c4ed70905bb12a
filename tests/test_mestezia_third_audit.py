"""Mestezia: a third audit of the ruleset against its spec (shared/specs/mestezia.md), by cases
derived from the rules.

Defects this audit found and fixed in rulesets/mestezia/ (each test below fails without its fix):

- §2.7 Start Phase order + §2.10 Dying (A13): ongoing damage that took a creature to 0 HP did
  not make it Dying when Regenerating then brought it back above 0 in the same start phase; at
  0 HP it is Dying, and regenerating (no Heal) does not end Dying.
- §2.10 Dying: `Heal --with amount=0` on a Dying creature at 0 HP removed Dying (and with it
  Unconscious) although its HP stayed 0.
- §2.11 Vulnerable (L599): a hit of 0 damage (Take Damage `amount=0`, Enter Elemental `N=0`)
  still inflicted the Vulnerable N extra.
- §2.9 damage pipeline, steps 2-3: a Weakened user halved an upgrade's flat add too
  (Clockwork Engineer's `[Tier+1]`): 10 Sound + 2 gave ceil(12 / 2) = 6, not ceil(10 / 2) + 2 = 7.
- §2.12 Windy (L640, "any Ranged Weapon Attack"): a ranged evocation from a Windy hex took -1;
  and in Use Power On Several the user's own Windy hex hindered only the first target.
- §2.1 / §2.6 / A8 Tiers: a character's Tier never reached its rolls: a file at `xp: 260`
  (level 6, Tier 2), `level: 6` or `tier: 2` still rolled three dice (a fourth die was E0502)
  and read `[Tier]` as 1. Now `tier_from` (file's tier, level or xp) sets the default `pool`
  and `[Tier]` of every procedure a character rolls in, and of Skill/Combo Check with `--as`.
- §2.11 Dominated: "the only powers it can make you use are Strikes and Utilities" was not
  enforced: a Dominated character could use a Charge.
- §2.11 Unconscious "can't ... make checks": a Combo Check of an Unconscious (Dying) character
  was rolled.
- §2.7 / §2.10 in the Skirmish Round: the NPC's start phase skipped Regenerating when the
  ongoing damage reached 0 HP, and at 0 HP did nothing, where Start Phase regenerates (the
  README's decision: Regenerating works at 0 HP; only a Heal ends Dying); it also left out
  Elemental terrain.
- §2.7 turn order: a given segment outside the round's ten (`Turn Order --with segment=15`)
  was accepted and gave 5 extra CP; Who Goes First and the Skirmish Round likewise.
- §2.8 challenges: `needed=0` (or negative) was "won" after a Fail with no Breakthrough; a
  challenge given as under way but already decided, or negative counts, were accepted.
  Enter Eerie took a negative N (then Rough -N).
- §2.6 / A8: `Advancement --with xp=-60` answered level 1 instead of refusing; the option
  `xp_per_level=rising_50` stopped at level 20 (its table ended there) though the book names
  no level cap.

Every expected number is worked out from the spec's rule in the comment beside it or by an
enumeration written here; none is copied from the program's output.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from math import ceil
from pathlib import Path

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.rulesets import RULESETS_DIR

MESTEZIA = RULESETS_DIR / "mestezia"
EXAMPLES = MESTEZIA / "examples"
ITZEL, INQUISITOR = EXAMPLES / "itzel.yaml", EXAMPLES / "inquisitor.yaml"
THROWER, LOOKOUT = EXAMPLES / "thrower.yaml", EXAMPLES / "skirmish" / "lookout.yaml"

# Two ranged evocations (no weapon) for a table's own content, and Clockwork Engineer's
# selection (To: Sound or Electricity Attacks).
BREW = """\
extends mestezia

Thunder Clap
Cost: 2 CP
Target: Enemy in 5
Threshold: Target's Defense
Check: [Attack]
Result: 10 Sound damage
Keywords: *Evocation Ranged Sound Attack*
"""
DUMMY = "name: Dummy\nstats:\n  Defense: 10\n  Max HP: 30\n"


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("mestezia")


@pytest.fixture(scope="module")
def brew(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("mestezia-brew")
    (folder / "brew.rules").write_text(BREW, encoding="utf-8")
    return interpreter.load(str(folder))


def _file(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _codes(error: pytest.ExceptionInfo[RunebookError]) -> list[str]:
    return [d.code for d in error.value.diagnostics]


def _successes(dice: list[int], modifier: int, threshold: int) -> int:
    """§2.1: the grade is the number of dice whose die + modifier reaches the threshold."""
    return sum(d + modifier >= threshold for d in dice)


# ---------------------------------------------------------------- Dying (§2.7, §2.10, A13)


def test_burned_to_zero_then_regenerating_stays_dying(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """HP 2 of 20, Ongoing 3 Fire, Regenerating 2: the ongoing damage comes first (2 -> 0:
    Dying), then the regeneration (0 -> 2), which is no Heal and leaves Dying on."""
    burner = rules.entity(_file(tmp_path, "b.yaml", "name: Burner\nstats:\n  Max HP: 20\nresources:\n  HP: 2\n"
                                "conditions:\n  - Ongoing Damage(3, Fire)\n  - Regenerating(2)\n"))
    run = rules.run("Start Phase", as_=burner)
    assert (run.results["ongoing"], run.results["regenerated"], run.results["hp"]) == (3, 2, 0 + 2)
    assert "Dying" in run.state["actor"]["conditions"]


def test_regenerating_read_as_a_heal_ends_that_dying(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The option regen_is_heal=regen_heal: the regeneration is a Heal, so it ends Dying."""
    burner = rules.entity(_file(tmp_path, "b.yaml", "name: Burner\nstats:\n  Max HP: 20\nresources:\n  HP: 2\n"
                                "conditions:\n  - Ongoing Damage(3, Fire)\n  - Regenerating(2)\n"))
    run = rules.run("Start Phase", as_=burner, options={"regen_is_heal": "regen_heal"})
    assert run.results["hp"] == 2 and "Dying" not in run.state["actor"]["conditions"]


def test_a_heal_of_nothing_leaves_a_dying_creature_dying(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    text = "name: D\nstats:\n  Max HP: 20\nresources:\n  HP: 0\nconditions: [Dying]\n"
    run = rules.run("Heal", as_=rules.entity(_file(tmp_path, "d.yaml", text)), amount=0)
    assert (run.results["healed"], run.results["hp"]) == (0, 0)
    assert "Dying" in run.state["actor"]["conditions"]
    # A real heal (3) ends it.
    healed = rules.run("Heal", as_=rules.entity(_file(tmp_path, "d.yaml", text)), amount=3)
    assert healed.results["hp"] == 3 and "Dying" not in healed.state["actor"]["conditions"]


# ---------------------------------------------------------------- no damage, no Vulnerable extra (L599)


@pytest.mark.parametrize("amount, taken", [(0, 0), (1, 1 + 2), (5, 5 + 2)])
def test_vulnerable_adds_only_to_damage_taken(rules, tmp_path: Path, amount: int, taken: int) -> None:  # type: ignore[no-untyped-def]
    """Vulnerable 2 (untyped: every damage): 0 damage is no damage taken; 1 -> 3; 5 -> 7."""
    brittle = rules.entity(_file(tmp_path, "v.yaml", "name: Brittle\nstats:\n  Max HP: 20\nconditions: [Vulnerable(2)]\n"))
    run = rules.run("Take Damage", as_=brittle, amount=amount)
    assert (run.results["taken"], run.results["hp"]) == (taken, 20 - taken)


def test_entering_elemental_of_nothing_hurts_nothing(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    brittle = rules.entity(_file(tmp_path, "v.yaml", "name: Brittle\nstats:\n  Max HP: 20\nconditions:\n  - Vulnerable(2, Fire)\n"))
    assert rules.run("Enter Elemental", as_=brittle, N=0, kind="Fire").results["taken"] == 0


# ---------------------------------------------------------------- Weakened before the flat add (§2.9)


@pytest.mark.parametrize("weakened, tier", [(True, 1), (False, 1), (True, 2)])
def test_weakened_halves_the_power_not_the_upgrades_add(brew, tmp_path: Path, weakened: bool, tier: int) -> None:  # type: ignore[no-untyped-def]
    """Thunder Clap: 10 Sound; Clockwork Engineer adds [Tier+1]. Pipeline: base, Weakened half
    (rounded up, A11), then the flat add: Weakened Tier 1 -> ceil(10/2) + 2 = 7."""
    text = ("name: Tinker\nstats:\n  Aim: 2\nresources:\n  CP: 6\npowers: [Thunder Clap]\n"
            "traits: [Clockwork Engineer]\n" + ("conditions: [Weakened]\n" if weakened else "") + f"tier: {tier}\n")
    tinker = brew.entity(_file(tmp_path, "t.yaml", text))
    dummy = brew.entity(_file(tmp_path, "d.yaml", DUMMY))
    run = brew.run("Thunder Clap", as_=tinker, against=dummy, dice=[9, 9, 9, 9][: 2 + tier])
    expected = (ceil(Fraction(10, 2)) if weakened else 10) + (tier + 1)
    assert run.results["target_taken"] == expected
    assert run.state["target"]["resources"]["HP"] == 30 - expected


# ---------------------------------------------------------------- Windy: ranged weapon attacks only (L640)


@pytest.mark.parametrize("dice, hits", [([8, 8, 8], 3), ([7, 8, 9], 2), ([1, 2, 7], 0)])
def test_windy_does_not_hinder_a_ranged_evocation(brew, tmp_path: Path, dice: list[int], hits: int) -> None:  # type: ignore[no-untyped-def]
    """Aim 2 from a Windy hex against Defense 10: no -1 (not a weapon attack)."""
    caster = brew.entity(_file(tmp_path, "w.yaml", "name: Caster\nstats:\n  Aim: 2\nresources:\n  CP: 6\n"
                               "conditions: [Windy]\npowers: [Thunder Clap]\n"))
    run = brew.run("Thunder Clap", as_=caster, against=brew.entity(_file(tmp_path, "d.yaml", DUMMY)), dice=dice)
    assert hits == _successes(dice, 2, 10)
    assert str(run.results["grade"]) == ["Fail", "Low", "Medium", "High"][hits]


def test_windy_hinders_every_target_of_a_thrown_weapon(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The thrower (Attack 3 + Strength 2 = +5, a thrown weapon) stands in a Windy hex: -1 on the
    lookout (Defense 11) and on a second target of threshold 11 alike: 6 + 5 - 1 = 10 < 11."""
    text = THROWER.read_text(encoding="utf-8").replace("powers:", "conditions: [Windy]\npowers:")
    thrower = rules.entity(_file(tmp_path, "t.yaml", text))
    run = rules.run("Use Power On Several", as_=thrower, against=rules.entity(str(LOOKOUT)),
                    power="Berserker Charge", second=11, dice=[6, 6, 6])
    assert _successes([6, 6, 6], 5 - 1, 11) == 0
    assert (str(run.results["grade"]), str(run.results["grade_2"])) == ("Fail", "Fail")


# ---------------------------------------------------------------- a character's Tier (§2.1, A8)


@pytest.mark.parametrize("line", ["xp: 260\n", "level: 6\n", "tier: 2\n"])
def test_a_tier_two_character_rolls_four_dice(rules, tmp_path: Path, line: str) -> None:  # type: ignore[no-untyped-def]
    """Level 6 (260 XP: 1 + 260 // 50) is Tier 2 (1 + (6 - 1) // 5): 3 + 1 dice. Itzel's +6
    against 12 with 6, 7, 9, 9: four successes, [Weapon + Grade] = 12 + 4 (A7: uncapped)."""
    text = ITZEL.read_text(encoding="utf-8").replace("name: Itzel\n", "name: Itzel\n" + line)
    run = rules.run("Berserker Charge", as_=rules.entity(_file(tmp_path, "i.yaml", text)),
                    against=rules.entity(str(INQUISITOR)), dice=[6, 7, 9, 9])
    assert _successes([6, 7, 9, 9], 6, 12) == 4
    assert (str(run.results["grade"]), run.results["damage"]) == ("High", 12 + 4)


def test_a_tier_one_character_still_rolls_three(rules) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as error:
        rules.run("Berserker Charge", as_=rules.entity(str(ITZEL)), against=rules.entity(str(INQUISITOR)),
                  dice=[6, 7, 9, 9])
    assert _codes(error) == ["E0502"]


def test_tier_two_odds_match_an_enumeration_of_four_dice(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    text = ITZEL.read_text(encoding="utf-8").replace("name: Itzel\n", "name: Itzel\nxp: 260\n")
    odds = rules.odds("Berserker Charge", as_=rules.entity(_file(tmp_path, "i.yaml", text)),
                      against=rules.entity(str(INQUISITOR)))
    expected: dict[str, Fraction] = {}
    for dice in product(range(1, 11), repeat=4):
        name = ["Fail", "Low", "Medium", "High", "High"][_successes(list(dice), 6, 12)]
        expected[name] = expected.get(name, Fraction(0)) + Fraction(1, 10 ** 4)
    assert {str(k): v for k, v in odds.results["grade"].items()} == expected


def test_skill_and_combo_checks_roll_the_characters_pool(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """MZ-W03's bluff (+4 against 11) by a Tier 2 character: 4, 5, 10, 7 -> 8, 9, 14, 11: Medium."""
    hero = rules.entity(_file(tmp_path, "h.yaml", "name: H\ntier: 2\nstats:\n  Influence: 2\n  Trickery: 2\n"))
    combo = rules.resolve("Combo Check", as_=hero, first="Influence", second="Trickery", threshold=11, dice=[4, 5, 10, 7])
    assert str(combo.results["grade"]) == "Medium" == ["Fail", "Low", "Medium"][_successes([4, 5, 10, 7], 4, 11)]
    skill = rules.resolve("Skill Check", as_=hero, modifier=4, threshold=11, dice=[4, 5, 10, 7])
    assert skill.results["successes"] == 2
    # Without a character: the book's three dice (MZ-W03, a Low).
    assert str(rules.resolve("Combo Check", first=2, second=2, threshold=11, dice=[4, 5, 10]).results["grade"]) == "Low"


# ---------------------------------------------------------------- Dominated, Unconscious (§2.11)


def test_a_dominated_character_uses_no_charge(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    text = ITZEL.read_text(encoding="utf-8").replace("powers:", "conditions: [Dominated]\npowers:")
    itzel = rules.entity(_file(tmp_path, "i.yaml", text))
    with pytest.raises(RunebookError) as error:
        rules.run("Berserker Charge", as_=itzel, against=rules.entity(str(INQUISITOR)), dice=[6, 7, 9])
    assert _codes(error) == ["E0613"] and itzel.resources["CP"] == 6


def test_a_dominated_construct_may_still_strike(tmp_path: Path) -> None:
    """Piston Strike is a Strike: the powers a dominator may make one use."""
    homebrew = interpreter.load(str(MESTEZIA / "homebrew"))
    cog = homebrew.entity(_file(tmp_path, "c.yaml", "name: Cog\nstats:\n  Attack: 3\nresources:\n  CP: 6\n"
                                "conditions: [Dominated]\npowers: [Piston Strike, Spark Bind]\n"))
    run = homebrew.run("Piston Strike", as_=cog, against=homebrew.entity(str(INQUISITOR)), dice=[9, 9, 9])
    # 9 + 3 against Defense 12: three successes, [Grade + 3] = 6 damage; Dazed (implied) changes no check.
    assert (str(run.results["grade"]), run.results["damage"]) == ("High", 3 + 3)
    with pytest.raises(RunebookError) as error:  # Spark Bind is an Attack, not a Strike
        homebrew.run("Spark Bind", as_=cog, against=homebrew.entity(str(INQUISITOR)), dice=[9, 9, 9])
    assert _codes(error) == ["E0613"]


def test_an_unconscious_character_makes_no_combo_check(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = rules.entity(_file(tmp_path, "k.yaml", "name: KO\nstats:\n  Influence: 2\n  Trickery: 2\nconditions: [Dying]\n"))
    with pytest.raises(RunebookError) as error:
        rules.resolve("Combo Check", as_=out, first="Influence", second="Trickery", threshold=11, dice=[4, 5, 10])
    assert _codes(error) == ["E0613"]


# ---------------------------------------------------------------- the Skirmish Round's NPC start phase


def _driver(*answers: str):  # type: ignore[no-untyped-def]
    from runebook.interpreter.rules.procedures import ScriptedDriver

    return ScriptedDriver(list(answers))


@pytest.mark.parametrize("hp, after", [
    (1, 0 + 1),   # 1 - 2 burning -> 0 (Dying), then regenerates 1
    (0, 0 + 1),   # already Dying at 0: nothing to burn, regenerates 1
    (10, 10 - 2 + 1),
])
def test_the_skirmish_npc_regenerates_as_start_phase_does(rules, tmp_path: Path, hp: int, after: int) -> None:  # type: ignore[no-untyped-def]
    """The raider (6 + Initiative 2 = segment 8) passes; the guard (24 Max HP, Ongoing 2 Fire,
    Regenerating 1) then takes its start phase."""
    text = (EXAMPLES / "skirmish" / "guard.yaml").read_text(encoding="utf-8").replace(
        "conditions:\n", f"resources:\n  HP: {hp}\nconditions:\n  - Regenerating(1)\n" + ("  - Dying\n" if hp == 0 else ""))
    guard = rules.entity(_file(tmp_path, "g.yaml", text))
    run = rules.run("Skirmish Round", power="Berserker Charge", target_segment=7,
                    as_=rules.entity(str(EXAMPLES / "skirmish" / "raider.yaml")), against=guard,
                    dice=[6], driver=_driver("pass"))
    assert run.results["target_hp"] == after
    assert ("Dying" in run.state["target"]["conditions"]) is (hp <= 2)


# ---------------------------------------------------------------- turn order and advancement ranges


@pytest.mark.parametrize("procedure, inputs", [
    ("Turn Order", {"segment": 15}), ("Turn Order", {"segment": -2}),
    ("Who Goes First", {"target_segment": 11}), ("Who Goes First", {"segment": 12}),
])
def test_a_given_segment_is_one_of_the_rounds_ten(rules, procedure: str, inputs: dict) -> None:  # type: ignore[no-untyped-def,type-arg]
    with pytest.raises(RunebookError) as error:
        rules.run(procedure, dice=[5, 5], **inputs)
    assert _codes(error) == ["E0613"]


@pytest.mark.parametrize("segment", [1, 10])
def test_the_first_and_last_segments_are_accepted_without_extra_cp(rules, segment: int) -> None:  # type: ignore[no-untyped-def]
    assert rules.run("Turn Order", segment=segment).results == {"total": segment, "segment": segment, "bonus_cp": 0}


def test_the_skirmish_round_refuses_a_segment_outside_the_round(rules) -> None:  # type: ignore[no-untyped-def]
    raider = rules.entity(str(EXAMPLES / "skirmish" / "raider.yaml"))
    with pytest.raises(RunebookError) as error:
        rules.run("Skirmish Round", as_=raider, against=rules.entity(str(EXAMPLES / "skirmish" / "guard.yaml")),
                  power="Berserker Charge", target_segment=0, dice=[6, 6, 7, 9])
    assert _codes(error) == ["E0613"] and raider.resources["CP"] == 6


@pytest.mark.parametrize("inputs", [
    {"needed": 0}, {"needed": -3}, {"setbacks_allowed": 0}, {"breakthroughs": -1},
    {"breakthroughs": 5}, {"setbacks": 4}, {"turns": -1},
])
def test_a_challenge_needs_something_to_win_and_room_to_lose(rules, inputs: dict) -> None:  # type: ignore[no-untyped-def,type-arg]
    """§2.8: won at `needed` (5) Breakthroughs, lost at `setbacks_allowed` (4) Setbacks."""
    with pytest.raises(RunebookError) as error:
        rules.run("Challenge", modifier=4, dice=[1, 1, 1], answers={"task": "generic_task", "other": "no_other_power"},
                  **inputs)
    assert _codes(error) == ["E0613"]


def test_a_challenge_one_breakthrough_from_the_goal_is_won_by_a_medium(rules) -> None:  # type: ignore[no-untyped-def]
    """4 of 5 Breakthroughs; +4 against 12 with 8, 9, 1: 12, 13, 5 -> Medium: a Breakthrough."""
    run = rules.run("Challenge", modifier=4, breakthroughs=4, dice=[8, 9, 1],
                    answers={"task": "accept_the_challenge", "other": "no_other_power"})
    assert _successes([8, 9, 1], 4, 12) == 2
    assert (run.results["breakthroughs"], str(run.results["outcome"])) == (5, "won")


def test_eerie_refuses_a_negative_n(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    walker = rules.entity(_file(tmp_path, "w.yaml", "name: W\nstats:\n  Will: 1\n"))
    with pytest.raises(RunebookError) as error:
        rules.run("Enter Eerie", as_=walker, N=-2, threshold=10, dice=[1, 1, 1])
    assert _codes(error) == ["E0613"]


def test_negative_xp_is_refused(rules) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as error:
        rules.resolve("Advancement", xp=-60)
    assert _codes(error) == ["E0613"]


def _rising_level(xp: int) -> int:
    """Level L + 1 costs 50 x L more: the total for level L is 50 (1 + 2 + ... + (L - 1))."""
    level, needed = 1, 50
    while xp >= needed:
        level += 1
        needed += 50 * level
    return level


@pytest.mark.parametrize("xp", [0, 49, 50, 149, 150, 9499, 9500, 10499, 10500, 30000])
def test_the_rising_scale_has_no_level_cap(rules, xp: int) -> None:  # type: ignore[no-untyped-def]
    run = rules.resolve("Advancement", xp=xp, options={"xp_per_level": "rising_50"})
    level = _rising_level(xp)
    assert run.results["level"] == level
    assert run.results["tier"] == 1 + (level - 1) // 5 and run.results["pool"] == 3 + (level - 1) // 5


# ---------------------------------------------------------------- golden cases through the command line


def test_golden_tier_two_charge_on_the_command_line(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    hero = _file(tmp_path, "i.yaml", ITZEL.read_text(encoding="utf-8").replace("name: Itzel\n", "name: Itzel\nxp: 260\n"))
    run = cli("run", "mestezia", "Berserker Charge", "--as", hero, "--against", str(INQUISITOR), "--dice", "6,7,9,9")
    assert run.code == 0, run.stderr
    # 12, 13, 15, 15 against 12: four successes; 4 CP paid of 6.
    assert "\ngrade: High\ndamage: 16\n" in run.stdout


def test_golden_start_phase_on_the_command_line(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    burner = _file(tmp_path, "b.yaml", "name: Burner\nstats:\n  Max HP: 20\nresources:\n  HP: 2\n"
                   "conditions:\n  - Ongoing Damage(3, Fire)\n  - Regenerating(2)\n")
    run = cli("run", "mestezia", "Start Phase", "--as", burner, "--json")
    assert run.code == 0, run.stderr
    assert '"Dying"' in run.stdout and '"hp": 2' in run.stdout


def test_golden_turn_order_refusal_on_the_command_line(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "mestezia", "turn order", "--with", "segment=15")
    assert run.code == 1 and "E0613" in run.stderr and "help: here segment = 15" in run.stderr
