"""Mezzo (rulesets/mezzo/, spec mezzo.md), a third audit by cases derived from the book's rules.
Each test fails without its fix; expected values come from the spec's numbers, worked out in
the docstrings, or from enumerations written here.

Defects found and fixed:

1. Vulnerability (§3.7, the Vulnerability entry, L859): its vote "can be used either to raise
   the action's chances or lower the chance of an opposing action or resistance"; `Action`
   only raised the action. Now `vulnerable_lowering_failure` takes the vote off the failure
   option (the chance to resist), which pays for no scope perk.
2. Heroic Sacrifice (§3.11) lends Plot Protection "to another story element"; lending it to
   oneself was accepted (and marked the lender both spent and lent). Now refused, E0613
   `lent_to_another`.
3. Triggered Hooks (§3.16, T20): an event that triggers no hook was offered the single-hook
   effects. Now `no_hook`.
4. Influence Point (§3.1, §3.7): a player's influence, tracked on the player's file, could not
   be spent on votes (only on seed cards and hooks). Now `Spend Influence`: a vote a point,
   refused beyond what the player holds.
5. Sudden Surge (A12) in a contested action: each party makes an action roll, and the surge
   adds 1 to the owner's "current action"; `Contested Action` had no way to add it. Now
   `surge`, per party.
6. Restraints brought into a challenge (§3.9, T14): restraints are transient flaws kept
   after a challenge, but `Challenge` started every challenger free. Now `restraints`: they
   hold the dice from round 1, five keep the element out ("can not participate in
   challenges"), and they give no momentum boost (the boost "is lost at the end of the current
   challenge"); Break Free takes off one gained in this challenge first.
7. One-Shot flaws in a challenge (§3.12): Damage "can also choose to expend any number of the
   target's One-Shot flaws", an extra on the wound each; Hinder and Expose give such flaws,
   Recover removes one gained this challenge, Break Free leaves one, and Heal turns a bare wound
   into one. None of it was played. Now `one_shot_flaws`, `minor_perks_played` and Damage's
   `expended`.
8. `Spend Adversity` (§3.10) reported nothing for Overcome Flaws and Unexpected Edge. Now
   `flaws_ignored` and `edges_without_slot`.
9. Law Limits in a major action (§3.6, §3.12: "Major actions are treated as action checks"):
   the `Major Action` check took no laws. Now `action_laws`, held between -2 and +2.
10. Momentum Transfer (§3.13, A19, A21): a trump drew up to 4 momentum from its goal even when
    its supporters could receive no more awards (5 each a challenge), so the goal lost points
    no one gained. Now it draws only what can still be received.
11. Claim Character (§3.11) targets "any character which has not been claimed by another
    player"; a claimed character could be claimed again, with its 2 edge slots again. Now
    `player` and `claimed_by`: another's claim refuses it (E0613 `claim_open_to`), and a
    character claimed before earns no Character Upgrade.
12. A failed `require` (any game) printed no help line when its condition read only inputs or
    options (`'No Escape Stake' requires hooks >= 3`): the help looked for the names in the
    lines' own environment, not in the scope holding the inputs. Now `help: here hooks = 2`.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import pytest
from mezzo_helpers import action_odds, book_pool
from runebook.interpreter.rules import load
from runebook.interpreter.rules.model import RunebookError
from runebook.interpreter.rules.procedures import ScriptedDriver

EXAMPLES = Path(__file__).resolve().parents[1] / "rulesets" / "mezzo" / "examples"


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load("mezzo")


def refused(call: Any, rule: str) -> None:
    """The run is refused with E0613 naming `rule`."""
    with pytest.raises(RunebookError) as error:
        call()
    assert error.value.diagnostics[0].code == "E0613"
    assert rule in error.value.diagnostics[0].message


def score_odds(sides: list[int], bonus: int = 0) -> Counter:
    """§3.3: the highest single die (1 with no dice), plus a bonus (Sudden Surge)."""
    dist: Counter = Counter()
    weight = Fraction(1, math.prod(sides)) if sides else Fraction(1)
    for faces in product(*[range(1, s + 1) for s in sides]):
        dist[max(faces, default=1) + bonus] += weight
    return dist


def winners(scores: dict[str, Counter]) -> dict[str, Fraction]:
    """The highest score takes effect; a tie is rolled off with one d12 each until one is
    highest, which favours none of the tied: each wins an equal share."""
    names = list(scores)
    out: Counter = Counter()
    for combo in product(*[list(scores[n].items()) for n in names]):
        p = math.prod(q for _, q in combo)
        best = max(s for s, _ in combo)
        top = [n for n, (s, _) in zip(names, combo) if s == best]
        for n in top:
            out[n] += p / len(top)
    return {k: v for k, v in out.items() if v}


def plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value if isinstance(value, (int, bool)) else str(value)


def challenge(rules, dice: list[int], answers: list[Any], **inputs: Any) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    run = rules.run("Challenge", dice=dice, driver=ScriptedDriver(answers), **inputs)
    return {k: plain(v) for k, v in run.results.items()}


# ---------------------------------------------------------------- 1. Vulnerability


def test_a_vulnerability_vote_may_lower_the_chance_to_resist(rules) -> None:  # type: ignore[no-untyped-def]
    """Occasional against Occasional (1 vote each). The Vulnerability's vote on the action: 2
    against 1 (a d6 against a d4); taken off the resistance: 1 against 0 (a d4 against no
    dice, a 1): a success unless the d4 shows 1 and the tie goes the other way, 7/8."""
    on_action = rules.odds("Action", answers={"break_tie": "roll"}, vulnerable=1)
    on_failure = rules.odds("Action", answers={"break_tie": "roll"}, vulnerable_lowering_failure=1)
    assert {str(k): v for k, v in on_action.results["outcome"].items() if v} == action_odds(2, 1)
    assert {str(k): v for k, v in on_failure.results["outcome"].items() if v} == action_odds(1, 0)
    assert action_odds(1, 0)["success"] == Fraction(7, 8)


def test_a_vote_off_the_resistance_buys_no_scope_perk(rules) -> None:  # type: ignore[no-untyped-def]
    """Scope perks are bought with the action's own votes (A7): an Occasional action (1 vote)
    pays for Extended Coverage, not Local Coverage (2), whatever comes off its resistance. With
    the perk bought, no dice on either side: 1 against 1, rolled off with d12s (5 against 2)."""
    run = rules.run("Action", dice=[5, 2], coverage="extended_coverage", vulnerable_lowering_failure=1,
                    answers={"break_tie": "roll"})
    assert run.results["votes_on_scope"] == 1
    assert (str(run.results["first_outcome"]), str(run.results["outcome"])) == ("tie", "success")
    refused(lambda: rules.run("Action", coverage="local_coverage", vulnerable_lowering_failure=1), "scope_votes")


# ---------------------------------------------------------------- 2. Heroic Sacrifice


def test_heroic_sacrifice_is_lent_to_another_element(cli) -> None:  # type: ignore[no-untyped-def]
    guard = EXAMPLES / "guard.yaml"
    before = guard.read_text()
    out = cli("run", "mezzo", "Heroic Sacrifice", "--as", str(guard), "--against", str(guard))
    assert out.code == 1 and "E0613" in out.stderr and "lent_to_another" in out.stderr
    assert guard.read_text() == before
    lent = cli("run", "mezzo", "Heroic Sacrifice", "--as", str(guard), "--against", str(EXAMPLES / "thief.yaml"))
    assert lent.code == 0 and "lent: true" in lent.stdout


# ---------------------------------------------------------------- 3. Triggered Hooks


def book_hook_option(n: int) -> str:
    """§3.16: Raise Stakes needs 2 triggered hooks, No Escape 3, Turning Point 5."""
    if n == 0:
        return "no_hook"
    return "single_hook" if n < 2 else "raise_stakes" if n < 3 else "no_escape" if n < 5 else "turning_point_option"


def test_no_hook_triggered_opens_no_option(rules) -> None:  # type: ignore[no-untyped-def]
    assert str(rules.resolve("Triggered Hooks", hooks=0).results["best_option"]) == book_hook_option(0)


@pytest.mark.parametrize("hooks", range(1, 7))
def test_triggered_hooks_thresholds(rules, hooks: int) -> None:  # type: ignore[no-untyped-def]
    """Golden cases (T20, held before this audit): each threshold and the counts between."""
    assert str(rules.resolve("Triggered Hooks", hooks=hooks).results["best_option"]) == book_hook_option(hooks)


# ---------------------------------------------------------------- 4. Spend Influence


def test_spending_influence_buys_a_vote_a_point(rules) -> None:  # type: ignore[no-untyped-def]
    """Ana starts the arc with 3 influence (§3.17): 2 spent are 2 votes, 1 is left; 4 are more
    than she holds (E0706, nothing spent)."""
    ana = rules.entity(str(EXAMPLES / "player-ana.yaml"))
    run = rules.run("Spend Influence", as_=ana, points=2)
    assert run.results == {"votes": 2, "influence": 1}
    with pytest.raises(RunebookError) as error:
        rules.run("Spend Influence", as_=rules.entity(str(EXAMPLES / "player-ana.yaml")), points=4)
    assert error.value.diagnostics[0].code == "E0706"


# ---------------------------------------------------------------- 5. Sudden Surge in a contest


def test_a_surge_in_a_contested_action_from_the_command_line(cli) -> None:  # type: ignore[no-untyped-def]
    """Ana (2 votes, a d6) and Bo (3, a d8) both show 5: a tie; Ana's Sudden Surge makes it 6."""
    out = cli("run", "mezzo", "Contested Action", "--with", "parties=ana,bo", "--with", "votes=2,3",
              "--with", "surge=1", "--dice", "5,5", "--json")
    assert out.code == 0, out.stderr
    assert json.loads(out.stdout)["results"] == {"first_tie": [], "winner": "ana"}


def test_contested_odds_with_surges(rules) -> None:  # type: ignore[no-untyped-def]
    """Three parties: a d6 + 1, a d8, a d4 + 2 (surges 1, 0, 2), against an enumeration."""
    odds = rules.odds("Contested Action", answers={"break_tie": "roll"}, parties=["a", "b", "c"],
                      votes=[2, 3, 1], surge=[1, 0, 2])
    expected = winners({"a": score_odds(book_pool(2), 1), "b": score_odds(book_pool(3)), "c": score_odds(book_pool(1), 2)})
    assert {str(k): v for k, v in odds.results["winner"].items() if v} == expected


def test_a_negative_surge_in_a_contest_is_refused(rules) -> None:  # type: ignore[no-untyped-def]
    refused(lambda: rules.run("Contested Action", parties=["a", "b"], votes=[1, 1], surge=[-1]), "surge")


# ---------------------------------------------------------------- 6. Restraints brought in


def test_restraints_brought_in_hold_the_dice_from_round_one(rules) -> None:  # type: ignore[no-untyped-def]
    """5 votes are a d12; two restraints lock out d12 and d10: a d8 (§3.9)."""
    run = rules.run("Challenge", dice=[8, 1], challengers=["hero", "foe"], sides=[1, 2], votes=[5, 1],
                    restraints=[2], max_rounds=1, driver=ScriptedDriver(["two_minor", "two_minor"]))
    assert [d.label for d in run.trace.dice()] == ["d8", "d4"]
    assert list(run.results["restraints"]) == [2, 0]


def test_five_restraints_keep_an_element_out_of_a_challenge(rules) -> None:  # type: ignore[no-untyped-def]
    """T14: with five restraints it "can not participate in challenges"."""
    refused(lambda: rules.run("Challenge", challengers=["hero", "foe"], sides=[1, 2], votes=[5, 1],
                              restraints=[0, 5]), "free_to_join")


def test_only_restraints_gained_here_give_momentum_boosts(rules) -> None:  # type: ignore[no-untyped-def]
    """The foe brings 2 restraints (3 votes: a d8, held at d8). The hero's 12 doubles its 4:
    a Bind (3 restraints) and a Push (1 trump; 0 momentum does not protect it, no counter).
    The trump exiles the foe. Boosts: the one restraint gained here gives the hero 1 (the two
    brought lost theirs with their own challenge), the trump 1: 2 momentum, not 4."""
    result = challenge(rules, [12, 4], ["bind", "foe", "push", "allow", "remain", "exile_in_defeat"],
                       challengers=["hero", "foe"], sides=[1, 2], votes=[5, 3], restraints=[0, 2])
    assert result["left"] == ["victory", "defeat"]
    assert result["restraints"] == [0, 3]
    assert result["momentum"] == [2, 0]


def test_break_free_takes_a_restraint_gained_here_first(rules) -> None:  # type: ignore[no-untyped-def]
    """The foe brings 1 restraint (3 votes: a d8). Round 1: the hero's 12 doubles the foe's 1:
    a Bind (2 restraints) and two minor perks. Round 2: the foe's 8 doubles the hero's 1:
    Break Free takes off the one gained here (it leaves a One-Shot flaw), a Push, and the trump
    exiles the hero. The foe leaves with the restraint it brought: no boost for the hero (0
    momentum, not 1); the trump gives the foe 1. Each failed action: 1 adversity."""
    answers = ["bind", "foe", "two_minor", "break_free", "foe", "push", "allow", "remain", "exile_in_defeat"]
    result = challenge(rules, [12, 1, 1, 8], answers, challengers=["hero", "foe"], sides=[1, 2], votes=[5, 3],
                       restraints=[0, 1], max_rounds=2)
    assert result["left"] == ["defeat", "victory"]
    assert result["restraints"] == [0, 1] and result["one_shot_flaws"] == [0, 1]
    assert result["momentum"] == [0, 1] and result["adversity"] == [1, 1]


# ---------------------------------------------------------------- 7. One-Shot flaws


def test_hinder_and_expose_then_damage_expends_the_flaws(rules) -> None:  # type: ignore[no-untyped-def]
    """Round 1: 12 against 1, both perks traded: 4 minor perks, Hinder twice and Expose on the
    foe (3 One-Shot flaws) and a Discover. Round 2: 12 against 1: Damage, a new wound, all 3
    flaws expended: 3 extras on it; the other perk traded: two Discovers (3 details)."""
    answers = ["two_minor", "two_minor", "hinder", "foe", "hinder", "foe", "expose", "foe", "discover",
               "damage", "foe", 3, "stays", "two_minor", "discover", "discover"]
    result = challenge(rules, [12, 1, 12, 1], answers, challengers=["hero", "foe"], sides=[1, 2], votes=[5, 1],
                       max_rounds=2, minor_perks_played=True)
    assert result["wound_extras"] == [[], [3]]
    assert result["one_shot_flaws"] == [0, 0]
    assert result["details"] == [3, 0] and result["minor_perks"] == [6, 0]


def test_damage_expends_flaws_from_the_command_line(cli) -> None:  # type: ignore[no-untyped-def]
    """The foe brings 2 One-Shot flaws; the hero's 12 doubles its 1: two Damages. The first is
    a new wound with both flaws expended (2 extras), the second worsens it (2 more): 4."""
    out = cli("run", "mezzo", "Challenge", "--with", "challengers=hero,foe", "--with", "sides=1,2",
              "--with", "votes=5,1", "--with", "one_shot_flaws=0,2", "--with", "max_rounds=1", "--dice", "12,1",
              "--answer", "perk=damage", "--answer", "wounded=foe", "--answer", "expended=2",
              "--answer", "wounded_leaves=stays", "--answer", "damage_kind=worsen_wound", "--json")
    assert out.code == 0, out.stderr
    results = json.loads(out.stdout)["results"]
    assert results["wound_extras"] == [[], [2 + 2]] and results["one_shot_flaws"] == [0, 0]


def test_five_restraints_refused_from_the_command_line(cli) -> None:  # type: ignore[no-untyped-def]
    out = cli("run", "mezzo", "Challenge", "--with", "challengers=hero,foe", "--with", "sides=1,2",
              "--with", "votes=5,1", "--with", "restraints=5,0")
    assert out.code == 1 and "E0613" in out.stderr and "free_to_join" in out.stderr and "Traceback" not in out.stderr


def test_damage_may_expend_some_of_the_flaws_brought(rules) -> None:  # type: ignore[no-untyped-def]
    """The foe brings 2 One-Shot flaws; Damage expends 1: a wound with 1 extra, 1 flaw left."""
    result = challenge(rules, [12, 1], ["damage", "foe", 1, "stays", "two_minor"], challengers=["hero", "foe"],
                       sides=[1, 2], votes=[5, 1], max_rounds=1, one_shot_flaws=[0, 2])
    assert result["wound_extras"] == [[], [1]] and result["one_shot_flaws"] == [0, 1]


def test_recover_only_removes_a_flaw_gained_in_this_challenge(rules) -> None:  # type: ignore[no-untyped-def]
    """The hero brings 2 One-Shot flaws: Recover has none gained here to remove (refused); after
    the foe's Hinder in round 1 (a tie, 3 against 3: a minor perk each; the hero's a Discover),
    the hero's round-2 Recover (12 doubles 1: both major perks traded, four minor perks, the
    other three Discovers) removes that one: 2 left, the ones brought; 4 details."""
    refused(lambda: challenge(rules, [12, 1], ["two_minor", "two_minor", "recover"], challengers=["hero", "foe"], sides=[1, 2],
                              votes=[5, 1], max_rounds=1, one_shot_flaws=[2, 0], minor_perks_played=True),
            "flaw_gained_here")
    result = challenge(rules, [3, 3, 12, 1], ["discover", "hinder", "hero", "two_minor", "two_minor", "recover", "hero",
                                                  "discover", "discover", "discover"],
                       challengers=["hero", "foe"], sides=[1, 2], votes=[5, 3], max_rounds=2, one_shot_flaws=[2, 0],
                       minor_perks_played=True)
    assert result["one_shot_flaws"] == [2, 0]
    assert result["details"] == [4, 0]


def test_heal_turns_a_bare_wound_into_a_one_shot_flaw(rules) -> None:  # type: ignore[no-untyped-def]
    """The hero's 12 doubles the foe's 1: Damage, a wound with no extras (the other perk
    traded). In round 2 the foe's 8 doubles the hero's 1: Heal on its own bare wound ends the
    wound, and its flaw stays, One-Shot now."""
    answers = ["damage", "foe", "stays", "two_minor", "heal", "foe", "two_minor"]
    result = challenge(rules, [12, 1, 1, 8], answers, challengers=["hero", "foe"], sides=[1, 2], votes=[5, 3],
                       max_rounds=2)
    assert result["wounds"] == [0, 0] and result["one_shot_flaws"] == [0, 1]


# ---------------------------------------------------------------- 8. Spend Adversity results


@pytest.mark.parametrize(("option", "price", "ignored", "edges"), [
    ("overcome_flaws", 2, 1, 0), ("unexpected_edge", 5, 0, 1)])
def test_spend_adversity_names_what_it_buys(rules, option: str, price: int, ignored: int, edges: int) -> None:  # type: ignore[no-untyped-def]
    """Wren holds 1 adversity: the rest of the price is debt (§3.10)."""
    run = rules.run("Spend Adversity", as_=rules.entity(str(EXAMPLES / "wren.yaml")), option=option,
                    no_fitting_trait=True)
    assert run.results["paid"] == 1 and run.results["debt_taken"] == price - 1
    assert (run.results["flaws_ignored"], run.results["edges_without_slot"]) == (ignored, edges)


# ---------------------------------------------------------------- 9. Law Limits in a major action


@pytest.mark.parametrize(("votes", "laws", "die"), [(1, 4, "d8"), (1, 2, "d8"), (3, -1, "d6"), (3, -5, "d4")])
def test_a_major_actions_laws_are_held_at_two(rules, votes: int, laws: int, die: str) -> None:  # type: ignore[no-untyped-def]
    """Law Limits (§3.6): the laws' net is held between -2 and +2; the votes then give the die
    of the book's table (§3.2)."""
    held = max(-2, min(2, laws))
    assert f"d{book_pool(votes + held)[-1]}" == die
    run = rules.resolve("Major Action", dice=[1, 1], action_votes=votes, opposing_votes=1, action_laws=laws)
    assert next(d.label for d in run.trace.dice()) == die


def test_a_major_action_with_laws_from_the_command_line(cli) -> None:  # type: ignore[no-untyped-def]
    """1 vote and 4 laws: 3 votes, a d8 showing 6, against a d4's 3: double (6 >= 2 x 3)."""
    out = cli("resolve", "mezzo", "Major Action", "--with", "action_votes=1", "--with", "opposing_votes=1",
              "--with", "action_laws=4", "--dice", "6,3", "--json")
    assert out.code == 0, out.stderr
    results = json.loads(out.stdout)["results"]
    assert (results["outcome"], results["major_perks"]) == ("double_success", 2)


# ---------------------------------------------------------------- 10. Momentum Transfer


def test_a_trump_draws_only_what_its_supporters_can_receive(rules) -> None:  # type: ignore[no-untyped-def]
    """A goal with 8 momentum; the hero's 8 doubles the foe's 4: two Pushes (8 >= 2 x 2: no
    counter), two trumps, and the foe is exiled. The first trump: 1 free use and 4 drawn, 5
    awards, the hero's limit. The second can award nothing more, so it draws nothing: the goal
    keeps 8 - 4 = 4 (it lost all 8 before)."""
    result = challenge(rules, [8, 4], ["push", "push", "remain", "exile_in_defeat"], challengers=["hero", "foe"],
                       sides=[1, 2], votes=[3, 1], goal_momentum=[8])
    assert result["momentum"] == [5, 0]
    assert result["goal_momentum"] == [8 - 4, 0]


# ---------------------------------------------------------------- 11. Claim Character


def test_a_character_claimed_by_another_player_can_not_be_claimed(cli) -> None:  # type: ignore[no-untyped-def]
    thief = EXAMPLES / "thief.yaml"
    before = thief.read_text()
    out = cli("run", "mezzo", "Claim Character", "--with", "player=bo", "--with", "claimed_by=ana", "--against", str(thief))
    assert out.code == 1 and "claim_open_to" in out.stderr and thief.read_text() == before


def test_character_upgrade_comes_with_the_first_claim_only(rules) -> None:  # type: ignore[no-untyped-def]
    """Ana claims an unclaimed character: 2 edge slots and 3 free votes; her own claim renewed
    is not the first: no slots."""
    first = rules.run("Claim Character", against=rules.entity(str(EXAMPLES / "thief.yaml")), player="ana")
    assert (first.results["edge_slots"], first.results["creative_control_votes"]) == (2, 3)
    again = rules.run("Claim Character", against=rules.entity(str(EXAMPLES / "thief.yaml")), player="ana",
                      claimed_by="ana")
    assert again.results["edge_slots"] == 0


# ---------------------------------------------------------------- 12. A refusal's help


def test_a_refusal_shows_the_inputs_it_read(cli) -> None:  # type: ignore[no-untyped-def]
    """No Escape needs 3 triggered hooks: given 2, the help says so; Unexpected Edge without
    the condition names both values (the level's own name is not repeated)."""
    out = cli("run", "mezzo", "No Escape Stake", "--with", "hooks=2", "--as", str(EXAMPLES / "thief.yaml"),
              "--against", str(EXAMPLES / "guard.yaml"))
    assert out.code == 1 and "help: here hooks = 2" in out.stderr
    out = cli("run", "mezzo", "Spend Adversity", "--with", "option=unexpected_edge", "--as", str(EXAMPLES / "wren.yaml"))
    assert out.code == 1 and "help: here option = unexpected_edge; no_fitting_trait = false" in out.stderr


def test_a_refusal_in_any_game_shows_its_inputs(tmp_path: Path) -> None:
    """The core, on a game of its own: a check's and a procedure's require read an input and
    an option."""
    (tmp_path / "game.rules").write_text(
        "option mode: easy | hard = easy\n\n"
        "check Task (difficulty: number)\n"
        "  require difficulty >= 1\n"
        "  result ok = true\n\n"
        "procedure Job (size: number = 1)\n"
        "  require size < 3 or mode == hard\n"
        "  result done = true\n")
    game = load(str(tmp_path / "game.rules"))
    with pytest.raises(RunebookError) as error:
        game.resolve("Task", difficulty=0)
    assert error.value.diagnostics[0].help == "here difficulty = 0"
    with pytest.raises(RunebookError) as error:
        game.run("Job", size=4)
    assert error.value.diagnostics[0].help == "here size = 4; mode = easy"
