"""Exact odds of a reduction (``sum``, ``count``, ``highest``, ``max``, ``any``...) of a list
written in place whose items are independent dice: folded item by item
(``World.fold_list``), not enumerated world by world. Expected values come from an
enumeration over every face written here (``enumerate_odds``) or from a convolution of
one die's faces written here, never from the program.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from fractions import Fraction
from pathlib import Path
from typing import Any

import attrs
import pytest
from checks_helpers import enumerate_odds, odds_work
from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter import api
from runebook.interpreter.core import distribution
from runebook.interpreter.core.limits import DEFAULT_LIMITS

from runebook import interpreter

D4, D6, D8, D10, D20 = (range(1, n + 1) for n in (4, 6, 8, 10, 20))


def _convolved(items: Iterable[Iterable[int]], combine: Callable[[int, int], int] = lambda a, b: a + b,
               start: int = 0) -> dict[int, Fraction]:
    """The distribution of ``combine`` folded over independent items, each given by its
    equally likely values: item after item, without the product of every face."""
    out = {start: Fraction(1)}
    for values in items:
        values = list(values)
        following: dict[int, Fraction] = {}
        for a, p in out.items():
            for v in values:
                key = combine(a, v)
                following[key] = following.get(key, Fraction(0)) + p / len(values)
        out = following
    return out


def _odds(expr: str, **limits: int) -> dict[Any, Fraction]:
    dist = api.odds(expr, limits=attrs.evolve(DEFAULT_LIMITS, **limits))
    assert dist.residual == 0
    return dict(dist)


_work = odds_work


def test_a_sum_of_eight_d6_is_8d6() -> None:
    found = _odds("sum([d6 for i in range(8)])")
    assert found == _odds("8d6") == _convolved([D6] * 8)
    assert sum(found.values()) == 1 and found[8] == Fraction(1, 6**8)


def test_small_lists_agree_with_every_face() -> None:
    assert _odds("sum([d6 for i in range(3)])") == enumerate_odds([D6] * 3, sum)
    assert _odds("sum([d6, d8, d10])") == enumerate_odds([D6, D8, D10], sum)
    # An item that reads its name: each item its own distribution.
    assert _odds("sum([d6 + i for i in range(3)])") == enumerate_odds([D6] * 3, lambda r: r[0] + r[1] + 1 + r[2] + 2)
    # Comparing a die with a number selects it: the sum of the faces of 3 or more.
    assert _odds("sum([1d4 >= 3 for i in range(3)])") == enumerate_odds([D4] * 3, lambda r: sum(f for f in r if f >= 3))


def test_a_comprehension_of_2d6_items() -> None:
    assert _odds("sum([2d6 for i in range(4)])") == _odds("8d6") == _convolved([D6] * 8)
    assert _odds("sum([d6 + 1 for i in range(5)])") == _convolved([range(2, 8)] * 5)


def test_a_count_of_successes_equals_the_pool_form() -> None:
    pool = _odds("count(10d20 >= 10)")
    assert _odds("sum([count(1d20 >= 10) for i in range(10)])") == pool
    assert _odds("count([1 for i in range(10) if d20 >= 10])") == pool
    assert _odds("count([d20 + 0 >= 10 for i in range(10)])") == pool
    assert pool == _convolved([[int(f >= 10) for f in D20]] * 10)


def test_the_highest_and_lowest_of_a_list() -> None:
    highest = enumerate_odds([D6] * 4, max)
    assert _odds("max([d6 for i in range(4)])") == _odds("highest([d6 for i in range(4)])") == highest
    assert _odds("highest(4d6)") == highest
    assert _odds("min([d6, d8, d10])") == _odds("lowest([d6, d8, d10])") == enumerate_odds([D6, D8, D10], min)
    # `highest` reads each pool's highest die, `max` each pool's total.
    assert _odds("highest([2d4 for i in range(2)])") == enumerate_odds([D4] * 4, max)
    assert _odds("max([2d4 for i in range(2)])") == enumerate_odds([D4] * 4, lambda r: max(r[0] + r[1], r[2] + r[3]))
    assert _odds("max([d6 + i for i in range(3)])") == enumerate_odds([D6] * 3, lambda r: max(r[0], r[1] + 1, r[2] + 2))


def test_any_and_all_of_comparisons() -> None:
    assert _odds("any([d6 + 0 == 6 for i in range(3)])") == enumerate_odds([D6] * 3, lambda r: 6 in r)
    assert _odds("all([d6 + 0 >= 2 for i in range(3)])") == enumerate_odds([D6] * 3, lambda r: min(r) >= 2)


def test_a_filter_leaves_items_out() -> None:
    assert _odds("sum([d6 for i in range(6) if i % 2 == 0])") == _convolved([D6] * 3)
    # A filter on the dice: only the items it holds for add.
    assert _odds("sum([d4 for i in range(3) if d4 >= 3])") == enumerate_odds(
        [D4] * 6, lambda r: sum(r[2 * k] for k in range(3) if r[2 * k + 1] >= 3))


def test_the_lists_refused_before_are_answered() -> None:
    """Both were refused by max_work (6^20 and 20^10 worlds)."""
    assert _odds("sum([d6 for i in range(20)])") == _odds("20d6")
    found = _odds("sum([1d20 >= 10 for i in range(10)])")
    assert found == _convolved([[f if f >= 10 else 0 for f in D20]] * 10)


def test_a_folded_list_counts_a_few_steps_a_value() -> None:
    """World by world, `sum([d6 for i in range(8)])` was 1,679,616 worlds (refused); folded, it
    is one die's six options raised to the eighth power: a few steps per outcome."""
    assert _work("sum([d6 for i in range(8)])") <= 2_000
    assert _work("sum([d6 for i in range(50)])") <= 60_000


def test_items_that_share_a_roll_are_enumerated() -> None:
    """Items reading the same roll are not independent: evaluated world by world."""
    assert _odds("sum([x for x in [d4, d4]])") == enumerate_odds([D4] * 2, sum)
    assert _odds("sum([x + x for x in [d4, d4]])") == enumerate_odds([D4] * 2, lambda r: 2 * sum(r))
    # An operator chain's dice terms reading a roll made outside them: `x` is one roll in
    # both terms (they were folded as independent, and 2 came out at 1/16).
    assert _odds("[x*1d2 + x*1d2 for x in [1d2]]") == {
        (k,): p for k, p in enumerate_odds([range(1, 3)] * 3, lambda r: r[0] * (r[1] + r[2])).items()}


def test_an_empty_list_and_levels_are_left_to_plain_evaluation() -> None:
    with pytest.raises(RunebookError) as error:
        api.odds("max([d4 for i in range(2) if d4 > 4])")
    assert error.value.diagnostics[0].code == "E0405"
    assert _odds("highest([d4 for i in range(2) if d4 > 4])") == {None: Fraction(1)}


def test_rolling_and_given_dice_are_unchanged() -> None:
    """One AST, three semantics: rolling reads the same dice in the same order whether the
    list is folded for odds or not (`reverse` keeps the list from being folded)."""
    for seed in range(20):
        folded = api.roll("sum([d6 for i in range(8)])", seed=seed)
        plain = api.roll("sum(reverse([d6 for i in range(8)]))", seed=seed)
        assert folded.total == plain.total
        faces = [event.dice[0].value for event in folded.trace if hasattr(event, "dice")]
        assert len(faces) == 8 and folded.total == sum(faces)
    assert api.roll("sum([d6, d8, d10])", dice=[6, 8, 10]).total == 24
    assert api.roll("max([2d6 for i in range(3)])", dice=[1, 1, 6, 5, 2, 2]).total == 11
    assert api.roll("highest([2d6 for i in range(3)])", dice=[1, 1, 6, 5, 2, 2]).total == 6  # the highest die
    assert api.roll("count([1 for i in range(3) if d20 >= 10])", dice=[10, 9, 20]).total == 2


def test_a_long_list_of_large_dice_is_refused_after_a_few_items(monkeypatch: pytest.MonkeyPatch) -> None:
    """10,000 d1000 summed: refused by max_support before any power is expanded (alike
    items), or by max_work after a few items' distributions (items that read their name),
    never after computing all ten thousand."""
    parts = [0]
    real = distribution._part_options

    def counted(*args: Any) -> Any:
        parts[0] += 1
        return real(*args)

    monkeypatch.setattr(distribution, "_part_options", counted)
    limits = attrs.evolve(DEFAULT_LIMITS, max_collection=20_000)
    for expr, name in [("sum([d1000 for i in range(10000)])", "max_support"),
                       ("sum([d1000 + i * 0 for i in range(10000)])", "max_work")]:
        parts[0] = 0
        with pytest.raises(RunebookError) as error:
            api.odds(expr, limits=limits)
        assert error.value.diagnostics[0].code == "E0415" and name in str(error.value)
        assert parts[0] <= 10
    with pytest.raises(RunebookError) as error:
        api.odds("sum([d1000 for i in range(10000)])", limits=attrs.evolve(limits, max_support=20_000_000))
    assert error.value.diagnostics[0].code == "E0415" and "max_work" in str(error.value)
    # With the default limits the list itself is too long.
    with pytest.raises(RunebookError) as error:
        api.odds("sum([d1000 for i in range(10000)])")
    assert error.value.diagnostics[0].code == "E0901"


GAME = """\
check Volley (n: number = 8)
  result total = sum([d6 for i in range(n)])
  result hits = count([1 for i in range(n) if d6 >= 5])
"""


def test_a_check_sizes_the_list_with_its_input(tmp_path: Path) -> None:
    (tmp_path / "volley.rules").write_text(GAME, encoding="utf-8")
    rules = interpreter.load(str(tmp_path))
    for n in (3, 20):
        odds = rules.odds("Volley", n=n)
        assert dict(odds.results["total"]) == _convolved([D6] * n)
        assert dict(odds.results["hits"]) == _convolved([[int(f >= 5) for f in D6]] * n)
    assert dict(rules.odds("Volley", n=3).results["total"]) == enumerate_odds([D6] * 3, sum)
