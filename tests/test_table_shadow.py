"""A table whose rows give new levels and also a name declared elsewhere: the row silently
means the other declaration, so `runebook check` warns (E0307), and the game still loads."""

from __future__ import annotations

from pathlib import Path

from runebook import interpreter

SHADOWED = """\
condition Top ()

table Rank
  0: Bottom
  1: Middle
  2+: Top

check Climb (height = 0)
  result rank = Rank[height]
"""

CLEAN = SHADOWED.replace("condition Top ()", "condition Dizzy ()")

ONTO = """\
levels Mood: calm < angry

table Temper
  0: calm
  1+: angry
"""


def test_a_row_naming_a_declaration_is_a_warning(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "game.rules").write_text(SHADOWED)
    run = cli("check", str(tmp_path))
    assert run.code == 0, run.stderr  # a warning, not an error
    assert "game.rules:6:7: E0307 'Top' in table 'Rank' is not one of its levels" in run.stderr
    assert "declared at line 1" in run.stderr and "^^^" in run.stderr and "help: rename one of them" in run.stderr
    rules = interpreter.load(str(tmp_path))
    assert str(rules.resolve("climb", height=1).results["rank"]) == "Middle"


def test_clean_tables_do_not_warn(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "a.rules").write_text(CLEAN)
    (tmp_path / "b.rules").write_text(ONTO)  # every row names a declared level: no warning
    run = cli("check", str(tmp_path))
    assert run.code == 0 and "E0307" not in run.stderr, run.stderr
