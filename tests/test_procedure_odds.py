"""Exact odds of procedures (Markov chains) against independent closed forms."""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError

GAME = """\
levels Outcome: loss < tie < win

check Exchange (edge = 0)
  roll mine = 1d6
  roll theirs = 1d6
  result outcome = win if mine + edge > theirs else loss if mine + edge < theirs else tie

procedure First To (needed = 2, edge = 0)
  let me = 0
  let them = 0
  step round
  choose stance: careful | bold
  let r = Exchange(edge + (1 if stance == bold else 0))
  set me = me + 1 if r.outcome == win else me
  set them = them + 1 if r.outcome == loss else them
  goto round if me < needed and them < needed
  result winner = me >= needed
  result rounds_won = me
"""


@pytest.fixture
def rules(tmp_path: Path):  # type: ignore[no-untyped-def]
    (tmp_path / "g.rules").write_text(GAME)
    return interpreter.load(str(tmp_path))


def _round(edge: int) -> tuple[Fraction, Fraction]:
    win = sum(Fraction(1, 36) for a, b in product(range(1, 7), repeat=2) if a + edge > b)
    loss = sum(Fraction(1, 36) for a, b in product(range(1, 7), repeat=2) if a + edge < b)
    return win, loss


@pytest.mark.parametrize("edge, needed", [(0, 2), (1, 2), (1, 3), (2, 4)])
def test_first_to_n_matches_the_closed_form(rules, edge: int, needed: int) -> None:  # type: ignore[no-untyped-def]
    win, loss = _round(edge)
    q = win / (win + loss)  # ties repeat the round: only decisive rounds matter
    from math import comb

    # Win `needed` decisive rounds before losing `needed`: negative binomial.
    expected = sum(comb(needed - 1 + k, k) * q ** needed * (1 - q) ** k for k in range(needed))
    odds = rules.odds("first to", needed=needed, edge=edge)
    assert odds.results["winner"][True] == expected
    assert odds.residual == 0
    assert sum(odds.results["rounds_won"].values()) == 1


def test_choice_answers_change_the_odds(rules) -> None:  # type: ignore[no-untyped-def]
    careful = rules.odds("first to").results["winner"][True]
    bold = rules.odds("first to", answers={"stance": "bold"}).results["winner"][True]
    assert careful == Fraction(1, 2) and bold > careful
    assert bold == rules.odds("first to", edge=1).results["winner"][True]


def test_rolls_agree_with_procedure_odds(rules) -> None:  # type: ignore[no-untyped-def]
    import random

    from runebook.interpreter.markov.chains import FixedDriver

    rng = random.Random(11)
    runs = 2000
    wins = sum(rules.run("first to", edge=1, rng=rng, driver=FixedDriver()).results["winner"] for _ in range(runs))
    p = float(rules.odds("first to", edge=1).results["winner"][True])
    sd = (runs * p * (1 - p)) ** 0.5
    assert abs(wins - runs * p) < 4 * sd


def test_cli_procedure_odds(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "g.rules").write_text(GAME)
    run = cli("odds", str(tmp_path), "first to", "--json")
    assert run.code == 0, run.stderr
    assert '"true": "1/2"' in run.stdout and '"residual": "0"' in run.stdout


def test_a_procedure_that_cannot_end_is_a_diagnostic(tmp_path: Path) -> None:
    # A way out no roll opens (a d6 never shows 7): the chain's states never reach an end.
    (tmp_path / "g.rules").write_text("procedure Stuck ()\n  step again\n  roll d = 1d6\n  goto again if sum(d) < 7\n")
    with pytest.raises(RunebookError) as error:
        interpreter.load(str(tmp_path)).odds("stuck")
    assert [d.code for d in error.value.diagnostics] == ["E0614"]


def test_a_builtin_name_cannot_be_a_check(tmp_path: Path) -> None:
    (tmp_path / "g.rules").write_text("check Round ()\n  roll d = 1d6\n  result x = d\n")
    with pytest.raises(RunebookError) as error:
        interpreter.load(str(tmp_path))
    assert "'Round' is the name of a builtin function" in str(error.value)


def test_the_number_of_states_is_a_limit_of_the_loaded_rules(tmp_path: Path) -> None:
    import attrs

    from runebook.interpreter.core.limits import DEFAULT_LIMITS

    (tmp_path / "g.rules").write_text(GAME)
    states = interpreter.load(str(tmp_path)).odds("first to", needed=3).states
    small = interpreter.load(str(tmp_path), limits=attrs.evolve(DEFAULT_LIMITS, max_states=states - 1))
    with pytest.raises(RunebookError) as error:
        small.odds("first to", needed=3)
    assert [d.code for d in error.value.diagnostics] == ["E0408"]
    assert f"more than {states - 1} states" in str(error.value)
    assert small.odds("first to", needed=2).states < states  # a smaller chain still fits
