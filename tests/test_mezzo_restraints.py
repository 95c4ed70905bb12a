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
