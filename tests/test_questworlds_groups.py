"""QuestWorlds group contests (rulesets/questworlds/groups.rules): the group simple contest
(tables T7 and T9, boosts), the group scored contest (pairings, assists T14, followers,
joining, switching abilities) and the group extended contest (order by bid T-22, lending T19,
gifting T20), replayed from given dice and answers; exact odds against an enumeration
written here; bad answers and bad loans."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from questworlds_helpers import FUMBLE, d20_level
from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.rules.procedures import CallbackDriver, ChoicePoint
from questworlds_helpers import level_name as _name, Stop

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "rulesets" / "questworlds" / "examples"
SIMPLE = "group simple contest"
SCORED = "group scored contest"
EXTENDED = "group extended contest"


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("questworlds")


def names(value: Any) -> Any:
    """A level as its name, a list of them as a list of names (other values as they are)."""
    return [names(v) for v in value] if isinstance(value, tuple) else _name(value)


def results_of(run: Any) -> dict[str, Any]:
    return {k: names(v) for k, v in run.results.items()}


def member(values: Any, number: int, absent: Any = 0) -> Any:
    """Member `number`'s (from 1) item of a per-member list; `absent` for a member past its end."""
    return values[number - 1] if number <= len(values) else absent


def cli_inputs(inputs: dict[str, Any]) -> list[str]:
    """`--with name=value` arguments; a list as its items joined by commas."""
    return list(itertools.chain.from_iterable(
        ("--with", f"{k}={','.join(map(str, v)) if isinstance(v, list) else v}") for k, v in inputs.items()))


# --- an independent model of one simple contest (spec §1.4-§1.7, default options) --------

LEVELS = ["fumble", "failure", "success", "critical"]
DEGREES = ["marginal", "minor", "major", "complete"]


def _masteries(n: int) -> int:
    return max(0, (n - 1) // 20)


_raw = d20_level


def simple(ability: int, resistance: int, face: int, gm_face: int) -> tuple[int, int, int]:
    """(player's result, resistance's result, winner: 1 player, -1 resistance, 0 standoff)."""
    net = _masteries(ability) - _masteries(resistance)
    a = _raw(face, ability - 20 * _masteries(ability))
    b = _raw(gm_face, resistance - 20 * _masteries(resistance))
    up, down = max(net, 0), max(-net, 0)
    a2 = max(0, min(3, a + up - max(0, b + down - 3)))
    b2 = max(0, min(3, b + down - max(0, a + up - 3)))
    if a2 != b2:
        return a2, b2, 1 if a2 > b2 else -1
    if face == gm_face or a2 == FUMBLE:
        return a2, b2, 0
    return a2, b2, 1 if face > gm_face else -1


# T7 as the spec prints it (row: the player's result, column: the resistance's; the table is
# symmetric): the victor of the pairing takes the points; fumble against fumble gives none.
T7 = {
    "critical": {"critical": 1, "success": 2, "failure": 3, "fumble": 5},
    "success": {"critical": 2, "success": 1, "failure": 2, "fumble": 3},
    "failure": {"critical": 3, "success": 2, "failure": 1, "fumble": 2},
    "fumble": {"critical": 5, "success": 3, "failure": 2, "fumble": 0},
}
# T9: difference of outcome points -> the winning group's degree.
T9 = {1: "marginal", 2: "minor", 3: "major", 4: "major"}


def t9(difference: int) -> str:
    return T9.get(difference, "complete")


def pairing_points(ability: int, resistance: int, face: int, gm_face: int) -> tuple[int, int]:
    """(points for the player's side, points for the resistance) from one pairing."""
    a, b, winner = simple(ability, resistance, face, gm_face)
    points = 0 if winner == 0 else T7[LEVELS[a]][LEVELS[b]]
    return (points, 0) if winner == 1 else (0, points) if winner == -1 else (0, 0)


def group_level(points: int, against: int) -> tuple[str, str | None]:
    d = points - against
    if d == 0:
        return "tie", None
    return ("victory" if d > 0 else "defeat"), t9(abs(d))


# --- group simple contest ---------------------------------------------------------------

# Faces that give each result with a target of 10 (two of each where equal results need
# different rolls).
PLAYER_FACE = {"critical": 1, "success": 4, "failure": 12, "fumble": 20}
GM_FACE = {"critical": 1, "success": 6, "failure": 15, "fumble": 20}


@pytest.mark.parametrize("mine, theirs", list(itertools.product(PLAYER_FACE, GM_FACE)))
def test_group_simple_contest_table(rules, mine: str, theirs: str) -> None:  # type: ignore[no-untyped-def]
    """T7, every cell: the victor of a pairing takes the table's outcome points."""
    ability = 10
    face, gm_face = PLAYER_FACE[mine], GM_FACE[theirs]
    if mine == theirs == "critical":
        # Two criticals on different rolls: a success bumped by a mastery (10M: target 10).
        ability, face = 30, 5
    run = rules.run(SIMPLE, dice=[face, gm_face], abilities=[ability], resistance=10)
    res = results_of(run)
    if mine == theirs:
        # Equal results go to the better (higher) roll; the same roll, or two fumbles: none.
        points = T7[mine][theirs]
        expected = (0, 0) if face == gm_face else (points, 0) if face > gm_face else (0, points)
    elif LEVELS.index(mine) > LEVELS.index(theirs):
        expected = (T7[mine][theirs], 0)
    else:
        expected = (0, T7[mine][theirs])
    assert (res["points"], res["opposition_points"]) == expected
    assert T7[mine][theirs] == T7[theirs][mine]  # the table is symmetric


# One pairing per entry: (player's face, resistance's face) at target 10 against 10, and the
# outcome points it gives (+ the player's side, - the resistance's).
PAIR = {1: (6, 4), 2: (4, 15), 3: (1, 15), 5: (1, 20), -1: (4, 6), -2: (15, 4), -3: (15, 1), 0: (9, 9)}


def group_dice(pairings: list[int]) -> list[int]:
    return [face for p in pairings for face in PAIR[p]]


def group_inputs(pairings: list[int], **extra: Any) -> dict[str, Any]:
    return {"abilities": [10] * len(pairings), "resistance": 10, **extra}


@pytest.mark.parametrize("pairings", [[1], [2], [3], [3, 1], [5], [5, 1], [5, 3], [2, -2], [-3], [-3, -2, 1]])
def test_degree_of_victory_table(rules, pairings: list[int]) -> None:  # type: ignore[no-untyped-def]
    """T9: the difference of the two sides' outcome points gives the degree; 0 is a tie."""
    run = rules.run(SIMPLE, dice=group_dice(pairings), **group_inputs(pairings))
    res = results_of(run)
    points = sum(p for p in pairings if p > 0)
    against = -sum(p for p in pairings if p < 0)
    assert (res["points"], res["opposition_points"]) == (points, against)
    assert (res["outcome"], res["degree"]) == group_level(points, against)


@pytest.mark.parametrize("pairings, boost, outcome, degree", [
    ([2, -2], 1, "victory", "marginal"),   # a boosted tie is a marginal victory
    ([2, -2], 2, "victory", "minor"),      # a double boost: two steps
    ([2], 1, "victory", "major"),          # minor -> major
    ([5, 1], 2, "victory", "complete"),    # complete stays complete
    ([-3], 1, "defeat", "major"),          # a defeat is not changed
])
def test_boost(rules, pairings: list[int], boost: int, outcome: str, degree: str) -> None:  # type: ignore[no-untyped-def]
    res = results_of(rules.run(SIMPLE, dice=group_dice(pairings), **group_inputs(pairings, boost=boost)))
    assert (res["outcome"], res["degree"]) == (outcome, degree)


@pytest.mark.parametrize("size", [1, 2, 3, 4])
def test_boost_cost(rules, size: int) -> None:  # type: ignore[no-untyped-def]
    """T-21: one hero point per three heroes (rounded up); a double boost costs twice."""
    pairings = [0] * size
    for boost in (0, 1, 2):
        res = results_of(rules.run(SIMPLE, dice=group_dice(pairings), **group_inputs(pairings, boost=boost)))
        assert res["boost_cost"] == -(-size // 3) * boost


def test_pairings_and_their_outcomes(rules) -> None:  # type: ignore[no-untyped-def]
    # Member 1 (15) against 14: 3 vs 10, both succeed, the higher roll wins: a marginal
    # defeat (1 point against). Member 2 (7M) against their own opponent (12): 5 is a
    # success bumped to a critical, 16 a failure: a major victory, 3 points. 3 - 1 = 2: minor.
    run = rules.run(SIMPLE, dice=[3, 10, 5, 16], abilities=[15, "7M"], resistance=14, resistances=[0, 12])
    assert results_of(run) == {
        "outcome": "victory", "degree": "minor", "points": 3, "opposition_points": 1, "boost_cost": 0, "hero_points_spent": 0,
        "pairings": ["marginal_defeat", "major_win"]}


def test_single_gm_roll_option(rules) -> None:  # type: ignore[no-untyped-def]
    """AMB-16: one GM die (rolled first) faces every member's roll."""
    run = rules.run(SIMPLE, dice=[10, 5, 12], options={"group_gm_roll": "single"},
                    abilities=[15, 15], resistance=14)
    res = results_of(run)
    # 5 vs 10: both succeed, 10 is higher: 1 against; 12 vs 10: 12 is higher: 1 for.
    assert (res["points"], res["opposition_points"], res["outcome"]) == (1, 1, "tie")
    assert (res["pairings"][0], res["pairings"][1]) == ("marginal_defeat", "marginal_win")


def test_fumble_pairs_option(rules) -> None:  # type: ignore[no-untyped-def]
    """AMB-47: two fumbles are a standoff, or a marginal defeat for both; neither scores."""
    plain = results_of(rules.run(SIMPLE, dice=[20, 20], abilities=[10], resistance=10))
    both = results_of(rules.run(SIMPLE, dice=[20, 20], options={"group_fumble_pairs": "both_marginal_defeat"},
                                abilities=[10], resistance=10))
    assert plain["pairings"][0] == "even" and both["pairings"][0] == "marginal_defeat"
    assert (plain["points"], plain["opposition_points"], both["points"], both["opposition_points"]) == (0, 0, 0, 0)


def _simple_odds(abilities: list[int], resistance: int, single: bool) -> tuple[Counter, Counter]:
    """Exact outcome and degree distributions of a group simple contest, by enumeration."""
    outcome: Counter = Counter()
    degree: Counter = Counter()
    faces = range(1, 21)
    if single:
        worlds = ((gm, mine) for gm in faces for mine in itertools.product(faces, repeat=len(abilities)))
        weight = Fraction(1, 20 ** (len(abilities) + 1))
        for gm, mine in worlds:
            scores = [pairing_points(a, resistance, f, gm) for a, f in zip(abilities, mine)]
            o, d = group_level(sum(s[0] for s in scores), sum(s[1] for s in scores))
            outcome[o] += weight
            degree[d] += weight
        return outcome, degree
    # Pairings are independent: convolve each pairing's (for, against) distribution.
    total: Counter = Counter({(0, 0): Fraction(1)})
    for a in abilities:
        one: Counter = Counter()
        for f, g in itertools.product(faces, faces):
            one[pairing_points(a, resistance, f, g)] += Fraction(1, 400)
        nxt: Counter = Counter()
        for (p, q), x in total.items():
            for (p2, q2), y in one.items():
                nxt[(p + p2, q + q2)] += x * y
        total = nxt
    for (p, q), x in total.items():
        o, d = group_level(p, q)
        outcome[o] += x
        degree[d] += x
    return outcome, degree


@pytest.mark.parametrize("single", [False, True])
def test_group_simple_odds_match_an_enumeration(rules, single: bool) -> None:  # type: ignore[no-untyped-def]
    options = {"group_gm_roll": "single"} if single else {}
    odds = rules.odds(SIMPLE, options=options, abilities=[15, "7M"], resistance=14)
    outcome, degree = _simple_odds([15, 27], 14, single)
    assert {str(k): v for k, v in odds.results["outcome"].items()} == {k: v for k, v in outcome.items() if v}
    assert {(None if k is None else str(k)): v for k, v in odds.results["degree"].items()} == {
        k: v for k, v in degree.items() if v}


# --- group scored contest -----------------------------------------------------------------

def scored_play(rules, dice: list[int], answers: list[str], options: dict[str, str] | None = None,
                **inputs: Any) -> tuple[dict[str, Any], list[tuple[str, int, tuple[int, ...]]]]:  # type: ignore[no-untyped-def]
    """Run a group scored contest; return its results and, at each choice point, its name,
    the member asked (from 1) and the pairing scores (scored, against) of members 1 and 2."""
    queue = list(answers)
    seen: list[tuple[str, int, tuple[int, ...]]] = []

    def answer(point: ChoicePoint) -> str:
        s = point.state
        scores = (member(s["scored"], 1), member(s["against"], 1), member(s["scored"], 2), member(s["against"], 2))
        seen.append((point.name, s["k"] + 1, scores))
        return queue.pop(0)

    run = rules.run(SCORED, dice=dice, driver=CallbackDriver(answer), options=options or {}, **inputs)
    assert queue == [], f"answers left over: {queue}"
    return results_of(run), seen


def scored_state_after(rules, dice: list[int], answers: list[str], options: dict[str, str] | None = None,
                       **inputs: Any) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """The procedure's values at the first choice point after the given answers are used."""
    queue = list(answers)
    found: dict[str, Any] = {}

    def answer(point: ChoicePoint) -> str:
        if not queue:
            found.update({k: names(v) for k, v in point.state.items()})
            raise Stop
        return queue.pop(0)

    with pytest.raises(Stop):
        rules.run(SCORED, dice=dice, driver=CallbackDriver(answer), options=options or {}, **inputs)
    return found


SCORED_INPUTS = {"abilities": [15, 12], "resistances": [14, 10]}
SCORED_DICE = [1, 20, 20, 5, 5, 16, 3, 15, 9, 9, 2, 18, 4, 12]
SCORED_CHOICES = EXAMPLES / "group_scored_choices.yaml"


def _yaml_answers(path: Path) -> list[str]:
    return [line[2:].strip() for line in path.read_text().splitlines() if line.startswith("- ")]


def test_full_group_scored_contest_round_by_round(rules) -> None:  # type: ignore[no-untyped-def]
    results, seen = scored_play(rules, SCORED_DICE, _yaml_answers(SCORED_CHOICES), **SCORED_INPUTS)
    assert seen == [
        # Round 1, in order of rating: member 1 (15) against opponent 1 (14): 1 vs 20, a
        # complete victory, 5 points: opponent 1 is out. Member 2 (12) against opponent 2 (10):
        # 20 vs 5, a major defeat: 3 against.
        ("tactic", 1, (0, 0, 0, 0)),
        ("tactic", 2, (5, 0, 0, 0)),
        # Round 2: member 1 is unopposed and assists member 2 (first assist: 14): 5 vs 16, a
        # minor victory: 2 off the score against member 2 (T14). Member 2 gambles: 3 vs 15, a
        # minor victory, 2 + 1.
        ("free_action", 1, (5, 0, 0, 3)),
        ("tactic", 2, (5, 0, 0, 1)),
        # Round 3: member 1 engages opponent 2: a new pairing (from 0), last in the order.
        # Member 2: 9 vs 9, a standoff; member 1: 2 vs 18, a minor victory, 2.
        ("free_action", 1, (5, 0, 3, 1)),
        ("tactic", 2, (0, 0, 3, 1)),
        ("tactic", 1, (0, 0, 3, 1)),
        # Round 4: member 2: 4 vs 12, a minor victory: 5 points, opponent 2 is out.
        ("tactic", 2, (2, 0, 3, 1)),
    ]
    # Rising action: opponent 1 lost 5 to 0 (difference 5: injured), opponent 2 lost 5 to 1
    # (difference 4: impaired). With two opponents defeated the level is the less severe of
    # the two (AMB-29): impaired, a minor victory.
    assert results == {
        "winner": "player", "outcome": "victory", "disengaged": False, "degree": "minor",
        "consequences": ["unharmed", "unharmed"], "opposition_consequences": ["injured", "impaired"],
    }


def test_full_group_scored_contest_from_the_command_line(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "questworlds", SCORED, *cli_inputs(SCORED_INPUTS), "--dice", ",".join(map(str, SCORED_DICE)), "--choices", str(SCORED_CHOICES), "--json")
    assert run.code == 0, run.stderr
    payload = json.loads(run.stdout)
    assert payload["results"]["degree"] == "minor"
    assert [c["answer"] for c in payload["choices"]] == _yaml_answers(SCORED_CHOICES)
    assert payload["dice"] == SCORED_DICE


# A teammate with 3 points against them (round 1: 20 vs 5, a major defeat), then in round 2 a
# standoff (9 vs 9) and the assist of member 2, who joins in round 2, with ability 15 against
# the first assist's resistance, moderate (14).
ASSIST_INPUTS = {"abilities": [15, 15], "resistances": [14], "joins": [0, 2]}
ASSIST_DICE = [20, 5, 9, 9]
ASSIST_ANSWERS = ["normal", "normal", "1"]  # `1`: assist member 1
# T14 as the spec prints it: the assist's outcome -> change to the score against the recipient.
T14 = {"complete_win": -4, "major_win": -3, "minor_win": -2, "marginal_win": -1, "even": 0,
       "marginal_defeat": 0, "minor_defeat": 1, "major_defeat": 2, "complete_defeat": 3}


@pytest.mark.parametrize("outcome, dice", [
    ("complete_win", [1, 20]), ("major_win", [1, 15]), ("minor_win", [5, 16]), ("marginal_win", [10, 5]),
    ("even", [9, 9]), ("marginal_defeat", [5, 10]), ("minor_defeat", [16, 5]), ("major_defeat", [20, 5]),
    ("complete_defeat", [20, 1]),
])
def test_assist_table(rules, outcome: str, dice: list[int]) -> None:  # type: ignore[no-untyped-def]
    """T14: the assist changes the score against the recipient, never below 0; 5 or more
    knocks the recipient out."""
    state = scored_state_after(rules, ASSIST_DICE + dice + [9, 9], ASSIST_ANSWERS, **ASSIST_INPUTS)
    expected = max(0, 3 + T14[outcome])
    assert state["against"][0] == (0 if expected >= 5 else expected)  # a member out keeps no score
    assert state["out"][0] == (expected >= 5)
    assert state["assists"][0] == 1


def test_assists_to_the_same_teammate_get_harder(rules) -> None:  # type: ignore[no-untyped-def]
    # The second assist is against high (20): 5 vs 17, both succeed and 17 is higher: a
    # marginal defeat, no change (against 14 it would have been a minor victory). The third
    # is against very high (14M): 5 vs 10, the resistance's success is bumped to a critical:
    # a minor defeat, +1.
    dice = ASSIST_DICE + [9, 9] + [9, 9, 5, 17] + [9, 9, 5, 10]
    answers = ASSIST_ANSWERS + ["normal", "1", "normal", "1"]
    state = scored_state_after(rules, dice + [9, 9], answers, **ASSIST_INPUTS)
    assert (state["against"][0], state["assists"][0]) == (4, 3)


@pytest.mark.parametrize("cap, refused", [("stay", False), ("forbid", True)])
def test_assist_cap_option(rules, cap: str, refused: bool) -> None:  # type: ignore[no-untyped-def]
    """AMB-46: a fifth assist to the same teammate stays at nearly impossible, or is refused."""
    dice = [9, 9, 9, 9, 9, 9] + [9, 9, 9, 9] * 4
    answers = ["normal", "normal", "1"] + ["normal", "1"] * 4
    if refused:
        with pytest.raises(RunebookError, match="E0613"):
            scored_state_after(rules, dice + [9, 9], answers, {"assist_cap": cap}, **ASSIST_INPUTS)
    else:
        state = scored_state_after(rules, dice + [9, 9], answers, {"assist_cap": cap}, **ASSIST_INPUTS)
        assert state["assists"][0] == 4  # held at four: nearly impossible from then on


def test_joining_in_progress(rules) -> None:  # type: ignore[no-untyped-def]
    """A member who joins in round 2 is asked nothing in round 1, then picks an opponent."""
    results, seen = scored_play(rules, [9, 9, 9, 9, 1, 20], ["normal", "normal", "engage", "normal"],
                                abilities=[15, 12], resistances=[14], joins=[0, 2])
    assert [(name, k) for name, k, _ in seen] == [("tactic", 1), ("tactic", 1), ("free_action", 2), ("tactic", 2)]
    # Member 2 engages the one opponent (its own pairing) and wins 5 to 0 at once.
    assert results["winner"] == "player" and results["opposition_consequences"][0] == "injured"


def test_switching_abilities(rules) -> None:  # type: ignore[no-untyped-def]
    """A member with another ability is asked each round until they switch; the new ability
    (and, if given, the new resistance) count from that exchange on."""
    # Round 1 keeps 15 against 14: 15 vs 12, both succeed, the higher roll: 1 point. Round 2
    # switches to 1M against 10: 15 is a failure bumped to a success by the mastery, 12 a
    # failure: a minor victory, 2 points. Round 3 asks no more.
    results, seen = scored_play(rules, [15, 12, 15, 12, 1, 20],
                                ["keep_ability", "normal", "switch_ability", "normal", "normal"],
                                abilities=[15], resistances=[14], switches=["1M"], switch_resistances=[10])
    assert [(name, scores[0]) for name, _, scores in seen] == [
        ("switch", 0), ("tactic", 0), ("switch", 1), ("tactic", 1), ("tactic", 3)]
    assert results["winner"] == "player"


@pytest.mark.parametrize("removal, out, total", [("cumulative", True, 6), ("per_round", False, 4)])
def test_follower_contestant_removal(rules, removal: str, out: bool, total: int) -> None:  # type: ignore[no-untyped-def]
    """AMB-17: a follower taking part is removed at 3 points against them in all (then 2 more
    are lodged), or only at 3 in one round."""
    # Climax. Member 2 is a follower (12) against opponent 2 (14): 16 vs 5 and 13 vs 10, two
    # minor defeats, 2 points against each round.
    state = scored_state_after(rules, [9, 9, 16, 5, 9, 9, 13, 10, 9, 9], ["normal"] * 4, {"follower_removal": removal},
                               abilities=[15, 12], resistances=[14, 14], followers=[0, 1], phase="climax")
    assert (state["out"][1], state["totals"][1]) == (out, total)


def test_follower_consequence_at_the_climax(rules) -> None:  # type: ignore[no-untyped-def]
    # As above (removed with 4 + 2 against), then member 1 beats opponent 1 (1 vs 20) and
    # opponent 2 (engaged anew, 1 vs 20). The follower's state: 6 + 1 for losing = 7, injured.
    results, _ = scored_play(rules, [9, 9, 16, 5, 9, 9, 13, 10, 1, 20, 1, 20],
                             ["normal"] * 5 + ["engage", "normal"],
                             abilities=[15, 12], resistances=[14, 14], followers=[0, 1], phase="climax")
    assert (results["winner"], results["consequences"][1]) == ("player", "injured")
    # Each opponent lost with 5 + 1 against: injured; the second worst of two is injured: major.
    assert (results["opposition_consequences"][0], results["degree"]) == ("injured", "major")


def test_a_member_knocked_out_leaves_the_others_in(rules) -> None:  # type: ignore[no-untyped-def]
    # Member 1 (15) loses 20 vs 1 (complete defeat, 5 against: out); member 2 (12) fights on
    # alone against the same opponent and loses the same way: the opposition wins.
    results, seen = scored_play(rules, [20, 1, 9, 9, 20, 1], ["normal"] * 3, abilities=[15, 12], resistances=[14])
    assert [k for _, k, _ in seen] == [1, 2, 2]
    assert (results["winner"], results["consequences"][0], results["consequences"][1], results["degree"]) == (
        "opposition", "injured", "injured", "major")


def test_pairings_run_in_order_of_rating(rules) -> None:  # type: ignore[no-untyped-def]
    """Three members (12, 15, 7M) against one opponent: each round runs from the highest
    rating to the lowest: member 3, member 2, member 1."""
    order: list[int] = []

    def answer(point: ChoicePoint) -> str:
        if len(order) == 6:
            raise Stop
        order.append(point.state["k"] + 1)
        return "normal"

    with pytest.raises(Stop):
        rules.run(SCORED, dice=[9, 9] * 7, driver=CallbackDriver(answer), abilities=[12, 15, "7M"], resistances=[14])
    assert order == [3, 2, 1, 3, 2, 1]


def test_disengaging_from_a_group_scored_contest(rules) -> None:  # type: ignore[no-untyped-def]
    # The only member disengages and wins the roll (5 vs 16): no one is left in, no winner.
    results, _ = scored_play(rules, [5, 16], ["disengage"], abilities=[15], resistances=[14])
    assert (results["winner"], results["outcome"], results["disengaged"], results["degree"]) == (
        None, "defeat", True, None)


# Five heroes against two opponents: any size of group on each side. Members 15, 12, 17, 10, 14
# act in order of rating, 17 (member 3), 15 (1), 14 (5), 12 (2), 10 (4); they open against the
# opponents in turn: members 1, 3 and 5 against opponent 1 (14), members 2 and 4 against
# opponent 2 (10).
FIVE_INPUTS = {"abilities": [15, 12, 17, 10, 14], "resistances": [14, 10]}
FIVE_DICE = [1, 20, 5, 8, 3, 8, 2, 12, 4, 18, 1, 15, 9, 9, 6, 11, 7, 13]
FIVE_ANSWERS = ["normal", "engage", "unrelated", "normal", "normal", "normal",
                "4", "unrelated", "normal", "normal", "normal",
                "unrelated", "unrelated", "normal"]


def test_five_heroes_against_two_opponents_from_given_dice(rules) -> None:  # type: ignore[no-untyped-def]
    results, seen = scored_play(rules, FIVE_DICE, FIVE_ANSWERS, **FIVE_INPUTS)
    assert [(name, k) for name, k, _ in seen] == [
        # Round 1. Member 3 (17) against opponent 1 (14): 1 vs 20, critical against fumble, a
        # complete victory: 5 to 0, opponent 1 is out (injured, a difference of 5), and members
        # 1, 3 and 5 are unopposed. Member 1 engages: nobody is free, so the first opponent still
        # in, opponent 2, a new pairing placed last. Member 5 takes an unrelated action. Member 2
        # (12) against 10: 5 vs 8, both succeed, the higher roll wins: 1 against member 2.
        # Member 4 (10): 3 vs 8, the same: 1 against. Member 1 (15): 2 vs 12, success against
        # failure, a minor victory: 2.
        ("tactic", 3), ("free_action", 1), ("free_action", 5), ("tactic", 2), ("tactic", 4), ("tactic", 1),
        # Round 2. Member 3 assists member 4 (`4`; the first assist, against 14): 4 vs 18, a
        # minor victory takes 2 off the 1 against member 4: 0. Member 5: unrelated. Member 2:
        # 1 vs 15, critical against failure, a major victory: 3. Member 4: 9 vs 9, a standoff.
        # Member 1: 6 vs 11, a minor victory: 4.
        ("free_action", 3), ("free_action", 5), ("tactic", 2), ("tactic", 4), ("tactic", 1),
        # Round 3. Members 3 and 5: unrelated. Member 2: 7 vs 13, a minor victory: 5 to 1, and
        # opponent 2 is out (impaired, a difference of 4). No opponent is left: the members win.
        ("free_action", 3), ("free_action", 5), ("tactic", 2),
    ]
    # Member 2's pairing score when they act in round 3: 3 for, 1 against.
    assert seen[-1][2][2:] == (3, 1)
    # Two opponents defeated, injured and impaired: the less severe of two (AMB-29), impaired,
    # is a minor victory (T13). The winners of their pairings by 5 and 4 are unharmed (T11).
    assert results == {
        "winner": "player", "outcome": "victory", "disengaged": False, "degree": "minor",
        "consequences": ["unharmed"] * 5, "opposition_consequences": ["injured", "impaired"],
    }


def _plays_on(point: ChoicePoint) -> str:
    """Every exchange normal; an unopposed member engages an opponent still in."""
    return {"tactic": "normal", "free_action": "engage"}.get(point.name, point.options[0])


def test_five_heroes_against_two_opponents_from_a_seed(rules) -> None:  # type: ignore[no-untyped-def]
    first = rules.run(SCORED, seed=2024, driver=CallbackDriver(_plays_on), **FIVE_INPUTS)
    again = rules.run(SCORED, seed=2024, driver=CallbackDriver(_plays_on), **FIVE_INPUTS)
    assert first.to_dict() == again.to_dict()  # the same seed, the same contest
    results = results_of(first)
    assert results["winner"] in ("player", "opposition")
    assert len(results["consequences"]) == 5 and len(results["opposition_consequences"]) == 2
    # The seed's dice, given back, replay the same contest.
    dice = [d.face for d in first.trace.dice()]
    replay = rules.run(SCORED, dice=dice, driver=CallbackDriver(_plays_on), **FIVE_INPUTS)
    assert results_of(replay) == results and replay.choices == first.choices


def _first_items(odds: Any, name: str) -> dict[str, Fraction]:
    """The distribution of the first item of a list result (the first member's)."""
    found: Counter = Counter()
    for value, p in odds.results[name].items():
        found[str(_name(value[0]))] += p
    return dict(found)


def test_two_heroes_against_one_opponent_odds_as_before_lists(rules) -> None:  # type: ignore[no-untyped-def]
    """Two members (15, 12) against one opponent (14): the exact odds sum to 1 with nothing
    unknown, and are those the procedure gave before it took lists (recorded in
    tests/cases/questworlds/group_scored_two_against_one.json)."""
    recorded = json.loads((REPO / "tests" / "cases" / "questworlds" / "group_scored_two_against_one.json").read_text())
    before = {name: {k: Fraction(v) for k, v in dist.items()} for name, dist in recorded["results"].items()}
    odds = rules.odds(SCORED, **recorded["inputs"])
    assert odds.residual == 0
    for name in ("winner", "outcome", "degree", "consequences", "opposition_consequences"):
        assert sum(odds.results[name].values()) == 1
    for name in ("winner", "outcome", "degree"):
        assert {str(_name(k)).lower(): v for k, v in odds.results[name].items()} == before[name]
    second: Counter = Counter()
    for value, p in odds.results["consequences"].items():
        second[_name(value[1])] += p
    assert _first_items(odds, "consequences") == before["consequence_1"]
    assert dict(second) == before["consequence_2"]
    assert _first_items(odds, "opposition_consequences") == before["opposition_consequence_1"]
    assert {str(k).lower(): v for k, v in odds.results["disengaged"].items()} == before["disengaged"]


@pytest.mark.parametrize("inputs", [
    {"abilities": [15, 0, 12]},           # a member who does not take part
    {"abilities": [15], "boost": 3},      # no triple boost
])
def test_bad_group_simple_inputs(cli, inputs: dict[str, Any]) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "questworlds", SIMPLE, *cli_inputs(inputs), "--dice", "9,9,9,9")
    assert run.code == 1 and "E0613" in run.stderr and "Traceback" not in run.stderr and run.stdout == ""


def _scored_race(ability: int, resistance: int) -> dict[str, Fraction]:
    """The winner of one pairing's race to 5 resolution points (T10 by degree), exactly."""
    rp = {0: 1, 1: 2, 2: 3, 3: 5}
    step: Counter = Counter()
    for f, g in itertools.product(range(1, 21), repeat=2):
        a, b, w = simple(ability, resistance, f, g)
        step[w * rp[abs(a - b)]] += Fraction(1, 400)
    tie = step.pop(0, Fraction(0))
    memo: dict[tuple[int, int], Fraction] = {}

    def win(p: int, o: int) -> Fraction:
        if p >= 5:
            return Fraction(1)
        if o >= 5:
            return Fraction(0)
        if (p, o) not in memo:
            memo[(p, o)] = sum((x * (win(p + s, o) if s > 0 else win(p, o - s)) for s, x in step.items()),
                               Fraction(0)) / (1 - tie)
        return memo[(p, o)]

    return {"player": win(0, 0), "opposition": 1 - win(0, 0)}


def test_group_scored_odds_match_an_enumeration(rules) -> None:  # type: ignore[no-untyped-def]
    """One member against one opponent is a scored contest: its exact odds match a chain
    solved here, and the `Scored Contest` procedure's."""
    odds = rules.odds(SCORED, abilities=[15], resistances=[14])
    assert {str(k): v for k, v in odds.results["winner"].items()} == _scored_race(15, 14)
    single = rules.odds("scored contest", ability=15, resistance=14)
    assert odds.results["degree"] == single.results["degree"]


# Harm by the difference of a pairing's scores (T11, loser's column) as ranks of unharmed <
# dazed < hurt < impaired < injured < dying < dead, and the winner's level from the loser's
# harm (T13, AMB-9).
def _rising_loser(d: int) -> int:
    return 2 if d <= 2 else 3 if d <= 4 else 4 if d <= 6 else 5 if d == 7 else 6


def _level(harm: int) -> str:
    return "marginal" if harm <= 2 else "minor" if harm == 3 else "major" if harm == 4 else "complete"


def _two_against_one(a1: int, a2: int, resistance: int) -> Counter:
    """Exact (winner, degree) of two members against one opponent, rising action, normal
    tactics: members act in order of rating each round, each pairing a race to 5; a member
    with 5 against is out (harm by the difference); the opponent is out at 5 from either."""
    rp = {0: 1, 1: 2, 2: 3, 3: 5}

    def exchange(ability: int) -> tuple[Fraction, Counter]:
        moves: Counter = Counter()
        for f, g in itertools.product(range(1, 21), repeat=2):
            a, b, w = simple(ability, resistance, f, g)
            moves[w * rp[abs(a - b)]] += Fraction(1, 400)
        return moves.pop(0, Fraction(0)), moves

    order = [1, 2] if a1 >= a2 else [2, 1]
    ex = {1: exchange(a1), 2: exchange(a2)}
    memo: dict[Any, dict[int, Counter]] = {}

    def after(m: int, s: tuple[int, int, int, int], harm: tuple[int | None, int | None], move: int) -> Counter:
        sc, ag = list(s[0::2]), list(s[1::2])
        i = m - 1
        if move > 0:
            sc[i] += move
            if sc[i] >= 5:
                return Counter({("player", _level(_rising_loser(min(9, sc[i] - ag[i])))): Fraction(1)})
        else:
            ag[i] -= move
            if ag[i] >= 5:
                h = list(harm)
                h[i] = _rising_loser(min(9, ag[i] - sc[i]))
                other = 1 - i
                if h[other] is not None:
                    return Counter({("opposition", _level(min(h))): Fraction(1)})
                return values((0, 0, sc[1], ag[1]) if i == 0 else (sc[0], ag[0], 0, 0), (h[0], h[1]))[other + 1]
        nxt = (sc[0], ag[0], sc[1], ag[1])
        standing = [k for k in order if harm[k - 1] is None]
        j = standing[(standing.index(m) + 1) % len(standing)]
        return values(nxt, harm)[j]

    def values(s: tuple[int, int, int, int], harm: tuple[int | None, int | None]) -> dict[int, Counter]:
        """For each member to act next, the distribution of (winner, degree)."""
        key = (s, harm)
        if key in memo:
            return memo[key]
        standing = [k for k in order if harm[k - 1] is None]
        base: dict[int, Counter] = {}
        for m in standing:
            tie, moves = ex[m]
            out: Counter = Counter()
            for move, p in moves.items():
                for o, q in after(m, s, harm, move).items():
                    out[o] += p * q
            base[m] = out
        # Standoffs pass the turn with the score unchanged: solve the (at most two) turns.
        if len(standing) == 1:
            m = standing[0]
            tie = ex[m][0]
            memo[key] = {m: Counter({o: v / (1 - tie) for o, v in base[m].items()})}
        else:
            m1, m2 = standing
            t1, t2 = ex[m1][0], ex[m2][0]
            first = Counter({o: (base[m1][o] + t1 * base[m2][o]) / (1 - t1 * t2) for o in base[m1] | base[m2]})
            second = Counter({o: base[m2][o] + t2 * first[o] for o in base[m1] | base[m2]})
            memo[key] = {m1: first, m2: second}
        return memo[key]

    return values((0, 0, 0, 0), (None, None))[order[0]]


def test_two_members_against_one_opponent_odds(rules) -> None:  # type: ignore[no-untyped-def]
    """Two members (10M2, 10M2) against one opponent (10): the exact odds of the winner and
    the degree match a chain solved here."""
    odds = rules.odds(SCORED, abilities=["10M2", "10M2"], resistances=[10])
    expected = _two_against_one(50, 50, 10)
    winner: Counter = Counter()
    degree: Counter = Counter()
    for (w, d), p in expected.items():
        winner[w] += p
        degree[d] += p
    assert {str(k): v for k, v in odds.results["winner"].items()} == dict(winner)
    assert {str(k): v for k, v in odds.results["degree"].items() if v} == {k: v for k, v in degree.items() if v}


@pytest.mark.parametrize("answers, code", [
    (["normal", "charge"], "E0611"),       # not offered
    (["normal"], "E0610"),                 # the choices run out
    (["normal", "normal", "2"], "E0613"),  # assisting oneself (member 2 assists member 2)
])
def test_bad_scored_choices(cli, tmp_path: Path, answers: list[str], code: str, snapshot) -> None:  # type: ignore[no-untyped-def]
    choices = tmp_path / "choices.yaml"
    choices.write_text("".join(f"- {a}\n" for a in answers))
    run = cli("run", "questworlds", SCORED, *cli_inputs(ASSIST_INPUTS), "--dice", "20,5,9,9,9,9",
              "--choices", str(choices))
    assert run.code == 1 and code in run.stderr and "Traceback" not in run.stderr
    assert run.stdout == ""
    assert run.stderr.replace(str(tmp_path), "<tmp>").replace(str(REPO), "<repo>") == snapshot


# --- group extended contest ---------------------------------------------------------------

def extended_play(rules, dice: list[int], answers: list[str], options: dict[str, str] | None = None,
                  stop_after: int | None = None, **inputs: Any) -> tuple[dict[str, Any], list[tuple[int, int, int]]]:  # type: ignore[no-untyped-def]
    """Run a group extended contest; return its results (none if stopped) and the AP (members
    1 and 2, resistance) at the start of each round's declarations."""
    queue = list(answers)
    rounds: list[tuple[int, int, int]] = []

    def answer(point: ChoicePoint) -> str:
        s = point.state
        if point.name == "group_action" and s["slot"] == 0 or (point.name == "opposition_target" and not rounds):
            rounds.append((member(s["ap"], 1), member(s["ap"], 2), s["opposition_ap"]))
            if stop_after is not None and len(rounds) > stop_after:
                raise Stop
        return queue.pop(0)

    if stop_after is not None:
        with pytest.raises(Stop):
            rules.run(EXTENDED, dice=dice, driver=CallbackDriver(answer), options=options or {}, **inputs)
        return {}, rounds
    run = rules.run(EXTENDED, dice=dice, driver=CallbackDriver(answer), options=options or {}, **inputs)
    assert queue == [], f"answers left over: {queue}"
    return results_of(run), rounds


EXTENDED_INPUTS = {"abilities": [15, 12], "resistance": 20, "gifter": 13, "opposition_bid": 4}
EXTENDED_DICE = [5, 16, 4, 15, 6, 5, 3, 18, 2, 20]
EXTENDED_CHOICES = EXAMPLES / "group_extended_choices.yaml"


def test_full_group_extended_contest_round_by_round(rules) -> None:  # type: ignore[no-untyped-def]
    results, rounds = extended_play(rules, EXTENDED_DICE, _yaml_answers(EXTENDED_CHOICES), **EXTENDED_INPUTS)
    # Round 1, by bid: member 1 (6): 5 vs 16, both succeed, 16 is higher: member 1 loses half
    # the bid, 3. The gift (5, against 10): 4 vs 15, a minor victory: member 1 gains 5. Member
    # 2's loan (4, against 8; tied with the GM's bid 4, members first): 6 vs 5, a marginal
    # victory: 2 move to member 1. The GM (4) against member 2: 3 vs 18, both succeed, 18 is
    # higher: member 2 loses 2. Round 2: member 1 bids 10: 2 vs 20, success against a
    # fumble, twice the bid: the resistance is at 0 and out.
    assert rounds == [(15, 12, 20), (19, 8, 20)]
    assert results == {
        "winner": "player", "outcome": "victory", "degree": "marginal", "ap": [19, 8],
        "opposition_ap": 0, "consequences": ["unharmed", "unharmed"],
        "opposition_consequence": "hurt", "benefit": "fresh", "opposition_benefit": None, "hero_points_spent": 0,
        "hero_left": [0, 0],
    }


def test_full_group_extended_contest_from_the_command_line(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "questworlds", EXTENDED, *cli_inputs(EXTENDED_INPUTS), "--dice", ",".join(map(str, EXTENDED_DICE)), "--choices", str(EXTENDED_CHOICES), "--json")
    assert run.code == 0, run.stderr
    payload = json.loads(run.stdout)
    assert (payload["results"]["ap"][0], payload["results"]["opposition_ap"]) == (19, 0)
    assert [c["answer"] for c in payload["choices"]] == _yaml_answers(EXTENDED_CHOICES)


def test_a_bid_of_twenty_acts_before_a_bid_of_five(rules) -> None:  # type: ignore[no-untyped-def]
    """T-22: the actions of a round run from the highest bid to the lowest."""
    # Member 1 (15) bids 5, member 2 (20) bids 20, the GM 3. The first exchange rolls 5 vs 10
    # (both succeed, the resistance's roll is higher: the actor loses half their bid); the
    # others are standoffs. Member 2 acts first: 20 - 10.
    _, rounds = extended_play(rules, [5, 10, 9, 9, 9, 9], ["exchange", "5", "exchange", "20", "first_standing"],
                              stop_after=1, abilities=[15, 20], resistance=14)
    assert rounds[-1] == (15, 10, 14)
    # The GM's bid of 20 against member 1's 5: the GM acts first (its exchange against member
    # 1 rolls 5 vs 10: member 1 loses half of 20).
    _, rounds = extended_play(rules, [5, 10, 9, 9], ["exchange", "5", "first_standing"], stop_after=1,
                              abilities=[15], resistance=20, opposition_bid=20)
    assert rounds[-1][0] == 5


@pytest.mark.parametrize("order, ap", [("by_bid", 14), ("by_ap", 16)])
def test_extended_order_option(rules, order: str, ap: int) -> None:  # type: ignore[no-untyped-def]
    """AMB-23: by bid, the GM (bid 10) acts before member 1 (bid 5); by AP, member 1 (19 AP)
    acts before the GM (14 AP). The first exchange rolls 5 vs 10: the player's side loses
    half the acting bid."""
    _, rounds = extended_play(rules, [5, 10, 9, 9], ["exchange", "5", "first_standing"], {"extended_order": order},
                              stop_after=1, abilities=[19], resistance=14, opposition_bid=10)
    assert rounds[-1][0] == ap


# T19 as the spec prints it, for X lent: outcome -> (recipient's change, lender's change).
def t19(outcome: str, x: int) -> tuple[int, int]:
    half = -(-x // 2)
    return {"complete_win": (x, 0), "major_win": (x, -x), "minor_win": (x, -x), "marginal_win": (half, -half),
            "even": (0, 0), "marginal_defeat": (0, -half), "minor_defeat": (0, -x), "major_defeat": (0, -x),
            "complete_defeat": (-x, -x)}[outcome]


# Dice for each outcome of a contest of 15 against 10.
AGAINST_TEN = [("complete_win", [1, 20]), ("major_win", [1, 12]), ("minor_win", [5, 12]), ("marginal_win", [6, 5]),
               ("even", [5, 5]), ("marginal_defeat", [5, 6]), ("minor_defeat", [16, 5]), ("major_defeat", [20, 5]),
               ("complete_defeat", [20, 1])]


@pytest.mark.parametrize("outcome, dice", AGAINST_TEN)
def test_ap_lending(rules, outcome: str, dice: list[int]) -> None:  # type: ignore[no-untyped-def]
    """T19: member 1 (15) lends 5 AP to member 2, against a resistance of 2 x 5 = 10; halves
    round up. The GM's exchange (bid 3, after the loan) is a standoff."""
    _, rounds = extended_play(rules, dice + [9, 9], ["lend", "5", "2", "stand_aside", "first_standing"],
                              stop_after=1, abilities=[15, 15], resistance=14)
    gain, cost = t19(outcome, 5)
    assert rounds[-1] == (15 + cost, 15 + gain, 14)


def test_lending_resistance_option(rules) -> None:  # type: ignore[no-untyped-def]
    """AMB-19: against 2X (10): 15 vs 12 is a minor victory, 5 move; against a set
    resistance of 20 both succeed and 15 is higher: a marginal victory, 3 move."""
    answers = ["lend", "5", "2", "stand_aside", "first_standing"]
    _, double = extended_play(rules, [15, 12, 9, 9], answers, stop_after=1, abilities=[15, 15], resistance=14)
    _, fixed = extended_play(rules, [15, 12, 9, 9], answers, {"lending_resistance": "set"}, stop_after=1,
                             abilities=[15, 15], resistance=14, loan_resistance=20)
    assert (double[-1], fixed[-1]) == ((10, 20, 14), (12, 18, 14))


# T20 as the spec prints it, for a bid B: outcome -> (recipient's gain, the opponent's gain).
def t20(outcome: str, b: int) -> tuple[int, int]:
    half = -(-b // 2)
    return {"complete_win": (2 * b, 0), "major_win": (b, 0), "minor_win": (b, 0), "marginal_win": (half, 0),
            "even": (0, 0), "marginal_defeat": (0, half), "minor_defeat": (0, b), "major_defeat": (0, b),
            "complete_defeat": (0, 2 * b)}[outcome]


@pytest.mark.parametrize("outcome, dice", AGAINST_TEN)
def test_ap_gifting(rules, outcome: str, dice: list[int]) -> None:  # type: ignore[no-untyped-def]
    """T20: a gifter (15) outside the contest bids 5 for member 1, against 2 x 5 = 10."""
    _, rounds = extended_play(rules, dice + [9, 9], ["stand_aside", "first_standing", "1", "5"],
                              stop_after=1, abilities=[15], resistance=14, gifter=15)
    gain, theirs = t20(outcome, 5)
    assert rounds[-1] == (15 + gain, 0, 14 + theirs)


@pytest.mark.parametrize("cap, bid, refused", [
    ("full_rating", "25", False), ("target_only", "25", True), ("target_only", "7", False)])
def test_gifting_cap_option(rules, cap: str, bid: str, refused: bool) -> None:  # type: ignore[no-untyped-def]
    """AMB-20: a gift's bid is at most the gifter's numeric rating (7M: 27), or its target
    number (7)."""
    answers = ["stand_aside", "first_standing", "1", bid]
    if refused:
        with pytest.raises(RunebookError, match="E0613"):
            extended_play(rules, [9, 9, 9, 9], answers, {"gifting_cap": cap}, stop_after=1, abilities=[15],
                          resistance=14, gifter="7M")
    else:
        _, rounds = extended_play(rules, [9, 9, 9, 9], answers, {"gifting_cap": cap}, stop_after=1, abilities=[15],
                                  resistance=14, gifter="7M")
        assert rounds[-1][0] == 15  # the gift was made (here, lost: the resistance gained)


def test_a_member_out_loses_their_turn(rules) -> None:  # type: ignore[no-untyped-def]
    # Member 2 (bid 12, first) rolls 20 vs 3: fumble against success, twice the bid: member 2
    # is at -12 and out; the GM (bid 3, targeting member 2) turns on member 1: 3 vs 3, a
    # standoff; member 1 (bid 2) acts last: 1 vs 20, 3 x 2 from the resistance.
    results, rounds = extended_play(
        rules, [20, 3, 3, 3, 1, 20], ["exchange", "2", "exchange", "12", "2"],  # the GM targets member 2
        abilities=[15, 12], resistance=4)
    assert rounds == [(15, 12, 4)]
    assert (results["ap"][0], results["ap"][1], results["opposition_ap"], results["winner"]) == (21, -12, -2, "player")
    assert results["consequences"][1] == "impaired"


def test_one_member_group_extended_odds_match_the_extended_contest(rules) -> None:  # type: ignore[no-untyped-def]
    """One member against the resistance, bids of 3 and 1: the member (bid 3) acts first,
    then the GM, as in `Extended Contest`, so the exact odds agree (with a GM bid of 1 the
    bid fixed when declared is the bid when acting)."""
    group = rules.odds(EXTENDED, abilities=[3], resistance=3, opposition_bid=1)
    single = rules.odds("extended contest", ability=3, resistance=3, opposition_bid=1)
    for name in ("winner", "degree", "opposition_ap"):
        assert group.results[name] == single.results[name]


# T17 as the spec prints it: the final action's outcome -> the share of the starting AP a
# victory rejoins with, or a defeat loses.
T17 = {"marginal": Fraction(1, 8), "minor": Fraction(1, 4), "major": Fraction(1, 2), "complete": Fraction(1)}
# Round 1: member 1 stands aside; member 2 (16) bids all 16 and rolls 20 vs 5, fumble against
# success: twice the bid, 16 - 32 = -16; the GM's exchange against member 1 is a standoff.
# Member 2 keeps the hero point the final action will cost (offered after the fumble).
# Round 2: member 1 stands aside, member 2 takes a final action: 16 against 16 (the AP below 0).
FINAL_DICE = [20, 5, 9, 9]
FINAL_ANSWERS = ["stand_aside", "exchange", "all_in", "first_standing", "keep", "stand_aside", "act_finally",
                 "first_standing"]
FINAL_HERO_POINTS = [0, 1]


@pytest.mark.parametrize("outcome, dice", [
    ("complete_win", [1, 20]), ("major_win", [1, 18]), ("minor_win", [5, 18]), ("marginal_win", [10, 5]),
    ("even", [9, 9]), ("marginal_defeat", [5, 10]), ("minor_defeat", [18, 5]), ("major_defeat", [20, 5]),
    ("complete_defeat", [20, 1]),
])
def test_final_action_table(rules, outcome: str, dice: list[int]) -> None:  # type: ignore[no-untyped-def]
    """T17: a member out (not dying) rolls against the AP they are below 0; a victory rejoins
    with a share of the starting AP, a defeat loses that share (a tie: no change)."""
    _, rounds = extended_play(rules, FINAL_DICE + dice + [9, 9], FINAL_ANSWERS, stop_after=2,
                              abilities=[15, 16], resistance=14, hero_points=FINAL_HERO_POINTS)
    degree = outcome.split("_")[0]
    share = 0 if degree == "even" else int(16 * T17[degree])
    expected = share if outcome.endswith("win") else -16 - share if outcome.endswith("defeat") else -16
    assert rounds[1] == (15, -16, 14)
    assert rounds[2][1] == expected


def test_a_member_who_rejoins_keeps_the_penalty_and_the_consequence(rules) -> None:  # type: ignore[no-untyped-def]
    # The final action is a major victory (1 vs 18): member 2 rejoins with 8 AP, but fell to
    # -16 (impaired): -6 on every roll. Round 3: member 2 bids 3 and rolls 12 vs 16: with 16 - 6
    # = 10, a failure against a failure, and 16 is higher: member 2 loses 2 (without the
    # penalty, a success: the resistance would lose 3). Then the GM's standoff, and member 1
    # finishes the resistance: bid 14, 1 vs 20, three times the bid.
    answers = FINAL_ANSWERS + ["stand_aside", "exchange", "3", "first_standing", "exchange", "14",
                               "exchange", "3", "first_standing"]
    results, rounds = extended_play(rules, FINAL_DICE + [1, 18, 9, 9, 12, 16, 9, 9, 1, 20], answers,
                                    abilities=[15, 16], resistance=14, hero_points=FINAL_HERO_POINTS)
    assert rounds[2:] == [(15, 8, 14), (15, 6, 14)]
    assert (results["winner"], results["consequences"][1], results["hero_points_spent"]) == ("player", "impaired", 1)


def test_final_actions_only_once_and_not_when_dying(rules) -> None:  # type: ignore[no-untyped-def]
    asked: list[str] = []

    def answer(point: ChoicePoint) -> str:
        asked.append(point.name)
        if len(asked) > 40:
            raise Stop
        return {"group_action": "stand_aside" if point.state["slot"] == 0 else "exchange", "bid": "all_in",
                "final_action": "act_finally"}.get(point.name, point.options[0])

    # Member 2 falls (20 vs 5: -16), fails the final action (20 vs 5: -24), and is never asked
    # again, a hero point still in hand; the GM's standoffs (9 vs 9) go on until the dice run out.
    with pytest.raises(RunebookError, match="E0501"):
        rules.run(EXTENDED, dice=[20, 5, 9, 9, 20, 5] + [9, 9] * 3, driver=CallbackDriver(answer),
                  abilities=[15, 16], resistance=14, hero_points=[0, 2])
    assert asked.count("final_action") == 1
    # Below -31 (dying) a member is not asked at all: 1 vs 20 against them is 3 x 16 = -32.
    asked.clear()
    with pytest.raises(RunebookError, match="E0501"):
        rules.run(EXTENDED, dice=[20, 1, 9, 9] + [9, 9] * 3, driver=CallbackDriver(answer),
                  abilities=[15, 16], resistance=14, hero_points=FINAL_HERO_POINTS)
    assert "final_action" not in asked


def test_a_loan_to_a_member_out_is_lost(rules) -> None:  # type: ignore[no-untyped-def]
    # Member 2 (bid 12) acts first and is out (20 vs 3: -12); member 1's loan of 5 to them is
    # lost with no roll; the GM (bid 3) turns on member 1: 3 vs 3, a standoff.
    _, rounds = extended_play(rules, [20, 3, 3, 3], ["lend", "5", "2", "exchange", "12", "2"], stop_after=1,
                              abilities=[15, 12], resistance=4)
    assert rounds[-1] == (15, -12, 4)


@pytest.mark.parametrize("answers, code", [
    (["lend", "20", "2"], "E0613"),             # lending more AP than held
    (["lend", "5", "1"], "E0613"),              # lending to oneself
    (["lend", "5", "to_member_9"], "E0611"),     # not offered (the recipient is a member's number)
    (["lend", "5"], "E0610"),                    # the choices run out
])
def test_bad_loans(cli, tmp_path: Path, answers: list[str], code: str, snapshot) -> None:  # type: ignore[no-untyped-def]
    choices = tmp_path / "choices.yaml"
    choices.write_text("".join(f"- {a}\n" for a in answers))
    run = cli("run", "questworlds", EXTENDED, "--with", "abilities=15,12", "--with", "resistance=14",
              "--dice", "9,9,9,9", "--choices", str(choices))
    assert run.code == 1 and code in run.stderr and "Traceback" not in run.stderr
    assert run.stdout == ""
    assert run.stderr.replace(str(tmp_path), "<tmp>").replace(str(REPO), "<repo>") == snapshot
