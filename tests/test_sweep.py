"""Sweeps (`odds GAME NAME --vary ...`, `sweep(...)`): every point equals its single exact
computation, on one process or several."""

from __future__ import annotations

import csv
import io
import json
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest

from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.rules import load
from runebook.interpreter.rules.sweep import Sweep, parse_vary, sweep

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


# ---------------------------------------------------------------- on a Dask cluster


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """A two-worker Dask cluster in this process (threads, no new processes: quick)."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        yield cluster.scheduler_address


def _plain(found: Sweep) -> dict[tuple[object, ...], dict[str, dict[object, Fraction]]]:
    return {k: {r: dict(d.items()) for r, d in v.items()} for k, v in found.points.items()}


def test_a_sweep_on_a_dask_cluster_equals_single_computations(game: Path, scheduler: str) -> None:
    found = sweep(str(game), "Strike", {"skill": range(0, 4), "armour": [2, 3]}, scheduler=scheduler)
    assert list(found.points) == [(s, a) for s in range(0, 4) for a in (2, 3)]  # the grid's order, kept
    rules = load(str(game))
    for (skill, armour), results in found.points.items():
        single = rules.odds("Strike", skill=skill, armour=armour)
        assert dict(results["damage"].items()) == dict(single.results["damage"].items())
        assert results["outcome"].get(1, Fraction(0)) == _hit_chance(skill, armour)
    contest = sweep("questworlds", "scored contest", {"ability": [13, 17]}, inputs={"resistance": "14"},
                    scheduler=scheduler)
    questworlds = load("questworlds")
    for (ability,), results in contest.points.items():
        single = questworlds.odds("scored contest", ability=str(ability), resistance="14")
        assert dict(results["winner"].items()) == dict(single.results["winner"].items())


def test_the_command_line_on_a_dask_scheduler(game: Path, scheduler: str, cli) -> None:  # type: ignore[no-untyped-def]
    args = ("odds", str(game), "Strike", "--vary", "skill=0..3", "--vary", "armour=2,3", "--format", "csv")
    here = cli(*args, "--workers", "1")
    there = cli(*args, "--scheduler", scheduler)
    assert there.code == 0, there.stderr
    assert there.stdout == here.stdout and len(there.stdout.splitlines()) == 9
    both = cli(*args, "--scheduler", scheduler, "--workers", "2")
    assert both.code == 2 and "--workers" in both.stderr
    assert cli("odds", "2d6", "--scheduler", scheduler).code == 2


def test_without_dask_a_scheduler_is_a_usage_error(game: Path, cli, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` fails as when not installed
    run = cli("odds", str(game), "Strike", "--vary", "skill=0..3", "--scheduler", "tcp://127.0.0.1:8786")
    assert run.code == 2
    assert "pip install 'runebook[dask]'" in run.stderr and "Traceback" not in run.stderr
    assert run.stdout == ""
    with pytest.raises(ImportError, match=r"runebook\[dask\]"):
        sweep(str(game), "Strike", {"skill": [1]}, scheduler="tcp://127.0.0.1:8786")


def test_an_unknown_scheduler_address_is_a_usage_error(game: Path, cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("odds", str(game), "Strike", "--vary", "skill=0..3", "--scheduler", "nowhere://scheduler")
    assert run.code == 2 and "cannot reach the Dask scheduler at nowhere://scheduler" in run.stderr
