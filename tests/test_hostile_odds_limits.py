"""Hostile pools and lists in exact odds and rolls: answered or refused by a limit's code.

`highest(each(1000d100x>=5))` computed for 12 s: each die was folded into the states one by
one, every step counted as one though its weights ran to 140,000 bits. The highest and lowest
die of a pool are now order statistics; a fold's step, a product of world weights and a
world itself count what they cost; lists made in lists are bounded by ``max_iterations``.
No test here times anything: each asserts an answer within a small ``max_work`` (the work
counter), a bound on that counter set by what the work was measured to cost, or the
refusal and the limit it names.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any

import attrs
import pytest
from checks_helpers import odds_work
from runebook.dsl.diagnostics import RunebookError
from runebook.dsl.parser import parse_expression
from runebook.interpreter import api
from runebook.interpreter.core import distribution
from runebook.interpreter.core.dice import PoolSource
from runebook.interpreter.core.distribution import World, _Session, joint
from runebook.interpreter.core.evaluate import MapEnv, compile_expression, pool_spec
from runebook.interpreter.core.limits import DEFAULT_LIMITS
from runebook.interpreter.core.values import Bound, Function


def _limits(**changes: int) -> Any:
    return attrs.evolve(DEFAULT_LIMITS, **changes)


def _refusal(call: Callable[[], Any], code: str, name: str) -> str:
    with pytest.raises(RunebookError) as error:
        call()
    diagnostic = error.value.diagnostics[0]
    assert diagnostic.code == code, str(error.value)
    assert name in str(error.value)
    return str(error.value)


def _enumerated(dice: Iterable[range], read: Callable[[tuple[int, ...]], Any]) -> dict[Any, Fraction]:
    """The distribution of ``read`` over every way the dice fall (each face as likely)."""
    faces = list(dice)
    ways = 1
    for die in faces:
        ways *= len(die)
    out: dict[Any, Fraction] = {}
    for rolled in itertools.product(*faces):
        value = read(rolled)
        out[value] = out.get(value, Fraction(0)) + Fraction(1, ways)
    return out


D6 = range(1, 7)


D12, D8 = range(1, 13), range(1, 9)


@pytest.mark.parametrize(("expr", "dice", "read", "budget"), [
    ("highest(4d6)", [D6] * 4, max, 50),
    ("lowest(4d6)", [D6] * 4, min, 50),
    ("highest(each(3d6) * 2 - 7)", [D6] * 3, lambda r: max(2 * f - 7 for f in r), 50),
    ("lowest(each(3d6) / 2)", [D6] * 3, lambda r: min(Fraction(f, 2) for f in r), 50),
    ("highest(5d6 >= 5) or 0", [D6] * 5, lambda r: max([f for f in r if f >= 5], default=0), 30),
    ("lowest(4d6 >= 3) or 0", [D6] * 4, lambda r: min([f for f in r if f >= 3], default=0), 50),
    ("highest(3d6r1)", [range(2, 7)] * 3, max, 50),
    ("highest(4d6min3)", [D6] * 4, lambda r: max(max(f, 3) for f in r), 50),
    ("highest(ladder(13, d4, d6, d8, d10, d12))", [D12, D12, D8], max, 200),
    ("lowest(ladder(13, d4, d6, d8, d10, d12))", [D12, D12, D8], min, 200),
    ("4d6kh1", [D6] * 4, max, 30),
    ("4d6dh3", [D6] * 4, min, 30),
    ("count(each(5d6kh1) >= 5)", [D6] * 5, lambda r: int(max(r) >= 5), 30),
    ("3d8kl1 + 1", [D8] * 3, lambda r: min(r) + 1, 30),
    ("2d20kh1", [range(1, 21)] * 2, max, 50),
])
def test_highest_and_lowest_agree_with_enumeration(expr: str, dice: list[range], read: Any, budget: int,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The pool's readings within ``budget`` steps of its own work: a power per value and kind
    of die (folding die by die, or walking the faces with every count of dice kept, took 39
    to 252 steps, past each budget). The whole computation, its handful of worlds each
    evaluating the expression and making its choice, is small: it fits 1,000 steps (under a
    millisecond of work; the default allows 2,000,000)."""
    pools: list[tuple[Any, Any]] = []
    real = distribution.pool_options

    def noting(spec: Any, readers: Any, limits: Any) -> Any:
        pools.append((spec, readers))
        return real(spec, readers, limits)

    monkeypatch.setattr(distribution, "pool_options", noting)
    assert dict(api.odds(expr, limits=_limits(max_work=1_000))) == _enumerated(dice, read)
    assert pools
    for spec, readers in pools:
        distribution.pool_outcomes(spec, readers, _limits(max_work=budget))


def test_the_highest_of_a_thousand_dice_is_answered_by_order_statistics() -> None:
    """P(highest <= v) = (v/100)^1000: a hundred powers, within a budget of 20,000 steps
    (folding die by die took 10,000,000 and was refused)."""
    dist = api.odds("highest(1000d100)", limits=_limits(max_work=20_000))
    assert dist.residual == 0 and len(dist) == 100
    for v in (1, 50, 99, 100):
        assert dist[v] == Fraction(v**1000 - (v - 1) ** 1000, 100**1000)
    lowest = api.odds("lowest(1000d100)", limits=_limits(max_work=20_000))
    assert lowest[1] == 1 - Fraction(99**1000, 100**1000)


def test_one_die_kept_of_a_thousand_by_order_statistics() -> None:
    """`1000d100kl1`: the lowest die, P(lowest >= v) = ((101 - v)/100)^1000, within 20,000
    steps (walking the faces with every count of dice took more, and 10 s for
    `sum(each(1000d1000kl1) % 2 == 0)`)."""
    dist = api.odds("1000d100kl1", limits=_limits(max_work=20_000))
    for v in (1, 2, 50, 100):
        assert dist.get(v, 0) == Fraction((101 - v) ** 1000 - (100 - v) ** 1000, 100**1000)
    assert sum(dist.values()) == 1


@pytest.mark.parametrize("expr", ["highest(each(1000d100x>=5))", "highest(1000d100x>=5)"])
def test_the_highest_of_a_thousand_exploding_dice(expr: str) -> None:
    """The issue's case (12 s): a chain shows v < 5 as its highest only when its first die
    does (every face from 5 explodes), so P(highest <= v) = (v/100)^1000 there, and the rest
    is the tail 5+. Answered within 700,000 steps, nearly all the chain of one die (the fold
    of the thousand took 970,000 more, on weights of up to 140,000 bits)."""
    dist = api.odds(expr, limits=_limits(max_work=700_000))
    assert list(dist) == [1, 2, 3, 4, Bound(5)]
    for v in (1, 2, 3, 4):
        assert dist[v] == Fraction(v**1000 - (v - 1) ** 1000, 100**1000)
    assert sum(dist.values()) == 1


def test_a_pool_too_long_for_order_statistics_is_refused() -> None:
    """Ten thousand exploding d100: weights of 1.4 million bits, each fraction a gcd of
    seconds. Refused before any power is taken, the work foreseen (folded die by die, it was
    refused after 50 s)."""
    text = _refusal(lambda: api.odds("highest(10000d100x>=5)"), "E0415", "max_work")
    assert "foreseen" in text


def test_joint_readings_of_long_weights_are_refused() -> None:
    """The highest of one pool and whether a die shows 1 or 2, read jointly, die by die: ten
    states, but weights of up to 140,000 bits. A step counted one (accepted within 3,000,000
    steps after 54 s); it counts what it costs, and is refused."""
    dice = PoolSource(pool_spec("1000d100x>=5"), "dice")
    high, low = compile_expression("highest(dice)"), compile_expression("any(dice <= 2)")

    def both(ctx: Any) -> Any:
        return ctx.result(ctx.evaluate(high, env)), ctx.result(ctx.evaluate(low, env))

    env = MapEnv({"dice": dice})
    _refusal(lambda: joint(both, limits=_limits(max_work=3_000_000)), "E0415", "max_work")
    env = MapEnv({"dice": PoolSource(pool_spec("3d4"), "dice")})
    assert dict(joint(both)) == _enumerated([range(1, 5)] * 3, lambda r: (max(r), min(r) <= 2))


_work = odds_work


#: Steps a µs of work should count at least, so that ``max_work`` (2,000,000 steps) stops a
#: computation within about a second: a step of a sum's fold takes a third of a µs.
_STEPS_PER_MICROSECOND = 2


def test_a_world_counts_its_choices_and_the_items_its_lists_walk() -> None:
    """`sum(reverse([d6 for i in range(4)]))`: 1,296 worlds, each evaluating the expression
    again and replaying its four choices (about 5 µs each, measured, with the item that
    makes it). A world counted one step, then one per choice and item (42,768 in all: 0.8 µs
    a step, and lists of large pools ran for 5 s within max_work); each choice now counts at
    least its cost, and the whole stays a small share of the default limit. (The case was
    `sum([d6 for i in range(4)])`, now folded item by item without worlds (see
    tests/test_list_folds.py); a list the sum does not see written in place is still
    enumerated world by world.)"""
    expr = "sum(reverse([d6 for i in range(4)]))"
    work = _work(expr)
    assert 1_296 * 4 * 5 * _STEPS_PER_MICROSECOND <= work <= DEFAULT_LIMITS.max_work // 10
    _refusal(lambda: api.odds(expr, limits=_limits(max_work=work - 1)), "E0415", "max_work")
    assert dict(api.odds(expr, limits=_limits(max_work=work))) == _enumerated([D6] * 4, sum)


def test_products_of_long_world_weights_count_their_cost() -> None:
    """A world multiplies the probabilities of its choices: one of 7,000 bits by another
    (the highest of a thousand d100) costs a gcd of each numerator with the other's
    denominator, about 200 µs (measured), and counts at least that (it counted none: ten
    such reads in a list took 4 s to be refused). Small dice's products (1 µs) count nothing:
    the world's own count covers them."""
    session = _Session(DEFAULT_LIMITS, (None, None))
    world = World(session, ())
    long = Fraction(1, 2**7_000 + 1)
    world.choose([("a", long)])
    world.choose([("b", long)])
    long_work = session.work
    assert long_work >= 200 * _STEPS_PER_MICROSECOND
    small = World(session, ())
    for _ in range(3):
        small.choose([("c", Fraction(1, 6))])
    assert session.work == long_work and small.weight == Fraction(1, 216)
    dist = api.odds("[highest(2d6), highest(2d6)]")
    assert dist[(6, 6)] == Fraction(11, 36) ** 2


NESTED = "sum([sum([i * j for i in range(10)]) for j in range(10)])"


@pytest.mark.parametrize("call", [api.roll, api.odds])
def test_lists_made_in_lists_are_bounded(call: Callable[..., Any]) -> None:
    """Ten lists of ten items in a list of ten: 110 items walked (a million took 12 s)."""
    text = _refusal(lambda: call(NESTED, limits=_limits(max_iterations=109)), "E0904", "max_iterations")
    assert "more than 109 items" in text
    result = call(NESTED, limits=_limits(max_iterations=110))
    assert (result.total if hasattr(result, "total") else dict(result)) in (2025, {2025: 1})


def test_the_default_iteration_limit() -> None:
    _refusal(lambda: api.odds("sum([sum([i * j for i in range(1000)]) for j in range(1000)])"), "E0904",
             "max_iterations = 100,000")


def test_the_iteration_limit_from_the_command_line(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("roll", NESTED, "--limit", "iterations=50")
    assert run.code == 1 and "E0904" in run.stderr and "max_iterations = 50" in run.stderr
    run = cli("odds", NESTED, "--limit", "max_iterations=200")
    assert run.code == 0 and "2025" in run.stdout


_SUM_OF_I = " + ".join(["i"] * 200)

#: Lists of large pools read die by die (and kin), each refused after 2 to 7 s of CPU by
#: `runebook odds` (benchmarks/README.md): every world replays the list's readings, and a
#: replayed choice (5 to 15 µs with the item around it) counted 3 or 4 steps, an item of
#: 400 nodes one step, a chain's dice terms folded again for every item nothing at all.
SLOW_LISTS = [
    "[all(each(100d1000cs>=50) % 2 == 0) for i in range(100)]",
    "[all(each(1000d1000) % 2 == 0) for i in range(100)]",
    "[[any(each(100d1000) >= 50) for i in range(10)] for j in range(10)]",
    "[highest(each(100d1000) % 2) for i in range(100)]",
    "[lowest(each(100d100) * 3 % 2) for i in range(100)]",
    "[all(each(100d1000) % 2 == 0) and all(each(100d1000) % 3 == 0) for i in range(50)]",
    "[all(((each(100d1000) % 2) * 3 + 1 - 4) % 5 == 0) for i in range(100)]",
    "[any(each(1000d6) >= 7) or d2 for i in range(100)]",
    "count([any(each(100d1000cs>=50) >= 999) for i in range(100)])",
    "[d6 + d6 + d6 for i in range(10)]",
    # Answered, after 16 s: its 16,384 worlds walked 14 items of 400 nodes each.
    f"[d2 + 0 * ({_SUM_OF_I}) for i in range(14)]",
    # One pool kept and read die by die with a function per fold step (2 s; the fold now
    # calls it without a generator per step).
    "[any(each(100d1000kh50) >= 999) for i in range(3)]",
]


@pytest.mark.parametrize("expr", SLOW_LISTS)
def test_lists_of_large_pools_are_refused_by_max_work(expr: str) -> None:
    _refusal(lambda: api.odds(expr), "E0415", "max_work = 2,000,000")


#: Small versions of those lists (a few hundred worlds each), with what each takes (µs,
#: measured with warm caches on the quiet 2-core VM, the best of five): the work counted
#: must be at least two steps a µs, so that ``max_work`` stops the large ones within about a
#: second. Counted as before, each came to 5 to 60 times less (8,448 steps for the first).
SMALL_LISTS = [
    ("[all(each(100d1000cs>=50) % 2 == 0) for i in range(8)]", 17_000),
    ("[all(each(1000d1000) % 2 == 0) for i in range(8)]", 36_000),
    ("[[any(each(100d1000) >= 50) for i in range(4)] for j in range(2)]", 60_000),
    ("[highest(each(100d1000) % 2) for i in range(8)]", 19_000),
    ("[lowest(each(100d100) * 3 % 2) for i in range(8)]", 21_000),
    ("[all(each(100d1000) % 2 == 0) and all(each(100d1000) % 3 == 0) for i in range(4)]", 7_500),
    ("[all(((each(100d1000) % 2) * 3 + 1 - 4) % 5 == 0) for i in range(8)]", 23_000),
    ("[any(each(1000d6) >= 7) or d2 for i in range(8)]", 23_000),
    # Written `count([...])` before lists written in place were folded item by item (a few
    # hundred steps now, tests/test_list_folds.py); through `reverse` it is still enumerated.
    ("count(reverse([any(each(100d1000cs>=50) >= 999) for i in range(8)]))", 54_000),
    ("[d6 + d6 + d6 for i in range(2)]", 47_000),
    (f"[d2 + 0 * ({_SUM_OF_I}) for i in range(6)]", 23_000),
]


@pytest.mark.parametrize(("expr", "microseconds"), SMALL_LISTS)
def test_the_work_counted_tracks_what_it_costs(expr: str, microseconds: int) -> None:
    work = _work(expr)
    assert microseconds * _STEPS_PER_MICROSECOND <= work <= DEFAULT_LIMITS.max_work // 5


def test_a_world_counts_the_calls_it_makes() -> None:
    """`fib(d6 + 10)`: six worlds making 7,890 calls of a function defined in rules (26 ms,
    measured as above); a call counted nothing (the six worlds 48 steps in all), now its
    body's nodes."""
    env = MapEnv({})
    env.define("fib", Function("fib", ("n",), parse_expression("n if n < 2 else fib(n - 1) + fib(n - 2)"), env))

    def fib(n: int) -> int:
        return n if n < 2 else fib(n - 1) + fib(n - 2)

    assert _work("fib(d6 + 10)", env) >= 26_000 * _STEPS_PER_MICROSECOND
    assert dict(api.odds("fib(d6 + 10)", env=env)) == _enumerated([D6], lambda r: fib(r[0] + 10))


@pytest.mark.parametrize("expr", ["any(each(100d1000kh50) >= 999)", "highest(each(100d1000kh50) % 7)",
                                  "100d1000kh50"])
def test_keeping_half_of_a_hundred_large_dice_is_refused_before_the_walk(expr: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """After its first face the walk holds fifty states (a count of dice left for each number
    of kept dice still wanted), each charged 101 steps at each of the thousand faces: over
    five million steps, known before any face is walked (it walked 97 faces, 1.4 million
    folds and most of a second, before its refusal)."""
    folds = [0]
    make = distribution._combiner

    def counting(readers: Any) -> Any:
        combine = make(readers)

        def counted(a: Any, b: Any) -> Any:
            folds[0] += 1
            return combine(a, b)

        return counted

    monkeypatch.setattr(distribution, "_combiner", counting)
    text = _refusal(lambda: api.odds(expr), "E0415", "max_work = 2,000,000")
    assert "foreseen" in text and folds[0] == 0


def test_keeping_half_of_a_hundred_smaller_dice_is_still_answered() -> None:
    """A hundred d100, fifty kept: the highest kept is the highest die, so some kept die shows
    99 or more unless all hundred show 98 or less."""
    dist = api.odds("any(each(100d100kh50) >= 99)")
    assert dist[True] == 1 - Fraction(98, 100) ** 100 and dist[False] == Fraction(98, 100) ** 100
