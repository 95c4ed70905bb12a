"""Exact odds of procedures: worlds that meet again run the rest of their segment once
(interpreter.markov.meet). The odds must be those of a chain worked out here in plain
Python, whether worlds meet or not, and they must actually meet."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from itertools import product

import pytest

from runebook import interpreter
from runebook.dsl.flow import flow_of
from runebook.interpreter.markov import meet

GAME = """\
procedure Duel (skill: number = 0, target: number = 3)
  let mine = 0
  let theirs = 0
  let rounds = 0
  repeat
    roll a = 2d6
    roll b = 2d6
    let gap = sum(a) + skill - sum(b)
    let hit = gap > 0
    let miss = gap < 0
    set rounds = min(rounds + 1, 4)
    set mine = mine + (1 if hit else 0)
    set theirs = theirs + (1 if miss else 0)
    stop if mine == target or theirs == target
  result won = mine == target
  result long = rounds >= 4

procedure Lucky Duel (skill: number = 0, target: number = 3)
  let mine = 0
  let theirs = 0
  let rounds = 0
  repeat
    roll a = 2d6
    roll b = 2d6
    let gap = sum(a) + skill - sum(b)
    let hit = gap > 0
    let miss = gap < 0
    # A roll after the worlds met: what they go on to depends on it.
    roll c = 1d6
    let lucky = sum(c) == 6
    set rounds = min(rounds + (2 if lucky else 1), 4)
    set mine = mine + (1 if hit else 0)
    set theirs = theirs + (1 if miss else 0)
    stop if mine == target or theirs == target
  result won = mine == target
  result long = rounds >= 4
"""


def _round(skill: int) -> tuple[Fraction, Fraction, Fraction]:
    """P(hit), P(miss), P(neither) of one round, face by face."""
    hit = miss = 0
    for a, b, c, d in product(range(1, 7), repeat=4):
        gap = a + b + skill - c - d
        hit += gap > 0
        miss += gap < 0
    return Fraction(hit, 1296), Fraction(miss, 1296), Fraction(1296 - hit - miss, 1296)


def _expected(skill: int, target: int, lucky: bool = False) -> dict[tuple[bool, bool], Fraction]:
    """The chain over (mine, theirs, rounds) solved by hand: a tie moves only the round
    counter (by 2 on a lucky 6 in Lucky Duel), and once it stands at 4 a tie comes back
    to the same state."""
    p_hit, p_miss, p_tie = _round(skill)
    steps = ((Fraction(5, 6), 1), (Fraction(1, 6), 2)) if lucky else ((Fraction(1), 1),)

    @cache
    def ends(mine: int, theirs: int, rounds: int) -> dict[tuple[bool, bool], Fraction]:
        out: dict[tuple[bool, bool], Fraction] = {}

        def add(key: tuple[bool, bool], p: Fraction) -> None:
            out[key] = out.get(key, Fraction(0)) + p

        for chance, step in steps:
            after = min(rounds + step, 4)
            for p, m, t in ((p_hit, mine + 1, theirs), (p_miss, mine, theirs + 1)):
                if m == target or t == target:
                    add((m == target, after >= 4), chance * p)
                else:
                    for key, q in ends(m, t, after).items():
                        add(key, chance * p * q)
            if after != rounds:
                for key, q in ends(mine, theirs, after).items():
                    add(key, chance * p_tie * q)
        if rounds == 4:  # every tie comes back: x = p_tie * x + rest
            return {key: value / (1 - p_tie) for key, value in out.items()}
        return out

    return ends(0, 0, 0)


@pytest.fixture(scope="module")
def rules(tmp_path_factory: pytest.TempPathFactory) -> interpreter.Rules:
    folder = tmp_path_factory.mktemp("duel")
    (folder / "duel.rules").write_text(GAME, encoding="utf-8")
    return interpreter.load(str(folder))


def _joint(rules: interpreter.Rules, skill: int, target: int, name: str = "Duel") -> dict[tuple[bool, bool], Fraction]:
    odds = rules.odds(name, skill=skill, target=target)
    return {tuple(key): p for key, p in odds.joint.items()}  # type: ignore[misc]


@pytest.mark.parametrize("skill, target", [(0, 2), (1, 3), (-2, 3)])
def test_worlds_meet_and_the_odds_are_the_chain(rules: interpreter.Rules, monkeypatch: pytest.MonkeyPatch,
                                                skill: int, target: int) -> None:
    met = []
    original = meet.Meetings.meet

    def counted(self: meet.Meetings, *args: object) -> bool:
        found = original(self, *args)  # type: ignore[arg-type]
        met.append(found)
        return found

    monkeypatch.setattr(meet.Meetings, "meet", counted)
    assert _joint(rules, skill, target) == _expected(skill, target)
    # 1,296 faces give 25 sums of 2d6 against 2d6: after `hit` and `miss`, most worlds have
    # met one that went on before.
    assert met.count(True) > met.count(False)


def test_worlds_that_meet_before_a_roll_do_not_share_where_they_go(rules: interpreter.Rules) -> None:
    """Worlds meet after `miss`, but a roll follows: an outcome is remembered only when the
    world took no choice after the meeting point."""
    assert _joint(rules, 1, 2, "Lucky Duel") == _expected(1, 2, lucky=True)


def test_the_odds_are_the_same_when_no_world_meets_another(rules: interpreter.Rules,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(meet.Meetings, "meet", lambda self, *args: False)
    assert _joint(rules, 1, 3) == _expected(1, 3)


def test_meeting_points_are_where_a_value_is_read_for_the_last_time(rules: interpreter.Rules) -> None:
    procedure = rules.procedure("Duel")
    assert procedure is not None
    statements = procedure.decl.statements
    flow = flow_of(statements)
    names = {i: getattr(s, "name", "") for i, s in enumerate(statements)}
    # After `let miss = gap < 0` (the last read of `gap`), worlds may meet again.
    after_miss = next(i for i, n in names.items() if n == "miss") + 1
    assert after_miss in flow.meetings
    assert not flow.meetings & flow.boundaries
