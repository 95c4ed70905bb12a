"""Mezzo rest and recuperation as entity state (spec mezzo.md §3.15; T11, T17, T22-T24):
rulesets/mezzo/rest.rules, on rulesets/mezzo/examples/hurt-wren.yaml."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from runebook.interpreter.rules import load
from runebook.interpreter.rules.model import RunebookError

EXAMPLES = Path(__file__).resolve().parent.parent / "rulesets" / "mezzo" / "examples"


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load("mezzo")


def after(rules, name: str, path: str = "hurt-wren.yaml", **inputs: Any) -> tuple[dict, dict]:  # type: ignore[no-untyped-def, type-arg]
    run = rules.run(name, as_=rules.entity(str(EXAMPLES / path)), **inputs)
    return dict(run.results), run.to_dict()["state"]["actor"]["resources"]


def test_treating_a_wound_without_extras_leaves_a_passing_flaw(rules) -> None:  # type: ignore[no-untyped-def]
    """Heal on a wound with no extras: its Wound modifier becomes One-Shot (2 wounds -> 1,
    1 fleeting flaw -> 2)."""
    results, resources = after(rules, "Treat Wounds", extras=0)
    assert results["wound_left"] is False
    assert (resources["Wounds"], resources["Fleeting"]) == (1, 2)


def test_t22_a_vicious_wound_needs_a_recovery_check_unless_given_triple_time(rules) -> None:  # type: ignore[no-untyped-def]
    """Three extras, one Vicious: two are removed, the Vicious first; the wound stays."""
    results, resources = after(rules, "Treat Wounds", extras=3, vicious=1, time_taken=2, time_required=1)
    assert results == {"recovery_check": True, "extras_left": 1, "vicious_left": 0, "wound_left": True,
                       "major_actions": 0}
    assert resources["Wounds"] == 2
    rested, _ = after(rules, "Treat Wounds", extras=3, vicious=1, time_taken=3, time_required=1)
    assert rested["recovery_check"] is False


def test_t23_t24_escape_restraints(rules) -> None:  # type: ignore[no-untyped-def]
    """One transient restraint escaped (about 20 seconds: three a minute); in a challenge a
    restorative action costs three major actions."""
    results, resources = after(rules, "Escape Restraints", in_challenge=True)
    assert results == {"major_actions": 3, "seconds": 20}
    assert (resources["Restraints"], resources["Escapable"]) == (1, 0)


def test_only_transient_restraints_can_be_escaped(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bound = tmp_path / "bound.yaml"
    bound.write_text("name: Bound\nresources:\n  Restraints: 2\n  Escapable: 0\n")
    before = bound.read_text()
    out = cli("run", "mezzo", "Escape Restraints", "--as", str(bound))
    assert out.code == 1
    assert "E0613 'Escape Restraints' requires resource(actor, \"Escapable\") >= 1" in out.stderr
    assert bound.read_text() == before


def test_take_breather_clears_a_fleeting_flaw(rules) -> None:  # type: ignore[no-untyped-def]
    _, resources = after(rules, "Take Breather")
    assert resources["Fleeting"] == 0
    with pytest.raises(RunebookError):
        after(rules, "Take Breather", path="brannock.yaml")


@pytest.mark.parametrize(("investments", "lent"), [(0, 1), (1, 2), (2, 3)])
def test_t11_asset_investment_raises_the_gift_capacity(rules, investments: int, lent: int) -> None:  # type: ignore[no-untyped-def]
    """T11: bought twice, the element can lend out up to 3 Empowering Gifts at once."""
    assert rules.resolve("Empowering Gift Capacity", asset_investments=investments).results["lent_at_once"] == lent


@pytest.mark.parametrize(("chance", "dice"), [("occasional", ["d4"]), ("common", ["d6"])])
def test_t17_base_chance_votes(rules, chance: str, dice: list[str]) -> None:  # type: ignore[no-untyped-def]
    """T17: Occasional is 1 vote (a d4), Common 2 (a d6); Negligible (0) needs no check."""
    run = rules.run("Action", dice=[1, 2], chance=chance, failure_chance="occasional")
    assert [d.label for d in run.trace.dice()] == dice + ["d4"]
