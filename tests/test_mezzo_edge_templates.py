"""Mezzo's edge templates at play (spec mezzo.md §3.19, A37, A39, A40): Resistance extras and the
templates of homebrew traits (rulesets/mezzo/building.rules), an Ability's and a Resistance's
extras in `Action` (actions.rules), Attractant and Repellent in `Conflict` (conflicts.rules),
Background, Empowering Gift and the end of a scene (templates.rules). Odds are compared with
an enumeration of the book's dice written here."""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import pytest

from runebook.interpreter.rules import load
from runebook.interpreter.rules.model import RunebookError
from runebook.interpreter.rules.procedures import ScriptedDriver
from mezzo_helpers import action_odds, book_pool, saved

EXAMPLES = Path(__file__).resolve().parent.parent / "rulesets" / "mezzo" / "examples"
CASES = Path(__file__).resolve().parent / "cases" / "mezzo"
BASE = {"negligible": 0, "occasional": 1, "common": 2}


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load("mezzo")


def plain(results: dict[str, Any]) -> dict[str, Any]:
    return {k: v if isinstance(v, (bool, int, Fraction, list)) else str(v) for k, v in results.items()}


def refusal(rules, name: str, **inputs: Any) -> str:  # type: ignore[no-untyped-def]
    """The E0613 message of a run the rules refuse."""
    with pytest.raises(RunebookError) as error:
        rules.run(name, **inputs)
    assert error.value.diagnostics[0].code == "E0613"
    return str(error.value.diagnostics[0].message)


# ---------------------------------------------------------------- building: Resistance extras


@pytest.mark.parametrize(("inputs", "extras", "slots"), [
    ({}, 0, 0), ({"aptitude": 1}, 1, 0), ({"aptitude": 2, "focused": 1}, 3, 2), ({"fortified": 3}, 3, 2),
])
def test_resistance_extras_one_free_then_a_slot_each(rules, inputs: dict[str, int], extras: int,  # type: ignore[no-untyped-def]
                                                     slots: int) -> None:
    found = plain(rules.run("Resistance Extras", **inputs).results)
    assert found == {"extras": extras, "edge_slots": slots, "resist_steps": inputs.get("aptitude", 0)}


def test_a_resistance_has_one_focused_at_most(rules) -> None:  # type: ignore[no-untyped-def]
    assert "focused <= 1" in refusal(rules, "Resistance Extras", focused=2)
    assert "all(" in refusal(rules, "Resistance Extras", fortified=-1)


def test_homebrew_traits_of_every_template_that_keep_the_rules(cli) -> None:  # type: ignore[no-untyped-def]
    """A Resistance (one free extra), an Asset, an Empowering Gift and a Favored Flaw (no free
    extra), an Attractant (no extras): each priced as A37 says."""
    out = cli("check", str(CASES / "templates_kept.rules"))
    assert out.code == 0, out.stderr
    assert "5 entries: no errors" in out.stdout


@pytest.mark.parametrize(("line", "name", "rule"), [
    (7, "Frost Ward", "'Trait Extras' requires foreign_extras_in(extras, template) == 0"),
    (15, "Stone Skin", "'Resistance Extras' requires resisting.focused <= 1"),
    (23, "Iron Nerve", "'Trait Extras' requires foreign_extras_in(extras, template) == 0"),
    (30, "Twin Banner", "'Trait Extras' requires own == 0 or price == own"),
    (38, "Calm Aura", "'Trait Extras' requires foreign_extras_in(extras, template) == 0"),
])
def test_homebrew_traits_that_break_their_template(cli, line: int, name: str, rule: str) -> None:  # type: ignore[no-untyped-def]
    """Forte on a Resistance, two Focused on one, Fortified on an Ability (no Template line),
    a Shared Gift and an Empower Self for one slot, an extra on a Repellent."""
    out = cli("check", str(CASES / "templates_refused.rules"))
    assert out.code == 1
    assert f"templates_refused.rules:{line}:1: E0232 Trait '{name}' is refused by its check 'Trait Extras': {rule}" \
        in out.stderr
    assert "5 errors" in out.stderr + out.stdout
    assert "Traceback" not in out.stderr


def test_the_price_counts_each_template_s_free_extra(cli) -> None:  # type: ignore[no-untyped-def]
    out = cli("check", str(CASES / "templates_refused.rules"))
    assert "help: here own = 2; price = 1" in out.stderr


# ---------------------------------------------------------------- Action: Ability and Resistance extras


@pytest.mark.parametrize(("inputs", "action", "failure"), [
    # Aptitude 2: Occasional rises two steps (3 votes); a Forte against 3 storm votes leaves 1.
    ({"aptitude": 2, "failure_chance": "common", "forte": [3]}, 3, 3),
    # Focused and a Fortified that leaves 2 of 4 votes for the action; the target's Aptitude.
    ({"focused": 1, "fortified": [4], "resist_aptitude": 1}, 4, 2),
    # Two Fortes, each removing two of its own votes (1 and 3: 0 and 1 left); the target's Focused.
    ({"chance": "common", "votes": 1, "forte": [1, 3], "resist_focused": 1}, 3, 3),
])
def test_ability_and_resistance_extras_change_the_votes(rules, inputs: dict[str, Any], action: int,  # type: ignore[no-untyped-def]
                                                        failure: int) -> None:
    odds = rules.odds("Action", **inputs)
    assert odds.residual == 0
    assert {str(k): p for k, p in odds.results["outcome"].items()} == action_odds(action, failure)


def test_the_book_s_rule_for_any_extras(rules) -> None:  # type: ignore[no-untyped-def]
    """Every combination of a few extras gives the dice the book's rule gives: the base chance
    a step up per Aptitude, a vote per Focused, two of each Forte's (Fortified's) votes gone."""
    for aptitude, focused, forte, resist_aptitude, fortified in product([0, 1], [0, 1], [[], [1], [4]], [0, 2],
                                                                       [[], [3]]):
        action = 1 + aptitude + focused + sum(max(v - 2, 0) for v in fortified)
        failure = 1 + resist_aptitude + sum(max(v - 2, 0) for v in forte)
        pools = book_pool(action) + book_pool(failure)
        run = rules.run("Action", dice=[1] * len(pools), aptitude=aptitude, focused=focused, forte=forte,
                        resist_aptitude=resist_aptitude, fortified=fortified, driver=ScriptedDriver(["compromise"]))
        labels = [d.label for d in run.trace.dice()]
        assert labels == [f"d{s}" for s in pools]


def test_aptitude_lifts_a_negligible_chance_into_a_check(rules) -> None:  # type: ignore[no-untyped-def]
    """A8 decides a Negligible chance without dice; one Aptitude step makes it Occasional: d4
    3 against d4 2. The target's Aptitude does the same for a Negligible chance to resist."""
    run = rules.run("Action", dice=[3, 2], chance="negligible", aptitude=1)
    assert plain(run.results) == {"votes_on_scope": 0, "checked": True, "first_outcome": "success",
                                  "outcome": "success"}
    resisted = rules.run("Action", dice=[2, 3], failure_chance="negligible", resist_aptitude=1)
    assert plain(resisted.results)["outcome"] == "failure" and resisted.results["checked"] is True
    assert plain(rules.run("Action", dice=[], chance="negligible").results)["outcome"] == "failure"


def test_aptitude_and_focused_pay_for_scope_perks(rules) -> None:  # type: ignore[no-untyped-def]
    """Occasional (1) + Aptitude (1) + Focused (1) buys Regional Coverage (3), leaving the
    action no dice; without the Focused vote it is refused."""
    run = rules.run("Action", dice=[1], aptitude=1, focused=1, coverage="regional_coverage",
                    driver=ScriptedDriver(["compromise"]))
    assert run.results["votes_on_scope"] == 3
    assert "scope_votes" in refusal(rules, "Action", aptitude=1, coverage="regional_coverage")


@pytest.mark.parametrize(("inputs", "rule"), [
    ({"focused": 1, "resist_focused": 1}, "focused + resist_focused <= 1"),
    ({"focused": 2}, "focused + resist_focused <= 1"),
    ({"phantom": 2}, "phantom <= 1"),
    ({"forte": [2, -1]}, "all("),
    ({"aptitude": -1}, "all("),
])
def test_per_action_limits_are_refused(rules, inputs: dict[str, Any], rule: str) -> None:  # type: ignore[no-untyped-def]
    """One Focused extra in an action (either side), one Phantom Edge, no counts below 0."""
    assert rule in refusal(rules, "Action", dice=[1, 1], **inputs)


def test_the_extras_cli(cli) -> None:  # type: ignore[no-untyped-def]
    out = cli("run", "mezzo", "Action", "--with", "aptitude=1", "--with", "forte=3", "--with", "focused=1",
              "--dice", "7,5")
    assert out.code == 0, out.stderr
    assert "outcome: success" in out.stdout
    # 3 votes are a d8 (a 9 is refused), the failure's 1 + 1 a d6.
    beyond = cli("run", "mezzo", "Action", "--with", "aptitude=1", "--with", "forte=3", "--with", "focused=1",
                 "--dice", "9,5")
    assert beyond.code == 1 and "d8" in beyond.stderr


# ---------------------------------------------------------------- Conflict: Attractant and Repellent


def test_attractants_and_repellents_vote_on_presence(rules) -> None:  # type: ignore[no-untyped-def]
    """Two attractants and a repellent: ghosts 1 + 2 - 1 = 2 (a d6 showing 5), none 1 (a d4
    showing 3)."""
    run = rules.run("Conflict", dice=[5, 3], driver=ScriptedDriver(["leave_to_chance"]),
                    outcomes=["ghosts", "no_ghosts"], votes=[1, 1], present="ghosts",
                    attracting=["ana", "bo"], repelling=["cy"])
    assert list(run.results["votes"]) == [2, 1]
    assert str(run.results["winner"]) == "ghosts"
    assert [d.label for d in run.trace.dice()] == ["d6", "d4"]


def test_a_repellent_is_a_vote_against_presence(rules) -> None:  # type: ignore[no-untyped-def]
    """Rats 2 - 1 against none 2: the odds of step dice 1 against 2 (a tie rolled off evenly)."""
    odds = rules.odds("Conflict", answers={"approach": "leave_to_chance"}, outcomes=["rats", "no_rats"],
                      votes=[2, 2], present="rats", repelling=["ana"])
    assert odds.residual == 0
    expected = action_odds(1, 2)
    assert {str(k): p for k, p in odds.results["winner"].items()} == {"rats": expected["success"],
                                                                      "no_rats": expected["failure"]}


def test_attractant_and_repellent_refusals(rules) -> None:  # type: ignore[no-untyped-def]
    """One owner with both for the same element; votes for an option the conflict lacks."""
    assert "attracts_or_repels" in refusal(rules, "Conflict", outcomes=["ghosts", "no_ghosts"], present="ghosts",
                                           attracting=["ana"], repelling=["ana"])
    assert "listed(outcomes, present)" in refusal(rules, "Conflict", outcomes=["ghosts", "no_ghosts"], present="ghost",
                                                  attracting=["ana"])
    assert "listed(repellents, element)" in refusal(rules, "Gain Attractant", element="ghosts",
                                                    repellents=["rats", "ghosts"])
    assert "listed(attractants, element)" in refusal(rules, "Gain Repellent", element="rats", attractants=["rats"])
    assert rules.run("Gain Attractant", element="ghosts", repellents=["rats"]).results["presence_votes"] == 1
    assert rules.run("Gain Repellent", element="ghosts", attractants=["rats"]).results["presence_votes"] == -1


# ---------------------------------------------------------------- Background and the end of a scene


def test_background_buys_a_phantom_edge_for_the_scene(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Wren's one point of adversity buys a temporary trait; the end of the scene takes it."""
    run = rules.run("Use Background", as_=rules.entity(str(EXAMPLES / "wren.yaml")), trait="Lockpicking")
    assert run.results == {"adversity": 0}
    assert run.state["actor"]["conditions"] == ['Phantom("Lockpicking")']
    path = saved(tmp_path, run.state["actor"], "wren")
    ended = rules.run("End Scene", as_=rules.entity(path))
    assert ended.state["actor"]["conditions"] == []


def test_background_needs_a_point_of_adversity(cli) -> None:  # type: ignore[no-untyped-def]
    before = (EXAMPLES / "brannock.yaml").read_bytes()
    out = cli("run", "mezzo", "Use Background", "--with", "trait=Lockpicking", "--as", str(EXAMPLES / "brannock.yaml"))
    assert out.code == 1
    assert "E0613 'Use Background' requires resource(actor, \"Adversity\") >= 1" in out.stderr
    assert (EXAMPLES / "brannock.yaml").read_bytes() == before


def test_the_end_of_a_scene_ends_what_lasts_a_scene(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A Favored Flaw triggered outside a challenge may trigger again after the scene."""
    used = rules.run("Favored Flaw", as_=rules.entity(str(EXAMPLES / "wren.yaml")), in_challenge=False)
    path = saved(tmp_path, used.state["actor"], "wren")
    with pytest.raises(RunebookError):
        rules.run("Favored Flaw", as_=rules.entity(path), in_challenge=False)
    ended = saved(tmp_path, rules.run("End Scene", as_=rules.entity(path)).state["actor"], "wren")
    assert rules.run("Favored Flaw", as_=rules.entity(ended), in_challenge=False).results["adversity"] == 3


# ---------------------------------------------------------------- Empowering Gift


@pytest.mark.parametrize(("inputs", "found"), [
    ({"targets": ["ana"]}, {"lent": 1, "lent_at_once": 1, "most_targets": 1, "contact_needed": True}),
    ({"targets": ["ana", "bo", "cy"], "shared_gifts": 2, "lingering": True},
     {"lent": 1, "lent_at_once": 1, "most_targets": 4, "contact_needed": False}),
    ({"targets": ["ana"], "lent": 2, "asset_investments": 2},
     {"lent": 3, "lent_at_once": 3, "most_targets": 1, "contact_needed": True}),
    ({"targets": ["sword"], "owner": "sword", "empower_self": True},
     {"lent": 1, "lent_at_once": 1, "most_targets": 1, "contact_needed": True}),
])
def test_lending_a_gift(rules, inputs: dict[str, Any], found: dict[str, Any]) -> None:  # type: ignore[no-untyped-def]
    """One gift at a time and one more per Asset Investment (A40, with `Empowering Gift
    Capacity`); 2^n targets with n Shared Gifts; Lingering Gift needs no contact."""
    assert rules.run("Lend Gift", **inputs).results == found
    assert found["lent_at_once"] == rules.resolve("Empowering Gift Capacity",
                                                  asset_investments=inputs.get("asset_investments", 0)).results[
        "lent_at_once"]
    assert found["most_targets"] == rules.resolve("Shared Gift", purchases=inputs.get("shared_gifts", 0)).results[
        "targets"]


@pytest.mark.parametrize(("inputs", "rule"), [
    ({"targets": ["ana"], "lent": 1}, "lent < gifts_lent_at_once(asset_investments)"),
    ({"targets": ["ana", "bo"]}, "count(targets) <= product_of_twos(shared_gifts)"),
    ({"targets": ["ana", "bo", "cy"], "shared_gifts": 1}, "count(targets) <= product_of_twos(shared_gifts)"),
    ({"targets": ["sword"], "owner": "sword"}, "empower_self or not listed(targets, owner)"),
])
def test_a_gift_beyond_its_limits_is_refused(rules, inputs: dict[str, Any], rule: str) -> None:  # type: ignore[no-untyped-def]
    assert rule in refusal(rules, "Lend Gift", **inputs)
