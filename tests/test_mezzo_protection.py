"""Mezzo's Plot Protection, claiming characters, Sealed Resources and No Escape (spec mezzo.md
§3.11, §3.16, A30): rulesets/mezzo/protection.rules, with entity files carried from run to
run as a GM would keep them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from runebook.interpreter.rules import load
from runebook.interpreter.rules.model import RunebookError
from runebook.interpreter.rules.procedures import ScriptedDriver
from mezzo_helpers import saved

EXAMPLES = Path(__file__).resolve().parent.parent / "rulesets" / "mezzo" / "examples"


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load("mezzo")


def entity(rules, path: Path | str):  # type: ignore[no-untyped-def]
    return rules.entity(str(path))


def refused(rules, name: str, **inputs: Any) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as error:
        rules.run(name, **inputs)
    assert error.value.diagnostics[0].code == "E0613"
    return error.value.diagnostics[0].message


def test_a_protected_element_cannot_be_removed_by_narration(rules) -> None:  # type: ignore[no-untyped-def]
    guard = entity(rules, EXAMPLES / "guard.yaml")
    assert "protected_now" in refused(rules, "Remove From Play", against=guard)


def test_protected_event_covers_every_participant(rules) -> None:  # type: ignore[no-untyped-def]
    """§3.12: in a challenge everyone taking part has Plot Protection until they leave."""
    thief = entity(rules, EXAMPLES / "thief.yaml")
    assert rules.run("Remove From Play", against=thief).results == {"removed": True}
    refused(rules, "Remove From Play", against=thief, in_challenge=True)


def test_no_escape_costs_two_momentum_and_lasts_to_the_end_of_the_challenge(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """§3.16: three hooks, leaving in victory: 2 of the thief's 3 momentum, and the guard's
    protection counts for nothing; after the challenge it is back."""
    run = rules.run("No Escape Stake", as_=entity(rules, EXAMPLES / "thief.yaml"),
                    against=entity(rules, EXAMPLES / "guard.yaml"), hooks=3)
    assert run.state["actor"]["resources"]["Momentum"] == 1
    exposed = saved(tmp_path, run.state["target"], "guard")
    assert rules.run("Remove From Play", against=entity(rules, exposed), in_challenge=True).results["removed"]
    after = rules.run("End Challenge", as_=entity(rules, exposed)).state["actor"]
    assert after["conditions"] == ["Protected"]
    refused(rules, "Remove From Play", against=entity(rules, saved(tmp_path, after, "guard-after")))


def test_no_escape_needs_three_hooks_and_two_momentum(rules) -> None:  # type: ignore[no-untyped-def]
    thief, guard = entity(rules, EXAMPLES / "thief.yaml"), entity(rules, EXAMPLES / "guard.yaml")
    assert "hooks >= 3" in refused(rules, "No Escape Stake", as_=thief, against=guard, hooks=2)
    with pytest.raises(RunebookError) as error:
        rules.run("No Escape Stake", as_=guard, against=thief)  # the guard has 1 momentum
    assert error.value.diagnostics[0].code == "E0706"


def test_final_counter_once_per_challenge(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Plot Protection sacrificed: the perks of one major action go, and the owner has no
    protection (nor another sacrifice) until the challenge is resolved."""
    run = rules.run("Final Counter", as_=entity(rules, EXAMPLES / "guard.yaml"), perks=2)
    assert run.results == {"perks_removed": 2}
    spent = entity(rules, saved(tmp_path, run.state["actor"], "guard"))
    assert "Protection Spent" in refused(rules, "Final Counter", as_=spent, perks=1)
    assert rules.run("Remove From Play", against=spent).results["removed"]
    refused(rules, "Heroic Sacrifice", as_=spent, against=entity(rules, EXAMPLES / "thief.yaml"))


@pytest.mark.parametrize(("in_challenge", "loan", "spent"), [(True, "Lent Protection", "Protection Spent"),
                                                         (False, "Lent For Scene", "Protection Spent For Scene")])
def test_heroic_sacrifice_lends_the_protection(rules, tmp_path: Path, in_challenge: bool, loan: str,  # type: ignore[no-untyped-def]
                                               spent: str) -> None:
    """A30: until the end of the challenge, or of the scene outside one (the lender's own
    protection returns at that moment)."""
    run = rules.run("Heroic Sacrifice", as_=entity(rules, EXAMPLES / "guard.yaml"),
                    against=entity(rules, EXAMPLES / "thief.yaml"), in_challenge=in_challenge)
    assert run.state["target"]["conditions"] == [loan]
    assert run.state["actor"]["conditions"] == ["Protected", spent]
    thief = entity(rules, saved(tmp_path, run.state["target"], "thief"))
    refused(rules, "Remove From Play", against=thief)


def test_plot_protection_is_held_once(rules) -> None:  # type: ignore[no-untyped-def]
    refused(rules, "Gain Plot Protection", as_=entity(rules, EXAMPLES / "guard.yaml"))
    run = rules.run("Gain Plot Protection", as_=entity(rules, EXAMPLES / "thief.yaml"))
    assert run.state["actor"]["conditions"] == ["Protected"] and run.results == {"edge_slots": 1}


def test_t25_claiming_a_character(rules) -> None:  # type: ignore[no-untyped-def]
    """T25: the claim's winner has 3 free votes in conflicts about the character; the first
    claim gives it 2 edge slots; it gains Plot Protection if it lacks it."""
    run = rules.run("Claim Character", against=entity(rules, EXAMPLES / "thief.yaml"))
    assert run.results == {"creative_control_votes": 3, "edge_slots": 2}
    assert run.state["target"]["conditions"] == ["Protected"]
    again = rules.run("Claim Character", against=entity(rules, EXAMPLES / "guard.yaml"), first_claim=False)
    assert again.results["edge_slots"] == 0 and again.state["target"]["conditions"] == ["Protected"]
    # Creative Control in the conflict: 3 free votes from the claiming player.
    conflict = rules.run("Conflict", driver=ScriptedDriver(["take_median", "flee", "no_law", "fight", "no_law"]),
                         outcomes=["flee", "fight"], players=2, free_votes=[3, 1])
    assert list(conflict.results["votes"]) == [3, 1]


def test_sealed_resources(rules) -> None:  # type: ignore[no-untyped-def]
    """§3.11: only the claiming player spends a claimed character's adversity."""
    wren = entity(rules, EXAMPLES / "wren.yaml")
    message = refused(rules, "Spend Adversity", as_=wren, option="fortunes_favor", player="bo", claimed_by="ana")
    assert "resources_open_to" in message
    ok = rules.run("Spend Adversity", as_=wren, option="fortunes_favor", player="ana", claimed_by="ana")
    assert ok.results["extra_votes"] == 1
    assert rules.run("Spend Adversity", as_=wren, option="fortunes_favor", player="bo").results["paid"] == 1
