"""`choose NAME: word | 1 to 5`: choice options that are whole numbers (or ranges of them)
stand for themselves — the answer is a number the rules compute with, in runs, replays,
prompts and exact odds alike."""

from __future__ import annotations

import io
from fractions import Fraction
from pathlib import Path

import pytest

from runebook import interpreter
from runebook.dsl.parser import parse_rules
from runebook.dsl.source import Source
from runebook.interpreter.rules.procedures import CallbackDriver, PromptDriver

# Stake some of a purse (or all of it) on one d6: 4 or more pays double.
GAME = """\
procedure Wager (purse = 10)
  choose stake: all_in | 1 to 5
  let amount = purse if stake == all_in else stake
  roll die = 1d6
  result won = amount * 2 if die >= 4 else 0
"""


@pytest.fixture
def game(tmp_path: Path) -> Path:
    (tmp_path / "g.rules").write_text(GAME)
    return tmp_path


def test_a_number_answer_is_a_number(game: Path) -> None:
    rules = interpreter.load(str(game))
    run = rules.run("wager", dice=[5], driver=CallbackDriver(lambda point: "3"))
    assert run.results == {"won": 6}
    run = rules.run("wager", dice=[5], driver=CallbackDriver(lambda point: "all_in"))
    assert run.results == {"won": 20}
    run = rules.run("wager", dice=[2], driver=CallbackDriver(lambda point: "5"))
    assert run.results == {"won": 0}


def test_the_options_list_every_number_of_the_range(game: Path) -> None:
    rules = interpreter.load(str(game))
    seen = []
    rules.run("wager", dice=[5], driver=CallbackDriver(lambda point: seen.append(point.options) or "1"))
    assert seen == [("all_in", "1", "2", "3", "4", "5")]


def test_a_choices_file_answers_with_yaml_numbers(game: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (game / "choices.yaml").write_text("- 4\n")
    run = cli("run", str(game), "wager", "--dice", "6", "--choices", str(game / "choices.yaml"), "--json")
    assert run.code == 0, run.stderr
    assert '"won": 8' in run.stdout


def test_a_number_outside_the_range_is_refused(game: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (game / "choices.yaml").write_text("- 7\n")
    run = cli("run", str(game), "wager", "--dice", "6", "--choices", str(game / "choices.yaml"))
    assert run.code == 1 and "Traceback" not in run.stderr
    assert "E0611 '7' is not offered at choice 'stake'; choose one of: all_in, 1 to 5" in run.stderr


def test_the_prompt_takes_numbers_as_themselves(game: Path) -> None:
    rules = interpreter.load(str(game))
    out = io.StringIO()
    driver = PromptDriver(out=out)
    answers = iter(["9\n", "2\n"])
    driver.read = lambda prompt: next(answers)  # type: ignore[method-assign]
    run = rules.run("wager", dice=[4], driver=driver)
    # "2" is the number 2, not the second option: 2 staked, doubled
    assert run.results == {"won": 4}
    assert "choose stake: all_in | 1 to 5" in out.getvalue()
    assert "'9' is not offered" in out.getvalue()


@pytest.mark.parametrize("stake", [1, 3, 5])
def test_odds_with_a_number_answer(game: Path, stake: int) -> None:
    odds = interpreter.load(str(game)).odds("wager", answers={"stake": str(stake)})
    # independent: half the faces of a d6 are 4 or more
    assert odds.results["won"] == {0: Fraction(1, 2), 2 * stake: Fraction(1, 2)}


def test_canonical_printing_keeps_the_range() -> None:
    text = "procedure P ()\n  choose n: 1 to 4 | 6 | 7 | many\n  result r = n\n"
    printed = str(parse_rules(Source("t", text)).blocks[0])
    assert "choose n: 1 to 4 | 6 | 7 | many" in printed
    assert parse_rules(Source("t", printed)).blocks[0] == parse_rules(Source("t", text)).blocks[0]


@pytest.mark.parametrize("written", ["5 to 1", "1 to 5000"])
def test_a_backwards_or_huge_range_is_a_diagnostic(tmp_path: Path, cli, written: str) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "g.rules").write_text(f"procedure P ()\n  choose n: {written}\n  result r = n\n")
    run = cli("run", str(tmp_path), "p")
    assert run.code == 1 and "Traceback" not in run.stderr
    assert f"E0308 '{written}' is not a range of choices" in run.stderr
