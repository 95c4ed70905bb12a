"""rulesets/mettle/worked.rules: the spec's worked examples as `example` tests, which `runebook
check` runs. The chances written there are counted by hand; this enumerates the dice again,
independently of the interpreter, to confirm each count."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

from runebook.interpreter.rules import load
from runebook.interpreter.rules.examples import verify_examples

D6 = range(1, 7)


def chance(dice: int, holds) -> Fraction:  # type: ignore[no-untyped-def]
    rolls = list(product(D6, repeat=dice))
    return Fraction(sum(1 for r in rolls if holds(r)), len(rolls))


def score(r: tuple[int, ...]) -> int:
    return sum(f for f in r if f <= 3)


def edge(r: tuple[int, ...]) -> int:
    return sum(1 for f in r if f >= 4)


def test_the_hand_counted_chances_of_the_check() -> None:
    assert chance(1, lambda r: score(r) >= 1) == Fraction(1, 2)
    assert chance(2, lambda r: score(r) >= 3) == Fraction(7, 18)
    assert chance(2, lambda r: score(r) < 3 and edge(r) >= 1) == Fraction(7, 12)
    assert chance(2, lambda r: score(r) == 0) == Fraction(1, 4)
    assert chance(5, lambda r: edge(r) == 2) == Fraction(5, 16)
    assert chance(5, lambda r: edge(r) == 5) == Fraction(1, 32)
    assert chance(3, lambda r: score(r) >= 9) == Fraction(1, 216)
    # The Twist after P-02: Score 1 kept, four Edge dice again, against 3.
    assert chance(4, lambda r: 1 + score(r) >= 3) == Fraction(41, 48)


def test_the_hand_counted_chances_with_files_and_options() -> None:
    # A1 `beats`: the Twist after P-02 needs the four new dice to add more than 2.
    assert chance(4, lambda r: 1 + score(r) > 3) == Fraction(35, 48)
    # S-09: the scout's two dice miss the pit (Score < 4), then the fall die is a 3.
    assert chance(3, lambda r: score(r[:2]) < 4 and r[2] == 3) == Fraction(5, 36)
    # S-10: the blade is missed (Score < 6) and 2d6 make 9.
    assert chance(4, lambda r: score(r[:2]) < 6 and r[2] + r[3] == 9) == Fraction(35, 324)
    # S-11: POISE 3 against 4, Score 3 with Edge 1.
    assert chance(3, lambda r: score(r) == 3 and edge(r) == 1) == Fraction(1, 12)
    # A4 `concept_line`: six dice, a success (Score >= 3) with Edge 5.
    assert chance(6, lambda r: score(r) >= 3 and edge(r) == 5) == Fraction(1, 32)
    # A2 `concept_only`: six dice with 3 Edge or more.
    assert chance(6, lambda r: edge(r) >= 3) == Fraction(21, 32)
    # A26 `trap_concept`: the scout's CONCEPT 4 against the pitfall's 4.
    assert chance(4, lambda r: score(r) >= 4) == Fraction(239, 432)
    assert chance(2, lambda r: score(r) >= 4) == Fraction(1, 6)
    # A14 `down`: 1d6 / 3 rounded down, at least 1.
    assert [max(1, f // 3) for f in D6] == [1, 1, 1, 1, 1, 2]
    # A fall of 12 m on the scout (Mettle 4, MOTIVE 3): 4 - (die + 4 - 2) in 0..-3.
    assert chance(1, lambda r: -3 <= 4 - (r[0] + 2) <= 0) == Fraction(2, 3)


def test_the_hand_counted_chances_of_rolls() -> None:
    assert chance(2, lambda r: max(0, sum(r) - 4) == 0) == Fraction(1, 6)
    assert chance(1, lambda r: r[0] + 6 - 11 >= 1) == Fraction(1, 6)
    assert [-(-f // 3) for f in D6] == [1, 1, 1, 2, 2, 2]
    assert [-(-f // 2) for f in D6] == [1, 1, 2, 2, 3, 3]


def test_the_worked_examples_are_tests_that_hold() -> None:
    rules = load("mettle")
    worked = [e for e in rules.examples if e.source is not None and e.source.name.endswith("worked.rules")]
    assert len([e for e in worked if e.lines]) == len(worked) >= 40
    assert verify_examples(rules) == []
