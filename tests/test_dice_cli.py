"""`runebook roll` and `runebook odds` as a user runs them: output, exit codes, errors.

Runs go through `interpreter.cli.main.main` in-process (the `cli` fixture); whole runs are
syrupy snapshots, and the acceptance examples of the dice issue are asserted directly.
"""

from __future__ import annotations

import json
import re

import pytest

TWENTY_THOUSAND_TERMS = " + ".join(["1"] * 20_000)

BAD = [
    "5d",
    "1d0",
    "((((",
    "3d6+",
    "1000000000d6",
    "4d6p3",
    TWENTY_THOUSAND_TERMS,
    "d20 + Strenght",
    "10 / (2 - 2)",
    'd6 + "a"',
    "floor(1, 2)",
    "hihgest(2d6)",
    "4d6r<7",
    "d1!",
    "4d6cs>=5cf1",
    "(1 - 3)d6",
    "(5 / 2)d6",
    "1d10000000",
    "2d6 kh1 kl1",
    "ladder(3, 2d4, d6)",
    "count(3)",
]


def _tidy(text: str) -> str:
    return re.sub(r"[^\n]{200,}", lambda m: m.group(0)[:80] + " … " + m.group(0)[-40:], text)


def _clean_failure(run) -> None:  # type: ignore[no-untyped-def]
    assert run.code == 1, run.show()
    assert run.stdout == ""
    assert "Traceback" not in run.stderr
    assert re.search(r"^<expression>:\d+:\d+: E\d{4} ", run.stderr, re.M), run.stderr
    assert re.search(r"^ +\| *\^+$", run.stderr, re.M), "a caret line"


@pytest.mark.parametrize("expr", BAD, ids=[e[:24] for e in BAD])
@pytest.mark.parametrize("command", ["roll", "odds"])
def test_bad_expressions_give_diagnostics(command: str, expr: str, cli, snapshot) -> None:  # type: ignore[no-untyped-def]
    run = cli(command, expr)
    _clean_failure(run)
    assert _tidy(run.show()) == snapshot


def test_keep_highest_with_given_dice(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("roll", "4d6kh3", "--dice", "6,2,5,1")
    assert run.code == 0
    assert run.stdout.splitlines()[-1] == "total: 13"
    data = json.loads(cli("roll", "4d6kh3", "--dice", "6,2,5,1", "--json").stdout)
    assert data["total"] == 13
    assert [d["fate"] for d in data["trace"][0]["dice"]] == ["kept", "kept", "kept", "dropped"]


def test_exploding_success_count_with_given_dice(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("roll", "5d10x10cs>=8", "--dice", "8,10,3,1,9,8", "--json")
    assert run.code == 0, run.show()
    data = json.loads(run.stdout)
    assert data["total"] == 4
    assert data["dice"] == [8, 10, 3, 1, 9, 8]
    last = data["trace"][0]["dice"][-1]
    assert last["cause"] == "explosion" and last["of"] == 2


def test_exploding_success_count_odds(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("odds", "5d10x10cs>=8", "--json")
    assert run.code == 0, run.show()
    data = json.loads(run.stdout)
    assert data["distribution"]["0"] == "16807/100000"
    assert data["residual"] == "0"


@pytest.mark.parametrize("args", [
    ("roll", "4d6kh3", "--dice", "6,2,5,1"),
    ("roll", "5d10x10cs>=8", "--dice", "8,10,3,1,9,8"),
    ("roll", "4d6r1!kh3", "--dice", "1,6,2,5,3,4"),
    ("roll", "3d6!! + 2", "--dice", "6,2,3,6,1"),
    ("roll", "count(each(3d10) + 3 >= 11)", "--dice", "8,6,1"),
    ("roll", "highest(ladder(7, d4, d6, d8, d10, d12)) or 1", "--dice", "11,5"),
    ("roll", "2d20kl1 + 5 >= 15", "--seed", "3"),
    ("roll", "2d6", "--seed", "1", "--json"),
    ("odds", "3d6"),
    ("odds", "5d10x10cs>=8"),
    ("odds", "d20 + 5 >= 15"),
    ("odds", "4d6kh3", "--json"),
    ("odds", "2d6 >= 8"),
    ("odds", "4d6!"),
], ids=lambda args: " ".join(args))
def test_runs(args: tuple[str, ...], cli, snapshot) -> None:  # type: ignore[no-untyped-def]
    run = cli(*args)
    assert run.code == 0, run.show()
    assert run.show() == snapshot


@pytest.mark.parametrize("args", [
    ("roll", "4d6", "--dice", "1,2,3"),
    ("roll", "4d6", "--dice", "1,2,3,4,5"),
    ("roll", "4d6", "--dice", "1,2,3,7"),
    ("roll", "5d10x10cs>=8", "--dice", "8,10,3,1,9"),
    ("roll", "4d6ro1", "--dice", "1,2,3,4"),
], ids=lambda args: " ".join(args))
def test_given_dice_errors(args: tuple[str, ...], cli, snapshot) -> None:  # type: ignore[no-untyped-def]
    run = cli(*args)
    _clean_failure(run)
    assert run.show() == snapshot


@pytest.mark.parametrize("args", [
    ("roll", "4d6", "--seed", "1", "--dice", "1,2,3,4"),
    ("roll", "4d6", "--dice", "x"),
    ("roll",),
    ("odds",),
], ids=lambda args: " ".join(args))
def test_usage_errors_exit_2(args: tuple[str, ...], cli) -> None:  # type: ignore[no-untyped-def]
    run = cli(*args)
    assert run.code == 2
    assert "Traceback" not in run.stderr
