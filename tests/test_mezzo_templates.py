"""Mezzo's flaw templates and modifiers (spec mezzo.md §3.14, A23, A38): rulesets/mezzo/
templates.rules, and Impaired Ability and Vulnerability in `Action`."""

from __future__ import annotations

from pathlib import Path

import pytest

from runebook.interpreter.rules import load
from runebook.interpreter.rules.model import RunebookError
from runebook.interpreter.rules.procedures import ScriptedDriver
from mezzo_helpers import saved

EXAMPLES = Path(__file__).resolve().parent.parent / "rulesets" / "mezzo" / "examples"


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load("mezzo")


def test_dulled_edge_takes_the_extras_first(rules) -> None:  # type: ignore[no-untyped-def]
    """An Ability with Aptitude and Specialty, Aptitude already dulled: only Specialty may be
    picked; with both dulled, the Ability itself."""
    run = rules.run("Dulled Edge", driver=ScriptedDriver(["Specialty"]), edge="Ability",
                    dependents=["Aptitude", "Specialty"], dulled=["Aptitude"])
    assert str(run.results["dulled_trait"]) == "Specialty" and run.results["edge_itself"] is False
    with pytest.raises(RunebookError) as error:
        rules.run("Dulled Edge", driver=ScriptedDriver(["Ability"]), edge="Ability", dependents=["Aptitude"])
    assert error.value.diagnostics[0].code == "E0611"
    last = rules.run("Dulled Edge", driver=ScriptedDriver(["Ability"]), edge="Ability",
                     dependents=["Aptitude"], dulled=["Aptitude"])
    assert last.results["edge_itself"] is True


def test_a_dulled_edge_is_not_dulled_twice(rules) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as error:
        rules.run("Dulled Edge", edge="Ability", dulled=["Ability"])
    assert "listed(dulled, edge)" in error.value.diagnostics[0].message


@pytest.mark.parametrize(("impaired", "vulnerable", "dice"), [(0, 0, ["d8"]), (1, 0, ["d6"]), (2, 1, ["d6"]),
                                                               (0, 2, ["d12"])])
def test_impaired_ability_and_vulnerability_change_the_action(rules, impaired: int, vulnerable: int,  # type: ignore[no-untyped-def]
                                                              dice: list[str]) -> None:
    """Common (2) + 1 vote = 3 (a d8); each Impaired Ability takes a step off, each
    Vulnerability of the target adds a vote."""
    run = rules.run("Action", dice=[1, 1], chance="common", votes=1, impaired=impaired, vulnerable=vulnerable,
                    driver=ScriptedDriver(["compromise"]))
    assert [d.label for d in run.trace.dice()][:-1] == dice


def test_favored_flaw_once_per_challenge_unless_empowering(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """§3.10: Brannock owes 2; his favored flaw used against him pays one off. A second time in
    the same challenge gives nothing (refused); with Empowering Flaw it does."""
    first = rules.run("Favored Flaw", as_=rules.entity(str(EXAMPLES / "brannock.yaml")))
    assert first.results == {"adversity": 0, "debt": 1}
    path = saved(tmp_path, first.state["actor"], "brannock")
    with pytest.raises(RunebookError) as error:
        rules.run("Favored Flaw", as_=rules.entity(path))
    assert "Favored Used" in error.value.diagnostics[0].message
    assert rules.run("Favored Flaw", as_=rules.entity(path), empowering=True).results == {"adversity": 0, "debt": 0}
    after = rules.run("End Challenge", as_=rules.entity(path)).state["actor"]
    assert rules.run("Favored Flaw", as_=rules.entity(saved(tmp_path, after, "later"))).results["debt"] == 0


def test_transient_flaws_grant_favored_flaw_at_the_end_of_a_challenge(rules) -> None:  # type: ignore[no-untyped-def]
    """A23: each Transient Flaw gains a Favored Flaw, but none twice."""
    run = rules.run("Transient Flaws", transient=["Limp", "Shaken"], favored=["Shaken"])
    assert [str(f) for f in run.results["new_favored"]] == ["Limp"]
    assert [str(f) for f in run.results["favored"]] == ["Shaken", "Limp"]


def test_signature_flaw_needs_a_flaw_not_yet_held(rules) -> None:  # type: ignore[no-untyped-def]
    run = rules.run("Signature Flaw", flaw="Hot Temper")
    assert [str(g) for g in run.results["gains"]] == ["Hot Temper", "Favored Flaw", "Empowering Flaw"]
    with pytest.raises(RunebookError) as error:
        rules.run("Signature Flaw", flaw="Hot Temper", flaws_held=["Hot Temper"])
    assert "listed(flaws_held, flaw)" in error.value.diagnostics[0].message


def test_a_treacherous_edge_serves_only_the_opponents(rules) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError):
        rules.run("Use Edge", treacherous=True)
    assert rules.run("Use Edge", treacherous=True, by_owner=False).results == {"against_owner": True}
