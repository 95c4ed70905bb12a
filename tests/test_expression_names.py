"""`runebook roll` and `runebook odds` give an expression's names with `--with NAME=VALUE`
(numbers and ratings), and an unknown name says how to give it."""

from __future__ import annotations

import json

import pytest


def test_a_name_given_with_with_is_read_by_a_roll(cli) -> None:  # type: ignore[no-untyped-def]
    rolled = cli("roll", "1d20 + dex", "--with", "dex=3", "--dice", "14", "--json")
    assert rolled.code == 0, rolled.stderr
    assert json.loads(rolled.stdout)["total"] == 17
    rolled = cli("roll", "1d20 + bonus - penalty", "--with", "bonus=5/2", "--with", "penalty=-1", "--dice", "2", "-q")
    assert rolled.stdout.splitlines()[-1] == "total: 11/2"


def test_a_name_given_with_with_is_read_by_odds_alone_and_side_by_side(cli) -> None:  # type: ignore[no-untyped-def]
    alone = cli("odds", "1d4 + bonus >= 4", "--with", "bonus=2", "--json")
    assert alone.code == 0, alone.stderr
    # 1d4 + 2 >= 4: the faces 2, 3 and 4.
    assert json.loads(alone.stdout)["distribution"] == {"false": "1/4", "true": "3/4"}
    both = cli("odds", "1d6 + bonus", "2d6", "--with", "bonus=3", "--format", "csv")
    assert both.code == 0, both.stderr
    header, *rows = [line.split(",") for line in both.stdout.splitlines()]
    four = dict(zip(header, next(r for r in rows if r[0] == "4")))
    assert four["1d6 + bonus exact"] == "1/6" and four["2d6 exact"] == "1/12"


def test_an_unknown_name_says_how_to_give_it(cli) -> None:  # type: ignore[no-untyped-def]
    for command in ("roll", "odds"):
        failed = cli(command, "1d20 + dex")
        assert failed.code != 0 and "E0207 unknown name 'dex'" in failed.stderr
        assert "help: give it a value: --with dex=3" in failed.stderr
    # A misspelt name given is suggested, not the flag.
    failed = cli("roll", "1d20 + dexx", "--with", "dex=3")
    assert "did you mean 'dex'?" in failed.stderr and "--with dexx" not in failed.stderr


@pytest.mark.parametrize("given", ["dex", "dex=", "=3", "dex=1d4", "dex=abc", 'dex="x"'])
def test_a_value_that_is_not_a_number_is_a_usage_error(given: str, cli) -> None:  # type: ignore[no-untyped-def]
    failed = cli("roll", "1d20 + dex", "--with", given)
    assert failed.code == 2
    assert f"--with {given}: give a name and a number" in failed.stderr and "Traceback" not in failed.stderr


def test_the_check_flags_stay_for_a_game(cli) -> None:  # type: ignore[no-untyped-def]
    failed = cli("odds", "1d20", "--option", "x=y")
    assert failed.code == 2 and "are for a game's check" in failed.stderr
