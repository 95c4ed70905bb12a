"""`odds GAME NAME --of EXPR`: the odds of any expression over a check's or a procedure's
results, and the joint distribution of several. Expected values come from an enumeration
written here (itertools.product over faces, fractions)."""

from __future__ import annotations

import json
from fractions import Fraction
from functools import lru_cache
from itertools import product
from pathlib import Path

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.rules.odds_of import odds_of

GAME = """\
levels Outcome: loss < tie < win
levels Degree: narrow < clear < crushing

option margin_rule: plain | doubled = plain

check Clash (skill: number = 1)
  roll mine = 2d6
  roll theirs = 2d6
  let margin = sum(mine) + skill - sum(theirs)
  result outcome = win if margin > 0 else loss if margin < 0 else tie
  result degree = narrow if abs(margin) <= 2 else clear if abs(margin) <= 5 else crushing
  result margin = margin * (2 if margin_rule == doubled else 1)

procedure Race (skill: number = 0)
  let mine = 0
  let theirs = 0
  repeat
    roll a = 1d6
    roll b = 1d6
    if sum(a) + skill > sum(b)
      set mine = mine + 1
    else if sum(a) + skill < sum(b)
      set theirs = theirs + 1
    stop if mine == 2 or theirs == 2
  result mine = mine
  result theirs = theirs
"""


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("clash")
    (folder / "clash.rules").write_text(GAME, encoding="utf-8")
    return folder


def _clash(skill: int) -> dict[tuple[str, str, int], Fraction]:
    """Outcome, degree and margin of 2d6 + skill against 2d6, face by face."""
    found: dict[tuple[str, str, int], Fraction] = {}
    for a, b, c, d in product(range(1, 7), repeat=4):
        margin = a + b + skill - c - d
        outcome = "win" if margin > 0 else "loss" if margin < 0 else "tie"
        degree = "narrow" if abs(margin) <= 2 else "clear" if abs(margin) <= 5 else "crushing"
        key = (outcome, degree, margin)
        found[key] = found.get(key, Fraction(0)) + Fraction(1, 6**4)
    return found


def test_a_condition_over_two_results(game: Path) -> None:
    rules = interpreter.load(str(game))
    found = odds_of(rules, rules.odds("clash", skill=1), ["outcome == win and degree >= clear"])
    expected = sum(p for (o, d, _), p in _clash(1).items() if o == "win" and d in ("clear", "crushing"))
    assert dict(found.distribution) == {True: expected, False: 1 - expected}
    assert found.distribution.residual == 0


def test_the_margin_as_a_distribution_and_options_apply(game: Path) -> None:
    rules = interpreter.load(str(game))
    options = rules.option_values({"margin_rule": "doubled"})
    found = odds_of(rules, rules.odds("clash", skill=1, options={"margin_rule": "doubled"}), ["margin / 2"], options)
    expected: dict[int, Fraction] = {}
    for (_, _, m), p in _clash(1).items():
        expected[m] = expected.get(m, Fraction(0)) + p
    assert dict(found.distribution) == expected
    # the option as the run set it is the one an expression reads
    doubled = odds_of(rules, rules.odds("clash", skill=1), ["margin_rule == doubled"], options)
    assert dict(doubled.distribution) == {True: Fraction(1)}


def test_two_expressions_give_their_joint_distribution(game: Path) -> None:
    rules = interpreter.load(str(game))
    found = odds_of(rules, rules.odds("clash", skill=0), ["outcome", "degree"])
    expected: dict[tuple[str, str], Fraction] = {}
    for (o, d, _), p in _clash(0).items():
        expected[(o, d)] = expected.get((o, d), Fraction(0)) + p
    assert {(str(o), str(d)): p for (o, d), p in found.distribution.items()} == expected


def test_a_procedure_solved_as_a_chain(game: Path) -> None:
    """First to two rounds, ties replayed: the score difference, by hand as a small recursion."""
    skill = 1
    rounds = [(a + skill > b, a + skill < b) for a, b in product(range(1, 7), repeat=2)]
    win = Fraction(sum(1 for w, _ in rounds if w), 36)
    lose = Fraction(sum(1 for _, lo in rounds if lo), 36)
    p_win, p_lose = win / (win + lose), lose / (win + lose)  # a tie changes nothing

    @lru_cache(maxsize=None)
    def ends(mine: int, theirs: int) -> dict[int, Fraction]:
        if mine == 2 or theirs == 2:
            return {mine - theirs: Fraction(1)}
        out: dict[int, Fraction] = {}
        for branch, p in ((ends(mine + 1, theirs), p_win), (ends(mine, theirs + 1), p_lose)):
            for k, q in branch.items():
                out[k] = out.get(k, Fraction(0)) + p * q
        return out

    rules = interpreter.load(str(game))
    found = odds_of(rules, rules.odds("race", skill=skill), ["mine - theirs"])
    assert dict(found.distribution) == ends(0, 0)


def test_an_unknown_name_points_at_the_expression(game: Path) -> None:
    rules = interpreter.load(str(game))
    with pytest.raises(RunebookError) as raised:
        odds_of(rules, rules.odds("clash"), ["outcom == win"])
    first = raised.value.diagnostics[0]
    assert first.code == "E0207" and first.source.name == "--of" and first.help == "did you mean 'outcome'?"


def test_the_command_line(cli, game: Path) -> None:  # type: ignore[no-untyped-def]
    run = cli("odds", str(game), "clash", "--with", "skill=1", "--of", "outcome == win and degree >= clear", "--json")
    assert run.code == 0, run.stderr
    payload = json.loads(run.stdout)
    expected = sum(p for (o, d, _), p in _clash(1).items() if o == "win" and d in ("clear", "crushing"))
    assert payload["of"] == ["outcome == win and degree >= clear"]
    assert payload["distribution"] == {"false": str(1 - expected), "true": str(expected)}
    joint = cli("odds", str(game), "clash", "--of", "outcome", "--of", "degree")
    assert joint.code == 0 and "[win, crushing]" in joint.stdout
    bad = cli("odds", str(game), "clash", "--of", "outcome ==")
    assert bad.code == 1 and "--of:1:" in bad.stderr and "Traceback" not in bad.stderr
    assert cli("odds", "2d6", "--of", "x").code == 2  # an expression's odds take no --of


def test_questworlds_chance_to_win_by_at_least_a_major_victory(cli) -> None:  # type: ignore[no-untyped-def]
    """The issue's question, answered from the contest's own joint results: the --of
    expression agrees with summing the joint outcomes it selects."""
    rules = interpreter.load("questworlds")
    odds = rules.odds("contest", ability=15, resistance=14)
    names = list(odds.results)
    picked = sum(p for values, p in odds.joint.items()
                 if str(values[names.index("outcome")]) == "victory"
                 and str(values[names.index("degree")]) in ("major", "complete"))
    found = odds_of(rules, odds, ["outcome == victory and degree >= major"])
    assert found.distribution[True] == picked > 0
