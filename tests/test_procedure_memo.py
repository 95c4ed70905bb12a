"""Exact odds of procedures computed with the memo of line values and the whole-number solve
(interpreter.rules.memo, interpreter.markov.chains), against enumerations written here."""

from __future__ import annotations

import sys
import threading
from fractions import Fraction
from itertools import product
from math import comb
from pathlib import Path

import pytest

from runebook import interpreter
from runebook.interpreter.core.values import format_value
from runebook.interpreter.markov.chains import FixedDriver

GAME = """\
function bump(x) = x + 1d6
function twice(x) = x * 2

procedure Same Call Twice (start = 1)
  let a = bump(start)
  let b = bump(start)
  result total = a + b
  result same = a == b

procedure Loop Of Rolls (times = 3)
  let hits = 0
  for each i in range(0, times)
    let r = 1d6
    set hits = hits + (1 if r >= 5 else 0)
  result hits = hits

procedure Walk (start = 3, goal = 6)
  let at = start
  let moves = 0
  step move
  let d = 1d6
  set at = at + (1 if d >= 3 else -1)
  set moves = twice(moves) % 7
  goto move if at > 0 and at < goal
  result reached = at >= goal
"""


@pytest.fixture
def rules(tmp_path: Path):  # type: ignore[no-untyped-def]
    (tmp_path / "g.rules").write_text(GAME)
    return interpreter.load(str(tmp_path))


def test_a_function_that_rolls_is_not_remembered(rules) -> None:  # type: ignore[no-untyped-def]
    # The same call with the same argument twice: two independent rolls, never one value.
    odds = rules.odds("same call twice", start=1)
    totals: dict[int, Fraction] = {}
    for a, b in product(range(1, 7), repeat=2):
        totals[a + b + 2] = totals.get(a + b + 2, Fraction(0)) + Fraction(1, 36)
    assert dict(odds.results["total"]) == totals
    assert odds.results["same"][True] == Fraction(1, 6)


def test_a_roll_read_again_in_a_loop_is_a_new_roll(rules) -> None:  # type: ignore[no-untyped-def]
    # The loop's line reads nothing but rolls: each round is its own die.
    odds = rules.odds("loop of rolls", times=3)
    expected = {k: comb(3, k) * Fraction(1, 3) ** k * Fraction(2, 3) ** (3 - k) for k in range(4)}
    assert dict(odds.results["hits"]) == expected


@pytest.mark.parametrize("start, goal", [(3, 6), (1, 12), (10, 25)])
def test_a_long_walk_matches_gamblers_ruin(rules, start: int, goal: int) -> None:  # type: ignore[no-untyped-def]
    # Up with 2/3, down with 1/3: P(reach goal from start) = (1 - r^start) / (1 - r^goal), r = 1/2.
    # The states form one group (the walk goes both ways) with `moves` cycling through values.
    r = Fraction(1, 2)
    odds = rules.odds("walk", start=start, goal=goal)
    assert odds.results["reached"][True] == (1 - r ** start) / (1 - r ** goal)
    assert odds.residual == 0


def test_one_loaded_ruleset_gives_the_same_odds_in_threads(rules) -> None:  # type: ignore[no-untyped-def]
    alone = rules.odds("walk", start=4, goal=9).results["reached"]
    found: list[object] = []

    def work() -> None:
        found.append(rules.odds("walk", start=4, goal=9).results["reached"])

    threads = [threading.Thread(target=work) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert found == [alone] * 3


def test_fractions_longer_than_pythons_conversion_limit_are_written(rules) -> None:  # type: ignore[no-untyped-def]
    value = Fraction(2, 3 ** 10_000)
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        expected = f"2/{3 ** 10_000}"
    finally:
        sys.set_int_max_str_digits(limit)
    assert format_value(value) == expected
    assert format_value(-value) == "-" + expected


def test_a_name_once_the_games_is_read_again_when_a_local_takes_it() -> None:
    """The memo remembers that a line's name was the game's own; a local of that name
    defined afterwards must still be part of the key (a different value, a different key)."""
    from runebook.interpreter.core.evaluate import MapEnv
    from runebook.interpreter.rules.memo import LineMemo

    game = MapEnv({"bonus": "the game's"})
    memo = LineMemo(game)
    env = MapEnv({"x": 1}, parent=MapEnv({"ability": 15}, parent=game))
    first = memo.key(env, ("bonus", "x"), 7)
    assert first is not None and first[1] == 1
    env.define("bonus", 2)
    assert memo.key(env, ("bonus", "x"), 7) == (2, 1)
    assert memo.key(env, ("bonus", "x"), 7) != first
    env.define("bonus", 3)
    assert memo.key(env, ("bonus", "x"), 7) == (3, 1)


def test_an_input_read_as_a_constant_is_read_again_once_a_local_takes_it() -> None:
    """With the inputs' scope shared by every world (``LineMemo.fixed``), a name found there
    is a constant of the computation and leaves the short key; a local of that name on some
    worlds' way (``set bonus = 10``) must be part of their key."""
    from runebook.interpreter.core.evaluate import MapEnv
    from runebook.interpreter.rules.memo import LineMemo

    game = MapEnv({"twice": "the game's"})
    scope = MapEnv({"bonus": 1}, parent=game)
    memo = LineMemo(game)
    memo.fixed = scope
    env = MapEnv({"x": 4}, parent=scope)
    long = memo.key(env, ("bonus", "x"), 9)
    short = memo.key(env, ("bonus", "x"), 9)
    assert long is not None and long[1] == 4 and short == (4,)
    other = MapEnv({"x": 4, "bonus": 10}, parent=scope)
    assert memo.key(other, ("bonus", "x"), 9) == (10, 4)
    assert memo.key(env, ("bonus", "x"), 9) == (4,)


def test_exact_odds_see_an_input_a_procedure_sets(tmp_path: Path) -> None:
    (tmp_path / "g.rules").write_text(
        "function plus(x) = x + 1\n\n"
        "procedure Shadow (bonus = 1)\n"
        "  let base = plus(0)\n"
        "  step rolling\n"
        "  roll d = 1d3\n"
        "  if sum(d) == 2\n"
        "    set bonus = 10\n"
        "  let total = plus(bonus)\n"
        "  result total = total + base - 1\n"
        "  result face = sum(d)\n")
    odds = interpreter.load(str(tmp_path)).odds("Shadow")
    assert dict(odds.results["total"]) == {2: Fraction(2, 3), 11: Fraction(1, 3)}


@pytest.mark.parametrize("text, remembered", [
    ("x + 1", False), ("a if b > 2 else c[1]", False), ("not done and k == none", False),
    ("f(x)", True), ("[a * 2 for a in xs]", True), ("2d6 + x", True), ("hero's Speed", True),
    ("x + min(y, 3)", True),
])
def test_only_lines_that_call_or_roll_are_remembered(text: str, remembered: bool) -> None:
    """Reading names and combining them costs less than a memo key: such lines run again."""
    from runebook.dsl.parser import parse_expression
    from runebook.interpreter.rules.memo import worth_remembering

    assert worth_remembering(parse_expression(text)) is remembered


def test_a_choice_among_declared_levels_answers_with_those_levels(tmp_path: Path) -> None:
    """`check` types `choose stance: calm | bold` as levels of Stance when Stance declares
    them, so `stance == bold` must hold when bold is chosen (it was silently false); a
    choice whose options are its own compares by its own order."""
    (tmp_path / "g.rules").write_text(
        "levels Stance: calm < bold\n\n"
        "procedure Pick ()\n"
        "  choose stance: calm | bold\n"
        "  choose pace: slow | fast\n"
        "  result brave = stance == bold and stance > calm\n"
        "  result quick = pace > slow\n", encoding="utf-8")
    rules = interpreter.load(str(tmp_path))
    ran = rules.run("Pick", driver=FixedDriver({"stance": "bold", "pace": "fast"}))
    assert ran.results == {"brave": True, "quick": True}
    assert rules.odds("Pick", answers={"stance": "bold"}).results["brave"][True] == 1
