"""`leaders(xs)`, `keep_highest(dice, n)` and `keep_lowest(dice, n)`: on plain lists, with given dice, and exact odds
over pools compared with enumerations written here (itertools.product over every face, or a
pass over the options one by one for the Mezzo conflict)."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from itertools import product
from typing import Any

import attrs
import pytest

from runebook import roll
from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.core.dice import PoolSource
from runebook.interpreter.core.distribution import joint, odds
from runebook.interpreter.core.limits import DEFAULT_LIMITS
from runebook.interpreter.core.evaluate import MapEnv, compile_expression, pool_spec
from runebook.interpreter.rules import load
from runebook.interpreter.rules.procedures import ScriptedDriver
from mezzo_helpers import book_pool, six_sided_score_odds


def positions_of_top(values: list[Any]) -> tuple[int, ...]:
    top = max(values)
    return tuple(i for i, v in enumerate(values) if v == top)


# ---------------------------------------------------------------- plain lists and given dice


@pytest.mark.parametrize(("text", "expected"), [
    ("leaders([3, 5, 5])", (1, 2)),
    ("leaders([7])", (0,)),
    ("leaders([])", ()),
    ("leaders([2, -1, 2, 0, 2])", (0, 2, 4)),
    ("leaders([1 / 2, 1 / 3])", (0,)),
])
def test_leaders_of_plain_lists(text: str, expected: tuple[int, ...]) -> None:
    assert roll(text).total == expected


def test_leaders_reads_pools_as_their_numbers_with_given_dice() -> None:
    # 2d4 shows 3 + 4 = 7, the d8 7, the d6 2: the pool and the d8 lead.
    assert roll("leaders([2d4, d8, d6])", dice=[3, 4, 7, 2]).total == (0, 1)
    # The dice are consumed in the list's order, as the list itself consumes them.
    assert roll("leaders([d6 for i in range(3)])", dice=[2, 6, 5]).total == (1,)


@pytest.mark.parametrize("text", ['leaders([1, "a"])', "leaders(3)", "leaders([true, false])"])
def test_leaders_refuses_what_is_not_a_list_of_numbers(text: str) -> None:
    with pytest.raises(RunebookError) as caught:
        roll(text)
    assert "E0405" in str(caught.value)


# ---------------------------------------------------------------- exact odds over pools


def faces_of(term: str) -> list[list[int]]:
    """The dice of a term such as '2d4', 'd8' or a number (one 'die' of one face)."""
    if "d" not in term:
        return [[int(term)]]
    count, sides = term.split("d")
    return [list(range(1, int(sides) + 1))] * (int(count) if count else 1)


def enumerated_leaders(terms: list[str]) -> dict[tuple[int, ...], Fraction]:
    """Every face of every die: each term's total, the positions of the highest."""
    dice = [faces_of(t) for t in terms]
    flat = [d for group in dice for d in group]
    weight = Fraction(1, math.prod(len(d) for d in flat))
    out: Counter = Counter()
    for faces in product(*flat):
        totals, at = [], 0
        for group in dice:
            totals.append(sum(faces[at: at + len(group)]))
            at += len(group)
        out[positions_of_top(totals)] += weight
    return dict(out)


@pytest.mark.parametrize("terms", [
    ["d4", "d4"],
    ["d6", "d8", "d6"],
    ["2d4", "d6", "d8", "3"],
    ["d12", "d4", "5", "d10", "2d6"],
    ["d4", "d4", "d4", "d4", "d4", "d4"],
    ["d6", "d6", "d6", "d6", "d6", "d6"],
    ["1", "1", "d2"],
])
def test_exact_odds_of_leaders_over_pools_match_every_face(terms: list[str]) -> None:
    dist = odds(f"leaders([{', '.join(terms)}])")
    assert dist.residual == 0
    assert dict(dist) == enumerated_leaders(terms)


def test_many_pools_are_one_choice_not_every_face() -> None:
    """Eight d12 are 12^8 faces; their leaders are one choice among at most 255 sets: a work
    budget far below 12^8 steps suffices (no timing here: the machine is shared)."""
    dist = odds("leaders([d12 for i in range(8)])", limits=attrs.evolve(DEFAULT_LIMITS, max_work=100_000))
    assert sum(dist.values()) == 1
    assert all(dist[(i,)] == dist[(0,)] for i in range(8))
    # All eight equal: 12 faces shared, out of 12^8.
    assert dist[tuple(range(8))] == Fraction(12, 12 ** 8)


def test_later_readings_of_the_pools_stay_consistent() -> None:
    """After `leaders`, the same pools read again (their totals, another reading, leaders
    again) agree with the faces that made the leaders: the joint odds are every face's."""
    a, b, c = (PoolSource(pool_spec(t), n) for t, n in (("2d4", "a"), ("d8", "b"), ("d6", "c")))
    env = MapEnv({"a": a, "b": b, "c": c})
    texts = ["leaders([a, b, c])", "highest(a)", "count(a >= 3)", "c", "b + c", "leaders([a, b, c])"]
    compiled = [compile_expression(t) for t in texts]
    dist = joint(lambda ctx: tuple(ctx.result(ctx.evaluate(e, env)) for e in compiled))
    expected: Counter = Counter()
    for a1, a2, bb, cc in product(range(1, 5), range(1, 5), range(1, 9), range(1, 7)):
        lead = positions_of_top([a1 + a2, bb, cc])
        expected[(lead, max(a1, a2), (a1 >= 3) + (a2 >= 3), cc, bb + cc, lead)] += Fraction(1, 16 * 8 * 6)
    assert dist.residual == 0
    assert dict(dist) == dict(expected)


def test_a_pool_listed_twice_is_read_as_it_is() -> None:
    a = PoolSource(pool_spec("d4"), "a")
    env = MapEnv({"a": a})
    dist = joint(lambda ctx: ctx.result(ctx.evaluate(compile_expression("leaders([a, a, 2])"), env)))
    assert dict(dist) == {(2,): Fraction(1, 4), (0, 1, 2): Fraction(1, 4), (0, 1): Fraction(1, 2)}


# ---------------------------------------------------------------- keep_highest


@pytest.mark.parametrize("steps", [1, 5, 6, 7, 11])
def test_keep_highest_of_a_ladder_reads_as_its_highest_die(steps: int) -> None:
    ladder = f"ladder({steps}, d4, d6, d8, d10, d12)"
    dist = odds(f"keep_highest({ladder}, 1)")
    sides = book_pool(steps)
    expected: Counter = Counter()
    for faces in product(*[range(1, s + 1) for s in sides]):
        expected[max(faces)] += Fraction(1, math.prod(sides))
    assert dict(dist) == dict(expected)


def test_keep_highest_consumes_the_dice_in_the_same_order() -> None:
    assert roll("keep_highest(ladder(7, d4, d6, d8, d10, d12), 1)", dice=[3, 5]).total == 5
    assert roll("keep_highest(3d6, 2)", dice=[1, 5, 4]).total == 9
    assert roll("keep_highest(ladder(0, d4, d6), 1)").total == 0


@pytest.mark.parametrize(("text", "fragment"), [
    ("keep_highest(3d6kh2, 1)", "one keep or drop rule"),
    ("keep_highest(3, 1)", "dice written in its call"),
    ("keep_highest(3d6, -1)", "0 dice or more"),
])
def test_keep_highest_refusals(text: str, fragment: str) -> None:
    with pytest.raises(RunebookError) as caught:
        roll(text)
    assert "E0403" in str(caught.value) and fragment in str(caught.value)


@pytest.mark.parametrize(("dice", "kept"), [("2d20", 1), ("4d6", 3), ("3d8", 2), ("5d4", 0)])
def test_keep_lowest_against_every_face(dice: str, kept: int) -> None:
    count, sides = map(int, dice.split("d"))
    expected: Counter = Counter()
    for faces in product(range(1, sides + 1), repeat=count):
        expected[sum(sorted(faces)[:kept])] += Fraction(1, sides ** count)
    assert dict(odds(f"keep_lowest({dice}, {kept})")) == dict(expected)


def test_keep_lowest_with_given_dice_and_its_refusals() -> None:
    assert roll("keep_lowest(3d6, 2)", dice=[6, 2, 4]).total == 6
    assert roll("keep_lowest(2d20)", dice=[17, 9]).total == 9
    with pytest.raises(RunebookError) as caught:
        roll("keep_lowest(2d20kl1)")
    assert "E0403" in str(caught.value) and "keep_lowest(3d6, 1)" in str(caught.value)


# ---------------------------------------------------------------- the Mezzo conflict


@pytest.fixture(scope="module")
def mezzo():  # type: ignore[no-untyped-def]
    return load("mezzo")


def step_score_odds(votes: int) -> dict[int, Fraction]:
    """An option's score on the step dice: its highest die over every face, 1 with none."""
    sides = book_pool(votes)
    if not sides:
        return {1: Fraction(1)}
    out: Counter = Counter()
    for faces in product(*[range(1, s + 1) for s in sides]):
        out[max(faces)] += Fraction(1, math.prod(sides))
    return dict(out)


def winner_by_passes(scores: list[dict[int, Fraction]], names: Any = "abcdefgh") -> dict[str, Fraction]:
    """The options taken one by one, keeping (best score, tied options) and its chance; a
    tie among k rolls again until one is highest, which is even: 1/k each."""
    states: Counter = Counter({(0, ()): Fraction(1)})
    for i, dist in enumerate(scores):
        following: Counter = Counter()
        for (best, tied), p in states.items():
            for score, q in dist.items():
                state = (score, (i,)) if score > best else (best, tied + (i,)) if score == best else (best, tied)
                following[state] += p * q
        states = following
    wins: Counter = Counter()
    for (_, tied), p in states.items():
        for i in tied:
            wins[names[i]] += p / len(tied)
    return dict(wins)


def conflict_winner(mezzo, votes: list[int], game: str) -> dict[str, Fraction]:  # type: ignore[no-untyped-def]
    names = list("abcdefgh"[: len(votes)])
    dist = mezzo.odds("Conflict", answers={"approach": "leave_to_chance", "break_tie": "roll"},
                      options={"dice_game": game}, outcomes=names, votes=votes)
    assert dist.residual == 0
    return {str(k): p for k, p in dist.results["winner"].items()}


@pytest.mark.parametrize("game", ["step_dice", "sixes"])
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_conflict_all_tied_is_even(mezzo, game: str, n: int) -> None:  # type: ignore[no-untyped-def]
    assert conflict_winner(mezzo, [0] * n, game) == {"abcdefgh"[i]: Fraction(1, n) for i in range(n)}


@pytest.mark.parametrize("votes", [[3, 0], [3, 0, 2], [3, 0, 2, 5], [3, 0, 2, 7, 1], [3, 0, 2, 5, 1, 0]])
def test_conflict_with_votes_on_the_step_dice(mezzo, votes: list[int]) -> None:  # type: ignore[no-untyped-def]
    expected = winner_by_passes([step_score_odds(v) for v in votes])
    assert conflict_winner(mezzo, votes, "step_dice") == expected


@pytest.mark.parametrize("votes", [[3, 0, 2], [3, 0, 2, 5, 1, 0]])
def test_conflict_with_votes_in_the_d6_game(mezzo, votes: list[int]) -> None:  # type: ignore[no-untyped-def]
    expected = winner_by_passes([dict(six_sided_score_odds(v)) for v in votes])
    assert conflict_winner(mezzo, votes, "sixes") == expected


def test_eight_options_are_within_the_default_limits(mezzo) -> None:  # type: ignore[no-untyped-def]
    """Eight options with votes: before `leaders`, every face of eight scores (refused with
    E0904 from five options on)."""
    votes = [3, 0, 2, 5, 1, 0, 4, 2]
    found = conflict_winner(mezzo, votes, "step_dice")
    assert found == winner_by_passes([step_score_odds(v) for v in votes])


def test_contested_action_of_eight_parties(mezzo) -> None:  # type: ignore[no-untyped-def]
    votes = [3, 0, 2, 5, 1, 0, 4, 2]
    names = list("abcdefgh")
    dist = mezzo.odds("Contested Action", answers={"break_tie": "roll"}, parties=names, votes=votes, failure_votes=2)
    scores = [step_score_odds(v) for v in votes] + [step_score_odds(2)]
    expected = winner_by_passes(scores, names + ["failure"])
    assert {str(k): p for k, p in dist.results["winner"].items()} == expected


def test_given_dice_of_five_tied_options_roll_one_die_each_in_order(mezzo) -> None:  # type: ignore[no-untyped-def]
    """No votes: five tie at 1; d12s 9, 4, 9, 2, 9 keep a, c, e; then 3, 8, 8 keep c, e;
    then 5, 6: e."""
    result = mezzo.run("Conflict", dice=[9, 4, 9, 2, 9, 3, 8, 8, 5, 6],
                       driver=ScriptedDriver(["leave_to_chance", "roll", "roll", "roll"]),
                       outcomes=list("abcde"))
    assert str(result.results["winner"]) == "e"
    assert [str(x) for x in result.results["first_tie"]] == list("abcde")


def test_the_check_knows_the_types(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`runebook check` reports a call given what no run could take, before anything runs."""
    (tmp_path / "game.rules").write_text(
        "procedure Vote (n: number = 3)\n"
        "  let dice = [d6 for i in range(n)]\n"
        "  let lead = leaders(dice)\n"
        "  let bad = leaders([\"a\", \"b\"])\n"
        "  let kept = keep_highest(3d6, \"two\")\n"
        "  result lead = lead\n", encoding="utf-8")
    run = cli("check", str(tmp_path))
    text = run.stdout + run.stderr
    assert run.code != 0
    assert "game.rules:4:21: E0423 argument 1 of 'leaders' is a list of texts" in text
    assert "game.rules:5:32: E0423 argument 2 of 'keep_highest' is text" in text
    assert ":3:" not in text  # a list of pools is what leaders takes


def test_contested_action_of_eight_parties_in_the_d6_game(mezzo) -> None:  # type: ignore[no-untyped-def]
    votes = [3, 0, 2, 5, 1, 0, 4, 2]
    names = list("abcdefgh")
    dist = mezzo.odds("Contested Action", answers={"break_tie": "roll"}, options={"dice_game": "sixes"},
                      parties=names, votes=votes, failure_votes=1)
    scores = [dict(six_sided_score_odds(v)) for v in votes + [1]]
    assert {str(k): p for k, p in dist.results["winner"].items()} == winner_by_passes(scores, names + ["failure"])
