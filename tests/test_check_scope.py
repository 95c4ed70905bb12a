"""What `runebook check` looks at: a file alone is checked alone, a folder is one ruleset
of one game, and homebrew cannot quietly reuse a name its game already has."""

from __future__ import annotations

import json
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

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


def test_replaces_marks_an_intended_override(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "house"
    folder.mkdir()
    path = folder / "sleepy.rules"
    path.write_text(SLEEP.replace("\nSleep\nCost: 3 CP", "\nreplaces Sleep\nCost: 2 CP"), encoding="utf-8")
    assert cli("check", str(path)).code == 0
    xochitl = REPO / "rulesets/mestezia/examples/xochitl.yaml"
    cultist = REPO / "rulesets/mestezia/examples/cultist.yaml"
    args = ("Sleep", "--as", str(xochitl), "--against", str(cultist), "--with", "skills=3", "--dice", "9,10,9", "--json")
    mine, core = cli("run", str(folder), *args), cli("run", "mestezia", *args)
    assert mine.code == 0 and core.code == 0, mine.stderr + core.stderr
    assert json.loads(mine.stdout)["state"]["actor"]["resources"]["CP"] == 3  # 5, less the homebrew's 2
    assert json.loads(core.stdout)["state"]["actor"]["resources"]["CP"] == 2  # 5, less the game's 3
    # Without the marker, the name is still E0214, and its help says how to mark it.
    path.write_text(SLEEP, encoding="utf-8")
    run = cli("check", str(path))
    assert run.code == 1 and "E0214" in run.stderr and "write 'replaces Sleep' on the header line" in run.stderr


def test_replaces_needs_an_entry_to_replace(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "sleepy.rules"
    path.write_text(SLEEP.replace("\nSleep\n", "\nreplaces Slep\n"), encoding="utf-8")
    run = cli("check", str(path))
    assert run.code == 1
    assert "sleepy.rules:3:10: E0217 'Slep' replaces no entry of mestezia" in run.stderr
    assert " 3 | replaces Slep\n   |          ^^^^\nhelp: did you mean 'Sleep'?" in run.stderr
    # A game of its own has nothing to replace.
    alone = tmp_path / "game"
    alone.mkdir()
    (alone / "game.rules").write_text("kind Spell\n  types Spell\n  Cost: text\n\nreplaces Zap [Spell]\nCost: 1\n", encoding="utf-8")
    run = cli("check", str(alone))
    assert run.code == 1 and "E0217 'Zap' replaces no entry" in run.stderr and "extends GAME" in run.stderr


def test_fmt_keeps_the_marker(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "sleepy.rules"
    path.write_text(SLEEP.replace("\nSleep\n", "\n# ours\nreplaces   Sleep  \n"), encoding="utf-8")
    assert cli("fmt", str(path)).code == 0
    text = path.read_text(encoding="utf-8")
    assert "\n# ours\nreplaces Sleep\nCost: 3 CP, 1 Sg\n" in text
    assert cli("fmt", "--check", str(path)).code == 0  # idempotent
    assert cli("check", str(path)).code == 0
