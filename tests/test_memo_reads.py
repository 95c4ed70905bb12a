"""Exact odds of a check: calls of the game's functions that pass names on, remembered by
the run's memo (interpreter.rules.memo, ``LineMemo.call``), and the lines that every world
computes alike, computed once (``Rules._run``, ``_constant_lines``). Each result is checked
against an enumeration written here."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from runebook import interpreter

GAME = """\
function pick(flag, a, b) = a if flag == 1 else b
function outer(flag, a, b) = pick(flag, a, b) * 10 + (a if b > 2 else 0)
function twice(p, q) = pick(p, q, q + 1) + pick(q, p, 7)
function deep(p, q, r) = twice(p, q) * 100 + outer(r, q, p)
function bonus(n) = n + 1d2

check Pass On ()
  roll f = 1d2
  roll x = 1d3
  roll y = 1d4
  result v = outer(sum(f), sum(x), sum(y))
  result w = twice(sum(f), sum(y))
  result z = deep(sum(y), sum(f), sum(x))

check Hoisted (n: number = 2)
  let base = n * 3
  roll d = 1d4
  let extra = bonus(n)
  result shown = base + 1
  result total = sum(d) + base + extra

check Alike (n: number = 2)
  let base = n * 3
  let twice_base = base * 2
  roll d = 1d4
  result shown = twice_base + 1
  result total = sum(d) + twice_base

check Late (k: number = 1)
  roll d = 1d2
  result early = d + k
  let k = 5
  result late = k + d
"""


def _pick(flag: int, a: int, b: int) -> int:
    return a if flag == 1 else b


def _outer(flag: int, a: int, b: int) -> int:
    return _pick(flag, a, b) * 10 + (a if b > 2 else 0)


def _twice(p: int, q: int) -> int:
    return _pick(p, q, q + 1) + _pick(q, p, 7)


def _deep(p: int, q: int, r: int) -> int:
    return _twice(p, q) * 100 + _outer(r, q, p)


def _odds(outcomes: list[int]) -> dict[int, Fraction]:
    counts = Counter(outcomes)
    return {v: Fraction(n, len(outcomes)) for v, n in counts.items()}


@pytest.fixture(scope="module")
def rules(tmp_path_factory: pytest.TempPathFactory) -> interpreter.Rules:
    folder: Path = tmp_path_factory.mktemp("memo_reads")
    (folder / "g.rules").write_text(GAME)
    return interpreter.load(str(folder))


def test_calls_that_pass_names_on_keep_each_worlds_values(rules: interpreter.Rules) -> None:
    worlds = list(itertools.product(range(1, 3), range(1, 4), range(1, 5)))
    odds = rules.odds("Pass On")
    assert dict(odds.results["v"]) == _odds([_outer(f, x, y) for f, x, y in worlds])
    assert dict(odds.results["w"]) == _odds([_twice(f, y) for f, x, y in worlds])
    assert dict(odds.results["z"]) == _odds([_deep(y, f, x) for f, x, y in worlds])


def test_a_line_that_reads_only_the_inputs_but_rolls_in_a_call_is_each_worlds_own(rules: interpreter.Rules) -> None:
    odds = rules.odds("Hoisted", n=2)
    assert dict(odds.results["shown"]) == {7: Fraction(1)}
    assert dict(odds.results["total"]) == _odds([d + 6 + 2 + e for d in range(1, 5) for e in range(1, 3)])


def test_lines_alike_in_every_world_keep_their_values_and_results(rules: interpreter.Rules) -> None:
    for n in (2, 5):  # one loaded rules, two computations: each its own values
        odds = rules.odds("Alike", n=n)
        assert dict(odds.results["shown"]) == {n * 6 + 1: Fraction(1)}
        assert dict(odds.results["total"]) == _odds([d + n * 6 for d in range(1, 5)])


def test_a_name_read_before_a_line_sets_it_is_read_where_it_was(rules: interpreter.Rules) -> None:
    odds = rules.odds("Late", k=1)
    assert dict(odds.results["early"]) == {2: Fraction(1, 2), 3: Fraction(1, 2)}
    assert dict(odds.results["late"]) == {6: Fraction(1, 2), 7: Fraction(1, 2)}
