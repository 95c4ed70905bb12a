"""Several results computed from the same dice: exact joint distributions.

A check may read one pool in several ways (a score and an edge from the same dice) or
roll several pools; `interpreter.core.distribution.joint` gives the exact joint distribution of
everything a function computes with one evaluation context. Expectations are computed
independently here, by brute force or by a closed form written out by hand.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from typing import Any

from runebook.interpreter.core.dice import GivenOracle, PoolSource
from runebook.interpreter.core.distribution import joint
from runebook.interpreter.core.evaluate import Context, MapEnv, compile_expression, pool_spec
from runebook.interpreter.core.trace import Trace


def test_two_readings_of_one_pool_are_joint() -> None:
    dice = PoolSource(pool_spec("5d6"), "dice")
    env = MapEnv({"dice": dice})
    score = compile_expression("sum(dice <= 3)")
    edge = compile_expression("count(dice >= 4)")
    dist = joint(lambda ctx: (ctx.result(ctx.evaluate(score, env)), ctx.result(ctx.evaluate(edge, env))))
    expected: dict[Any, Fraction] = {}
    for faces in product(range(1, 7), repeat=5):
        key = (sum(f for f in faces if f <= 3), sum(1 for f in faces if f >= 4))
        expected[key] = expected.get(key, Fraction(0)) + Fraction(1, 6**5)
    assert dist.residual == 0
    assert dict(dist) == expected


def test_botch_success_failure_with_exploding_tens_is_exact() -> None:
    dice = PoolSource(pool_spec("pool d10x10", {"pool": 4}), "dice")
    env = MapEnv({"dice": dice})
    outcome = compile_expression(
        '"botch" if count(dice >= 8) == 0 and any(dice == 1) '
        'else "success" if count(dice >= 8) >= 2 else "failure"')
    dist = joint(lambda ctx: ctx.result(ctx.evaluate(outcome, env)))
    # No success means no 10, so no explosion: a botch is four dice in 1..7 with a 1 among them.
    botch = Fraction(7, 10) ** 4 - Fraction(6, 10) ** 4
    # One die's chain gives exactly one success with 8, 9, or a 10 and then a failure.
    one = Fraction(2, 10) + Fraction(1, 10) * Fraction(7, 10)
    failure = Fraction(6, 10) ** 4 + 4 * one * Fraction(7, 10) ** 3
    assert dist.residual == 0
    assert dist["botch"] == botch
    assert dist["failure"] == failure
    assert dist["success"] == 1 - botch - failure


def test_opposed_pools_multiply_out() -> None:
    mine = PoolSource(pool_spec("ladder(6, d4, d6, d8, d10, d12)"), "mine")
    theirs = PoolSource(pool_spec("ladder(3, d4, d6, d8, d10, d12)"), "theirs")
    env = MapEnv({"mine": mine, "theirs": theirs})
    win = compile_expression("highest(mine) > highest(theirs)")
    dist = joint(lambda ctx: ctx.result(ctx.evaluate(win, env)))
    wins = sum(1 for a, b, c in product(range(1, 13), range(1, 5), range(1, 9)) if max(a, b) > c)
    assert dist[True] == Fraction(wins, 12 * 4 * 8)


def test_given_dice_follow_the_order_pools_are_rolled() -> None:
    attack = PoolSource(pool_spec("2d6"), "attack")
    damage = PoolSource(pool_spec("1d8"), "damage")
    env = MapEnv({"attack": attack, "damage": damage})
    ctx = Context(oracle=GivenOracle([3, 4, 8]), trace=Trace())
    ctx.realize(attack)
    ctx.realize(damage)
    total = ctx.result(ctx.evaluate(compile_expression("damage * 10 + attack"), env))
    assert total == 87
    assert [e.text for e in ctx.trace if e.kind == "roll"] == ["attack", "damage"]
