"""METTLE Core gaps found by auditing spec mettle.md and the rulebook against the ruleset
(rulesets/mettle): a lone Attack on a ready defender with a Reach weapon (Resources chapter,
Specials: Reach), with given dice worked out by hand, refusals naming their rule, and exact
odds compared with an enumeration written here."""

from __future__ import annotations

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
