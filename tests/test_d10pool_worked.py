"""The d10 pool's worked examples (rulesets/d10-pool/worked.rules) run in `runebook check`,
and the odds written there, counted by hand, agree with an independent count here: the
successes of one die with 10-again (TN 8) are 0 with chance 7/10 and k >= 1 with chance
(1/10)^(k-1) x 27/100 (k-1 tens, then an 8 or 9, or k tens and then a miss)."""

from __future__ import annotations

import re
from fractions import Fraction
from itertools import product
from pathlib import Path

RULESETS = Path(__file__).resolve().parent.parent / "rulesets"
WORKED = RULESETS / "d10-pool" / "worked.rules"
TENTH = Fraction(1, 10)


def one_die(k: int) -> Fraction:
    """Chance that one die of the pool (with its extra dice) gives exactly k successes."""
    return Fraction(7, 10) if k == 0 else TENTH ** (k - 1) * Fraction(27, 100)


def pool_at_most(pool: int, k: int) -> Fraction:
    """Chance that a pool gives at most k successes: a finite sum over the dice's counts."""
    return sum((_prod(one_die(c) for c in counts) for counts in product(range(k + 1), repeat=pool)
                if sum(counts) <= k), Fraction(0))


def _prod(values) -> Fraction:  # type: ignore[no-untyped-def]
    out = Fraction(1)
    for v in values:
        out *= v
    return out


def test_the_single_die_counts() -> None:
    assert 1 - pool_at_most(1, 0) == Fraction(3, 10)
    assert one_die(2) == Fraction(27, 1000)
    assert 1 - pool_at_most(1, 1) == Fraction(3, 100)


def test_the_pool_counts() -> None:
    assert 1 - pool_at_most(2, 0) == Fraction(51, 100)
    # A Botch: no success and a 1 among the misses (faces 1 to 7).
    assert Fraction(7, 10) ** 2 - Fraction(6, 10) ** 2 == Fraction(13, 100)
    assert 1 - pool_at_most(3, 1) == Fraction(2601, 10000)
    assert 1 - pool_at_most(2, 1) == Fraction(132, 1000)
    assert 1 - pool_at_most(4, 0) == Fraction(7599, 10000)


def test_teamwork_and_contest_counts() -> None:
    # Gated teamwork, one die each, Difficulty 2: two of the main roller's own, or one and a
    # helper's success.
    assert (1 - pool_at_most(1, 1)) + one_die(1) * (1 - pool_at_most(1, 0)) == Fraction(111, 1000)
    # One die a side: the tie's series, summed to 40 terms, is 31/55 to within 1e-30.
    tie = sum(one_die(k) ** 2 for k in range(40))
    assert abs(tie - Fraction(31, 55)) < Fraction(1, 10**30)
    assert (1 - Fraction(31, 55)) / 2 == Fraction(12, 55)


def test_the_option_counts() -> None:
    # Ungated teamwork (A7), one die each against 2: the total falls short on 0+0, 0+1, 1+0;
    # a main die of 1 with no success is a Botch whatever the help brings.
    short = one_die(0) ** 2 + 2 * one_die(0) * one_die(1)
    assert short == Fraction(868, 1000)
    assert 1 - short - TENTH * (1 - pool_at_most(1, 1)) == Fraction(129, 1000)
    # Mixed action split in order (A6): one die must give two successes.
    assert 1 - pool_at_most(1, 1) == Fraction(3, 100)
    # A16: one extra interval bought, two tries of one die at Difficulty 1.
    assert 1 - Fraction(7, 10) ** 2 == Fraction(51, 100)


def test_every_checkable_golden_case_is_an_example() -> None:
    text = WORKED.read_text(encoding="utf-8")
    examples = re.findall(r"^# (D10-W\d\d)\b", text, re.M)
    assert set(examples) == {f"D10-W{n:02d}" for n in range(1, 16)}
    # What stays out, with its reason: W09's advantage carried from one roll to the next.
    assert "D10-W09" in text.split("# Not expressible")[1]


def test_the_worked_examples_pass(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("check", str(RULESETS / "d10-pool"))
    assert (run.code, run.stderr) == (0, ""), run.stderr
