"""Choices files (``--choices answers.yaml``) checked by `runebook check` against the game and
the procedure they answer: what a run would trip on is found first, at its line and column."""

from __future__ import annotations

from pathlib import Path

import pytest

from runebook.interpreter.rules import load
from runebook.interpreter.rules.procedures import NamedDriver, load_choices

REPO = Path(__file__).resolve().parent.parent
GAME = """\
procedure Pick (rounds = 1)
  choose stance: bold | careful
  choose stake: all_in | 1 to 5
  result bold = stance == bold
  result staked = stake
"""


@pytest.fixture
def game(tmp_path: Path) -> Path:
    folder = tmp_path / "duel"
    folder.mkdir()
    (folder / "game.rules").write_text(GAME, encoding="utf-8")
    return folder


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "answers.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_every_shipped_choices_file_passes(cli) -> None:  # type: ignore[no-untyped-def]
    checked = 0
    for game in ("mezzo", "mettle", "questworlds", "d10-pool", "mestezia"):
        for path in sorted((REPO / "rulesets" / game / "examples").rglob("*choices*.yaml")):
            run = cli("check", "--game", game, str(path))
            assert run.code == 0, (path, run.stderr)
            checked += 1
    assert checked >= 8
    # One says what it answers in the file itself.
    assert cli("check", str(REPO / "rulesets/mezzo/examples/conflict-choices.yaml")).code == 0


def test_an_answer_in_order_that_no_choice_offers(tmp_path: Path, game: Path, cli) -> None:  # type: ignore[no-untyped-def]
    answers = _write(tmp_path, f"game: {game}\nprocedure: Pick\nchoices:\n  - bold\n  - carefull\n  - 9\n")
    before = answers.read_bytes()
    run = cli("check", str(answers))
    assert run.code == 1
    assert "answers.yaml:5:5: E0709 'carefull' is not an option of any choice of 'Pick'" in run.stderr
    assert "  - carefull\n   |     ^^^^^^^^\nhelp: did you mean 'careful'?" in run.stderr
    assert "answers.yaml:6:5: E0709 '9' is not an option of any choice of 'Pick'" in run.stderr
    assert "help: its options: bold, careful, all_in, 1 to 5" in run.stderr
    assert answers.read_bytes() == before
    # What the run would have said, later: the check saw it first.
    ran = cli("run", str(game), "Pick", "--choices", str(answers))
    assert ran.code == 1 and "E0611 'carefull' is not offered at choice 'stake'" in ran.stderr


def test_answers_by_name_unknown_choices_and_options(tmp_path: Path, game: Path, cli) -> None:  # type: ignore[no-untyped-def]
    answers = _write(tmp_path, "stanse: bold\nstake: 7\n")
    run = cli("check", "--game", str(game), "--procedure", "Pick", str(answers))
    assert run.code == 1
    assert "answers.yaml:1:1: E0708 'stanse' is not a choice of 'Pick'" in run.stderr
    assert " 1 | stanse: bold\n   | ^^^^^^\nhelp: did you mean one of 'stance', 'stake'?" in run.stderr
    assert "answers.yaml:2:8: E0611 '7' is not offered at choice 'stake'; choose one of: all_in, 1 to 5" in run.stderr
    # The same answers, right, pass, and run.
    _write(tmp_path, "stance: careful\nstake: 5\n")
    assert cli("check", "--game", str(game), "--procedure", "Pick", str(answers)).code == 0
    ran = cli("run", str(game), "Pick", "--choices", str(answers), "--json")
    assert ran.code == 0 and '"staked": 5' in ran.stdout


def test_wrong_types_are_placed(tmp_path: Path, game: Path, cli) -> None:  # type: ignore[no-untyped-def]
    answers = _write(tmp_path, f"game: {game}\nprocedure: Pick\nchoices:\n  - yes\n  - [bold]\n  - 1.5\n  -\n")
    run = cli("check", str(answers))
    assert run.code == 1
    assert "answers.yaml:4:5: E0702 'an answer' expects an option's name or a whole number, got true/false" in run.stderr
    assert "help: write it in quotes ('yes') if it is an option's name" in run.stderr
    assert "answers.yaml:5:5: E0702" in run.stderr and "got a list or mapping" in run.stderr
    assert "answers.yaml:6:5: E0702" in run.stderr and "got a decimal number" in run.stderr
    assert "got nothing" in run.stderr


def test_the_procedure_is_named_and_checked(tmp_path: Path, game: Path, cli) -> None:  # type: ignore[no-untyped-def]
    answers = _write(tmp_path, f"game: {game}\nprocedure: Pik\nchoices: [bold]\n")
    run = cli("check", str(answers))
    assert run.code == 1
    assert "answers.yaml:2:12: E0608 nothing to run called 'Pik'" in run.stderr and "did you mean 'Pick'?" in run.stderr
    # Without a game anywhere, the file says which is missing.
    _write(tmp_path, "- bold\n")
    run = cli("check", str(answers))
    assert run.code == 1 and "answers.yaml:1:1: E0007" in run.stderr
    # Without a procedure, every choice of the game counts.
    assert cli("check", "--game", str(game), str(answers)).code == 0
    _write(tmp_path, "- bolt\n")
    run = cli("check", "--game", str(game), str(answers))
    assert run.code == 1 and f"E0709 'bolt' is not an option of any choice of the game {game.name}" in run.stderr


def test_a_choose_from_list_makes_a_near_miss_a_warning(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "vote"
    folder.mkdir()
    (folder / "game.rules").write_text(
        "procedure Vote (options: list of text)\n  choose pick from options\n  choose mood: calm | angry\n"
        "  result chosen = pick\n", encoding="utf-8")
    answers = _write(tmp_path, "- parley\n- angyr\n")
    run = cli("check", "--game", str(folder), "--procedure", "Vote", str(answers))
    assert run.code == 0, run.stderr  # 'parley' may be an item of the list
    assert "answers.yaml:2:3: E0709 'angyr'" in run.stderr and "did you mean 'angry'?" in run.stderr
    assert "parley" not in run.stderr


def test_game_and_procedure_lines_are_not_answers(tmp_path: Path, game: Path) -> None:
    answers = _write(tmp_path, f"game: {game}\nprocedure: Pick\nstance: careful\nstake: 2\n")
    driver = load_choices(answers)
    assert isinstance(driver, NamedDriver) and driver.answers == {"stance": "careful", "stake": "2"}
    result = load(str(game)).run("Pick", driver=driver)
    assert result.results["staked"] == 2 and result.results["bold"] is False
