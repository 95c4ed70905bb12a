"""Runebook on the peers' own ground: the notations that d20 (the Python package), Roll20,
Foundry VTT, AnyDice and Troll document, each read the way that tool reads it.

Three tables: exact odds (every outcome's chance, compared with an enumeration written
here: every combination of faces, equally likely, read by a plain Python function), golden
rolls (given dice, the total the tool gives), and refusals (a Runebook error with a code and
a help naming the spelling Runebook reads). Each table is one test that lists every row
that disagrees, so one run shows the whole picture.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter import odds, roll
from checks_helpers import enumerate_odds

D3, D4, D6, D8, D10, D20 = (tuple(range(1, n + 1)) for n in (3, 4, 6, 8, 10, 20))
FUDGE = (-1, 0, 1)


def rerolled(faces: Sequence[int], again: set[int]) -> tuple[int, ...]:
    """A die rerolled until it shows none of ``again``: the faces left, equally likely."""
    return tuple(f for f in faces if f not in again)


def once(faces: Sequence[int], again: set[int]) -> list[int]:
    """A die rerolled once on ``again``: as a list of equally likely faces (each first face
    stands for len(faces) outcomes; a rerolled one for the second die's faces)."""
    return [g for f in faces for g in (faces if f in again else [f] * len(faces))]


def sum_highest(n: int) -> Callable[[tuple[int, ...]], int]:
    return lambda c: sum(sorted(c, reverse=True)[:n])


def sum_lowest(n: int) -> Callable[[tuple[int, ...]], int]:
    return lambda c: sum(sorted(c)[:n])


# (notation, dialect, dice, reading): the exact odds of the notation are those of the
# reading over every combination of the dice.
ODDS: list[tuple[str, str, list[Sequence[int]], Callable[[tuple[int, ...]], Any]]] = [
    # keep and drop: Roll20, Foundry, d20
    ("4d6kh3", "runebook", [D6] * 4, sum_highest(3)),
    ("4d6kl3", "runebook", [D6] * 4, sum_lowest(3)),
    ("4d6k3", "roll20", [D6] * 4, sum_highest(3)),
    ("4d6dl1", "runebook", [D6] * 4, sum_highest(3)),
    ("4d6dh1", "foundry", [D6] * 4, sum_lowest(3)),
    ("4d6d1", "roll20", [D6] * 4, sum_highest(3)),
    ("4d6d", "foundry", [D6] * 4, sum_highest(3)),  # Foundry: a bare `d` drops the lowest die
    ("3d6d + 1", "foundry", [D6] * 3, lambda c: sum_highest(2)(c) + 1),
    ("2d20kh", "foundry", [D20] * 2, max),
    ("2d20kl", "foundry", [D20] * 2, min),
    ("4d6ph1", "avrae", [D6] * 4, sum_lowest(3)),
    ("4d6pl1", "avrae", [D6] * 4, sum_highest(3)),
    ("4d6k3", "avrae", [D6] * 4, lambda c: sum(f for f in c if f == 3)),  # d20: keep the 3s
    ("4d6p3", "avrae", [D6] * 4, lambda c: sum(f for f in c if f != 3)),
    ("4d6k>4", "avrae", [D6] * 4, lambda c: sum(f for f in c if f > 4)),
    # rerolls
    ("1d8r1", "roll20", [rerolled(D8, {1})], sum),
    ("2d6r<2", "roll20", [rerolled(D6, {1, 2})] * 2, sum),  # Roll20: `<2` is 2 or less
    ("2d6r<2", "runebook", [rerolled(D6, {1})] * 2, sum),
    ("1d8r1r3", "roll20", [rerolled(D8, {1, 3})], sum),
    ("2d6ro1", "roll20", [once(D6, {1})] * 2, sum),
    ("2d6r1", "foundry", [once(D6, {1})] * 2, sum),  # Foundry's `r` rerolls once
    ("2d6rr1", "foundry", [rerolled(D6, {1})] * 2, sum),
    ("2d6ro<3", "avrae", [once(D6, {1, 2})] * 2, sum),
    ("2d8ro1kh1", "avrae", [once(D8, {1})] * 2, max),
    # clamps
    ("4d6min3", "foundry", [D6] * 4, lambda c: sum(max(f, 3) for f in c)),
    ("4d6mi2ma5", "avrae", [D6] * 4, lambda c: sum(min(max(f, 2), 5) for f in c)),
    # success counting
    ("5d6>4", "runebook", [D6] * 5, lambda c: sum(f > 4 for f in c)),
    ("5d6>4", "roll20", [D6] * 5, lambda c: sum(f >= 4 for f in c)),  # Roll20: 4 or more
    ("5d6<2", "roll20", [D6] * 5, lambda c: sum(f <= 2 for f in c)),
    ("5d6>4f1", "roll20", [D6] * 5, lambda c: sum(f >= 4 for f in c) - sum(f == 1 for f in c)),
    ("5d6>4f<2", "roll20", [D6] * 5, lambda c: sum(f >= 4 for f in c) - sum(f <= 2 for f in c)),
    ("5d6cs>4", "foundry", [D6] * 5, lambda c: sum(f > 4 for f in c)),
    ("5d6cs", "foundry", [D6] * 5, lambda c: sum(f == 6 for f in c)),  # no target: the highest face
    ("5d6cf", "foundry", [D6] * 5, lambda c: sum(f == 1 for f in c)),  # no target: the lowest face
    ("5d6cf<=3", "foundry", [D6] * 5, lambda c: sum(f <= 3 for f in c)),
    ("5d6cs>3df", "foundry", [D6] * 5, lambda c: sum(1 if f > 3 else -1 for f in c)),  # bare df: the non-successes
    ("5d6cs>3df", "runebook", [D6] * 5, lambda c: sum(1 if f > 3 else -1 for f in c)),
    ("5d6cs>=5df<2", "foundry", [D6] * 5, lambda c: sum(f >= 5 for f in c) - sum(f < 2 for f in c)),
    ("4d6even", "foundry", [D6] * 4, lambda c: sum(f % 2 == 0 for f in c)),  # Foundry: count the even dice
    ("4d6odd", "foundry", [D6] * 4, lambda c: sum(f % 2 == 1 for f in c)),
    ("4d6oddkh2", "foundry", [D6] * 4, lambda c: sum(f % 2 for f in sorted(c)[2:])),
    ("4d6evendf", "foundry", [D6] * 4, lambda c: sum(1 if f % 2 == 0 else -1 for f in c)),
    ("3d6ms>=10", "foundry", [D6] * 3, lambda c: sum(c) - 10),
    ("1d20ms<12", "foundry", [D20], lambda c: 12 - c[0]),
    ("3d20cs>19", "roll20", [D20] * 3, sum),  # Roll20: critical marks only
    # dice
    ("4dF", "roll20", [FUDGE] * 4, sum),
    ("dF.1", "roll20", [(-1, 0, 0, 0, 0, 1)], sum),
    ("d%", "roll20", [tuple(range(1, 101))], sum),
    ("d%", "avrae", [tuple(range(0, 100, 10))], sum),  # d20's d%: the tens die, 0 to 90
    ("1d% + 1d10", "avrae", [tuple(range(0, 100, 10)), D10], sum),
    ("d{1,1,2,3}", "runebook", [(1, 1, 2, 3)], sum),
    ("d{1..6}", "runebook", [D6], sum),  # AnyDice's and Troll's ranges
    ("3d{0..2}", "runebook", [(0, 1, 2)] * 3, sum),
    ("2d{-1..1}", "runebook", [FUDGE] * 2, sum),
    ("d{0,1..3,3}", "runebook", [(0, 1, 2, 3, 3)], sum),
    ("2d{6..4}", "runebook", [(4, 5, 6)] * 2, sum),
    ("3d6", "runebook", [D6] * 3, sum),
    ("(1d3)d4", "roll20", [D3, D4, D4, D4], lambda c: sum(c[1:1 + c[0]])),
    # groups and sets
    ("{2d4 + 1, 1d8}kh1", "roll20", [D4, D4, D8], lambda c: max(c[0] + c[1] + 1, c[2])),
    ("{1d20, 10}kh", "foundry", [D20], lambda c: max(c[0], 10)),
    ("{1d6, 1d6, 1d6}dl1", "roll20", [D6] * 3, sum_highest(2)),
    ("(1d4 + 1, 3, 2d4kl1)kh1", "avrae", [D4] * 3, lambda c: max(c[0] + 1, 3, min(c[1], c[2]))),
    # arithmetic and functions
    ("floor(3d6 / 2)", "roll20", [D6] * 3, lambda c: sum(c) // 2),
    ("ceil(1d6 / 4)", "roll20", [D6], lambda c: -(-c[0] // 4)),
    ("abs(1d6 - 1d6)", "roll20", [D6, D6], lambda c: abs(c[0] - c[1])),
    ("1d4**2", "roll20", [D4], lambda c: c[0] ** 2),
    ("max(1d20, 10)", "foundry", [D20], lambda c: max(c[0], 10)),
    ("1d20 // 3", "avrae", [D20], lambda c: c[0] // 3),
    ("2d6 % 3", "roll20", [D6, D6], lambda c: sum(c) % 3),
]


def _explode_odds(faces: Sequence[int], explode: set[int], depth: int) -> dict[int, Fraction]:
    """One exploding die, chains followed ``depth`` explosions deep."""
    out: dict[int, Fraction] = {}

    def walk(total: int, p: Fraction, left: int) -> None:
        for f in faces:
            q = p / len(faces)
            if f in explode:
                if left:
                    walk(total + f, q, left - 1)
            else:
                out[total + f] = out.get(total + f, Fraction(0)) + q

    walk(0, Fraction(1), depth)
    return out


#: (notation, dialect, faces that explode): one exploding d6. Below 30 every chain is short
#: enough (8 explosions at most) to be followed exactly by ``_explode_odds``.
EXPLODING = [("1d6!", "roll20", {6}), ("1d6x", "foundry", {6}), ("1d6e6", "avrae", {6}),
             ("1d6!>4", "roll20", {4, 5, 6}), ("1d6x>=5", "foundry", {5, 6}), ("1d6!!", "roll20", {6})]


def test_peer_notations_have_the_peers_exact_odds() -> None:
    wrong = []
    for expr, dialect, dice, read in ODDS:
        try:
            got = odds(expr, dialect=dialect)
        except RunebookError as error:
            wrong.append(f"{expr} ({dialect}): {str(error).splitlines()[0]}")
            continue
        if got.residual != 0 or dict(got) != enumerate_odds(dice, read):
            wrong.append(f"{expr} ({dialect}): {dict(got)}")
    for expr, dialect, explode in EXPLODING:
        below = {k: v for k, v in odds(expr, dialect=dialect).items() if isinstance(k, int) and k < 30}
        if below != {k: v for k, v in _explode_odds(D6, explode, depth=8).items() if k < 30}:
            wrong.append(f"{expr} ({dialect}): {below}")
    assert not wrong, "\n".join(wrong)


# (notation, dialect, dice given, total): the total the tool gives for those dice.
GOLDEN: list[tuple[str, str, list[int], Any]] = [
    ("4d6kh3", "roll20", [6, 2, 5, 1], 13),
    ("4d6d", "foundry", [6, 2, 5, 1], 13),
    ("4d6d + 1", "foundry", [6, 2, 5, 1], 14),
    ("20d20d", "foundry", list(range(1, 21)), sum(range(2, 21))),
    ("2d20kh + 4", "foundry", [7, 15], 19),
    ("3d6!", "roll20", [6, 2, 3, 4], 15),
    ("3d6!!", "roll20", [6, 2, 3, 4], 15),
    ("1d6!p", "roll20", [6, 6, 3], 13),
    ("5d10x10", "foundry", [8, 10, 3, 1, 9, 8], 39),
    ("1d20ro1", "avrae", [1, 1], 1),
    ("1d20rr1", "avrae", [1, 1, 7], 7),
    ("1d20r1", "foundry", [1, 1], 1),
    ("1d20r1", "roll20", [1, 1, 7], 7),
    ("6d6cs>3df", "foundry", [6, 5, 1, 2, 4, 3], 0),
    ("6d10cs>=8df1", "foundry", [8, 10, 1, 1, 9, 5], 1),
    ("6d6even", "foundry", [1, 2, 3, 4, 5, 6], 3),
    ("4d6odd + 1", "foundry", [1, 3, 5, 6], 4),
    ("3d6>3f1", "roll20", [3, 1, 6], 1),
    ("1d% + 1d10", "avrae", [70, 4], 74),
    ("d%", "roll20", [100], 100),
    ("d{1..6}", "runebook", [6], 6),
    ("3d{0..9}", "runebook", [0, 9, 5], 14),
    ("{4d6+3, 2d8}kh1", "roll20", [1, 2, 1, 2, 8, 7], 15),
    ("(1d20, 10)kh1", "avrae", [4], 10),
    ("1d20ra1", "avrae", [1, 14], 15),
    ("4d6ro1kh3", "avrae", [4, 4, 1, 3, 5], 13),
]


def test_peer_notations_give_the_peers_totals() -> None:
    wrong = []
    for expr, dialect, faces, want in GOLDEN:
        try:
            got = roll(expr, dice=faces, dialect=dialect).total
        except RunebookError as error:
            got = str(error).splitlines()[0]
        if got != want:
            wrong.append(f"{expr} ({dialect}) {faces}: {got!r}, not {want!r}")
    assert not wrong, "\n".join(wrong)


# (notation, dialect, code, words the error must hold): a spelling a peer documents that
# Runebook does not read (or reads differently) is an error naming what to write instead.
REFUSED: list[tuple[str, str, str, list[str]]] = [
    ("2d(3+3)", "roll20", "E0102", ["computed sides", "'2d6'"]),
    ("3d6=6", "roll20", "E0102", ["'3d6 == 6'"]),
    ("4d6r1=1", "foundry", "E0102", ["capped reroll", "'4d6r1'"]),
    ("6d6sf<3", "foundry", "E0102", ["'sf'", "'df'"]),
    ("4dc", "foundry", "E0102", ["coin", "'d{0,1}'"]),
    ("1@3d6", "runebook", "E0102", ["AnyDice", "'3d6kh1'"]),
    ("[highest 3 of 4d6]", "runebook", "E0102", ["AnyDice", "'4d6kh3'"]),
    ("[count {5,6} in 5d6]", "runebook", "E0102", ["'count(5d6 >= 5)'"]),
    ("3z10", "runebook", "E0102", ["Troll", "'d{0..6}'"]),
    ("sum largest 3 4d6", "runebook", "E0102", ["Troll", "'4d6kh3'"]),
    ("count 5 < 6d10", "runebook", "E0102", ["Troll", "'count(6d10 > 5)'"]),
    ("count >= 5 6d10", "runebook", "E0102", ["Troll", "'count(6d10 > 5)'"]),
    ("sum 3d6", "runebook", "E0102", ["'3d6'"]),
    ("[[1d4]]d6", "roll20", "E0102", ["inline roll", "'(1d4)d6'"]),
    ("1d20 + @prof", "foundry", "E0102", ["roll data", "'1d20 + prof'"]),
    ("/r 4d6kh3", "foundry", "E0102", ["chat command", "runebook roll"]),
    ("output 3d6", "runebook", "E0102", ["AnyDice", "runebook odds"]),
    ("4d6KH3", "foundry", "E0102", ["capitals", "'4d6kh3'"]),
    ("4d6 drop lowest", "runebook", "E0102", ["in words", "'4d6dl1'"]),
    ("4d6 keep highest 3", "runebook", "E0102", ["in words", "'4d6kh3'"]),
    ("4d6 Drop the Lowest", "roll20", "E0102", ["in words", "'4d6dl1'"]),
    ("highest 1 of 2d20 + 5", "runebook", "E0102", ["in words", "'2d20kh1'"]),
    ("4d6kh3ro1", "avrae", "E0403", ["only the dice kept", "'4d6ro1kh3'"]),
    ("4d6k3e6", "avrae", "E0403", ["explode only the dice kept", "before the keep"]),
    ("10d6kh3kl1", "avrae", "E0403", ["'10d6kh3'"]),
    ("1d8r1ro2", "roll20", "E0403", ["'d8r<3'"]),
    ("1d6!!!", "roll20", "E0403", ["'d6!!'"]),
    ("3d6ra6", "avrae", "E0403", ["first die that matches", "'3d6xo6'"]),
    ("6d6even", "avrae", "E0403", ["'count(each(4d6) % 2 == 0)'"]),
    ("6d10cs>=8cs10df", "foundry", "E0403", ["'6d10cs>=8cs10df1'"]),
    ("{4d6, 3d8}cs>10", "foundry", "E0403", ["'count(sum(4d6) > 10, sum(3d8) > 10)'"]),
    ("d{1..2000000}", "runebook", "E0901", ["at most 1,000,000 faces"]),
]


def test_peer_notations_refused_name_what_to_write() -> None:
    wrong = []
    for expr, dialect, code, words in REFUSED:
        try:
            roll(expr, seed=1, dialect=dialect)
        except RunebookError as error:
            first = error.diagnostics[0]
            if first.code != code or not first.help or any(w not in str(error) for w in words):
                wrong.append(f"{expr} ({dialect}): {first.code} help={first.help!r}")
            continue
        wrong.append(f"{expr} ({dialect}): not refused")
    assert not wrong, "\n".join(wrong)


def test_a_suggested_spelling_runs() -> None:
    # The spellings the helps above name are themselves read.
    for expr, dialect in (("3d6 == 6", "roll20"), ("4d{0,1}", "foundry"), ("count(6d10 > 5)", "runebook"),
                          ("count(sum(4d6) > 10, sum(3d8) > 10)", "foundry"), ("d{0..6}", "runebook"),
                          ("6d10cs>=8cs10df1", "foundry"), ("4d6ro1kh3", "avrae"), ("4d6e6kh3", "avrae")):
        assert odds(expr, dialect=dialect).residual == 0, expr


def test_the_formatter_keeps_the_peers_notation() -> None:
    from runebook.dsl.formatter import format_source
    from runebook.dsl.source import Source

    text = ("procedure Duel (n: number = 3)\n"
            "  roll r = 4d6d+d{0..2} + 6d6even\n"
            "  roll s = d{1,1..3}kh1 + 6d6cs>3df\n"
            "  result total = r + s\n")
    formatted = format_source(Source("duel.rules", text))
    assert formatted.refused is None
    assert "roll r = 4d6d + d{0..2} + 6d6even\n" in formatted.text
    assert "d{1,1..3}kh1 + 6d6cs>3df" in formatted.text
