"""The rules layer on a small made-up game: options, levels, tables, functions, checks."""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError

GAME = """\
option crit_rule: sixes | none = sixes
levels Quality: poor < fair < good

table Band
  0: miss
  1-2: graze
  3+: hit

function double(x) = x * 2

check Attack (pool = 2, target: number = 4)
  roll dice = pool d6
  let hits = count(dice >= target)
  result band = Band[hits]
  result crit = crit_rule == sixes and any(dice == 6)
  result score = double(hits)
  result quality = good if hits >= 2 else fair if hits == 1 else poor

example Attack (pool = 3)
"""


@pytest.fixture
def game(tmp_path: Path) -> str:
    (tmp_path / "game.rules").write_text(GAME)
    return str(tmp_path)


def test_resolve_with_given_dice(game: str) -> None:
    result = interpreter.load(game).resolve("attack", dice=[6, 2], pool=2)
    assert {k: str(v) for k, v in result.results.items()} == {
        "band": "graze", "crit": "True", "score": "2", "quality": "fair"}
    assert [d.face for d in result.trace.dice()] == [6, 2]


def test_option_changes_the_result(game: str) -> None:
    rules = interpreter.load(game)
    assert rules.resolve("attack", dice=[6, 6], options={"crit_rule": "none"}).results["crit"] is False


def test_levels_compare_by_order(game: str) -> None:
    rules = interpreter.load(game)
    good = rules.resolve("attack", dice=[5, 6]).results["quality"]
    poor = rules.resolve("attack", dice=[1, 1]).results["quality"]
    assert good > poor and str(good) == "good"


def test_odds_match_an_independent_enumeration(game: str) -> None:
    odds = interpreter.load(game).odds("attack", pool=3, target=5)
    expected: dict[str, Fraction] = {}
    for faces in product(range(1, 7), repeat=3):
        hits = sum(f >= 5 for f in faces)
        band = "miss" if hits == 0 else "graze" if hits <= 2 else "hit"
        expected[band] = expected.get(band, Fraction(0)) + Fraction(1, 216)
    assert {str(k): v for k, v in odds.results["band"].items()} == expected
    assert odds.residual == 0


def test_seeded_resolutions_are_reproducible(game: str) -> None:
    rules = interpreter.load(game)
    first = rules.resolve("attack", seed=7, pool=4)
    second = rules.resolve("attack", seed=7, pool=4)
    assert first.results == second.results and first.to_dict()["dice"] == second.to_dict()["dice"]


@pytest.mark.parametrize(
    "kwargs, code",
    [
        ({"check": "atack"}, "E0601"),
        ({"check": "attack", "pool": "many"}, "E0603"),
        ({"check": "attack", "target": "3M"}, "E0603"),
        ({"check": "attack", "power": "3"}, "E0604"),
        ({"check": "attack", "options": {"crit_rule": "always"}}, "E0606"),
        ({"check": "attack", "options": {"crit": "none"}}, "E0605"),
        ({"check": "attack", "dice": [6]}, "E0501"),
        ({"check": "attack", "dice": [6, 7]}, "E0503"),
        ({"check": "attack", "dice": [6, 1, 2]}, "E0502"),
    ],
)
def test_bad_inputs_are_diagnostics(game: str, kwargs: dict, code: str) -> None:  # type: ignore[type-arg]
    check = kwargs.pop("check")
    with pytest.raises(RunebookError) as error:
        interpreter.load(game).resolve(check, **kwargs)
    assert code in [d.code for d in error.value.diagnostics]


def test_missing_input_has_no_default(tmp_path: Path) -> None:
    (tmp_path / "g.rules").write_text("check Test (threshold)\n  roll d = 1d6\n  result ok = d >= threshold\n")
    with pytest.raises(RunebookError) as error:
        interpreter.load(str(tmp_path)).resolve("test", dice=[3])
    assert [d.code for d in error.value.diagnostics] == ["E0602"]


def test_cli_resolve_and_odds(game: str, cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("resolve", game, "attack", "--with", "pool=2", "--dice", "6,2", "--json")
    assert run.code == 0, run.stderr
    assert '"band": "graze"' in run.stdout
    odds = cli("odds", game, "attack", "--with", "pool=1", "--json")
    assert odds.code == 0, odds.stderr
    assert '"miss": "1/2"' in odds.stdout and '"residual": "0"' in odds.stdout
    bad = cli("resolve", game, "atack")
    assert bad.code == 1 and "did you mean 'Attack'?" in bad.stderr and "Traceback" not in bad.stderr


def test_check_command_reports_mechanics_problems(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "g.rules").write_text("check Test (target)\n  roll d = 1d6\n  result ok = d >= targt\n")
    run = cli("check", str(tmp_path))
    assert run.code == 1
    assert "E0207 unknown name 'targt'" in run.stderr and "did you mean 'target'?" in run.stderr


DUEL = """\
stats Skill, Guard

check Strike (Skill)
  roll die = 1d10
  result hit = die + Skill >= target's Guard
"""


@pytest.fixture
def duel(tmp_path: Path) -> Path:
    (tmp_path / "duel.rules").write_text(DUEL)
    (tmp_path / "hero.yaml").write_text("name: Hero\nstats:\n  Skill: 3\n  Guard: 5\n")
    (tmp_path / "ogre.yaml").write_text("name: Ogre\nstats:\n  Guard: 9\n")
    return tmp_path


def test_entities_fill_inputs_and_are_read_as_target(duel: Path) -> None:
    rules = interpreter.load(str(duel))
    hero, ogre = rules.entity(str(duel / "hero.yaml")), rules.entity(str(duel / "ogre.yaml"))
    assert rules.resolve("strike", dice=[6], as_=hero, against=ogre).results["hit"] is True
    assert rules.resolve("strike", dice=[5], as_=hero, against=ogre).results["hit"] is False
    odds = rules.odds("strike", as_=hero, against=ogre)
    assert odds.results["hit"][True] == Fraction(5, 10)


def test_entity_file_problems_point_at_yaml_lines(duel: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (duel / "bad.yaml").write_text("name: Bad\nstats:\n  Skil: 3\n  Guard: lots\n")
    run = cli("resolve", str(duel), "strike", "--as", str(duel / "bad.yaml"), "--against",
              str(duel / "ogre.yaml"), "--dice", "5")
    assert run.code == 1 and "Traceback" not in run.stderr
    assert "bad.yaml:3:3: E0701 unknown stat 'Skil'" in run.stderr and "did you mean 'Skill'?" in run.stderr
    assert "bad.yaml:4:10: E0702 'Guard' expects a number or a rating such as 7M2, got 'lots'" in run.stderr


def test_malformed_yaml_is_a_diagnostic(duel: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (duel / "broken.yaml").write_text("name: [unclosed\nstats: {}\n")
    run = cli("resolve", str(duel), "strike", "--as", str(duel / "broken.yaml"), "--dice", "5")
    assert run.code == 1 and "E0704" in run.stderr and "Traceback" not in run.stderr


def test_functions_see_the_options_of_the_run(tmp_path: Path) -> None:
    (tmp_path / "g.rules").write_text(
        "option rounding: down | up = down\n\n"
        "function half(x) = ceil(x / 2) if rounding == up else floor(x / 2)\n\n"
        "check Halve (n)\n  roll d = 1d6\n  result h = half(n + d)\n"
    )
    rules = interpreter.load(str(tmp_path))
    assert rules.resolve("halve", n=2, dice=[1]).results == {"h": 1}
    assert rules.resolve("halve", n=2, dice=[1], options={"rounding": "up"}).results == {"h": 2}
    assert rules.odds("halve", n=0, options={"rounding": "up"}).results["h"] == {1: Fraction(1, 3), 2: Fraction(1, 3),
                                                                                   3: Fraction(1, 3)}


def test_require_refuses_inputs_with_the_rule_line(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "g.rules").write_text(
        "check Task (pool, difficulty = 1)\n  require difficulty >= 1\n  roll dice = pool d10\n"
        "  result ok = count(dice >= 8) >= difficulty\n"
    )
    run = cli("resolve", str(tmp_path), "task", "--with", "pool=3", "--with", "difficulty=0", "--dice", "1,2,3")
    assert run.code == 1 and "Traceback" not in run.stderr
    assert "g.rules:2:11: E0613 'Task' requires difficulty >= 1" in run.stderr
    assert cli("resolve", str(tmp_path), "task", "--with", "pool=1", "--dice", "9").code == 0


def test_a_level_looks_up_the_row_of_its_name(tmp_path: Path) -> None:
    (tmp_path / "g.rules").write_text(
        "levels Degree: marginal < minor < major\n\ntable Points\n  marginal: 1\n  minor: 2\n  major: 3\n\n"
        "check Score (d: Degree)\n  roll x = 1d4\n  result points = Points[d] + x\n"
    )
    rules = interpreter.load(str(tmp_path))
    assert rules.resolve("score", d="minor", dice=[1]).results == {"points": 3}


def test_usage_problems_exit_2_and_explain(cli, duel: Path) -> None:  # type: ignore[no-untyped-def]
    game_only = cli("odds", "mestezia")
    assert game_only.code == 2 and "runebook odds mestezia CHECK" in game_only.stderr
    missing_file = cli("resolve", str(duel), "strike", "--as", str(duel / "nobody.yaml"), "--dice", "5")
    assert missing_file.code == 2 and "E0001" in missing_file.stderr
    unknown_game = cli("resolve", "nogame", "x")
    assert unknown_game.code == 2 and "E0006 unknown game 'nogame'" in unknown_game.stderr


def test_a_check_that_needs_a_target_asks_for_one(duel: Path, cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("resolve", str(duel), "strike", "--with", "Skill=3", "--dice", "5")
    assert run.code == 1 and "E0707 no target takes part: give one with --against" in run.stderr


def test_a_roll_line_that_adds_dice_terms(tmp_path: Path) -> None:
    """`roll x = 1d6 + 1d8` is not one pool: it is rolled as a sum (it used to stop with an
    internal error while the line was read as a pool)."""
    (tmp_path / "g.rules").write_text("check Two (bonus = 0)\n  roll x = 1d6 + 1d8\n  result total = x + bonus\n")
    rules = interpreter.load(str(tmp_path))
    assert rules.resolve("two", dice=[2, 7]).results["total"] == 9
    odds = rules.odds("two").results["total"]
    assert dict(odds) == {t: Fraction(sum(1 for a, b in product(range(1, 7), range(1, 9)) if a + b == t), 48)
                          for t in range(2, 15)}


def test_function_bodies_are_checked_against_the_limits_of_the_rules(tmp_path: Path) -> None:
    import attrs

    from runebook.interpreter.core.limits import DEFAULT_LIMITS

    (tmp_path / "g.rules").write_text("function big() = 1d20\n\ncheck Use (bonus = 0)\n  result total = big() + bonus\n")
    assert interpreter.load(str(tmp_path)).resolve("use", dice=[17]).results["total"] == 17
    small = interpreter.load(str(tmp_path), limits=attrs.evolve(DEFAULT_LIMITS, max_sides=12))
    with pytest.raises(RunebookError) as error:
        small.resolve("use", dice=[17])
    assert [d.code for d in error.value.diagnostics] == ["E0901"]
