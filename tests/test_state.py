"""Resources, conditions and their stacking; entity state changes only when a run succeeds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError

GAME = Path(__file__).resolve().parent / "cases" / "state"


@pytest.fixture
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load(str(GAME))


@pytest.mark.parametrize("policy, guard", [("sum", 12), ("highest", 15), ("extremes", 13), ("by_type", 13)])
def test_stacking_policies(rules, policy: str, guard: int) -> None:  # type: ignore[no-untyped-def]
    # Defense 12 under Dazed (-2, mental), Cursed (-1, magic) and Shielded (+3, magic).
    hero, foe = rules.entity(str(GAME / "hero.yaml")), rules.entity(str(GAME / "foe.yaml"))
    result = rules.run("turn", as_=hero, against=foe, options={"stacking": policy})
    assert result.results["guard_now"] == guard


def test_spending_and_applying_change_the_state(rules) -> None:  # type: ignore[no-untyped-def]
    hero, foe = rules.entity(str(GAME / "hero.yaml")), rules.entity(str(GAME / "foe.yaml"))
    result = rules.run("turn", as_=hero, against=foe)
    assert result.state["actor"]["resources"] == {"CP": 1}
    assert result.state["target"]["conditions"] == ["Dazed", "Cursed", "Shielded"]  # Dazed once, not twice
    assert result.state["target"]["resources"] == {"CP": 6}  # an unlisted resource starts at its start
    assert hero.resources == {"CP": 3} and foe.conditions == ["Dazed"]  # the loaded entities are untouched


def test_a_cost_that_cannot_be_paid_changes_nothing(rules, cli) -> None:  # type: ignore[no-untyped-def]
    hero = rules.entity(str(GAME / "hero.yaml"))
    with pytest.raises(RunebookError) as error:
        rules.run("turn", as_=hero, against=rules.entity(str(GAME / "foe.yaml")), cost=4)
    assert [d.code for d in error.value.diagnostics] == ["E0706"]
    assert "Hero cannot pay 4 CP: it has 3" in str(error.value)
    assert hero.resources == {"CP": 3}
    run = cli("run", str(GAME), "turn", "--as", str(GAME / "hero.yaml"), "--against", str(GAME / "foe.yaml"),
              "--with", "cost=4")
    assert run.code == 1 and "E0706" in run.stderr and run.stdout == ""


def test_run_json_reports_every_entity(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", str(GAME), "turn", "--as", str(GAME / "hero.yaml"), "--against", str(GAME / "foe.yaml"),
              "--json")
    payload = json.loads(run.stdout)
    assert set(payload) >= {"results", "state", "trace"}
    assert payload["state"]["actor"] == {"name": "Hero", "stats": {"Will": 2}, "resources": {"CP": 1},
                                         "conditions": []}


def test_reset_refills_and_ends_conditions(tmp_path: Path) -> None:
    (tmp_path / "g.rules").write_text(
        "resource CP (cap = 6, start = 4, reset = turn)\n\n"
        "condition Dazed (lasts = turn)\n  modifier Defense = -2\n\n"
        "procedure Next Turn ()\n  spend CP 3\n  apply Dazed\n  result before = has(actor, Dazed)\n"
        "  reset turn\n  result after = has(actor, Dazed)\n  result cp = resource(actor, CP)\n"
    )
    (tmp_path / "a.yaml").write_text("name: A\n")
    rules = interpreter.load(str(tmp_path))
    result = rules.run("next turn", as_=rules.entity(str(tmp_path / "a.yaml")))
    assert result.results == {"before": True, "after": False, "cp": 4}


def test_entity_files_name_only_declared_resources_and_conditions(cli) -> None:  # type: ignore[no-untyped-def]
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "x.yaml"
        path.write_text("name: X\nresources:\n  CPP: 2\nconditions: [Dazzled]\n")
        run = cli("run", str(GAME), "turn", "--as", str(path))
    assert run.code == 1
    assert "x.yaml:3:3: E0705 unknown resource 'CPP'" in run.stderr and "did you mean 'CP'?" in run.stderr
    assert "E0705 unknown condition 'Dazzled'" in run.stderr and "did you mean 'Dazed'?" in run.stderr


def test_check_reports_unknown_resources_in_procedures(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "g.rules").write_text("resource CP (cap = 3)\n\nprocedure P ()\n  spend CPP 1\n")
    run = cli("check", str(tmp_path))
    assert run.code == 1 and "E0705 unknown resource 'CPP'" in run.stderr and "did you mean 'CP'?" in run.stderr


def test_derived_values_are_computed_from_each_entity(tmp_path: Path) -> None:
    (tmp_path / "g.rules").write_text(
        "stats Speed, Will\nderive Initiative = Speed + Will\n\n"
        "check Race ()\n  roll die = 1d6\n  result first = die + Initiative > target's Initiative\n"
    )
    (tmp_path / "a.yaml").write_text("name: A\nstats:\n  Speed: 2\n  Will: 1\n")
    (tmp_path / "b.yaml").write_text("name: B\nstats:\n  Speed: 4\n  Will: 3\n")
    rules = interpreter.load(str(tmp_path))
    a, b = rules.entity(str(tmp_path / "a.yaml")), rules.entity(str(tmp_path / "b.yaml"))
    assert rules.resolve("race", dice=[5], as_=a, against=b).results == {"first": True}   # 5+3 > 7
    assert rules.resolve("race", dice=[4], as_=a, against=b).results == {"first": False}  # 4+3 > 7 is false
