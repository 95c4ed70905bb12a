"""QuestWorlds cases derived from the rules rather than copied from the rulebook's examples
(spec questworlds.md §1.1-§1.11, §3.14-§3.16; SRD 2.11, 7.1, 8.2, 8.3), run as a user runs
them: through the command line (in-process, ``--json``) and the Python API.

Two parts. First the defects this audit found, one test each (each fails without its fix):
no check read a rating's notation; the crisis test (SRD 8.2.5) and bolstering (8.2.3) were
missing; 0M2 was read as 40 where the spec refuses it; a week of recovery ended every impairment and pumped state instead of a single one;
resting left every state of fortune in place although rest is idleness. Then a compact table
of golden cases derived by hand (dice in, results out), each also checked against an
independent model of the d20 contest written here, and exact odds checked against an
enumeration of the 400 pairs of faces."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import attrs
import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.rules.entities import Held
from questworlds_helpers import aftermath_steps

EXAMPLES = Path(__file__).resolve().parent.parent / "rulesets" / "questworlds" / "examples"
DEGREES = ["marginal", "minor", "major", "complete"]
FUMBLE, FAILURE, SUCCESS, CRITICAL = range(4)
LEVELS = ["fumble", "failure", "success", "critical"]


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("questworlds")


# ------------------------------------------------------------------ an independent model

def split(n: int) -> tuple[int, int]:
    """§1.1 (AMB-1): (target, masteries); every full 20 above 20 is a mastery, 40 is 20M."""
    if n <= 20:
        return n, 0
    m = (n - 1) // 20
    return n - 20 * m, m


def d20(face: int, target: int) -> int:
    """§1.4: a target of 0 or less fails; 1 critical; 20 fumble; at or under the target succeeds."""
    if target <= 0:
        return FAILURE
    return CRITICAL if face == 1 else FUMBLE if face == 20 else SUCCESS if face <= target else FAILURE


def contest(ability: int, resistance: int, a: int, b: int, bumps: int = 0, resistance_bumps: int = 0,
            hero: int = 0, wasted: bool = False, joined: bool = False) -> tuple[str, str | None, int, int]:
    """One simple contest, default options unless told (§1.5, §1.6): net masteries bump the side
    with more, the rest past critical bumps the other down (or is wasted); other bumps after
    them, held at the ends (or joined to the masteries); a hero point last; equal results go to
    the higher roll, the same roll or two fumbles are a tie; a target of 0 or less loses."""
    (ta, ma), (tr, mr) = split(ability), split(resistance)
    mine, theirs = d20(a, ta), d20(b, tr)
    net = ma - mr + (bumps - resistance_bumps if joined else 0)
    if net > 0:
        over = max(0, mine + net - CRITICAL)
        mine = min(CRITICAL, mine + net)
        theirs = theirs if wasted else max(FUMBLE, theirs - over)
    elif net < 0:
        over = max(0, theirs - net - CRITICAL)
        theirs = min(CRITICAL, theirs - net)
        mine = mine if wasted else max(FUMBLE, mine - over)
    if not joined:
        mine = max(FUMBLE, min(CRITICAL, mine + bumps))
        theirs = max(FUMBLE, min(CRITICAL, theirs + resistance_bumps))
    mine = min(CRITICAL, mine + (1 if hero and ta > 0 else 0))
    if ta <= 0:   # a forced defeat, by the steps the resistance stands above failure (at least 1)
        return "defeat", DEGREES[max(0, theirs - FAILURE)], mine, theirs
    if mine == theirs and (a == b or mine == FUMBLE):
        return "tie", None, mine, theirs
    won = mine > theirs or (mine == theirs and a > b)
    return ("victory" if won else "defeat"), DEGREES[abs(mine - theirs)], mine, theirs


def enumerate_outcomes(ability: int, resistance: int, **kw: Any) -> dict[str, Fraction]:
    counts: dict[str, Fraction] = {}
    for a in range(1, 21):
        for b in range(1, 21):
            outcome = contest(ability, resistance, a, b, **kw)[0]
            counts[outcome] = counts.get(outcome, Fraction(0)) + Fraction(1, 400)
    return counts


def value(rating: Any) -> int:
    """A rating as one number, read independently of the rules (7M 27, 3M2 43, 12W 32)."""
    text = str(rating)
    for symbol in "MW":
        if symbol in text:
            base, _, count = text.partition(symbol)
            return int(base or 0) + 20 * int(count or 1)
    return int(text)


def dist(odds: Any, name: str) -> dict[Any, Fraction]:
    """One result's exact distribution, levels by name."""
    return {getattr(k, "name", k): Fraction(p) for k, p in odds.results[name].items()}


def json_of(cli, *args: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    run = cli(*args, "--json")
    assert run.code == 0, run.show()
    return json.loads(run.stdout)


def hero_with(rules, tmp_path: Path, *conditions: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "hero.yaml"
    path.write_text("name: Test Hero\nstats:\n  Ability: 15\n", encoding="utf-8")
    return attrs.evolve(rules.entity(str(path)), conditions=[Held(c) for c in conditions])


def held_after(rules, name: str, entity: Any, **inputs: Any) -> tuple[dict[str, Any], list[str]]:  # type: ignore[no-untyped-def]
    run = rules.run(name, as_=entity, **inputs)
    return run.results, sorted(run.state["actor"]["conditions"])


# ================================================================== defects (each fails without its fix)

# --- 1. No check read a rating's notation (§1.1, T-1 to T-7, T-12): 27 -> 7M, 43 -> 3M2.

@pytest.mark.parametrize(("rating", "modifier", "target", "masteries"), [
    ("27", "0", 7, 1),          # T-1: 27 is 7M
    ("43", "0", 3, 2),          # T-2: 43 is 3M2
    ("10M2", "0", 10, 2),       # T-3: 50
    ("10M3", "0", 10, 3),       # T-4: 70
    ("20", "1", 1, 1),          # T-5: 20 raised by one is 1M
    ("40", "0", 20, 1),         # AMB-1: 40 is 20M, not 0M2
    ("41", "0", 1, 2),          # T-6: 41 is 1M2
    ("15M", "-6", 9, 1),        # §1.8: a penalty keeps the mastery (29 is 9M)
    ("5M", "-6", 19, 0),        # ... or loses it (19)
    ("15", "+M", 15, 1),        # a bonus in notation gains one (15M)
    ("12W", "0", 12, 1),        # the community section's symbol
])
def test_the_rating_check_reads_a_rating(cli, rating: str, modifier: str, target: int, masteries: int) -> None:  # type: ignore[no-untyped-def]
    results = json_of(cli, "resolve", "questworlds", "rating", "--with", f"rating={rating}",
                      "--with", f"modifier={modifier}")["results"]
    number = value(rating) + (value(modifier.lstrip("+")) if modifier != "0" else 0)
    assert (results["value"], results["target"], results["masteries"]) == (number, *split(number))
    assert (results["target"], results["masteries"]) == (target, masteries)


def test_no_relevant_ability_is_six(rules) -> None:  # type: ignore[no-untyped-def]
    """T-12: with no relevant ability the target number is 6, and modifiers still apply."""
    assert rules.resolve("Rating").results["target"] == 6
    assert rules.resolve("Rating", modifier=3).results["target"] == 9


# --- 1b. AMB-1: a rating written with the symbol needs 1 to 20 before it (spec §1.1 grammar,
# [OPT lenient_zero_tn=false]); 0M2 was silently read as 40.

@pytest.mark.parametrize("rating", ["0M2", "0M", "21M", "25M2"])
@pytest.mark.parametrize("where", ["ability", "resistance"])
def test_a_rating_with_nothing_valid_before_the_symbol_is_refused(cli, rating: str, where: str) -> None:  # type: ignore[no-untyped-def]
    other = "resistance" if where == "ability" else "ability"
    run = cli("resolve", "questworlds", "contest", "--with", f"{where}={rating}", "--with", f"{other}=14",
              "--dice", "5,5")
    assert run.code == 1 and "E0613" in run.stdout + run.stderr


def test_lenient_notation_reads_the_number(cli) -> None:  # type: ignore[no-untyped-def]
    results = json_of(cli, "resolve", "questworlds", "rating", "--with", "rating=0M2",
                      "--option", "mastery_notation=lenient")["results"]
    assert (results["value"], results["target"], results["masteries"]) == (40, 20, 1)
    run = cli("resolve", "questworlds", "rating", "--with", "rating=0M2")
    assert run.code == 1 and "E0613" in run.stdout + run.stderr


@pytest.mark.parametrize("rating", ["20M", "1M2", "7M1", "40", "20M3"])
def test_well_written_ratings_are_read(rules, rating: str) -> None:  # type: ignore[no-untyped-def]
    results = rules.resolve("Rating", rating=rating).results
    assert (results["target"], results["masteries"]) == split(value(rating))


# --- 2. The crisis test (SRD 8.2.5) was missing: a penalised resource against the average.

COMMUNITY = {"resource_1": "12W", "resource_2": "9W", "resource_3": 18, "resource_4": 18, "resource_5": 12}
AVERAGE = (32 + 29 + 18 + 18 + 12) // 5   # 109 / 5 rounded down: 21, 1M


@pytest.mark.parametrize(("resource", "penalty", "option", "tested"), [
    (18, -6, "penalized", 12),
    (18, -6, "unpenalized", 18),
    ("12W", -9, "penalized", 23),
    (12, -3, "penalized", 9),
])
def test_crisis_test_odds_match_an_enumeration(rules, resource: Any, penalty: int, option: str, tested: int) -> None:  # type: ignore[no-untyped-def]
    odds = rules.odds("Crisis Test", resource=resource, penalty=penalty, options={"crisis_rating": option},
                      **COMMUNITY)
    expected = enumerate_outcomes(tested, AVERAGE)
    assert dist(odds, "crisis").get(True, 0) == expected["defeat"]
    assert dist(odds, "rating") == {tested: 1} and dist(odds, "average") == {AVERAGE: 1}


def test_crisis_test_replay(cli) -> None:  # type: ignore[no-untyped-def]
    # 18 - 6 = 12 against 21 (1M): 13 fails, the average's 5 is a failure bumped to a success: a
    # minor defeat, a crisis.
    args = [f"--with={k}={v}" for k, v in COMMUNITY.items()]
    results = json_of(cli, "resolve", "questworlds", "crisis test", "--with", "resource=18", "--with", "penalty=-6",
                      *args, "--dice", "13,5")["results"]
    assert (results["outcome"], results["degree"], results["crisis"]) == ("defeat", "minor", True)


def test_a_resource_without_a_penalty_takes_no_crisis_test(rules) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError, match="E0613"):
        rules.resolve("Crisis Test", resource=18, penalty=0, dice=[5, 5], **COMMUNITY)


# --- 3. Bolstering a resource (SRD 8.2.3) was missing: the Benefits of Victory table on a resource.

@pytest.mark.parametrize(("outcome", "degree", "state", "bonus", "bumps"), [
    ("victory", "marginal", "fresh", 3, 0),
    ("victory", "minor", "pumped", 6, 0),
    ("victory", "major", "invigorated", 9, 0),
    ("victory", "complete", "heroic", 0, 1),
    ("defeat", "complete", None, 0, 0),
    ("tie", "marginal", None, 0, 0),
])
def test_bolster(cli, outcome: str, degree: str, state: str | None, bonus: int, bumps: int) -> None:  # type: ignore[no-untyped-def]
    results = json_of(cli, "resolve", "questworlds", "bolster", "--with", f"outcome={outcome}",
                      "--with", f"degree={degree}")["results"]
    assert (results["state"], results["bonus"], results["bumps"]) == (state, bonus, bumps)


# --- 4. A week ended every impairment and pumped state; the SRD ends "a single" one a week.

@pytest.mark.parametrize(("period", "impaired", "pumped", "injured"), [
    ("session", 5, 5, True), ("week", 4, 4, True), ("month", 1, 1, False), ("season", 0, 0, False),
])
def test_recovery_ends_a_single_impairment_a_week(rules, tmp_path: Path, period: str, impaired: int, pumped: int,  # type: ignore[no-untyped-def]
                                                  injured: bool) -> None:
    hero = hero_with(rules, tmp_path, *["Impaired State"] * 5, *["Pumped State"] * 5, "Injured State", "Hurt State")
    results, held = held_after(rules, "recover", hero, period=period,
                               options={"benefits_meet_consequences": "combine"})
    assert held.count("Impaired State") == impaired and held.count("Pumped State") == pumped
    assert ("Injured State" in held) == injured and "Hurt State" not in held
    assert results["modifier"] == -6 * impaired + 6 * pumped - 9 * injured


def test_a_week_of_recovery_matches_a_week_of_rest(rules) -> None:  # type: ignore[no-untyped-def]
    """The battered scout (3 hurts, 2 impairments, an injury: -30) after a week: -15 either way."""
    hero = rules.entity(str(EXAMPLES / "battered.yaml"))
    recovered, _ = held_after(rules, "recover", hero, period="week")
    rested, _ = held_after(rules, "rest", hero, days=7)
    assert recovered["modifier"] == rested["modifier"] == -30 + 9 + 6


# --- 5. Rest left every benefit in place; resting is idleness (fresh a day, a single pumped a
# week, invigorated a month, heroic a season).

FORTUNE = ["Fresh State", "Fresh State", "Pumped State", "Pumped State", "Invigorated State", "Heroic State"]


@pytest.mark.parametrize("days", [0, 1, 6, 7, 14, 29, 30, 89, 90])
def test_rest_wanes_benefits_by_idleness(rules, tmp_path: Path, days: int) -> None:  # type: ignore[no-untyped-def]
    results, held = held_after(rules, "rest", hero_with(rules, tmp_path, *FORTUNE), days=days)
    fresh = 0 if days >= 1 else 2
    pumped = 2 - min(2, days // 7)
    invigorated, heroic = days < 30, days < 90
    assert held.count("Fresh State") == fresh and held.count("Pumped State") == pumped
    assert ("Invigorated State" in held) == invigorated and ("Heroic State" in held) == heroic
    assert results["modifier"] == 3 * fresh + 6 * pumped + 9 * invigorated
    assert results["benefits_waned"] == 6 - fresh - pumped - invigorated - heroic


def test_rest_may_keep_benefits(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    results, held = held_after(rules, "rest", hero_with(rules, tmp_path, *FORTUNE), days=90,
                               options={"rest_idleness": "keeps_benefits"})
    assert held == sorted(FORTUNE) and results["benefits_waned"] == 0


# --- 6. A target of 0 or less forces a defeat (AMB-50); its degree came from the steps between
# the two results, so a resistance that fumbled made the defeat worse (minor) than one that
# failed (marginal). Now the resistance's margin over a failure, at least marginal.

@pytest.mark.parametrize(("face", "degree"), [(20, "marginal"), (16, "marginal"), (3, "minor"), (1, "major")])
def test_a_forced_defeat_is_no_worse_when_the_resistance_fumbles(rules, face: int, degree: str) -> None:  # type: ignore[no-untyped-def]
    results = rules.resolve("Contest", ability=15, resistance=14, modifier=-15, dice=[5, face]).results
    assert (results["outcome"].name, results["degree"].name) == ("defeat", degree)
    assert (results["hero_outcome"].name, results["hero_degree"].name) == ("defeat", degree)


def test_forced_defeat_degrees_in_odds(rules) -> None:  # type: ignore[no-untyped-def]
    """Ability 3 hurt three times (-9): every roll is a defeat; the degrees by the resistance's die."""
    odds = rules.odds("Contest", ability=3, resistance=14, modifier=-9)
    expected: dict[str, Fraction] = {}
    for b in range(1, 21):
        degree = DEGREES[max(0, d20(b, 14) - FAILURE)]
        expected[degree] = expected.get(degree, Fraction(0)) + Fraction(1, 20)
    assert dist(odds, "outcome") == {"defeat": 1} and dist(odds, "degree") == expected


# ================================================================== golden derived cases

# (ability, resistance, extra --with, options, dice, outcome, degree): derived by hand from the
# rules; each is also checked against the model above.
CONTESTS: list[tuple[Any, Any, dict[str, Any], dict[str, str], tuple[int, int], str, str | None]] = [
    # 7M: 10 fails at 7, the mastery bumps it to a success; equal results, the higher roll
    ("7M", 14, {}, {}, (10, 3), "victory", "marginal"),
    # 3M2: 5 fails at 3, two masteries make it a critical against a success
    ("3M2", 14, {}, {}, (5, 3), "victory", "minor"),
    # 1M2: a critical with two spare bumps; the overflow bumps the success down twice
    ("1M2", 14, {}, {}, (1, 10), "victory", "complete"),
    ("1M2", 14, {}, {"mastery_overflow": "wasted"}, (1, 10), "victory", "minor"),
    # T-10: 10M against 10, one bump to the player
    ("10M", 10, {}, {}, (12, 5), "victory", "marginal"),
    # T-11: two masteries against one is one net bump
    ("5M2", "14M", {}, {}, (6, 3), "victory", "marginal"),
    # the resistance's mastery: its success becomes a critical
    (14, "14M", {}, {}, (10, 10), "defeat", "minor"),
    # 20M (40): a fumble bumped to a failure against a success
    (40, 14, {}, {}, (20, 5), "defeat", "minor"),
    # 1M against 20: both critical, the spare bump takes the resistance down to a success
    ("1M", 20, {}, {}, (1, 1), "victory", "minor"),
    # a target of 0 or less loses whatever the dice, by the resistance's margin over a failure
    (0, 14, {}, {}, (1, 20), "defeat", "marginal"),
    (0, 14, {}, {}, (1, 16), "defeat", "marginal"),
    (0, 14, {}, {}, (1, 3), "defeat", "minor"),
    (0, 14, {}, {}, (20, 1), "defeat", "major"),
    (15, 14, {"modifier": "-M"}, {}, (1, 20), "defeat", "marginal"),
    # +M: 15M, a success bumped to a critical
    (15, 14, {"modifier": "+M"}, {}, (10, 3), "victory", "minor"),
    # bumps beyond critical are held there (default), or join the masteries and spill over
    (15, 14, {"bumps": 3}, {}, (16, 5), "victory", "minor"),
    (15, 14, {"bumps": 3}, {"automatic_bumps": "with_masteries"}, (16, 5), "victory", "major"),
    # bumps below fumble are held there
    (15, 14, {"resistance_bumps": -5}, {}, (10, 5), "victory", "major"),
    # two fumbles: a tie, whichever option (the same roll)
    (15, 14, {}, {"fumble_against_fumble": "better_roll_wins"}, (20, 20), "tie", None),
    # two fumbles after a bump: a tie by the table, the higher roll under the option
    (15, 14, {"resistance_bumps": -1}, {}, (20, 19), "tie", None),
    (15, 14, {"resistance_bumps": -1}, {"fumble_against_fumble": "better_roll_wins"}, (20, 19), "victory", "marginal"),
    # better roll: the lower wins under the option
    (15, 14, {}, {"better_roll": "lower_roll"}, (10, 3), "defeat", "marginal"),
    # a tie ruled a marginal victory
    (15, 14, {}, {"ties": "marginal_victory"}, (10, 10), "victory", "marginal"),
    # a hero point already spent: 17 fails, bumped to a success, the higher roll wins
    (15, 14, {"hero_point": 1}, {}, (17, 5), "victory", "marginal"),
    # a hero point on a target of 0: refused by default, a bump under the option
    (0, 14, {"hero_point": 1}, {}, (5, 20), "defeat", "marginal"),
    (0, 14, {"hero_point": 1}, {"zero_target": "hero_point_allowed"}, (5, 20), "victory", "major"),
]


@pytest.mark.parametrize(("ability", "resistance", "extra", "options", "dice", "outcome", "degree"), CONTESTS)
def test_golden_contest(cli, ability: Any, resistance: Any, extra: dict[str, Any], options: dict[str, str],  # type: ignore[no-untyped-def]
                        dice: tuple[int, int], outcome: str, degree: str | None) -> None:
    args = ["resolve", "questworlds", "contest", "--with", f"ability={ability}", "--with", f"resistance={resistance}"]
    for key, given in extra.items():
        args += ["--with", f"{key}={given}"]
    for key, chosen in options.items():
        args += ["--option", f"{key}={chosen}"]
    results = json_of(cli, *args, "--dice", f"{dice[0]},{dice[1]}")["results"]
    assert (results["outcome"], results["degree"]) == (outcome, degree)
    modifier = extra.get("modifier", "0")
    number = value(ability) + (-20 if modifier == "-M" else 20 if modifier == "+M" else 0)
    model = contest(number, value(resistance), *dice, extra.get("bumps", 0), extra.get("resistance_bumps", 0),
                    extra.get("hero_point", 0),
                    wasted=options.get("mastery_overflow") == "wasted",
                    joined=options.get("automatic_bumps") == "with_masteries")
    if not options.get("fumble_against_fumble") and not options.get("better_roll") and not options.get("ties") \
            and not options.get("zero_target"):
        assert model[:2] == (outcome, degree)


@pytest.mark.parametrize(("ability", "resistance", "options", "kw"), [
    ("7M", 14, {}, {}),
    ("3M2", "14M", {}, {}),
    ("1M2", 14, {}, {}),
    ("1M2", 14, {"mastery_overflow": "wasted"}, {"wasted": True}),
    (14, "14M2", {}, {}),
    (40, 41, {}, {}),
    (0, 14, {}, {}),
    (15, -6, {}, {}),
])
def test_contest_odds_match_an_enumeration(rules, ability: Any, resistance: Any, options: dict[str, str],  # type: ignore[no-untyped-def]
                                           kw: dict[str, Any]) -> None:
    odds = rules.odds("Contest", ability=ability, resistance=resistance, options=options)
    expected = enumerate_outcomes(value(ability), value(resistance), **kw)
    assert dist(odds, "outcome") == {k: p for k, p in expected.items() if p}


# Other mechanics: (command, inputs, results) derived from the rules by hand.
GOLDEN: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    # T1 at other bases; Very Low's four readings (AMB-2)
    ("resistance", {"class": "very_high", "base": 10}, {"resistance": 30, "target": 10, "masteries": 1}),
    ("resistance", {"class": "nearly_impossible", "base": 26}, {"resistance": 66, "target": 6, "masteries": 3}),
    ("resistance", {"class": "low", "base": 30}, {"resistance": 24, "target": 4, "masteries": 1}),
    ("resistance", {"class": "very_low", "base": 30}, {"resistance": 10}),
    ("resistance", {"class": "very_low", "base": 14, "option": "very_low_rule=literal_min"}, {"resistance": -6}),
    ("resistance", {"class": "very_low", "base": 30, "option": "very_low_rule=literal_min"}, {"resistance": 6}),
    ("resistance", {"class": "very_low", "base": 10, "option": "very_low_rule=base_minus_m"}, {"resistance": -10}),
    # augments: a fifth rounded down, 1M2 is 41
    ("quick augment", {"augmenting": "1M2"}, {"bonus": 8}),
    ("quick augment", {"augmenting": 24}, {"bonus": 4}),
    ("augment", {"augmenting": 17, "dice": "1,20"}, {"bonus": 20}),
    ("augment", {"augmenting": 17, "dice": "20,1"}, {"bonus": -3}),
    ("augment", {"augmenting": 17, "dice": "18,5"}, {"bonus": 0, "hero_bonus": 3}),
    ("augment", {"augmenting": 17, "dice": "5,3", "option": "augment_table=basic", "entertaining": 1}, {"bonus": 6}),
    # combined abilities, flaws, stretches
    ("modified contest", {"ability": 14, "resistance": 14, "second_ability": 15, "dice": "9,9"}, {"rating": 14}),
    ("modified contest", {"ability": 14, "resistance": 14, "second_ability": 15, "dice": "9,9",
                          "option": "combined_rounding=nearest"}, {"rating": 15}),
    ("modified contest", {"ability": 15, "resistance": 14, "flaw": 13, "dice": "9,9"}, {"rating": 12}),
    ("modified contest", {"ability": 15, "resistance": 14, "stretched": 1, "dice": "1,20"},
     {"rating": 9, "outcome": "victory", "degree": "minor"}),
    ("modified contest", {"ability": 15, "resistance": 14, "stretched": 1, "dice": "10,10",
                          "option": "stretch=bump_down"}, {"rating": 15, "outcome": "defeat", "degree": "minor"}),
    # community (T23, T24, §8.3)
    ("background event", {"resource": "12W", **COMMUNITY, "dice": "1,20"}, {"average": 21, "modifier": 9}),
    ("background event", {"resource": 12, **COMMUNITY, "dice": "1,1"}, {"outcome": "defeat", "modifier": -3}),
    ("resource depletion", {"outcome": "victory", "degree": "complete"}, {"penalty": 0}),
    ("resource depletion", {"outcome": "victory", "degree": "major"}, {"penalty": -3}),
    ("resource penalty", {"harms": "hurt,impaired"}, {"state": "hurt", "penalty": -3}),
    ("interval review", {"rating": 14, "pc_bonus": 12, "total": -9}, {"change": 1, "new_rating": 15}),
    ("interval review", {"rating": 14, "total": -7, "option": "depletion_shedding=shed_three"},
     {"change": -2, "penalty_left": -4}),
    # advancement (T26, §7.1.1, §2.9)
    ("improve", {"choice": "small_raise", "rating": 15}, {"rating": 21, "catch_up": True}),
    ("improve", {"choice": "big_raise", "rating": 2, "breakout": 1}, {"rating": 11, "catch_up": False}),
    ("catch up", {"old": 40, "new": 41, "other": 36}, {"eligible": True, "rating": 39}),
    ("catch up", {"old": 40, "new": 41, "other": 37}, {"eligible": False, "rating": 37}),
    ("next season", {"keyword_gain": 9, "option": "resistance_progression=trailing"}, {"base": 20}),
    ("hero point boost", {"heroes": 10, "double": 1}, {"cost": 8}),
    # special contests
    ("escalate", {"ability": 15, "resistance": 14, "into": "chained", "dice": "20,5"}, {"harm": "injured"}),
    ("escalate", {"ability": 15, "resistance": 14, "dice": "1,20"}, {"points": 5}),
    ("mob", {"resistance": "14M", "foes": 7, "heroes": 2, "outnumbered": 3}, {"share": 4, "resistance": 43}),
    ("goals", {"outcome": "victory", "degree": "minor"}, {"primary": True, "secondary": False}),
    ("flaw rating", {"order": 4, "highest": "7M", "second": "1M", "lowest": 13}, {"rating": 13}),
    ("starting rating", {"role": "characteristic_breakout", "keyword": 17, "points": 2}, {"rating": 23}),
]


def test_golden_derived_cases(cli) -> None:  # type: ignore[no-untyped-def]
    wrong = []
    for name, inputs, expected in GOLDEN:
        args = ["resolve", "questworlds", name]
        for key, given in inputs.items():
            args += ["--dice", given] if key == "dice" else ["--option", given] if key == "option" else \
                ["--with", f"{key}={given}"]
        results = json_of(cli, *args)["results"]
        got = {k: results[k] for k in expected}
        if got != expected:
            wrong.append((name, inputs, expected, got))
    assert not wrong


@pytest.mark.parametrize(("held", "dice", "after"), [
    # hurt against low (8): 10 vs 10, a success against a failure, a minor victory: healed
    (["Hurt State"], "10,10", []),
    # impaired against moderate (14): 20 vs 1, a complete defeat: two levels worse, dying
    (["Impaired State"], "20,1", ["Dying State"]),
    # injured against high (20): 5 vs 3, a marginal victory: one level, impaired
    (["Injured State"], "5,3", ["Impaired State"]),
    # dying against very high (14M): 1 vs 20, the fumble bumped to a failure: major, injured
    (["Dying State"], "1,20", ["Injured State"]),
    # the worst state is treated: impaired and hurt, a marginal victory leaves two hurts
    (["Impaired State", "Hurt State"], "5,3", ["Hurt State", "Hurt State"]),
])
def test_golden_healing(rules, tmp_path: Path, held: list[str], dice: str, after: list[str]) -> None:  # type: ignore[no-untyped-def]
    hero = hero_with(rules, tmp_path, *held)
    _, conditions = held_after(rules, "heal", hero, healing=15, dice=[int(d) for d in dice.split(",")])
    assert conditions == sorted(after)


@pytest.mark.parametrize(("steps", "option", "left", "modifier"), [
    # invigorated then hurt: the difference, pumped (T-19)
    ([("victory", "major"), ("defeat", "marginal")], "difference", ["Pumped State"], 6),
    ([("victory", "major"), ("defeat", "marginal")], "cancel", [], 0),
    ([("victory", "major"), ("defeat", "marginal")], "combine", ["Hurt State", "Invigorated State"], 6),
    # two fresh states end at a defeat, the hurt stays
    ([("victory", "marginal"), ("victory", "marginal"), ("defeat", "marginal")], "difference", ["Hurt State"], -3),
    # hurts, impairment and injury all add up
    ([("defeat", "major"), ("defeat", "minor"), ("defeat", "marginal")], "difference",
     ["Hurt State", "Impaired State", "Injured State"], -18),
    # heroic has no number: it stays beside the hurt
    ([("victory", "complete"), ("defeat", "marginal")], "difference", ["Heroic State", "Hurt State"], -3),
])
def test_golden_states(rules, tmp_path: Path, steps: list[tuple[str, str]], option: str, left: list[str],  # type: ignore[no-untyped-def]
                       modifier: int) -> None:
    entity, results = aftermath_steps(rules, hero_with(rules, tmp_path), steps, option)
    assert sorted(c.name for c in entity.conditions) == sorted(left) and results["modifier"] == modifier


@pytest.mark.parametrize(("options", "first", "second"), [
    # §2.2 with §7.1's conversion (AMB-3): 3 a session, the unspent 3 become XP
    ({}, (3, 0), (3, 3)),
    ({"first_session_points": "six_points"}, (6, 0), (3, 6)),
    ({"unspent_hero_points": "lost"}, (3, 0), (3, 0)),
    ({"hero_point_regime": "section_7"}, (1, 0), (1, 1)),
])
def test_golden_sessions(rules, tmp_path: Path, options: dict[str, str], first: tuple[int, int],  # type: ignore[no-untyped-def]
                         second: tuple[int, int]) -> None:
    entity = hero_with(rules, tmp_path)
    got = []
    for is_first in (1, 0):
        run = rules.run("new session", as_=entity, first=is_first, options=options)
        got.append((run.results["hero_points"], run.results["xp"]))
        entity = attrs.evolve(entity, resources=dict(run.state["actor"]["resources"]))
    assert got == [first, second]


def test_golden_hero_points_spent_and_refused(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # 15 against 14, 17 vs 5: a failure against a success (minor defeat); the point bumps it to
    # a success that wins on the higher roll, and the pool drops to 2.
    run = rules.run("hero contest", as_=hero_with(rules, tmp_path), ability=15, resistance=14, dice=[17, 5],
                    answers={"hero_point": "use"})
    results = {k: getattr(v, "name", v) for k, v in run.results.items()}
    assert (results["outcome"], results["degree"], results["hero_points"]) == ("victory", "marginal", 2)
    # a critical cannot be raised: the point is not offered, nothing is spent
    run = rules.run("hero contest", as_=hero_with(rules, tmp_path), ability=15, resistance=14, dice=[1, 5])
    assert (run.results["result"].name, run.results["hero_points"]) == ("critical", 3)
    # at most 5 awards a session (section_7)
    with pytest.raises(RunebookError, match="E0613"):
        rules.run("award hero points", as_=hero_with(rules, tmp_path), points=6,
                  options={"hero_point_regime": "section_7"})
