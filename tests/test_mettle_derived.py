"""METTLE Core: cases derived from the core rules (spec mettle.md §1.1-§1.5, §3, §4.1-§4.12),
run through the command line as a user would, with the numbers worked out here.

The first part holds the defects this audit found (inputs out of range that were taken
silently, or refused with a message that named no rule); the second a compact table of
golden cases that pass. Expected odds come from an enumeration of every face written here.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from mettle_helpers import ex, fighter, refused, run
from runebook.interpreter.rules import load

GAME = "mettle"


def refused_input(cli, rule: str, *args: str, command: str = "run") -> None:  # type: ignore[no-untyped-def]
    """The command exits 1 with E0613 naming ``rule``."""
    out = cli(command, GAME, *args)
    assert out.code == 1 and "E0613" in out.stderr and f"'{rule}' requires" in out.stderr, (out.code, out.stderr)


# ---------------------------------------------------------------- defects (each fails without its fix)


@pytest.mark.parametrize("given", [("pool=-1", "difficulty=1"), ("pool=3", "difficulty=-2")])
def test_check_refuses_a_negative_pool_or_difficulty(cli, given) -> None:  # type: ignore[no-untyped-def]
    """§1.1: a pool is an attribute's dice (0 or more) and a Difficulty a Score to reach
    (0 at the least). Before, `pool=-1` rolled no dice and `difficulty=-2` was met by anything."""
    refused_input(cli, "Check", "check", "--with", given[0], "--with", given[1], "--dice", "1,1,1",
                  command="resolve")


def test_check_still_takes_a_modifier_below_the_pool(cli) -> None:  # type: ignore[no-untyped-def]
    """A -D larger than the pool leaves no dice (Score 0), not a refusal."""
    out = cli("resolve", GAME, "check", "--with", "pool=2", "--with", "difficulty=0", "--with", "modifier=-5",
              "--json")
    assert out.code == 0, out.stderr
    assert '"outcome": "success"' in out.stdout


def test_twist_refuses_no_edge_dice(cli) -> None:  # type: ignore[no-untyped-def]
    """§1.3: a Twist follows a failure with Edge; with no Edge die there is nothing to roll again."""
    refused_input(cli, "Twist", "twist", "--with", "kept_score=1", "--with", "edge_dice=0", "--with",
                  "difficulty=3", command="resolve")


@pytest.mark.parametrize("action", ["Know", "Use", "Travel Leg"])
def test_a_negative_difficulty_is_refused(cli, tmp_path: Path, action: str) -> None:  # type: ignore[no-untyped-def]
    """A GM's Difficulty is 0 or more; before, -1 became 0 and any roll succeeded."""
    refused(cli, action, action, "--as", fighter(tmp_path, "Doer"), "--with", "difficulty=-1", "--dice", "1,1,1")


@pytest.mark.parametrize(("action", "name"), [("Use", "bonus_dice"), ("Rattle", "bonus_dice"),
                                              ("Parley", "leverage_dice")])
def test_negative_bonus_dice_are_refused(cli, tmp_path: Path, action: str, name: str) -> None:  # type: ignore[no-untyped-def]
    """+D is a bonus (§1.2); a negative one was dropped silently under `largest_only` and
    subtracted under `sum`."""
    rule = "Rattle By" if action == "Rattle" else action
    refused(cli, rule, action, "--as", fighter(tmp_path, "Doer"), "--against", fighter(tmp_path, "Other"),
            "--with", f"{name}=-2", "--dice", "1,1,1")


@pytest.mark.parametrize(("action", "given"), [("Race Stretch", "speed=-1"), ("Race Stretch", "obstacles=-3"),
                                               ("Ram", "speed=-3")])
def test_negative_speeds_and_obstacles_are_refused(cli, tmp_path: Path, action: str, given: str) -> None:  # type: ignore[no-untyped-def]
    """§4.13: a Speed and an obstacle's Difficulty are 0 or more; a negative Ram dealt negative
    damage (healing both vehicles)."""
    extra = ["--with", "target_speed=-5"] if action == "Ram" else []
    refused(cli, action, action, "--as", ex("kirin-on-a-bike"), "--against", ex("rook"), "--with", given, *extra,
            "--dice", "1,1,1,1,1,1,1")


def test_move_refuses_a_negative_obstacle(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """§4.12: obstacles are Difficulties; a negative one made the path free of any Check."""
    refused(cli, "Obstacles On The Path", "Move", "--as", fighter(tmp_path, "Mover"), "--with", "zones=1",
            "--with", "obstacles=[-3]")


@pytest.mark.parametrize(("proc", "given", "rule"), [("Fight", "rounds=0", "Fight"),
                                                     ("Combat Round", "round=0", "Combat Round")])
def test_no_rounds_is_refused_by_name(cli, proc: str, given: str, rule: str) -> None:  # type: ignore[no-untyped-def]
    """A fight of 0 Rounds (or Round 0) named no rule: it ran out of choices (E0610)."""
    refused(cli, rule, proc, "--as", ex("bandit-chief"), "--against", ex("bandit"), "--with", given)


# ---------------------------------------------------------------- golden cases derived from the rules


def check_odds(pool: int, difficulty: int, modifier: int, beats: bool) -> Fraction:
    """Chance of success, counted over every face: Score = sum of the 1-3s."""
    n = max(pool + modifier, 0)
    wins = 0
    for faces in product(range(1, 7), repeat=n):
        score = sum(f for f in faces if f <= 3)
        wins += score > difficulty if beats else score >= difficulty
    return Fraction(wins, 6 ** n)


@pytest.mark.parametrize(("pool", "difficulty", "modifier", "beats"), [
    (0, 0, 0, False),   # no dice: only Difficulty 0 is met
    (1, 3, 0, False),   # a single 3 meets 3 exactly
    (1, 3, 0, True),    # ... but cannot beat it
    (3, 9, 0, False),   # 3 x pool reachable with all 3s under "equals or exceeds"
    (3, 9, 0, True),    # ... never under "beats"
    (2, 2, 2, False),   # +2D
    (2, 1, -5, False),  # -D below the pool: no dice, failure
])
def test_check_odds(pool: int, difficulty: int, modifier: int, beats: bool) -> None:
    rules = load(GAME)
    options = {"success_comparison": "beats"} if beats else None
    odds = rules.odds("check", pool=pool, difficulty=difficulty, modifier=modifier, options=options)
    got = {str(k): v for k, v in odds.results["outcome"].items()}
    assert got.get("success", Fraction(0)) == check_odds(pool, difficulty, modifier, beats)


QUALITY = ["OK", "Good", "Great", "Excellent", "Amazing", "Legendary", "Legendary"]


@pytest.mark.parametrize("edge", range(7))
def test_quality_at_each_boundary(edge: int) -> None:
    """Edge table: 0 OK ... 4 Amazing, 5 and more Legendary. Score 3 meets Difficulty 3."""
    rules = load(GAME)
    r = rules.resolve("check", dice=[3] + [4] * edge, pool=1 + edge, difficulty=3)
    assert (str(r.results["outcome"]), str(r.results["quality"])) == ("success", QUALITY[edge])


def mettle_after(concept: int, frame: int, dm: int, edge: int, armor: int = 0) -> int:
    return concept - max(0, dm + edge - frame - armor)


def standing(mettle: int, motive: int) -> str:
    return "Fallen" if mettle < -motive else "Staggered" if mettle <= 0 else "Steady"


@pytest.mark.parametrize(("dm", "dice", "twist", "expect"), [
    # DM + Edge - Soak (FRAME 3): 8 + 1 - 3 = 6, Mettle 3 -> -3 = -MOTIVE: still Staggered
    (8, "1,2,4", None, {"hit": True, "damage": 6}),
    # one more: -4 < -MOTIVE: Fallen
    (9, "1,2,4", None, {"hit": True, "damage": 7}),
    # Soak above the blow: no damage, never healing
    (1, "1,2,4", None, {"hit": True, "damage": 0}),
    # Score 1 < POISE 3 with 2 Edge; Glancing blow rolls them again [1,1]: Score 3, Edge 0:
    # (8 - 3) halved, rounding up: 3
    (8, "1,4,4,1,1", "glancing_blow", {"hit": True, "damage": 3}),
    # Counter, the reroll [4,5] still misses: the foe's DM 4 + new Edge 2 - Soak 3 = 3 back
    (8, "1,4,4,4,5", "counter", {"hit": False, "countered": 3}),
])
def test_attack_cases(cli, tmp_path: Path, dm: int, dice: str, twist: str | None, expect: dict) -> None:  # type: ignore[no-untyped-def]
    args = ["Attack", "--as", fighter(tmp_path, "Striker", DM=dm), "--against", fighter(tmp_path, "Target"),
            "--dice", dice]
    if twist:
        args += ["--answer", f"combat_twist={twist}"]
    out = run(cli, *args)["results"]
    assert {k: out[k] for k in expect} == expect
    if expect["hit"] and not twist:
        m = mettle_after(3, 3, dm, dice.split(",").count("4"))
        assert (out["target_mettle"], out["target_standing"]) == (m, standing(m, 3))


def test_staggered_attacker_loses_dice(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Mettle -2 is -2D: NATURE 3 rolls one die, the [3] meets POISE 3 for DM 4 - Soak 3 = 1;
    at Mettle -3 no die is left and the Attack misses."""
    out = run(cli, "Attack", "--as", fighter(tmp_path, "Hurt", resources={"Harm": 5}), "--against",
              fighter(tmp_path, "Target"), "--dice", "3")["results"]
    assert (out["hit"], out["damage"]) == (True, 1)
    out = run(cli, "Attack", "--as", fighter(tmp_path, "Worse", resources={"Harm": 6}), "--against",
              fighter(tmp_path, "Target"))["results"]
    assert (out["hit"], out["score"]) == (False, 0)


@pytest.mark.parametrize(("concept", "harm"), [(3, 0), (3, 1), (3, 2), (6, 3)])
def test_rally_doubles_up_to_the_maximum(cli, tmp_path: Path, concept: int, harm: int) -> None:  # type: ignore[no-untyped-def]
    out = run(cli, "Rally", "--as", fighter(tmp_path, "Rallier", CONCEPT=concept, resources={"Harm": harm}))
    now = concept - harm
    assert out["results"]["mettle"] == min(concept, 2 * now)


def test_rally_at_zero_and_surge_at_one_are_refused(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    refused(cli, "Rally Allowed", "Rally", "--as", fighter(tmp_path, "Zero", resources={"Harm": 3}))
    refused(cli, "Surge Allowed", "Surge", "--as", fighter(tmp_path, "One", resources={"Harm": 2}))


@pytest.mark.parametrize("mettle", [5, 4, 3, 2])
def test_surge_halves_rounding_up(cli, tmp_path: Path, mettle: int) -> None:  # type: ignore[no-untyped-def]
    out = run(cli, "Surge", "--as", fighter(tmp_path, "Surger", CONCEPT=mettle))
    assert out["results"]["mettle"] == math.ceil(mettle / 2)


@pytest.mark.parametrize(("harm", "after"), [(1, 3), (3, 0), (4, -1)])
def test_new_scene_refills_only_above_zero(cli, tmp_path: Path, harm: int, after: int) -> None:  # type: ignore[no-untyped-def]
    out = run(cli, "New Scene", "--as", fighter(tmp_path, "Rester", resources={"Harm": harm}))
    assert out["results"]["mettle"] == [after]


def test_move_score_tells_how_far(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """§4.12: obstacles 2 then 3 (Difficulty 5); Score 2 fails but passes the first."""
    mover = fighter(tmp_path, "Mover", Speed=2)
    out = run(cli, "Move", "--as", mover, "--with", "zones=2", "--with", "obstacles=[2,3]", "--dice", "1,1,4",
              "--answer", "action_twist=decline")["results"]
    assert (out["outcome"], out["zones_reached"]) == ("failure", 1)
    out = run(cli, "Move", "--as", mover, "--with", "zones=2", "--with", "obstacles=[2,3]", "--dice", "2,3,4")
    assert out["results"]["zones_reached"] == 2


def test_attack_damage_odds(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """NATURE 3 against POISE 3, DM 4 against Soak 3: every face of 3 dice counted here."""
    import json
    out = cli("odds", GAME, "Attack", "--as", fighter(tmp_path, "Striker"), "--against", fighter(tmp_path, "Target"),
              "--of", "damage", "--json")
    assert out.code == 0, out.stderr
    got = {int(k): Fraction(v) for k, v in json.loads(out.stdout)["results"]["damage"].items()}
    expected: dict[int, Fraction] = {}
    for faces in product(range(1, 7), repeat=3):
        score = sum(f for f in faces if f <= 3)
        edge = sum(1 for f in faces if f >= 4)
        dmg = max(0, 4 + edge - 3) if score >= 3 else 0
        expected[dmg] = expected.get(dmg, Fraction(0)) + Fraction(1, 216)
    assert got == expected


@pytest.mark.parametrize(("dice", "mode", "rattled_for"), [("3,4,4", "per_edge", 3), ("3,4,4", "single", 2),
                                                           ("3,1,1", "per_edge", 1)])
def test_rattle_lasts_by_edge(cli, tmp_path: Path, dice: str, mode: str, rattled_for: int) -> None:  # type: ignore[no-untyped-def]
    """§4.5: 1 Action, +1 per Edge (A10 `per_edge`) or +1 at most (`single`)."""
    out = run(cli, "Rattle", "--as", fighter(tmp_path, "Taunter"), "--against", fighter(tmp_path, "Victim"),
              "--dice", dice, "--option", f"rattle_edge_mode={mode}")
    assert out["results"]["rattled_for"] == rattled_for


def test_self_aid_doubles_the_difficulty(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Mettle -1, MOTIVE 4 less 1D Staggered: 3 dice against 2 x 1; [1,1,4] meets it, 1 Edge back."""
    out = run(cli, "Self Aid", "--as", fighter(tmp_path, "Alone", MOTIVE=4, resources={"Harm": 4}),
              "--dice", "1,1,4")["results"]
    assert (out["outcome"], out["mettle"]) == ("success", 0)
    out = run(cli, "Self Aid", "--as", fighter(tmp_path, "Alone2", MOTIVE=4, resources={"Harm": 4}),
              "--dice", "1,4,4", "--answer", "action_twist=decline")["results"]
    assert out["outcome"] == "failure"


@pytest.mark.parametrize(("check", "given"), [
    ("visibility difficulty", ["base=-3"]),
    ("visibility difficulty", ["base=1", "flash=-2"]),
    ("splatter stunt", ["edge=-2"]),
    ("tyre popping", ["after_soak=-3"]),
    ("fractional roll", ["divisor=0"]),
    ("encumbrance", ["weight=-5", "frame=3", "poise=3"]),
])
def test_engine_checks_refuse_out_of_range(cli, check: str, given: list[str]) -> None:  # type: ignore[no-untyped-def]
    """Before: a negative base or flash gave a negative or ignored Difficulty, a negative Splatter
    or Tyre damage healed, divisor 0 was a division by zero (E0404), a negative weight passed."""
    args = [a for g in given for a in ("--with", g)]
    name = " ".join(w.capitalize() for w in check.split())
    refused_input(cli, name, check, *args, "--dice", "4", command="resolve")


def test_no_encumbrance_does_not_incapacitate(cli) -> None:  # type: ignore[no-untyped-def]
    """§4.6: the penalty that drops a pool to no dice incapacitates; 10 kg under a 40 kg Load
    Step is no penalty, even at POISE 0 (before: `incapacitated: true`)."""
    import json
    out = cli("resolve", GAME, "encumbrance", "--with", "weight=10", "--with", "frame=3", "--with", "poise=0",
              "--json")
    assert out.code == 0, out.stderr
    results = json.loads(out.stdout)["results"]
    assert (results["penalty"], results["incapacitated"]) == (0, False)
    out = cli("resolve", GAME, "encumbrance", "--with", "weight=81", "--with", "frame=3", "--with", "poise=2",
              "--json")
    results = json.loads(out.stdout)["results"]
    assert (results["penalty"], results["incapacitated"]) == (2, True)


@pytest.mark.parametrize(("proc", "given", "against"), [
    ("Crash", "at_speed=-3", None),
    ("Shoot Vehicle", "swerve=-2", "kirin-on-a-bike"),
    ("Shoot Vehicle", "tyres=-3", "kirin-on-a-bike"),
    ("Shoot Vehicle", "current_speed=-1", "kirin-on-a-bike"),
    ("Board", "current_speed=-3", "kirin-on-a-bike"),
])
def test_vehicle_inputs_out_of_range_are_refused(cli, proc: str, given: str, against: str | None) -> None:  # type: ignore[no-untyped-def]
    """Before: a negative Speed fell back on Top Speed silently, a negative Swerve or tyre count
    lowered the Difficulty."""
    who = ex("bandit") if proc == "Shoot Vehicle" else ex("kirin-on-a-bike")
    extra = ["--against", ex(against)] if against and proc != "Board" else []
    if proc == "Board":
        who, extra = ex("kirin"), ["--against", ex("rook")]
    refused(cli, proc, proc, "--as", who, *extra, "--with", given, "--dice", "1,1,1,1,1")


@pytest.mark.parametrize(("dice", "option", "damage"), [("3,5", "per_target", [4, 6]), ("3", "shared", [4, 4])])
def test_area_attack_rolls(cli, tmp_path: Path, dice: str, option: str, damage: list[int]) -> None:  # type: ignore[no-untyped-def]
    """§3 area: no Check, 1d6 + DM 4 - Soak 3 on each target (A18: a roll each, or one for all)."""
    out = run(cli, "Area Attack", "--as", fighter(tmp_path, "Thrower", Range=1), "--against",
              fighter(tmp_path, "One"), "--against", fighter(tmp_path, "Two"), "--dice", dice,
              "--option", f"area_roll={option}")
    assert out["results"]["damage"] == damage


def test_sneak_faces_the_most_watchful(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """§3 sneak: POISE 3 against the highest MOTIVE (4); Score 4 meets it, 1 Edge: DM +1 in a
    surprise, 1 + Edge items."""
    args = ["Sneak", "--as", fighter(tmp_path, "Sneaker"), "--against", fighter(tmp_path, "Dull", MOTIVE=2),
            "--against", fighter(tmp_path, "Sharp", MOTIVE=4)]
    out = run(cli, *args, "--dice", "1,3,4")["results"]
    assert (out["outcome"], out["surprise_dm_bonus"], out["items"]) == ("success", 1, 2)
    out = run(cli, *args, "--dice", "1,2,4", "--answer", "action_twist=decline")["results"]
    assert out["outcome"] == "failure"
