"""A misspelt path (a game's folder, a .rules file, a character or choices file) is answered
with the closest names in the folder it names, wherever a path is read."""

from __future__ import annotations

from pathlib import Path

import pytest

import runebook
from runebook.dsl.files import similar_path

GAME = "check Strike ()\n  roll d = 1d6\n  result total = sum(d)\n"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    game = tmp_path / "skirmish"
    game.mkdir()
    (game / "combat.rules").write_text(GAME, encoding="utf-8")
    (game / "tables.rules").write_text("", encoding="utf-8")
    (game / "outcomes.rules").write_text("", encoding="utf-8")
    (tmp_path / "raider.yaml").write_text("name: Raider\n", encoding="utf-8")
    return tmp_path


def test_the_closest_entry_is_named_with_the_folder_as_written(folder: Path) -> None:
    assert similar_path(folder / "skirmsh") == f"did you mean '{folder / 'skirmish'}'?"
    # Files ending alike are compared without the ending: `combat.rules`, not every .rules file.
    assert similar_path(folder / "skirmish" / "combats.rules") == f"did you mean '{folder / 'skirmish' / 'combat.rules'}'?"
    assert similar_path(folder / "nothing-like-it") is None
    assert similar_path(folder / "no-folder" / "combat.rules") is None


def test_check_and_fmt_suggest_the_folder_meant(folder: Path, cli, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(folder)
    checked = cli("check", "skirmsh")
    assert checked.code != 0 and "E0001" in checked.stderr
    assert "did you mean 'skirmish'?" in checked.stderr
    checked = cli("check", "skirmish/combt.rules")
    assert "did you mean 'skirmish/combat.rules'?" in checked.stderr
    formatted = cli("fmt", "--check", "skirmsh")
    assert formatted.code != 0 and "did you mean 'skirmish'?" in formatted.stderr


def test_a_game_path_and_a_character_file_are_suggested(folder: Path, cli, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(folder)
    resolved = cli("resolve", "./skirmsh", "Strike")
    assert resolved.code != 0 and "E0006" in resolved.stderr and "did you mean './skirmish'?" in resolved.stderr
    with pytest.raises(runebook.RunebookError) as error:
        runebook.load("./skirmsh")
    assert error.value.diagnostics[0].help == "no such file or folder; did you mean './skirmish'?"
    resolved = cli("resolve", "skirmish", "Strike", "--as", "raidr.yaml", "--dice", "3")
    assert resolved.code != 0 and "E0001" in resolved.stderr and "did you mean 'raider.yaml'?" in resolved.stderr


def test_a_bare_name_near_a_folder_here_is_suggested_after_the_games(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(folder)
    with pytest.raises(runebook.RunebookError) as error:
        runebook.load("skirmsh")
    assert error.value.diagnostics[0].help == "did you mean 'skirmish'?"
    with pytest.raises(runebook.RunebookError) as error:
        runebook.load("mezo")
    assert error.value.diagnostics[0].help == "did you mean 'mezzo'?"
