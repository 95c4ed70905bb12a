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
from runebook.interpreter.rules.procedures import ScriptedDriver
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


def hooks(rules, tmp_path: Path, held: list[tuple[int, int, int]]) -> list:  # type: ignore[no-untyped-def]
    """Triggered hooks holding (influence, momentum, adversity) each, as entity files."""
    made = []
    for n, (i, m, a) in enumerate(held, start=1):
        state = {"name": f"Hook{n}", "resources": {"HookInfluence": i, "HookMomentum": m, "HookAdversity": a}}
        made.append(rules.entity(saved(tmp_path, state, f"hook{n}")))
    return made


FIVE = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 0, 0), (0, 0, 0)]


def test_turning_point_adversity_boost(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Five hooks holding 3 points for 3 challengers (Minimum Resources met). Wren draws Hook3's
    only adversity (1 -> 2). No hook holds adversity for Brannock: Hook2's momentum is
    sacrificed for 2 adversity there; his drawn point pays off debt (2 -> 1). The thief draws
    the other (0 -> 1). Left in the hooks: Hook1's influence."""
    answers = ["draw_adversity", "Hook3", "draw_adversity", "Hook2", "stored_momentum", "Hook2",
               "draw_adversity", "Hook2"]
    run = rules.run("Turning Point", as_=[entity(rules, n) for n in ("wren", "brannock", "thief")],
                    against=hooks(rules, tmp_path, FIVE), driver=ScriptedDriver(answers))
    assert dict(run.results) == {"adversity_drawn": 3, "refills": 1, "left_in_hooks": 1}
    state = run.to_dict()["state"]
    assert [points({"a": a}, "a", "Adversity", "Debt") for a in state["actors"]] == [(2, 0), (0, 1), (1, 0)]
    assert [points({"h": h}, "h", "HookInfluence", "HookMomentum", "HookAdversity") for h in state["targets"]][:3] \
        == [(1, 0, 0), (0, 0, 0), (0, 0, 0)]


def test_turning_point_refilled_from_the_challengers_own_points(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """boost_refill=own_points: the hooks hold 1 influence only (1 challenger: enough). The
    thief finds no adversity and gives 1 of his own 3 momentum for 2 adversity in Hook4, then
    draws one: 2 momentum, 1 adversity; Hook4 keeps 1. A challenger may also pass."""
    held = [(1, 0, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0)]
    run = rules.run("Turning Point", as_=[entity(rules, "thief")], against=hooks(rules, tmp_path, held),
                    options={"boost_refill": "own_points"},
                    driver=ScriptedDriver(["draw_adversity", "stored_momentum", "Hook4", "Hook4"]))
    state = run.to_dict()["state"]
    thief = state.get("actors", [state.get("actor")])[0]
    assert points({"a": thief}, "a", "Momentum", "Adversity") == (2, 1)
    assert points({"h": state["targets"][3]}, "h", "HookAdversity") == (1,)
    passed = rules.run("Turning Point", as_=[entity(rules, "thief")], against=hooks(rules, tmp_path, held),
                       driver=ScriptedDriver(["pass"]))
    assert dict(passed.results) == {"adversity_drawn": 0, "refills": 0, "left_in_hooks": 1}


def test_turning_point_restrictions_refuse(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Minimum Resources: 3 points in the hooks for 4 challengers is refused; so are four
    hooks, and a second Turning Point in the arc."""
    four = [entity(rules, n) for n in ("wren", "brannock", "thief", "player-ana")]
    refused(rules, "Turning Point", "hooks_cover_challengers", as_=four, against=hooks(rules, tmp_path, FIVE))
    refused(rules, "Turning Point", "count(targets) >= 5", as_=four[:1], against=hooks(rules, tmp_path, FIVE[:4]))
    refused(rules, "Turning Point", "used_this_arc", as_=four[:1], against=hooks(rules, tmp_path, FIVE),
            used_this_arc=True)
