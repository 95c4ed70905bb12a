"""What `runebook check` looks at: a file alone is checked alone, a folder is one ruleset
of one game, and homebrew cannot quietly reuse a name its game already has."""

from __future__ import annotations

from pathlib import Path

SLEEP = """\
extends mestezia

Sleep
Cost: 3 CP, 1 Sg
Target: Enemy
Threshold: Target's Will
Result 3: 12 Quietus damage
Keywords: *Charm Quietus Attack*
"""


def test_a_homebrew_entry_with_a_name_its_game_has(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "sleepy.rules"
    path.write_text(SLEEP, encoding="utf-8")
    run = cli("check", str(path))
    assert run.code == 1
    assert "sleepy.rules:3:1: E0214 'Sleep' is already an entry of mestezia (powers.rules:14)" in run.stderr
    assert "help: give it a name of its own" in run.stderr
    renamed = tmp_path / "drowsy.rules"
    renamed.write_text(SLEEP.replace("Sleep", "Drowse"), encoding="utf-8")
    assert cli("check", str(renamed)).code == 0


def test_a_folder_mixing_two_games(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "a.rules").write_text("extends mezzo\n", encoding="utf-8")
    (tmp_path / "b.rules").write_text("extends mestezia\n", encoding="utf-8")
    run = cli("check", str(tmp_path))
    assert run.code == 1
    assert "b.rules:1:9: E0020 this folder's files extend two games: 'mezzo' (a.rules) and 'mestezia'" in run.stderr
    # Run against the folder as a game: the same diagnostic first, not a pile of unknown names.
    ran = cli("resolve", str(tmp_path), "anything")
    assert ran.code == 1
    assert "E0020" in ran.stderr.splitlines()[0]
    # Each file named alone is fine: it is checked against its own game.
    assert cli("check", str(tmp_path / "a.rules")).code == 0


def test_a_file_alone_is_checked_alone(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "one.rules").write_text("levels Grade: low < high\n\nfunction best(x) = x + 1\n", encoding="utf-8")
    (tmp_path / "other.rules").write_text("function best(y) = y\n\nfunction broken(x) = nowhere + x\n",
                                          encoding="utf-8")
    (tmp_path / "deeper").mkdir()
    (tmp_path / "deeper" / "worse.rules").write_text("Thing [Nope]\nWhat: ever\n", encoding="utf-8")
    alone = cli("check", str(tmp_path / "one.rules"))
    assert alone.code == 0, alone.stderr
    assert "other.rules" not in alone.stderr and "worse.rules" not in alone.stderr
    whole = cli("check", str(tmp_path))  # a folder is checked whole, subfolders included
    assert whole.code == 1
    assert "worse.rules:1:8: E0201 unknown entry type 'Nope'" in whole.stderr
    (tmp_path / "deeper" / "worse.rules").unlink()
    whole = cli("check", str(tmp_path))
    assert "other.rules:3:22: E0207 unknown name 'nowhere'" in whole.stderr  # a function's body is checked
    assert "other.rules:1:10: E0302 'best' is already declared (at line 3 of " in whole.stderr
    assert "one.rules)" in whole.stderr
