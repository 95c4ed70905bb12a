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


def _pairs(ability: int, resistance: int, bumps: int = 0, *, wasted: bool = False,
           fumbles_tie: bool = True) -> list[tuple[int, int, str, int | None]]:
    """(player result, resistance result, outcome, steps between) for each of the 400 pairs.
    `wasted`: option mastery_overflow=wasted (bumps past critical are lost); `fumbles_tie`
    False: option fumble_against_fumble=better_roll_wins. `bumps` may be negative (a bump
    down)."""
    (ta, ma), (tb, mb) = _split(ability), _split(resistance)
    up_a, up_b = max(ma - mb, 0), max(mb - ma, 0)
    out = []
    for fa in range(1, 21):
        for fb in range(1, 21):
            ra, rb = _result(fa, ta), _result(fb, tb)
            spill_a, spill_b = max(0, ra + up_a - CRITICAL), max(0, rb + up_b - CRITICAL)
            if wasted:
                spill_a = spill_b = 0
            ra, rb = max(FUMBLE, min(CRITICAL, ra + up_a - spill_b)), max(FUMBLE, min(CRITICAL, rb + up_b - spill_a))
            ra = max(FUMBLE, min(CRITICAL, ra + bumps))
            if ra == rb and (fa == fb or (ra == FUMBLE and fumbles_tie)):
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


def test_the_options_alternatives_counted_in_worked_rules() -> None:
    # mastery_overflow=wasted, 7M against 14: the resistance's 1 stays critical; 1 against 1 ties.
    pairs = _pairs(27, 14, wasted=True)
    assert _chance(pairs, lambda p: p[1] == CRITICAL) == Fraction(1, 20)
    assert _chance(pairs, lambda p: p[2] == "tie") == Fraction(1, 50)
    assert _chance(pairs, lambda p: p[2] == "victory") == Fraction(69, 80)
    # ties=marginal_victory, 10 against 10: the standoffs become victories.
    pairs = _pairs(10, 10)
    assert _chance(pairs, lambda p: p[2] != "defeat") == Fraction(21, 40)
    # group_fumble_pairs: 20 and 20 leave the standoffs 19 of 400; the marginal defeats 72 + 1.
    assert _chance(pairs, lambda p: p[2] == "tie" and p[0] != FUMBLE) == Fraction(19, 400)
    assert _chance(pairs, lambda p: p[2] == "defeat" and p[3] == 0) + Fraction(1, 400) == Fraction(73, 400)
    # fumble_against_fumble=better_roll_wins: a bump down on 15 against 20, both fumbles: the
    # higher roll (the resistance's 20) wins.
    bumped = _pairs(10, 10, bumps=-1, fumbles_tie=False)
    assert bumped[14 * 20 + 19][:3] == (FUMBLE, FUMBLE, "defeat")
    assert _pairs(10, 10, bumps=-1)[14 * 20 + 19][2] == "tie"


def test_costly_automatic_victory_states_at_ten_against_ten() -> None:
    # Defeat State (T3) by degree: marginal hurt, minor impaired, major injured, complete dying.
    pairs = _pairs(10, 10)
    by_degree = [_chance(pairs, lambda p, d=d: p[2] == "defeat" and p[3] == d) for d in range(4)]
    assert by_degree == [Fraction(9, 50), Fraction(99, 400), Fraction(9, 200), Fraction(1, 400)]


def test_a_round_that_decides_in_the_long_contests() -> None:
    """Chained contest, both sides injured (chained_npc_penalties): 15 against 5 wins 5/6 of
    the decided rounds, 15 against 14 208/381. Scored contest at 4 to 4 with a Pyrrhic victory
    (pyrrhic_bump=once): the bumped round is a standoff 1 time in 400; the unbumped rounds end
    in a complete defeat 1 time in 400, standoff 19 in 400."""
    def decided(pairs, test):  # type: ignore[no-untyped-def]
        return _chance(pairs, test) / (1 - _chance(pairs, lambda p: p[2] == "tie"))
    assert decided(_pairs(15, 5), lambda p: p[2] == "victory") == Fraction(5, 6)
    assert decided(_pairs(15, 14), lambda p: p[2] == "victory") == Fraction(208, 381)
    bumped, plain = _pairs(15, 14, bumps=1), _pairs(15, 14)
    assert all(not (p[2] == "defeat" and p[3] == 3) for p in bumped)
    complete_defeat = decided(plain, lambda p: p[2] == "defeat" and p[3] == 3)
    assert _chance(bumped, lambda p: p[2] == "tie") * complete_defeat == Fraction(1, 152400)


def test_worked_rules_holds_examples_with_lines_and_they_pass(cli) -> None:  # type: ignore[no-untyped-def]
    rules = load(str(GAME))
    worked = [e for e in rules.examples if e.source is not None and Path(e.source.name).name == "worked.rules"]
    assert len(worked) >= 60
    assert all(e.lines for e in worked)
    assert all(any(isinstance(line, (ast.Expectation, ast.ExpectRefusal)) for line in e.lines) for e in worked)
    # Each of the game's options other than the group and extended contests' has an example
    # with its alternative (the rest are listed at the end of worked.rules).
    def key(name: str) -> str:
        return name.lower().replace("_", "")
    set_options = {key(line.name) for e in worked for line in e.lines if isinstance(line, ast.ExampleOption)}
    listed_apart = {key(n) for n in ("ap_rounding", "follower_removal", "assist_cap", "extended_order",
                                     "lending_resistance", "gifting_cap")}
    assert {key(n) for n in rules.options} - listed_apart <= set_options
    run = cli("check", str(GAME))
    assert run.code == 0, run.show()
