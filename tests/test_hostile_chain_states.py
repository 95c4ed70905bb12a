"""A procedure's chain whose states grow (a list of every round's roll) is refused on
``max_states`` as soon as the states it has found pass the limit, each counting the items of
the new lists it holds, not after exploring 10,000 states of ever longer lists (METTLE's Fire
of 1,000 rounds: 11 s)."""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import attrs
import pytest
from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.core.limits import DEFAULT_LIMITS
from runebook.interpreter.rules import load

from runebook import interpreter

GAME = """\
procedure Log (rounds = 1)
  let seen = []
  for each r in range(rounds)
    roll d = 1d3
    set seen = seen + [sum(d)]
  result log = seen

procedure Count (rounds = 1)
  let total = 0
  for each r in range(rounds)
    set total = total + r
  result total = total
"""

MAX_STATES = DEFAULT_LIMITS.max_states


@pytest.fixture()
def rules(tmp_path: Path) -> Any:
    (tmp_path / "g.rules").write_text(GAME)
    return interpreter.load(str(tmp_path))


def _explored(rules: Any, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the states whose segment is run (one exact enumeration each)."""
    explored = [0]
    enumerate_worlds = rules.enumerate

    def counting(*args: Any, **kwargs: Any) -> Any:
        explored[0] += 1
        return enumerate_worlds(*args, **kwargs)

    monkeypatch.setattr(rules, "enumerate", counting)
    return explored


def test_a_list_of_every_roll_is_answered_while_small(rules: Any) -> None:
    """Four rounds of a d3: each of the 81 lists once in 81."""
    odds = rules.odds("Log", rounds=4)
    assert dict(odds.results["log"]) == {faces: Fraction(1, 81) for faces in product(range(1, 4), repeat=4)}


def test_a_list_of_every_roll_is_refused_early(rules: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A thousand rounds: 3**1000 lists. Every state found is explored, each holds a new list
    one item longer than the one that found it: refused after a few hundred states (it ran
    all 10,000, with lists of up to a thousand numbers)."""
    explored = _explored(rules, monkeypatch)
    with pytest.raises(RunebookError) as error:
        rules.odds("Log", rounds=1000)
    assert [d.code for d in error.value.diagnostics] == ["E0408"]
    assert f"more than {MAX_STATES} states" in str(error.value) and "'seen' takes" in str(error.value)
    assert explored[0] < 500


def test_a_chain_is_refused_once_the_states_found_pass_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three rounds of a d3 make 1 + 3 + 9 + 27 lists of up to three items (too few to count
    more than one state each), each held by a state at least: under a limit of 30 the chain
    is refused when 31 states have been found, before 30 have been explored."""
    (tmp_path / "g.rules").write_text(GAME)
    small = interpreter.load(str(tmp_path), limits=attrs.evolve(DEFAULT_LIMITS, max_states=30))
    explored = _explored(small, monkeypatch)
    with pytest.raises(RunebookError) as error:
        small.odds("Log", rounds=3)
    assert [d.code for d in error.value.diagnostics] == ["E0408"]
    assert explored[0] < 30


def test_the_list_a_loop_walks_counts_once(rules: Any) -> None:
    """A thousand rounds with no roll: a state a round, each holding the thousand numbers the
    loop walks (the same list in every one), is answered."""
    odds = rules.odds("Count", rounds=1000)
    assert dict(odds.results["total"]) == {sum(range(1000)): 1}
    assert odds.states < MAX_STATES


def test_mettle_fire_of_a_thousand_rounds_is_refused_early(monkeypatch: pytest.MonkeyPatch) -> None:
    """The damage of every round is a result: a list of 1,000 numbers, four ways each round."""
    mettle = load("mettle")
    scout = mettle.entity(str(Path(__file__).resolve().parent.parent / "rulesets" / "mettle" / "examples" / "scout.yaml"))
    explored = _explored(mettle, monkeypatch)
    with pytest.raises(RunebookError) as error:
        mettle.odds("Fire", as_=scout, rounds=1000)
    assert [d.code for d in error.value.diagnostics] == ["E0408"] and "'taken' takes" in str(error.value)
    assert explored[0] < 500
