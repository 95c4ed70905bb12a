"""METTLE Core NPC Extras (spec mettle.md §1.5, Guidance): an Extra written "nD+f" rolls n dice
for every combat Attribute, and "+1 to the pool for Checks strongly tied to their title"
(`titled`, the Guide's call, on every Action an Extra rolls alone). The pools are counted from
the dice each Check rolls, and the odds of one Check are enumerated here face by face."""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import pytest

from runebook.interpreter.rules import load
from mettle_helpers import ex, fighter, refused

GAME = "mettle"


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load(GAME)


def patient(tmp_path: Path) -> str:
    """A patient at Mettle -2 (3 less 5 Harm), for Heal."""
    return fighter(tmp_path, "Patient", resources={"Harm": 5})


#: Each Action an Extra rolls alone: its inputs and the `--against` it needs (a file name, or
#: "patient"). The bandit (3D+3) rolls 3 dice for each: NATURE, POISE or MOTIVE 3.
ACTIONS: dict[str, tuple[dict[str, Any], str | None]] = {
    "Attack": ({}, "bystander"),
    "Rattle": ({}, "bystander"),
    "Parley": ({}, "clerk"),
    "Know": ({"difficulty": 3}, None),
    "Use": ({"difficulty": 3}, None),
    "Move": ({"zones": 1, "obstacles": [2]}, None),
    "Travel Leg": ({"difficulty": 3}, None),
    "Heal": ({}, "patient"),
}


@pytest.mark.parametrize("action", list(ACTIONS))
@pytest.mark.parametrize(("titled", "pool"), [(False, 3), (True, 4)])
def test_the_title_die_adds_one_to_an_extras_pool(rules, tmp_path: Path, action: str, titled: bool,
                                                  pool: int) -> None:  # type: ignore[no-untyped-def]
    """The bandit, an Extra 3D+3, rolls 3 dice; on a Check strongly tied to its title, 4. The
    dice all show 1: a Score of 3 or 4, a success, so no Twist is asked."""
    inputs, against = ACTIONS[action]
    foe = None if against is None else rules.entity(patient(tmp_path) if against == "patient" else ex(against))
    run = rules.run(action, as_=rules.entity(ex("bandit")), against=foe, titled=titled, dice=[1] * pool, **inputs)
    assert [d.label for d in run.trace.dice()] == ["d6"] * pool


def test_a_titled_check_has_the_odds_of_one_die_more(rules) -> None:  # type: ignore[no-untyped-def]
    """Know at Difficulty 3 for the bystander (3D+3): MOTIVE 3, and 4 dice with its title. The
    Score is the sum of the dice showing 1-3; it must reach 3 (A1's default)."""
    def chance(dice: int) -> Fraction:
        faces = list(product(range(1, 7), repeat=dice))
        return Fraction(sum(sum(f for f in roll if f <= 3) >= 3 for roll in faces), len(faces))

    for titled, dice in ((False, 3), (True, 4)):
        odds = rules.odds("Know", as_=rules.entity(ex("bystander")), titled=titled, difficulty=3)
        assert {str(k): v for k, v in odds.results["outcome"].items()}["success"] == chance(dice)


def test_the_title_die_is_the_pool_not_a_bonus_die(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Only the largest +D counts (§1.2, the default), so a title die read as +1D would vanish
    beside a 2-die bonus; added to the pool, Use with 2 bonus dice rolls 3 + 1 + 2 = 6 dice."""
    run = rules.run("Use", as_=rules.entity(ex("bandit")), difficulty=3, bonus_dice=2, titled=True, dice=[1] * 6)
    assert len(list(run.trace.dice())) == 6


@pytest.mark.parametrize(("action", "args"), [
    ("Know", ["--as", "kirin"]),
    ("Attack", ["--as", "kirin", "--against", "bandit"]),
    ("Parley", ["--as", "viktor", "--against", "clerk"]),
])
def test_a_character_has_no_title_die(cli, action: str, args: list[str]) -> None:  # type: ignore[no-untyped-def]
    """A character (a sheet without an `extra:` line) has a CONCEPT, not a title: `titled` is
    refused, naming the rule, and no file changes."""
    paths = [ex(a) if i % 2 else a for i, a in enumerate(args)]
    refused(cli, "Title Die For An Extra", action, *paths, "--with", "titled=true", "--dice", "1,1,1,1,1,1")
