"""What Mestezia's test files share: the chance of winning a challenge, worked out here."""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache


def challenge_win(breakthrough: Fraction, setback: Fraction, needed: int = 5, allowed: int = 4) -> Fraction:
    """The chance of ``needed`` Breakthroughs before ``allowed`` Setbacks, each turn a
    Breakthrough, a Setback, or neither (the turn repeats), with these chances."""

    @lru_cache(maxsize=None)
    def win(b: int, s: int) -> Fraction:
        if b >= needed:
            return Fraction(1)
        if s >= allowed:
            return Fraction(0)
        return (breakthrough * win(b + 1, s) + setback * win(b, s + 1)) / (breakthrough + setback)

    return win(0, 0)
