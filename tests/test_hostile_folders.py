"""Folders too large to search (E0014): `/`, a home folder or a pull request adding a hundred
thousand files, given where a game's folder belongs, is refused in a moment, not searched."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from runebook.dsl import files
from runebook.dsl.files import FileRefused, rules_files
from runebook.interpreter.lsp.analysis import _saved_rules


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Limits small enough to reach with a handful of files."""
    monkeypatch.setattr(files, "MAX_RULES_FILES", 3)
    monkeypatch.setattr(files, "MAX_SEARCHED", 40)


def _game(folder: Path, count: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        (folder / f"part-{n}.rules").write_text(f"stats Grit{n}\n")
    return folder


def test_the_search_finds_nested_files_in_order_and_skips_hidden_and_linked_folders(tmp_path: Path) -> None:
    game = _game(tmp_path / "game", 2)
    _game(game / "more", 1)
    _game(game / ".git", 2)  # hidden: not searched
    _game(tmp_path / "elsewhere", 2)
    (game / "linked").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (game / "folder.rules").mkdir()  # a folder with the suffix is not a file
    (game / "notes.txt").write_text("not rules\n")
    found = [p.relative_to(game).as_posix() for p in rules_files(game)]
    assert found == ["more/part-0.rules", "part-0.rules", "part-1.rules"]


def test_too_many_rules_files_are_refused_with_the_limit(tmp_path: Path) -> None:
    game = _game(tmp_path / "game", 4)
    with pytest.raises(FileRefused) as refused:
        rules_files(game, max_files=3)
    assert refused.value.code == "E0014"
    assert refused.value.fields["what"] == ".rules files" and refused.value.fields["limit"] == "3"
    assert len(rules_files(game, max_files=4)) == 4


def test_a_search_through_too_many_entries_is_refused_though_few_are_rules(tmp_path: Path) -> None:
    folder = tmp_path / "home"
    for n in range(30):
        (folder / f"dir{n}").mkdir(parents=True)
        (folder / f"dir{n}" / "photo.jpg").write_bytes(b"")
    (folder / "stray.rules").write_text("stats Grit\n")
    with pytest.raises(FileRefused) as refused:
        rules_files(folder, max_searched=50)
    assert refused.value.fields["what"] == "files and folders"
    assert len(rules_files(folder, max_searched=61)) == 1


def test_check_reports_the_folder_and_exits_as_for_a_missing_one(cli, tmp_path: Path, small_limits: None) -> None:  # type: ignore[no-untyped-def]
    game = _game(tmp_path / "game", 4)
    run = cli("check", str(game))
    assert run.code == 2
    assert "E0014" in run.stderr + run.stdout and "more than 3 .rules files" in run.stderr + run.stdout
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("command", [("resolve", "{game}", "Hit"), ("odds", "{game}", "Hit"),
                                     ("run", "{game}", "Hit"), ("export", "{game}")])
def test_a_game_named_by_a_folder_too_large_is_refused(cli, tmp_path: Path, small_limits: None,  # type: ignore[no-untyped-def]
                                                       command: tuple[str, ...]) -> None:
    game = _game(tmp_path / "game", 4)
    run = cli(*(part.format(game=game) for part in command))
    assert run.code == 2, run
    assert "E0014" in run.stderr and "Traceback" not in run.stderr


def test_fmt_refuses_the_folder_and_changes_nothing(cli, tmp_path: Path, small_limits: None) -> None:  # type: ignore[no-untyped-def]
    game = _game(tmp_path / "game", 4)
    (game / "part-0.rules").write_text("stats   Grit\n")  # fmt would rewrite this
    run = cli("fmt", str(game))
    assert run.code == 2 and "E0014" in run.stderr
    assert (game / "part-0.rules").read_text() == "stats   Grit\n"


def test_the_language_server_reads_no_siblings_of_a_file_in_a_folder_too_large(tmp_path: Path,
                                                                                small_limits: None) -> None:
    game = _game(tmp_path / "game", 4)
    assert _saved_rules(game) == set()
    assert len(_saved_rules(_game(tmp_path / "small", 2))) == 2


def test_an_unreadable_subfolder_is_passed_over(tmp_path: Path) -> None:
    game = _game(tmp_path / "game", 1)
    locked = _game(game / "locked", 1)
    os.chmod(locked, 0)
    try:
        found = rules_files(game)
    finally:
        os.chmod(locked, 0o755)
    # As root the folder can still be read; either way the search ends without an error.
    assert game / "part-0.rules" in found
