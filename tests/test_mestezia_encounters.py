"""Mestezia encounters (rulesets/mestezia/encounters.rules): Tier pools, combo checks, Aid,
turn order, challenge encounters, and the hex grid (reach, movement, fog).

Worked examples of spec mestezia.md §4.1 owned here: MZ-W01, W02, W03, W03b, W05, W06, W07,
W08, W10, W14, W15 (the skill-check ones also live in test_checks_mestezia.py). Aid's best
placement and the chance of winning a challenge are checked against enumerations written
below, not against figures taken from the implementation.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import pytest
import yaml

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter import roll
from runebook.interpreter.rules.procedures import ScriptedDriver
from runebook.rulesets import RULESETS_DIR
from mestezia_helpers import challenge_win

SKIRMISH = RULESETS_DIR / "mestezia" / "examples" / "skirmish"
RAIDER, SEER, GUARD, LOOKOUT = (str(SKIRMISH / f"{n}.yaml") for n in ("raider", "seer", "guard", "lookout"))
GRADES = ["Fail", "Low", "Medium", "High"]


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("mestezia")


def shown(results: dict[str, Any]) -> dict[str, Any]:
    return {k: v if isinstance(v, (int, bool, Fraction)) or v is None else str(v) for k, v in results.items()}


def grade_name(successes: int) -> str:
    return GRADES[min(successes, 3)]


def placed_at(tmp_path: Path, name: str, q: int, r: int, **stats: int) -> str:
    path = tmp_path / f"{name.lower()}.yaml"
    path.write_text(yaml.safe_dump({"name": name, "position": [q, r], "stats": stats or {"Defense": 10}}))
    return str(path)


# ---------------------------------------------------------------- checks: combo, tiers (§2.1, §2.3)


def test_w01_w02_a_single_skill_check(rules) -> None:  # type: ignore[no-untyped-def]
    """MZ-W01/W02: 8, 6, 1 with +3 are 11, 9, 4; against 9 two succeed: Medium."""
    result = rules.resolve("combo check", dice=[8, 6, 1], first=3, threshold=9)
    assert shown(result.results) == {"modifier": 3, "successes": 2, "grade": "Medium"}
    ops = [e["value"] for e in result.trace.to_list() if e.get("expr") == "each(dice) + modifier"]
    assert list(ops[0]) == [11, 9, 4]


def test_w03_combo_check_adds_the_skills_of_the_character(rules) -> None:  # type: ignore[no-untyped-def]
    """MZ-W03: Influence + Trickery (+2 +2) for 11 on 4, 5, 10: totals 8, 9, 14, one success (Low)."""
    raider = rules.entity(RAIDER)
    result = rules.resolve("combo check", dice=[4, 5, 10], as_=raider, threshold=11,
                           first=raider.stats["Influence"], second=raider.stats["Trickery"])
    assert shown(result.results) == {"modifier": 4, "successes": 1, "grade": "Low"}


def test_combo_check_skill_names_from_the_command_line(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("resolve", "mestezia", "combo check", "--as", RAIDER, "--with", "first=Influence",
              "--with", "second=Trickery", "--with", "threshold=11", "--dice", "4,5,10", "--json")
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout)["results"] == {"modifier": 4, "successes": 1, "grade": "Low"}


def test_w05_bracket_notation() -> None:
    """MZ-W05: +[Grade] with grade 2 is +2; Strength +2 makes [Strength + 1] +3."""
    assert roll("Grade", env={"Grade": 2}, seed=0).total == 2
    assert roll("Strength + 1", env={"Strength": 2}, seed=0).total == 3


@pytest.mark.parametrize("xp,level,tier,pool", [(0, 1, 1, 3), (49, 1, 1, 3), (50, 2, 1, 3), (249, 5, 1, 3),
                                                (250, 6, 2, 4), (499, 10, 2, 4), (500, 11, 3, 5)])
def test_tier_adds_dice(rules, xp: int, level: int, tier: int, pool: int) -> None:  # type: ignore[no-untyped-def]
    """§2.1/A8: a level per 50 XP, a Tier per 5 levels from level 6, pool = 3 + (Tier - 1)."""
    assert shown(rules.resolve("advancement", xp=xp).results) == {"level": level, "tier": tier, "pool": pool}


def test_advancement_options(rules) -> None:  # type: ignore[no-untyped-def]
    def rising_level(xp: int) -> int:  # 50 x L more XP to go from level L to L + 1
        level, need = 1, 50
        while xp >= need:
            xp -= need
            level += 1
            need = 50 * level
        return level

    for xp in (0, 49, 50, 149, 150, 299, 300, 1049, 1050, 9499, 9500):
        got = rules.resolve("advancement", xp=xp, options={"xp_per_level": "rising_50"}).results
        assert got["level"] == min(rising_level(xp), 20), xp
    five = rules.resolve("advancement", xp=200, options={"tier_start_levels": "level_5"}).results
    assert shown(five) == {"level": 5, "tier": 2, "pool": 4}
    four = rules.resolve("advancement", xp=0, options={"pool_base": "four"}).results
    assert four["pool"] == 4


def test_a_higher_tier_rolls_more_dice(rules) -> None:  # type: ignore[no-untyped-def]
    result = rules.resolve("combo check", dice=[10, 8, 5, 1], tier=2, first=6, threshold=12)
    assert shown(result.results) == {"modifier": 6, "successes": 2, "grade": "Medium"}
    with pytest.raises(RunebookError) as caught:
        rules.resolve("combo check", dice=[10, 8, 5], tier=2, first=6, threshold=12)
    assert caught.value.diagnostics[0].code == "E0501"


# ---------------------------------------------------------------- aid (§2.4)


def best_aid(dice: list[int], modifier: int, threshold: int, gifts: list[int]) -> int:
    """Every way to put each ally's whole bonus on one die (several on one die allowed)."""
    best = 0
    for placement in product(range(len(dice)), repeat=len(gifts)):
        extra = [0] * len(dice)
        for die, gift in zip(placement, gifts):
            extra[die] += gift
        best = max(best, sum(d + modifier + e >= threshold for d, e in zip(dice, extra)))
    return best


def test_w03b_aid_lifts_the_bluff_to_medium(rules) -> None:  # type: ignore[no-untyped-def]
    """MZ-W03b: the bluff (4, 5, 10 with +4 against 11: totals 8, 9, 14) is Low; the ally's
    own check (8, 7, 10 with +4: 12, 11, 14) is grade 3, a +3 on one die: Medium."""
    run = rules.run("aided check", dice=[4, 5, 10, 8, 7, 10], threshold=11, modifier=4, ally_modifier=4)
    assert shown(run.results) == {"unaided": 1, "aid": 3, "lifted": 1, "successes": 2, "grade": "Medium"}
    # The book's placements: on the 9 or the 8 -> Medium, on the 14 -> still Low.
    assert best_aid([4, 5, 10], 4, 11, [3]) == 2
    assert sum(t >= 11 for t in (8, 9, 14 + 3)) == 1


def test_several_allies_may_aid_the_same_die(rules) -> None:  # type: ignore[no-untyped-def]
    """One failing die needs +4: two allies of grade 2 together lift it; alone neither does."""
    # Roller: 9, 9, 3 with +1 against 8 -> 10, 10, 4 (needs +4). Allies: 5, 5, 1 with +2 vs 8 -> grade 0?
    # no: 7, 6, 1 with +2 against 8 -> 9, 8, 3: grade 2 each.
    run = rules.run("aided check", dice=[9, 9, 3, 7, 6, 1, 7, 6, 1], threshold=8, modifier=1, allies=2,
                    ally_modifier=2)
    assert shown(run.results) == {"unaided": 2, "aid": 4, "lifted": 1, "successes": 3, "grade": "High"}
    one = rules.run("aided check", dice=[9, 9, 3, 7, 6, 1], threshold=8, modifier=1, allies=1, ally_modifier=2)
    assert one.results["successes"] == 2


def test_best_placement_spreads_bonuses_when_that_lifts_more(rules) -> None:  # type: ignore[no-untyped-def]
    """Three failing dice each short by 1 and three allies of grade 1: one die each."""
    run = rules.run("aided check", dice=[6, 6, 6, 10, 1, 1, 10, 1, 1, 10, 1, 1], threshold=8, modifier=1,
                    allies=3, ally_modifier=0, ally_threshold=10)
    assert shown(run.results) == {"unaided": 0, "aid": 3, "lifted": 3, "successes": 3, "grade": "High"}


def test_best_placement_matches_every_assignment(rules) -> None:  # type: ignore[no-untyped-def]
    """Random rolls with one to three allies (pools of 3 and 4) against a brute force over every
    assignment of each ally's bonus to a die."""
    rng = random.Random(5)
    for _ in range(120):
        tier, allies = rng.choice([1, 2]), rng.randint(1, 3)
        modifier, threshold = rng.randint(-1, 4), rng.randint(7, 13)
        ally_modifier, ally_threshold = rng.randint(0, 5), rng.randint(6, 12)
        dice = [rng.randint(1, 10) for _ in range(2 + tier)]
        ally_dice = [[rng.randint(1, 10) for _ in range(3)] for _ in range(allies)]
        gifts = [sum(d + ally_modifier >= ally_threshold for d in a) for a in ally_dice]
        run = rules.run("aided check", dice=dice + [d for a in ally_dice for d in a], threshold=threshold,
                        modifier=modifier, tier=tier, allies=allies, ally_modifier=ally_modifier,
                        ally_threshold=ally_threshold)
        expected = best_aid(dice, modifier, threshold, gifts)
        assert run.results["successes"] == expected, (dice, modifier, threshold, gifts)
        assert run.results["aid"] == sum(gifts)
        assert str(run.results["grade"]) == grade_name(expected)


def test_aid_odds_with_one_ally_match_an_enumeration(rules) -> None:  # type: ignore[no-untyped-def]
    gifts = grade_odds(3, 2, 10)  # the ally's grade: its own three dice, +2 against 10
    expected: dict[int, Fraction] = {}
    for mine in product(range(1, 11), repeat=3):
        for gift, p in gifts.items():
            best = best_aid(list(mine), 1, 10, [gift])
            expected[best] = expected.get(best, Fraction(0)) + p / 1000
    odds = rules.odds("aided check", threshold=10, modifier=1, ally_modifier=2)
    assert dict(odds.results["successes"]) == expected


def test_power_checks_cannot_be_aided(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "mestezia", "aided check", "--with", "threshold=11", "--with", "power_check=true",
              "--dice", "4,5,10,8,7,10")
    assert run.code == 1 and run.stdout == ""
    assert "E0613" in run.stderr and "requires not power_check" in run.stderr
    assert "Traceback" not in run.stderr


def test_at_most_three_allies(rules) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as caught:
        rules.run("aided check", dice=[1] * 15, threshold=8, allies=4)
    assert caught.value.diagnostics[0].code == "E0613"


# ---------------------------------------------------------------- turn order (§2.7)


@pytest.mark.parametrize("die,initiative,segment,bonus", [(9, 3, 10, 2), (7, 3, 10, 0), (4, 2, 6, 0),
                                                         (1, -3, 1, 0), (10, 0, 10, 0)])
def test_turn_order_segment_and_first_round_cp(rules, die, initiative, segment, bonus) -> None:  # type: ignore[no-untyped-def]
    run = rules.run("turn order", dice=[die], initiative=initiative)
    total = die + initiative
    assert run.results == {"total": total, "segment": segment, "bonus_cp": bonus}
    assert segment == max(1, min(total, 10)) and bonus == max(0, total - 10)


def test_turn_order_in_a_challenge_adds_no_initiative(rules) -> None:  # type: ignore[no-untyped-def]
    run = rules.run("turn order", dice=[9], initiative=3, combat=False)
    assert run.results == {"total": 9, "segment": 9, "bonus_cp": 0}


def test_an_npc_segment_is_data_and_rolls_no_die(rules) -> None:  # type: ignore[no-untyped-def]
    run = rules.run("turn order", dice=[], segment=7)
    assert run.results == {"total": 7, "segment": 7, "bonus_cp": 0}


def test_initiative_fills_from_the_character(cli, snapshot) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "mestezia", "turn order", "--as", SEER, "--dice", "9")
    assert run.code == 0, run.stderr
    assert run.stdout.endswith("total: 12\nsegment: 10\nbonus_cp: 2\n")
    assert run.stdout == snapshot


def test_initiative_12_starts_round_one_with_8_cp(rules) -> None:  # type: ignore[no-untyped-def]
    """§2.7: 9 + Initiative 3 = 12: segment 10 and 2 extra CP, added after the turn's reset."""
    raider = rules.entity(RAIDER)
    run = rules.run("first turn", dice=[9], as_=raider, initiative=3)
    assert run.results["segment"] == 10 and run.results["bonus_cp"] == 2
    assert run.results["cp"] == 8


def test_first_turn_resets_cp_before_the_bonus(rules) -> None:  # type: ignore[no-untyped-def]
    """Spent CP come back at the reset; without a bonus the first turn has 6."""
    spent = rules.entity(RAIDER)
    spent.resources["CP"] = 1
    run = rules.run("first turn", dice=[5], as_=spent, initiative=2)
    assert run.results == {"segment": 7, "bonus_cp": 0, "cp": 6}
    assert spent.resources["CP"] == 1  # the run works on a copy


def who_first(rules, dice, answers=(), **inputs):  # type: ignore[no-untyped-def]
    return rules.run("who goes first", dice=dice, driver=ScriptedDriver(list(answers)), **inputs)


def test_higher_segment_goes_first(rules) -> None:  # type: ignore[no-untyped-def]
    run = who_first(rules, [6, 8], initiative=1, target_initiative=0)
    assert shown(run.results) == {"segment": 7, "target_segment": 8, "tied": False, "first": "target_first"}


def test_equal_segments_are_a_tie_the_players_decide(rules) -> None:  # type: ignore[no-untyped-def]
    run = who_first(rules, [5, 6], ["target_first"], initiative=1, target_initiative=0)
    assert shown(run.results)["tied"] is True and str(run.results["first"]) == "target_first"
    assert list(run.choices) == [("decided", "target_first")]


def test_segment_10_orders_by_total_by_default(rules) -> None:  # type: ignore[no-untyped-def]
    """A10: 12 and 10 are both segment 10; by_total puts 12 first, tie lets them decide."""
    run = who_first(rules, [9, 10], initiative=3, target_initiative=0)
    assert shown(run.results) == {"segment": 10, "target_segment": 10, "tied": False, "first": "actor_first"}
    tie = who_first(rules, [9, 10], ["target_first"], initiative=3, target_initiative=0,
                    options={"segment10_order": "tie"})
    assert shown(tie.results) == {"segment": 10, "target_segment": 10, "tied": True, "first": "target_first"}


def test_the_encounter_file_gives_an_order(rules) -> None:  # type: ignore[no-untyped-def]
    """The example encounter: the characters roll (raider 6 + 2 = 8, seer 9 + 3 = 12), the
    NPCs act in their listed segments (guard 7, lookout 4)."""
    encounter = yaml.safe_load((SKIRMISH / "encounter.yaml").read_text())
    rolls = {"Raider": [6], "Seer": [9]}
    places = []
    for combatant in encounter["combatants"]:
        entity = rules.entity(str(SKIRMISH / combatant["file"]))
        if "segment" in combatant:
            run = rules.run("turn order", as_=entity, dice=[], segment=combatant["segment"])
        else:
            run = rules.run("turn order", as_=entity, dice=rolls[entity.name])
        places.append((run.results["segment"], run.results["total"], entity.name))
    order = [name for _, _, name in sorted(places, reverse=True)]
    assert order == ["Seer", "Raider", "Guard", "Lookout"]
    assert dict((n, s) for s, _, n in places) == {"Seer": 10, "Raider": 8, "Guard": 7, "Lookout": 4}


# ---------------------------------------------------------------- challenges (§2.8)


def challenge(rules, dice, tasks, **inputs):  # type: ignore[no-untyped-def]
    answers = [a for task in tasks for a in (task, "no_other_power")]
    return rules.run("challenge", dice=dice, driver=ScriptedDriver(answers), **inputs)


def test_w06_accept_the_challenge_earns_the_fourth_breakthrough(rules) -> None:  # type: ignore[no-untyped-def]
    """MZ-W06: Discipline + Perception for 12 with four dice, totals 16, 14, 11, 7: Medium, a
    Breakthrough: the team has four of the five it needs, the challenge goes on."""
    run = challenge(rules, [10, 8, 5, 1], ["accept_the_challenge"], pool=4, modifier=6, threshold=12,
                    breakthroughs=3, turns=1)
    assert shown(run.results) == {"breakthroughs": 4, "setbacks": 0, "momentum": 0, "outcome": "ongoing"}


def test_w07_build_momentum_gives_the_next_check_plus_one(rules) -> None:  # type: ignore[no-untyped-def]
    """MZ-W07: Analysis for 12, "one 13": Low, no Breakthrough, the next player gets +1. The
    next turn's 9, 9, 1 with +3 +1 reach 13, 13, 5: Medium, a Breakthrough (without the +1: Fail)."""
    run = challenge(rules, [10, 2, 1, 8, 8, 1], ["build_momentum", "accept_the_challenge"], modifier=3,
                    threshold=12, turns=2)
    assert shown(run.results) == {"breakthroughs": 1, "setbacks": 0, "momentum": 0, "outcome": "ongoing"}
    first = challenge(rules, [10, 2, 1], ["build_momentum"], modifier=3, threshold=12, turns=1)
    assert shown(first.results) == {"breakthroughs": 0, "setbacks": 0, "momentum": 1, "outcome": "ongoing"}
    without = challenge(rules, [8, 8, 1], ["accept_the_challenge"], modifier=3, threshold=12, turns=1)
    assert shown(without.results)["setbacks"] == 1


def test_a_challenge_is_won_or_lost(rules) -> None:  # type: ignore[no-untyped-def]
    won = challenge(rules, [10, 10, 1], ["accept_the_challenge"], modifier=3, breakthroughs=4)
    assert str(won.results["outcome"]) == "won"
    lost = challenge(rules, [1, 1, 1], ["accept_the_challenge"], modifier=3, setbacks=3)
    assert shown(lost.results) == {"breakthroughs": 0, "setbacks": 4, "momentum": 0, "outcome": "lost"}


def test_generic_task_table_option(rules) -> None:  # type: ignore[no-untyped-def]
    low = [10, 1, 1]  # +3 against 12: one success
    default = challenge(rules, low, ["generic_task"], modifier=3, turns=1)
    assert default.results["setbacks"] == 0
    strict = challenge(rules, low, ["generic_task"], modifier=3, turns=1, options={"generic_task_table": "low_setback"})
    assert strict.results["setbacks"] == 1


def grade_odds(pool: int, modifier: int, threshold: int) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for faces in product(range(1, 11), repeat=pool):
        g = sum(f + modifier >= threshold for f in faces)
        out[g] = out.get(g, Fraction(0)) + Fraction(1, 10**pool)
    return out


def test_challenge_odds_match_a_markov_chain(rules) -> None:  # type: ignore[no-untyped-def]
    """Five Breakthroughs before four Setbacks, Accept the Challenge every turn, +4 against 12:
    Medium or better is a Breakthrough, a Fail a Setback, a Low nothing (the turn repeats)."""
    grades = grade_odds(3, 4, 12)
    p_b = sum(p for g, p in grades.items() if g >= 2)
    p_s = grades.get(0, Fraction(0))

    won = challenge_win(p_b, p_s)
    odds = rules.odds("challenge", modifier=4, answers={"task": "accept_the_challenge"})
    outcome = {str(k): v for k, v in odds.results["outcome"].items()}
    assert outcome == {"won": won, "lost": 1 - won}
    assert odds.residual == 0


# ---------------------------------------------------------------- the grid (§2.12, §2.13)


def test_w08_fog_conceals_beyond_six_hexes(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """MZ-W08: more than 6 hexes away is Concealed 1; at 6, not."""
    raider = rules.entity(RAIDER)
    far = rules.resolve("fog", as_=raider, against=rules.entity(LOOKOUT)).results
    assert far == {"distance": 7, "concealed": 1}
    six = rules.entity(placed_at(tmp_path, "Scout", 6, -3))
    assert rules.resolve("fog", as_=raider, against=six).results == {"distance": 6, "concealed": 0}


def test_w10_defense_check_against_the_spores(rules) -> None:  # type: ignore[no-untyped-def]
    """MZ-W10: Defense + Health against 10, totals 16, 10, 12: High."""
    result = rules.resolve("combo check", dice=[10, 4, 6], first=4, second=2, threshold=10)
    assert shown(result.results) == {"modifier": 6, "successes": 3, "grade": "High"}


def test_w14_speed_3_moves_up_to_3_hexes(rules) -> None:  # type: ignore[no-untyped-def]
    raider = rules.entity(RAIDER)  # at (0, 0), Speed 3
    run = rules.run("move", as_=raider, q=2, r=1, speed=raider.stats["Speed"])
    assert run.results == {"distance": 3, "reachable": 37}
    with pytest.raises(RunebookError) as caught:
        rules.run("move", as_=raider, q=3, r=1, speed=3)
    assert caught.value.diagnostics[0].code == "E0613"


@pytest.mark.parametrize("q,r,reach,ok", [(1, 0, 1, True), (2, -1, 1, False), (0, 3, 3, True),
                                          (-2, -2, 3, False)])
def test_w15_reach(rules, tmp_path: Path, q: int, r: int, reach: int, ok: bool) -> None:  # type: ignore[no-untyped-def]
    """MZ-W15: Melee 1 reaches the adjacent hexes only; Melee 3 reaches 3 hexes."""
    target = rules.entity(placed_at(tmp_path, "Target", q, r))
    result = rules.resolve("reach", as_=rules.entity(RAIDER), against=target, reach=reach).results
    assert result["in_reach"] is ok
    assert result["distance"] == max(abs(q), abs(r), abs(q + r))


def test_a_power_against_a_target_out_of_reach_is_refused(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "mestezia", "Berserker Charge", "--as", RAIDER, "--against", LOOKOUT, "--dice", "6,7,9")
    assert run.code == 1, run.show()
    assert run.stdout == "" and "Traceback" not in run.stderr
    assert "E0613 'Use Power' requires" in run.stderr
    assert "help: here hex_distance(actor, target) = 7;" in run.stderr


def test_refusal_leaves_the_state_unchanged(rules) -> None:  # type: ignore[no-untyped-def]
    raider = rules.entity(RAIDER)
    with pytest.raises(RunebookError):
        rules.run("Berserker Charge", as_=raider, against=rules.entity(LOOKOUT), dice=[6, 7, 9])
    assert raider.resources["CP"] == 6


def test_a_power_in_reach_works(rules) -> None:  # type: ignore[no-untyped-def]
    run = rules.run("Berserker Charge", as_=rules.entity(RAIDER), against=rules.entity(GUARD), dice=[6, 7, 9])
    assert str(run.results["grade"]) == "High" and run.results["damage"] == 15
    assert run.state["actor"]["resources"]["CP"] == 2


def test_entities_without_positions_are_not_checked(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """itzel.yaml has no position: no reach applies (she is not on a grid)."""
    itzel = rules.entity(str(RULESETS_DIR / "mestezia" / "examples" / "itzel.yaml"))
    far = rules.entity(placed_at(tmp_path, "Far", 9, 0, Defense=12))
    run = rules.run("Berserker Charge", as_=itzel, against=far, dice=[6, 7, 9])
    assert run.results["damage"] == 15


def test_power_odds_for_the_example_pair(cli) -> None:  # type: ignore[no-untyped-def]
    """Grades and damage of Berserker Charge (+6 against Defense 12, weapon damage 12):
    each die hits on 6 or more (1/2); damage is 12 + grade on a hit."""
    run = cli("odds", "mestezia", "Berserker Charge", "--as", RAIDER, "--against", GUARD, "--json")
    assert run.code == 0, run.stderr
    results = json.loads(run.stdout)["results"]
    hits = {k: Fraction(sum(1 for f in product(range(1, 11), repeat=3) if sum(x + 6 >= 12 for x in f) == k), 1000)
            for k in range(4)}
    assert {k: Fraction(v) for k, v in results["grade"].items()} == {GRADES[k]: p for k, p in hits.items()}
    damage = {(0 if k == 0 else 12 + k): p for k, p in hits.items()}
    assert {int(k): Fraction(v) for k, v in results["damage"].items()} == damage


def test_path_rule_option_and_melee_areas(tmp_path: Path) -> None:
    """A18: the three-cell triangle is a Path only under degree2; a melee burst 1 is 6 cells."""
    home = tmp_path / "areas.rules"
    home.write_text("extends mestezia\n\ncheck Shapes ()\n"
                    "  result triangle = valid_path(cells(cell(0, 0), cell(1, 0), cell(1, -1)))\n"
                    "  result line = valid_path(ray(cell(0, 0), 2, 3))\n"
                    "  result melee = cell_count(melee_area(burst(cell(2, 2), 1), cell(2, 2)))\n")
    rules = interpreter.load(str(tmp_path))
    assert rules.resolve("shapes").results == {"triangle": False, "line": True, "melee": 6}
    loose = rules.resolve("shapes", options={"path_rule": "degree2"}).results
    assert loose == {"triangle": True, "line": True, "melee": 6}


def test_the_tour_shows_the_power_odds_for_the_example_pair(capsys) -> None:  # type: ignore[no-untyped-def]
    from runebook.interpreter.cli.commands.tour import _shown_odds

    _shown_odds(RULESETS_DIR / "mestezia", "mestezia")
    out = capsys.readouterr().out
    assert ('$ runebook odds mestezia "Berserker Charge" --as rulesets/mestezia/examples/skirmish/raider.yaml '
            "--against rulesets/mestezia/examples/skirmish/guard.yaml") in out
    # A High needs all three dice on 6+ (1/8); it deals 12 + 3 damage.
    assert "High" in out and "1/8" in out
    assert any(line.split()[:1] == ["15"] and "1/8" in line for line in out.splitlines())


def test_a_power_on_oneself_has_no_reach_limit(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Bastion of Defense targets "You": the attacker 5 hexes away does not make it out of reach."""
    caster = tmp_path / "warden.yaml"
    caster.write_text("name: Warden\nposition: [0, 0]\nstats:\n  Defense: 4\nresources:\n  CP: 5\n"
                      "powers: [Bastion of Defense]\n")
    attacker = rules.entity(placed_at(tmp_path, "Archer", 5, 0))
    run = rules.run("Bastion of Defense", as_=rules.entity(str(caster)), against=attacker, dice=[10, 4, 6],
                    skills=6, threshold=10, incoming=1, driver=ScriptedDriver(["happened"]))
    assert str(run.results["grade"]) == "High" and run.results["taken"] == 0


def test_a_power_without_a_printed_reach_is_melee(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Sleep's Target line gives no reach: 1 hex (melee, the default)."""
    assert rules.resolve("reach", as_=rules.entity(RAIDER), against=rules.entity(GUARD)).results["in_reach"]
    far = rules.entity(placed_at(tmp_path, "Sleeper", 2, 0, Will=12))
    caster = tmp_path / "charmer.yaml"
    caster.write_text("name: Charmer\nposition: [0, 0]\nstats:\n  Will: 3\nresources:\n  CP: 6\n  Sg: 1\n"
                      "powers: [Sleep]\n")
    with pytest.raises(RunebookError) as caught:
        rules.run("Sleep", as_=rules.entity(str(caster)), against=far, dice=[9, 9, 9])
    assert caught.value.diagnostics[0].code == "E0613"
    assert "hex_distance(actor, target) = 2" in str(caught.value)
