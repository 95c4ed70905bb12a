"""Sweeps (`odds GAME NAME --vary ...`, `sweep(...)`): every point equals its single exact
computation, on one process or several."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from fractions import Fraction
from pathlib import Path

import pytest

from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.rules import load
from runebook.interpreter.rules.sweep import parse_vary, sweep

GAME = """\
check Strike (skill: number = 2, armour: number = 3)
  roll d = 1d6
  let hit = sum(d) + skill > armour + 2
  result outcome = 1 if hit else 0
  result damage = sum(d) + skill - armour if hit else 0
"""


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sweep")
    (folder / "g.rules").write_text(GAME, encoding="utf-8")
    return folder


def _hit_chance(skill: int, armour: int) -> Fraction:
    return Fraction(sum(1 for face in range(1, 7) if face + skill > armour + 2), 6)


def test_each_point_equals_its_single_computation(game: Path) -> None:
    found = sweep(str(game), "Strike", {"skill": range(0, 4), "armour": [2, 3]}, workers=2)
    assert len(found.points) == 8
    rules = load(str(game))
    for (skill, armour), results in found.points.items():
        single = rules.odds("Strike", skill=skill, armour=armour)
        assert dict(results["damage"].items()) == dict(single.results["damage"].items())
        assert results["outcome"].get(1, Fraction(0)) == _hit_chance(skill, armour)
    alone = sweep(str(game), "Strike", {"skill": range(0, 4), "armour": [2, 3]}, workers=1)
    assert {k: {r: dict(d.items()) for r, d in v.items()} for k, v in alone.points.items()} == \
           {k: {r: dict(d.items()) for r, d in v.items()} for k, v in found.points.items()}


def test_a_procedure_sweep_matches_single_odds() -> None:
    found = sweep("questworlds", "scored contest", {"ability": [13, 15]}, inputs={"resistance": "14"}, workers=2)
    rules = load("questworlds")
    for (ability,), results in found.points.items():
        single = rules.odds("scored contest", ability=str(ability), resistance="14")
        assert dict(results["winner"].items()) == dict(single.results["winner"].items())


def test_the_command_line_table_csv_json_and_chart(game: Path, cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run = cli("odds", str(game), "Strike", "--vary", "skill=0..3", "--with", "armour=3", "--result", "outcome")
    assert run.code == 0, run.stderr
    rows = [line.split() for line in run.stdout.splitlines()[2:]]
    assert [r[0] for r in rows] == ["0", "1", "2", "3"]
    for skill, row in zip(range(4), rows):
        assert row[-1] == f"{float(_hit_chance(skill, 3)):.3f}"  # the mean of a 0 or 1 outcome
    table = list(csv.DictReader(io.StringIO(cli("odds", str(game), "Strike", "--vary", "skill=0..3",
                                                "--vary", "armour=2,3", "--format", "csv").stdout)))
    assert len(table) == 8
    assert all(Fraction(r["outcome mean"]) == _hit_chance(int(r["skill"]), int(r["armour"])) for r in table)
    data = json.loads(cli("odds", str(game), "Strike", "--vary", "skill=1..2", "--json").stdout)
    assert data["axes"] == [{"input": "skill", "values": ["1", "2"]}]
    chart = tmp_path / "heat.svg"
    drawn = cli("odds", str(game), "Strike", "--vary", "skill=0..3", "--vary", "armour=2..3", "--chart", "svg",
                str(chart))
    assert drawn.code == 0, drawn.stderr
    cells = [r for r in ET.fromstring(chart.read_text(encoding="utf-8")).iter("{http://www.w3.org/2000/svg}rect")
             if r.find("{http://www.w3.org/2000/svg}title") is not None]
    assert len(cells) == 8


def test_what_a_sweep_refuses(game: Path, cli) -> None:  # type: ignore[no-untyped-def]
    assert parse_vary("ability=5..25..5") == ("ability", (5, 10, 15, 20, 25))
    assert parse_vary("ability=5M,10") == ("ability", ("5M", "10"))
    for bad in ("ability", "ability=a..b", "ability=1..5..0"):
        with pytest.raises(RunebookError):
            parse_vary(bad)
    with pytest.raises(RunebookError):
        parse_vary("ability=1..100000")
    wrong = cli("odds", str(game), "Strike", "--vary", "skill=1..2", "--result", "damag")
    assert wrong.code == 1 and "did you mean 'damage'?" in wrong.stderr
    assert cli("odds", "2d6", "--vary", "skill=1..2").code == 2
