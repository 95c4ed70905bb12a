"""A small game written from the documentation alone (tests/cases/newcomer-game: a d8 pool
check, a table, levels, an option, and procedures with lists, loops, match, repeat and
choices), used the way a first-time author uses it: from the command line and from Python.
Expected values are worked out here, by hand or by counting every way the dice fall."""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product

import pytest

import runebook

GAME = "tests/cases/newcomer-game"
WREN = f"{GAME}/wren.yaml"
#: A d8 is a success on 6, 7 or 8 (Kindle counts each die + bonus >= 6).
HIT = Fraction(3, 8)


def _successes(dice: int) -> dict[int, Fraction]:
    """How many d8 of a pool show 6 or more, counted over every way the pool falls."""
    found: dict[int, Fraction] = {}
    for faces in product(range(1, 9), repeat=dice):
        hits = sum(face >= 6 for face in faces)
        found[hits] = found.get(hits, Fraction(0)) + Fraction(1, 8 ** dice)
    return found


@pytest.fixture(scope="module")
def rules() -> runebook.Ruleset:
    return runebook.load(GAME)


def test_the_game_checks_clean_and_is_formatted(cli) -> None:
    checked = cli("check", GAME)
    assert checked.code == 0 and "no errors" in checked.stdout
    assert cli("fmt", "--check", GAME).code == 0
    assert cli("check", "--game", GAME, WREN).code == 0


def test_resolve_with_given_dice(cli) -> None:
    # spark 3: three d8; 6 and 8 succeed, 2 does not: two successes, a Glow.
    run = cli("resolve", GAME, "Kindle", "--with", "spark=3", "--dice", "6,2,8", "--json")
    assert run.code == 0
    assert json.loads(run.stdout)["results"] == {"flame": "Glow", "successes": 2}


def test_odds_of_the_check_of_an_expression_and_a_sweep(cli, rules: runebook.Ruleset) -> None:
    chances = rules.odds("Kindle", spark=3).results["successes"]
    assert dict(chances.items()) == _successes(3)
    of = cli("odds", GAME, "Kindle", "--with", "spark=2", "--of", "successes >= 1", "--json")
    assert json.loads(of.stdout)["distribution"] == {"false": str((1 - HIT) ** 2), "true": str(1 - (1 - HIT) ** 2)}
    sweep = cli("odds", GAME, "Kindle", "--vary", "spark=1..2", "--result", "flame", "--workers", "1", "--json")
    gutter = [point["flame=Gutter"] for point in json.loads(sweep.stdout)["points"]]
    assert gutter == [str(1 - HIT), str((1 - HIT) ** 2)]


def test_a_vote_answered_by_name_from_the_command_line_and_from_python(cli, rules: runebook.Ruleset) -> None:
    # Two keepers, the elder's vote counting twice: 'well' gets 3, nothing else a vote.
    run = cli("run", GAME, "Council", "--with", "places=bridge,tower,well", "--with", "keepers=2",
              "--with", "elder_votes_twice=yes", "--answer", "pick=well", "--json")
    assert run.code == 0
    assert json.loads(run.stdout)["results"] == {"chosen": "well", "tied": False, "tally": [0, 0, 3]}
    # One vote each for two places: a tie, and the first listed is chosen.
    votes = iter(["tower", "bridge"])
    tied = rules.run("Council", places=["bridge", "tower"], keepers=2, choose=lambda point: next(votes))
    assert tied.results == {"chosen": "bridge", "tied": True, "tally": (1, 1)}


def test_a_watch_with_a_character_a_typed_input_and_given_dice(cli) -> None:
    # Wren's Spark 3, bold (+1) under a bright omen (+1): five d8, of which 6 and 8 succeed.
    run = cli("run", GAME, "Night Watch", "--as", WREN, "--with", "omen=bright", "--answer", "stance=bold",
              "--dice", "6,1,2,8,3", "--json")
    assert run.code == 0
    assert json.loads(run.stdout)["results"] == {"flame": "Glow", "held": True}


@pytest.mark.parametrize(("ties", "victory"), [
    # One die each: the keeper wins on a success the shade does not match; a tie of successes is
    # rolled again, or is the keeper's.
    ("reroll", HIT * (1 - HIT) / (1 - HIT * HIT)),
    ("keeper_wins", HIT),
])
def test_a_skirmish_its_odds_under_each_option(cli, ties: str, victory: Fraction) -> None:
    run = cli("odds", GAME, "Skirmish", "--with", "keepers=1", "--with", "shades=1", "--option", f"ties={ties}",
              "--of", "victory", "--json")
    assert json.loads(run.stdout)["distribution"] == {"false": str(1 - victory), "true": str(victory)}


def test_a_melee_among_any_number_its_odds_by_counting(rules: runebook.Ruleset) -> None:
    # Two d8 against one: the lower count goes out, an equal count is rolled again.
    win = lose = Fraction(0)
    for (a, pa), (b, pb) in product(_successes(2).items(), _successes(1).items()):
        win += pa * pb if a > b else 0
        lose += pa * pb if a < b else 0
    odds = rules.odds("Melee", sparks=[2, 1])
    assert dict(odds.results["winner"].items()) == {0: win / (win + lose), 1: lose / (win + lose)}
    # Seeded and given-dice runs of three fighters end with one standing.
    run = rules.run("Melee", sparks=[1, 1, 1], dice=[6, 2, 3, 7, 1])
    # Round 1: 6 succeeds, 2 and 3 fail: the first of those (fighter 1) goes out; round 2: fighter
    # 0's 7 beats fighter 2's 1.
    assert run.results["winner"] == 0


def test_export_from_the_command_line_and_from_python(cli, rules: runebook.Ruleset) -> None:
    from runebook.dsl.export import export

    exported = json.loads(cli("export", GAME).stdout)
    assert exported == export(rules.model)
    assert {p["name"] for p in exported["procedures"]} == {"Council", "Skirmish", "Night Watch", "Melee"}
