"""QuestWorlds' worked examples as tests (rulesets/questworlds/worked.rules): `runebook check`
runs them, and the chances written there, counted by hand in its comments, are counted again
here by a separate enumeration of the spec's rules (questworlds.md §1.4-§1.6, AMB-4, AMB-6:
one d20 each, 1 critical, 20 fumble; masteries net, overflow bumps the other side down;
equal results go to the higher face; same face, or fumble against fumble, is a tie), which
does not use the interpreter."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from runebook.dsl import ast
from runebook.interpreter.rules import load
from questworlds_helpers import CRITICAL, FUMBLE, SUCCESS, d20_level

GAME = Path(__file__).resolve().parent.parent / "rulesets" / "questworlds"

_result = d20_level


def _split(rating: int) -> tuple[int, int]:
    masteries = max(0, (rating - 1) // 20)
    return rating - 20 * masteries, masteries


def _pairs(ability: int, resistance: int, bumps: int = 0) -> list[tuple[int, int, str, int | None]]:
    """(player result, resistance result, outcome, steps between) for each of the 400 pairs."""
    (ta, ma), (tb, mb) = _split(ability), _split(resistance)
    up_a, up_b = max(ma - mb, 0), max(mb - ma, 0)
    out = []
    for fa in range(1, 21):
        for fb in range(1, 21):
            ra, rb = _result(fa, ta), _result(fb, tb)
            spill_a, spill_b = max(0, ra + up_a - CRITICAL), max(0, rb + up_b - CRITICAL)
            ra, rb = max(FUMBLE, min(CRITICAL, ra + up_a - spill_b)), max(FUMBLE, min(CRITICAL, rb + up_b - spill_a))
            ra = max(FUMBLE, min(CRITICAL, ra + bumps))
            if ra == rb and (fa == fb or ra == FUMBLE):
                outcome = "tie"
            elif ra > rb or (ra == rb and fa > fb):
                outcome = "victory"
            else:
                outcome = "defeat"
            out.append((ra, rb, outcome, None if outcome == "tie" else abs(ra - rb)))
    return out


def _chance(pairs, test) -> Fraction:  # type: ignore[no-untyped-def]
    return Fraction(sum(1 for p in pairs if test(p)), len(pairs))


def test_ten_against_ten() -> None:
    pairs = _pairs(10, 10)
    assert _chance(pairs, lambda p: p[2] == "tie") == Fraction(1, 20)
    assert _chance(pairs, lambda p: p[2] == "victory") == Fraction(19, 40)
    assert _chance(pairs, lambda p: p[3] == 3) == Fraction(1, 200)
    assert _chance(pairs, lambda p: p[0] == CRITICAL) == Fraction(1, 20)


def test_one_mastery_against_none_and_two_against_one() -> None:
    for ability, resistance in ((27, 14), (47, 34)):  # 7M against 14, 7M2 against 14M (T-11)
        pairs = _pairs(ability, resistance)
        assert _chance(pairs, lambda p: p[2] == "victory") == Fraction(173, 200)
        assert _chance(pairs, lambda p: p[2] == "tie") == Fraction(7, 400)
        assert _chance(pairs, lambda p: p[0] == CRITICAL) == Fraction(7, 20)
        assert _chance(pairs, lambda p: p[1] == CRITICAL) == Fraction(19, 400)
        assert all(p[0] != FUMBLE for p in pairs)


def test_two_masteries_and_the_target_edges() -> None:
    assert _chance(_pairs(43, 14), lambda p: p[0] == CRITICAL) == Fraction(19, 20)
    assert all(p[0] >= SUCCESS for p in _pairs(43, 14))
    assert all(p[0] != SUCCESS for p in _pairs(1, 14))
    assert _chance(_pairs(20, 14), lambda p: p[0] == SUCCESS) == Fraction(9, 10)


def test_pyrrhic_victory_is_dead_after_a_defeat_a_tie_or_a_marginal_victory() -> None:
    # T6: dead unless the victory is at least minor; one bump up on the player (§3.11).
    pairs = _pairs(10, 10, bumps=1)
    assert _chance(pairs, lambda p: p[2] != "victory" or p[3] == 0) == Fraction(119, 400)


def test_worked_rules_holds_examples_with_lines_and_they_pass(cli) -> None:  # type: ignore[no-untyped-def]
    rules = load(str(GAME))
    worked = [e for e in rules.examples if e.source is not None and Path(e.source.name).name == "worked.rules"]
    assert len(worked) >= 60
    assert all(e.lines for e in worked)
    assert all(any(isinstance(line, ast.Expectation) for line in e.lines) for e in worked)
    run = cli("check", str(GAME))
    assert run.code == 0, run.show()
