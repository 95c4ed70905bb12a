"""``has_stat(entity, "Stat")``: whether a character's sheet gives a stat, so that a procedure
can tell sheets of different shapes apart (a hero's from the troupe's in the d10 pool, where
the troupe's sheet alone gives `Players`).

Before it, the d10 pool took "the last --as" as the troupe: `Complex Action` with only a hero's
sheet stopped on the first failed interval (E0207 unknown name 'Players', from the Momentum
cap read on the hero), and a `Roll` with two heroes' sheets took the second hero for the troupe.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.rules.procedures import ScriptedDriver
from d10pool_helpers import sheet


GAME = """\
stats
  Might, Players

procedure Shape (stat: text = "Might")
  result has = has_stat(actor, stat)
  result mine = [has_stat(a, "players") for a in actors]
"""


@pytest.fixture(scope="module")
def d10():  # type: ignore[no-untyped-def]
    return interpreter.load("d10-pool")


def test_has_stat_reads_the_sheet_in_any_case(tmp_path: Path) -> None:
    game = tmp_path / "shape.rules"
    game.write_text(GAME)
    hero = tmp_path / "hero.yaml"
    hero.write_text("name: Hero\nstats:\n  Might: 2\n")
    table = tmp_path / "table.yaml"
    table.write_text("name: Table\nstats:\n  Players: 3\n")
    rules = interpreter.load(str(game))
    run = rules.run("Shape", as_=[rules.entity(str(hero)), rules.entity(str(table))])
    assert run.results == {"has": True, "mine": (False, True)}
    assert rules.run("Shape", as_=rules.entity(str(hero)), stat="MIGHT").results["has"] is True
    assert rules.run("Shape", as_=rules.entity(str(hero)), stat="Players").results["has"] is False
    # Not a stat: the sheet's name is read by `'s name`, but it is not one of its stats.
    assert rules.run("Shape", as_=rules.entity(str(hero)), stat="name").results["has"] is False


def test_has_stat_is_checked_like_the_other_queries(tmp_path: Path) -> None:
    game = tmp_path / "bad.rules"
    game.write_text("procedure P (n: number = 1)\n  result r = has_stat(n)\n")
    with pytest.raises(RunebookError) as refused:
        interpreter.load(str(game))
    assert refused.value.diagnostics[0].code.startswith("E0")


def test_complex_action_with_a_heros_sheet_only_has_no_troupe(d10) -> None:  # type: ignore[no-untyped-def]
    """A failed interval gives its Momentum to the troupe; with no troupe's sheet there is none
    to give it to (it was E0207 on the hero's sheet)."""
    run = d10.run("Complex Action", as_=sheet(d10, "ayla"), pool=3, difficulty=3, interval_limit=1,
                  dice=[1, 2, 3])
    assert run.results["outcome"].name == "failure"
    assert run.results["intervals"] == 1


def test_complex_action_finds_the_troupe_after_a_hero(d10) -> None:  # type: ignore[no-untyped-def]
    run = d10.run("Complex Action", as_=[sheet(d10, "ayla"), sheet(d10, "troupe")], pool=3, difficulty=3,
                  interval_limit=1, dice=[1, 2, 3], answers={"extend": "give_up"})
    # A Botch (no success, a 1): 3 Momentum, on the troupe's 3.
    assert run.state["actors"][1]["resources"]["Momentum"] == 6


def test_roll_with_two_heroes_takes_no_troupe(d10) -> None:  # type: ignore[no-untyped-def]
    """Two heroes and no troupe: the second hero is not the Momentum pool (a failed roll's
    consolation was paid onto Bram's sheet, which has no Players: E0207)."""
    run = d10.run("Roll", as_=[sheet(d10, "ayla"), sheet(d10, "bram")], attribute="Dexterity", skill="Athletics",
                  difficulty=3, dice=[1, 2, 3, 4, 5, 6, 7], driver=ScriptedDriver(["Momentum"]))
    assert run.results["momentum"] is None


def test_gain_momentum_asks_for_the_troupes_sheet(d10) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as refused:
        d10.run("Gain Momentum", as_=sheet(d10, "ayla"))
    (problem,) = refused.value.diagnostics
    assert problem.code == "E0613"
    assert "troupe_sheet_given" in problem.message
