"""Cases derived from the d10 pool notes' mechanics (spec d10pool.md §2, §3), played as a user
would, through the command line and the Python API: a second audit after
test_d10pool_audit.py, test_d10pool_options_audit.py, test_d10pool_procedures.py and
test_checks_d10pool.py.

Defects found and fixed (rulesets/d10-pool/mechanics.rules, rolls.rules, complex.rules):

- A5: the `Action` check itself ignored `enhancement_cap=hard_three` (Enhancement 5 added 5);
  `Contested Action` and `Mixed Action` held it at 3. The cap and the helpers' share now live in
  `Action` (its input `help`).
- DB.4: a target number outside the die's faces was taken (11: every 10 rolled again and
  counted as a failure; 0 made every die a success).
- XB.3, XB.13, XB.18: negative Enhancement, Scale, Specialty or Momentum dice were taken (a
  Roll with `momentum_dice=-2` lost two dice and spent nothing); a complication rated below 1
  was bought off for a gain (`complications=-2` gave two more threshold successes).
- A19: `Contested Action` ignored `zero_pool=reject`.
- CA.6: a complex action with no time pressure whose interval can never be met (no dice, or
  10-again off and too few) ran until the interpreter stopped it (run: E0612; odds: E0614);
  it now fails with nothing rolled (an opposed one when neither side can score: a tie, to the
  defender).
- DB.5: `Mixed Roll` and `Contest` took no target number, so a higher Tier's lower one could
  not reach them.

Exact odds are compared with enumerations written here: every face with 10-again off, and a
die's 10-again chain in closed form when it is on.
"""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from itertools import product
from typing import Any

import pytest

from runebook import interpreter
from runebook.interpreter.rules.procedures import ScriptedDriver
from d10pool_helpers import plain, refused, sheets

TEN = Fraction(1, 10)
DEGREES = {0: "Normal", 1: "Competent", 2: "Excellence", 3: "Amazing"}


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("d10-pool")


# ---------------------------------------------------------------- independent enumerations


def die_chain(target: int, top: int = 40) -> dict[int, Fraction]:
    """Successes of one die with 10-again: k-1 tens then a success below 10, or k tens then a
    failure."""
    chain = {0: Fraction(target - 1, 10)}
    for k in range(1, top):
        chain[k] = TEN ** (k - 1) * Fraction(10 - target, 10) + TEN**k * Fraction(target - 1, 10)
    return chain


def pool_successes(pool: int, target: int, top: int = 40) -> dict[int, Fraction]:
    dist = {0: Fraction(1)}
    for _ in range(pool):
        step: dict[int, Fraction] = {}
        for a, p in dist.items():
            for b, q in die_chain(target, top).items():
                if a + b < top:
                    step[a + b] = step.get(a + b, 0) + p * q
        dist = step
    return dist


def action_by_faces(pool: int, difficulty: int, enhancement: int, options: dict[str, str]) -> Counter:
    """Outcome and degree of every face of `pool` dice, 10-again off, read from the notes."""
    cap = options.get("enhancement_cap") == "hard_three"
    exceed = options.get("fail_on_equal") == "exceed_difficulty"
    found: Counter = Counter()
    for faces in product(range(1, 11), repeat=pool):
        rolled = sum(f >= 8 for f in faces)
        total = rolled + ((min(enhancement, 3) if cap else enhancement) if rolled >= 1 else 0)
        met = total > difficulty if exceed else total >= difficulty
        outcome = "botch" if rolled == 0 and 1 in faces else "success" if met else "failure"
        degree = DEGREES.get(total - difficulty, "Divine") if outcome == "success" else None
        found[(outcome, degree)] += TEN**pool
    return found


# ---------------------------------------------------------------- defects (each failed before the fix)


def test_a5_hard_cap_holds_in_the_action_check(rules, cli) -> None:  # type: ignore[no-untyped-def]
    """XB.5 under enhancement_cap=hard_three: one success (8, 2, 2) and Enhancement 5 is
    1 + 3 = 4 successes, three threshold successes (Amazing), from the command line too."""
    run = cli("resolve", "d10-pool", "action", "--with", "pool=3", "--with", "enhancement=5", "--option",
              "enhancement_cap=hard_three", "--dice", "8,2,2", "--json")
    assert run.code == 0, run.stderr
    results = json.loads(run.stdout)["results"]
    assert (results["total_successes"], results["threshold_successes"], results["degree"]) == (4, 3, "Amazing")
    # The default keeps the check's Enhancement whole (the Drawback is a Roll's business).
    free = rules.resolve("action", pool=3, enhancement=5, dice=[8, 2, 2]).results
    assert free["total_successes"] == 6
    # Exact odds, every face of two dice against Difficulty 4, both caps.
    for options in ({"enhancement_cap": "hard_three"}, {}):
        odds = rules.odds("action", pool=2, difficulty=4, enhancement=5, options={"ten_again": "off", **options})
        joint: Counter = Counter()
        for (outcome, _), p in action_by_faces(2, 4, 5, options).items():
            joint[outcome] += p
        assert {plain(k): v for k, v in odds.results["outcome"].items()} == dict(joint), options


def test_a5_hard_cap_holds_for_the_opposed_complex_defender(rules) -> None:  # type: ignore[no-untyped-def]
    """The defender of an opposed complex action with Enhancement 5 under hard_three: one
    success (8) is 1 + 3 = 4, short of Difficulty 5; uncapped it is 6 and a milestone."""
    dice = [2, 8]  # the actor's 2, the defender's 8
    kwargs = dict(pool=1, defender_pool=1, defender_difficulty=5, defender_enhancement=5, milestones=1,
                  interval_limit=1, dice=dice)
    capped = rules.run("Opposed Complex Action", options={"enhancement_cap": "hard_three"}, **kwargs).results
    free = rules.run("Opposed Complex Action", **kwargs).results
    assert (capped["defender_milestones"], free["defender_milestones"]) == (0, 1)


@pytest.mark.parametrize("target", [0, 11, -3])
def test_db4_target_number_is_a_face_of_the_die(rules, target: int) -> None:  # type: ignore[no-untyped-def]
    """DB.4: the target number is a face a die must equal or exceed, 1 to 10 (spec §1.3); 11
    would make a 10 a failure that is still rolled again."""
    assert refused(lambda: rules.resolve("action", pool=2, target_number=target, dice=[10, 10, 5, 5])) == ["E0613"]
    assert refused(lambda: rules.resolve("Contested Action", pool=1, defender_pool=1,
                                         defender_target_number=target, dice=[8, 8])) == ["E0613"]


def test_db4_lowest_and_highest_target_numbers(rules) -> None:  # type: ignore[no-untyped-def]
    """Target 1: every face succeeds, so 1, 1 is two successes and no Botch. Target 10: only 10s,
    each rolled again (10, 9 then the extra 3: one success)."""
    low = rules.resolve("action", pool=2, target_number=1, dice=[1, 1]).results
    assert (low["successes"], plain(low["outcome"])) == (2, "success")
    high = rules.resolve("action", pool=2, target_number=10, dice=[10, 9, 3]).results
    assert (high["successes"], plain(high["outcome"])) == (1, "success")


@pytest.mark.parametrize("inputs", [{"enhancement": -1}, {"scale": -1}, {"specialty": -1}, {"bonus": -2}])
def test_xb3_negative_bonuses_are_refused_by_the_check(rules, inputs: dict[str, int]) -> None:  # type: ignore[no-untyped-def]
    """Enhancement and Scale are successes added (XB.3, XB.13); a Specialty adds Momentum
    (CO.5): none is negative. Before, 8, 8 with Enhancement -1 was one success."""
    assert refused(lambda: rules.resolve("action", pool=2, dice=[8, 8], **inputs)) == ["E0613"]


def test_negative_momentum_dice_and_complications_are_refused_in_a_roll(rules) -> None:  # type: ignore[no-untyped-def]
    """XB.18: Momentum buys dice, so -2 Momentum dice would take two of Ayla's seven away and
    spend nothing; DB.9 with the Complication table: a rating starts at 1 (Minor), and a
    rating of -2 bought off gave two threshold successes back."""
    hero, troupe = sheets(rules, "ayla", "troupe")

    def roll(**inputs: Any):  # type: ignore[no-untyped-def]
        return rules.run("Roll", as_=[hero, troupe], attribute="Dexterity", skill="Athletics",
                         driver=ScriptedDriver(["pay", "done"]), **inputs)

    assert refused(lambda: roll(momentum_dice=-2, dice=[8] * 5)) == ["E0613"]
    assert refused(lambda: roll(complications=[-2], dice=[8, 8, 1, 1, 1, 1, 1])) == ["E0613"]
    assert refused(lambda: roll(complications=[0], dice=[8, 8, 1, 1, 1, 1, 1])) == ["E0613"]
    assert refused(lambda: roll(enhancement=-1, dice=[8] * 7)) == ["E0613"]
    # Rating 1 is bought at 1: two successes against Difficulty 1 leave none.
    ok = roll(complications=[1], dice=[8, 8, 1, 1, 1, 1, 1]).results
    assert (plain(ok["complications_bought"]), ok["threshold_left"]) == ([1], 0)


def test_negative_momentum_dice_are_refused_in_a_contested_roll(rules) -> None:  # type: ignore[no-untyped-def]
    ayla, troupe, hunter = sheets(rules, "ayla", "troupe", "hunter")
    assert refused(lambda: rules.run("Contested Roll", as_=[ayla, troupe], against=hunter, attribute="Dexterity",
                                     skill="Athletics", defender_attribute="Dexterity",
                                     defender_skill="Athletics", momentum_dice=-1, dice=[8] * 11)) == ["E0613"]


def test_a19_contested_action_honours_zero_pool_reject(rules) -> None:  # type: ignore[no-untyped-def]
    """A19's alternative refuses a pool of no dice, on either side of a contest; by default an
    empty pool rolls nothing and loses the tie (0 against 0 goes to the defender)."""
    for pools in ((0, 2), (2, 0)):
        assert refused(lambda: rules.resolve("Contested Action", pool=pools[0], defender_pool=pools[1], dice=[8, 8],
                                             options={"zero_pool": "reject"})) == ["E0613"]
    empty = rules.resolve("Contested Action", pool=0, defender_pool=0, dice=[]).results
    assert (plain(empty["outcome"]), empty["margin"]) == ("failure", 0)


def test_ca6_an_interval_that_can_never_be_met_fails_without_rolling(rules) -> None:  # type: ignore[no-untyped-def]
    """CA.6 without time pressure: with no dice (A19's default), or 10-again off and one die
    against Difficulty 2, no interval can be met; the action fails with nothing rolled, in a
    run and in the odds, instead of rolling for ever."""
    for inputs, options in (({"pool": 0}, {}), ({"pool": 1, "difficulty": 2}, {"ten_again": "off"})):
        run = rules.run("Complex Action", milestones=2, dice=[], options=options, **inputs).results
        assert (plain(run["outcome"]), run["milestones"]) == ("failure", 0)
        odds = rules.odds("Complex Action", milestones=2, options=options, **inputs)
        assert {plain(k): v for k, v in odds.results["outcome"].items()} == {"failure": 1}
    # A helper's successes (ungated) or a character doing intervals alongside can still score.
    helped = rules.run("Complex Action", pool=0, helpers=[1], milestones=1, dice=[8],
                       options={"teamwork_gate": "helper_ungated"}).results
    alongside = rules.run("Complex Action", pool=0, others=[1], milestones=1, dice=[9]).results
    assert (plain(helped["outcome"]), plain(alongside["outcome"])) == ("success", "success")
    # With 10-again one helper's die can give any number of successes (10, then 8: two, for
    # Difficulty 2); without it one die gives at most one, and the action cannot succeed.
    ungated = {"teamwork_gate": "helper_ungated"}
    chained = rules.run("Complex Action", pool=0, helpers=[1], difficulty=2, milestones=1, dice=[10, 8], options=ungated)
    short = rules.run("Complex Action", pool=0, helpers=[1], difficulty=2, milestones=1, dice=[],
                      options={**ungated, "ten_again": "off"})
    assert (plain(chained.results["outcome"]), plain(short.results["outcome"])) == ("success", "failure")
    # Neither side of an opposed one can score: a tie at 0, to the defender.
    opposed = rules.run("Opposed Complex Action", pool=0, defender_pool=0, milestones=1, dice=[]).results
    assert (plain(opposed["outcome"]), opposed["milestones"], opposed["defender_milestones"]) == ("failure", 0, 0)
    assert refused(lambda: rules.run("Complex Action", pool=-1, milestones=1, dice=[])) == ["E0613"]
    # Nothing rolled is no excuse for a Difficulty of 0 (DB.17) or a target number off the die.
    assert refused(lambda: rules.run("Complex Action", pool=0, difficulty=0, milestones=1, dice=[])) == ["E0613"]
    assert refused(lambda: rules.run("Opposed Complex Action", pool=0, defender_pool=0, target_number=11,
                                     milestones=1, dice=[])) == ["E0613"]


# ---------------------------------------------------------------- golden cases derived from the rules

# (check, inputs, dice, options, expected results): each line restates one rule.
GOLDEN: list[tuple[str, dict[str, Any], list[int], dict[str, str], dict[str, Any]]] = [
    # DB.4-5: 8 is a success at the default target number, 7 is not.
    ("action", {"pool": 1}, [8], {}, {"successes": 1, "outcome": "success", "degree": "Normal"}),
    ("action", {"pool": 1}, [7], {}, {"successes": 0, "outcome": "failure", "momentum": 1}),
    # DB.5: a lower target number (a higher Tier): 7 succeeds at 7.
    ("action", {"pool": 2, "target_number": 7}, [7, 6], {}, {"successes": 1, "outcome": "success"}),
    # DB.13-15: one die showing 1 is a Botch, 3 Momentum; CO.5 with a Specialty 4 (A3), fixed3 3.
    ("action", {"pool": 1}, [1], {}, {"outcome": "botch", "momentum": 3}),
    ("action", {"pool": 3, "specialty": 1}, [1, 1, 1], {}, {"outcome": "botch", "momentum": 4}),
    ("action", {"pool": 3, "specialty": 1}, [1, 5, 7], {"botch_momentum": "fixed3"}, {"outcome": "botch", "momentum": 3}),
    ("action", {"pool": 2, "specialty": 1}, [5, 7], {}, {"outcome": "failure", "momentum": 2}),
    # A 1 beside a success is no Botch.
    ("action", {"pool": 2, "difficulty": 2}, [1, 9], {}, {"outcome": "failure", "momentum": 1}),
    # A19: no dice, no success, no 1: a Failure, never a Botch.
    ("action", {"pool": 0}, [], {}, {"successes": 0, "outcome": "failure", "momentum": 1}),
    # DB.16: all 10s are rolled again until a die is not a 10 (3 tens, 3 more, then 1, 1, 1).
    ("action", {"pool": 3}, [10, 10, 10, 10, 10, 10, 1, 1, 1], {},
     {"successes": 6, "threshold_successes": 5, "degree": "Divine"}),
    ("action", {"pool": 2}, [10, 10], {"ten_again": "off"}, {"successes": 2}),
    # A2: a total equal to the Difficulty succeeds (Normal), or fails read literally.
    ("action", {"pool": 2, "difficulty": 2}, [8, 9], {}, {"outcome": "success", "threshold_successes": 0, "degree": "Normal"}),
    ("action", {"pool": 2, "difficulty": 2}, [8, 9], {"fail_on_equal": "exceed_difficulty"}, {"outcome": "failure", "momentum": 1}),
    ("action", {"pool": 3, "difficulty": 2}, [8, 9, 10, 2], {"fail_on_equal": "exceed_difficulty"},
     {"outcome": "success", "threshold_successes": 1, "degree": "Competent"}),
    # A1: Enhancement after one success (XB.4), or only once the Difficulty is met (DB.8).
    ("action", {"pool": 2, "difficulty": 3, "enhancement": 1}, [8, 9], {}, {"total_successes": 3, "outcome": "success"}),
    ("action", {"pool": 2, "difficulty": 3, "enhancement": 1}, [8, 9], {"enhancement_gate": "meet_difficulty"},
     {"total_successes": 2, "outcome": "failure"}),
    ("action", {"pool": 2, "difficulty": 1, "enhancement": 3}, [2, 3], {}, {"total_successes": 0, "outcome": "failure"}),
    # A17: Scale waits behind the gate, or not.
    ("action", {"pool": 2, "difficulty": 2, "scale": 1}, [8, 2], {}, {"total_successes": 2, "outcome": "success"}),
    # Degree of Success: 4 threshold successes and more are Divine.
    ("action", {"pool": 9, "difficulty": 5}, [8] * 9, {}, {"threshold_successes": 4, "degree": "Divine"}),
    # XB.1: ties go to the defender; Enhancement on the actor's side breaks it.
    ("Contested Action", {"pool": 2, "defender_pool": 2}, [8, 1, 9, 2], {}, {"outcome": "failure", "margin": 0}),
    ("Contested Action", {"pool": 2, "defender_pool": 2, "enhancement": 2}, [8, 2, 9, 9], {},
     {"total": 3, "defender_total": 2, "outcome": "success", "margin": 1}),
    # 10, 8 and the 10's extra 5: two successes, tied with 9, 9 (the 5 is no success).
    ("Contested Action", {"pool": 2, "defender_pool": 2}, [10, 8, 5, 9, 9], {},
     {"total": 2, "defender_total": 2, "outcome": "failure"}),
    # XB.9-10: the smallest pool (4 of 6, 4); one challenge fails while the other succeeds.
    ("Mixed Action", {"pools": [6, 4], "difficulties": [2, 1]}, [8, 2, 2, 2], {},
     {"pool": 4, "outcomes": ["failure", "success"], "momentum": 1}),
    # A6 partition: 3 successes meet Difficulty 2, and the 1 left meets Difficulty 1; 2 do not.
    ("Mixed Action", {"pools": [3, 3], "difficulties": [2, 1]}, [8, 8, 8], {"mixed_allocation": "partition"},
     {"outcomes": ["success", "success"]}),
    ("Mixed Action", {"pools": [3, 3], "difficulties": [2, 1]}, [8, 8, 2], {"mixed_allocation": "partition"},
     {"outcomes": ["success", "failure"]}),
    # XB.12: helpers roll first; their successes are the main roller's Enhancement.
    ("Teamwork", {"pool": 2, "helpers": [2], "difficulty": 3}, [8, 9, 8, 2], {}, {"help": 2, "total_successes": 3, "outcome": "success"}),
    ("Teamwork", {"pool": 2, "helpers": [2], "difficulty": 2}, [8, 9, 2, 2], {}, {"help": 2, "total_successes": 0, "outcome": "failure"}),
    # CA.3-4: a milestone per interval met; 2 needed within 3 intervals.
    ("Complex Action", {"pool": 1, "milestones": 2, "interval_limit": 3}, [8, 2, 9], {},
     {"outcome": "success", "milestones": 2, "intervals": 3}),
    ("Complex Action", {"pool": 1, "milestones": 2, "interval_limit": 2}, [8, 2], {},
     {"outcome": "failure", "milestones": 1, "intervals": 2}),
    # Tables: rating names, milestones 5+ read as 5.
    ("Rating", {"rating": 3}, [], {}, {"name": "Significant"}),
    ("Rating", {"rating": 6}, [], {}, {"name": None}),
    ("Milestones Needed", {"example": "marathon"}, [], {}, {"milestones": 5}),
]


@pytest.mark.parametrize(("check", "inputs", "dice", "options", "expected"), GOLDEN)
def test_golden_case(rules, check: str, inputs: dict[str, Any], dice: list[int], options: dict[str, str],  # type: ignore[no-untyped-def]
                     expected: dict[str, Any]) -> None:
    call = rules.resolve if check in ("action", "Contested Action", "Rating", "Milestones Needed") else rules.run
    results = plain(call(check, dice=dice, options=options, **inputs).results)
    assert {k: results[k] for k in expected} == expected


def test_golden_cases_from_the_command_line(cli) -> None:  # type: ignore[no-untyped-def]
    """A few of the cases above typed as a user would: a Botch, ten-again, a tie."""
    botch = cli("resolve", "d10-pool", "action", "--with", "pool=3", "--with", "specialty=1", "--dice", "1,1,1", "--json")
    assert json.loads(botch.stdout)["results"]["momentum"] == 4
    tens = cli("resolve", "d10-pool", "action", "--with", "pool=5", "--with", "difficulty=2", "--dice",
               "10,8,3,1,9,10,2", "--json")
    assert json.loads(tens.stdout)["results"]["successes"] == 4
    tie = cli("resolve", "d10-pool", "Contested Action", "--with", "pool=2", "--with", "defender_pool=2", "--dice",
              "8,1,9,2", "--json")
    assert json.loads(tie.stdout)["results"]["outcome"] == "failure"


# ---------------------------------------------------------------- golden odds


@pytest.mark.parametrize(("pool", "difficulty", "enhancement", "options"), [
    (2, 2, 1, {}),
    (2, 1, 0, {"fail_on_equal": "exceed_difficulty"}),
    (3, 3, 2, {"enhancement_cap": "hard_three"}),
    (1, 1, 5, {"enhancement_cap": "hard_three"}),
])
def test_action_odds_by_every_face(rules, pool: int, difficulty: int, enhancement: int,  # type: ignore[no-untyped-def]
                                   options: dict[str, str]) -> None:
    odds = rules.odds("action", pool=pool, difficulty=difficulty, enhancement=enhancement,
                      options={"ten_again": "off", **options})
    expected = action_by_faces(pool, difficulty, enhancement, options)
    outcome: Counter = Counter()
    degree: Counter = Counter()
    for (o, d), p in expected.items():
        outcome[o] += p
        degree[d] += p
    assert odds.residual == 0
    assert {plain(k): v for k, v in odds.results["outcome"].items()} == dict(outcome)
    assert {plain(k): v for k, v in odds.results["degree"].items()} == dict(degree)


@pytest.mark.parametrize(("pool", "difficulty", "target"), [(1, 2, 8), (3, 2, 8), (4, 3, 6), (2, 1, 10)])
def test_action_odds_with_ten_again_match_the_chain(rules, pool: int, difficulty: int, target: int) -> None:  # type: ignore[no-untyped-def]
    """10-again on: P(success) from the closed-form chain; a Botch is every die below the
    target with at least one 1."""
    dist = pool_successes(pool, target)
    success = 1 - sum(p for k, p in dist.items() if k < difficulty)
    botch = Fraction(target - 1, 10) ** pool - Fraction(target - 2, 10) ** pool
    odds = rules.odds("action", pool=pool, difficulty=difficulty, target_number=target)
    got = {plain(k): v for k, v in odds.results["outcome"].items()}
    assert got == {"success": success, "botch": botch, "failure": 1 - success - botch}


def test_contested_odds_with_ten_again_match_the_chain(rules) -> None:  # type: ignore[no-untyped-def]
    """Two dice against two, 10-again on: the actor wins only with strictly more (XB.1)."""
    mine, theirs = pool_successes(2, 8), pool_successes(2, 8)
    win = sum(p * q for a, p in mine.items() for b, q in theirs.items() if a > b)
    odds = rules.odds("Contested Action", pool=2, defender_pool=2)
    got = {plain(k): v for k, v in odds.results["outcome"].items()}
    # The chains are cut at 40 successes: far below any fraction the comparison could see.
    assert abs(got["success"] - win) < Fraction(1, 10**30)


def test_ca6_odds_with_ten_again_off_match_an_enumeration(rules) -> None:  # type: ignore[no-untyped-def]
    """Two dice, 10-again off, Difficulty 2, two milestones, no limit: only 8-10 on both dice
    meets an interval, and without a limit the action always ends in success."""
    odds = rules.odds("Complex Action", pool=2, difficulty=2, milestones=2, options={"ten_again": "off"})
    assert {plain(k): v for k, v in odds.results["outcome"].items()} == {"success": 1}


# ---------------------------------------------------------------- golden rolls from a sheet

# Ayla: Dexterity 4 + Athletics 3 (seven dice); the troupe: 4 players (capacity 8), 3 Momentum.
# (inputs, dice, answers, options, expected results)
ROLLS: list[tuple[dict[str, Any], list[int], list[str], dict[str, str], dict[str, Any]]] = [
    # DB.3 + XB.18: 7 + 2 Momentum dice = 9; two Momentum spent, none gained on a success.
    ({"momentum_dice": 2}, [8, 2, 2, 2, 2, 2, 2, 2, 2], ["done"], {}, {"pool": 9, "outcome": "success", "momentum": 1}),
    # MS.17 with A2's literal reading: Difficulty 1 + 2 out of range, three successes fail.
    ({"range": "out_of_range"}, [8, 8, 8, 2, 2, 2, 2], ["take_momentum"], {"fail_on_equal": "exceed_difficulty"},
     {"difficulty": 3, "outcome": "failure", "momentum_gained": 1, "momentum": 4}),
    # SS.4: a Feat of Scale is +1 Scale, behind the gate: no success, no Scale (a Failure).
    ({"feat": "title", "difficulty": 1}, [2, 2, 2, 2, 2, 2, 2], ["take_momentum"], {},
     {"total_successes": 0, "outcome": "failure"}),
    ({"feat": "title", "difficulty": 2}, [8, 2, 2, 2, 2, 2, 2], ["done"], {}, {"total_successes": 2, "degree": "Normal"}),
    # CO.5 + XB.15: a Botch with a Specialty is 4 Momentum; 3 + 4 = 7 of 8.
    ({"specialty": True}, [1, 2, 2, 2, 2, 2, 2], [], {}, {"outcome": "botch", "momentum_gained": 4, "momentum": 7}),
    # A4's alternative: Momentum besides the consolation chosen.
    ({"difficulty": 2}, [8, 2, 2, 2, 2, 2, 2], ["fateful_encounter"], {"consolation_mode": "momentum_always"},
     {"consolation": "fateful_encounter", "momentum_gained": 1}),
    # DB.9, ST.1: two threshold successes buy a Notable complication; nothing left for a stunt.
    ({"complications": [2]}, [8, 8, 8, 2, 2, 2, 2], ["pay"], {}, {"complications_bought": [2], "stunts": [], "threshold_left": 0}),
    # XB.5-6: Enhancement 4 needs a Drawback; "add a Complication" adds a Minor one, bought
    # off first (1 + 4 = 5 successes, 4 threshold, 3 left).
    ({"enhancement": 4, "drawback": "add_complication"}, [8, 2, 2, 2, 2, 2, 2], ["pay", "done"], {},
     {"total_successes": 5, "complications_bought": [1], "threshold_left": 3}),
]


@pytest.mark.parametrize(("inputs", "dice", "answers", "options", "expected"), ROLLS)
def test_golden_roll(rules, inputs: dict[str, Any], dice: list[int], answers: list[str],  # type: ignore[no-untyped-def]
                     options: dict[str, str], expected: dict[str, Any]) -> None:
    run = rules.run("Roll", as_=sheets(rules, "ayla", "troupe"), attribute="Dexterity", skill="Athletics",
                    driver=ScriptedDriver(list(answers)), dice=dice, options=options, **inputs)
    results = plain(run.results)
    assert {k: results[k] for k in expected} == expected


def test_db5_a_lower_target_number_reaches_every_roll_from_a_sheet(rules) -> None:  # type: ignore[no-untyped-def]
    """DB.5: a higher Tier lowers the target number, for every roll the character makes. The
    mixed roll from a sheet and the contest between two sheets took none (unknown input): a 7
    now succeeds at 7."""
    ayla, hunter = sheets(rules, "ayla", "hunter")
    mixed = rules.run("Mixed Roll", as_=ayla, attributes=["Dexterity", "Cunning"], skills=["Athletics", "Subterfuge"],
                      difficulties=[1, 1], target_number=7, dice=[7, 2, 2, 2, 2, 2]).results
    assert (mixed["pool"], plain(mixed["outcomes"])) == (6, ["success", "success"])
    contest = rules.run("Contest", as_=ayla, against=hunter, attribute="Dexterity", skill="Athletics",
                        defender_attribute="Dexterity", defender_skill="Athletics", target_number=7,
                        dice=[7] + [2] * 11).results
    assert (contest["total"], contest["defender_total"], plain(contest["outcome"])) == (1, 0, "success")
