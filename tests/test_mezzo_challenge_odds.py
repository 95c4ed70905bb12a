"""Exact odds of a whole Mezzo challenge (spec mezzo.md §3.12-3.13) from the `Challenge`
procedure, against an enumeration of the book's rules written here in plain Python.

Two cases: a duel (a d8 against a d6) played to the end (at most 12 rounds, the default),
and Ana and Bo (a d4 each) against an ogre (a d6) for at most two rounds. Every major perk is
a Push (no complication is raised against it); at the end of a round a side with enough
trumps exiles its opponents (it never withdraws), the side that is left leaves in victory,
and each trump of a goal whose supporters have all left gives one of them, the one with the
least momentum (the first listed on a tie), a momentum point. Leaving in defeat turns every
two momentum into an adversity point.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product
from typing import Any

import attrs
import pytest

from runebook.interpreter.core.limits import DEFAULT_LIMITS
from runebook.interpreter.rules import load

ANSWERS = {"perk": "push", "push_counter": "allow", "withdraw": "remain", "exile": "exile_in_defeat"}
#: name: (challengers, sides, votes, their die sizes on the step ladder (§3.2), most rounds)
CASES = {
    "duel": (["hero", "foe"], [1, 2], [3, 2], [8, 6], 12),
    "two against one": (["ana", "bo", "ogre"], [1, 1, 2], [1, 1, 2], [4, 4, 6], 2),
}


def major_outcome(mine: int, opposing: int) -> tuple[int, int, int]:
    """§3.12: (major perks, minor perks, adversity) of an action against the highest
    opposing roll."""
    if mine > opposing:
        return (2 if mine >= 2 * opposing else 1), 0, 0
    if mine == opposing:
        return 0, 1, 0
    return 0, 0, 1


def finish(sides: list[int], left: tuple, trumps: tuple, adversity: tuple, minor: tuple, rounds: int) -> tuple:
    """Leaving (§3.13): the trumps of a goal whose supporters have all left each give the
    least-momentum supporter a point; defeat turns momentum into adversity, two for one."""
    n = len(sides)
    momentum = [0] * n
    spent = list(adversity)
    for side in sorted(set(sides)):
        members = [j for j in range(n) if sides[j] == side]
        if all(left[j] != "" for j in members):
            for _ in range(trumps[side - 1]):
                least = min(momentum[j] for j in members)
                momentum[next(j for j in members if momentum[j] == least)] += 1
    for j in range(n):
        if left[j] == "defeat":
            spent[j] += momentum[j] // 2
            momentum[j] %= 2
    shown = tuple(x or "still_in" for x in left)
    return shown, tuple(momentum), tuple(spent), minor, trumps, rounds


def enumerate_challenge(sides: list[int], sizes: list[int], most_rounds: int) -> Counter:
    """Every face of every round's dice, round by round, until one side is gone (states of
    equal standing are merged, so long runs of ties stay small)."""
    n = len(sides)
    ended: Counter = Counter()
    start = (tuple([""] * n), tuple([0] * len(set(sides))), tuple([0] * n), tuple([0] * n))
    frontier: Counter = Counter({start: Fraction(1)})
    for rounds in range(most_rounds + 1):
        following: Counter = Counter()
        for (left, trumps, adversity, minor), weight in frontier.items():
            if len({sides[j] for j in range(n) if left[j] == ""}) <= 1 or rounds == most_rounds:
                ended[finish(sides, left, trumps, adversity, minor, rounds)] += weight
                continue
            acting = [j for j in range(n) if left[j] == ""]
            every = list(product(*[range(1, sizes[j] + 1) for j in acting]))
            for faces in every:
                score = dict(zip(acting, faces))
                t, a, m, out = list(trumps), list(adversity), list(minor), list(left)
                for j in acting:
                    opposing = max(score[k] for k in acting if sides[k] != sides[j])
                    major, minor_gained, failed = major_outcome(score[j], opposing)
                    t[sides[j] - 1] += major  # every major perk pushes the actor's own goal
                    m[j] += minor_gained
                    a[j] += failed
                for side in sorted(set(sides)):  # end of round: exile when the trumps suffice
                    supporters = [j for j in range(n) if out[j] == "" and sides[j] == side]
                    opponents = [j for j in range(n) if out[j] == "" and sides[j] != side]
                    if supporters and opponents and t[side - 1] >= len(opponents):
                        for j in opponents:
                            out[j] = "defeat"
                if len({sides[j] for j in range(n) if out[j] == ""}) <= 1:
                    out = [x or "victory" for x in out]
                following[(tuple(out), tuple(t), tuple(a), tuple(m))] += weight / len(every)
        frontier = following
    return ended


RESULTS = ["left", "momentum", "adversity", "minor_perks", "trumps", "rounds"]


def plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    return value if isinstance(value, int) else str(value)


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    # Three challengers pass through more states than the default limit allows.
    return load("mezzo", limits=attrs.evolve(DEFAULT_LIMITS, max_states=100_000))


@pytest.mark.parametrize("case", list(CASES))
def test_each_result_of_a_whole_challenge_matches_the_enumeration(rules, case: str) -> None:  # type: ignore[no-untyped-def]
    names, sides, votes, sizes, most = CASES[case]
    odds = rules.odds("Challenge", answers=ANSWERS, challengers=names, sides=sides, votes=votes, max_rounds=most)
    assert odds.residual == 0
    outcomes = enumerate_challenge(sides, sizes, most)
    for at, result in enumerate(RESULTS):
        expected: Counter = Counter()
        for outcome, p in outcomes.items():
            expected[outcome[at]] += p
        got = {plain(k): p for k, p in odds.results[result].items()}
        assert got == dict(expected), result


def test_the_enumeration_is_a_whole_distribution_with_every_ending() -> None:
    outcomes = enumerate_challenge([1, 1, 2], [4, 4, 6], 2)
    assert sum(outcomes.values()) == 1
    endings = {o[0] for o in outcomes}
    assert ("victory", "victory", "defeat") in endings and ("defeat", "defeat", "victory") in endings
    assert ("still_in", "still_in", "still_in") in endings
    duel = enumerate_challenge([1, 2], [8, 6], 12)
    assert {o[0] for o in duel} == {("victory", "defeat"), ("defeat", "victory"), ("still_in", "still_in")}
