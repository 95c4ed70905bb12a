"""Mezzo (rulesets/mezzo/, spec mezzo.md) on cases derived from the book's rules: defects a
second audit found (each test fails without its fix), and a compact table of golden cases
whose expected odds come from enumerations written here, run through the CLI and the API."""

from __future__ import annotations

import json
import math
from collections import Counter
from fractions import Fraction
from itertools import product
from typing import Any

import pytest

from runebook.interpreter.rules import load
from runebook.interpreter.rules.model import RunebookError
from mezzo_helpers import saved

LADDER = [4, 6, 8, 10, 12]
BASE = {"negligible": 0, "occasional": 1, "common": 2}


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load("mezzo")


def pool(votes: int, restraints: int = 0) -> list[int]:
    """§3.2 and §3.9 (A2, A4 default): a d12 per five votes, then the die of what is left, each
    held at the largest size the restraints leave; none below one vote or at five restraints."""
    if restraints >= 5:
        return []
    v = max(votes, 0)
    sides = [12] * (v // 5) + ([LADDER[v % 5 - 1]] if v % 5 else [])
    return [min(s, LADDER[4 - restraints]) for s in sides]


def score_odds(sides: list[int]) -> Counter:
    """§3.3: the highest single die, 1 with no dice."""
    dist: Counter = Counter()
    weight = Fraction(1, math.prod(sides)) if sides else Fraction(1)
    for faces in product(*[range(1, s + 1) for s in sides]):
        dist[max(faces, default=1)] += weight
    return dist


def action_outcome(action: Counter, failure: Counter, surge: int = 0) -> dict[str, Fraction]:
    """Success or failure, a tie broken by tiebreaker dice rolled until they differ: even."""
    out: Counter = Counter()
    for a, pa in action.items():
        for f, pf in failure.items():
            p = pa * pf
            if a + surge > f:
                out["success"] += p
            elif a + surge < f:
                out["failure"] += p
            else:
                out["success"] += p / 2
                out["failure"] += p / 2
    return {k: v for k, v in out.items() if v}


def named(dist: dict[Any, Fraction]) -> dict[str, Fraction]:
    return {str(k): v for k, v in dist.items() if v}


# ---------------------------------------------------------------- defects found


@pytest.mark.parametrize("inputs", [
    {"impaired": 2},                                   # Occasional, two Impaired Abilities: -1
    {"action_laws": -2},                               # two laws against an Occasional action
    {"votes": -2, "failure_chance": "common"},         # two votes lost to the target's edges
])
def test_an_action_left_with_fewer_than_no_votes_rolls_no_dice(rules, inputs: dict[str, Any]) -> None:  # type: ignore[no-untyped-def]
    """A2, §3.2: a step down from a d4 loses it; an action with fewer than no votes rolls
    nothing and scores 1. It used to be refused as if it had bought a scope perk it could not
    pay for (A7), though it bought none."""
    odds = rules.odds("Action", answers={"break_tie": "roll"}, **inputs)
    action = 1 + inputs.get("votes", 0) - inputs.get("impaired", 0) + max(-2, min(2, inputs.get("action_laws", 0)))
    failure = BASE[inputs.get("failure_chance", "occasional")]
    assert action < 0
    assert named(odds.results["outcome"]) == action_outcome(score_odds(pool(action)), score_odds(pool(failure)))


def test_an_action_with_no_votes_left_still_buys_no_scope_perk(rules) -> None:  # type: ignore[no-untyped-def]
    """A7: scope perks are paid with votes the action holds; none held, none bought."""
    with pytest.raises(RunebookError, match="scope_votes"):
        rules.run("Action", dice=[3], impaired=2, coverage="extended_coverage")


@pytest.mark.parametrize(("name", "inputs"), [
    ("action check", {"action_votes": 3, "failure_votes": 2, "surge": -1}),
    ("major action", {"action_votes": 3, "opposing_votes": 2, "surge": -1}),
    ("Action", {"surge": -1}),
])
def test_a_negative_sudden_surge_is_refused(rules, name: str, inputs: dict[str, Any]) -> None:  # type: ignore[no-untyped-def]
    """§3.10, A12: Sudden Surge is bought in whole uses, +1 each; a count below none was
    taken as none and computed (a wrong answer to a wrong input) instead of refused."""
    with pytest.raises(RunebookError, match="surge >= 0"):
        rules.run(name, dice=[2, 3], **inputs)


def test_surge_refusal_from_the_command_line(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("resolve", "mezzo", "action check", "--with", "action_votes=3", "--with", "failure_votes=2",
              "--with", "surge=-1", "--dice", "2,3")
    assert run.code != 0 and "surge >= 0" in run.stderr


@pytest.mark.parametrize(("name", "inputs", "rule"), [
    ("Treat Wounds", {"extras": 1, "vicious": 1, "time_taken": -3}, "time_taken >= 0"),
    ("Treat Wounds", {"extras": 1, "vicious": 1, "time_required": 0}, "time_required > 0"),
    ("Challenge", {"challengers": ["a", "b"], "sides": [1, 2], "votes": [1, 1], "goal_momentum": [-2]},
     "goal_momentum"),
    ("Challenge", {"challengers": ["a", "b"], "sides": [1, 2], "votes": [1, 1], "goal_momentum": [0, 1, 4]},
     "goal_momentum"),
    ("Turning Point Check", {"hooks": 5, "resources": 0, "challengers": -1}, "challengers >= 1"),
])
def test_inputs_out_of_range_are_refused(rules, name: str, inputs: dict[str, Any], rule: str) -> None:  # type: ignore[no-untyped-def]
    """A negative time skipped a Vicious Wound's Recovery Check (§3.15: triple the time
    needed); a goal's momentum below none (§3.16) or for a side that is not there, and fewer
    challengers than none at the Turning Point, were computed. Each is refused now."""
    entity = "rulesets/mezzo/examples/hurt-wren.yaml"
    with pytest.raises(RunebookError, match=rule.replace("(", r"\(")):
        rules.run(name, dice=[2, 3], as_=entity if name == "Treat Wounds" else None, **inputs)


def test_a_specialty_tie_reduced_by_one_is_what_the_foe_faces(rules, cli) -> None:  # type: ignore[no-untyped-def]
    """§3.19, A27: a Specialty with two major picks that only ties reduces the number rolled
    by 1. The hero's d6 (1 vote + 1 for the Specialty) and the foe's d6 both show 4: the hero's
    roll becomes 3, a failure (1 adversity), and the foe's 4 beats 3: a success and a major
    perk (a Push: a trump for its goal). The foe used to be left with a tie (a minor perk)
    against the very roll that had failed against it."""
    run = cli("run", "mezzo", "Challenge", "--with", "challengers=hero,foe", "--with", "sides=1,2",
              "--with", "votes=1,2", "--with", "specialty=2,0", "--with", "max_rounds=1", "--dice", "4,4",
              "--answer", "perk=push", "--answer", "push_counter=allow", "--answer", "withdraw=remain",
              "--answer", "exile=spare", "--json")
    assert run.code == 0, run.stderr
    results = json.loads(run.stdout)["results"]
    assert results["adversity"] == [1, 0]
    assert results["minor_perks"] == [0, 0]
    assert results["trumps"] == [0, 1]
    # Both tie-holders with only major picks: each roll drops by 1, each a failure (A27).
    both = rules.run("Challenge", dice=[4, 4], answers={"perk": "two_minor"}, challengers=["a", "b"], sides=[1, 2],
                     votes=[1, 1], specialty=[2, 2], max_rounds=1)
    assert list(both.results["adversity"]) == [1, 1]
    assert list(both.results["minor_perks"]) == [0, 0]


def test_a_favored_flaw_used_outside_a_challenge_still_triggers_once_in_one(rules, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """§3.14, Favored Flaw: once per challenge, or once per scene outside challenges. Wren's
    flaw used against her outside a challenge gives a point; a challenge then starts in the same
    scene: its first trigger gives one more (it used to be refused), its second is refused; out
    of the challenge, still in the scene, the scene's use is spent."""
    wren = "rulesets/mezzo/examples/wren.yaml"
    outside = rules.run("Favored Flaw", as_=rules.entity(wren), in_challenge=False)
    path = saved(tmp_path, outside.state["actor"], "wren")
    inside = rules.run("Favored Flaw", as_=rules.entity(path), in_challenge=True)
    assert inside.results["adversity"] == outside.results["adversity"] + 1
    again = saved(tmp_path, inside.state["actor"], "wren2")
    with pytest.raises(RunebookError, match="Favored Used"):
        rules.run("Favored Flaw", as_=rules.entity(again), in_challenge=True)
    ended = saved(tmp_path, rules.run("End Challenge", as_=rules.entity(again)).state["actor"], "wren3")
    with pytest.raises(RunebookError, match="Favored Used In Scene"):
        rules.run("Favored Flaw", as_=rules.entity(ended), in_challenge=False)


def test_linking_two_of_ones_own_cards_needs_two_active_cards(rules, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """§3.21: a player who alone owns cards may link two of their own active cards. Bo has
    one active card: there is no pair to link (he used to earn 2 influence for it). With a
    second card played and accepted, the link earns 1 for each card: 1 + 2 = 3."""
    bo = "rulesets/mezzo/examples/player-bo.yaml"
    with pytest.raises(RunebookError, match="Active"):
        rules.run("Link Seeds", as_=rules.entity(bo), own_cards=True, sole_card_owner=True)
    played = saved(tmp_path, rules.run("Play Seed", as_=rules.entity(bo)).state["actor"], "bo")
    linked = rules.run("Link Seeds", as_=rules.entity(played), own_cards=True, sole_card_owner=True)
    assert linked.results["influence"] == 3
