"""Specialised groups of builtins (the hex grid, the readers of entry lines) are opt-in per
ruleset: `uses grid, entry text`. A ruleset that does not use a group cannot call its
builtins (E0412, saying which line to add) and may use their names for its own functions."""

from __future__ import annotations

from pathlib import Path

from runebook import interpreter


def _game(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "game"
    folder.mkdir()
    (folder / "g.rules").write_text(text)
    return folder


def test_a_group_not_used_is_not_there(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    folder = _game(tmp_path, "check Gap ()\n  result steps = hex_distance(actor, target)\n")
    run = cli("check", str(folder / "g.rules"))
    assert run.code == 1
    assert "E0412 unknown function 'hex_distance'" in run.stderr
    assert "help: 'hex_distance' is one of the grid builtins: add a line 'uses grid' to use them" in run.stderr


def test_using_the_group_makes_them_available(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    folder = _game(tmp_path, "uses grid\n\ncheck Gap ()\n  result steps = hex_distance(cell(0, 0), cell(2, -1))\n")
    assert cli("check", str(folder / "g.rules")).code == 0
    assert interpreter.load(str(folder)).resolve("Gap", seed=1).results == {"steps": 2}


def test_a_ruleset_may_name_its_own_function_like_a_builtin_it_does_not_use(tmp_path: Path) -> None:
    folder = _game(tmp_path, "function burst(n) = n * 10\n\ncheck Blast ()\n  result hit = burst(3)\n")
    assert interpreter.load(str(folder)).resolve("Blast", seed=1).results == {"hit": 30}


def test_an_unknown_group(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    folder = _game(tmp_path, "uses gird\n\ncheck C ()\n  result x = 1\n")
    run = cli("check", str(folder / "g.rules"))
    assert run.code == 1
    assert "E0303 unknown group of builtins 'gird'" in run.stderr and "did you mean 'grid'?" in run.stderr


def test_the_expression_language_alone_has_every_builtin() -> None:
    assert interpreter.roll("hex_distance(cell(0, 0), cell(3, 0))").total == 3
