"""METTLE Core movement, cover, senses and load (rulesets/mettle/scenes.rules, combat.rules,
initiative.rules): Speed other than 1 and slow movers (§4.12), the free Charge, cover that
faces one side (§4.8), Blinded and Deafened (§4.6, §4.17), and encumbrance with its Load Step
override (§4.6, A24), with given dice, odds against an enumeration and refusals."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from runebook.interpreter.rules import load
from mettle_helpers import GAME, answers, ex, refused, run


def fighter(tmp_path: Path, name: str, conditions: list[str] | None = None, resources: dict | None = None,
            **stats: int) -> str:
    """A combatant file: an Extra 3D+3 with a club in Zone 1, some numbers changed."""
    base = {"CONCEPT": 3, "FRAME": 3, "MOTIVE": 3, "NATURE": 3, "POISE": 3, "Armor": 0, "Hit": 0, "DM": 4,
            "Range": 0, "Parry": 0, "Zone": 1}
    data: dict = {"name": name, "weapon": "Club", "stats": {**base, **stats}}
    if conditions:
        data["conditions"] = conditions
    if resources:
        data["resources"] = resources
    path = tmp_path / f"{name.lower()}.yaml"
    path.write_text(json.dumps(data))  # JSON is YAML
    return str(path)


# ---------------------------------------------------------------- Speed (§4.12)


def test_a_fast_mover_crosses_up_to_its_speed(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    horse = fighter(tmp_path, "Horse", Speed=3)
    # Three clear Zones: no Check, no dice.
    assert run(cli, "Move", "--as", horse, "--with", "zones=3")["results"] == {
        "outcome": "success", "zones_reached": 3, "moves_to_go": 0, "speed": 3}
    # Obstacles 2, 0, 3 add up to 5; POISE 3 [1,1,4]: Score 2 fails, but clears the first
    # Zone (2 <= 2) and the clear one after it, not the third (5 > 2).
    out = run(cli, "Move", "--as", horse, "--with", "zones=3", "--with", "obstacles=2,0,3", "--dice", "1,1,4",
              "--answer", "action_twist=decline")
    assert out["results"]["outcome"] == "failure" and out["results"]["zones_reached"] == 2
    refused(cli, "Move Within Speed", "Move", "--as", horse, "--with", "zones=4")
    refused(cli, "Move Within Speed", "Move", "--as", ex("kirin"), "--with", "zones=2")
    refused(cli, "Obstacles On The Path", "Move", "--as", horse, "--with", "zones=1", "--with", "obstacles=1,1")


def test_a_slow_mover_needs_several_moves_for_a_zone(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    tortoise = fighter(tmp_path, "Tortoise", **{"Moves Per Zone": 2})
    first = run(cli, "Move", "--as", tortoise)["results"]
    assert first == {"outcome": "success", "zones_reached": 0, "moves_to_go": 1, "speed": "1/2"}
    assert run(cli, "Move", "--as", tortoise, "--with", "moves_before=1")["results"]["zones_reached"] == 1


def test_speed_in_a_round(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    horse = fighter(tmp_path, "Horse", Speed=3)
    foe = fighter(tmp_path, "Foe", Zone=1)
    out = run(cli, "Combat Round", "--as", horse, "--against", foe,
              "--choices", answers(tmp_path, "Horse", "move_zone", "to_higher_zone", "3", "Foe", "pass"))
    assert out["state"]["actor"]["conditions"] == ["Moved(3)"]
    # Speed 1 is not asked how far; a slow mover's first Move only makes progress.
    tortoise = fighter(tmp_path, "Tortoise", **{"Moves Per Zone": 2})
    slow = run(cli, "Combat Round", "--as", tortoise, "--against", foe,
               "--choices", answers(tmp_path, "Tortoise", "move_zone", "to_lower_zone", "Foe", "pass"))
    assert slow["state"]["actor"]["conditions"] == ["Move Progress(1)"]
    refused(cli, "Move Within Speed", "Combat Round", "--as", horse, "--against", foe,
            "--choices", answers(tmp_path, "Horse", "move_zone", "to_higher_zone", "4"))


def test_a_charge_moves_into_reach_and_strikes(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    foe = fighter(tmp_path, "Foe", Zone=2)
    # Kirin (Zone 1, a knife) charges into Zone 2: [1,2,4] Score 3 vs POISE 3, Edge 1: DM 3 + 1
    # - Soak 3 = 1. The Foe, struck with its Action left, has Initiative and passes.
    out = run(cli, "Combat Round", "--as", ex("kirin"), "--against", foe, "--dice", "1,2,4",
              "--choices", answers(tmp_path, "Kirin", "charge_and_attack", "Foe", "no_surge", "pass"))
    assert out["state"]["actor"]["conditions"] == ["Moved(1)"]
    assert out["results"]["mettle"] == [4, 2]
    assert [a["did"] for a in out["results"]["actions"]] == ["charge", "pass"]
    held = fighter(tmp_path, "Held", conditions=["Grappled(1)"], Zone=1)
    refused(cli, "Charge Not Hindered", "Combat Round", "--as", held, "--against", foe,
            "--choices", answers(tmp_path, "Held", "charge_and_attack"))
    # Two Zones away is beyond a Charge: the foe is offered, and the reach rule refuses it.
    far = fighter(tmp_path, "Far", Zone=3)
    refused(cli, "Target In Reach", "Combat Round", "--as", ex("kirin"), "--against", far, "--dice", "1,2,4",
            "--choices", answers(tmp_path, "Kirin", "charge_and_attack", "Far"))


# ---------------------------------------------------------------- one-sided cover (§4.8)


def test_cover_shields_only_the_side_it_faces(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Behind a wall that faces the lower Zones, in Zone 1. Viktor shoots from Zone 0: NATURE 5
    # + Hit 1 [1,2,4,4,5,6] Score 3 vs POISE 3, Edge 4: 3 + 4 - 3 = 4, halved by the cover: 2.
    walled = fighter(tmp_path, "Walled", conditions=["Covered(partial, facing_lower)"])
    assert run(cli, "Attack", "--as", ex("viktor"), "--against", walled, "--dice", "1,2,4,4,5,6")[
        "results"]["damage"] == 2
    # A shooter in Zone 2 is on the open side: [1,2,4] Score 3, Edge 1: 4 + 1 - 3 = 2, in full.
    flanker = fighter(tmp_path, "Flanker", Zone=2, Range=2)
    assert run(cli, "Attack", "--as", flanker, "--against", walled, "--dice", "1,2,4")["results"]["damage"] == 2
    facing_up = fighter(tmp_path, "Up", conditions=["Covered(partial, facing_higher)"])
    assert run(cli, "Attack", "--as", flanker, "--against", facing_up, "--dice", "1,2,4")["results"]["damage"] == 1
    # A foe in the same Zone is not on the covered side either.
    assert run(cli, "Attack", "--as", ex("bandit"), "--against", walled, "--dice", "1,2,4")["results"]["damage"] == 2


def test_total_cover_on_one_side(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bunker = fighter(tmp_path, "Bunker", conditions=["Covered(total, facing_lower)"])
    refused(cli, "Target Not In Total Cover", "Attack", "--as", ex("viktor"), "--against", bunker, "--dice", "1")
    flanker = fighter(tmp_path, "Flanker", Zone=2, Range=2)
    assert run(cli, "Attack", "--as", flanker, "--against", bunker, "--dice", "1,2,4")["results"]["hit"] is True
    # Popping out to shoot keeps the side: Partial Cover facing the lower Zones.
    out = run(cli, "Attack", "--as", bunker, "--against", ex("bandit"), "--dice", "1,2,4")
    assert out["state"]["actor"]["conditions"] == ["Covered(partial, facing_lower)"]


def test_one_sided_cover_odds_match_an_enumeration(tmp_path: Path) -> None:
    rules = load(GAME)
    walled = rules.entity(fighter(tmp_path, "Walled", conditions=["Covered(partial, facing_lower)"]))
    odds = rules.odds("Attack", as_=rules.entity(ex("viktor")), against=walled)
    expected: Counter = Counter()
    for faces in product(range(1, 7), repeat=6):  # NATURE 5 + Hit 1
        score, edge = sum(f for f in faces if f <= 3), sum(1 for f in faces if f >= 4)
        expected[-(-max(0, 3 + edge - 3) // 2) if score >= 3 else 0] += Fraction(1, 6 ** 6)
    assert {k: v for k, v in dict(odds.results["damage"]).items() if v} == dict(expected)


# ---------------------------------------------------------------- the senses (§4.6, §4.17)


def test_blinded_and_deafened(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    blind = fighter(tmp_path, "Blind", conditions=["Blinded"])
    deaf = fighter(tmp_path, "Deaf", conditions=["Deafened"])
    # S-15 through the status: a Check that relies less on sight, Difficulty 2 -> 5.
    assert run(cli, "Sense Task", "--as", blind, "--with", "base=2")["results"] == {"difficulty": 5}
    refused(cli, "Sense Not Lost", "Sense Task", "--as", blind, "--with", "sense=sight")
    # S-14: dim light on a sight-reliant Check, 3 -> 4; darkness 3 -> 6.
    assert run(cli, "Sense Task", "--as", ex("kirin"), "--with", "base=3", "--with", "sense=sight", "--with",
               "light=dim")["results"] == {"difficulty": 4}
    assert run(cli, "Sense Task", "--as", ex("kirin"), "--with", "base=3", "--with", "sense=sight", "--with",
               "light=dark")["results"] == {"difficulty": 6}
    refused(cli, "Sense Not Lost", "Sense Task", "--as", deaf, "--with", "sense=hearing")
    assert run(cli, "Sense Task", "--as", deaf, "--with", "base=2", "--with", "sense=hearing", "--with",
               "concept_compensates=true")["results"] == {"difficulty": 2}
    # A Blinded attacker: POISE 3 + 3 to beat. [1,1,1] Score 3 misses (the Twist declined).
    miss = run(cli, "Attack", "--as", blind, "--against", ex("bandit"), "--dice", "1,1,1")
    assert miss["results"]["hit"] is False


def test_sneaking_needs_somewhere_to_hide(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    refused(cli, "Somewhere To Hide", "Sneak", "--as", ex("kirin"), "--against", ex("bandit"),
            "--with", "watched=true", "--dice", "1,2,3,4,5")
    refused(cli, "Somewhere To Hide", "Sneak", "--as", ex("kirin"), "--against", ex("bandit"),
            "--with", "hiding_place=false", "--dice", "1,2,3,4,5")
    # A Deafened (or Blinded) watcher can be sneaked on as if from Cover.
    deaf = fighter(tmp_path, "Deaf", conditions=["Deafened"])
    out = run(cli, "Sneak", "--as", ex("kirin"), "--against", deaf, "--with", "watched=true", "--dice", "1,2,3,4,5")
    assert out["results"] == {"outcome": "success", "surprise_dm_bonus": 2, "items": 3}


# ---------------------------------------------------------------- encumbrance (§4.6, A24)


@pytest.mark.parametrize(("carried", "dice"), [(0, 3), (40, 3), (41, 2), (100, 1)])
def test_a_load_costs_poise_dice(cli, tmp_path: Path, carried: int, dice: int) -> None:  # type: ignore[no-untyped-def]
    # FRAME 3: a Load Step of 40 kg. Move Past rolls POISE 3 less 1D per step exceeded: as
    # many 1s as dice make the Score that clears an obstacle of that Difficulty (fewer dice
    # would fail; more would run out of faces).
    porter = fighter(tmp_path, "Porter", Carried=carried)
    faces = ",".join(["1"] * dice)
    out = run(cli, "Move Past", "--as", porter, "--with", f"obstacles={dice}", "--dice", faces)
    assert out["results"]["outcome"] == "success"


def test_the_load_penalty_uses_the_largest_penalty(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Carrying 100 kg (-2D) while Staggered at -1 (-1D): only the largest counts, 3 - 2 = 1 die.
    porter = fighter(tmp_path, "Porter", Carried=100, resources={"Harm": 4})
    assert run(cli, "Move Past", "--as", porter, "--with", "obstacles=1", "--dice", "1")["results"]["outcome"] == "success"
    # Under `sum` the pool is 3 - 3 = 0 dice: no die is rolled, and Score 0 fails.
    summed = run(cli, "Move Past", "--as", porter, "--with", "obstacles=1", "--option", "dice_stacking=sum")
    assert summed["results"]["outcome"] == "failure"


def test_an_overloaded_character_is_incapacitated(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # 121 kg on a 40 kg Load Step: -3D, all of POISE 3: no Action.
    mule = fighter(tmp_path, "Mule", Carried=121)
    refused(cli, "Attacker Can Act", "Attack", "--as", mule, "--against", ex("bandit"), "--dice", "1,1,1")
    # A file may give its own Load Step (a mount's 128 kg): the same load is no burden.
    strong = fighter(tmp_path, "Strong", Carried=121, **{"Load Step": 128})
    assert run(cli, "Attack", "--as", strong, "--against", ex("bandit"), "--dice", "1,1,1")["results"]["hit"] is True


def test_the_load_step_override(cli) -> None:  # type: ignore[no-untyped-def]
    rules = load(GAME)
    # The Characters chapter's prose example: FRAME 3 at "Load Step 18" with a 20 kg idol is
    # -1D; the table's 40 kg carries it freely (A24).
    assert rules.resolve("Encumbrance", weight=20, frame=3, poise=3, load_step=18).results["penalty"] == 1
    assert rules.resolve("Encumbrance", weight=20, frame=3, poise=3).results["penalty"] == 0


def test_move_past_odds_under_load_match_an_enumeration(tmp_path: Path) -> None:
    rules = load(GAME)
    porter = rules.entity(fighter(tmp_path, "Porter", Carried=41))  # -1D: 2 dice
    odds = rules.odds("Move Past", as_=porter, obstacles=[2, 2])
    expected: Counter = Counter()
    for faces in product(range(1, 7), repeat=2):
        score = sum(f for f in faces if f <= 3)
        expected[2 if score >= 4 else 1 if score >= 2 else 0] += Fraction(1, 36)
    assert {k: v for k, v in dict(odds.results["passed"]).items() if v} == dict(expected)
