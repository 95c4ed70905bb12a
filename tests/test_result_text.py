"""What an embedder prints: a roll, a resolved check, a run and odds give from ``text()``
(and ``str()``) the very text the command line prints for them, at each trace level."""

from __future__ import annotations

from pathlib import Path

import pytest

import runebook
from runebook.interpreter.cli.options import TRACE_LEVELS
from runebook.interpreter.core.render import LEVELS
from tests.test_cli_output import GAME as STAND

# A check beside the trace-level tests' procedure `Stand` (a choice, a roll, a branch).
GAME = """\
check Strike (bonus: number = 0)
  roll d = 2d6
  show total = sum(d) + bonus
  result hit = total >= 8

""" + STAND


@pytest.fixture
def game(tmp_path: Path) -> Path:
    (tmp_path / "g.rules").write_text(GAME, encoding="utf-8")
    return tmp_path


def _title_of(printed: str) -> str:
    return printed.splitlines()[0]


@pytest.mark.parametrize("level", LEVELS)
def test_a_roll_prints_as_the_roll_command_does(level: str, cli) -> None:  # type: ignore[no-untyped-def]
    printed = cli("roll", "4d6kh3 + 2", "--dice", "6,1,4,3", "--trace", level)
    assert printed.code == 0, printed.stderr
    result = runebook.roll("4d6kh3 + 2", dice=[6, 1, 4, 3])
    assert result.text(level) == printed.stdout
    assert "6 (1) 4 3 = 13" in result.text() and result.text().endswith("total: 15\n")
    assert str(result) == result.text()


@pytest.mark.parametrize("level", LEVELS)
def test_a_resolved_check_prints_as_resolve_does(game: Path, level: str, cli) -> None:  # type: ignore[no-untyped-def]
    printed = cli("resolve", str(game), "Strike", "--with", "bonus=2", "--dice", "5,4", "--trace", level)
    assert printed.code == 0, printed.stderr
    result = runebook.load(game).resolve("Strike", bonus=2, dice=[5, 4])
    # The command line names the game in its title; the rest is the result's own text.
    assert result.text(level, title=_title_of(printed.stdout)) == printed.stdout
    assert result.text(level).splitlines()[0] == "Strike(bonus=2)"
    assert result.text(level).endswith("hit: true\nshown total: 11\n")


@pytest.mark.parametrize("level", LEVELS)
def test_a_run_prints_as_run_does(game: Path, level: str, cli) -> None:  # type: ignore[no-untyped-def]
    printed = cli("run", str(game), "Stand", "--answer", "stance=bold", "--dice", "4", "--trace", level)
    assert printed.code == 0, printed.stderr
    result = runebook.load(game).run("Stand", answers={"stance": "bold"}, dice=[4])
    assert result.text(level, title=_title_of(printed.stdout)) == printed.stdout
    assert str(result).splitlines()[0] == "Stand" and str(result).endswith("total: 7\n")
    if level == "none":
        assert ">> choose" not in result.text(level)
    else:
        assert ">> choose stance: bold" in result.text(level)


def test_odds_of_a_check_and_of_a_procedure_print_as_odds_does(game: Path, cli) -> None:  # type: ignore[no-untyped-def]
    rules = runebook.load(game)
    printed = cli("odds", str(game), "Strike", "--with", "bonus=2")
    assert printed.code == 0, printed.stderr
    assert rules.odds("Strike", bonus=2).text() == printed.stdout
    assert str(rules.odds("Strike", bonus=2)) == printed.stdout
    # 2d6 + 2 >= 8: 26 of the 36 rolls (2d6 >= 6).
    assert "13/18" in printed.stdout.split("Strike: hit")[1]
    printed = cli("odds", str(game), "Stand", "--answer", "stance=careful")
    assert printed.code == 0, printed.stderr
    assert rules.odds("Stand", answers={"stance": "careful"}).text() == printed.stdout


def test_a_distribution_prints_its_table(cli) -> None:  # type: ignore[no-untyped-def]
    dist = runebook.odds("2d6")
    table = dist.text("2d6")
    assert table.splitlines()[0] == "2d6" and "1/36" in table and "mean 7" in table
    assert dist.text().splitlines()[0].split() == ["outcome", "chance", "at", "least", "exact"]
    assert "#" in dist.text(unicode=False) and "█" not in dist.text(unicode=False)
    printed = cli("odds", "2d6")
    assert printed.code == 0, printed.stderr
    assert printed.stdout in (dist.text("2d6"), dist.text("2d6", unicode=False))


def test_a_trace_level_that_does_not_exist_is_named() -> None:
    result = runebook.roll("1d6", dice=[3])
    with pytest.raises(ValueError, match="full, brief, none"):
        result.text("short")
    assert TRACE_LEVELS == LEVELS  # the command line offers the levels the text knows
