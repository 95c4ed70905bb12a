"""Mezzo trait building, boons, plot hooks, arcs and the seed deck (spec mezzo.md §3.13,
§3.16-3.19, §3.21; worked examples T05-T07, T10, T12, T16, T19-T21): rulesets/mezzo/building.rules."""

from __future__ import annotations

from typing import Any

import pytest

from runebook.interpreter.rules import load
from runebook.interpreter.rules.model import RunebookError


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load("mezzo")


def results(rules, name: str, **inputs: Any) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    found = rules.run(name, **inputs).results
    return {k: v if isinstance(v, (int, list, tuple)) or v is None else str(v) for k, v in found.items()}


@pytest.mark.parametrize(("momentum", "uses"), [(1, 1), (2, 3), (3, 5), (4, 7), (5, 9)])
def test_t05_t06_one_shot_boons(rules, momentum: int, uses: int) -> None:  # type: ignore[no-untyped-def]
    """One use for 1 momentum, two more for each further point (2 -> 3, 3 -> 5)."""
    assert results(rules, "Boon Price", momentum=momentum)["uses"] == uses


def test_t07_one_challenge_and_one_arc_boons(rules) -> None:  # type: ignore[no-untyped-def]
    assert results(rules, "Boon Price", boon="one_challenge", momentum=3)["lasts"] == "one_challenge"
    assert results(rules, "Boon Price", boon="one_arc", momentum=5)["lasts"] == "one_arc"
    with pytest.raises(RunebookError):
        rules.run("Boon Price", boon="one_arc", momentum=4)


def test_t10_edge_slots_in_a_first_arc(rules) -> None:  # type: ignore[no-untyped-def]
    """First action check 4, first challenge 4, first claim 2: 10; a memorable arc adds 1."""
    assert results(rules, "Edge Slots", action_checks=3, challenges=1, claims=1)["slots"] == 10
    assert results(rules, "Edge Slots", action_checks=1, challenges=2, claims=1, memorable_arcs=1)["slots"] == 11


def test_t12_resolving_a_hook_hands_points_round_robin(rules) -> None:  # type: ignore[no-untyped-def]
    given = results(rules, "Resolve Hook", stored=7, targets=["a", "b", "c"])["given"]
    assert list(given) == [3, 2, 2]
    assert max(given) - min(given) <= 1


@pytest.mark.parametrize(("payment", "after", "cost"), [
    ("pay_influence", False, 1), ("pay_momentum", False, 1), ("pay_adversity", False, 2), ("pay_adversity", True, 4),
    ("pay_influence", True, 2),
])
def test_t19_a44_plot_hook_costs(rules, payment: str, after: bool, cost: int) -> None:  # type: ignore[no-untyped-def]
    assert results(rules, "Plot Hook Cost", payment=payment, after_turning_point=after)["cost"] == cost


@pytest.mark.parametrize(("hooks", "option"), [(1, "single_hook"), (2, "raise_stakes"), (3, "no_escape"),
                                               (4, "no_escape"), (5, "turning_point_option"), (8, "turning_point_option")])
def test_t20_multi_hook_thresholds(rules, hooks: int, option: str) -> None:  # type: ignore[no-untyped-def]
    assert results(rules, "Triggered Hooks", hooks=hooks)["best_option"] == option


def test_turning_point_restrictions(rules) -> None:  # type: ignore[no-untyped-def]
    assert results(rules, "Turning Point Check", hooks=5, resources=3, challengers=3)["adversity_boost"] == 3
    for bad in ({"resources": 2}, {"used_this_arc": True}, {"in_challenge": False}, {"hooks": 4}):
        with pytest.raises(RunebookError):
            rules.run("Turning Point Check", **({"hooks": 5, "resources": 3, "challengers": 3} | bad))


def test_t16_t21_new_arc_and_seed_deck(rules) -> None:  # type: ignore[no-untyped-def]
    assert results(rules, "New Arc", players=4) == {"influence": 3, "smallest_deck": 12}
    assert results(rules, "New Arc", players=2, cards_drawn=2)["influence"] == 1


def test_ability_extras_prices(rules) -> None:  # type: ignore[no-untyped-def]
    """The first extra is free, each further one an edge slot; Specialty with two others."""
    assert results(rules, "Ability Extras", aptitude=2, specialty=1) == {"extras": 3, "edge_slots": 2,
                                                                          "aptitude_steps": 2}
    assert results(rules, "Ability Extras", focused=1)["edge_slots"] == 0


@pytest.mark.parametrize(("inputs", "rule"), [
    ({"specialty": 1, "aptitude": 1}, "specialty == 0"),
    ({"cross_training": 1, "aptitude": 2}, "cross_training == 0"),
    ({"extraordinary": 1}, "extraordinary == 0"),
    ({"focused": 2}, "focused <= 1"),
])
def test_an_extra_without_its_prerequisite_is_refused(cli, inputs: dict[str, int], rule: str) -> None:  # type: ignore[no-untyped-def]
    out = cli("run", "mezzo", "Ability Extras", *[a for k, v in inputs.items() for a in ("--with", f"{k}={v}")])
    assert out.code == 1
    assert "E0613 'Ability Extras' requires " + rule in out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize(("purchases", "targets"), [(0, 1), (1, 2), (2, 4), (3, 8)])
def test_shared_gift_doubles_the_targets(rules, purchases: int, targets: int) -> None:  # type: ignore[no-untyped-def]
    assert results(rules, "Shared Gift", purchases=purchases)["targets"] == targets


def test_a45_raise_stakes_conversion(rules) -> None:  # type: ignore[no-untyped-def]
    """1 influence -> 1 momentum, 2 adversity -> 1 momentum (the odd point stays), momentum as it is."""
    found = rules.resolve("Stake Raise", hooks=3, influence=1, momentum=2, adversity=3).results
    assert (found["stake_momentum"], found["adversity_left"]) == (4, 1)
    with pytest.raises(RunebookError):
        rules.resolve("Stake Raise", hooks=1, influence=1)


@pytest.mark.parametrize(("reward", "after", "points"), [
    ("pay_influence", False, 1), ("pay_momentum", False, 1), ("pay_adversity", False, 2),
    ("pay_momentum", True, 2), ("pay_adversity", True, 4),
])
def test_a44_resolving_a_hook_rewards_its_user(rules, reward: str, after: bool, points: int) -> None:  # type: ignore[no-untyped-def]
    """§3.16: resolving a hook gives its user 1 influence, 1 momentum or 2 adversity; after the
    Turning Point (Resolution) twice that. The stored points are handed out apart (T12)."""
    found = results(rules, "Resolve Hook", stored=2, targets=["a", "b"], reward=reward, after_turning_point=after)
    assert found["reward_points"] == points and found["reward"] == reward
    assert list(found["given"]) == [1, 1]
