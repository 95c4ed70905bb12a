"""`runebook run GAME ENTRY`: which procedure uses an entry when several take its kind —
the one needing the fewest other inputs, then the first declared."""

from __future__ import annotations

from pathlib import Path

from runebook import interpreter

GAME = """\
kind Spell
  types Spell
  Keywords: keywords, required

procedure Duel (spell: Spell, foe_rank)
  result used = 1

procedure Cast (spell: Spell, bonus = 0)
  result used = 2

procedure Chant (spell: Spell, verses = 3)
  result used = 3

Spark
Keywords: *Spell*
"""


def test_the_plainest_use_of_an_entry_runs(tmp_path: Path) -> None:
    (tmp_path / "g.rules").write_text(GAME)
    run = interpreter.load(str(tmp_path)).run("Spark")
    # Duel needs foe_rank; Cast and Chant need nothing else, and Cast comes first
    assert run.results == {"used": 2}


def test_a_named_procedure_still_takes_the_entry(tmp_path: Path) -> None:
    (tmp_path / "g.rules").write_text(GAME)
    rules = interpreter.load(str(tmp_path))
    assert rules.run("Chant", spell="Spark").results == {"used": 3}
