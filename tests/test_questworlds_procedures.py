"""QuestWorlds scored contest (rulesets/questworlds/contests.rules): rounds replayed from given
dice and answers, tactics, hero points, parting shots, disengaging, rising action and climax,
the spec's worked examples (questworlds.md §5.1) and bad answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from runebook import interpreter
from runebook.interpreter.rules.procedures import CallbackDriver, ChoicePoint

NAME = "scored contest"
REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("questworlds")


def _name(value: Any) -> Any:
    return getattr(value, "name", value)


def play(rules, dice: list[int], answers: list[str], options: dict[str, str] | None = None,
         **inputs: Any) -> tuple[dict[str, Any], list[tuple[int, int]]]:  # type: ignore[no-untyped-def]
    """Run a scored contest; return its results (levels by name) and the score before each round."""
    queue = list(answers)
    scores: list[tuple[int, int]] = []

    def answer(point: ChoicePoint) -> str:
        if point.name == "tactic":
            scores.append((point.state["points"], point.state["opposition_points"]))
        return queue.pop(0)

    run = rules.run(NAME, dice=dice, driver=CallbackDriver(answer), options=options or {}, **inputs)
    assert queue == [], f"answers left over: {queue}"
    return {k: _name(v) for k, v in run.results.items()}, scores


# ability 15 against resistance 14, higher roll better: round by round.
FULL_DICE = [3, 10, 17, 2, 2, 18, 9, 9, 20, 5, 1, 20, 4, 12]
FULL_ANSWERS = ["normal", "defensive_response", "risky_gambit", "normal", "normal", "risky_gambit", "attempt"]
FULL_SCORES = [
    (0, 0),  # 3 vs 10: both succeed, 10 is the higher roll: marginal defeat, 1 against
    (0, 1),  # defensive, 17 vs 2: failure against success, minor defeat 2 - 2 = 0
    (0, 1),  # gambit, 2 vs 18: success against failure, minor victory 2 + 1
    (3, 1),  # 9 vs 9: standoff, no score
    (3, 1),  # 20 vs 5: fumble against success, major defeat: 3 against
    (3, 4),  # gambit, 1 vs 20: critical against fumble, complete victory 5 + 1 -> 9
]


def test_full_scored_contest_round_by_round(rules) -> None:  # type: ignore[no-untyped-def]
    results, scores = play(rules, FULL_DICE, FULL_ANSWERS, ability=15, resistance=14)
    assert scores == FULL_SCORES
    # Parting shot 4 vs 12: the opponent wins it marginally and takes 1 back: 9 -> 8, still out.
    assert results == {
        "winner": "player", "outcome": "victory", "disengaged": False, "withdrew": False,
        "points": 8, "opposition_points": 4,
        "degree": "minor",  # rising action, difference 4
        "consequence": "unharmed", "opposition_consequence": "impaired", "pyrrhic_state": None,
    }


def test_full_scored_contest_from_the_command_line(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    choices = tmp_path / "choices.yaml"
    choices.write_text("".join(f"- {a}\n" for a in FULL_ANSWERS))
    run = cli("run", "questworlds", NAME, "--with", "ability=15", "--with", "resistance=14",
              "--dice", ",".join(map(str, FULL_DICE)), "--choices", str(choices), "--json")
    assert run.code == 0, run.stderr
    payload = json.loads(run.stdout)
    assert payload["results"]["winner"] == "player"
    assert (payload["results"]["points"], payload["results"]["opposition_points"]) == (8, 4)
    assert [c["answer"] for c in payload["choices"]] == FULL_ANSWERS
    assert payload["dice"] == FULL_DICE


def test_climax_uses_the_points_scored_against_each_side(rules) -> None:  # type: ignore[no-untyped-def]
    results, _ = play(rules, FULL_DICE, FULL_ANSWERS, ability=15, resistance=14, phase="climax")
    # 4 against the player: impaired; 8 + 1 against the loser: dead, a complete victory.
    assert (results["consequence"], results["opposition_consequence"], results["degree"]) == (
        "impaired", "dead", "complete")


def test_failed_parting_shot_brings_the_opponent_back(rules) -> None:  # type: ignore[no-untyped-def]
    dice = [5, 16, 4, 3, 6, 15,  # minor 2, marginal 1, minor 2: 5 - 0, knocked out
            16, 4,               # parting shot: failure against success, minor defeat: 5 - 2 = 3
            20, 1]               # fumble against critical: complete defeat, 5 against
    results, scores = play(rules, dice, ["normal", "normal", "normal", "attempt", "normal"],
                           ability=15, resistance=14)
    assert scores == [(0, 0), (2, 0), (3, 0), (3, 0)]
    assert results["winner"] == "opposition" and results["outcome"] == "defeat"
    assert (results["points"], results["opposition_points"]) == (3, 5)
    # Rising action, difference 2: the loser is hurt, the level marginal.
    assert (results["degree"], results["consequence"], results["opposition_consequence"]) == (
        "marginal", "hurt", "unharmed")


def test_successful_parting_shot_adds_its_points(rules) -> None:  # type: ignore[no-untyped-def]
    results, _ = play(rules, [1, 20, 1, 16], ["normal", "attempt"], ability=15, resistance=14)
    assert results["points"] == 5 + 3  # complete victory, then a major one
    assert (results["degree"], results["opposition_consequence"]) == ("complete", "dead")  # difference 8


def test_the_gm_does_not_take_a_parting_shot(rules) -> None:  # type: ignore[no-untyped-def]
    results, _ = play(rules, [20, 1], ["normal"], ability=15, resistance=14)
    assert (results["winner"], results["opposition_points"]) == ("opposition", 5)


@pytest.mark.parametrize("dice, points", [
    ([5, 4], 1),    # success against success, better roll: marginal
    ([5, 16], 2),   # success against failure: minor
    ([1, 16], 3),   # critical against failure: major
    ([16, 16], 0),  # same result, same roll: standoff
])
def test_resolution_points_by_degree(rules, dice: list[int], points: int) -> None:  # type: ignore[no-untyped-def]
    """T-24: marginal 1, minor 2, major 3, complete 5; the first to 5 wins."""
    results, scores = play(rules, dice + [1, 20], ["normal", "normal", "decline"], ability=15, resistance=14)
    assert scores == [(0, 0), (points, 0)]
    assert results["points"] == points + 5


def test_a_complete_victory_wins_at_once(rules) -> None:  # type: ignore[no-untyped-def]
    results, scores = play(rules, [1, 20], ["normal", "decline"], ability=15, resistance=14)
    assert scores == [(0, 0)] and results["points"] == 5 and results["winner"] == "player"


def test_escalating_contest_continues_at_round_two(rules) -> None:  # type: ignore[no-untyped-def]
    """T-14: a simple contest's marginal victory becomes 1 point and play goes on at round 2."""
    first = rules.resolve("contest", dice=[5, 4], ability=15, resistance=14)
    assert (_name(first.results["outcome"]), _name(first.results["degree"])) == ("victory", "marginal")
    results, scores = play(rules, [5, 16, 1, 20], ["normal", "normal", "decline"],
                           ability=15, resistance=14, points=1)
    assert scores == [(1, 0), (3, 0)]
    assert results["points"] == 8


@pytest.mark.parametrize("tactic, dice, score", [
    ("risky_gambit", [5, 16], (3, 0)),        # win: 2 + 1
    ("risky_gambit", [16, 5], (0, 4)),        # lose: 2 + 2 against
    ("defensive_response", [5, 16], (1, 0)),  # win: 2 - 1
    ("defensive_response", [16, 5], (0, 0)),  # lose: 2 - 2
    ("defensive_response", [5, 4], (0, 0)),   # win marginally: 1 - 1
    ("asymmetrical", [5, 16], (0, 0)),        # win: the side goal, no points
    ("asymmetrical", [16, 5], (0, 2)),        # lose: scored normally
    ("disengage", [16, 5], (0, 2)),           # fail to leave: scored normally
    ("disengage", [9, 9], (0, 0)),            # standoff: still engaged
])
def test_tactics(rules, tactic: str, dice: list[int], score: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    results, scores = play(rules, dice + [20, 1], [tactic, "normal"], ability=15, resistance=14)
    assert scores == [(0, 0), score]


def test_disengaging_leaves_without_harm_in_rising_action(rules) -> None:  # type: ignore[no-untyped-def]
    results, scores = play(rules, [20, 5, 5, 16], ["normal", "disengage"], ability=15, resistance=14)
    assert scores == [(0, 0), (0, 3)]
    assert results == {"winner": None, "outcome": "defeat", "disengaged": True, "withdrew": False, "points": 0,
                       "opposition_points": 3, "degree": None, "consequence": "unharmed",
                       "opposition_consequence": "unharmed", "pyrrhic_state": None}


def test_disengaging_at_the_climax_keeps_the_points_against(rules) -> None:  # type: ignore[no-untyped-def]
    results, _ = play(rules, [20, 5, 5, 16], ["normal", "disengage"], ability=15, resistance=14, phase="climax")
    assert results["disengaged"] is True and results["consequence"] == "hurt"  # 3 against


@pytest.mark.parametrize("mine, theirs, dice, score, option", [
    ("normal", "opposition_gambit", [5, 16], (4, 0), "additional_two"),        # loser gambled: +2
    ("normal", "opposition_defensive", [5, 16], (0, 0), "additional_two"),     # loser defensive: -2
    ("normal", "opposition_defensive", [16, 5], (0, 1), "additional_two"),     # winner defensive: -1
    ("risky_gambit", "opposition_gambit", [5, 16], (4, 0), "additional_two"),  # both: +2 (AMB-18)
    ("risky_gambit", "opposition_gambit", [5, 16], (5, 0), "both_adjustments"),
    ("risky_gambit", "opposition_defensive", [5, 16], (1, 0), "additional_two"),  # 2 + 1 - 2
])
def test_opposition_tactics(rules, mine: str, theirs: str, dice: list[int], score: tuple[int, int],
                            option: str) -> None:  # type: ignore[no-untyped-def]
    answers = [mine, theirs] + (["normal", "opposition_normal"] if score[0] < 5 else []) + ["decline"] * (score[0] >= 5)
    extra = [] if score[0] >= 5 else [20, 1]
    results, scores = play(rules, dice + extra, answers, {"both_gambles": option},
                           ability=15, resistance=14, opposition_tactics=1)
    assert (results["points"], results["opposition_points"]) == (
        score if score[0] >= 5 else (score[0], score[1] + 5))


def test_hero_point_bumps_a_round_and_runs_out(rules) -> None:  # type: ignore[no-untyped-def]
    asked: list[str] = []

    def answer(point: ChoicePoint) -> str:
        asked.append(point.name)
        return {"tactic": "normal", "hero_point": "use", "parting_shot": "decline"}[point.name]

    # 17 vs 5: asked after the roll, a failure bumped to a success, won by the higher roll
    # (marginal, 1 point); then no hero point is left to ask about.
    run = rules.run(NAME, dice=[17, 5, 1, 20], driver=CallbackDriver(answer), ability=15, resistance=14,
                    hero_points=1)
    assert asked == ["tactic", "hero_point", "tactic", "parting_shot"]
    assert run.results["points"] == 6


def test_tied_results_option(rules) -> None:  # type: ignore[no-untyped-def]
    results, scores = play(rules, [5, 4, 1, 20], ["normal", "normal", "decline"],
                           {"tied_results": "same_result"}, ability=15, resistance=14)
    assert scores == [(0, 0), (0, 0)]


def test_rising_winner_harm_option(rules) -> None:  # type: ignore[no-untyped-def]
    # 2, 4 for the player; 2, 4 against; a marginal victory: 5 to 4.
    printed, _ = play(rules, [5, 16, 5, 16, 16, 5, 16, 5, 5, 4], ["normal"] * 5 + ["decline"],
                      ability=15, resistance=14)
    assert (printed["points"], printed["opposition_points"]) == (5, 4)
    assert printed["consequence"] == "hurt"  # difference 1: the winner is hurt too
    never, _ = play(rules, [5, 16, 5, 16, 16, 5, 16, 5, 5, 4], ["normal"] * 5 + ["decline"],
                    {"rising_winner_harm": "never"}, ability=15, resistance=14)
    assert never["consequence"] == "unharmed"


def test_climactic_victories_are_major_or_complete(rules) -> None:  # type: ignore[no-untyped-def]
    """Derived property (§3.5): at the climax the loser has at least 5 + 1 against them."""
    odds = rules.odds(NAME, ability=15, resistance=14, phase="climax")
    assert set(map(str, odds.results["degree"].keys())) == {"major", "complete"}
    assert sum(odds.results["winner"].values()) == 1


@pytest.mark.parametrize("answers, code", [(["normal", "wild"], "E0611"), (["normal"], "E0610")])
def test_bad_choices(cli, tmp_path: Path, answers: list[str], code: str, snapshot) -> None:  # type: ignore[no-untyped-def]
    choices = tmp_path / "choices.yaml"
    choices.write_text("".join(f"- {a}\n" for a in answers))
    run = cli("run", "questworlds", NAME, "--with", "ability=15", "--with", "resistance=14",
              "--dice", "3,10,17,2", "--choices", str(choices))
    assert run.code == 1 and code in run.stderr and "Traceback" not in run.stderr
    assert run.stdout == ""
    text = run.stderr.replace(str(tmp_path), "<tmp>").replace(str(REPO), "<repo>")
    assert text == snapshot


def test_chained_contest_round_by_round(rules) -> None:  # type: ignore[no-untyped-def]
    seen: list[tuple[str, str]] = []

    def answer(point: ChoicePoint) -> str:
        seen.append((_name(point.state["harm"]), _name(point.state["opposition_harm"])))
        return "press_on"

    # 5 vs 16: minor victory, the opponent is hurt (resistance 14 - 3 = 11 from now on);
    # 5 vs 16 again: hurt becomes injured (resistance 5); 12 vs 5: both succeed, the
    # higher roll wins marginally: injured becomes dying and the contest is over.
    run = rules.run("chained contest", dice=[5, 16, 5, 16, 12, 5], driver=CallbackDriver(answer),
                    ability=15, resistance=14)
    assert seen == [("unharmed", "unharmed"), ("unharmed", "hurt"), ("unharmed", "injured")]
    assert {k: _name(v) for k, v in run.results.items()} == {
        "winner": "player", "outcome": "victory", "disengaged": False,
        "harm": "unharmed", "opposition_harm": "dying", "penalty": 0, "opposition_penalty": 9}


def test_chained_contest_penalties_and_withdrawal(rules) -> None:  # type: ignore[no-untyped-def]
    answers = iter(["press_on", "withdraw", "withdraw"])
    # 20 vs 16: fumble against failure, minor defeat: the player is hurt (15 - 3 = 12);
    # withdrawing, 13 vs 5: failure against success, hurt becomes injured (15 - 9 = 6);
    # withdrawing, 6 vs 15: success against failure: the player leaves.
    run = rules.run("chained contest", dice=[20, 16, 13, 5, 6, 15],
                    driver=CallbackDriver(lambda point: next(answers)), ability=15, resistance=14)
    assert {k: _name(v) for k, v in run.results.items()} == {
        "winner": None, "outcome": "defeat", "disengaged": True,
        "harm": "injured", "opposition_harm": "unharmed", "penalty": 9, "opposition_penalty": 0}


def test_chained_penalties_may_stack(rules) -> None:  # type: ignore[no-untyped-def]
    """AMB-25, option chained_stack: hurt then injured is -3 - 9 = -12 instead of -9."""
    answers = iter(["press_on", "withdraw", "withdraw"])
    # The dice of the test above: hurt (15 - 3 = 12), then injured: 15 - 12 = 3 when the
    # penalties stack. 6 vs 15 is then failure against failure, lost on the worse roll: a
    # marginal defeat, injured becomes dying, and the withdrawal fails.
    run = rules.run("chained contest", dice=[20, 16, 13, 5, 6, 15], options={"chained_stack": "stack"},
                    driver=CallbackDriver(lambda point: next(answers)), ability=15, resistance=14)
    assert {k: _name(v) for k, v in run.results.items()} == {
        "winner": "opposition", "outcome": "defeat", "disengaged": False,
        "harm": "dying", "opposition_harm": "unharmed", "penalty": 12, "opposition_penalty": 0}


def test_disengaging_at_an_equal_score(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A disengagement won at 0 to 0 ends the contest with no winner and no harm (it used to
    look up a table row for a difference of 0, E0413)."""
    answers = tmp_path / "answers.yaml"
    answers.write_text("- disengage\n")
    run = cli("run", "questworlds", "scored contest", "--with", "ability=15", "--with", "resistance=14",
              "--choices", str(answers), "--dice", "3,18", "--json")
    assert run.code == 0, run.stderr
    results = json.loads(run.stdout)["results"]
    assert results["disengaged"] is True and results["winner"] is None
    assert results["consequence"] == results["opposition_consequence"] == "unharmed"
