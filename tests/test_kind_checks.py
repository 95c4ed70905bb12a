"""A kind's `check NAME` line: `runebook check` gives every entry of the kind to that check and
reports one it refuses as E0232 at the entry (docs/language.md, "Declarations"). Homebrew files
that extend a game are checked the same way (tests/test_mezzo_homebrew.py)."""

from __future__ import annotations

from pathlib import Path

GAME = """kind Gadget
  types Gadget
  Cost: text
  Parts: text
  check Gadget Price

uses entry text

procedure Gadget Price (gadget: Gadget)
  require number_in(line_text(gadget, "Cost"), "# gold") == 10 * number_in(line_text(gadget, "Parts"), "# parts")
  result price = number_in(line_text(gadget, "Cost"), "# gold")

Lamp [Gadget]
Cost: 20 gold
Parts: 2 parts
"""


def _game(tmp_path: Path, extra: str = "") -> Path:
    folder = tmp_path / "gadgets"
    folder.mkdir()
    (folder / "game.rules").write_text(GAME + extra)
    return folder


def test_entries_that_pass_their_kind_check(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = cli("check", str(_game(tmp_path)))
    assert out.code == 0, out.stderr


def test_an_entry_its_kind_check_refuses(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = _game(tmp_path, "\nClock [Gadget]\nCost: 25 gold\nParts: 3 parts\n")
    out = cli("check", str(folder))
    assert out.code == 1
    assert "game.rules:17:1: E0232 Gadget 'Clock' is refused by its check 'Gadget Price'" in out.stderr
    assert "Lamp" not in out.stderr
    assert "Traceback" not in out.stderr


def test_the_line_prints_back(tmp_path: Path) -> None:
    from runebook.dsl.loader import load_game

    game = load_game(str(_game(tmp_path)))
    kind = next(b for _s, f in game.files for b in f.blocks if type(b).__name__ == "KindDecl")
    assert "  check Gadget Price" in str(kind).splitlines()
