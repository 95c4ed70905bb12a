"""Mezzo's Resolving Conflicts (spec mezzo.md §3.1-3.5, §3.20, A1, A2, A11) as the `Conflict`
procedure of rulesets/mezzo/conflicts.rules: runs with given dice and answers, from the command
line, and exact odds compared with an enumeration written here from the book's rules."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runebook.interpreter.rules import load
from runebook.interpreter.rules.model import RunebookError
from runebook.interpreter.rules.procedures import ScriptedDriver
from mezzo_helpers import book_pool, six_sided_score_odds



@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load("mezzo")



def plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value if isinstance(value, (int, Fraction)) else str(value)


def run(rules, answers: list[str], dice: list[int] | None = None, options: dict[str, str] | None = None,  # type: ignore[no-untyped-def]
        **inputs: Any) -> dict[str, Any]:
    result = rules.run("Conflict", dice=dice, driver=ScriptedDriver(answers), options=options, **inputs)
    return {k: plain(v) for k, v in result.results.items()}


# ---------------------------------------------------------------- Leave to Chance


def test_three_options_with_free_votes_laws_and_a_tiebreak_from_the_command_line(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Votes 1, 1, 2 from other sources. Player 1: free vote flee; Law of Inertia on flee (-1).
    Player 2: free vote fight, no law. Player 3: abstains, Law of Potential opens parley (+1).
    flee 1, parley 2, fight 3 votes: d4, d6, d8 showing 4, 6, 6: parley and fight tie and roll
    a d12 each, 9 against 2: parley."""
    answers = tmp_path / "conflict.yaml"
    answers.write_text("- leave_to_chance\n- flee\n- inertia\n- flee\n- fight\n- no_law\n- abstain\n"
                       "- potential_opens\n- parley\n- roll\n")
    out = cli("run", "mezzo", "Conflict", "--with", "outcomes=flee,parley,fight", "--with", "votes=1,1,2",
              "--with", "players=3", "--dice", "4,6,6,9,2", "--choices", str(answers))
    assert out.code == 0, out.stderr
    assert "winner: parley" in out.stdout
    assert "votes: [1, 2, 3]" in out.stdout
    assert "first_tie: [parley, fight]" in out.stdout
    assert "laws_invoked: 2" in out.stdout


def test_a_vote_for_an_option_that_does_not_exist(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    answers = tmp_path / "conflict.yaml"
    answers.write_text("- leave_to_chance\n- dragons\n")
    out = cli("run", "mezzo", "Conflict", "--with", "outcomes=flee,parley,fight", "--with", "players=1",
              "--dice", "1,1,1", "--choices", str(answers))
    assert out.code == 1
    assert "E0611" in out.stderr and "'dragons' is not offered at choice 'free_vote'" in out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize(("inputs", "fragment"), [
    ({"outcomes": ["a"]}, "count(outcomes) >= 2"),
    ({"outcomes": ["a", "b", "a"]}, "each_option_named_once"),
    ({"outcomes": ["a", "b"], "votes": [1, 2, 3]}, "votes_for_listed_options"),
])
def test_a_malformed_conflict_is_refused(rules, inputs: dict[str, Any], fragment: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as error:
        run(rules, ["leave_to_chance"], dice=[1, 1, 1], **inputs)
    assert error.value.diagnostics[0].code == "E0613"
    assert fragment in error.value.diagnostics[0].message


def test_no_votes_scores_one_and_ties_roll_again_only_among_the_tied(rules) -> None:  # type: ignore[no-untyped-def]
    """§3.3: an option with no dice scores 1. Three tie at 1: d12s 7, 7, 3; then only the
    two sevens roll again: 2 and 11."""
    result = run(rules, ["leave_to_chance", "roll", "roll"], dice=[1, 1, 7, 7, 3, 2, 11],
                 outcomes=["a", "b", "c"], votes=[1, 0, 2])
    assert result["first_tie"] == ["a", "b", "c"]
    assert result["winner"] == "b"


def test_a_tie_may_end_in_compromise(rules) -> None:  # type: ignore[no-untyped-def]
    result = run(rules, ["leave_to_chance", "compromise"], dice=[3, 3], outcomes=["a", "b"], votes=[2, 2])
    assert result["winner"] == "compromise" and result["first_tie"] == ["a", "b"]


def winner_odds(votes: list[int], die: int = 12) -> dict[str, Fraction]:
    """Every face of every option's dice; a tie among k is won by each with 1/k (the
    tiebreak's dice are the same for all, rolled again until one is highest)."""
    names = "abcdefg"[: len(votes)]
    pools = [book_pool(v) for v in votes]
    sides = [s for pool in pools for s in pool]
    weight = Fraction(1, math.prod(sides))
    wins: Counter = Counter()
    for faces in product(*[range(1, s + 1) for s in sides]):
        scores, at = [], 0
        for pool in pools:
            scores.append(max(faces[at: at + len(pool)], default=1))
            at += len(pool)
        top = [n for n, s in zip(names, scores) if s == max(scores)]
        for n in top:
            wins[n] += weight / len(top)
    return dict(wins)


@pytest.mark.parametrize("votes", [[2, 1, 3], [0, 1, 1], [6, 4, 5], [1, 2, 1]])
def test_exact_odds_of_the_winner(rules, votes: list[int]) -> None:  # type: ignore[no-untyped-def]
    names = list("abcdefg"[: len(votes)])
    odds = rules.odds("Conflict", answers={"approach": "leave_to_chance"}, outcomes=names, votes=votes)
    assert odds.residual == 0
    assert {str(k): p for k, p in odds.results["winner"].items()} == winner_odds(votes)


@pytest.mark.parametrize("votes", [[2, 7], [0, 3], [6, 5]])
def test_d6_game_exact_odds(rules, votes: list[int]) -> None:  # type: ignore[no-untyped-def]
    a, b = (six_sided_score_odds(v) for v in votes)
    expected: Counter = Counter()
    for (sa, pa), (sb, pb) in product(a.items(), b.items()):
        if sa == sb:
            expected["a"] += pa * pb / 2
            expected["b"] += pa * pb / 2
        else:
            expected["a" if sa > sb else "b"] += pa * pb
    odds = rules.odds("Conflict", answers={"approach": "leave_to_chance"}, options={"dice_game": "sixes"},
                      outcomes=["a", "b"], votes=votes)
    assert {str(k): p for k, p in odds.results["winner"].items()} == dict(expected)


def test_d6_game_with_given_dice(rules) -> None:  # type: ignore[no-untyped-def]
    """7 votes: multiplier 2, threshold 1. A first 1 bursts: multiplier 3, the re-roll 4 scores
    12. 3 votes: a 5 is over the threshold: 5. The tiebreaker is a d6."""
    result = rules.run("Conflict", dice=[1, 4, 5], driver=ScriptedDriver(["leave_to_chance", "take"]),
                       options={"dice_game": "sixes"}, outcomes=["a", "b"], votes=[7, 3])
    assert plain(result.results["winner"]) == "a" and result.results["best_score"] == 12
    # No votes: no dice, both score 1 and tie; the tiebreaker's d6s show 2 and 6.
    tie = rules.run("Conflict", dice=[2, 6], driver=ScriptedDriver(["leave_to_chance", "roll"]),
                    options={"dice_game": "sixes"}, outcomes=["a", "b"], votes=[0, 0])
    assert [d.label for d in tie.trace.dice()] == ["d6", "d6"]
    assert plain(tie.results["winner"]) == "b"


# ---------------------------------------------------------------- Take Median


def median_by_hand(votes: list[int], drop_first: bool = False) -> tuple[str, ...]:
    """§3.4 read literally (A1: the two ends of the axis are the most opposed; A2)."""
    held = {i: max(v, 0) for i, v in enumerate(votes)}
    remaining = [i for i in held if held[i] > 0 or not drop_first]
    last_out = [i for i in held if i not in remaining]
    while len(remaining) > 1:
        ends = [remaining[0], remaining[-1]]
        least = min(held[e] for e in ends)
        for e in ends:
            held[e] -= least
        last_out = [e for e in ends if held[e] <= 0]
        remaining = [i for i in remaining if i not in last_out]
    return tuple("abcdefgh"[i] for i in (remaining or last_out))


@pytest.mark.parametrize(("votes", "option", "expected"), [
    ([3, 0, 3], "stay", ("b",)),         # D09b: the middle road with no votes of its own
    ([3, 0, 3], "drop_first", ("a", "c")),
    ([5, 1, 1, 2], "stay", ("a",)),
    ([1, 2, 2, 1], "stay", ("b", "c")),
])
def test_take_median_worked_cases(rules, votes: list[int], option: str, expected: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    assert median_by_hand(votes, option == "drop_first") == expected
    names = list("abcdefgh"[: len(votes)])
    result = run(rules, ["take_median", "roll"], dice=[9, 4] if len(expected) > 1 else [],
                 options={"median_zero_votes": option},
                 outcomes=names, votes=votes)
    if len(expected) == 1:
        assert result["winner"] == expected[0] and result["first_tie"] == []
    else:
        assert result["first_tie"] == list(expected) and result["winner"] == expected[0]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=-2, max_value=6), min_size=2, max_size=6), st.booleans())
def test_take_median_matches_the_steps(votes: list[int], drop_first: bool) -> None:
    """Runs with given dice: a tie's d12s are 12 for the first tied option and 1 for the rest."""
    rules = load("mezzo")
    names = list("abcdefgh"[: len(votes)])
    expected = median_by_hand(votes, drop_first)
    dice = [12] + [1] * (len(expected) - 1) if len(expected) > 1 else []
    result = run(rules, ["take_median", "roll"], dice=dice, outcomes=names, votes=votes,
                 options={"median_zero_votes": "drop_first" if drop_first else "stay"})
    assert result["first_tie"] == ([] if len(expected) == 1 else list(expected))
    assert result["winner"] == expected[0]


def test_take_median_odds_of_a_tie(rules) -> None:  # type: ignore[no-untyped-def]
    """Exact odds: a tie between the two ends is won by each with 1/2."""
    odds = rules.odds("Conflict", answers={"approach": "take_median"}, outcomes=["a", "b", "c"], votes=[2, 0, 2],
                      options={"median_zero_votes": "drop_first"})
    assert {str(k): p for k, p in odds.results["winner"].items()} == {"a": Fraction(1, 2), "c": Fraction(1, 2)}


def test_the_tour_shows_a_three_option_conflict(cli) -> None:  # type: ignore[no-untyped-def]
    out = cli("tour")
    assert out.code == 0, out.stdout
    mezzo = out.stdout.split("== mezzo")[1].split("== questworlds")[0]
    assert '$ runebook odds mezzo "Conflict" --with outcomes=flee,parley,fight --with votes=2,1,3' in mezzo
    expected = winner_odds([2, 1, 3])
    assert f"fight    {float(expected['c']):.2%}" in mezzo


def test_a1_all_remaining_selection_comes_down_to_the_most_votes(rules) -> None:  # type: ignore[no-untyped-def]
    """war 4, truce 1, peace 0, surrender 3. Selecting every option still in: 0 off all (peace
    goes), 1 off all (truce goes), 2 off war and surrender (surrender goes): war. Selecting the
    ends (the default): 3 off war and surrender, 0 off war and peace, 1 off war and truce: both
    go together, a tie."""
    names = ["war", "truce", "peace", "surrender"]
    plurality = run(rules, ["take_median"], dice=[], options={"median_selection": "all_remaining"},
                    outcomes=names, votes=[4, 1, 0, 3])
    assert plurality["winner"] == "war" and plurality["first_tie"] == []
    ends = run(rules, ["take_median", "roll"], dice=[2, 9], outcomes=names, votes=[4, 1, 0, 3])
    assert ends["first_tie"] == ["war", "truce"] and ends["winner"] == "truce"


def test_creative_control_and_an_actor_elsewhere(rules) -> None:  # type: ignore[no-untyped-def]
    """§3.11: a player with Creative Control casts 3 free votes; an actor whose character the
    conflict is not about casts none (not asked), but may still invoke a law."""
    result = run(rules, ["take_median", "b", "no_law", "potential_opens", "a"], dice=[],
                 outcomes=["a", "b"], votes=[1, 0], players=2, free_votes=[3, 0])
    assert result["votes"] == [2, 3]
    assert result["winner"] == "b"


def test_a14_a_fact_serves_consistency_once(rules) -> None:  # type: ignore[no-untyped-def]
    answers = ["take_median", "abstain", "consistency_supports", "a", "the bridge fell",
               "abstain", "consistency_contradicts", "b", "the bridge fell"]
    with pytest.raises(RunebookError) as error:
        run(rules, answers, dice=[], outcomes=["a", "b"], players=2, facts=["the bridge fell", "the king died"])
    assert "fact_free_for_consistency" in error.value.diagnostics[0].message
    # Inertia may name the same fact again (A14).
    answers[6] = "inertia"
    result = run(rules, answers, dice=[], outcomes=["a", "b"], votes=[1, 1], players=2,
                 facts=["the bridge fell", "the king died"])
    assert result["votes"] == [2, 0] and result["winner"] == "a"


def test_d6_game_with_no_votes_on_the_multiplier(rules) -> None:  # type: ignore[no-untyped-def]
    """§3.20, `multiplier_votes=no_multiplier`: buying multiplier is optional ("can"); with
    none bought, 7 votes keep multiplier 1 and a threshold of 7: a first 5 bursts (taken),
    multiplier 2, the re-roll 4 scores 8 (with every full six spent it would be 5 x 2 = 10,
    no burst). 3 votes: a 5 is over the threshold: 5."""
    result = rules.run("Conflict", dice=[5, 4, 5], driver=ScriptedDriver(["leave_to_chance", "take"]),
                       options={"dice_game": "sixes", "multiplier_votes": "no_multiplier"},
                       outcomes=["a", "b"], votes=[7, 3])
    assert plain(result.results["winner"]) == "a" and result.results["best_score"] == 8
    spent = rules.run("Conflict", dice=[5, 5], driver=ScriptedDriver(["leave_to_chance"]),
                      options={"dice_game": "sixes"}, outcomes=["a", "b"], votes=[7, 3])
    assert spent.results["best_score"] == 10


def test_d6_game_no_multiplier_exact_odds(rules) -> None:  # type: ignore[no-untyped-def]
    """Every vote is threshold: 7 votes always burst (2 x d6); 3 votes burst on 1-3."""
    def score(votes: int) -> Counter:
        dist: Counter = Counter()
        for first in range(1, 7):
            if first <= votes:
                for second in range(1, 7):
                    dist[2 * second] += Fraction(1, 36)
            else:
                dist[first] += Fraction(1, 6)
        return dist
    expected: Counter = Counter()
    for (sa, pa), (sb, pb) in product(score(7).items(), score(3).items()):
        if sa == sb:
            expected["a"] += pa * pb / 2
            expected["b"] += pa * pb / 2
        else:
            expected["a" if sa > sb else "b"] += pa * pb
    odds = rules.odds("Conflict", answers={"approach": "leave_to_chance", "burst": "take"},
                      options={"dice_game": "sixes", "multiplier_votes": "no_multiplier"},
                      outcomes=["a", "b"], votes=[7, 3])
    assert {str(k): p for k, p in odds.results["winner"].items()} == dict(expected)
