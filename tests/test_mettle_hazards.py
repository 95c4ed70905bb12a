"""METTLE Core afflictions, fire and area attacks (rulesets/mettle/hazards.rules, combat.rules):
exact odds compared with an enumeration of every sequence of faces written here, and the §5
options that change them."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from runebook.interpreter.rules import load

GAME = "mettle"
EXAMPLES = Path(__file__).resolve().parent.parent / "rulesets" / "mettle" / "examples"


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load(GAME)


def affliction_by_enumeration(bonus: int, soak: int, limit: int, less_lethal: bool,
                              cumulative: bool = False) -> tuple[Counter, Counter]:
    """(Strain, fate) distributions of an affliction, walking every sequence of faces.

    Read as the book reads it: Roll 1d6 + bonus at exposure and each interval; stop at a Roll
    no higher than the last; Strain is the Roll less the Soak (or, cumulative, adds up); death
    above the limit (above twice it for a less lethal agent, which knocks out above it)."""
    strain_dist: Counter = Counter()
    fate_dist: Counter = Counter()

    def fate_of(strain: int) -> str:
        if strain > 2 * limit or (strain > limit and not less_lethal):
            return "killed"
        if strain > limit:
            return "knocked_out"
        return "under_strain" if strain > 0 else "unharmed"

    def walk(last: int | None, strain: int, weight: Fraction) -> None:
        for face in range(1, 7):
            r, w = face + bonus, weight / 6
            if last is not None and r <= last:
                strain_dist[strain] += w
                fate_dist[fate_of(strain)] += w
                continue
            now = strain + max(0, r - soak) if cumulative else max(0, r - soak)
            if fate_of(now) == "killed":
                strain_dist[now] += w
                fate_dist["killed"] += w
                continue
            walk(r, now, w)

    walk(None, 0, Fraction(1))
    return strain_dist, fate_dist


def named(dist) -> dict:  # type: ignore[no-untyped-def]
    return {(v if isinstance(v, (int, tuple)) else str(v)): p for v, p in dict(dist).items() if p}


@pytest.mark.parametrize(("who", "bonus", "soak", "limit", "less_lethal"), [
    ("scout", 4, 3, 4, False),      # cobra venom against FRAME 3, Mettle 4
    ("scout", 2, 2, 4, False),      # a monitor lizard bite (soaked by POISE 2)
    ("scout", 0, 3, 4, True),       # a tranquilizer dart
])
def test_affliction_odds_match_an_enumeration(rules, who: str, bonus: int, soak: int, limit: int,  # type: ignore[no-untyped-def]
                                              less_lethal: bool) -> None:
    victim = rules.entity(str(EXAMPLES / f"{who}.yaml"))
    soak_with = "FRAME" if soak == 3 else "POISE"
    odds = rules.odds("Affliction", as_=victim, bonus=bonus, soak_with=soak_with, less_lethal=less_lethal)
    strain, fate = affliction_by_enumeration(bonus, soak, limit, less_lethal)
    assert sum(strain.values()) == 1
    assert named(odds.results["strain"]) == dict(strain)
    assert named(odds.results["fate"]) == dict(fate)


def test_affliction_strain_that_adds_up(rules) -> None:  # type: ignore[no-untyped-def]
    """A7's alternative: each interval's Strain is added to the last."""
    victim = rules.entity(str(EXAMPLES / "elephant.yaml"))
    odds = rules.odds("Affliction", as_=victim, bonus=6, less_lethal=True,
                      options={"affliction_strain_mode": "cumulative"})
    strain, fate = affliction_by_enumeration(6, 11, 8, True, cumulative=True)
    assert named(odds.results["strain"]) == dict(strain)
    assert named(odds.results["fate"]) == dict(fate)


def test_fire_rolls_each_round_and_sets_the_flammable_burning(cli) -> None:  # type: ignore[no-untyped-def]
    import json
    scout = str(EXAMPLES / "scout.yaml")
    out = cli("run", GAME, "Fire", "--as", scout, "--with", "size=bonfire", "--with", "rounds=2",
              "--with", "flammable=true", "--dice", "6,5,2,2", "--json")
    assert out.code == 0, out.stderr
    payload = json.loads(out.stdout)
    # Bonfire 2d6: 11 - 3 = 8, then 4 - 3 = 1.
    assert payload["results"]["damage"] == [8, 1] and payload["results"]["burning"] is True
    assert payload["state"]["actor"]["conditions"][-1] == "Burning(2)"
    # A23's `fixed`: a flammable target burns for the same damage every Round (one roll).
    fixed = cli("run", GAME, "Fire", "--as", scout, "--with", "size=bonfire", "--with", "rounds=2",
                "--with", "flammable=true", "--option", "fire_burning=fixed", "--dice", "6,5", "--json")
    assert json.loads(fixed.stdout)["results"]["damage"] == [8, 8]


def test_fire_odds_match_an_enumeration(rules) -> None:  # type: ignore[no-untyped-def]
    scout = rules.entity(str(EXAMPLES / "scout.yaml"))
    odds = rules.odds("Fire", as_=scout, size="bonfire")
    expected: Counter = Counter()
    for a, b in product(range(1, 7), repeat=2):
        expected[(max(0, a + b - 3),)] += Fraction(1, 36)
    assert named(odds.results["damage"]) == dict(expected)


def test_area_attack_rolls_per_target(cli) -> None:  # type: ignore[no-untyped-def]
    import json
    viktor = str(EXAMPLES / "viktor.yaml")
    bandits = str(EXAMPLES / "bandits.yaml")
    # Viktor's pistol (Range 2, DM 3) into the bandits' Zone, one die per target: the Chief
    # 6 + 3 - Soak 4 = 5; the Bandit 1 + 3 - 3 = 1.
    out = cli("run", GAME, "Area Attack", "--as", viktor, "--against", bandits, "--dice", "6,1", "--json")
    assert out.code == 0, out.stderr
    assert json.loads(out.stdout)["results"]["damage"] == [5, 1]
    shared = cli("run", GAME, "Area Attack", "--as", viktor, "--against", bandits, "--dice", "4",
                 "--option", "area_roll=shared", "--json")
    assert json.loads(shared.stdout)["results"]["damage"] == [3, 4]
    # The Chief's sword reaches only its own Zone: Viktor, a Zone away, is out of its reach.
    far = cli("run", GAME, "Area Attack", "--as", str(EXAMPLES / "bandit-chief.yaml"), "--against",
              str(EXAMPLES / "heroes.yaml"), "--dice", "6,1")
    assert far.code == 1 and "'Target In Reach' requires" in far.stderr


def test_split_attack_divides_the_pool(cli) -> None:  # type: ignore[no-untyped-def]
    import json
    viktor = str(EXAMPLES / "viktor.yaml")
    bandits = str(EXAMPLES / "bandits.yaml")
    # NATURE 5 split 2 + 3; the Hit +1D applies to each part: 3 dice at the Chief (POISE 3; his
    # Parry does not count against a shot from the next Zone), 4 at the Bandit (POISE 3).
    out = cli("run", GAME, "Split Attack", "--as", viktor, "--against", bandits, "--with", "first_dice=2",
              "--dice", "1,2,4,3,3,4,4", "--json")
    assert out.code == 0, out.stderr
    # Chief: [1,2,4] Score 3 vs 3, Edge 1: 3 + 1 - Soak 4 = 0. Bandit: [3,3,4,4] Score 6, Edge 2: 3 + 2 - 3 = 2.
    assert json.loads(out.stdout)["results"]["damage"] == [0, 2]
    bad = cli("run", GAME, "Split Attack", "--as", viktor, "--against", bandits, "--with", "first_dice=5",
              "--dice", "1")
    assert bad.code == 1 and "E0613" in bad.stderr


# The book's table (§4.7): Potence 1d6 + k, the soaking attribute, the less lethal asterisk.
AGENTS = {"common_cold": (0, "POISE", False), "monitor_lizard_bite": (2, "POISE", False),
          "curare_dart": (6, "FRAME", False), "rattler_venom": (2, "FRAME", False),
          "cobra_venom": (4, "FRAME", False), "tranquilizer_dart": (0, "FRAME", True)}


@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_the_books_agents_match_the_enumeration(rules, agent: str) -> None:  # type: ignore[no-untyped-def]
    scout = rules.entity(str(EXAMPLES / "scout.yaml"))  # FRAME 3, POISE 2, Mettle 4
    bonus, soak_with, less_lethal = AGENTS[agent]
    odds = rules.odds("Affliction", as_=scout, agent=agent)
    strain, fate = affliction_by_enumeration(bonus, 3 if soak_with == "FRAME" else 2, 4, less_lethal)
    assert named(odds.results["strain"]) == dict(strain)
    assert named(odds.results["fate"]) == dict(fate)
