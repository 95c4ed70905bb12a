"""The d10 pool played whole: rolls from character sheets, spending threshold successes,
consolations and the troupe's shared Momentum, Feats of Scale, range bands, mixed actions,
teamwork, contested rolls and complex actions (rulesets/d10-pool/*.rules).

Each golden case of spec d10pool.md §4.1 (D10-W01 to W15) reproduces with given dice; the
ones about a single check live in test_checks_d10pool.py. Teamwork and complex actions are
compared with exact enumerations written here: faces with itertools.product when 10-again is
off, and a die's 10-again chain in closed form when it is on.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.rules.procedures import ScriptedDriver
from d10pool_helpers import EXAMPLES, plain, sheet

TEN = Fraction(1, 10)


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("d10-pool")


def roll(rules, who: str, *, answers: list[str] = (), troupe=None, **inputs: Any):  # type: ignore[no-untyped-def]
    """One Roll by a sheet, with the troupe (troupe.yaml unless given) holding Momentum."""
    hero = sheet(rules, who) if isinstance(who, str) else who
    pool_holder = troupe if troupe is not None else sheet(rules, "troupe")
    return rules.run("Roll", as_=[hero, pool_holder], driver=ScriptedDriver(list(answers)), **inputs)


def carried(rules, state: dict[str, Any], tmp_path: Path):  # type: ignore[no-untyped-def]
    """A character after a run, written back to a sheet as a player would, and read again."""
    path = tmp_path / f"{state['name'].replace(' ', '_')}.yaml"
    path.write_text(yaml.safe_dump({k: state[k] for k in ("name", "stats", "resources", "conditions")}))
    return rules.entity(str(path))


# ---------------------------------------------------------------- golden cases (spec §4.1)


def test_pool_is_attribute_plus_skill_from_the_sheet(rules) -> None:  # type: ignore[no-untyped-def]
    """DB.3: Ayla's Dexterity 4 + Athletics 3 is seven dice; 10, 8, 9, 9 and the 10's extra
    die (8) are five successes against Difficulty 2: three threshold successes, Amazing."""
    run = roll(rules, "ayla", attribute="Dexterity", skill="Athletics", difficulty=2,
               dice=[10, 8, 3, 2, 9, 9, 1, 8], answers=["done"])
    assert plain(run.results) | {} == {
        "pool": 7, "difficulty": 2, "successes": 5, "total_successes": 5, "outcome": "success",
        "threshold_successes": 3, "degree": "Amazing", "complications_bought": [], "complications_left": [],
        "stunts": [], "threshold_left": 3, "consolation": None, "momentum_gained": 0, "momentum": 3}


def test_w02_botch_gives_three_momentum_and_nothing_else(rules) -> None:  # type: ignore[no-untyped-def]
    """D10-W02: Bram's Manipulation 2 + Persuasion 1 rolls [1, 4, 6]: a Botch. The only
    consolation is Momentum (no choice is asked), 3 of it: the troupe goes from 3 to 6."""
    run = roll(rules, "bram", attribute="Manipulation", skill="Persuasion", dice=[1, 4, 6])
    results = plain(run.results)
    assert (results["pool"], results["outcome"], results["consolation"]) == (3, "botch", "take_momentum")
    assert (results["momentum_gained"], results["momentum"]) == (3, 6)
    assert run.choices == ()


@pytest.mark.parametrize(("specialty", "gained"), [(False, 1), (True, 2)])
def test_w03_failure_momentum(rules, specialty: bool, gained: int) -> None:  # type: ignore[no-untyped-def]
    """D10-W03: a failed roll taking Momentum gives 1, 2 with a Specialty."""
    run = roll(rules, "bram", attribute="Manipulation", skill="Persuasion", specialty=specialty,
               dice=[3, 4, 6], answers=["take_momentum"])
    assert plain(run.results)["outcome"] == "failure"
    assert (run.results["momentum_gained"], run.results["momentum"]) == (gained, 3 + gained)


@pytest.mark.parametrize(("players", "capacity"), [(4, 8), (1, 2)])
def test_w04_momentum_capacity(rules, tmp_path: Path, players: int, capacity: int) -> None:  # type: ignore[no-untyped-def]
    """D10-W04: the pool holds twice the players; what comes beyond is lost (A14)."""
    path = tmp_path / "troupe.yaml"
    path.write_text(f"name: Table\nstats:\n  Players: {players}\nresources:\n  Momentum: 0\n")
    troupe = rules.entity(str(path))
    run = rules.run("Gain Momentum", as_=troupe, points=10)
    assert (run.results["momentum"], run.results["capacity"]) == (capacity, capacity)
    with pytest.raises(RunebookError) as refused:
        rules.run("Gain Momentum", as_=troupe, points=capacity + 1, options={"momentum_overflow": "refuse_gain"})
    assert [d.code for d in refused.value.diagnostics] == ["E0613"]


def test_w05_difficulty_zero_is_refused_in_a_roll(rules) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as error:
        roll(rules, "ayla", attribute="Dexterity", skill="Athletics", difficulty=0, dice=[8] * 7)
    assert [d.code for d in error.value.diagnostics] == ["E0613"]


def test_w06_contested_tie_from_two_sheets(rules) -> None:  # type: ignore[no-untyped-def]
    """D10-W06: Ayla (Dexterity 4 + Athletics 3) against the Night Hunter (Dexterity 3 +
    Athletics 2): 3 successes each, the defender keeps the tie; one more and Ayla wins."""
    hunter = sheet(rules, "hunter")
    inputs = dict(attribute="Dexterity", skill="Athletics", defender_attribute="Dexterity",
                  defender_skill="Athletics")
    tie = rules.run("Contest", as_=sheet(rules, "ayla"), against=hunter,
                    dice=[8, 9, 8, 1, 2, 3, 4, 9, 9, 8, 2, 2], **inputs)
    assert plain(tie.results) == {"total": 3, "defender_total": 3, "outcome": "failure", "margin": 0}
    win = rules.run("Contest", as_=sheet(rules, "ayla"), against=hunter,
                    dice=[8, 9, 8, 8, 2, 3, 4, 9, 9, 8, 2, 2], **inputs)
    assert plain(win.results) == {"total": 4, "defender_total": 3, "outcome": "success", "margin": 1}


def test_w07_out_of_range_adds_two_difficulty(rules) -> None:  # type: ignore[no-untyped-def]
    """D10-W07: Difficulty 2 at Out of Range is 4: three successes fail there, succeed at Long."""
    dice = [8, 9, 9, 1, 2, 3, 4]
    far = roll(rules, "ayla", attribute="Dexterity", skill="Firearms", difficulty=2, range="out_of_range",
               dice=dice[:5], answers=["fateful_encounter"])
    assert (far.results["difficulty"], plain(far.results["outcome"])) == (4, "failure")
    near = roll(rules, "ayla", attribute="Dexterity", skill="Firearms", difficulty=2, range="long",
                dice=dice[:5], answers=["done"])
    assert (near.results["difficulty"], plain(near.results["outcome"])) == (2, "success")
    with pytest.raises(RunebookError):
        roll(rules, "ayla", attribute="Dexterity", skill="Firearms", difficulty=2, range="out_of_range",
             dice=dice[:5], options={"range_band_difficulty": "horizon_unreachable"})


def test_w08_feat_of_scale(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """D10-W08: the Title's Feat costs 1 Legend, a Calling keyword outside it 1 Legend and 2
    Momentum; either is +1 Scale (one more success once one is rolled). With 1 Momentum the
    keyword Feat is refused and nothing changes."""
    dice = [8, 2, 3, 4, 5, 6, 7]
    base = roll(rules, "ayla", attribute="Dexterity", skill="Athletics", difficulty=2, dice=dice,
                answers=["take_momentum"])
    assert plain(base.results["outcome"]) == "failure"
    title = roll(rules, "ayla", attribute="Dexterity", skill="Athletics", difficulty=2, feat="title", dice=dice)
    assert (title.results["total_successes"], plain(title.results["outcome"])) == (2, "success")
    assert title.state["actor"]["resources"]["Legend"] == 1 and title.results["momentum"] == 3
    keyword = roll(rules, "ayla", attribute="Dexterity", skill="Athletics", difficulty=2, feat="calling_keyword",
                   dice=dice)
    assert keyword.state["actor"]["resources"]["Legend"] == 1 and keyword.results["momentum"] == 1
    poor = tmp_path / "poor.yaml"
    poor.write_text("name: Poor Troupe\nstats:\n  Players: 2\nresources:\n  Momentum: 1\n")
    troupe = rules.entity(str(poor))
    with pytest.raises(RunebookError) as refused:
        roll(rules, "ayla", attribute="Dexterity", skill="Athletics", feat="calling_keyword", dice=dice,
             troupe=troupe)
    assert [d.code for d in refused.value.diagnostics] == ["E0706"]
    assert troupe.resources["Momentum"] == 1
    titleless = tmp_path / "titleless.yaml"
    titleless.write_text("name: Nobody Yet\nstats:\n  Dexterity: 2\n  Athletics: 2\nresources:\n  Legend: 1\n")
    with pytest.raises(RunebookError) as no_title:
        roll(rules, rules.entity(str(titleless)), attribute="Dexterity", skill="Athletics", feat="title",
             dice=[8, 8, 8, 8])
    assert [d.code for d in no_title.value.diagnostics] == ["E0613"]


def test_w09_unlooked_for_advantage(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """D10-W09: a failure taking Unlooked-for Advantage gives Enhancement 1 on a later roll for a
    different challenge (not the same one), used once."""
    failed = roll(rules, "ayla", attribute="Cunning", skill="Subterfuge", difficulty=2, challenge="the vault",
                  dice=[8, 1, 2, 3, 4, 5], answers=["unlooked_for_advantage"])
    assert plain(failed.results["consolation"]) == "unlooked_for_advantage"
    assert failed.results["momentum_gained"] == 0
    ayla = carried(rules, failed.state["actor"], tmp_path)
    # The same challenge again: no bonus, one success against 2 still fails.
    again = roll(rules, ayla, attribute="Cunning", skill="Subterfuge", difficulty=2, challenge="the vault",
                 dice=[8, 1, 2, 3, 4, 5], answers=["fateful_encounter"])
    assert again.results["total_successes"] == 1
    other = roll(rules, ayla, attribute="Cunning", skill="Subterfuge", difficulty=2, challenge="the guards",
                 dice=[8, 1, 2, 3, 4, 5], answers=["done"])
    assert (other.results["total_successes"], plain(other.results["outcome"])) == (2, "success")
    assert other.state["actor"]["conditions"] == []


def test_w10_mixed_action_rolls_the_smallest_pool(rules) -> None:  # type: ignore[no-untyped-def]
    """D10-W10: pools 6 and 4 roll 4 dice; two successes meet Difficulty 2 and fail Difficulty 3."""
    run = rules.run("Mixed Action", pools=[6, 4], difficulties=[2, 3], dice=[8, 9, 1, 2])
    assert len(run.trace.dice()) == 4
    assert plain(run.results) == {"pool": 4, "successes": 2, "total_successes": 2,
                                  "outcomes": ["success", "failure"], "threshold_successes": [0, 0], "momentum": 1}


def test_a6_mixed_partition(rules) -> None:  # type: ignore[no-untyped-def]
    """A6: four successes against Difficulties 2 and 3: both met when compared one by one; split
    in order, the first takes 2 and the 2 left miss the second."""
    dice = [8, 9, 10, 8, 3]
    both = rules.run("Mixed Action", pools=[4, 5], difficulties=[2, 3], dice=dice)
    assert plain(both.results["outcomes"]) == ["success", "success"]
    assert plain(both.results["threshold_successes"]) == [2, 1]
    split = rules.run("Mixed Action", pools=[4, 5], difficulties=[2, 3], dice=dice,
                      options={"mixed_allocation": "partition"})
    assert plain(split.results["outcomes"]) == ["success", "failure"]


def test_w11_enhancement_above_three_needs_a_drawback(rules) -> None:  # type: ignore[no-untyped-def]
    """D10-W11: Enhancement 4 without a Drawback is refused; with "add a complication" it plays;
    under enhancement_cap=hard_three it is held at 3 instead."""
    dice = [8, 1, 2, 3, 4, 5, 6]
    with pytest.raises(RunebookError):
        roll(rules, "ayla", attribute="Dexterity", skill="Athletics", difficulty=5, enhancement=4, dice=dice)
    ok = roll(rules, "ayla", attribute="Dexterity", skill="Athletics", difficulty=5, enhancement=4,
              drawback="add_complication", dice=dice)
    assert (ok.results["total_successes"], plain(ok.results["outcome"])) == (5, "success")
    assert plain(ok.results["complications_left"]) == [1]  # the Drawback's Minor complication stands
    capped = roll(rules, "ayla", attribute="Dexterity", skill="Athletics", difficulty=5, enhancement=4, dice=dice,
                  options={"enhancement_cap": "hard_three"}, answers=["take_momentum"])
    assert (capped.results["total_successes"], plain(capped.results["outcome"])) == (4, "failure")


def test_w12_momentum_dice(rules) -> None:  # type: ignore[no-untyped-def]
    """D10-W12: Bram's pool of 5 (Intellect 3 + Occult 2) with 2 Momentum spent rolls 7 dice;
    the troupe's pool goes from 3 to 1."""
    run = roll(rules, "bram", attribute="Intellect", skill="Occult", momentum_dice=2,
               dice=[8, 2, 2, 2, 2, 2, 2], answers=["done"])
    assert (run.results["pool"], len(run.trace.dice()), run.results["momentum"]) == (7, 7, 1)


@pytest.mark.parametrize(("example", "milestones"), [("chariot_race", 3), ("conspiracy", 5), ("awkward_case", 2),
                                                     ("derby", 4)])
def test_w13_milestone_table(rules, example: str, milestones: int) -> None:  # type: ignore[no-untyped-def]
    assert rules.resolve("milestones needed", example=example).results["milestones"] == milestones


@pytest.mark.parametrize(("rating", "name"), [(1, "Minor"), (2, "Notable"), (3, "Significant"), (4, "Major"),
                                              (5, "Extreme"), (6, None)])
def test_w15_rating_names(rules, rating: int, name: str | None) -> None:  # type: ignore[no-untyped-def]
    assert plain(rules.resolve("rating", rating=rating).results["name"]) == name


# ---------------------------------------------------------------- spending threshold successes


def test_complications_then_stunts(rules) -> None:  # type: ignore[no-untyped-def]
    """DB.9-10, ST.1: five successes against Difficulty 1 leave 4; a rating-2 complication is
    bought off (cost = rating, A9), then two stunts at 1 each use the rest; the Enhancement Stunt leaves an
    Enhancement for a related action in the scene."""
    run = roll(rules, "ayla", attribute="Dexterity", skill="Athletics", complications=[2], stunt_cost=1,
               dice=[8, 8, 9, 9, 8, 1, 2], answers=["pay", "difficulty_stunt", "enhancement_stunt"])
    results = plain(run.results)
    assert (results["threshold_successes"], results["complications_bought"], results["stunts"],
            results["threshold_left"]) == (4, [2], ["difficulty_stunt", "enhancement_stunt"], 0)
    assert [c for c, _ in run.choices] == ["buy", "stunt", "stunt"]  # nothing left: no more asked
    assert run.state["actor"]["conditions"] == ['Stunt Advantage("the challenge")']


def test_no_stunt_while_a_complication_stands(rules) -> None:  # type: ignore[no-untyped-def]
    """ST.1: a complication left standing leaves no stunt to buy (no stunt choice is asked)."""
    run = roll(rules, "ayla", attribute="Dexterity", skill="Athletics", complications=[1, 2],
               dice=[8, 8, 9, 9, 1, 1, 2], answers=["leave", "pay"])
    results = plain(run.results)
    assert (results["complications_bought"], results["complications_left"], results["stunts"],
            results["threshold_left"]) == ([2], [1], [], 1)
    assert [c for c, _ in run.choices] == ["buy", "buy"]


def test_a_complication_beyond_the_threshold_is_not_offered(rules) -> None:  # type: ignore[no-untyped-def]
    run = roll(rules, "ayla", attribute="Dexterity", skill="Athletics", complications=[3],
               dice=[8, 8, 1, 1, 1, 1, 2])
    assert plain(run.results)["complications_left"] == [3] and run.choices == ()


def test_twist_of_fate_needs_a_path(rules) -> None:  # type: ignore[no-untyped-def]
    dice = [8, 8, 1, 1, 1, 1, 2]
    with pytest.raises(RunebookError):
        roll(rules, "ayla", attribute="Dexterity", skill="Athletics", dice=dice, answers=["twist_of_fate"])
    run = roll(rules, "ayla", attribute="Dexterity", skill="Athletics", dice=dice, path=True,
               answers=["twist_of_fate"])
    assert plain(run.results["stunts"]) == ["twist_of_fate"]


def test_a8_degree_after_spending(rules) -> None:  # type: ignore[no-untyped-def]
    """A8: three threshold successes, two spent on a complication: Amazing by default (raw),
    Competent when read after spending."""
    inputs = dict(attribute="Dexterity", skill="Athletics", complications=[2], dice=[8, 8, 9, 9, 1, 1, 2],
                  answers=["pay", "done"])
    assert plain(roll(rules, "ayla", **inputs).results["degree"]) == "Amazing"
    after = roll(rules, "ayla", options={"degree_basis": "after_spend"}, **inputs)
    assert plain(after.results["degree"]) == "Competent"


# ---------------------------------------------------------------- Momentum across rolls


def test_shared_momentum_across_rolls_and_players(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """XB.14: one pool for the troupe. Ayla fails and takes Momentum (3 -> 4); Bram, on the next
    roll, spends all 4 on dice (pool 5 + 4) and the pool is empty."""
    first = roll(rules, "ayla", attribute="Cunning", skill="Subterfuge", difficulty=2,
                 dice=[2, 3, 4, 5, 6, 7], answers=["take_momentum"])
    assert first.results["momentum"] == 4
    troupe = carried(rules, first.state["actors"][1], tmp_path)
    second = roll(rules, "bram", attribute="Intellect", skill="Occult", momentum_dice=4, troupe=troupe,
                  dice=[8, 2, 2, 2, 2, 2, 2, 2, 2], answers=["done"])
    assert (second.results["pool"], second.results["momentum"]) == (9, 0)
    with pytest.raises(RunebookError):
        roll(rules, "bram", attribute="Intellect", skill="Occult", momentum_dice=5, troupe=troupe, dice=[8] * 10)


def test_a4_momentum_always(rules) -> None:  # type: ignore[no-untyped-def]
    """A4: under momentum_always a failure gives Momentum besides the consolation chosen."""
    inputs = dict(attribute="Cunning", skill="Subterfuge", difficulty=2, dice=[2, 3, 4, 5, 6, 7],
                  answers=["chance_meeting"])
    assert roll(rules, "ayla", **inputs).results["momentum_gained"] == 0
    always = roll(rules, "ayla", options={"consolation_mode": "momentum_always"}, **inputs)
    assert (always.results["momentum_gained"], always.results["momentum"]) == (1, 4)


def test_time_units_end_a_stunt_advantage(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """MS.1-9: the Enhancement Stunt's advantage lasts the scene: a round passing keeps it, a
    scene passing (or anything longer) ends it."""
    run = roll(rules, "ayla", attribute="Dexterity", skill="Athletics", dice=[8, 8, 1, 1, 1, 1, 2],
               answers=["enhancement_stunt"])
    ayla = carried(rules, run.state["actor"], tmp_path)
    kept = rules.run("Pass Time", as_=ayla, unit="round")
    assert plain(kept.results["ended"]) == ["turn", "round"]
    assert kept.state["actor"]["conditions"] == ['Stunt Advantage("the challenge")']
    ended = rules.run("Pass Time", as_=ayla, unit="episode")
    assert ended.state["actor"]["conditions"] == []


def test_ten_again_can_be_turned_off(rules) -> None:  # type: ignore[no-untyped-def]
    on = rules.resolve("action", pool=2, dice=[10, 3, 9])
    assert on.results["successes"] == 2 and len(on.trace.dice()) == 3
    off = rules.resolve("action", pool=2, dice=[10, 3], options={"ten_again": "off"})
    assert off.results["successes"] == 1 and len(off.trace.dice()) == 2


def test_a19_zero_pool_refused_as_an_option(rules) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError):
        rules.resolve("action", pool=0, dice=[], options={"zero_pool": "reject"})


# ---------------------------------------------------------------- teamwork: given dice and exact odds


def test_teamwork_from_given_dice(rules) -> None:  # type: ignore[no-untyped-def]
    """XB.12: helpers of 2 and 1 dice roll first (8, 2 and 9): 2 successes become Enhancement 2;
    the main roller's one success (8, 3, 1) makes 3 against Difficulty 3."""
    run = rules.run("Teamwork", pool=3, helpers=[2, 1], difficulty=3, dice=[8, 2, 9, 8, 3, 1])
    assert plain(run.results) == {"help": 2, "successes": 1, "total_successes": 3, "outcome": "success",
                                  "threshold_successes": 0, "degree": "Normal", "over_soft_cap": False}


def test_a7_teamwork_gate(rules) -> None:  # type: ignore[no-untyped-def]
    """A7: the main roller rolls no success: the helper's 2 do not count (gated), or do."""
    dice = [8, 9, 2, 3]
    gated = rules.run("Teamwork", pool=2, helpers=[2], difficulty=2, dice=dice)
    assert (gated.results["total_successes"], plain(gated.results["outcome"])) == (0, "failure")
    free = rules.run("Teamwork", pool=2, helpers=[2], difficulty=2, dice=dice,
                     options={"teamwork_gate": "helper_ungated"})
    assert (free.results["total_successes"], plain(free.results["outcome"])) == (2, "success")


def _roll_faces(faces: tuple[int, ...], target: int = 8) -> int:
    return sum(1 for f in faces if f >= target)


def _main_outcome(rolled: int, ones: bool, help_: int, difficulty: int, enhancement: int = 0) -> str:
    """The Action's reading, restated: bonus successes need one rolled success."""
    total = rolled + (enhancement + help_ if rolled >= 1 else 0)
    if rolled == 0 and ones:
        return "botch"
    return "success" if total >= difficulty else "failure"


@pytest.mark.parametrize(("pool", "helpers", "difficulty"), [(2, [2, 1], 3), (1, [2], 2), (3, [], 2)])
def test_teamwork_odds_without_ten_again_match_every_face(rules, pool: int, helpers: list[int],  # type: ignore[no-untyped-def]
                                                          difficulty: int) -> None:
    """Every face of every die, helpers first: 10^5 worlds for the largest case."""
    expected: Counter = Counter()
    totals: Counter = Counter()
    n_help = sum(helpers)
    for faces in product(range(1, 11), repeat=n_help + pool):
        help_ = _roll_faces(faces[:n_help])
        mine = faces[n_help:]
        rolled = _roll_faces(mine)
        expected[_main_outcome(rolled, 1 in mine, help_, difficulty)] += 1
        totals[rolled + (help_ if rolled else 0)] += 1
    worlds = 10 ** (n_help + pool)
    odds = rules.odds("Teamwork", pool=pool, helpers=helpers, difficulty=difficulty, options={"ten_again": "off"})
    assert odds.residual == 0
    assert {plain(k): v for k, v in odds.results["outcome"].items()} == {k: Fraction(v, worlds)
                                                                          for k, v in expected.items()}
    assert dict(odds.results["total_successes"]) == {k: Fraction(v, worlds) for k, v in totals.items()}


def die_chain(cap: int) -> dict[tuple[int, bool], Fraction]:
    """One die with 10-again at TN 8, in closed form: each roll is a miss (1-7) that ends the
    chain, an 8 or 9 (a success that ends it) or a 10 (a success and another roll). Counts of
    ``cap`` or more are merged. Keys: (successes, the first face was a 1)."""
    out: dict[tuple[int, bool], Fraction] = {(0, True): TEN, (0, False): 6 * TEN}
    for k in range(1, cap):
        out[(k, False)] = TEN ** k * 7 * TEN + TEN ** (k - 1) * 2 * TEN
    out[(cap, False)] = 1 - sum(out.values())
    return out


def pool_chain(pool: int, cap: int) -> dict[tuple[int, bool], Fraction]:
    acc: dict[tuple[int, bool], Fraction] = {(0, False): Fraction(1)}
    for _ in range(pool):
        nxt: Counter = Counter()
        for ((a, one_a), p), ((b, one_b), q) in product(acc.items(), die_chain(cap).items()):
            nxt[(min(a + b, cap), one_a or one_b)] += p * q
        acc = dict(nxt)
    return acc


def test_teamwork_odds_with_ten_again_match_the_chain(rules) -> None:  # type: ignore[no-untyped-def]
    """With 10-again on, the outcome only needs counts up to the Difficulty, so chains merged
    beyond it give the exact answer."""
    pool, helpers, difficulty = 2, [1, 2], 4
    cap = difficulty
    expected: Counter = Counter()
    helper_dists = [pool_chain(h, cap) for h in helpers]
    for parts in product(pool_chain(pool, cap).items(), *(d.items() for d in helper_dists)):
        (rolled, one), p = parts[0]
        help_ = sum(k for (k, _), _ in parts[1:])
        for _, q in parts[1:]:
            p *= q
        expected[_main_outcome(rolled, one, help_, difficulty)] += p
    odds = rules.odds("Teamwork", pool=pool, helpers=helpers, difficulty=difficulty)
    assert odds.residual == 0
    assert {plain(k): v for k, v in odds.results["outcome"].items()} == dict(expected)


# ---------------------------------------------------------------- complex actions: given dice and exact odds


def test_complex_action_from_given_dice(rules) -> None:  # type: ignore[no-untyped-def]
    """CA.3-4: two milestones needed within three intervals: 8 (met), 3 4 (missed), 9 9 (met)."""
    run = rules.run("Complex Action", pool=2, milestones=2, interval_limit=3, dice=[8, 1, 3, 4, 9, 9])
    assert plain(run.results) == {"outcome": "success", "milestones": 2, "intervals": 3}


def test_complex_action_buys_an_interval_with_momentum(rules) -> None:  # type: ignore[no-untyped-def]
    """XB.19: at the limit the troupe may spend 1 Momentum for one more interval. Each failed
    interval also gives the troupe its consolation Momentum (A15)."""
    troupe = sheet(rules, "troupe")
    run = rules.run("Complex Action", as_=troupe, pool=1, milestones=1, interval_limit=1, dice=[3, 9],
                    driver=ScriptedDriver(["add_interval"]))
    assert plain(run.results) == {"outcome": "success", "milestones": 1, "intervals": 2, "momentum": 3}
    assert run.state["actor"]["resources"]["Momentum"] == 3  # +1 for the failed interval, -1 for the extra one
    quiet = rules.run("Complex Action", as_=troupe, pool=1, milestones=1, interval_limit=1, dice=[3],
                      driver=ScriptedDriver(["give_up"]), options={"interval_failure_consolation": "no_consolation"})
    assert plain(quiet.results["outcome"]) == "failure" and quiet.state["actor"]["resources"]["Momentum"] == 3


def _interval_success(pool: int, difficulty: int, helpers: list[int]) -> Fraction:
    """P(an interval meets its Difficulty), 10-again off, every face listed."""
    n_help = sum(helpers)
    met = 0
    for faces in product(range(1, 11), repeat=n_help + pool):
        help_ = _roll_faces(faces[:n_help])
        mine = faces[n_help:]
        met += _main_outcome(_roll_faces(mine), 1 in mine, help_, difficulty) == "success"
    return Fraction(met, 10 ** (n_help + pool))


def _complex(p: Fraction, needed: int, limit: int) -> tuple[Counter, Counter, Counter]:
    """Every sequence of interval results, stopped when the milestones are in or at the limit."""
    outcome: Counter = Counter()
    got_dist: Counter = Counter()
    used_dist: Counter = Counter()
    for seq in product((True, False), repeat=limit):
        weight = Fraction(1)
        got = used = 0
        for met in seq:
            if got >= needed:
                break
            used += 1
            weight *= p if met else 1 - p
            got += met
        if any(seq[used:]):  # a run that stopped early is counted once, with its unrolled tail all False
            continue
        outcome["success" if got >= needed else "failure"] += weight
        got_dist[got] += weight
        used_dist[used] += weight
    return outcome, got_dist, used_dist


@pytest.mark.parametrize(("pool", "difficulty", "helpers", "needed", "limit"),
                         [(2, 1, [], 2, 3), (2, 2, [1], 2, 4), (1, 1, [2], 3, 3)])
def test_complex_action_odds_match_an_enumeration(rules, pool: int, difficulty: int, helpers: list[int],  # type: ignore[no-untyped-def]
                                                  needed: int, limit: int) -> None:
    p = _interval_success(pool, difficulty, helpers)
    outcome, got, used = _complex(p, needed, limit)
    odds = rules.odds("Complex Action", pool=pool, difficulty=difficulty, helpers=helpers, milestones=needed,
                      interval_limit=limit, options={"ten_again": "off"})
    assert odds.residual == 0
    assert {plain(k): v for k, v in odds.results["outcome"].items()} == dict(outcome)
    assert dict(odds.results["milestones"]) == dict(got)
    assert dict(odds.results["intervals"]) == dict(used)


def test_complex_action_without_time_pressure_always_succeeds(rules) -> None:  # type: ignore[no-untyped-def]
    """CA.6: with no interval limit, failed intervals only delay: success is certain (the
    rounds are solved as a Markov chain, not cut off)."""
    odds = rules.odds("Complex Action", pool=1, difficulty=1, milestones=3)
    assert {plain(k): v for k, v in odds.results["outcome"].items()} == {"success": 1}
    assert dict(odds.results["milestones"]) == {3: 1}


def test_opposed_complex_action_odds_match_an_enumeration(rules) -> None:  # type: ignore[no-untyped-def]
    """CA.10-12: both sides roll each interval; first to 2 milestones or more at the limit of 3;
    ties go to the defender."""
    p, q = _interval_success(2, 1, []), _interval_success(1, 1, [])
    odds = rules.odds("Opposed Complex Action", pool=2, defender_pool=1, milestones=2, interval_limit=3,
                      options={"ten_again": "off"})
    assert odds.residual == 0
    outcome = {plain(k): v for k, v in odds.results["outcome"].items()}
    assert outcome["success"] == _opposed_win(p, q, 2, 3)
    assert outcome["failure"] == 1 - _opposed_win(p, q, 2, 3)


def _opposed_win(p: Fraction, q: Fraction, needed: int, limit: int) -> Fraction:
    """P(the actor wins): a walk over (interval, mine, theirs), each interval four ways."""
    states: Counter = Counter({(0, 0): Fraction(1)})
    won = Fraction(0)
    for interval in range(1, limit + 1):
        nxt: Counter = Counter()
        for (mine, theirs), w in states.items():
            for a, b in product((1, 0), repeat=2):
                pw = w * (p if a else 1 - p) * (q if b else 1 - q)
                m, t = mine + a, theirs + b
                if m >= needed or t >= needed or interval == limit:
                    won += pw * (m > t)
                else:
                    nxt[(m, t)] += pw
        states = nxt
    return won


# ---------------------------------------------------------------- from the sheets, and from the command line


def test_team_roll_from_sheets(rules) -> None:  # type: ignore[no-untyped-def]
    """Bram helps Ayla: his Dexterity 2 + Athletics 2 roll first (8, 10, 2, 1 and the 10's 9:
    three successes), then her seven dice show one success: 1 + 3 meets Difficulty 4."""
    run = rules.run("Team Roll", as_=[sheet(rules, "ayla"), sheet(rules, "bram")], attribute="Dexterity",
                    skill="Athletics", difficulty=4, dice=[8, 10, 2, 1, 9, 8, 2, 2, 2, 3, 4, 5])
    assert plain(run.results) == {"helper_pools": [4], "help": 3, "total_successes": 4, "outcome": "success",
                                  "degree": "Normal", "over_soft_cap": False}


def test_mixed_roll_from_a_sheet(rules) -> None:  # type: ignore[no-untyped-def]
    """Ayla climbs (Dexterity + Athletics, 7) while palming a key (Cunning + Subterfuge, 6):
    six dice; two successes clear Difficulty 1 and miss Difficulty 3. The failed challenge's
    Consolation is Momentum: 1 (CO.5), with no troupe sheet to hold it."""
    run = rules.run("Mixed Roll", as_=sheet(rules, "ayla"), attributes=["Dexterity", "Cunning"],
                    skills=["Athletics", "Subterfuge"], difficulties=[1, 3], dice=[8, 9, 2, 2, 2, 2],
                    answers={"consolation": "take_momentum"})
    assert plain(run.results) == {"pools": [7, 6], "pool": 6, "outcomes": ["success", "failure"],
                                  "threshold_successes": [1, 0], "consolations": [None, "take_momentum"],
                                  "momentum_gained": 1, "momentum": None}


MIXED = {"attributes": ["Dexterity", "Cunning"], "skills": ["Athletics", "Subterfuge"]}


@pytest.mark.parametrize(("specialty", "consolation", "gained"), [
    (False, "take_momentum", 1), (True, "take_momentum", 2), (False, "chance_meeting", 0),
])
def test_a_mixed_roll_gives_the_troupe_its_momentum(rules, specialty: bool, consolation: str,
                                                    gained: int) -> None:  # type: ignore[no-untyped-def]
    """CO.5, XB.14: a failed roll's Momentum consolation (1, +1 with a Specialty) goes into the
    troupe's shared pool. Ayla's six dice show two successes: Difficulty 1 met, 3 missed; the
    troupe (Momentum 3, four players) ends with 3 + the points taken. Another Consolation
    gives none."""
    run = rules.run("Mixed Roll", as_=[sheet(rules, "ayla"), sheet(rules, "troupe")], difficulties=[1, 3],
                    specialty=specialty, dice=[8, 9, 2, 2, 2, 2], answers={"consolation": consolation}, **MIXED)
    assert plain(run.results["consolations"]) == [None, consolation]
    assert (run.results["momentum_gained"], run.results["momentum"]) == (gained, 3 + gained)
    assert run.state["actors"][1]["resources"]["Momentum"] == 3 + gained


@pytest.mark.parametrize(("overflow", "gained", "pool"), [("lose", 6, 8), ("refuse_gain", 3, 6)])
def test_a_botched_mixed_roll_fills_the_troupe_pool_up_to_its_capacity(rules, overflow: str, gained: int,
                                                                       pool: int) -> None:  # type: ignore[no-untyped-def]
    """DB.14-15, §2.8: no success and a 1 botch both challenges, each giving 3 Momentum (Botch:
    Momentum only, no choice asked). The troupe holds 3 of a capacity of 8 (four players,
    XB.15): the 6 points overflow, the extra 1 lost (A14's default); under refuse_gain the
    second 3 would not fit (6 + 3 > 8) and is refused, the first taken."""
    run = rules.run("Mixed Roll", as_=[sheet(rules, "ayla"), sheet(rules, "troupe")], difficulties=[1, 2],
                    dice=[1, 2, 2, 2, 2, 2], options={"momentum_overflow": overflow}, **MIXED)
    assert plain(run.results["outcomes"]) == ["botch", "botch"]
    assert (run.results["momentum_gained"], run.results["momentum"]) == (gained, pool)


def test_a_mixed_roll_consolation_can_owe_an_advantage(rules) -> None:  # type: ignore[no-untyped-def]
    """CO.4: Unlooked-for Advantage, taken for the missed challenge, owes Ayla an Enhancement of
    1 on a later, different challenge; the troupe's Momentum is left as it was."""
    run = rules.run("Mixed Roll", as_=[sheet(rules, "ayla"), sheet(rules, "troupe")], difficulties=[1, 3],
                    challenge="the vault", dice=[8, 9, 2, 2, 2, 2],
                    answers={"consolation": "unlooked_for_advantage"}, **MIXED)
    assert run.state["actors"][0]["conditions"] == ['Advantage Owed("the vault")']
    assert run.results["momentum"] == 3


def test_a_roll_from_the_command_line(cli, snapshot) -> None:  # type: ignore[no-untyped-def]
    """The README's first roll: the results and the troupe's state, as JSON."""
    run = cli("run", "d10-pool", "Roll", "--as", str(EXAMPLES / "ayla.yaml"), "--as", str(EXAMPLES / "troupe.yaml"),
              "--with", "attribute=Dexterity", "--with", "skill=Athletics", "--with", "difficulty=2",
              "--with", "complications=1", "--dice", "10,8,3,2,9,1,9,8", "--choices", str(EXAMPLES / "spend.yaml"),
              "--json")
    assert run.code == 0, run.stderr
    payload = json.loads(run.stdout)
    assert payload["choices"] == [{"choice": "buy", "answer": "pay"}, {"choice": "stunt", "answer": "enhancement_stunt"},
                                  {"choice": "stunt", "answer": "done"}]
    assert {"results": payload["results"], "actors": payload["state"]["actors"]} == snapshot


def test_complex_action_runs_agree_with_its_odds(rules) -> None:  # type: ignore[no-untyped-def]
    """Seeded runs of a complex action with 10-again against its exact odds (4 sigma)."""
    inputs = dict(pool=2, difficulty=2, milestones=2, interval_limit=3)
    exact = {plain(k): v for k, v in rules.odds("Complex Action", **inputs).results["outcome"].items()}["success"]
    rng = random.Random(14)
    runs = 300
    won = sum(plain(rules.run("Complex Action", rng=rng, **inputs).results["outcome"]) == "success"
              for _ in range(runs))
    sigma = (runs * exact * (1 - exact)) ** 0.5
    assert abs(won - runs * exact) < 4 * sigma


def test_roll_odds_from_a_sheet_match_the_chain(rules) -> None:  # type: ignore[no-untyped-def]
    """The odds of a whole Roll (choice points at their first option: pay, done, take Momentum):
    Ayla's seven dice against Difficulty 3; the troupe ends with 3, 4 (a failure) or 6 (a Botch)."""
    outcome: Counter = Counter()
    momentum: Counter = Counter()
    for (rolled, one), p in pool_chain(7, 3).items():
        result = _main_outcome(rolled, one, 0, 3)
        outcome[result] += p
        momentum[{"success": 3, "failure": 4, "botch": 6}[result]] += p
    odds = rules.odds("Roll", as_=[sheet(rules, "ayla"), sheet(rules, "troupe")], attribute="Dexterity",
                      skill="Athletics", difficulty=3)
    assert odds.residual == 0
    assert {plain(k): v for k, v in odds.results["outcome"].items()} == dict(outcome)
    assert dict(odds.results["momentum"]) == dict(momentum)


@settings(max_examples=40, deadline=None)
@given(pools=st.lists(st.integers(1, 5), min_size=1, max_size=3), data=st.data())
def test_mixed_action_reads_one_roll_for_every_challenge(rules, pools: list[int], data) -> None:  # type: ignore[no-untyped-def]
    """XB.9-10, A6: the smallest pool is rolled once; each challenge is met by the same total
    (independent) or by what earlier challenges left (partition)."""
    difficulties = data.draw(st.lists(st.integers(1, 4), min_size=len(pools), max_size=len(pools)))
    faces = data.draw(st.lists(st.integers(1, 10), min_size=min(pools), max_size=min(pools)))
    rolled = _roll_faces(tuple(faces))
    botch = rolled == 0 and 1 in faces
    for allocation in ("independent", "partition"):
        run = rules.run("Mixed Action", pools=pools, difficulties=difficulties, dice=faces,
                        options={"ten_again": "off", "mixed_allocation": allocation})
        left, expected = rolled, []
        for d in difficulties:
            met = left >= d and not botch
            expected.append("botch" if botch else "success" if met else "failure")
            if met and allocation == "partition":
                left -= d
        assert plain(run.results["outcomes"]) == expected
        assert run.results["pool"] == min(pools)


def test_a_roll_without_a_troupe(rules) -> None:  # type: ignore[no-untyped-def]
    """A roll with no troupe given plays (its Momentum consolation is only reported); spending
    Momentum without one is refused with a diagnostic, not a crash."""
    run = rules.run("Roll", as_=sheet(rules, "ayla"), attribute="Dexterity", skill="Athletics", difficulty=3,
                    dice=[2, 3, 4, 5, 6, 7, 2], driver=ScriptedDriver(["take_momentum"]))
    assert (run.results["momentum_gained"], run.results["momentum"]) == (1, None)
    with pytest.raises(RunebookError) as error:
        rules.run("Roll", as_=sheet(rules, "ayla"), attribute="Dexterity", skill="Athletics", momentum_dice=1,
                  dice=[8] * 8)
    assert [d.code for d in error.value.diagnostics] == ["E0613"]
    assert "troupe_sheet_given" in str(error.value.diagnostics[0].message)


def test_intervals_performed_side_by_side(rules) -> None:  # type: ignore[no-untyped-def]
    """CA.9: Ayla's interval and a companion's at the same time, each met one a milestone:
    8 and 9 (two), then 3 and 10 (the 10's extra die shows 2): three milestones in two intervals."""
    run = rules.run("Complex Action", pool=1, others=[1], milestones=3, interval_limit=2, dice=[8, 9, 3, 10, 2])
    assert plain(run.results) == {"outcome": "success", "milestones": 3, "intervals": 2}


def test_side_by_side_odds_match_a_walk_over_intervals(rules) -> None:  # type: ignore[no-untyped-def]
    """Each interval gains 0, 1 or 2 milestones (main roller and one other, faces listed); a
    walk over the intervals stops once the milestones are in."""
    gain: Counter = Counter()
    for faces in product(range(1, 11), repeat=3):  # main pool 2, the other's pool 1
        gain[(_roll_faces(faces[:2]) >= 1) + (_roll_faces(faces[2:]) >= 1)] += Fraction(1, 1000)
    needed, limit = 3, 3
    states: Counter = Counter({0: Fraction(1)})
    final: Counter = Counter()
    for interval in range(1, limit + 1):
        nxt: Counter = Counter()
        for got, w in states.items():
            for g, p in gain.items():
                now = got + g
                if now >= needed or interval == limit:
                    final[now] += w * p
                else:
                    nxt[now] += w * p
        states = nxt
    odds = rules.odds("Complex Action", pool=2, others=[1], milestones=needed, interval_limit=limit,
                      options={"ten_again": "off"})
    assert odds.residual == 0
    assert dict(odds.results["milestones"]) == dict(final)
    success = sum(p for got, p in final.items() if got >= needed)
    assert {plain(k): v for k, v in odds.results["outcome"].items()} == {"success": success, "failure": 1 - success}


def test_momentum_with_nobody_taking_part_says_who_is_missing() -> None:
    # Was: "'on troupe' cannot apply to a name nothing set", though the line above set it
    # (to none: `last(actors)` with no --as); then E0405 "'on troupe' cannot apply to none".
    # The troupe is now the sheet giving `Players` (tests/test_has_stat.py), required by name.
    rules = interpreter.load("d10-pool")
    with pytest.raises(RunebookError) as raised:
        rules.run("Gain Momentum")
    (problem,) = raised.value.diagnostics
    assert problem.code == "E0613" and problem.message == "'Gain Momentum' requires troupe_sheet_given"
    assert problem.span.line == 51
