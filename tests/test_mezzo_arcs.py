"""Mezzo's Turning Point effects and the end of an arc (spec mezzo.md §3.16-3.17: Arc Theme, End
Game, End Arc) and the seed deck played (§3.21, A48): rulesets/mezzo/conflicts.rules,
building.rules and seeds.rules."""

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


def conflict(rules, answers: list[str], **inputs: Any) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    run = rules.run("Conflict", dice=[], driver=ScriptedDriver(answers), **inputs)
    return {k: list(v) if isinstance(v, tuple) else v for k, v in run.results.items()}


# ---------------------------------------------------------------- Arc Theme and End Game


def test_an_arc_theme_works_as_a_setting_law(rules) -> None:  # type: ignore[no-untyped-def]
    """Turning Point, Arc Theme: one player invokes the theme for `hold`, the other against
    `yield`: 1 + 1 against 2 - 1; Take Median keeps `hold`."""
    result = conflict(rules, ["take_median", "abstain", "theme_supports", "the city endures", "hold",
                              "abstain", "theme_contradicts", "the city endures", "yield"],
                      outcomes=["hold", "yield"], votes=[1, 2], players=2, themes=["the city endures"])
    assert result["votes"] == [2, 1] and result["laws_invoked"] == 2
    assert str(result["winner"]) == "hold"


def test_no_theme_law_before_a_theme_is_set(rules) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as error:
        conflict(rules, ["take_median", "abstain", "theme_supports"], outcomes=["hold", "yield"], players=1)
    assert error.value.diagnostics[0].code == "E0613"
    assert "arc_theme_set" in error.value.diagnostics[0].message


def test_end_game_inertia_may_name_an_unresolved_hook(rules) -> None:  # type: ignore[no-untyped-def]
    """End Game: the Law of Inertia takes a vote from ending the arc, naming an open hook."""
    result = conflict(rules, ["take_median", "abstain", "inertia", "end_arc", "who stole the crown"],
                      outcomes=["end_arc", "go_on"], votes=[3, 1], players=1, facts=["the king died"],
                      unresolved_hooks=["who stole the crown"])
    assert result["votes"] == [2, 1] and str(result["winner"]) == "end_arc"
    # Consistency cannot name the hook: it is offered the facts only.
    with pytest.raises(RunebookError) as error:
        conflict(rules, ["take_median", "abstain", "consistency_supports", "end_arc", "who stole the crown"],
                 outcomes=["end_arc", "go_on"], players=1, facts=["the king died"],
                 unresolved_hooks=["who stole the crown"])
    assert error.value.diagnostics[0].code == "E0611"


def test_the_arc_ends_only_after_the_turning_point(rules) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as error:
        rules.run("Call Arc End", driver=ScriptedDriver([]))
    assert "turning_point_reached" in error.value.diagnostics[0].message
    called = rules.run("Call Arc End", driver=ScriptedDriver(["dispute"]), turning_point_reached=True).results
    assert [str(o) for o in called["dispute_outcomes"]] == ["end_arc", "go_on"] and called["arc_ends"] is False


def test_t16_the_end_of_an_arc(rules) -> None:  # type: ignore[no-untyped-def]
    """§3.17: adversity, debt and momentum are lost, influence is 3 again; a memorable element
    earns an edge slot."""
    brannock = rules.entity(str(EXAMPLES / "brannock.yaml"))  # 2 debt
    run = rules.run("End Arc", as_=brannock, memorable=True)
    kept = run.state["actor"]["resources"]
    assert (kept["Adversity"], kept["Debt"], kept["Momentum"], kept["Influence"]) == (0, 0, 0, 3)
    assert run.results == {"edge_slots": 1}


# ---------------------------------------------------------------- the seed deck


def test_a_seed_deck_session(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Ana draws 2 cards with 2 of her 3 influence, plays one (accepted: active) and links it to
    Bo's active card: each card's first link earns its owner 1 influence."""
    ana = rules.run("Draw Seeds", as_=rules.entity(str(EXAMPLES / "player-ana.yaml")), cards=2)
    assert ana.results == {"hand": 2, "influence": 1}
    played = rules.run("Play Seed", as_=rules.entity(saved(tmp_path, ana.state["actor"], "ana")))
    assert played.results == {"active": 1}
    ana_path = saved(tmp_path, played.state["actor"], "ana")
    linked = rules.run("Link Seeds", as_=rules.entity(ana_path), against=rules.entity(str(EXAMPLES / "player-bo.yaml")))
    assert linked.state["actor"]["resources"]["Influence"] == 2
    assert linked.state["target"]["resources"]["Influence"] == 2
    # Linking to the inspiration card earns only the linker's own card its influence.
    inspired = rules.run("Link Seeds", as_=rules.entity(ana_path), to_inspiration=True)
    assert inspired.results == {"influence": 2}
    # A refused addition depletes the card.
    depleted = rules.run("Play Seed", as_=rules.entity(ana_path), accepted=False)
    assert depleted.state["actor"]["resources"]["Depleted"] == 1


@pytest.mark.parametrize(("inputs", "rule"), [
    ({"own_cards": True}, "sole_card_owner"),
    ({}, 'resource(target, "Active") >= 1'),
])
def test_links_the_book_forbids(rules, inputs: dict[str, bool], rule: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as error:
        rules.run("Link Seeds", as_=rules.entity(str(EXAMPLES / "player-bo.yaml")),
                  against=rules.entity(str(EXAMPLES / "player-ana.yaml")), **inputs)
    assert error.value.diagnostics[0].code == "E0613" and rule in error.value.diagnostics[0].message


def test_drawing_costs_influence(rules) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as error:
        rules.run("Draw Seeds", as_=rules.entity(str(EXAMPLES / "player-bo.yaml")), cards=2)
    assert error.value.diagnostics[0].code == "E0706"


def test_refresh_and_inspiration(rules) -> None:  # type: ignore[no-untyped-def]
    bo = rules.entity(str(EXAMPLES / "player-bo.yaml"))
    assert rules.run("Refresh Hand", as_=bo).results == {"hand": 1, "drawn": 1}
    with pytest.raises(RunebookError):
        rules.run("Refresh Hand", as_=rules.entity(str(EXAMPLES / "player-ana.yaml")))
    assert rules.resolve("Inspiration", one_active=True).results == {"active": True, "replaces_active": True}
    assert rules.resolve("Inspiration", accepted=False).results == {"active": False, "replaces_active": False}
