"""What an audit of the d10 pool notes against the ruleset found missing or wrong, played and
tested (rulesets/d10-pool/complex.rules, group.rules).

- CA.5: milestones the Storyteller awards without a roll (`Complex Action`, input `awarded`).
- XB.9: a mixed action's successes meet the Complications of its challenges too (`Mixed
  Action`, `Mixed Roll`, input `complications`).
- XB.1 with DB.12-15: a contested roll played whole from the sheets (`Contested Roll`): a lost
  contest is a failed roll with its Consolation; Scale, Feats of Scale, Momentum dice, an owed
  Enhancement and the Drawback that helps the antagonist act on it.
- Fixed: a complex action's teamwork ignored the options `teamwork_gate` and
  `enhancement_cap` (the README said it followed them); a mixed action under
  `enhancement_gate=meet_difficulty` judged the gate against the smallest Difficulty, so an
  Enhancement could carry a harder challenge the roll alone did not reach (DB.8 forbids it);
  Teamwork under `helper_ungated` and `hard_three` could add more than 3.

Expected values are worked out by hand from the notes (each case says how); exact odds are
compared with an enumeration of faces written here, 10-again off so every face is listed.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import pytest
import yaml

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.rules.procedures import ScriptedDriver
from test_d10pool_procedures import plain

EXAMPLES = Path(__file__).resolve().parent.parent / "rulesets" / "d10-pool" / "examples"


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("d10-pool")


def hits(faces: tuple[int, ...], target: int = 8) -> int:
    return sum(1 for f in faces if f >= target)


def refused(call) -> list[str]:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as error:
        call()
    return [d.code for d in error.value.diagnostics]


# ---------------------------------------------------------------- CA.5: milestones without rolls


def test_awarded_milestones_complete_the_action_without_a_roll(rules) -> None:  # type: ignore[no-untyped-def]
    """CA.5: two milestones awarded for a complex action that needs two: done, no die rolled."""
    run = rules.run("Complex Action", pool=3, milestones=2, interval_limit=3, awarded=2, dice=[])
    assert plain(run.results) == {"outcome": "success", "milestones": 2, "intervals": 0}
    assert run.trace.dice() == []


def test_awarded_milestones_count_toward_the_goal(rules) -> None:  # type: ignore[no-untyped-def]
    """CA.5 with CA.3: one milestone awarded, three needed. Interval 1 rolls 8, 2 (one success
    meets Difficulty 1: a second milestone); interval 2 rolls 1, 9 (the third): done in two of
    three intervals. Without the award the same dice leave it at two."""
    run = rules.run("Complex Action", pool=2, milestones=3, interval_limit=3, awarded=1, dice=[8, 2, 1, 9])
    assert plain(run.results) == {"outcome": "success", "milestones": 3, "intervals": 2}
    without = rules.run("Complex Action", pool=2, milestones=3, interval_limit=3, dice=[8, 2, 1, 9, 3, 4])
    assert plain(without.results) == {"outcome": "failure", "milestones": 2, "intervals": 3}


def test_a_negative_award_is_refused(rules) -> None:  # type: ignore[no-untyped-def]
    assert refused(lambda: rules.run("Complex Action", pool=2, awarded=-1, dice=[8, 8])) == ["E0613"]


def test_awarded_milestones_odds_match_an_enumeration(rules) -> None:  # type: ignore[no-untyped-def]
    """One awarded, three needed within two intervals of two dice against Difficulty 1: both
    intervals must be met. Every face of the four dice, counted by hand."""
    milestones: Counter = Counter()
    for faces in product(range(1, 11), repeat=4):
        milestones[1 + (hits(faces[:2]) >= 1) + (hits(faces[2:]) >= 1)] += Fraction(1, 10 ** 4)
    odds = rules.odds("Complex Action", pool=2, milestones=3, interval_limit=2, awarded=1,
                      options={"ten_again": "off"})
    assert odds.residual == 0
    assert dict(odds.results["milestones"]) == dict(milestones)
    assert {plain(k): v for k, v in odds.results["outcome"].items()} == {
        "success": Fraction(51, 100) ** 2, "failure": 1 - Fraction(51, 100) ** 2}


# ---------------------------------------------------------------- teamwork on a complex action's intervals


def test_complex_action_teamwork_follows_teamwork_gate(rules) -> None:  # type: ignore[no-untyped-def]
    """A7 on an interval (CA.7-8): the helper rolls 8, 9 (two successes), the main roller 2, 3
    (none, and no 1: a failure, not a Botch). Gated (the default) the help waits behind the
    main roller's success: no milestone. Under helper_ungated the two are added anyway and meet
    Difficulty 2. (Before the fix the option did not reach complex actions.)"""
    inputs = dict(pool=2, helpers=[2], difficulty=2, milestones=1, interval_limit=1, dice=[8, 9, 2, 3])
    gated = rules.run("Complex Action", **inputs)
    assert plain(gated.results) == {"outcome": "failure", "milestones": 0, "intervals": 1}
    free = rules.run("Complex Action", options={"teamwork_gate": "helper_ungated"}, **inputs)
    assert plain(free.results) == {"outcome": "success", "milestones": 1, "intervals": 1}


def test_complex_action_teamwork_follows_the_hard_cap(rules) -> None:  # type: ignore[no-untyped-def]
    """A5 on an interval: own Enhancement 2 and a helper's three successes (8, 8, 8) are 5;
    the main roller's 8, 2 is one success. 1 + 5 = 6 meets Difficulty 5 by default; held at 3
    (hard_three) it is 1 + 3 = 4, short. (Before the fix it was 6 under hard_three too.)"""
    inputs = dict(pool=2, helpers=[3], enhancement=2, difficulty=5, milestones=1, interval_limit=1,
                  dice=[8, 8, 8, 8, 2])
    assert plain(rules.run("Complex Action", **inputs).results)["outcome"] == "success"
    capped = rules.run("Complex Action", options={"enhancement_cap": "hard_three"}, **inputs)
    assert plain(capped.results)["outcome"] == "failure"
    apart = rules.run("Complex Action", options={"enhancement_cap": "hard_three", "teamwork_cap": "apart"}, **inputs)
    assert plain(apart.results)["outcome"] == "success"  # help apart from the cap: 2 + 3 stands


def test_teamwork_ungated_help_is_held_at_three(rules) -> None:  # type: ignore[no-untyped-def]
    """A5 with A7: five helper successes added whatever the main roller rolls (helper_ungated)
    are held at 3 under hard_three: the main roller's 2, 3 (none) makes 3 against Difficulty 2,
    one threshold success. (Before the fix the five all counted: total 5.)"""
    options = {"teamwork_gate": "helper_ungated", "enhancement_cap": "hard_three"}
    run = rules.run("Teamwork", pool=2, helpers=[5], difficulty=2, dice=[8, 8, 8, 8, 8, 2, 3], options=options)
    assert (run.results["help"], run.results["total_successes"], run.results["threshold_successes"]) == (5, 3, 1)


def test_complex_action_with_ungated_helpers_odds(rules) -> None:  # type: ignore[no-untyped-def]
    """One interval, a helper of 1 die (rolled first) and a main roller of 1 die against
    Difficulty 1 under helper_ungated: met when the main die shows 8 or more, or shows 2 to 7
    and the helper's 8 or more; a main 1 with no success is a Botch (DB.13), which no help
    undoes. By hand: 3/10 + 6/10 * 3/10 = 12/25."""
    met = sum(Fraction(1, 100) for helper, main in product(range(1, 11), repeat=2)
              if main >= 8 or (main != 1 and helper >= 8))
    assert met == Fraction(3, 10) + Fraction(6, 10) * Fraction(3, 10)
    odds = rules.odds("Complex Action", pool=1, helpers=[1], milestones=1, interval_limit=1,
                      options={"ten_again": "off", "teamwork_gate": "helper_ungated"})
    assert odds.residual == 0
    assert {plain(k): v for k, v in odds.results["outcome"].items()} == {"success": met, "failure": 1 - met}


# ---------------------------------------------------------------- XB.9: a mixed action's Complications


def test_mixed_action_buys_off_each_challenges_complications(rules) -> None:  # type: ignore[no-untyped-def]
    """XB.9, A9: pools 6 and 4 roll 4 dice: 8, 9, 10, 3 and the 10's extra die (1) are three
    successes. Challenge 1 (Difficulty 2) has 1 threshold success, enough for its Minor
    complication (1); challenge 2 (Difficulty 1) has 2, enough for its Notable one (2). Each
    pays from its own threshold (independent, A6)."""
    inputs = dict(pools=[6, 4], difficulties=[2, 1], complications=[1, 2], dice=[8, 9, 10, 3, 1])
    run = rules.run("Mixed Action", driver=ScriptedDriver(["pay", "pay"]), **inputs)
    assert plain(run.results) == {"pool": 4, "successes": 3, "total_successes": 3,
                                  "outcomes": ["success", "success"], "threshold_successes": [1, 2], "momentum": 0,
                                  "complications_bought": [1, 2], "complications_left": []}
    assert [c for c, _ in run.choices] == ["buy", "buy"]
    left = rules.run("Mixed Action", driver=ScriptedDriver(["leave", "pay"]), **inputs)
    assert plain((left.results["complications_bought"], left.results["complications_left"])) == [[2], [1]]


def test_a_complication_beyond_the_threshold_or_on_a_failed_challenge(rules) -> None:  # type: ignore[no-untyped-def]
    """Three successes (8, 9, 8, 2) against Difficulties 2 and 4, a Notable complication on
    each: challenge 1's one threshold success cannot pay 2 (not offered, it stands); challenge
    2 fails, so its complication, a consequence of overcoming it, never arises."""
    run = rules.run("Mixed Action", pools=[4, 4], difficulties=[2, 4], complications=[2, 2], dice=[8, 9, 8, 2])
    assert run.choices == ()
    assert plain(run.results)["outcomes"] == ["success", "failure"]
    assert plain((run.results["complications_bought"], run.results["complications_left"])) == [[], [2]]


def test_mixed_complications_under_partition(rules) -> None:  # type: ignore[no-untyped-def]
    """A6 partition: four successes (8, 9, 8, 8) split in order. Challenge 1 takes its
    Difficulty 1 and, paying its Notable complication, 2 more: one is left, short of challenge
    2's Difficulty 2. Leaving the complication standing keeps three for challenge 2 (met, one
    threshold success)."""
    inputs = dict(pools=[4, 5], difficulties=[1, 2], complications=[2, 0], dice=[8, 9, 8, 8],
                  options={"mixed_allocation": "partition"})
    paid = rules.run("Mixed Action", driver=ScriptedDriver(["pay"]), **inputs)
    assert plain((paid.results["outcomes"], paid.results["complications_bought"])) == [["success", "failure"], [2]]
    kept = rules.run("Mixed Action", driver=ScriptedDriver(["leave"]), **inputs)
    assert plain((kept.results["outcomes"], kept.results["threshold_successes"], kept.results["complications_left"])) \
        == [["success", "success"], [3, 1], [2]]


def test_mixed_complications_are_one_rating_per_challenge(rules) -> None:  # type: ignore[no-untyped-def]
    assert refused(lambda: rules.run("Mixed Action", pools=[3, 3], difficulties=[1, 1], complications=[1],
                                     dice=[8, 8, 8])) == ["E0613"]
    assert refused(lambda: rules.run("Mixed Action", pools=[3, 3], difficulties=[1, 1], complications=[1, -1],
                                     dice=[8, 8, 8])) == ["E0613"]


def test_mixed_roll_from_a_sheet_with_complications(rules) -> None:  # type: ignore[no-untyped-def]
    """Ayla climbs (Dexterity 4 + Athletics 3 = 7) and hides (Cunning 3 + Subterfuge 3 = 6):
    six dice, 8, 8, 9, 1, 2, 3: three successes; Difficulty 1 and 2 leave 2 and 1 threshold
    successes, which pay a Minor complication on each."""
    run = rules.run("Mixed Roll", as_=rules.entity(str(EXAMPLES / "ayla.yaml")), attributes=["Dexterity", "Cunning"], skills=["Athletics", "Subterfuge"],
                    difficulties=[1, 2], complications=[1, 1], dice=[8, 8, 9, 1, 2, 3],
                    driver=ScriptedDriver(["pay", "pay"]))
    assert plain(run.results) == {"pools": [7, 6], "pool": 6, "outcomes": ["success", "success"],
                                  "threshold_successes": [2, 1], "consolations": [None, None],
                                  "momentum_gained": 0, "momentum": None,
                                  "complications_bought": [1, 1], "complications_left": []}


def test_mixed_complications_odds_match_every_face(rules) -> None:  # type: ignore[no-untyped-def]
    """Two dice against Difficulties 1 and 2, a Minor complication on each, every offer
    answered `pay` (odds take a choice's first option). By hand: s successes pay challenge 1's
    when s - 1 >= 1 and challenge 2's when s - 2 >= 1; a met challenge that cannot pay keeps it."""
    bought: Counter = Counter()
    standing: Counter = Counter()
    for faces in product(range(1, 11), repeat=2):
        s = hits(faces)
        paid, left = [], []
        for d in (1, 2):
            if s >= d:
                (paid if s - d >= 1 else left).append(1)
        bought[tuple(paid)] += Fraction(1, 100)
        standing[tuple(left)] += Fraction(1, 100)
    odds = rules.odds("Mixed Action", pools=[2, 3], difficulties=[1, 2], complications=[1, 1],
                      options={"ten_again": "off"})
    assert odds.residual == 0
    assert {tuple(plain(k)): v for k, v in odds.results["complications_bought"].items()} == dict(bought)
    assert {tuple(plain(k)): v for k, v in odds.results["complications_left"].items()} == dict(standing)


# ---------------------------------------------------------------- A1 per challenge in a mixed action


def test_mixed_enhancement_gate_is_each_challenges_difficulty(rules) -> None:  # type: ignore[no-untyped-def]
    """DB.8 (enhancement_gate=meet_difficulty): one success (8, 2, 3) and Enhancement 2
    against Difficulties 1 and 3. Challenge 1: the roll reaches 1, so the Enhancement counts:
    3, two threshold successes. Challenge 2: the roll alone (1) does not reach 3, so no
    Enhancement: a failure. (Before the fix the gate was judged against Difficulty 1 for both,
    and challenge 2 succeeded on the Enhancement.) Under the default gate (XB.4) both are met."""
    inputs = dict(pools=[3, 3], difficulties=[1, 3], enhancement=2, dice=[8, 2, 3])
    strict = rules.run("Mixed Action", options={"enhancement_gate": "meet_difficulty"}, **inputs)
    assert plain((strict.results["outcomes"], strict.results["threshold_successes"])) == [["success", "failure"], [2, 0]]
    assert strict.results["momentum"] == 1  # the failed challenge's consolation
    default = rules.run("Mixed Action", **inputs)
    assert plain((default.results["outcomes"], default.results["threshold_successes"])) == [["success", "success"], [2, 0]]


# ---------------------------------------------------------------- a contested roll played whole


def sheet(rules, name: str):  # type: ignore[no-untyped-def]
    return rules.entity(str(EXAMPLES / f"{name}.yaml"))


CONTEST = dict(attribute="Dexterity", skill="Athletics", defender_attribute="Dexterity", defender_skill="Athletics")


def contest(rules, answers: list[str] = (), actor: str = "ayla", **inputs: Any):  # type: ignore[no-untyped-def]
    """Ayla (Dexterity 4 + Athletics 3: seven dice, rolled first) against the Night Hunter
    (Dexterity 3 + Athletics 2: five dice), the troupe (3 Momentum of 8) holding Momentum."""
    return rules.run("Contested Roll", as_=[sheet(rules, actor), sheet(rules, "troupe")],
                     against=sheet(rules, "hunter"), driver=ScriptedDriver(list(answers)), **(CONTEST | inputs))


def test_a_lost_contest_gives_a_consolation(rules) -> None:  # type: ignore[no-untyped-def]
    """XB.1 with DB.12 and CO.5: Ayla's 8, 9 (two successes) against the Hunter's 8, 9, 8
    (three): she loses, a failed roll, and takes Momentum: 1, the troupe goes 3 -> 4."""
    run = contest(rules, ["take_momentum"], dice=[8, 9, 2, 3, 4, 5, 6, 8, 9, 8, 2, 2])
    assert plain(run.results) == {"pool": 7, "defender_pool": 5, "total": 2, "defender_total": 3,
                                  "outcome": "failure", "margin": -1, "consolation": "take_momentum",
                                  "momentum_gained": 1, "momentum": 4}
    assert [c for c, _ in run.choices] == ["consolation"]


def test_a_botched_contest_gives_three_momentum_unasked(rules) -> None:  # type: ignore[no-untyped-def]
    """DB.13-15: no success and a 1 among Ayla's dice; the Hunter rolls none either, and the tie
    goes to him: a Botch, 3 Momentum (3 -> 6), no consolation asked."""
    run = contest(rules, dice=[1, 2, 3, 4, 5, 6, 7, 2, 2, 2, 2, 2])
    assert plain((run.results["outcome"], run.results["consolation"], run.results["momentum_gained"],
                  run.results["momentum"])) == ["botch", "take_momentum", 3, 6]
    assert run.choices == ()


def test_a_contest_won_gives_nothing_and_a_tie_goes_to_the_defender(rules) -> None:  # type: ignore[no-untyped-def]
    """XB.1: two successes each (8, 9 against 9, 8): the Hunter defends and keeps the tie;
    with `actor_defends` (he attacks, Ayla resists) the tie is hers, a success, no consolation."""
    dice = [8, 9, 2, 3, 4, 5, 6, 9, 8, 2, 2, 2]
    lost = contest(rules, ["fateful_encounter"], dice=dice)
    assert plain((lost.results["outcome"], lost.results["momentum_gained"])) == ["failure", 0]
    held = contest(rules, dice=dice, actor_defends=True)
    assert plain((held.results["outcome"], held.results["margin"], held.results["consolation"],
                  held.results["momentum"])) == ["success", 0, None, 3]


def test_scale_and_a_feat_of_scale_in_a_contest(rules) -> None:  # type: ignore[no-untyped-def]
    """XB.13, SS.4: the same two-all tie; Scale 1 is one more success once one is rolled (A17):
    3 against 2, Ayla wins by 1. Invoking her Title instead costs 1 Legend (2 -> 1) for the
    same +1."""
    dice = [8, 9, 2, 3, 4, 5, 6, 9, 8, 2, 2, 2]
    scaled = contest(rules, dice=dice, scale=1)
    assert plain((scaled.results["total"], scaled.results["outcome"], scaled.results["margin"])) == [3, "success", 1]
    feat = contest(rules, dice=dice, feat="title")
    assert plain(feat.results["outcome"]) == "success"
    assert feat.state["actor"]["resources"]["Legend"] == 1


def test_momentum_dice_and_drawbacks_in_a_contest(rules) -> None:  # type: ignore[no-untyped-def]
    """XB.18: two Momentum buy two dice: nine, the troupe 3 -> 1. XB.5-6 with the Drawbacks
    table: Enhancement 4 alone is refused (E0613); with "antagonists get a free Enhancement"
    it plays, and the Hunter's two successes become 3 (Enhancement 1, behind his gate):
    Ayla's one success + 4 = 5 wins by 2."""
    more = contest(rules, dice=[8] + [2] * 8 + [2] * 5, momentum_dice=2)
    assert plain((more.results["pool"], more.results["outcome"], more.results["momentum"])) == [9, "success", 1]
    assert len(more.trace.dice()) == 9 + 5
    dice = [8, 2, 3, 4, 5, 6, 7, 9, 8, 2, 2, 2]
    assert refused(lambda: contest(rules, dice=dice, enhancement=4)) == ["E0613"]
    run = contest(rules, dice=dice, enhancement=4, drawback="antagonist_enhancement")
    assert plain((run.results["total"], run.results["defender_total"], run.results["outcome"])) == [5, 3, "success"]


def test_an_owed_advantage_serves_a_contest(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """CO.4, A24: Ayla lost a contest and took Unlooked-for Advantage; on the next contest (a
    different challenge) her one success gets Enhancement 1: 2 against the Hunter's 1."""
    first = contest(rules, ["unlooked_for_advantage"], dice=[2, 2, 2, 2, 2, 2, 2, 8, 2, 2, 2, 2],
                    challenge="the rooftops")
    assert first.state["actor"]["conditions"] == ['Advantage Owed("the rooftops")']
    path = tmp_path / "ayla.yaml"
    path.write_text(yaml.safe_dump({k: first.state["actor"][k] for k in ("name", "stats", "resources", "conditions")}))
    ayla = rules.entity(str(path))
    run = rules.run("Contested Roll", as_=[ayla, sheet(rules, "troupe")], against=sheet(rules, "hunter"),
                    dice=[8, 2, 2, 2, 2, 2, 2, 8, 2, 2, 2, 2], challenge="the alley", **CONTEST)
    assert plain((run.results["total"], run.results["outcome"])) == [2, "success"]
    assert run.state["actor"]["conditions"] == []


def test_contested_roll_odds_match_every_face(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Two dice against one, 10-again off, consolation answered `take_momentum` (odds take
    the first option): every face of the three dice, by hand. The actor wins with more
    successes; losing with none and a 1 is a Botch (3 Momentum), else a failure (1)."""
    hero = tmp_path / "hero.yaml"
    hero.write_text("name: Hero\nstats:\n  Dexterity: 1\n  Athletics: 1\n")
    foe = tmp_path / "foe.yaml"
    foe.write_text("name: Foe\nstats:\n  Dexterity: 1\n  Athletics: 0\n")
    outcome: Counter = Counter()
    momentum: Counter = Counter()
    for faces in product(range(1, 11), repeat=3):
        mine, theirs = hits(faces[:2]), hits(faces[2:])
        result = "success" if mine > theirs else "botch" if mine == 0 and 1 in faces[:2] else "failure"
        outcome[result] += Fraction(1, 1000)
        momentum[{"success": 0, "failure": 1, "botch": 3}[result]] += Fraction(1, 1000)
    odds = rules.odds("Contested Roll", as_=rules.entity(str(hero)), against=rules.entity(str(foe)),
                      options={"ten_again": "off"}, **CONTEST)
    assert odds.residual == 0
    assert {plain(k): v for k, v in odds.results["outcome"].items()} == dict(outcome)
    assert dict(odds.results["momentum_gained"]) == dict(momentum)


# ---------------------------------------------------------------- opposed complex actions played as complex actions


def test_opposed_awarded_milestones(rules) -> None:  # type: ignore[no-untyped-def]
    """CA.5 in an opposed race to 2 (CA.10-11): awarded one, the actor's 8 against the
    defender's 9 in the first interval is 2 to 1, first to the goal: a win. Without the award
    it is 1 to 1, and the second interval's 3 against 9 gives the defender the race. A defender
    awarded the whole goal wins before a die is rolled."""
    inputs = dict(pool=1, defender_pool=1, milestones=2, interval_limit=2)
    run = rules.run("Opposed Complex Action", awarded=1, dice=[8, 9], **inputs)
    assert plain(run.results) == {"outcome": "success", "milestones": 2, "defender_milestones": 1}
    plain_race = rules.run("Opposed Complex Action", dice=[8, 9, 3, 9], **inputs)
    assert plain(plain_race.results) == {"outcome": "failure", "milestones": 1, "defender_milestones": 2}
    ahead = rules.run("Opposed Complex Action", defender_awarded=2, dice=[], **inputs)
    assert plain(ahead.results) == {"outcome": "failure", "milestones": 0, "defender_milestones": 2}
    assert ahead.trace.dice() == []


def test_opposed_momentum_consolation_and_an_extra_interval(rules) -> None:  # type: ignore[no-untyped-def]
    """A15 and XB.19 in an opposed race to 2 within 1 interval, the troupe (3 Momentum) given:
    the actor's 3 fails (+1 Momentum: 4), the defender's 2 too; level at the limit, so the
    troupe buys one more interval (1 Momentum: 3). There the actor's 9 beats the defender's 2:
    ahead 1 to 0 at the new limit, no further interval is offered, and the actor wins."""
    run = rules.run("Opposed Complex Action", as_=sheet(rules, "troupe"), pool=1, defender_pool=1, milestones=2,
                    interval_limit=1, dice=[3, 2, 9, 2], driver=ScriptedDriver(["add_interval"]))
    assert plain(run.results) == {"outcome": "success", "milestones": 1, "defender_milestones": 0, "momentum": 3}
    assert [c for c, _ in run.choices] == ["extend"]
    assert run.state["actor"]["resources"]["Momentum"] == 3


def test_opposed_helpers(rules) -> None:  # type: ignore[no-untyped-def]
    """CA.7-8 in an opposed race to 1, Difficulty 2 both sides: the helper's 9 is Enhancement 1
    on the actor's 8 (two successes: met); the defender's 8 alone is one, short. Without the
    helper the actor's 8 is short too, and the tie at the limit goes to the defender."""
    inputs = dict(pool=1, defender_pool=1, difficulty=2, defender_difficulty=2, milestones=1, interval_limit=1)
    helped = rules.run("Opposed Complex Action", helpers=[1], dice=[9, 8, 8], **inputs)
    assert plain(helped.results) == {"outcome": "success", "milestones": 1, "defender_milestones": 0}
    alone = rules.run("Opposed Complex Action", dice=[8, 8], **inputs)
    assert plain(alone.results) == {"outcome": "failure", "milestones": 0, "defender_milestones": 0}


def test_opposed_awarded_odds_match_a_walk(rules) -> None:  # type: ignore[no-untyped-def]
    """One die a side against Difficulty 1 (each interval met with 3/10, 10-again off, every
    face listed), race to 2 within 2 intervals, the actor awarded 1: a walk over the
    intervals from (1, 0); ties at the limit go to the defender."""
    p = sum(Fraction(1, 10) for face in range(1, 11) if face >= 8)
    states: Counter = Counter({(1, 0): Fraction(1)})
    won = Fraction(0)
    for interval in (1, 2):
        nxt: Counter = Counter()
        for (mine, theirs), w in states.items():
            for a, b in product((1, 0), repeat=2):
                m, t = mine + a, theirs + b
                pw = w * (p if a else 1 - p) * (p if b else 1 - p)
                if m >= 2 or t >= 2 or interval == 2:
                    won += pw * (m > t)
                else:
                    nxt[(m, t)] += pw
        states = nxt
    odds = rules.odds("Opposed Complex Action", pool=1, defender_pool=1, milestones=2, interval_limit=2, awarded=1,
                      options={"ten_again": "off"})
    assert odds.residual == 0
    assert {plain(k): v for k, v in odds.results["outcome"].items()} == {"success": won, "failure": 1 - won}


# ---------------------------------------------------------------- A5's hard cap everywhere an Enhancement is given


def test_hard_cap_holds_in_a_mixed_action(rules) -> None:  # type: ignore[no-untyped-def]
    """A5 (enhancement_cap=hard_three): one success (8, 2) and Enhancement 5 against
    Difficulties 5 and 1. Held at 3 the total is 4: the first challenge fails, the second is met
    with 3 threshold successes. (Before the fix the 5 counted whole: 6, both met.)"""
    run = rules.run("Mixed Action", pools=[2, 2], difficulties=[5, 1], enhancement=5, dice=[8, 2],
                    options={"enhancement_cap": "hard_three"})
    assert plain((run.results["total_successes"], run.results["outcomes"], run.results["threshold_successes"])) \
        == [4, ["failure", "success"], [0, 3]]


def test_hard_cap_holds_in_a_contested_action(rules) -> None:  # type: ignore[no-untyped-def]
    """A5 in a contested roll: the actor's one success (8, 2) with Enhancement 5 against the
    defender's four (8, 9, 8, 9). Uncapped 6 beats 4; held at 3 it is 4 to 4 and the tie goes
    to the defender (XB.1). (Before the fix the option did not reach contested actions.)"""
    inputs = dict(pool=2, defender_pool=4, enhancement=5, dice=[8, 2, 8, 9, 8, 9])
    assert plain(rules.resolve("contested action", **inputs).results)["outcome"] == "success"
    capped = plain(rules.resolve("contested action", options={"enhancement_cap": "hard_three"}, **inputs).results)
    assert (capped["total"], capped["defender_total"], capped["outcome"]) == (4, 4, "failure")


# ---------------------------------------------------------------- teamwork inside a whole roll


def roll(rules, answers: list[str] = (), **inputs: Any):  # type: ignore[no-untyped-def]
    """Ayla's Dexterity 4 + Athletics 3 (seven dice) with the troupe (3 Momentum)."""
    return rules.run("Roll", as_=[sheet(rules, "ayla"), sheet(rules, "troupe")], attribute="Dexterity",
                     skill="Athletics", driver=ScriptedDriver(list(answers)), **inputs)


def test_a_roll_with_a_helper_spends_as_usual(rules) -> None:  # type: ignore[no-untyped-def]
    """XB.12 inside Roll: a helper of 4 dice rolls first, 9, 8, 3, 1 (two successes, the 1 is no
    Botch of hers); Ayla's 8, 2, 3, 4, 5, 6, 7 is one success: 1 + 2 = 3 against Difficulty 2,
    one threshold success (Competent), which buys off the Minor complication (DB.9)."""
    run = roll(rules, ["pay"], difficulty=2, helpers=[4], complications=[1], dice=[9, 8, 3, 1, 8, 2, 3, 4, 5, 6, 7])
    results = plain(run.results)
    assert (results["successes"], results["total_successes"], results["outcome"], results["degree"],
            results["complications_bought"], results["threshold_left"]) == (1, 3, "success", "Competent", [1], 0)
    assert run.shown == {"help_successes": 2, "over_soft_cap": False}
    # Enhancement 2 and the same two helper successes make 4, above the soft cap of 3 with no
    # Drawback (XB.6): the dice decided it, so the roll plays and is flagged (A5, A7).
    over = roll(rules, ["pay", "done"], difficulty=2, helpers=[4], enhancement=2, complications=[1],
                dice=[9, 8, 3, 1, 8, 2, 3, 4, 5, 6, 7])
    assert (over.results["total_successes"], over.shown["over_soft_cap"]) == (5, True)


def test_a_roll_with_a_helper_follows_the_teamwork_gate(rules) -> None:  # type: ignore[no-untyped-def]
    """A7: the helper's 9, 8 with none of Ayla's seven dice a success (no 1 either): gated, the
    help waits and the roll fails (the troupe takes 1 Momentum); helper_ungated, 2 meets
    Difficulty 2."""
    dice = [9, 8, 2, 3, 4, 5, 6, 7, 2]
    gated = roll(rules, ["take_momentum"], difficulty=2, helpers=[2], dice=dice)
    assert plain((gated.results["total_successes"], gated.results["outcome"], gated.results["momentum"])) \
        == [0, "failure", 4]
    free = roll(rules, ["done"], difficulty=2, helpers=[2], dice=dice, options={"teamwork_gate": "helper_ungated"})
    assert plain((free.results["total_successes"], free.results["outcome"])) == [2, "success"]


def test_a_roll_with_helpers_odds_match_every_face(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A hero of 1 + 1 dice and a helper of 1 die against Difficulty 2, 10-again off: every
    face of the three dice (the helper's first), read by hand: the help counts once the hero
    rolls a success; no success and a 1 is a Botch."""
    hero = tmp_path / "hero.yaml"
    hero.write_text("name: Hero\nstats:\n  Dexterity: 1\n  Athletics: 1\n")
    outcome: Counter = Counter()
    for faces in product(range(1, 11), repeat=3):
        help_, mine = hits(faces[:1]), faces[1:]
        rolled = hits(mine)
        total = rolled + (help_ if rolled >= 1 else 0)
        result = "botch" if rolled == 0 and 1 in mine else "success" if total >= 2 else "failure"
        outcome[result] += Fraction(1, 1000)
    odds = rules.odds("Roll", as_=rules.entity(str(hero)), attribute="Dexterity", skill="Athletics", difficulty=2,
                      helpers=[1], options={"ten_again": "off"})
    assert odds.residual == 0
    assert {plain(k): v for k, v in odds.results["outcome"].items()} == dict(outcome)
