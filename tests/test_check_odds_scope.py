"""Exact odds of a check share the inputs' scope among its worlds only when every world
would build the same one (interpreter.rules.model.Rules._run, ``shared``)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from runebook import interpreter

GAME = """\
option edge: none | one = none

check Rolled Default (b = 1d2)
  roll d = 1d2
  result t = d + b

check Plain Default (b = 1)
  roll d = 1d2
  result t = d + b + (1 if edge == one else 0)
"""


def test_an_input_whose_default_rolls_is_each_worlds_own(tmp_path: Path) -> None:
    (tmp_path / "g.rules").write_text(GAME)
    odds = interpreter.load(str(tmp_path)).odds("Rolled Default")
    assert dict(odds.results["t"]) == {2: Fraction(1, 4), 3: Fraction(1, 2), 4: Fraction(1, 4)}


def test_a_shared_scope_keeps_the_inputs_and_options_of_each_computation(tmp_path: Path) -> None:
    (tmp_path / "g.rules").write_text(GAME)
    rules = interpreter.load(str(tmp_path))
    assert dict(rules.odds("Plain Default").results["t"]) == {2: Fraction(1, 2), 3: Fraction(1, 2)}
    assert dict(rules.odds("Plain Default", b=5).results["t"]) == {6: Fraction(1, 2), 7: Fraction(1, 2)}
    assert dict(rules.odds("Plain Default", b=5, options={"edge": "one"}).results["t"]) == \
        {7: Fraction(1, 2), 8: Fraction(1, 2)}
