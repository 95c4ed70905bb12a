"""Mezzo plot hooks played on a hook's own points (spec mezzo.md §3.16, A47): Invest, Tap and
the Turning Point's Adversity Boost in rulesets/mezzo/building.rules. A hook is an entity
holding HookInfluence, HookMomentum and HookAdversity; the user is the actor. Each expected
state is worked out in the docstring from the book's rules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from runebook.interpreter.rules import load
from runebook.interpreter.rules.model import RunebookError
from mezzo_helpers import saved

EXAMPLES = Path(__file__).resolve().parent.parent / "rulesets" / "mezzo" / "examples"


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load("mezzo")


def entity(rules, name: str):  # type: ignore[no-untyped-def]
    return rules.entity(str(EXAMPLES / f"{name}.yaml"))


def points(state: dict[str, Any], who: str, *names: str) -> tuple[int, ...]:
    held = state[who]["resources"]
    return tuple(held.get(n, 0) for n in names)


def refused(rules, name: str, rule: str, **kwargs: Any) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as error:
        rules.run(name, **kwargs)
    assert "E0613" in str(error.value) and rule in str(error.value)


def test_invested_momentum_outlasts_the_challenge(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Invest: the thief (3 momentum) stores 2 in the Missing Heir hook (no momentum yet): he
    keeps 1, the hook holds 2. At the end of the challenge the thief's last point is lost, but
    momentum invested in a hook is not: the hook still holds 2."""
    run = rules.run("Invest In Hook", as_=entity(rules, "thief"), against=entity(rules, "hook-heir"),
                    kind="stored_momentum", points=2)
    state = run.to_dict()["state"]
    assert points(state, "actor", "Momentum") == (1,)
    assert points(state, "target", "HookInfluence", "HookMomentum", "HookAdversity") == (1, 2, 1)
    thief = rules.entity(saved(tmp_path, state["actor"], "thief"))
    hook = rules.entity(saved(tmp_path, state["target"], "hook"))
    assert points(rules.run("End Challenge", as_=thief).to_dict()["state"], "actor", "Momentum") == (0,)
    assert points(rules.run("End Challenge", as_=hook).to_dict()["state"], "actor", "HookMomentum") == (2,)
    # Hooks expire with their arc, and what they hold with them (A47).
    ended = rules.run("End Arc", as_=hook).to_dict()["state"]
    assert points(ended, "actor", "HookInfluence", "HookMomentum", "HookAdversity") == (0, 0, 0)


def test_tapping_adversity_first_pays_off_debt(rules) -> None:  # type: ignore[no-untyped-def]
    """Tap: Brannock (no adversity, 2 debt) draws the hook's 1 adversity: a point gained first
    pays off a point of debt (§3.10), so he has 0 adversity and owes 1; the hook has none left.
    Wren (1 adversity, no debt) drawing the same point ends with 2."""
    state = rules.run("Tap Hook", as_=entity(rules, "brannock"), against=entity(rules, "hook-heir"),
                      kind="stored_adversity").to_dict()["state"]
    assert points(state, "actor", "Adversity", "Debt") == (0, 1)
    assert points(state, "target", "HookAdversity", "HookInfluence") == (0, 1)
    state = rules.run("Tap Hook", as_=entity(rules, "wren"), against=entity(rules, "hook-heir"),
                      kind="stored_adversity").to_dict()["state"]
    assert points(state, "actor", "Adversity", "Debt") == (2, 0)


def test_tapping_influence_draws_one_point(rules) -> None:  # type: ignore[no-untyped-def]
    """Tap: Ana (3 influence) draws the hook's 1 influence: 4; one point only, whatever the
    hook holds."""
    state = rules.run("Tap Hook", as_=entity(rules, "player-ana"), against=entity(rules, "hook-heir"),
                      kind="stored_influence").to_dict()["state"]
    assert points(state, "actor", "Influence") == (4,)
    assert points(state, "target", "HookInfluence") == (0,)


def test_hook_refusals(rules) -> None:  # type: ignore[no-untyped-def]
    """Tapping a kind the hook does not hold (no momentum in it), investing more than one holds
    (Brannock has no adversity: no debt covers an investment), and investing a claimed
    character's points for another player (Sealed Resources) are refused, naming the rule."""
    refused(rules, "Tap Hook", "hook_holds", as_=entity(rules, "wren"), against=entity(rules, "hook-heir"),
            kind="stored_momentum")
    refused(rules, "Invest In Hook", "reserves_cover", as_=entity(rules, "brannock"),
            against=entity(rules, "hook-heir"), kind="stored_adversity")
    refused(rules, "Invest In Hook", "reserves_cover", as_=entity(rules, "thief"),
            against=entity(rules, "hook-heir"), kind="stored_momentum", points=4)
    refused(rules, "Invest In Hook", "resources_open_to", as_=entity(rules, "wren"),
            against=entity(rules, "hook-heir"), kind="stored_adversity", player="bo", claimed_by="ana")
