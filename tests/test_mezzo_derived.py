"""Mezzo (rulesets/mezzo/, spec mezzo.md) on cases derived from the book's rules: defects a
second audit found (each test fails without its fix), and a compact table of golden cases
whose expected odds come from enumerations written here, run through the CLI and the API."""

from __future__ import annotations

import json
import math
import re
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
    ("Conflict", {"outcomes": ["a", "b"], "players": 2, "free_votes": [3, 0, 1]}, "free_votes_for_players"),
    ("Challenge", {"challengers": ["a", "b"], "sides": [1, 2], "votes": [1, 1],
                   "specialty": ["no_specialty", "push hinder", "push damage"]},
     "count(specialty)"),
])
def test_inputs_out_of_range_are_refused(rules, name: str, inputs: dict[str, Any], rule: str) -> None:  # type: ignore[no-untyped-def]
    """A negative time skipped a Vicious Wound's Recovery Check (§3.15: triple the time
    needed); a goal's momentum below none (§3.16) or for a side that is not there, and fewer
    challengers than none at the Turning Point, were computed; free votes or Specialties given
    for more players or challengers than there are were ignored. Each is refused now."""
    entity = "rulesets/mezzo/examples/hurt-wren.yaml"
    with pytest.raises(RunebookError, match=re.escape(rule)):
        rules.run(name, dice=[2, 3], as_=entity if name == "Treat Wounds" else None, **inputs)


def test_a_specialty_tie_reduced_by_one_is_what_the_foe_faces(rules, cli) -> None:  # type: ignore[no-untyped-def]
    """§3.19, A27: a Specialty with two major picks that only ties reduces the number rolled
    by 1. The hero's d6 (1 vote + 1 for the Specialty) and the foe's d6 both show 4: the hero's
    roll becomes 3, a failure (1 adversity), and the foe's 4 beats 3: a success and a major
    perk (a Push: a trump for its goal). The foe used to be left with a tie (a minor perk)
    against the very roll that had failed against it."""
    run = cli("run", "mezzo", "Challenge", "--with", "challengers=hero,foe", "--with", "sides=1,2",
              "--with", "votes=1,2", "--with", "specialty=push damage,no_specialty", "--with", "max_rounds=1",
              "--dice", "4,4", "--answer", "keep_picks=keep_to_picks", "--answer", "perk=push", "--answer", "push_counter=allow", "--answer", "withdraw=remain",
              "--answer", "exile=spare", "--json")
    assert run.code == 0, run.stderr
    results = json.loads(run.stdout)["results"]
    assert results["adversity"] == [1, 0]
    assert results["minor_perks"] == [0, 0]
    assert results["trumps"] == [0, 1]
    # Both tie-holders with only major picks: each roll drops by 1, each a failure (A27).
    both = rules.run("Challenge", dice=[4, 4], answers={"perk": "two_minor", "keep_picks": "keep_to_picks"},
                     challengers=["a", "b"], sides=[1, 2], votes=[1, 1], specialty=["push damage", "ruin bind"],
                     max_rounds=1)
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


# ---------------------------------------------------------------- golden cases (derived, all pass)

#: Given dice → expected results, through the command line as a user types them. Each row:
#: command, game entry, inputs, options, dice, answers, the results expected (a subset).
GOLDEN_RUNS = [
    # §3.2-3.3: the README's example: d12 & d4 (3, 4) against a d6 (5).
    ("resolve", "action check", {"action_votes": 6, "failure_votes": 2}, {}, [3, 4, 5], {},
     {"action_score": 4, "failure_score": 5, "outcome": "failure"}),
    # A tie exactly met (d6 4 against d4 4); no dice on either side: 1 against 1.
    ("resolve", "action check", {"action_votes": 2, "failure_votes": 1}, {}, [4, 4], {}, {"outcome": "tie"}),
    ("resolve", "action check", {"action_votes": 0, "failure_votes": -3}, {}, [], {},
     {"action_score": 1, "failure_score": 1, "outcome": "tie"}),
    # §3.9: one restraint holds 5 votes at a d10 (its 10 beats a d6's 6); five: no dice, a 1.
    ("resolve", "action check", {"action_votes": 5, "failure_votes": 2, "restraints": 1}, {}, [10, 6], {},
     {"action_score": 10, "outcome": "success"}),
    ("resolve", "action check", {"action_votes": 9, "failure_votes": 1, "restraints": 5}, {}, [1], {},
     {"action_score": 1, "outcome": "tie"}),
    # A4 alternative: 6 votes, 1 restraint, shorter ladder: d10 & d6 (the 6 shows 6).
    ("resolve", "action check", {"action_votes": 6, "failure_votes": 1, "restraints": 1},
     {"restraint_cap": "shorter_ladder"}, [2, 6, 4], {}, {"action_score": 6, "outcome": "success"}),
    # T04, A6: 4 laws for, 1 against (as a failure law): +2 and +1 apart; the net +2 per check.
    ("resolve", "action check", {"action_votes": 1, "failure_votes": 1, "action_laws": 4, "failure_laws": 1}, {},
     [7, 5], {}, {"action_score": 7, "failure_score": 5}),
    ("resolve", "action check", {"action_votes": 1, "failure_votes": 1, "action_laws": 4, "failure_laws": 1},
     {"law_limits": "per_check"}, [7, 4], {}, {"action_score": 7, "failure_score": 4, "outcome": "success"}),
    # A12: Sudden Surge twice turns a 4 against a 5 into a 6.
    ("resolve", "action check", {"action_votes": 3, "failure_votes": 2, "surge": 2}, {}, [4, 5], {},
     {"action_score": 6, "outcome": "success"}),
    # §3.12: exactly double (6 against 3) is a double success; 5 against 3 a success; equal a tie;
    # lower a failure and a point of adversity.
    ("resolve", "major action", {"action_votes": 3, "opposing_votes": 1}, {}, [6, 3], {},
     {"outcome": "double_success", "major_perks": 2}),
    ("resolve", "major action", {"action_votes": 3, "opposing_votes": 1}, {}, [5, 3], {},
     {"outcome": "major_success", "major_perks": 1}),
    ("resolve", "major action", {"action_votes": 3, "opposing_votes": 1}, {}, [3, 3], {},
     {"outcome": "major_tie", "minor_perks": 1}),
    ("resolve", "major action", {"action_votes": 3, "opposing_votes": 1}, {}, [2, 3], {},
     {"outcome": "major_failure", "adversity": 1}),
    # 1 against 1 (no dice on either side) is a tie, not a double success.
    ("resolve", "major action", {"action_votes": 0, "opposing_votes": 0}, {}, [], {}, {"outcome": "major_tie"}),
    # §3.5: the tiebreaker's d12s; the D6 variant's d6s.
    ("resolve", "tiebreaker", {}, {}, [12, 11], {}, {"outcome": "success"}),
    ("resolve", "tiebreaker", {}, {"tiebreaker_die": "six_sided"}, [6, 6], {}, {"outcome": "tie"}),
    # §3.4, A2 (D09b): 3, 0, 3 takes the middle road; dropped first, the ends tie.
    ("run", "Conflict", {"outcomes": ["a", "b", "c"], "votes": [3, 0, 3]}, {}, [],
     {"approach": "take_median", "break_tie": "compromise"}, {"winner": "b"}),
    ("run", "Conflict", {"outcomes": ["a", "b", "c"], "votes": [3, 0, 3]}, {"median_zero_votes": "drop_first"},
     [], {"approach": "take_median", "break_tie": "compromise"}, {"first_tie": ["a", "c"], "winner": "compromise"}),
    # A1 alternative: every option selected comes down to the most votes (2, 5, 3: b).
    ("run", "Conflict", {"outcomes": ["a", "b", "c"], "votes": [2, 5, 3]}, {"median_selection": "all_remaining"},
     [], {"approach": "take_median"}, {"winner": "b"}),
    # §3.20: 3 votes, a first 3 at the threshold bursts: a 5 at multiplier 2 is 10, beating 2 × 4.
    ("run", "Conflict", {"outcomes": ["a", "b"], "votes": [3, 6]}, {"dice_game": "sixes"}, [3, 5, 4],
     {"approach": "leave_to_chance", "burst": "take"}, {"winner": "a"}),
    # A8: Negligible on either side needs no check; an Aptitude step makes it Occasional.
    ("run", "Action", {"chance": "negligible", "votes": 4}, {}, [], {}, {"outcome": "failure", "checked": False}),
    ("run", "Action", {"failure_chance": "negligible"}, {}, [], {}, {"outcome": "success", "checked": False}),
    ("run", "Action", {"chance": "negligible", "aptitude": 1}, {}, [3, 2], {}, {"outcome": "success"}),
    # §3.14: Impaired Ability takes the Occasional action's d4 (no dice, a 1 against a d6's 1:
    # a tie, rolled off 9 against 4).
    ("run", "Action", {"impaired": 1, "failure_chance": "common"}, {}, [1, 9, 4], {"break_tie": "roll"},
     {"first_outcome": "tie", "outcome": "success"}),
    # §3.13, T05-T07: boons; §3.18, T10: edge slots; T11: Asset Investment; T21: the deck.
    ("resolve", "Boon Price", {"momentum": 3}, {}, [], {}, {"uses": 5}),
    ("resolve", "Edge Slots", {"action_checks": 1, "challenges": 1, "claims": 1}, {}, [], {}, {"slots": 10}),
    ("resolve", "Empowering Gift Capacity", {"asset_investments": 2}, {}, [], {}, {"lent_at_once": 3}),
    ("resolve", "New Arc", {"players": 4}, {}, [], {}, {"influence": 3, "smallest_deck": 12}),
    # §3.16, T19, T20, A44, A45: hook prices and thresholds, Raise Stakes.
    ("resolve", "Plot Hook Cost", {"payment": "pay_adversity", "after_turning_point": True}, {}, [], {}, {"cost": 4}),
    ("resolve", "Triggered Hooks", {"hooks": 4}, {}, [], {}, {"best_option": "no_escape"}),
    ("resolve", "Stake Raise", {"influence": 1, "momentum": 2, "adversity": 3}, {}, [], {},
     {"stake_momentum": 4, "adversity_left": 1}),
    ("resolve", "Turning Point Check", {"hooks": 5, "resources": 3, "challengers": 3}, {}, [], {},
     {"adversity_boost": 3}),
    # T12: 5 points among 3 targets: 2, 2, 1.
    ("run", "Resolve Hook", {"stored": 5, "targets": ["a", "b", "c"]}, {}, [], {}, {"given": [2, 2, 1]}),
]


def cli_args(command: str, name: str, inputs: dict[str, Any], options: dict[str, str], dice: list[int],
             answers: dict[str, str]) -> list[str]:
    args = [command, "mezzo", name, "--json"]
    for k, v in inputs.items():
        text = ",".join(map(str, v)) if isinstance(v, list) else str(v).lower() if isinstance(v, bool) else str(v)
        args += ["--with", f"{k}={text}"]
    for k, v in options.items():
        args += ["--option", f"{k}={v}"]
    for k, v in answers.items():
        args += ["--answer", f"{k}={v}"]
    return args + (["--dice", ",".join(map(str, dice))] if dice else [])


@pytest.mark.parametrize("case", GOLDEN_RUNS, ids=lambda c: f"{c[1]}-{c[2]}-{c[3]}")
def test_golden_runs(cli, case: tuple) -> None:  # type: ignore[no-untyped-def, type-arg]
    command, name, inputs, options, dice, answers, expected = case
    run = cli(*cli_args(command, name, inputs, options, dice, answers))
    assert run.code == 0, run.stderr
    results = json.loads(run.stdout)["results"]
    assert {k: results[k] for k in expected} == expected


def six(votes: int) -> Counter:
    """§3.20 by hand: 1 + full sixes the multiplier, the rest the threshold; a burst taken."""
    if votes <= 0:
        return Counter({1: Fraction(1)})
    mult, threshold = 1 + votes // 6, votes % 6
    dist: Counter = Counter()
    for first in range(1, 7):
        for second in range(1, 7):
            dist[second * (mult + 1) if first <= threshold else first * mult] += Fraction(1, 36)
    return dist


#: Exact odds against an enumeration: (entry, inputs, options, answers, the action's and the
#: failure's score distributions, the surge).
GOLDEN_ODDS = [
    ("Action", {"chance": "common", "votes": 4, "restraints": 2}, {}, {"break_tie": "roll"},
     score_odds(pool(6, 2)), score_odds(pool(1)), 0),
    ("Action", {"aptitude": 1, "focused": 1, "forte": [3], "failure_votes": 1}, {}, {"break_tie": "roll"},
     score_odds(pool(3)), score_odds(pool(1 + 1 + 1)), 0),
    ("Action", {"resist_aptitude": 1, "fortified": [4], "votes": 0, "surge": 1}, {}, {"break_tie": "roll"},
     score_odds(pool(1 + 2)), score_odds(pool(2)), 1),
    ("Action", {"votes": 6, "failure_votes": 2, "action_laws": 3}, {"dice_game": "sixes"},
     {"break_tie": "roll", "burst": "take"}, six(9), six(3), 0),
    ("Action", {"votes": 11, "failure_votes": 5}, {"dice_game": "sixes", "multiplier_votes": "no_multiplier"},
     {"break_tie": "roll", "burst": "take"}, None, None, 0),
]


@pytest.mark.parametrize("case", GOLDEN_ODDS, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}")
def test_golden_odds(rules, case: tuple) -> None:  # type: ignore[no-untyped-def, type-arg]
    name, inputs, options, answers, action, failure, surge = case
    if action is None:
        # no_multiplier: every vote is threshold, so 12 votes and 6 always burst: a d6 × 2.
        action = failure = Counter({2 * f: Fraction(1, 6) for f in range(1, 7)})
    odds = rules.odds(name, options=options or None, answers=answers, **inputs)
    assert named(odds.results["outcome"]) == action_outcome(action, failure, surge)


def test_a_heroic_sacrifice_outside_a_challenge_returns_at_the_end_of_the_scene(rules, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A30: outside a challenge the loan lasts the scene, and the lender's protection returns
    at the same moment. The guard lends his to the thief; after the scene both the loan and
    the sacrifice are over: narration cannot remove the guard again (it could: his protection
    stayed spent until the end of a challenge that never came), and he may sacrifice it again."""
    run = rules.run("Heroic Sacrifice", as_=rules.entity("rulesets/mezzo/examples/guard.yaml"),
                    against=rules.entity("rulesets/mezzo/examples/thief.yaml"), in_challenge=False)
    guard = saved(tmp_path, run.state["actor"], "guard")
    assert rules.run("Remove From Play", against=rules.entity(guard)).results["removed"] is True
    after = saved(tmp_path, rules.run("End Scene", as_=rules.entity(guard)).state["actor"], "guard-after")
    with pytest.raises(RunebookError, match="protected_now"):
        rules.run("Remove From Play", against=rules.entity(after))
    again = rules.run("Heroic Sacrifice", as_=rules.entity(after),
                      against=rules.entity("rulesets/mezzo/examples/thief.yaml"), in_challenge=False)
    assert again.results["lent"] is True
