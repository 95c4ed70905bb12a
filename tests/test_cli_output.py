"""How much `roll`, `resolve` and `run` print (`--trace full|brief|none`, `--quiet`), and
`run --answer` answering a choice by its name as `odds --answer` does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runebook.interpreter.cli.main import COMMAND_MODULES, build_parser

GAME = """\
procedure Stand (bonus: number = 1)
  choose stance: bold | careful
  roll d = 1d6
  if stance == bold
    result total = sum(d) + bonus + 2
  else
    result total = sum(d) + bonus
"""


@pytest.fixture
def game(tmp_path: Path) -> Path:
    (tmp_path / "g.rules").write_text(GAME, encoding="utf-8")
    return tmp_path


def test_run_answers_a_choice_by_its_name(game: Path, cli) -> None:  # type: ignore[no-untyped-def]
    careful = cli("run", str(game), "Stand", "--answer", "stance=careful", "--dice", "4", "--json")
    assert careful.code == 0, careful.stderr
    assert json.loads(careful.stdout)["results"]["total"] == 5
    bold = cli("run", str(game), "Stand", "--answer", "stance=bold", "--dice", "4", "--json")
    assert json.loads(bold.stdout)["results"]["total"] == 7
    unanswered = cli("run", str(game), "Stand", "--dice", "4")
    assert unanswered.code == 1 and "E0610" in unanswered.stderr


def test_trace_levels(game: Path, cli) -> None:  # type: ignore[no-untyped-def]
    base = ("run", str(game), "Stand", "--answer", "stance=bold", "--dice", "4")
    full = cli(*base).stdout.splitlines()
    brief = cli(*base, "--trace", "brief").stdout.splitlines()
    quiet = cli(*base, "--quiet").stdout.splitlines()
    assert full[-1] == brief[-1] == quiet[-1] == "total: 7"
    assert "  >> choose stance: bold" in full and "  >> choose stance: bold" in brief
    assert any(line.startswith("  d: 4") or "1d6" in line for line in brief)
    assert len(quiet) < len(brief) < len(full)
    assert quiet == [f"{game.name}: Stand", "total: 7"]
    assert cli(*base, "--trace", "none").stdout == cli(*base, "-q").stdout


def test_roll_and_resolve_take_the_same_flags(cli) -> None:  # type: ignore[no-untyped-def]
    rolled = cli("roll", "4d6kh3", "--dice", "6,2,5,1", "--quiet")
    assert rolled.code == 0 and rolled.stdout == "4d6kh3\ntotal: 13\n"
    resolved = cli("resolve", "mestezia", "skill check", "--with", "threshold=11", "--with", "modifier=3",
                   "--dice", "8,6,1", "--trace", "none")
    assert resolved.code == 0, resolved.stderr
    assert resolved.stdout.splitlines()[1:] == [line for line in cli(
        "resolve", "mestezia", "skill check", "--with", "threshold=11", "--with", "modifier=3", "--dice",
        "8,6,1").stdout.splitlines() if not line.startswith("  ")][1:]


def test_a_bad_value_is_blamed_on_its_flag_first(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("resolve", "mestezia", "skill check", "--with", "threshold=eleven", "--dice", "1,2,3")
    assert run.code == 1
    first = run.stderr.splitlines()[0]
    assert first == "--with:1:11: E0405 '>=' cannot apply to text ('eleven')"
    assert " 1 | threshold=eleven\n   |           ^^^^^^\n" in run.stderr
    assert "help: the rule that uses it: " in run.stderr and "mechanics.rules:19:23" in run.stderr
    odds = cli("odds", "mestezia", "skill check", "--with", "threshold=eleven")
    assert odds.code == 1 and odds.stderr.startswith("--with:1:11: E0405")


def test_run_and_odds_take_the_same_choices_file(game: Path, cli) -> None:  # type: ignore[no-untyped-def]
    named = game / "careful.yaml"
    named.write_text("stance: careful\n", encoding="utf-8")
    ran = cli("run", str(game), "Stand", "--choices", str(named), "--dice", "4", "--json")
    assert ran.code == 0, ran.stderr
    assert json.loads(ran.stdout)["results"]["total"] == 5
    odds = json.loads(cli("odds", str(game), "Stand", "--choices", str(named), "--json").stdout)
    assert odds["results"]["total"] == {str(n + 1): "1/6" for n in range(1, 7)}
    ordered = game / "ordered.yaml"
    ordered.write_text("- careful\n", encoding="utf-8")
    assert json.loads(cli("run", str(game), "Stand", "--choices", str(ordered), "--dice", "4", "--json")
                      .stdout)["results"]["total"] == 5
    refused = cli("odds", str(game), "Stand", "--choices", str(ordered))
    assert refused.code == 1 and "E0702" in refused.stderr and "answer each choice by its name" in refused.stderr


def test_an_input_may_be_named_like_a_keyword_of_the_api(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """`options`, `seed` or `dice` as an input's name used to crash `run` (exit 3)."""
    (tmp_path / "g.rules").write_text("check Pick (options: number = 2, seed: number = 1)\n"
                                      "  result total = options + seed\n", encoding="utf-8")
    for command in ("run", "resolve", "odds"):
        run = cli(command, str(tmp_path), "Pick", "--with", "options=5", "--with", "seed=4", "--json")
        assert run.code == 0, (command, run.stderr)
        data = json.loads(run.stdout)
        assert data["results"]["total"] in (9, {"9": "1"}), (command, data["results"])


def test_each_command_alone_parses_as_in_the_whole_command_line() -> None:
    """`runebook CMD` registers only CMD's module (start-up); the table of which module holds
    which command must match what the modules register, or a command would go missing."""
    whole = build_parser()
    commands = next(a for a in whole._actions if a.dest == "command").choices
    assert set(COMMAND_MODULES) == set(commands) - {"completion"}
    for name in COMMAND_MODULES:
        alone = next(a for a in build_parser(name)._actions if a.dest == "command").choices
        assert name in alone
        ours = sorted(o for a in alone[name]._actions for o in a.option_strings)
        assert ours == sorted(o for a in commands[name]._actions for o in a.option_strings)
