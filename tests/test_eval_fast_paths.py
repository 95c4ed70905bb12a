"""The shortcuts exact odds rely on keep the evaluator's meaning.

Procedure odds run the same lines many thousands of times, so the evaluator takes short
cuts for the common cases (a name held right in the environment, two whole numbers or two
levels compared, a plain function called, a `let`/`set` line, a choice among many number
options). Each test here exercises a shortcut next to the case it must not change, and
checks against values worked out independently in the test.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from runebook import interpreter
from runebook.interpreter.core.distribution import Distribution, odds
from runebook.interpreter.core.evaluate import CallbackEnv, MapEnv, compile_expression
from runebook.interpreter.core.values import Level


def test_lookup_walks_parents_with_folded_names() -> None:
    outer = CallbackEnv(lambda n: {"far": 7}[n])
    grand = MapEnv({"Max_Hits": 3}, parent=outer)
    parent = MapEnv({"edge": 1}, parent=grand)
    env = MapEnv({"Edge": 5}, parent=parent)
    assert env.lookup("Edge") == 5          # held here, exact spelling
    assert env.lookup("edge") == 5          # held here under another spelling: this level wins
    assert env.lookup("max hits") == 3      # two levels up, folded
    assert env.lookup("far") == 7           # a parent of another kind
    with pytest.raises(KeyError):
        env.lookup("nowhere")


def test_define_after_lookup_is_seen() -> None:
    env = MapEnv({}, parent=MapEnv({"x": 1}))
    assert env.lookup("x") == 1
    env.define("X", 2)
    assert env.lookup("x") == 2


@pytest.mark.parametrize("text, expected", [
    ("a == b", False), ("a != b", True), ("a == a", True), ("a < b", True), ("b >= a", True),
    ("n == 3", True), ("n != 3", False), ("n == m", False), ("n < m", True),
    ("f == 1/2", True), ("f != 1/2", False), ("s == u", True), ("s != v", True),
    ("t == true", True), ("t != false", True), ("n == true", False), ("1 == true", True),
])
def test_comparisons_of_plain_values(text: str, expected: bool) -> None:
    names = ("low", "high")
    env = {"a": Level("g", "low", 0, names), "b": Level("g", "high", 1, names), "n": 3, "m": 4,
           "f": Fraction(1, 2), "s": "x", "u": "x", "v": "y", "t": True}
    dist = odds(compile_expression(text), env)
    assert dict(dist) == {expected: 1}


def test_levels_of_two_groups_are_not_equal() -> None:
    env = {"a": Level("g", "low", 0, ("low",)), "b": Level("h", "low", 0, ("low",))}
    assert dict(odds(compile_expression("a == b"), env)) == {False: 1}


def test_distribution_items_are_its_mapping() -> None:
    dist = Distribution({3: Fraction(1, 2), 1: Fraction(1, 4), 2: Fraction(1, 4)})
    assert list(dist.items()) == [(k, dist[k]) for k in dist] == [(1, Fraction(1, 4)), (2, Fraction(1, 4)),
                                                                   (3, Fraction(1, 2))]


GAME = """\
function bump(Max_Value, step) = max value + step if step > 0 else max value

check Pair ()
  roll a = 1d6
  roll b = 1d6
  result high = max(a, b)

procedure Bid Race (target = 4)
  let total = 0
  step round
  choose bid: none | 1 to 40
  let r = Pair()
  let gain = bump(r.high, 1) if r.high >= target else 0
  set total = total + gain
  goto round if total < bid and total < 12
  result reached = total >= bid
  result total = total
"""


@pytest.fixture
def rules(tmp_path: Path):  # type: ignore[no-untyped-def]
    (tmp_path / "g.rules").write_text(GAME)
    return interpreter.load(str(tmp_path))


def _independent(bid: int, target: int) -> dict[int, Fraction]:
    """The distribution of the final total, by enumerating rounds of two dice."""
    step: dict[int, Fraction] = {}
    for a, b in product(range(1, 7), repeat=2):
        high = max(a, b)
        gain = high + 1 if high >= target else 0
        step[gain] = step.get(gain, Fraction(0)) + Fraction(1, 36)
    stay = step.pop(0, Fraction(0))
    ends: dict[int, Fraction] = {}
    frontier = {0: Fraction(1)}
    while frontier:
        following: dict[int, Fraction] = {}
        for total, p in frontier.items():
            for gain, q in step.items():  # a zero round repeats: condition on leaving
                value = total + gain
                w = p * q / (1 - stay)
                if value < bid and value < 12:
                    following[value] = following.get(value, Fraction(0)) + w
                else:
                    ends[value] = ends.get(value, Fraction(0)) + w
        frontier = following
    return ends


@pytest.mark.parametrize("answer, bid", [("17", 17), ("9", 9), ("3", 3)])
def test_a_choice_among_many_numbers_and_a_plain_function(rules, answer: str, bid: int) -> None:  # type: ignore[no-untyped-def]
    result = rules.odds("bid race", answers={"BID": answer}, target=4)
    expected = _independent(bid, 4)
    assert dict(result.results["total"]) == expected
    assert result.results["reached"][True] == sum(p for t, p in expected.items() if t >= bid)
    assert result.residual == 0
