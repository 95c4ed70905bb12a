"""Mezzo restraints (spec mezzo.md §3.9, A4): each restraint locks out the largest die size
left; by default every die an option's votes give is held at the largest size allowed.

The expected dice come from the book's votes table (§3.2) and the cap written here, not from
the ruleset's own tables.
"""

from __future__ import annotations

from typing import Any

import pytest

from runebook.interpreter.rules import load
from runebook.interpreter.rules.model import RunebookError
from runebook.interpreter.rules.procedures import ScriptedDriver
from mezzo_helpers import LADDER, book_pool



@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load("mezzo")



def held(votes: int, restraints: int) -> list[int]:
    """A4 default: every die held at the largest size still allowed (none at 5 restraints)."""
    if restraints >= 5:
        return []
    cap = LADDER[4 - restraints]
    return [min(s, cap) for s in book_pool(votes)]


def labels(result: Any) -> list[str]:
    return [d.label for d in result.trace.dice()]


def test_four_restraints_three_votes_hold_one_d4(rules) -> None:  # type: ignore[no-untyped-def]
    """Issue fix: 3 votes give one d8; four restraints hold it at d4: one die, not three."""
    result = rules.resolve("action check", dice=[3, 1], action_votes=3, failure_votes=1, restraints=4)
    assert labels(result) == ["d4", "d4"]
    assert result.results["action_score"] == 3


@pytest.mark.parametrize("restraints", range(0, 6))
@pytest.mark.parametrize("votes", range(0, 12))
def test_every_pool_is_the_book_pool_held_at_the_cap(rules, votes: int, restraints: int) -> None:  # type: ignore[no-untyped-def]
    expected = held(votes, restraints)
    faces = [1] * (len(expected) or 1) + [1]  # the action's dice (or none), then the failure's d4
    result = rules.resolve("action check", dice=faces[: len(expected) + 1], action_votes=votes, failure_votes=1,
                           restraints=restraints)
    assert labels(result) == [f"d{s}" for s in expected] + ["d4"]


def test_a_restraint_count_below_zero_is_refused(rules) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as error:
        rules.resolve("action check", dice=[1, 1], action_votes=3, failure_votes=1, restraints=-1)
    diagnostic = error.value.diagnostics[0]
    assert diagnostic.code == "E0613"
    assert "restraint" in diagnostic.message.lower()


@pytest.mark.parametrize(("restraints", "expected"), [([1, 0], ["d10", "d12"]), ([0, 4], ["d12", "d4"]),
                                                        ([5, 0], ["d12"])])
def test_contested_action_holds_each_party_at_its_restraints(rules, restraints: list[int],  # type: ignore[no-untyped-def]
                                                             expected: list[str]) -> None:
    """§3.9 in a contested action: 5 votes each (a d12); a restrained party's die is held at
    the largest size left, and five restraints leave no die (a score of 1)."""
    faces = [2] * len(expected)
    run = rules.run("Contested Action", dice=faces, parties=["ana", "bo"], votes=[5, 5], restraints=restraints,
                    driver=ScriptedDriver(["compromise"]))
    assert labels(run) == expected


def test_contested_action_refuses_a_restraint_count_below_zero(cli) -> None:  # type: ignore[no-untyped-def]
    out = cli("run", "mezzo", "Contested Action", "--with", "parties=ana,bo", "--with", "votes=2,2",
              "--with", "restraints=-1,0", "--dice", "1,1")
    assert out.code == 1
    assert "E0613" in out.stderr and "restraints" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize(("cap", "dice"), [("each_die", ["d10", "d4"]), ("shorter_ladder", ["d10", "d6"])])
def test_a_bound_challenger_rolls_under_the_restraint_cap_option(rules, cap: str, dice: list[str]) -> None:  # type: ignore[no-untyped-def]
    """Round 1: the hero's 12 doubles the foe's 1: Bind the foe, two minor perks. Round 2: the
    foe's 6 votes under one restraint are d10 & d4 (each die held), or d10 & d6 (A4's shorter
    ladder)."""
    run = rules.run("Challenge", dice=[12, 1, 1, 1, 1, 1], options={"restraint_cap": cap},
                    driver=ScriptedDriver(["bind", "foe", "two_minor"]), challengers=["hero", "foe"], sides=[1, 2],
                    votes=[5, 6], max_rounds=2)
    assert labels(run)[-2:] == dice
    assert list(run.results["restraints"]) == [0, 1]
