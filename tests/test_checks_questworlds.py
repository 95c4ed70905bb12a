"""QuestWorlds' simple contest, written only in rulesets/questworlds/mechanics.rules.

Worked examples: spec questworlds.md §5.1 (T-1 to T-12: ratings, masteries and bumps) and the
SRD's Die Rolls, Outcome and Bumps sections (§1.4-1.7 of the spec). The SRD prints no dice
for them; the tests pick faces that show each rule. Odds are compared with a contest written
again here from the spec, over all 400 pairs of d20 faces.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product
from typing import Any

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.rules import load
from checks_helpers import chi_square_agrees

GAME = "questworlds"
RESULTS = ["fumble", "failure", "success", "critical"]
DEGREES = ["marginal", "minor", "major", "complete"]


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load(GAME)


def named(results: dict[str, Any]) -> dict[str, Any]:
    return {k: v if isinstance(v, (int, bool, Fraction)) or v is None else str(v) for k, v in results.items()}


def contest(rules, faces: tuple[int, int], ability: Any, resistance: Any, **kw: Any) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    return named(rules.resolve("contest", dice=list(faces), ability=ability, resistance=resistance, **kw).results)


# ---------------------------------------------------------------- the generic builtin it uses


@pytest.mark.parametrize(("expr", "total"), [("rating_value(7M2, 20)", 47), ("rating_value(7M, 20)", 27),
                                             ("rating_value(14, 20)", 14), ("rating_value(3D, 6)", 9),
                                             ("rating_value(12W3, 10) - 1", 41)])
def test_rating_value_builtin(expr: str, total: int) -> None:
    assert interpreter.roll(expr).total == total


def test_rating_value_rejects_text() -> None:
    with pytest.raises(RunebookError) as caught:
        interpreter.roll('rating_value("7M", 20)')
    assert [d.code for d in caught.value.diagnostics] == ["E0405"]


# ---------------------------------------------------------------- worked examples: ratings


@pytest.mark.parametrize(("rating", "target"), [
    (27, 7),      # T-1: 27 / 20 = 1 remainder 7: "7M"
    (43, 3),      # T-2: 43 / 20 = 2 remainder 3: "3M2"
    ("10M2", 10),  # T-3: 10 + 20 + 20
    ("10M3", 10),  # T-4
    (41, 1),      # T-6: 41 and up is the second mastery: 1M2
    (40, 20),     # AMB-1: 40 is 20M, not 0M2
    (15, 15), ("5M", 5), ("1M2", 1),  # T-7: Apprentice, Journeyman, Master
    (6, 6),       # T-12: no relevant ability, TN 6
    ("12W", 12),  # T-20: the community resources' W is a mastery too
])
def test_target_numbers(rules, rating: Any, target: int) -> None:  # type: ignore[no-untyped-def]
    assert contest(rules, (10, 10), rating, 14)["target"] == target


@pytest.mark.parametrize("faces", [(7, 12), (8, 12), (1, 20), (20, 1), (12, 12)])
def test_t1_27_is_7m(rules, faces: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """T-1: an ability of 27 plays as 7M."""
    assert contest(rules, faces, 27, 14) == contest(rules, faces, "7M", 14)


def test_t5_twenty_plus_one_is_1m(rules) -> None:  # type: ignore[no-untyped-def]
    """T-5: 20 raised by 1 is 1M, not 21: TN 1 and one bump (a 2 fails, then is bumped to a
    success)."""
    result = contest(rules, (2, 10), 20, 14, modifier=1)
    assert (result["target"], result["result"], result["opposition_result"]) == (1, "success", "success")


# ---------------------------------------------------------------- worked examples: contests


def test_die_rolls_critical_and_fumble(rules) -> None:  # type: ignore[no-untyped-def]
    """Die Rolls: a 1 is a critical even when the TN is 1; a 20 a fumble even when it is 20."""
    assert contest(rules, (1, 5), 1, 14)["result"] == "critical"
    assert contest(rules, (2, 5), 1, 14)["result"] == "failure"
    assert contest(rules, (20, 5), 20, 14)["result"] == "fumble"
    assert contest(rules, (19, 5), 20, 14)["result"] == "success"


def test_t8_7m_against_14(rules) -> None:  # type: ignore[no-untyped-def]
    """T-8: 7M against 14 is 7 against 14 with the PC's result bumped one step: a 10 fails
    against 7 and becomes a success; the resistance's 3 succeeds; the higher roll wins."""
    assert contest(rules, (10, 3), "7M", 14) == {
        "target": 7, "resistance_target": 14, "result": "success", "opposition_result": "success",
        "outcome": "victory", "degree": "marginal",
        # with a hero point after the roll: success becomes critical, one step above success
        "hero_result": "critical", "hero_outcome": "victory", "hero_degree": "minor"}


def test_t9_3m2_against_14(rules) -> None:  # type: ignore[no-untyped-def]
    """T-9: 3M2 against 14 is 3 against 14 with two bumps: a 15 fails, then is a critical."""
    assert contest(rules, (15, 3), "3M2", 14) == {
        "target": 3, "resistance_target": 14, "result": "critical", "opposition_result": "success",
        "outcome": "victory", "degree": "minor",
        # a critical cannot be bumped higher: a hero point changes nothing
        "hero_result": "critical", "hero_outcome": "victory", "hero_degree": "minor"}


def test_t10_10m_against_10(rules) -> None:  # type: ignore[no-untyped-def]
    """T-10: 10M against a resistance of 10: one bump. Both roll 5: success becomes critical."""
    result = contest(rules, (5, 5), "10M", 10)
    assert (result["result"], result["opposition_result"], result["outcome"], result["degree"]) == (
        "critical", "success", "victory", "minor")


def test_t11_opposed_masteries_cancel(rules) -> None:  # type: ignore[no-untyped-def]
    """T-11: two masteries against one is the same advantage as one against none."""
    for faces in [(12, 4), (3, 20), (10, 1), (20, 20)]:
        assert contest(rules, faces, "10M2", "10M") == contest(rules, faces, "10M", 10)


def test_resistance_masteries_favour_the_resistance(rules) -> None:  # type: ignore[no-untyped-def]
    """§1.5: a resistance of 14M against a PC's 14 bumps the resistance's result."""
    result = contest(rules, (3, 16), 14, "14M")
    assert (result["result"], result["opposition_result"], result["outcome"]) == ("success", "success", "defeat")


def test_mastery_overflow_bumps_the_opponent_down(rules) -> None:  # type: ignore[no-untyped-def]
    """AMB-4: 10M3 against 10, faces 19 and 5: failure + 3 bumps is critical with one to spare,
    which bumps the resistance's success down to failure (a major victory); wasted, the
    resistance keeps its success (a minor victory)."""
    assert contest(rules, (19, 5), "10M3", 10)["opposition_result"] == "failure"
    assert contest(rules, (19, 5), "10M3", 10)["degree"] == "major"
    wasted = contest(rules, (19, 5), "10M3", 10, options={"mastery_overflow": "wasted"})
    assert (wasted["opposition_result"], wasted["degree"]) == ("success", "minor")


def test_bumped_failure_on_16_beats_success_on_5(rules) -> None:  # type: ignore[no-untyped-def]
    """§1.6: raw faces decide equal results, even after bumps: a bumped failure on 16 beats a
    success on 5 under highest roll, and loses under lowest roll."""
    assert contest(rules, (16, 5), "7M", 14)["outcome"] == "victory"
    assert contest(rules, (16, 5), "7M", 14, options={"better_roll": "lower_roll"})["outcome"] == "defeat"


def test_same_face_is_a_standoff(rules) -> None:  # type: ignore[no-untyped-def]
    """Outcome: equal results and equal rolls are a tie; the GM may rule it a marginal victory."""
    assert contest(rules, (9, 9), 14, 14) == {"target": 14, "resistance_target": 14, "result": "success",
                                              "opposition_result": "success", "outcome": "tie", "degree": None,
                                              # a hero point would break the tie: critical beats success
                                              "hero_result": "critical", "hero_outcome": "victory",
                                              "hero_degree": "minor"}
    ruled = contest(rules, (9, 9), 14, 14, options={"ties": "marginal_victory"})
    assert (ruled["outcome"], ruled["degree"]) == ("victory", "marginal")


def test_fumble_against_fumble(rules) -> None:  # type: ignore[no-untyped-def]
    """AMB-6: fumble against fumble is a tie by the Simple Contest Table, or the better roll
    wins. A stretch (one bump down) turns the PC's 19 against 10 into a fumble; the
    resistance rolls 20."""
    assert contest(rules, (19, 20), 10, 10, bumps=-1)["outcome"] == "tie"
    alt = contest(rules, (19, 20), 10, 10, bumps=-1, options={"fumble_against_fumble": "better_roll_wins"})
    assert (alt["result"], alt["opposition_result"], alt["outcome"], alt["degree"]) == (
        "fumble", "fumble", "defeat", "marginal")


def test_critical_against_fumble_is_complete(rules) -> None:  # type: ignore[no-untyped-def]
    """Simple Contest Table: a critical against a fumble is a complete victory."""
    result = contest(rules, (1, 20), 14, 14)
    assert (result["outcome"], result["degree"]) == ("victory", "complete")


def test_hero_point(rules) -> None:  # type: ignore[no-untyped-def]
    """§1.5: a hero point bumps the PC's result once, after masteries; one per roll."""
    assert contest(rules, (16, 5), 14, 14, hero_point=1)["result"] == "success"
    assert contest(rules, (16, 5), 14, 14, hero_point=2)["result"] == "success"
    assert contest(rules, (1, 5), 14, 14, hero_point=1)["result"] == "critical"


def test_zero_target_fails_without_a_hero_point(rules) -> None:  # type: ignore[no-untyped-def]
    """AMB-50: a target number of 0 or less fails (even on a 1), and a hero point cannot help
    unless the option allows it."""
    assert contest(rules, (1, 5), 3, 14, modifier=-3, hero_point=1)["result"] == "failure"
    allowed = contest(rules, (1, 5), 3, 14, modifier=-3, hero_point=1,
                      options={"zero_target": "hero_point_allowed"})
    assert allowed["result"] == "success"


# ---------------------------------------------------------------- exact odds


def split(n: int) -> tuple[int, int]:
    masteries = max(0, (n - 1) // 20)
    return n - 20 * masteries, masteries


def value(rating: Any) -> int:
    if isinstance(rating, int):
        return rating
    base, _, count = rating.partition("M")
    return int(base) + 20 * int(count or 1)


def raw(face: int, tn: int) -> int:
    if tn <= 0:
        return 1
    return 3 if face == 1 else 0 if face == 20 else 2 if face <= tn else 1


def by_hand(a_face: int, r_face: int, ability: Any, resistance: Any, *, modifier: int = 0, bumps: int = 0,
            resistance_bumps: int = 0, hero_point: int = 0, higher: bool = True, spill: bool = True,
            fumble_tie: bool = True, tie_victory: bool = False, joined: bool = False) -> tuple[str, str, str, Any]:
    """The contest as the spec reads (§1.4-1.7), written again from scratch."""
    tn_a, m_a = split(value(ability) + modifier)
    tn_r, m_r = split(value(resistance))
    ra, rr = raw(a_face, tn_a), raw(r_face, tn_r)
    net = m_a - m_r + (bumps - resistance_bumps if joined else 0)
    if net > 0:
        over = max(0, ra + net - 3)
        ra = min(3, ra + net)
        rr = max(0, rr - over) if spill else rr
    elif net < 0:
        over = max(0, rr - net - 3)
        rr = min(3, rr - net)
        ra = max(0, ra - over) if spill else ra
    if not joined:
        ra = max(0, min(3, ra + bumps))
        rr = max(0, min(3, rr + resistance_bumps))
    if hero_point and tn_a > 0:
        ra = min(3, ra + 1)
    if ra != rr:
        outcome = "victory" if ra > rr else "defeat"
    elif a_face == r_face or (ra == 0 and fumble_tie):
        outcome = "tie"
    else:
        outcome = "victory" if (a_face > r_face) == higher else "defeat"
    if tn_a <= 0:
        outcome = "defeat"  # §1.8, AMB-50: a target of 0 or less fails whatever the dice
    if outcome == "tie" and tie_victory:
        outcome = "victory"
    degree = None if outcome == "tie" else DEGREES[abs(ra - rr)]
    if tn_a <= 0:
        degree = DEGREES[max(0, rr - 1)]  # a forced defeat: the resistance's margin over a failure
    return RESULTS[ra], RESULTS[rr], outcome, degree


CASES = [
    ({"ability": "7M", "resistance": 14}, {}, {}),
    ({"ability": 43, "resistance": "14M"}, {}, {}),
    ({"ability": 14, "resistance": "14M2"}, {"mastery_overflow": "wasted"}, {"spill": False}),
    ({"ability": 17, "resistance": 14, "hero_point": 1, "bumps": -1}, {"better_roll": "lower_roll"},
     {"higher": False}),
    ({"ability": "10M", "resistance": 10, "bumps": 1, "resistance_bumps": 2},
     {"automatic_bumps": "with_masteries", "fumble_against_fumble": "better_roll_wins", "ties": "marginal_victory"},
     {"joined": True, "fumble_tie": False, "tie_victory": True}),
    ({"ability": 5, "resistance": 8, "modifier": -6, "hero_point": 1}, {}, {}),
]


@pytest.mark.parametrize(("inputs", "options", "reading"), CASES)
def test_contest_odds_are_exact(rules, inputs: dict[str, Any], options: dict[str, str],  # type: ignore[no-untyped-def]
                                reading: dict[str, Any]) -> None:
    odds = rules.odds("contest", options=options, **inputs)
    expected: dict[str, Counter] = {n: Counter() for n in ("result", "opposition_result", "outcome", "degree")}
    ability, resistance = inputs["ability"], inputs["resistance"]
    rest = {k: v for k, v in inputs.items() if k not in ("ability", "resistance")}
    for a, r in product(range(1, 21), repeat=2):
        for name, got in zip(expected, by_hand(a, r, ability, resistance, **rest, **reading)):
            expected[name][got] += Fraction(1, 400)
    assert odds.residual == 0
    for name, dist in expected.items():
        assert {(None if k is None else str(k)): p for k, p in odds.results[name].items()} == dict(dist), name


# ---------------------------------------------------------------- rolls agree with odds




def test_rolls_agree_with_odds(rules) -> None:  # type: ignore[no-untyped-def]
    chi_square_agrees(rules, "contest", "degree", 800, 31, ability="7M", resistance=14)
