"""Exact odds against an independent enumeration.

Every expected distribution here is computed by brute force in this file: itertools.product
over the faces of every die, with the rule written out in plain Python (sorted()[-3:] for
keep highest three, and so on). Nothing here calls the engine to compute an expectation.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from itertools import product
from typing import Any

import pytest

from runebook.interpreter import odds
from runebook.interpreter.core.limits import Limits
from runebook.interpreter.core.values import Bound

D4, D6, D8, D10, D12, D20 = (tuple(range(1, n + 1)) for n in (4, 6, 8, 10, 12, 20))
DF = (-1, 0, 1)


def enumerate_faces(dice: Sequence[Sequence[Any]], rule: Callable[..., Any]) -> dict[Any, Fraction]:
    """P(rule(*faces)) over every combination of faces, each face equally likely."""
    counts: dict[Any, int] = {}
    total = 0
    for faces in product(*dice):
        outcome = rule(*faces)
        counts[outcome] = counts.get(outcome, 0) + 1
        total += 1
    return {k: Fraction(v, total) for k, v in counts.items()}


def weighted(dice: Sequence[Sequence[tuple[Any, Fraction]]], rule: Callable[..., Any]) -> dict[Any, Fraction]:
    """Like enumerate_faces for dice whose outcomes carry their own probabilities."""
    out: dict[Any, Fraction] = {}
    for combo in product(*dice):
        p = math.prod((w for _, w in combo), start=Fraction(1))
        outcome = rule(*(v for v, _ in combo))
        out[outcome] = out.get(outcome, Fraction(0)) + p
    return out


def reroll_once(faces: Sequence[int], bad: set[int]) -> list[tuple[int, Fraction]]:
    """A die rerolled once on ``bad``: enumerate both rolls."""
    out: dict[int, Fraction] = {}
    n = len(faces)
    for first, second in product(faces, faces):
        value = second if first in bad else first
        out[value] = out.get(value, Fraction(0)) + Fraction(1, n * n)
    return list(out.items())


def keep(faces: Sequence[int], mode: str, n: int) -> int:
    ordered = sorted(faces)
    if mode == "kh":
        return sum(ordered[-n:])
    if mode == "kl":
        return sum(ordered[:n])
    if mode == "dh":
        return sum(ordered[: len(ordered) - n])
    return sum(ordered[n:])


def count(faces: Sequence[int], test: Callable[[int], bool]) -> int:
    return sum(1 for f in faces if test(f))


def ladder_dice(votes: int) -> list[tuple[int, ...]]:
    rungs = [D4, D6, D8, D10, D12]
    full, rest = divmod(votes, 5)
    return [D12] * full + ([rungs[rest - 1]] if rest else [])


def half_away(x: Fraction) -> int:
    n = math.floor(abs(x) + Fraction(1, 2))
    return n if x >= 0 else -n


CASES: list[tuple[str, Callable[[], dict[Any, Fraction]]]] = [
    ("2d6", lambda: enumerate_faces([D6] * 2, lambda *f: sum(f))),
    ("3d6+2", lambda: enumerate_faces([D6] * 3, lambda *f: sum(f) + 2)),
    ("1d20+5", lambda: enumerate_faces([D20], lambda a: a + 5)),
    ("4d6kh3", lambda: enumerate_faces([D6] * 4, lambda *f: keep(f, "kh", 3))),
    ("4d6kl3", lambda: enumerate_faces([D6] * 4, lambda *f: keep(f, "kl", 3))),
    ("2d20kh1", lambda: enumerate_faces([D20] * 2, lambda a, b: max(a, b))),
    ("2d20kl1", lambda: enumerate_faces([D20] * 2, lambda a, b: min(a, b))),
    ("5d6dl2", lambda: enumerate_faces([D6] * 5, lambda *f: keep(f, "dl", 2))),
    ("5d6dh1", lambda: enumerate_faces([D6] * 5, lambda *f: keep(f, "dh", 1))),
    ("6d6kh2", lambda: enumerate_faces([D6] * 6, lambda *f: keep(f, "kh", 2))),
    ("3d8k2", lambda: enumerate_faces([D8] * 3, lambda *f: keep(f, "kh", 2))),
    ("5d10>=8", lambda: enumerate_faces([D10] * 5, lambda *f: count(f, lambda x: x >= 8))),
    ("5d10cs>=8", lambda: enumerate_faces([D10] * 5, lambda *f: count(f, lambda x: x >= 8))),
    ("4d10cs>=8cs10", lambda: enumerate_faces(
        [D10] * 4, lambda *f: count(f, lambda x: x >= 8) + count(f, lambda x: x == 10))),
    ("5d6cs>=5df1", lambda: enumerate_faces(
        [D6] * 5, lambda *f: count(f, lambda x: x >= 5) - count(f, lambda x: x == 1))),
    ("4d6cf<3", lambda: enumerate_faces([D6] * 4, lambda *f: count(f, lambda x: x < 3))),
    ("4d6cs6", lambda: enumerate_faces([D6] * 4, lambda *f: count(f, lambda x: x == 6))),
    ("count(each(3d10) + 3 >= 11)", lambda: enumerate_faces(
        [D10] * 3, lambda *f: count(f, lambda x: x + 3 >= 11))),
    ("sum(5d6 <= 3)", lambda: enumerate_faces([D6] * 5, lambda *f: sum(x for x in f if x <= 3))),
    ("any(4d6 == 1)", lambda: enumerate_faces([D6] * 4, lambda *f: 1 in f)),
    ("all(3d6 >= 2)", lambda: enumerate_faces([D6] * 3, lambda *f: all(x >= 2 for x in f))),
    ("highest(d8, d6)", lambda: enumerate_faces([D8, D6], lambda a, b: max(a, b))),
    ("lowest(d8, d6)", lambda: enumerate_faces([D8, D6], lambda a, b: min(a, b))),
    ("highest(ladder(7, d4, d6, d8, d10, d12))", lambda: enumerate_faces(ladder_dice(7), lambda *f: max(f))),
    ("ladder(12, d4, d6, d8, d10, d12)", lambda: enumerate_faces(ladder_dice(12), lambda *f: sum(f))),
    ("highest(ladder(0, d4, d6, d8, d10, d12)) or 1", lambda: {1: Fraction(1)}),
    ("d20 <= 14", lambda: enumerate_faces([D20], lambda a: int(a <= 14))),
    ("d20 + 5 >= 15", lambda: enumerate_faces([D20], lambda a: a + 5 >= 15)),
    ("4dF", lambda: enumerate_faces([DF] * 4, lambda *f: sum(f))),
    ("d{1,1,2,3} + d{1,1,2,3}", lambda: enumerate_faces([(1, 1, 2, 3)] * 2, lambda a, b: a + b)),
    ("d%", lambda: enumerate_faces([tuple(range(1, 101))], lambda a: a)),
    ("max(2d6, d8 + 2)", lambda: enumerate_faces([D6, D6, D8], lambda a, b, c: max(a + b, c + 2))),
    ("floor(2d6 / 3)", lambda: enumerate_faces([D6] * 2, lambda a, b: (a + b) // 3)),
    ("round(3d6 / 2)", lambda: enumerate_faces([D6] * 3, lambda *f: half_away(Fraction(sum(f), 2)))),
    ("3d6 / 2", lambda: enumerate_faces([D6] * 3, lambda *f: Fraction(sum(f), 2))),
    ("2d6 if d6 >= 4 else d4", lambda: enumerate_faces(
        [D6, D6, D6, D4], lambda a, b, c, d: a + b if c >= 4 else d)),
    ("(1d4)d6", lambda: {
        k: sum((v * Fraction(1, 4) for n in range(1, 5)
                for kk, v in enumerate_faces([D6] * n, lambda *f: sum(f)).items() if kk == k), Fraction(0))
        for k in range(1, 25)}),
    ("3d6ro1", lambda: weighted([reroll_once(D6, {1})] * 3, lambda *f: sum(f))),
    ("2d6r<3", lambda: enumerate_faces([(3, 4, 5, 6)] * 2, lambda a, b: a + b)),
    ("2d6 - 1d6 >= 3", lambda: enumerate_faces([D6] * 3, lambda a, b, c: a + b - c >= 3)),
    ("d6 * d6 % 5", lambda: enumerate_faces([D6] * 2, lambda a, b: a * b % 5)),
    # Chains of + and - over fractions fold as whole numbers over one denominator; whole
    # results come back as whole numbers.
    ("1/3 - 2d6 - 1d4", lambda: enumerate_faces([D6, D6, D4], lambda a, b, c: Fraction(1, 3) - a - b - c)),
    ("1/2 + 1d4 + 1/2", lambda: enumerate_faces([D4], lambda a: a + 1)),
    ("2d6 - 1d4 + 1/2", lambda: enumerate_faces([D6, D6, D4], lambda a, b, c: a + b - c + Fraction(1, 2))),
    ("count(2d6 >= 4, d8 >= 4)", lambda: enumerate_faces(
        [D6, D6, D8], lambda a, b, c: (a >= 4) + (b >= 4) + (c >= 4))),
]


@pytest.mark.parametrize("expr, brute", CASES, ids=[c[0] for c in CASES])
def test_exact_distribution_matches_enumeration(expr: str, brute: Callable[[], dict[Any, Fraction]]) -> None:
    expected = {k: v for k, v in brute().items() if v}
    got = odds(expr)
    assert got.residual == 0
    assert dict(got) == expected


def test_there_are_at_least_thirty_cases() -> None:
    assert len(CASES) + len(EXPLODING) >= 30


# ---------------------------------------------------------------- explosions
#
# An exploding die never has to stop, so the brute force follows every chain up to a
# depth and keeps what lies beyond apart. Outcomes the engine lists as exact numbers must
# equal the enumeration exactly; a tail `b+` must hold exactly the enumerated P(>= b)
# (everything not listed below b); nothing may be residual.


def chains(faces: Sequence[int], explode: set[int], depth: int) -> list[tuple[tuple[int, ...], Fraction, bool]]:
    """Every chain of rolls of one die: (faces, probability, cut at the depth)."""
    out = []
    n = len(faces)

    def walk(prefix: tuple[int, ...], p: Fraction) -> None:
        for f in faces:
            seq = prefix + (f,)
            q = p / n
            if f in explode:
                if len(seq) > depth:
                    out.append((seq, q, True))
                else:
                    walk(seq, q)
            else:
                out.append((seq, q, False))

    walk((), Fraction(1))
    return out


def explode_brute(dice: int, faces: Sequence[int], explode: set[int], depth: int,
                  rule: Callable[[list[int]], int], compound: bool = False) -> tuple[dict[int, Fraction], Fraction]:
    """(P(outcome) for worlds with no cut chain, P(some chain cut))."""
    per_die = chains(faces, explode, depth)
    exact: dict[int, Fraction] = {}
    cut = Fraction(0)
    for combo in product(per_die, repeat=dice):
        p = math.prod((c[1] for c in combo), start=Fraction(1))
        if any(c[2] for c in combo):
            cut += p
            continue
        values = [sum(c[0]) for c in combo] if compound else [f for c in combo for f in c[0]]
        outcome = rule(values)
        exact[outcome] = exact.get(outcome, Fraction(0)) + p
    return exact, cut


EXPLODING = [
    # (expression, dice, faces, exploding faces, rule over the pool's dice, compound)
    ("3d10x10cs>=8", 3, D10, {10}, lambda v: count(v, lambda x: x >= 8), False),
    ("2d10!>=9>=8", 2, D10, {9, 10}, lambda v: count(v, lambda x: x >= 8), False),
    ("2d6!", 2, D6, {6}, sum, False),
    ("2d6!>=5", 2, D6, {5, 6}, sum, False),
    ("2d4!!", 2, D4, {4}, sum, True),
    ("highest(3d6!!)", 3, D6, {6}, lambda v: max(v), True),
]


@pytest.mark.parametrize("expr, n, faces, explode, rule, compound", EXPLODING, ids=[c[0] for c in EXPLODING])
def test_exploding_dice_match_enumeration(expr: str, n: int, faces: Sequence[int], explode: set[int],
                                          rule: Callable[[list[int]], int], compound: bool) -> None:
    depth = 3
    got = odds(expr, limits=Limits(max_explosion_depth=depth))
    assert got.residual == 0
    exact, cut = explode_brute(n, faces, explode, depth, rule, compound)
    tails = [k for k in got if isinstance(k, Bound)]
    tail = tails[0].low if tails else None
    for outcome, p in got.items():
        if isinstance(outcome, Bound):
            continue
        assert tail is None or outcome < tail
        assert p == exact.get(outcome, 0), outcome
    listed = sum((p for k, p in exact.items() if tail is None or k < tail), Fraction(0))
    if tail is not None:
        assert got[tails[0]] == 1 - listed
    else:
        assert cut == 0


def test_counting_with_exploding_tens_has_the_closed_form_at_zero() -> None:
    assert odds("5d10x10cs>=8")[0] == Fraction(16807, 100000)


def test_a_tail_still_decides_a_threshold() -> None:
    """P(at least 2 successes) of 3d10x10cs>=8 is exact although the count has no end:
    one minus P(0) minus P(1), each from the chains with at most one success."""
    p0 = Fraction(7, 10) ** 3
    one_chain = Fraction(2, 10) + Fraction(1, 10) * Fraction(7, 10)  # 8/9, or 10 then a failure
    p1 = 3 * one_chain * Fraction(7, 10) ** 2
    got = odds("3d10x10cs>=8 >= 2")
    assert got.residual == 0
    assert dict(got) == {True: 1 - p0 - p1, False: p0 + p1}


@pytest.mark.parametrize("expr, faces, explode, keep_rule", [
    ("3d6!kh2", D6, {6}, lambda v: sum(sorted(v)[-2:])),
    ("2d10x10cs<=3", D10, {10}, lambda v: count(v, lambda x: x <= 3)),
    ("3d6!kl1", D6, {6}, lambda v: min(v)),
    ("highest(3d6!)", D6, {6}, max),
])
def test_stabilising_explosions_are_exact(expr: str, faces: Sequence[int], explode: set[int],
                                          keep_rule: Callable[[list[int]], int]) -> None:
    """These chains stop changing the result, so the engine sums a geometric series and
    is exact with no tail; deeper and deeper enumerations close in on it from below."""
    got = odds(expr)
    assert got.residual == 0 and not any(isinstance(k, Bound) for k in got)
    n = int(expr.split("d")[0].split("(")[-1])
    exact, cut = explode_brute(n, faces, explode, 4, keep_rule)
    for outcome, p in got.items():
        low = exact.get(outcome, Fraction(0))
        assert low <= p <= low + cut, outcome
    assert cut < Fraction(1, 1000)


def test_a_fraction_chain_past_the_digit_limit_is_refused() -> None:
    """The whole-number fold of a chain over fractions keeps the language's digit limit."""
    from runebook.interpreter.core.limits import DEFAULT_LIMITS
    from runebook.dsl.diagnostics import RunebookError
    import attrs

    small = attrs.evolve(DEFAULT_LIMITS, max_digits=4)
    assert odds("1/3 - 2d6", limits=small)[Fraction(-5, 3)] == Fraction(1, 36)
    with pytest.raises(RunebookError) as raised:
        odds("9000/7 + 2d6 + 9000/7", limits=small)  # each part fits; their sum does not
    assert raised.value.diagnostics[0].code == "E0903"
