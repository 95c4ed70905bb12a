"""Mezzo challenges (spec mezzo.md §3.12-3.13): the `Challenge` procedure of
rulesets/mezzo/challenges.rules run with given dice and answers. Each expected result is worked
out in the docstring from the book's rules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from runebook.interpreter.rules import load
from runebook.interpreter.rules.model import RunebookError
from runebook.interpreter.rules.procedures import ScriptedDriver


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load("mezzo")


def plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value if isinstance(value, int) else str(value)


def challenge(rules, dice: list[int], answers: list[str], **inputs: Any) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    run = rules.run("Challenge", dice=dice, driver=ScriptedDriver(answers), **inputs)
    return {k: plain(v) for k, v in run.results.items()}


def test_two_against_one_from_the_command_line(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Ana (3 votes, d8) and Bo (2, d6) against an ogre (5, d12): 8, 2 and 4. Ana doubles the
    ogre's 4: two major perks, both Push (the goal's 0 momentum does not protect its trumps, the
    counter is declined). Bo and the ogre fail: a point of adversity each. Two trumps: enough to
    exile the one opponent; the side then has no opponents and leaves in victory. Each of the
    goal's 2 trumps gives its supporters a momentum boost: Ana 1, then Bo (the least) 1."""
    answers = tmp_path / "challenge.yaml"
    answers.write_text("- push\n- allow\n- push\n- allow\n- remain\n- exile_in_defeat\n")
    out = cli("run", "mezzo", "Challenge", "--with", "challengers=ana,bo,ogre", "--with", "sides=1,1,2",
              "--with", "votes=3,2,5", "--dice", "8,2,4", "--choices", str(answers))
    assert out.code == 0, out.stderr
    for line in ("rounds: 1", "left: [victory, victory, defeat]", "momentum: [1, 1, 0]",
                 "adversity: [0, 1, 1]", "trumps: [2, 0]"):
        assert line in out.stdout


def test_t08_a_trump_transfers_four_momentum(rules) -> None:  # type: ignore[no-untyped-def]
    """T08: a goal with 4 momentum and 1 trump, all supporters gone: the boost is used 5 times
    (1 free, 4 drawn from the goal) and the 5th hits the recipient's limit of 5 awards. The Push
    needs no counter answer: 4 momentum protects one trump."""
    result = challenge(rules, [8, 4], ["push", "two_minor", "withdraw_in_victory"],
                       challengers=["hero", "foe"], sides=[1, 2], votes=[3, 1], goal_momentum=[4])
    assert result["left"] == ["victory", "victory"]
    assert result["momentum"] == [5, 0]
    assert result["goal_momentum"] == [0, 0]
    assert result["minor_perks"] == [2, 0]


def test_five_restraints_force_defeat_and_boost_the_opponents(rules) -> None:  # type: ignore[no-untyped-def]
    """A d12 against a d4, three rounds of 12 against 1: two Binds a round. The foe's dice stay
    one d4 (restraints hold it). The fifth restraint forces the foe out in defeat; the last perk
    has no one to bind and is traded for two minor perks. Five restraints: five boosts for the
    hero (the cap). The foe failed three major actions: 3 adversity, no momentum to convert."""
    answers = ["bind", "foe", "bind", "foe", "bind", "foe", "bind", "foe", "bind", "foe", "two_minor"]
    result = challenge(rules, [12, 1, 12, 1, 12, 1], answers, challengers=["hero", "foe"], sides=[1, 2],
                       votes=[5, 1])
    assert result["left"] == ["victory", "defeat"]
    assert result["restraints"] == [0, 5]
    assert result["momentum"] == [5, 0]
    assert result["adversity"] == [0, 3]
    assert result["rounds"] == 3


def test_defeat_turns_momentum_into_adversity(rules) -> None:  # type: ignore[no-untyped-def]
    """Both sides push their goal to 2 trumps; then the foe's goal exiles the hero. Each goal's
    2 trumps give its supporters 2 momentum when they have all left. The hero, defeated,
    converts 2 momentum into 1 adversity (1 already from a failed action)."""
    answers = ["push", "allow", "push", "allow", "remain", "spare",
               "push", "allow", "push", "allow", "remain", "spare", "remain", "exile_in_defeat"]
    result = challenge(rules, [8, 4, 1, 8], answers, challengers=["hero", "foe"], sides=[1, 2], votes=[3, 3])
    assert result["left"] == ["defeat", "victory"]
    assert result["trumps"] == [2, 2]
    assert result["momentum"] == [0, 2]
    assert result["adversity"] == [2, 1]


def test_a_complication_counters_a_push(rules) -> None:  # type: ignore[no-untyped-def]
    """Push, countered: treated as a Ruin, the trump goes and the goal gains a momentum."""
    result = challenge(rules, [8, 4], ["push", "complicate", "two_minor"], challengers=["hero", "foe"],
                       sides=[1, 2], votes=[3, 1], max_rounds=1)
    assert result["trumps"] == [0, 0] and result["goal_momentum"] == [1, 0]
    assert result["left"] == ["still_in", "still_in"]


def test_ruin_needs_an_unprotected_goal_with_a_trump(rules) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as error:
        challenge(rules, [8, 4], ["ruin"], challengers=["hero", "foe"], sides=[1, 2], votes=[3, 1])
    assert error.value.diagnostics[0].code == "E0613"
    assert "open_goals" in error.value.diagnostics[0].message


def test_a_challenge_needs_two_sides(rules) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as error:
        challenge(rules, [], [], challengers=["a", "b"], sides=[1, 1], votes=[1, 1])
    assert error.value.diagnostics[0].code == "E0613"


@pytest.mark.parametrize(("picks", "adversity", "minor"), [("push hinder", [0, 0], [1, 1]), ("push damage", [1, 0], [0, 2])])
def test_specialty_picks(rules, picks: str, adversity: list[int], minor: list[int]) -> None:  # type: ignore[no-untyped-def]
    """A27: keeping to a Specialty's picks adds a vote (2 votes + 1: a d8, not a d6). A tie
    (5 against 5) earns a minor perk; with only major picks the roll loses 1: a failure and a
    point of adversity, and the foe's 5 now beats a 4: a success (its major perk traded for
    two minor ones here)."""
    run = rules.run("Challenge", dice=[5, 5], answers={"perk": "two_minor", "keep_picks": "keep_to_picks"},
                    challengers=["hero", "foe"], sides=[1, 2], votes=[2, 2], specialty=[picks], max_rounds=1)
    assert [d.label for d in run.trace.dice()] == ["d8", "d6"]
    assert list(run.results["adversity"]) == adversity
    assert list(run.results["minor_perks"]) == minor


SPECIALTY_DUEL: dict[str, Any] = {"challengers": ["hero", "foe"], "sides": [1, 2], "votes": [2, 2], "max_rounds": 1}


@pytest.mark.parametrize("picks", ["push", "push hinder bind", "push push", "hindr expose", "break free"])
def test_a_specialty_picks_exactly_two_challenge_perks(rules, picks: str) -> None:  # type: ignore[no-untyped-def]
    """§3.19: a Specialty's Set Up selects 2 challenge perks; one, three, the same perk twice or
    a misspelt one is refused before any die, and the help shows the perks it read."""
    with pytest.raises(RunebookError) as error:
        rules.run("Challenge", dice=[5, 4], specialty=[picks], **SPECIALTY_DUEL)
    diagnostic = error.value.diagnostics[0]
    assert diagnostic.code == "E0613" and "two_specialty_picks" in diagnostic.message
    assert "specialty_picks(words) = [" in (diagnostic.help or "")


@pytest.mark.parametrize(("picks", "perk", "allowed"), [
    ("push damage", "push", True), ("push damage", "bind", False), ("push damage", "two_minor", False),
    ("bind hinder", "two_minor", True), ("break_free damage", "damage", True),
])
def test_a_kept_specialty_uses_only_its_picks(rules, picks: str, perk: str, allowed: bool) -> None:  # type: ignore[no-untyped-def]
    """§3.19: the extra vote is for an owner who limits themselves to the picks. The hero's d8
    (2 votes + 1) shows 5 against the foe's 4: a success, one major perk (5 is not twice 4). A
    perk outside the picks is refused; trading the major perk for two minor ones (A26) needs a
    minor pick to spend them on."""
    answers = {"keep_picks": "keep_to_picks", "perk": perk, "push_counter": "allow", "withdraw": "remain",
               "exile": "spare", "wounded": "foe", "wounded_leaves": "stays"}
    if not allowed:
        with pytest.raises(RunebookError) as error:
            rules.run("Challenge", dice=[5, 4], answers=answers, specialty=[picks], **SPECIALTY_DUEL)
        assert "kept_to_specialty" in error.value.diagnostics[0].message
        assert f"kept_picks = {picks}" in (error.value.diagnostics[0].help or "")
        return
    run = rules.run("Challenge", dice=[5, 4], answers=answers, specialty=[picks], **SPECIALTY_DUEL)
    result = {k: plain(v) for k, v in run.results.items()}
    assert result["trumps"] == ([1, 0] if perk == "push" else [0, 0])
    assert result["minor_perks"] == ([2, 0] if perk == "two_minor" else [0, 0])
    assert result["wounds"] == ([0, 1] if perk == "damage" else [0, 0])


def test_a_specialty_not_kept_to_gives_no_vote_and_frees_the_perks(rules) -> None:  # type: ignore[no-untyped-def]
    """§3.19: without keeping to the picks there is no extra vote (2 votes: a d6), and any perk
    may be used: the hero's 5 beats the foe's 4 and binds it, a perk its Specialty did not pick."""
    run = rules.run("Challenge", dice=[5, 4], driver=ScriptedDriver(["any_perk", "bind", "foe"]),
                    specialty=["push damage"], **SPECIALTY_DUEL)
    assert [d.label for d in run.trace.dice()] == ["d6", "d6"]
    assert list(run.results["restraints"]) == [0, 1]


@pytest.mark.parametrize(("minor_perk", "allowed"), [("hinder", True), ("discover", False)])
def test_a_kept_specialty_plays_only_its_minor_pick(rules, minor_perk: str, allowed: bool) -> None:  # type: ignore[no-untyped-def]
    """§3.12, §3.19: a tie (5 against 5) earns each side a minor perk; the hero, keeping to
    "push hinder", may Hinder the foe (a One-Shot flaw on it) but not Discover a detail. The
    foe, with no Specialty, Discovers freely."""
    answers = ["keep_to_picks", minor_perk] + (["foe"] if minor_perk == "hinder" else []) + ["discover"]
    inputs: dict[str, Any] = {"specialty": ["push hinder"], "minor_perks_played": True, **SPECIALTY_DUEL}
    if not allowed:
        with pytest.raises(RunebookError, match="kept_to_specialty"):
            challenge(rules, [5, 5], answers, **inputs)
        return
    results = challenge(rules, [5, 5], answers, **inputs)
    assert (results["one_shot_flaws"], results["details"]) == ([0, 1], [0, 1])


@pytest.mark.parametrize(("penalty", "keep", "adversity", "minor"), [
    ("always", "any_perk", [1, 0], [0, 2]), ("when_kept", "any_perk", [0, 0], [1, 1]),
    ("when_kept", "keep_to_picks", [1, 0], [0, 2]),
])
def test_a27_the_tie_penalty_of_a_specialty_without_a_minor_pick(rules, penalty: str, keep: str, adversity: list[int],
                                                                  minor: list[int]) -> None:
    """§3.19: "If the owner only rolls well enough for a minor perk but does not have a minor
    perk as one of their Specialty selections, reduce the number rolled by 1" (a tie, A27).
    The sentence has no condition: by default the penalty holds even when the owner does not
    keep to the picks; `specialty_tie_penalty = when_kept` keeps it to kept actions. A tie at 4
    reduced to 3 fails (1 adversity) and the foe's 4 wins (its major perk traded for two minor
    ones); left at 4, the tie earns each a minor perk."""
    hero_votes = 1 if keep == "keep_to_picks" else 2  # both roll a d6
    run = rules.run("Challenge", dice=[4, 4], options={"specialty_tie_penalty": penalty},
                    answers={"keep_picks": keep, "perk": "two_minor"}, challengers=["hero", "foe"], sides=[1, 2],
                    votes=[hero_votes, 2], specialty=["push damage"], max_rounds=1)
    assert [d.label for d in run.trace.dice()] == ["d6", "d6"]
    assert list(run.results["adversity"]) == adversity
    assert list(run.results["minor_perks"]) == minor


def test_a17_spending_trumps_on_exile(rules) -> None:  # type: ignore[no-untyped-def]
    """As the two-against-one challenge, but exiling the ogre spends one of the two trumps: the
    one left gives a single momentum boost (to Ana, the first of the least)."""
    result = rules.run("Challenge", dice=[8, 2, 4], options={"trump_spending": "consume"},
                       driver=ScriptedDriver(["push", "allow", "push", "allow", "remain", "exile_in_defeat"]),
                       challengers=["ana", "bo", "ogre"], sides=[1, 1, 2], votes=[3, 2, 5]).results
    assert list(result["trumps"]) == [1, 0]
    assert list(result["momentum"]) == [1, 0, 0]


def test_a28_surrender_takes_the_major_action(rules) -> None:  # type: ignore[no-untyped-def]
    """Round 1: both fight on; the hero's 8 doubles the foe's 4: a Push and two minor perks.
    Round 2: the foe
    surrenders instead of acting (defeat; no dice rolled); the hero, with no opponent left,
    leaves in victory, and the goal's trump gives it a momentum point."""
    run = rules.run("Challenge", dice=[8, 4], challengers=["hero", "foe"], sides=[1, 2], votes=[3, 2],
                    surrender_offered=True,
                    driver=ScriptedDriver(["fight_on", "fight_on", "push", "allow", "two_minor", "remain", "spare",
                                           "fight_on", "surrender_now"]))
    assert len(list(run.trace.dice())) == 2
    assert [str(x) for x in run.results["left"]] == ["victory", "defeat"]
    assert list(run.results["momentum"]) == [1, 0] and run.results["rounds"] == 2


def test_a28_a_bound_challenger_may_leave_at_once(rules) -> None:  # type: ignore[no-untyped-def]
    """Right after gaining a restraint, leaving costs no major action (§3.13)."""
    run = rules.run("Challenge", dice=[12, 1], challengers=["hero", "foe"], sides=[1, 2], votes=[5, 1],
                    surrender_offered=True,
                    driver=ScriptedDriver(["fight_on", "fight_on", "bind", "foe", "surrenders", "two_minor"]))
    assert [str(x) for x in run.results["left"]] == ["victory", "defeat"]
    assert list(run.results["restraints"]) == [0, 1]
    assert list(run.results["momentum"]) == [1, 0]  # the restraint's momentum boost


def test_a16_a_challenge_started_from_an_action_check(rules) -> None:  # type: ignore[no-untyped-def]
    """§3.12, A16: the action check (the foe's 7 against the hero's 3) is the first round: the
    foe succeeds (a Push: 7 >= 2 x 3, two perks, one traded for two minor), the hero fails and
    gains a point of adversity; round 2 is rolled (6 against 5)."""
    run = rules.run("Challenge", dice=[6, 5], challengers=["hero", "foe"], sides=[1, 2], votes=[3, 3],
                    opening_scores=[3, 7], max_rounds=2,
                    driver=ScriptedDriver(["push", "allow", "two_minor", "remain", "spare", "two_minor", "remain", "spare"]))
    assert len(list(run.trace.dice())) == 2
    assert list(run.results["trumps"]) == [0, 1] and list(run.results["adversity"]) == [1, 1]
    assert list(run.results["minor_perks"]) == [2, 2]


def test_a16_opening_scores_for_every_challenger(rules) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as error:
        challenge(rules, [], [], challengers=["a", "b"], sides=[1, 2], votes=[1, 1], opening_scores=[3])
    assert "opening_scores" in error.value.diagnostics[0].message


def test_a_side_that_withdrew_cannot_exile_too(rules) -> None:  # type: ignore[no-untyped-def]
    """§3.13: trumps are spent on one of Victorious Withdrawal or Defeated Exile, and a
    challenger who has left can no longer affect those still in. Ana's 8 doubles the ogre's 4:
    two Pushes, two trumps. Her side withdraws in victory; the ogre then has no opponents left
    and also leaves in victory (Ending Challenges): no exile is asked (the answers would run
    out), and he gains no adversity beyond his failed action's point."""
    run = rules.run("Challenge", dice=[8, 4], challengers=["ana", "ogre"], sides=[1, 2], votes=[3, 2],
                    driver=ScriptedDriver(["push", "allow", "push", "allow", "withdraw_in_victory"]))
    assert [str(x) for x in run.results["left"]] == ["victory", "victory"]
    assert list(run.results["adversity"]) == [0, 1]
    assert list(run.results["momentum"]) == [2, 0]


def test_d6_game_major_actions(rules) -> None:  # type: ignore[no-untyped-def]
    """§3.20: major actions are action checks, left to chance: the D6 game rolls them. The
    hero (3 votes, threshold 3) rolls a 5: 5; the foe (2 votes, threshold 2) rolls a 2 and
    keeps it: 2. 5 doubles 2: two Pushes; the two trumps exile the foe (a point of adversity
    for the failed action) and each gives the hero a momentum point. Every die is a d6."""
    run = rules.run("Challenge", dice=[5, 2], options={"dice_game": "sixes"}, challengers=["hero", "foe"],
                    sides=[1, 2], votes=[3, 2],
                    driver=ScriptedDriver(["keep", "push", "allow", "push", "allow", "remain", "exile_in_defeat"]))
    assert [d.label for d in run.trace.dice()] == ["d6", "d6"]
    assert [str(x) for x in run.results["left"]] == ["victory", "defeat"]
    assert list(run.results["momentum"]) == [2, 0] and list(run.results["adversity"]) == [0, 1]


def test_damage_adds_two_extras_to_a_wound_and_heal_takes_them_off(rules) -> None:  # type: ignore[no-untyped-def]
    """§3.12, Damage's second choice. Round 1: the hero's d12 shows 12 against the foe's d4 at
    1: a double success, two Damages on the foe: a new wound, then 2 extras on that wound (his
    only one, so no wound is asked for). The foe fails: 1 adversity. Round 2: the foe's 4
    against the hero's 1 (with one wound the foe keeps his d4: wounds lock out no die) is a
    double success: the first Heal takes the 2 extras off the wound, the second, on a wound
    with no extras, ends it (its Wound modifier becomes One-Shot). The hero fails: 1 adversity."""
    answers = ["damage", "foe", "stays", "damage", "foe", "worsen_wound", "stays", "heal", "foe", "heal", "foe"]
    result = challenge(rules, [12, 1, 1, 4], answers, challengers=["hero", "foe"], sides=[1, 2], votes=[5, 1],
                       max_rounds=2)
    assert result["wounds"] == [0, 0]
    assert result["wound_extras"] == [[], []]
    assert result["adversity"] == [1, 1]
    one_round = challenge(rules, [12, 1], answers[:7], challengers=["hero", "foe"], sides=[1, 2], votes=[5, 1],
                          max_rounds=1)
    assert one_round["wounds"] == [0, 1]
    assert one_round["wound_extras"] == [[], [2]]


def test_damage_picks_which_wound_gains_the_extras(rules) -> None:  # type: ignore[no-untyped-def]
    """Two rounds of 12 against 1. Round 1: two new wounds on the foe. Round 2: the first
    Damage puts 2 extras on his first wound (asked: he has two), the second is a third wound.
    Three wounds give the hero three momentum boosts only when the foe leaves: he is still in."""
    answers = ["damage", "foe", "stays", "damage", "foe", "new_wound", "stays",
               "damage", "foe", "worsen_wound", 1, "stays", "damage", "foe", "new_wound", "stays"]
    result = challenge(rules, [12, 1, 12, 1], answers, challengers=["hero", "foe"], sides=[1, 2], votes=[5, 1],
                       max_rounds=2)
    assert result["wound_extras"] == [[], [2, 0, 0]]
    assert result["wounds"] == [0, 3]
    assert result["momentum"] == [0, 0]


def test_sudden_surge_in_a_challenge(rules) -> None:  # type: ignore[no-untyped-def]
    """§3.10, A12. The hero (1 vote: a d4, 4 adversity brought in) rolls 3 against the foe's
    d6 at 4. After the dice he buys two Sudden Surges: the first for 3 adversity (1 left), the
    second for that point and 2 of debt; with none left he is not asked again. 5 against 4: a
    success, not a double (5 < 8), traded for two minor perks; the foe fails (1 adversity).
    Round 2: the hero's 1 against the foe's 6. The hero has no adversity and is not asked; the
    foe (1 point) declines. The foe's double success: four minor perks. The hero's failure
    gives 1 adversity, which pays off a point of debt instead."""
    answers = ["surge_once", "surge_once", "two_minor", "no_surge", "two_minor", "two_minor"]
    result = challenge(rules, [3, 4, 1, 6], answers, challengers=["hero", "foe"], sides=[1, 2], votes=[1, 2],
                       adversity=[4], surge_offered=True, max_rounds=2)
    assert result["surges"] == [2, 0]
    assert result["debt"] == [1, 0]
    assert result["adversity"] == [0, 1]
    assert result["minor_perks"] == [2, 4]
    # Without the surges the hero's 3 fails against 4: the foe takes the round.
    plain_run = challenge(rules, [3, 4], ["two_minor"], challengers=["hero", "foe"], sides=[1, 2], votes=[1, 2],
                          adversity=[4], max_rounds=1)
    assert plain_run["adversity"] == [5, 0]
    assert plain_run["minor_perks"] == [0, 2]


def test_damage_or_bind_after_the_last_opponent_left_is_refused(rules) -> None:  # type: ignore[no-untyped-def]
    """12 against 1: the first Damage wounds the foe, who leaves in defeat; the second perk has
    no opponent left to fall on. Damage or Bind is refused naming the rule (E0613
    `opponents_still_in`), not the engine's empty choice (E0627)."""
    for perk in ("damage", "bind"):
        with pytest.raises(RunebookError) as error:
            challenge(rules, [12, 1], ["damage", "foe", "leaves_in_defeat", perk], challengers=["hero", "foe"],
                      sides=[1, 2], votes=[5, 1])
        message = str(error.value)
        assert "E0613" in message and "opponents_still_in" in message and "E0627" not in message
