"""METTLE Core gaps found by auditing spec mettle.md and the rulebook (shared/seeds/mettle-core-srd)
against the ruleset (rulesets/mettle): a lone Attack on a ready Reach defender; Parry against
melee only; weapons left out of a Grapple (and the Grapple special); an Entangle kept until an
Escape; Switch, Sitting Duck, a dropped or Broken weapon (Combat Twists, §4.16); Deprivation's
fate on the sheet (§4.9); painkillers, Scope, Blast, bulletproof armour (Resources); a rider
urging a mount. Given dice worked out by hand (each test says how), refusals naming their
rule, and exact odds compared with enumerations written here."""

from __future__ import annotations

import json
from collections import defaultdict
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from runebook.interpreter.rules import load
from mettle_helpers import ex, fighter, refused, run

GAME = "mettle"


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load(GAME)


def check(faces: tuple[int, ...]) -> tuple[int, int]:
    """(Score, Edge) of faces: the 1-3s summed, the 4-6s counted (Engine chapter)."""
    return sum(f for f in faces if f <= 3), sum(1 for f in faces if f >= 4)


def plain(dist) -> dict:  # type: ignore[no-untyped-def]
    return {v: p for v, p in dict(dist).items() if p}


def out_file(tmp_path: Path, state: dict) -> str:
    """A file holding an entity's state after a run (JSON is YAML)."""
    path = tmp_path / f"{state['name'].lower()}-after.yaml"
    path.write_text(json.dumps(state))
    return str(path)


# ---------------------------------------------------------------- a lone Attack on a Reach weapon


def test_a_ready_spearman_strikes_first_at_a_lone_attack(cli) -> None:  # type: ignore[no-untyped-def]
    # The Spearman (NATURE 3 + Hit 1 = 4 dice) strikes first at the Bandit's club (melee, no
    # Reach): [1,2,4,5] Score 3 against POISE 3, Edge 2: DM 5 + 2 - Soak 3 = 4; the Bandit's
    # Mettle 3 -> -1, Staggered, so it swings with 3 - 1 = 2 dice: [2,2] Score 4 against POISE
    # 3 + Parry 1 (a melee blow, same Zone) = 4, a hit with no Edge: 4 - 3 = 1.
    out = run(cli, "Attack", "--as", ex("bandit"), "--against", ex("spearman"), "--with", "defender_ready=true",
              "--dice", "1,2,4,5,2,2")["results"]
    assert (out["reach_struck"], out["reach_damage"], out["actor_mettle"]) == (True, 4, -1)
    assert (out["hit"], out["score"], out["edge"], out["damage"], out["target_mettle"]) == (True, 4, 0, 1, 2)


def test_a_lone_attack_gives_no_strike_first_unless_the_defender_is_ready(cli) -> None:  # type: ignore[no-untyped-def]
    # By default the defender is not said to be ready: the Bandit's 3 dice are the only roll,
    # [2,2,5] Score 4 against 4, Edge 1: 4 + 1 - 3 = 2.
    out = run(cli, "Attack", "--as", ex("bandit"), "--against", ex("spearman"), "--dice", "2,2,5")["results"]
    assert (out["reach_struck"], out["reach_damage"], out["damage"], out["actor_mettle"]) == (False, 0, 2, 3)
    # Ready, but Reach left out of play (option reach_pre_empts): the same.
    off = run(cli, "Attack", "--as", ex("bandit"), "--against", ex("spearman"), "--with", "defender_ready=true",
              "--option", "reach_pre_empts=reach_ignored", "--dice", "2,2,5")["results"]
    assert (off["reach_struck"], off["damage"], off["actor_mettle"]) == (False, 2, 3)


def test_an_attacker_the_strike_first_drops_makes_no_attack(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pike = fighter(tmp_path, "Pike", weapon="Pike", Reach=1, DM=9)
    # [1,2,4]: 9 + 1 - 3 = 7 against the Bandit's Mettle 3: -4, below -MOTIVE 3: Fallen. Its
    # blow never comes (no more dice are read), so nothing hits the Pike.
    out = run(cli, "Attack", "--as", ex("bandit"), "--against", pike, "--with", "defender_ready=true",
              "--dice", "1,2,4")
    assert (out["results"]["reach_damage"], out["results"]["actor_mettle"]) == (7, -4)
    assert (out["results"]["hit"], out["results"]["damage"], out["results"]["target_mettle"]) == (False, 0, 3)
    assert "Fallen" in out["state"]["actor"]["conditions"]


def test_reach_does_not_meet_a_ranged_or_reach_weapon(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # A bow (Range 2) or another Reach weapon is not what Reach steals Initiative from.
    for name, stats in (("Bow", {"Range": 2}), ("Lance", {"Reach": 1})):
        attacker = fighter(tmp_path, name, weapon=name, **stats)
        out = run(cli, "Attack", "--as", attacker, "--against", ex("spearman"), "--with", "defender_ready=true",
                  "--dice", "2,2,5")["results"]
        assert out["reach_struck"] is False and out["actor_mettle"] == 3


def test_an_attack_that_may_not_be_made_is_refused_before_any_strike_first(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    fallen = fighter(tmp_path, "Down", weapon="Club", resources={"Harm": 7})
    refused(cli, "Attacker Can Act", "Attack", "--as", fallen, "--against", ex("spearman"),
            "--with", "defender_ready=true", "--dice", "1,2,4,5")
    far = fighter(tmp_path, "Far", weapon="Club", Zone=2)
    # The Spearman's Range 1 reaches the Zone next door; the club does not reach him.
    refused(cli, "Target In Reach", "Attack", "--as", far, "--against", ex("spearman"),
            "--with", "defender_ready=true", "--dice", "1,2,4,5")


def test_exact_odds_of_a_lone_attack_on_a_ready_reach_weapon(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    club = rules.entity(fighter(tmp_path, "Club", weapon="Club"))
    pike = rules.entity(fighter(tmp_path, "Pike", weapon="Pike", Reach=1, DM=8))
    odds = rules.odds("Attack", as_=club, against=pike, defender_ready=True)
    # Independent: the Pike's 3 dice against POISE 3 first, DM 8 + Edge - Soak 3 off the Club's
    # Mettle 3; the Club, unless Fallen (below -3), swings with 3 dice less its Staggered
    # penalty against POISE 3, DM 4 + Edge - Soak 3. A failure with Edge takes no Twist (the
    # first option, accept_failure, is the one odds follow).
    actor: dict[int, Fraction] = defaultdict(Fraction)
    target: dict[int, Fraction] = defaultdict(Fraction)
    for first in product(range(1, 7), repeat=3):
        score, edge = check(first)
        club_mettle = 3 - (max(0, 8 + edge - 3) if score >= 3 else 0)
        p = Fraction(1, 6 ** 3)
        actor[club_mettle] += p
        if club_mettle < -3:
            target[3] += p
            continue
        dice = max(0, 3 - max(0, -club_mettle))
        for second in product(range(1, 7), repeat=dice):
            s2, e2 = check(second)
            target[3 - (max(0, 4 + e2 - 3) if s2 >= 3 else 0)] += p / 6 ** dice
    assert plain(odds.results["actor_mettle"]) == dict(actor)
    assert plain(odds.results["target_mettle"]) == dict(target)
    assert plain(odds.results["reach_struck"]) == {True: 1}


# ---------------------------------------------------------------- Parry against melee only


def test_parry_counts_against_a_blow_from_the_same_zone_only(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    keep = str(tmp_path / "keep.yaml")
    Path(keep).write_text("- accept_failure\n")
    # Viktor shoots the Chief from the next Zone: NATURE 5 + Hit 1 = 6 dice, [1,2,4,4,4,4]
    # Score 3 against POISE 3 (Parry is for melee Attacks), Edge 4: DM 3 + 4 - Soak 4 = 3,
    # the Chief's Mettle 5 -> 2.
    shot = run(cli, "Attack", "--as", ex("viktor"), "--against", ex("bandit-chief"), "--dice", "1,2,4,4,4,4")
    assert (shot["results"]["hit"], shot["results"]["damage"], shot["results"]["target_mettle"]) == (True, 3, 2)
    # Parry counted against every Attack (the alternative): Score 3 < 4, a miss.
    old = run(cli, "Attack", "--as", ex("viktor"), "--against", ex("bandit-chief"), "--dice", "1,2,4,4,4,4",
              "--option", "parry_against=every_attack", "--choices", keep)
    assert (old["results"]["hit"], old["results"]["damage"]) == (False, 0)
    # The Bandit's club in the Chief's own Zone is a melee blow: [1,2,4] Score 3 < POISE 3 +
    # Parry 1, a miss; [2,2,4] Score 4, Edge 1: 4 + 1 - 4 = 1.
    club = run(cli, "Attack", "--as", ex("bandit"), "--against", ex("bandit-chief"), "--dice", "1,2,4",
               "--choices", keep)
    assert club["results"]["hit"] is False
    assert run(cli, "Attack", "--as", ex("bandit"), "--against", ex("bandit-chief"), "--dice", "2,2,4")[
        "results"]["damage"] == 1


def test_block_counts_against_every_attack(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    keep = str(tmp_path / "keep.yaml")
    Path(keep).write_text("- accept_failure\n")
    # A medium shield: Parry +2, Block +1, in Zone 1.
    shield = fighter(tmp_path, "Shield", weapon="Medium shield", Parry=2, Block=1)
    bow = fighter(tmp_path, "Bow", weapon="Bow", Range=2, Zone=0)
    club = fighter(tmp_path, "Club", weapon="Club")
    # [1,3,4] Score 4, Edge 1. From the next Zone only Block counts: POISE 3 + 1 = 4, a hit
    # (4 + 1 - 3 = 2); from the same Zone the larger of Parry 2 and Block 1: 5, a miss.
    assert run(cli, "Attack", "--as", bow, "--against", shield, "--dice", "1,3,4")["results"]["damage"] == 2
    assert run(cli, "Attack", "--as", club, "--against", shield, "--dice", "1,3,4", "--choices", keep)[
        "results"]["hit"] is False


def test_exact_odds_of_a_shot_at_a_parrying_foe(rules) -> None:  # type: ignore[no-untyped-def]
    viktor, chief = rules.entity(ex("viktor")), rules.entity(ex("bandit-chief"))
    for option, difficulty in (("melee_only", 3), ("every_attack", 4)):
        odds = rules.odds("Attack", as_=viktor, against=chief, options={"parry_against": option})
        # Independent: 6 dice against POISE 3, plus Parry 1 only under every_attack.
        hit = sum(Fraction(1, 6 ** 6) for faces in product(range(1, 7), repeat=6) if check(faces)[0] >= difficulty)
        assert plain(odds.results["hit"]) == {True: hit, False: 1 - hit}


# ---------------------------------------------------------------- Grapple: weapons count for neither side


def test_a_grapple_leaves_the_weapons_out(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # The Bandit grapples the Chief: 3 dice [1,2,4] Score 3 against POISE 3 (the Chief's
    # sword does not parry a grapple), Edge 1: FRAME 3 + 1 - FRAME 3 = +1 Difficulty.
    grip = run(cli, "Attack", "--as", ex("bandit"), "--against", ex("bandit-chief"), "--with", "mode=grapple",
               "--dice", "1,2,4")
    assert (grip["results"]["hit"], grip["results"]["hold"]) == (True, 1)
    assert grip["state"]["target"]["conditions"] == ["Grappled(1) for 2 rounds"]
    # A sword's Hit (+1D) is no help in a grapple: only 3 dice are read, [1,2,4].
    sword = fighter(tmp_path, "Sword", weapon="Sword", Hit=2, DM=5)
    held = run(cli, "Attack", "--as", sword, "--against", ex("bandit"), "--with", "mode=grapple", "--dice", "1,2,4")
    assert (held["results"]["score"], held["results"]["edge"], held["results"]["hold"]) == (3, 1, 1)


def test_a_grapple_weapon_brings_its_hit_and_dm(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # A garrote (Grapple special; DM FRAME + 1 = 4) with a +1D Hit of ours: 4 dice [1,2,4,4],
    # Score 3 vs POISE 3, Edge 2: DM 4 + 2 - FRAME 3 = +3.
    garrote = fighter(tmp_path, "Garrote", weapon="Garrote", Grappling=1, Hit=1, DM=4)
    out = run(cli, "Attack", "--as", garrote, "--against", ex("bandit"), "--with", "mode=grapple",
              "--dice", "1,2,4,4")
    assert (out["results"]["edge"], out["results"]["hold"]) == (2, 3)
    # Grappling is on or off.
    bad = fighter(tmp_path, "Bad", weapon="Garrote", Grappling=2)
    refused(cli, "Weapon Specials Valid", "Attack", "--as", bad, "--against", ex("bandit"), "--with", "mode=grapple",
            "--dice", "1,2,4")


def test_exact_odds_of_a_grapple_with_a_sword(rules) -> None:  # type: ignore[no-untyped-def]
    chief, bandit = rules.entity(ex("bandit-chief")), rules.entity(ex("bandit"))
    odds = rules.odds("Attack", as_=chief, against=bandit, mode="grapple")
    # Independent: NATURE 4 dice (no Hit) against POISE 3; the hold is FRAME 3 + Edge - FRAME 3.
    hold: dict[int, Fraction] = defaultdict(Fraction)
    for faces in product(range(1, 7), repeat=4):
        score, edge = check(faces)
        hold[edge if score >= 3 else 0] += Fraction(1, 6 ** 4)
    assert plain(odds.results["hold"]) == {k: v for k, v in hold.items() if v}


# ---------------------------------------------------------------- a dropped weapon picked up again


def test_a_dropped_weapon_is_picked_up_with_an_action(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Butter fingers or a Disarm leaves the weapon on the ground: no Attack until it is picked
    # up, a Use or Move Action with no Check (Combat Twists).
    dropped = fighter(tmp_path, "Dropped", weapon="Club", conditions=["Disarmed"])
    refused(cli, "Attacker Has Weapon", "Attack", "--as", dropped, "--against", ex("bandit"), "--dice", "1,2,4")
    out = run(cli, "Retrieve Weapon", "--as", dropped)
    assert out["results"] == {"armed": True} and out["state"]["actor"]["conditions"] == []
    down = fighter(tmp_path, "Down", weapon="Club", conditions=["Disarmed"], resources={"Harm": 7})
    refused(cli, "Attacker Can Act", "Retrieve Weapon", "--as", down)


def test_in_a_round_fix_weapon_picks_it_up(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    dropped = fighter(tmp_path, "Dropped", weapon="Club", conditions=["Disarmed"])
    answers = tmp_path / "a.yaml"
    answers.write_text("- Dropped\n- fix_weapon\n- Bandit\n- pass\n")
    out = run(cli, "Combat Round", "--as", dropped, "--against", ex("bandit"), "--choices", str(answers))
    assert [a["did"] for a in out["results"]["actions"]] == ["fix weapon", "pass"]
    assert out["state"]["actor"]["conditions"] == []


# ---------------------------------------------------------------- Entangle: kept without an Action, escaped by a Move


def test_an_entangle_hold_stays_until_escaped(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    netted = fighter(tmp_path, "Netted", weapon="Club", conditions=["Entangled(2)"])
    answers = tmp_path / "a.yaml"
    answers.write_text("- Netted\n- pass\n- Bandit\n- pass\n")
    # A Round passes with nobody renewing it: the hold stays (a Grapple's would lapse).
    out = run(cli, "Combat Round", "--as", netted, "--against", ex("bandit"), "--choices", str(answers))
    assert out["state"]["actor"]["conditions"] == ["Entangled(2)"]
    # Every Check is 2 harder: [1,2,2] Score 5 against Kirin's POISE 5 + 2 misses.
    keep = tmp_path / "keep.yaml"
    keep.write_text("- accept_failure\n")
    assert run(cli, "Attack", "--as", netted, "--against", ex("kirin"), "--dice", "1,2,2", "--choices", str(keep))[
        "results"]["hit"] is False
    # Escape: a Move Check, POISE 3 against the raised Difficulty 0 + 2. [1,4,5] Score 1 fails
    # (the hold stays); [1,1,4] Score 2 frees.
    stuck = run(cli, "Escape", "--as", netted, "--dice", "1,4,5", "--answer", "action_twist=decline")
    assert stuck["results"] == {"outcome": "failure", "difficulty": 2, "held": 2}
    free = run(cli, "Escape", "--as", netted, "--dice", "1,1,4")
    assert free["results"] == {"outcome": "success", "difficulty": 2, "held": 0}
    assert free["state"]["actor"]["conditions"] == []
    # A new Scene ends it too; while it holds, no Charge.
    assert run(cli, "New Scene", "--as", netted)["state"]["actor"]["conditions"] == []
    charge = tmp_path / "c.yaml"
    charge.write_text("- Netted\n- charge_and_attack\n")
    refused(cli, "Charge Not Hindered", "Combat Round", "--as", netted, "--against", ex("bandit"),
            "--choices", str(charge), "--dice", "1,2,4")


def test_an_entangling_hit_then_an_escape_in_the_round(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    net = fighter(tmp_path, "Net", weapon="Net", Entangle=2)
    answers = tmp_path / "a.yaml"
    answers.write_text("- Net\n- attack_foe\n- Bandit\n- no_surge\n- escape_hold\n")
    # The Net hits ([1,2,4]: 4 + 1 - 3 = 2 damage, held at +2); the Bandit, struck with its
    # Action left, spends it on a Move Check against 2: [1,1,5] Score 2, free.
    out = run(cli, "Combat Round", "--as", net, "--against", ex("bandit"), "--choices", str(answers),
              "--dice", "1,2,4,1,1,5")
    assert [a["did"] for a in out["results"]["actions"]] == ["attack", "escape"]
    assert out["results"]["mettle"] == [3, 1] and out["state"]["target"]["conditions"] == []


def test_exact_odds_of_an_escape(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    netted = rules.entity(fighter(tmp_path, "Netted", weapon="Club", conditions=["Entangled(3)"]))
    odds = rules.odds("Escape", as_=netted)
    free = sum(Fraction(1, 216) for faces in product(range(1, 7), repeat=3) if check(faces)[0] >= 3)
    assert {str(k): v for k, v in plain(odds.results["outcome"]).items()} == {"success": free, "failure": 1 - free}


# ---------------------------------------------------------------- Switch: the hit lands on a bystander


def test_a_switch_lands_the_hit_on_a_bystander(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    switch = tmp_path / "s.yaml"
    switch.write_text("- switch\n")
    # The Chief's 5 dice on Kirin: [1,1,4,5,6] Score 2 < POISE 5, Edge 3: the Switch Twist
    # rolls the 3 Edge dice again, [3,3,4]: Score 8, Edge 1, a hit: DM 5 + 1 = 6 lands on the
    # Bystander in Kirin's Zone, less its Soak 3 = 3 (Mettle 3 -> 0, Staggered); Kirin is untouched.
    out = run(cli, "Attack", "--as", ex("bandit-chief"), "--against", ex("kirin"), "--against", ex("bystander"),
              "--dice", "1,1,4,5,6,3,3,4", "--choices", str(switch))
    assert (out["results"]["hit"], out["results"]["damage"], out["results"]["switched_damage"]) == (True, 0, 3)
    assert out["results"]["target_mettle"] == 4
    assert out["state"]["targets"][1]["resources"]["Harm"] == 3
    assert out["state"]["targets"][1]["conditions"] == ["Staggered"]
    # Someone in another Zone cannot be switched in.
    away = fighter(tmp_path, "Away", Zone=0)
    refused(cli, "Switch Target In Zone", "Attack", "--as", ex("bandit-chief"), "--against", ex("kirin"),
            "--against", away, "--dice", "1,1,4,5,6,3,3,4", "--choices", str(switch))


# ---------------------------------------------------------------- Deprivation's fate on the sheet


def test_deprivation_puts_its_fate_on_the_sheet(cli) -> None:  # type: ignore[no-untyped-def]
    # Thirst 3 a day against the scout's Mettle 4: 3, then 6 > 4: dead, as an affliction's
    # fatal Strain leaves the victim.
    dead = run(cli, "Deprivation", "--as", ex("scout"), "--with", "need=thirst", "--with", "days=2")
    assert dead["results"]["fate"] == "killed"
    assert dead["state"]["actor"]["conditions"] == ['Strained(6, "thirst")', "Dead"]
    # Fatigue 2 a day: 4 = Mettle on day 2, passed out (Incapacitated), not dead.
    out = run(cli, "Deprivation", "--as", ex("scout"), "--with", "need=fatigue", "--with", "days=2")
    assert out["results"]["fate"] == "knocked_out"
    assert out["state"]["actor"]["conditions"] == ['Strained(4, "fatigue")', "Incapacitated"]


# ---------------------------------------------------------------- Sitting Duck's validity


def test_sitting_duck_needs_cover_and_a_ranged_foe(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    duck = tmp_path / "d.yaml"
    duck.write_text("- sitting_duck\n")
    covered = fighter(tmp_path, "Covered", weapon="Club", conditions=["Covered(partial)"])
    gunman = fighter(tmp_path, "Gunman", weapon="Pistol", Range=2)
    # [1,1,4]: Score 2 < POISE 3, Edge 1: the Twist rolls the 4 again, [5]: still a miss; the
    # Cover is lost.
    out = run(cli, "Attack", "--as", covered, "--against", gunman, "--dice", "1,1,4,5", "--choices", str(duck))
    assert out["results"]["hit"] is False and out["results"]["twist"] == "sitting_duck"
    assert out["state"]["actor"]["conditions"] == []
    # No Cover to lose, or no ranged threat: not a valid Twist.
    refused(cli, "Sitting Duck Valid", "Attack", "--as", fighter(tmp_path, "Open", weapon="Club"), "--against",
            gunman, "--dice", "1,1,4,5", "--choices", str(duck))
    refused(cli, "Sitting Duck Valid", "Attack", "--as", covered, "--against", ex("bandit"), "--dice", "1,1,4,5",
            "--choices", str(duck))


# ---------------------------------------------------------------- Broken: a complex weapon is useless


def test_a_broken_complex_weapon_is_useless_until_mended(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    gun = fighter(tmp_path, "Gun", weapon="Pistol", Complex=1, Range=2, conditions=["Broken Weapon"])
    refused(cli, "Attacker Has Weapon", "Attack", "--as", gun, "--against", ex("bandit"), "--dice", "1,2,4")
    # Mending: a Use Check, MOTIVE 3 against the GM's 3: [1,4,5] Score 1 fails (still broken);
    # [1,2,4] Score 3 mends it.
    failed = run(cli, "Mend Weapon", "--as", gun, "--dice", "1,4,5", "--answer", "action_twist=decline")
    assert failed["results"] == {"outcome": "failure", "armed": False}
    mended = run(cli, "Mend Weapon", "--as", gun, "--dice", "1,2,4")
    assert mended["results"] == {"outcome": "success", "armed": True}
    assert mended["state"]["actor"]["conditions"] == []
    # Complex is on or off.
    refused(cli, "Weapon Specials Valid", "Attack", "--as", fighter(tmp_path, "Odd", weapon="Gun", Complex=2),
            "--against", ex("bandit"), "--dice", "1,2,4")


# ---------------------------------------------------------------- painkillers (Resources, Medicine)


@pytest.mark.parametrize(("painkillers", "dice"), [(0, 1), (1, 2), (2, 3), (3, 3)])
def test_painkillers_ignore_dice_of_the_staggered_penalty(cli, tmp_path: Path, painkillers: int, dice: int) -> None:  # type: ignore[no-untyped-def]
    # Mettle 3 - 5 = -2: a -2D penalty on the 3-die pool; painkillers ignore 1 or 2 of those
    # dice and never add any. Every die shows 1, so the Score counts the dice rolled.
    hurt = fighter(tmp_path, "Hurt", weapon="Club", resources={"Harm": 5}, **{"Painkiller Dice": painkillers})
    keep = tmp_path / "keep.yaml"
    keep.write_text("- accept_failure\n")
    out = run(cli, "Attack", "--as", hurt, "--against", ex("kirin"), "--dice", ",".join(["1"] * dice),
              "--choices", str(keep))
    assert out["results"]["score"] == dice


# ---------------------------------------------------------------- Scoped weapons (Resources, Specials)


def test_a_scope_adds_its_zones_for_an_action(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # The Resources chapter's rifle: +1D, DM 7, Range 6, Scope 3.
    rifle = fighter(tmp_path, "Rifle", weapon="Rifle", Hit=1, DM=7, Range=6, Scope=3, Zone=0)
    far = fighter(tmp_path, "Far", Zone=8)
    # Eight Zones is beyond Range 6...
    refused(cli, "Target In Reach", "Attack", "--as", rifle, "--against", far, "--dice", "1,2,4,4")
    # ...an Action on the scope makes it 6 + 3 = 9.
    lined = run(cli, "Use Scope", "--as", rifle)
    assert lined["results"] == {"reach": 9} and lined["state"]["actor"]["conditions"] == ["Scoped"]
    scoped = fighter(tmp_path, "Rifle", weapon="Rifle", Hit=1, DM=7, Range=6, Scope=3, Zone=0, conditions=["Scoped"])
    # NATURE 3 + Hit 1 = 4 dice [1,2,4,4]: Score 3 against POISE 3, Edge 2: 7 + 2 - Soak 3 = 6.
    shot = run(cli, "Attack", "--as", scoped, "--against", far, "--dice", "1,2,4,4")
    assert (shot["results"]["damage"], shot["results"]["target_mettle"]) == (6, -3)
    # The scope served that shot.
    assert shot["state"]["actor"]["conditions"] == []
    # No scope, nothing to line up.
    refused(cli, "Weapon Has Scope", "Use Scope", "--as", ex("viktor"))


def test_in_a_round_lining_up_a_scope_is_the_action(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    rifle = fighter(tmp_path, "Rifle", weapon="Rifle", Hit=1, DM=7, Range=6, Scope=3, Zone=0)
    answers = tmp_path / "a.yaml"
    answers.write_text("- Rifle\n- line_up_scope\n- Bandit\n- pass\n")
    out = run(cli, "Combat Round", "--as", rifle, "--against", ex("bandit"), "--choices", str(answers))
    assert [a["did"] for a in out["results"]["actions"]] == ["scope", "pass"]
    assert out["state"]["actor"]["conditions"] == ["Scoped"]
    # A new Scene loses it.
    assert run(cli, "New Scene", "--as", out_file(tmp_path, out["state"]["actor"]))["state"]["actor"][
        "conditions"] == []


# ---------------------------------------------------------------- a rider urging a mount (Resources, Mounts)


def test_a_rider_urges_a_mount_with_a_riding_concept(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    rider = fighter(tmp_path, "Rider", CONCEPT=5, NATURE=2)
    # Rider's CONCEPT 5 against the horse's pool 4 (its MOTIVE): [1,1,2,4,5] Score 4, Edge 2.
    urged = run(cli, "Parley", "--as", rider, "--against", ex("horse"), "--with", "concept_fits=true",
                "--dice", "1,1,2,4,5")
    assert urged["results"] == {"outcome": "success", "sticky_belief": 2}
    # Without a fitting CONCEPT it is NATURE 2: [1,1] Score 2 < 4.
    assert run(cli, "Parley", "--as", rider, "--against", ex("horse"), "--dice", "1,1")["results"]["outcome"] == \
        "failure"
    # A CONCEPT lower than NATURE is not taken: NATURE 2 dice, [1,1].
    low = fighter(tmp_path, "Low", CONCEPT=1, NATURE=2)
    assert run(cli, "Parley", "--as", low, "--against", ex("horse"), "--with", "concept_fits=true",
               "--dice", "1,1")["results"]["outcome"] == "failure"


# ---------------------------------------------------------------- Blast (Resources, Specials: a grenade)


def test_a_blast_hits_the_target_then_the_others_in_its_zone(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # The Resources chapter's frag grenade: DM 8, Range 1, Blast; thrown from Zone 0.
    grenade = fighter(tmp_path, "Grenadier", weapon="Grenade", DM=8, Range=1, Blast=1, Zone=0)
    far = fighter(tmp_path, "Far", Zone=2)
    bunker = fighter(tmp_path, "Bunker", conditions=["Covered(total)"])
    # 3 dice at Kirin: [2,3,4] Score 5 against POISE 5, Edge 1: 8 + 1 - Soak 3 = 6 (Mettle -2).
    # The Bystander beside her: 1d6 [3] + 8 - Soak 3 = 8 (Mettle -5, Fallen). Far stands in
    # another Zone, Bunker behind Total Cover: neither is caught, and no die is rolled for them.
    out = run(cli, "Blast Attack", "--as", grenade, "--against", ex("kirin"), "--against", ex("bystander"),
              "--against", far, "--against", bunker, "--dice", "2,3,4,3")
    assert (out["results"]["hit"], out["results"]["damage"]) == (True, 6)
    assert out["results"]["blast_damage"] == [0, 8, 0, 0]
    assert out["results"]["mettle"] == [-2, -5, 3, 3]
    # One roll for all (A18 shared): [2,3,4], then [5] for everyone: 5 + 8 - 3 = 10.
    shared = run(cli, "Blast Attack", "--as", grenade, "--against", ex("kirin"), "--against", ex("bystander"),
                 "--option", "area_roll=shared", "--dice", "2,3,4,5")
    assert shared["results"]["blast_damage"] == [0, 10]
    # A miss ([1,1,4] Score 2, the Twist declined) blasts nobody.
    keep = tmp_path / "keep.yaml"
    keep.write_text("- accept_failure\n")
    miss = run(cli, "Blast Attack", "--as", grenade, "--against", ex("kirin"), "--against", ex("bystander"),
               "--dice", "1,1,4", "--choices", str(keep))
    assert (miss["results"]["hit"], miss["results"]["blast_damage"]) == (False, [0, 0])
    refused(cli, "Weapon Has Blast", "Blast Attack", "--as", ex("bandit"), "--against", ex("kirin"), "--dice", "1")


def test_exact_odds_of_a_blast(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    grenade = rules.entity(fighter(tmp_path, "Grenadier", weapon="Grenade", DM=8, Range=1, Blast=1, Zone=0))
    kirin, bystander = rules.entity(ex("kirin")), rules.entity(ex("bystander"))
    odds = rules.odds("Blast Attack", as_=grenade, against=[kirin, bystander])
    # Independent: 3 dice against POISE 5 (a failure takes no Twist, the first option); on a
    # hit the Bystander takes 1d6 + 8 - Soak 3.
    blast: dict[tuple[int, int], Fraction] = defaultdict(Fraction)
    for faces in product(range(1, 7), repeat=3):
        if check(faces)[0] >= 5:
            for die in range(1, 7):
                blast[(0, die + 5)] += Fraction(1, 6 ** 4)
        else:
            blast[(0, 0)] += Fraction(1, 6 ** 3)
    assert plain(odds.results["blast_damage"]) == dict(blast)


# ---------------------------------------------------------------- bulletproof armour (Resources, Armor)


def test_bulletproof_armour_soaks_more_against_bullets(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # A Kevlar vest: Soak +1, +3 against bullets (BP); on FRAME 3.
    cop = fighter(tmp_path, "Cop", Armor=1, **{"BP Armor": 3})
    pistol = fighter(tmp_path, "Pistol", weapon="Pistol", Hit=1, DM=6, Range=2, Bullets=1, Zone=0)
    # NATURE 3 + Hit 1 = 4 dice [1,2,4,4]: Score 3 against POISE 3, Edge 2: 6 + 2 = 8, less
    # FRAME 3 + BP 3 = 2.
    assert run(cli, "Attack", "--as", pistol, "--against", cop, "--dice", "1,2,4,4")["results"]["damage"] == 2
    # Armour-piercing rounds meet the plain Soak, 3 + 1: 4.
    piercing = fighter(tmp_path, "Piercing", weapon="Pistol", Hit=1, DM=6, Range=2, Bullets=1, AP=1, Zone=0)
    assert run(cli, "Attack", "--as", piercing, "--against", cop, "--dice", "1,2,4,4")["results"]["damage"] == 4
    # So does a club: [1,2,4] Score 3, Edge 1: 4 + 1 - 4 = 1.
    assert run(cli, "Attack", "--as", ex("bandit"), "--against", cop, "--dice", "1,2,4")["results"]["damage"] == 1
    refused(cli, "Weapon Specials Valid", "Attack", "--as", ex("bandit"), "--against",
            fighter(tmp_path, "Odd", **{"BP Armor": -1}), "--dice", "1,2,4")


def test_in_a_round_a_blast_passes_initiative_as_an_area_attack(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    grenade = fighter(tmp_path, "Grenadier", weapon="Grenade", DM=8, Range=1, Blast=1, Zone=0)
    answers = tmp_path / "a.yaml"
    answers.write_text("- Grenadier\n- throw_blast\n- Kirin\n- Kirin\n- pass\n")
    # As above: Kirin takes 6 ([2,3,4]), the Bystander beside her 3 + 8 - 3 = 8 and falls;
    # Initiative passes to a target still able to act (Kirin), who passes.
    out = run(cli, "Combat Round", "--as", grenade, "--against", ex("kirin"), "--against", ex("bystander"),
              "--choices", str(answers), "--dice", "2,3,4,3")
    assert [(a["who"], a["did"]) for a in out["results"]["actions"]] == [("Grenadier", "blast"), ("Kirin", "pass")]
    assert [c["choice"] for c in out["choices"]] == ["opener", "chosen_act", "lobbed_at", "next_from_blast",
                                                     "chosen_act"]
    assert out["results"]["mettle"] == [3, -2, -5]
    assert out["results"]["standing"] == ["Steady", "Staggered", "Fallen"]


def test_the_book_reading_of_entangle_as_a_grapple_with_the_weapon(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # A weighted net of ours: DM 5, Entangle. [1,2,4]: Score 3 against POISE 3, Edge 1.
    net = fighter(tmp_path, "Net", weapon="Net", DM=5, Entangle=1)
    # The file's count (default): held at +1, and 5 + 1 - 3 = 3 damage.
    listed = run(cli, "Attack", "--as", net, "--against", ex("bandit"), "--dice", "1,2,4")["results"]
    assert (listed["entangled"], listed["damage"]) == (1, 3)
    # As a Grapple with the net's DM and no damage: DM 5 + Edge 1 - FRAME 3 = +3.
    book = run(cli, "Attack", "--as", net, "--against", ex("bandit"), "--dice", "1,2,4",
               "--option", "entangle_amount=weapon_grapple", "--option", "entangle_effect=hold_only")
    assert (book["results"]["entangled"], book["results"]["damage"]) == (3, 0)
    assert book["state"]["target"]["conditions"] == ["Entangled(3)"]
