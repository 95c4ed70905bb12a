"""Records as input values: `--with items=[{n: 1}, {n: 2}]`, `example` lines and the API.

A procedure over a group often takes one record per member; the command line and `example`
lines give them in the language's own notation (a list of `{name: value}`), each field a
plain value (a number, a rating, a name, text, true/false/none). Anything else is E0008.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

from runebook import interpreter

GAME = """\
procedure Tally (items = [], bonus = 0)
  let total = bonus
  for each item in items
    set total = total + (item.n if item.counts else 0)
  roll d = 1d2
  result total = total + sum(d)
  result names = [item.who for item in items]

example Tally (items = [{n: 3, counts: true, who: Ana}, {n: 5, counts: false, who: "Bo B"}])
"""


def _game(tmp_path: Path) -> Path:
    (tmp_path / "game.rules").write_text(GAME)
    return tmp_path


def test_a_list_of_records_from_the_command_line(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    game = str(_game(tmp_path))
    items = 'items=[{n: 3, counts: true, who: Ana}, {n: 5, counts: false, who: "Bo B"}]'
    run = cli("run", game, "Tally", "--with", items, "--dice", "2", "--json")
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout)["results"] == {"total": 5, "names": ["Ana", "Bo B"]}
    odds = cli("odds", game, "Tally", "--with", items, "--of", "total", "--json")
    assert odds.code == 0, odds.stderr
    assert "4" in json.loads(odds.stdout)["results"]["total"]


def test_an_example_line_gives_records(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    game = _game(tmp_path)
    check = cli("check", str(game))
    assert check.code == 0, check.stderr
    rules = interpreter.load(str(game))
    odds = rules.odds("Tally", items=({"n": 1, "counts": True, "who": "Cy"},))
    assert dict(odds.results["total"]) == {2: Fraction(1, 2), 3: Fraction(1, 2)}


def test_a_worked_out_field_is_refused(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    game = str(_game(tmp_path))
    run = cli("run", game, "Tally", "--with", "items=[{n: 1 + 2, counts: true, who: Ana}]", "--dice", "1")
    assert run.code == 1 and "E0008" in run.stderr and "Traceback" not in run.stderr
    (tmp_path / "game.rules").write_text(GAME.replace("{n: 3,", "{n: 1 + 2,"))
    check = cli("check", str(tmp_path))
    assert check.code == 1 and "E0008" in check.stderr


def test_records_nested_past_the_limit_are_refused_at_the_brace(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    game = str(_game(tmp_path))
    deep = "{a: " * 3000 + "1" + "}" * 3000
    run = cli("run", game, "Tally", "--with", f"items=[{deep}]", "--dice", "1")
    assert run.code == 1 and "--with items:1:" in run.stderr and "E0409" in run.stderr
    (tmp_path / "game.rules").write_text(GAME + f"\nfunction deep() = {deep}\n")
    check = cli("check", str(tmp_path))
    assert check.code == 1 and "E0107 nesting is too deep" in check.stderr and "Traceback" not in check.stderr
