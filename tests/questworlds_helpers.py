"""What the QuestWorlds test files share: reading results by level name, stopping a run at a
choice point, a character holding given states, and an independent model of the d20 contest
with an exact solver of the chains long contests make (for odds written in the tests)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import attrs

from runebook.interpreter.rules.entities import Held


def level_name(value: Any) -> Any:
    """A level as its name (other values as they are), for comparing with plain data."""
    return getattr(value, "name", value)


def by_name(results: dict[str, Any]) -> dict[str, Any]:
    return {k: level_name(v) for k, v in results.items()}


class Stop(Exception):
    """Raised by a driver to end a run once the state of interest was seen."""


def hero_maker(rules: Any, tmp_path: Path) -> Callable[..., Any]:
    """``make("Hurt State", ...)``: a character with Ability 15 holding those conditions."""

    def make(*conditions: str) -> Any:
        path = tmp_path / "hero.yaml"
        path.write_text("name: Test Hero\nstats:\n  Ability: 15\n", encoding="utf-8")
        return attrs.evolve(rules.entity(str(path)), conditions=[Held(c) for c in conditions])

    return make


# --- an independent model of one simple contest (spec §1.4-§1.6, default options, no masteries)

FUMBLE, FAILURE, SUCCESS, CRITICAL = range(4)


def d20_level(face: int, target: int) -> int:
    """§1.4: 1 critical, 20 fumble, at or under the target a success; a target of 0 fails."""
    if target <= 0:
        return FAILURE
    return CRITICAL if face == 1 else FUMBLE if face == 20 else SUCCESS if face <= target else FAILURE


def compare(mine: int, theirs: int, a: int, b: int) -> tuple[str, int]:
    """§1.6: outcome and result steps; equal results go to the higher roll; the same roll, or
    fumble against fumble, is a standoff."""
    if mine == theirs and (a == b or mine == FUMBLE):
        return "tie", 0
    if mine > theirs or (mine == theirs and a > b):
        return "victory", abs(mine - theirs)
    return "defeat", abs(mine - theirs)


def rolls(target: int, resistance: int) -> dict[tuple[str, int, int, int], Fraction]:
    """(outcome, steps, player's result, resistance's result) → chance, over the 400 face
    pairs of a simple contest (the player's die first)."""
    found: dict[tuple[str, int, int, int], Fraction] = {}
    for a, b in itertools.product(range(1, 21), repeat=2):
        mine, theirs = d20_level(a, target), d20_level(b, resistance)
        key = (*compare(mine, theirs, a, b), mine, theirs)
        found[key] = found.get(key, Fraction(0)) + Fraction(1, 400)
    return found


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def exchange_moves(outcome: str, steps: int, mine: int, theirs: int, stake: int) -> tuple[int, int]:
    """T15: (the player's change, the resistance's change) for an exchange with `stake`: a
    standoff moves nothing; the loser loses the stake times the result steps, or half of it
    rounded up for equal results; a winner with a critical gains what the loser loses."""
    moved = 0 if outcome == "tie" else ceil_div(stake, 2) if steps == 0 else steps * stake
    if outcome == "victory":
        return (moved if mine == CRITICAL else 0), -moved
    if outcome == "defeat":
        return -moved, (moved if theirs == CRITICAL else 0)
    return 0, 0


def absorb(start: Any, step: Callable[[Any], list[tuple[Fraction, Any]]]) -> dict[Any, Fraction]:
    """The chance of each end of a Markov chain from `start`: `step(state)` gives (chance,
    next state) pairs, a next state ("end", label) being an end. Solved exactly, loops and
    all, by Gaussian elimination over fractions ((I - P) x = b, a column of b per end)."""
    states: list[Any] = []
    index: dict[Any, int] = {}
    moves: dict[Any, list[tuple[Fraction, Any]]] = {}
    todo = [start]
    while todo:
        state = todo.pop()
        if state in index:
            continue
        index[state] = len(states)
        states.append(state)
        moves[state] = step(state)
        todo.extend(t for _, t in moves[state] if t[0] != "end" and t not in index)
    ends = sorted({t[1] for s in states for _, t in moves[s] if t[0] == "end"}, key=str)
    n = len(states)
    # Sparse rows (column -> coefficient; the ends' columns after the states'): a chain of
    # rounds links each state to a few others, and dense elimination over fractions took
    # tens of seconds on a few hundred states. (I - P) is diagonally dominant: no pivoting.
    rows: list[dict[int, Fraction]] = [{i: Fraction(1)} for i in range(n)]
    for s in states:
        i = index[s]
        for p, t in moves[s]:
            column = n + ends.index(t[1]) if t[0] == "end" else index[t]
            value = rows[i].get(column, Fraction(0)) + (p if t[0] == "end" else -p)
            if value:
                rows[i][column] = value
            else:
                rows[i].pop(column, None)
    holders: list[set[int]] = [set() for _ in range(n)]
    for i, row in enumerate(rows):
        for column in row:
            if column < n:
                holders[column].add(i)
    for c in range(n):
        lead = rows[c][c]
        rows[c] = {column: v / lead for column, v in rows[c].items()}
        for r in list(holders[c] - {c}):
            factor = rows[r].pop(c)
            holders[c].discard(r)
            for column, w in rows[c].items():
                if column == c:
                    continue
                value = rows[r].get(column, Fraction(0)) - factor * w
                if value:
                    if column < n and column not in rows[r]:
                        holders[column].add(r)
                    rows[r][column] = value
                elif column in rows[r]:
                    del rows[r][column]
                    if column < n:
                        holders[column].discard(r)
    first = index[start]
    return {end: rows[first][n + k] for k, end in enumerate(ends) if rows[first].get(n + k)}


def aftermath_steps(rules, entity, steps: list[tuple[str, str]], option: str) -> tuple[Any, dict[str, Any]]:  # type: ignore[no-untyped-def]
    """Aftermath after Aftermath on one character, under option benefits_meet_consequences:
    the character as the last run left it, and that run's results."""
    results: dict[str, Any] = {}
    for outcome, degree in steps:
        run = rules.run("aftermath", as_=entity, outcome=outcome, degree=degree,
                        options={"benefits_meet_consequences": option})
        results = run.results
        entity = attrs.evolve(entity, conditions=[Held(c) for c in run.state["actor"]["conditions"]])
    return entity, results
