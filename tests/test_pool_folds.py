"""The folds behind exact odds of pools (power series for sums and counts, the keep/drop
walk, explosions to a depth) against a plain enumeration of every roll, written here in
plain Python: small pools, every fraction equal."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from itertools import product

from hypothesis import example, given, settings
from hypothesis import strategies as st

from runebook.interpreter import odds
from runebook.interpreter.core.limits import Limits
from runebook.interpreter.core.values import Bound

SIDES = st.sampled_from([2, 3, 4, 6])


def _enumerate(dice: list[list[tuple[tuple[int, ...], Fraction]]],
               read: object) -> dict[object, Fraction]:
    """Every combination of each die's outcomes (an outcome: the faces it showed, in
    order), read by ``read`` (a function of the tuple of outcomes)."""
    found: dict[object, Fraction] = {}
    for combo in product(*dice):
        p = Fraction(1)
        for _, q in combo:
            p *= q
        value = read(tuple(faces for faces, _ in combo))  # type: ignore[operator]
        found[value] = found.get(value, Fraction(0)) + p
    return found


def _plain(sides: int) -> list[tuple[tuple[int, ...], Fraction]]:
    return [((f,), Fraction(1, sides)) for f in range(1, sides + 1)]


def _chains(sides: int, explode: set[int], depth: int) -> list[tuple[tuple[int, ...], Fraction]]:
    """One exploding die: every chain of faces with at most ``depth`` explosions; a chain
    that would explode once more ends in ``None`` (deeper than the limit)."""

    def walk(prefix: tuple[int, ...], p: Fraction) -> Iterator[tuple[tuple[int, ...], Fraction]]:
        for f in range(1, sides + 1):
            faces, q = prefix + (f,), p / sides
            if f not in explode:
                yield faces, q
            elif len(prefix) == depth:
                yield faces + (None,), q  # type: ignore[operator]
            else:
                yield from walk(faces, q)

    return list(walk((), Fraction(1)))


def _exact(expr: str, depth: int = 20) -> dict[object, Fraction]:
    dist = odds(expr, limits=Limits(max_explosion_depth=depth))
    assert dist.residual == 0
    assert sum(dist.values()) == 1
    return dict(dist.items())


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 3), SIDES), min_size=1, max_size=2), st.integers(-3, 3))
def test_sums_of_plain_dice(groups: list[tuple[int, int]], bonus: int) -> None:
    expr = " + ".join(f"{n}d{s}" for n, s in groups) + (f" + {bonus}" if bonus else "")
    dice = [_plain(s) for n, s in groups for _ in range(n)]
    assert _exact(expr) == _enumerate(dice, lambda rolls: sum(f for (f,) in rolls) + bonus)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), SIDES, st.integers(0, 5), st.sampled_from(["kh", "kl", "dh", "dl"]))
def test_keep_and_drop(n: int, sides: int, k: int, mode: str) -> None:
    def read(rolls: tuple[tuple[int, ...], ...]) -> int:
        faces = sorted((f for (f,) in rolls), reverse=mode in ("kh", "dl"))
        count = min(k, n) if mode in ("kh", "kl") else max(n - k, 0)
        return sum(faces[:count])

    assert _exact(f"{n}d{sides}{mode}{k}") == _enumerate([_plain(sides)] * n, read)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), SIDES, st.integers(1, 6), st.one_of(st.none(), st.integers(1, 6)))
def test_counts_of_successes_and_failures(n: int, sides: int, target: int, failure: int | None) -> None:
    expr = f"{n}d{sides}cs>={target}" + (f"df={failure}" if failure is not None else "")

    def read(rolls: tuple[tuple[int, ...], ...]) -> int:
        return sum((f >= target) - (f == failure) for (f,) in rolls)

    assert _exact(expr) == _enumerate([_plain(sides)] * n, read)


def _compare_cut(found: dict[object, Fraction], enumerated: dict[object, Fraction], depth: int) -> None:
    """Exact odds list every value below a tail ``b+`` exactly, and the tail is the rest;
    the enumeration's chains cut at the same depth decide every value below ``b``."""
    tails = [k for k in found if isinstance(k, Bound)]
    assert len(tails) == 1
    low = tails[0].low
    assert low >= depth + 1  # nothing is lumped that the depth could decide
    listed = {k: p for k, p in enumerated.items() if k is not None and k < low}
    assert {k: p for k, p in found.items() if not isinstance(k, Bound)} == listed
    assert found[tails[0]] == 1 - sum(listed.values())


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 3), st.sampled_from([3, 4, 6]), st.integers(1, 6), st.integers(0, 2))
@example(3, 6, 1, 0)  # every face a success, no explosion followed: all in the tail 3+ (once an IndexError)
@example(3, 6, 1, 2)
def test_exploding_counts_to_a_depth(n: int, sides: int, target: int, depth: int) -> None:
    target = min(target, sides)

    def read(rolls: tuple[tuple[int, ...], ...]) -> int | None:
        if any(None in chain for chain in rolls):
            return None
        return sum(f >= target for chain in rolls for f in chain)

    enumerated = _enumerate([_chains(sides, {sides}, depth)] * n, read)
    _compare_cut(_exact(f"{n}d{sides}x{sides}cs>={target}", depth), enumerated, depth)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 3), st.sampled_from([3, 4, 6]), st.integers(0, 2), st.booleans())
def test_exploding_sums_to_a_depth(n: int, sides: int, depth: int, two_faces: bool) -> None:
    explode = {sides - 1, sides} if two_faces else {sides}
    spelt = f"x>={sides - 1}" if two_faces else "x"

    def read(rolls: tuple[tuple[int, ...], ...]) -> int | None:
        if any(None in chain for chain in rolls):
            return None
        return sum(f for chain in rolls for f in chain)

    enumerated = _enumerate([_chains(sides, explode, depth)] * n, read)
    _compare_cut(_exact(f"{n}d{sides}{spelt}", depth), enumerated, depth)


def test_a_long_exploding_pool_is_exact_to_any_depth() -> None:
    """``80d10x10cs>=8`` at depth 80: every count up to 80 exact, by its generating
    function ((7 + 2z) / (10 - z))^80, expanded here by plain binomial sums."""
    from math import comb

    found = _exact("80d10x10cs>=8", depth=80)
    assert found[Bound(81)] == 1 - sum(p for k, p in found.items() if k != Bound(81))
    for k in (0, 1, 5, 40, 80):
        # [z^k] (7 + 2z)^80 (10 - z)^-80 = sum over i of C(80, i) 7^(80-i) 2^i C(79 + k - i, k - i) / 10^(80 + k - i)
        expected = sum(Fraction(comb(80, i) * 7 ** (80 - i) * 2**i * comb(79 + k - i, k - i), 10 ** (80 + k - i))
                       for i in range(0, min(k, 80) + 1))
        assert found[k] == expected


def test_a_number_and_a_pool_read_last() -> None:
    """The pool read as the expression's last act (its outcomes spread, not replayed), on
    either side of an operator, and a chain of independent terms."""
    two_d4 = [_plain(4)] * 2
    assert _exact("10 - 2d4") == _enumerate(two_d4, lambda rolls: 10 - sum(f for (f,) in rolls))
    assert _exact("3 * 2d4") == _enumerate(two_d4, lambda rolls: 3 * sum(f for (f,) in rolls))
    assert _exact("2d4 * 0") == {0: Fraction(1)}
    assert _exact("1d4 - 1d6 + 2") == _enumerate([_plain(4), _plain(6)], lambda r: r[0][0] - r[1][0] + 2)
