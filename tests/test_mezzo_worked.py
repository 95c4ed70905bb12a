"""Mezzo's worked examples as tests (rulesets/mezzo/worked.rules): the chances its comments
count by hand for the options' alternatives, counted again here by a plain enumeration of the
book's rules (spec mezzo.md §3.2-§3.5, §3.9, §3.20, A4, A6), without the interpreter; and the
file holds an example of each option's alternative that the README lists, all passing."""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from pathlib import Path

from runebook.dsl import ast
from runebook.interpreter.rules import load

GAME = Path(__file__).resolve().parent.parent / "rulesets" / "mezzo"


def _score_chance(sizes: list[int], test) -> Fraction:  # type: ignore[no-untyped-def]
    """The chance that the highest of dice of these sizes passes `test`."""
    rolls = list(product(*[range(1, s + 1) for s in sizes]))
    return Fraction(sum(1 for r in rolls if test(max(r))), len(rolls))


def _beats(a: int, b: int) -> tuple[Fraction, Fraction]:
    """One die of `a` sides against one of `b`: (higher, equal)."""
    pairs = list(product(range(1, a + 1), range(1, b + 1)))
    return (Fraction(sum(1 for x, y in pairs if x > y), len(pairs)),
            Fraction(sum(1 for x, y in pairs if x == y), len(pairs)))


def test_restraints_on_a_shorter_ladder() -> None:
    # A4 shorter_ladder: 6 votes, 1 restraint are a d10 and a d6; 3 votes, 4 restraints three d4s.
    assert _score_chance([10, 6], lambda s: s == 1) == Fraction(1, 60)
    assert _score_chance([10, 6], lambda s: s <= 6) == Fraction(3, 5)
    assert _score_chance([4, 4, 4], lambda s: s == 1) == Fraction(1, 64)


def test_law_limits_and_tiebreakers() -> None:
    # A6: per check, d8 against d4; per option, d8 against d6.
    assert _beats(8, 4)[0] == Fraction(11, 16)
    assert _beats(8, 6)[0] == Fraction(9, 16)
    # §3.5 with d6s: equal 1/6, each side higher 5/12.
    assert _beats(6, 6) == (Fraction(5, 12), Fraction(1, 6))


def test_the_d6_game_without_a_multiplier() -> None:
    # §3.20 no_multiplier, 7 votes: every first die bursts, re-rolled at multiplier 2.
    scores = [2 * face for face in range(1, 7)]
    assert Fraction(scores.count(12), 6) == Fraction(1, 6) and Fraction(scores.count(2), 6) == Fraction(1, 6)


def test_worked_rules_sets_each_option_of_the_readme() -> None:
    rules = load(str(GAME))
    worked = [e for e in rules.examples if e.source is not None and Path(e.source.name).name == "worked.rules"]
    assert all(any(isinstance(line, (ast.Expectation, ast.ExpectRefusal)) for line in e.lines) for e in worked)
    readme = (GAME / "README.md").read_text()
    table = readme[readme.index("## Options"):readme.index("## Attribution")]
    listed = {row.split("`")[1] for row in table.splitlines() if row.startswith("| `")}
    assert len(listed) >= 9
    set_options = {line.name for e in worked for line in e.lines if isinstance(line, ast.ExampleOption)}
    assert listed <= set_options, listed - set_options
