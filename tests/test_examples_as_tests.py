"""Examples with lines are tests that `runebook check` runs (interpreter.rules.examples).

Expected values come from counting by hand: three d10 with 3 added, against 11, hit on a
face of 8 or more (3 faces in 10); no hit has chance (7/10)^3 = 343/1000.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest

from runebook import interpreter
from runebook.dsl import ast
from runebook.interpreter.rules.examples import verify_examples

RULES = """\
levels Grade: fail < low < high

check Skill (threshold = 11, modifier = 3)
  roll dice = 3d10
  result hits = count(each(dice) + modifier >= threshold)
  result best = highest(dice) + modifier
  result grade = high if hits >= 2 else low if hits == 1 else fail
"""


def _check(cli, tmp_path, examples: str):  # type: ignore[no-untyped-def]
    (tmp_path / "game.rules").write_text(RULES + "\n" + examples)
    run = cli("check", str(tmp_path))
    return run, run.stderr.replace(str(tmp_path.resolve()) + "/", "").replace(str(tmp_path) + "/", "")


def test_the_chance_written_in_the_tests_is_counted_by_hand() -> None:
    faces = range(1, 11)
    none_hit = sum(1 for roll in product(faces, repeat=3) if all(f + 3 < 11 for f in roll))
    assert Fraction(none_hit, 1000) == Fraction(343, 1000)


def test_examples_that_hold_pass(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    run, stderr = _check(cli, tmp_path, """\
example Skill (threshold = 11, modifier = 3)
  dice 8, 6, 1
  expect best == 11
  expect grade == low and hits == 1

example Skill (threshold = 11)
  expect best >= 4 and best <= 13
  expect grade == fail with chance 34.3%
  expect grade == fail with chance 343/1000
  expect grade == fail with chance 0.34
  expect grade >= low with chance 65.7%
""")
    assert (run.code, stderr) == (0, ""), run.show()


def test_a_failed_expectation_says_what_was_found(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    run, stderr = _check(cli, tmp_path, """\
example Skill (threshold = 11, modifier = 3)
  dice 8, 6, 1
  expect best == 12

example Skill (threshold = 11)
  expect best >= 5
  expect grade == fail with chance 1/3
  expect grade == fail with chance 34.2%
""")
    assert run.code == 1, run.show()
    line = RULES.count("\n") + 2
    assert stderr == f"""\
game.rules:{line + 2}:3: E0637 the example of 'Skill' expects 'best == 12', but it is false for these dice: best = 11
 {line + 2} |   expect best == 12
    |   ^^^^^^^^^^^^^^^^^
game.rules:{line + 5}:3: E0637 the example of 'Skill' expects 'best >= 5', but it is false with chance 0.10% (most likely when best = 4)
 {line + 5} |   expect best >= 5
    |   ^^^^^^^^^^^^^^^^
help: exactly 1/1000
game.rules:{line + 6}:3: E0637 the example of 'Skill' expects 'grade == fail with chance 1/3', but its chance is 34.30%
 {line + 6} |   expect grade == fail with chance 1/3
    |   ^^^^^^^^^^^^^^^^^^^^
help: exactly 343/1000
game.rules:{line + 7}:3: E0637 the example of 'Skill' expects 'grade == fail with chance 34.2%', but its chance is 34.300%
 {line + 7} |   expect grade == fail with chance 34.2%
    |   ^^^^^^^^^^^^^^^^^^^^
help: exactly 343/1000
"""


def test_dice_that_do_not_fit_point_at_the_dice_line(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    run, stderr = _check(cli, tmp_path, """\
example Skill (threshold = 11)
  dice 8, 6
  expect best == 11

example Skill (threshold = 11)
  dice 8, 6, 1, 1
  expect best == 11

example Skill (threshold = 11)
  dice 8, 6, 11
  expect best == 11
""")
    assert run.code == 1, run.show()
    line = RULES.count("\n") + 2
    found = [(d.split(":")[1], d.split(" E0637 ")[1].split(" but ", 1)[1]) for d in stderr.splitlines() if " E0637 " in d]
    assert found == [
        (str(line + 1), "its dice do not fit: not enough dice given: needed a d10 for die 3 of 3d10"),
        (str(line + 5), "its dice do not fit: 4 dice given but only 3 used"),
        (str(line + 9), "its dice do not fit: a d10 cannot show 11"),
    ], stderr


def test_a_run_that_stops_is_reported_at_the_example(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "game.rules").write_text("""\
table Bonus
  1: 2
  2: 4

check Looked (level = 1)
  roll die = 1d6
  result bonus = Bonus[level] + die

example Looked (level = 3)
  expect bonus > 0
""")
    run = cli("check", str(tmp_path))
    assert run.code == 1, run.show()
    assert " E0637 the example of 'Looked' expects 'bonus > 0', but running it stops: E0413 no row of 'Bonus' matches 3" \
        in run.stderr
    assert "game.rules:7:18: where it stops" in run.stderr


def test_misplaced_lines_are_refused_when_the_game_loads(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    run, stderr = _check(cli, tmp_path, """\
example Skill (threshold = 11)
  dice 8, 6, 1
  dice 2
  expect best == 11 with chance 1/2
""")
    assert run.code == 1, run.show()
    codes = [(d.split(":")[1], d.split(" ")[1]) for d in stderr.splitlines() if " E06" in d]
    line = RULES.count("\n") + 2
    assert codes == [(str(line + 2), "E0636"), (str(line + 3), "E0636")], stderr


def test_an_expectation_is_typed_with_the_results(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`grade == 3` can never be true (a level is never a number): the check stage says so
    before anything runs."""
    run, stderr = _check(cli, tmp_path, "example Skill (threshold = 11)\n  expect grade == 3\n")
    assert run.code == 1 and " E0422 " in stderr, run.show()


def test_examples_without_lines_are_not_run(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "game.rules").write_text(RULES + "\nexample Skill (threshold = 11)\n")
    rules = interpreter.load(str(tmp_path))
    monkeypatch.setattr(type(rules), "odds", lambda *a, **k: pytest.fail("an example without lines ran"))
    assert verify_examples(rules) == []
    assert rules.examples[0].lines == ()


def test_the_lines_read_back_as_written(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from runebook.dsl.diagnostics import DiagnosticSink
    from runebook.dsl.parser import parse_rules
    from runebook.dsl.source import Source

    text = RULES + "\nexample Skill (threshold = 11)\n  dice 8, -1, 1\n  expect best >= 4 with chance 62.5%\n"
    parsed = parse_rules(Source("game.rules", text), DiagnosticSink())
    example = next(b for b in parsed.blocks if isinstance(b, ast.ExampleDecl))
    assert str(example) == "example Skill (threshold = 11)\n  dice 8, -1, 1\n  expect best >= 4 with chance 62.5%"
    chance = example.lines[1].chance  # type: ignore[union-attr]
    assert (chance.value, chance.places, chance.tolerance()) == (Fraction(5, 8), 1, Fraction(1, 2000))


def test_a_procedure_example_is_checked_over_every_outcome(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Rolls until a 6, three at most: at least 1 roll always, 1 roll a sixth of the time, 2 rolls
    5/36 more, and 3 rolls (5/6)^2 = 25/36, about 69.4%."""
    (tmp_path / "game.rules").write_text("""\
procedure Until Six
  let rolls = 0
  repeat
    roll die = 1d6
    set rolls = rolls + 1
    result rolls = rolls
    stop if die == 6 or rolls == 3

example Until Six ()
  expect rolls >= 1
  expect rolls == 1 with chance 1/6
  expect rolls <= 2 with chance 11/36
  expect rolls == 3 with chance 69.4%
""")
    run = cli("check", str(tmp_path))
    assert (run.code, run.stderr) == (0, ""), run.show()


def test_an_example_answers_a_procedure_s_choices(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A bold stake wins on 4 to 6 (1/2), a safe one on 2 to 6 (5/6); a check makes no choice."""
    (tmp_path / "game.rules").write_text("""\
procedure Gamble
  choose stake: safe | bold
  roll die = 1d6
  result won = die >= 4 if stake == bold else die >= 2

check Plain
  roll die = 1d6
  result six = die == 6

example Gamble ()
  answer stake = bold
  expect won with chance 1/2

example Gamble ()
  answer stake = safe
  expect won with chance 5/6

example Gamble ()
  answer stake = safe
  expect won with chance 1/2
""")
    run = cli("check", str(tmp_path))
    assert run.code == 1, run.show()
    failed = [line for line in run.stderr.splitlines() if " E06" in line]
    assert len(failed) == 1 and ":20:3: E0637 " in failed[0] and "its chance is 83.33%" in failed[0], run.stderr
    (tmp_path / "game.rules").write_text((tmp_path / "game.rules").read_text()
                                         + "\nexample Plain ()\n  answer stake = bold\n  expect not six or six\n")
    run = cli("check", str(tmp_path))
    assert " E0636 'answer' cannot be used here: 'Plain' is a check: it makes no choice" in run.stderr, run.show()


def test_a_procedure_s_example_has_no_dice(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "game.rules").write_text("""\
procedure Once
  roll die = 1d6
  result six = die == 6

example Once ()
  dice 6
  expect six
""")
    run = cli("check", str(tmp_path))
    assert ":6:3: E0636 'dice' cannot be used here: 'Once' is a procedure" in run.stderr, run.show()


def test_a_homebrew_file_s_examples_run_with_its_game(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A homebrew check on Mestezia's d10s: both of two dice at 8 or more is (3/10)^2 = 9/100."""
    home = tmp_path / "home.rules"
    home.write_text("""\
extends mestezia

check Double Skill (threshold = 8)
  roll dice = 2d10
  result both = count(each(dice) >= threshold) == 2

example Double Skill (threshold = 8)
  expect both with chance 9/100

example Double Skill (threshold = 8)
  expect both with chance 1/10
""")
    run = cli("check", str(home))
    assert run.code == 1, run.show()
    failed = [line for line in run.stderr.splitlines() if " E06" in line]
    assert len(failed) == 1 and ":11:3: E0637 " in failed[0] and "its chance is 9.00%" in failed[0], run.stderr


OPTIONS_AND_REFUSALS = """\
option luck: plain | lucky = plain

check Flag (on: boolean = false)
  result shown = 1 if on else 0

check Fortune
  roll die = 1d6
  result hit = die >= 5 or (luck == lucky and die == 1)

check Guarded (n = 1)
  require n >= 1
  roll die = 1d6
  result total = die + n

example Flag (on = true)
  expect shown == 1

example Flag
  expect shown == 0

example Fortune
  expect hit with chance 1/3

example Fortune
  option luck = lucky
  expect hit with chance 1/2

example Fortune
  option luck = lucky
  dice 1
  expect hit

example Guarded (n = 0)
  expect refused E0613

example Guarded (n = 0)
  expect refused
"""


def test_true_false_no_brackets_options_and_refusals(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A boolean input given `true` (the check stage took it for text); an example without
    brackets; an option set for one example (a hit on 5 or 6 is 1/3, on 1, 5 or 6 1/2); a run
    that must be refused by its `require`."""
    (tmp_path / "game.rules").write_text(OPTIONS_AND_REFUSALS)
    run = cli("check", str(tmp_path))
    assert (run.code, run.stderr) == (0, ""), run.show()


@pytest.mark.parametrize("lines, found", [
    ("example Guarded (n = 2)\n  expect refused E0613\n", "expects 'refused E0613', but it runs to its end"),
    ("example Guarded (n = 0)\n  expect refused E0405\n",
     "expects 'refused E0405', but running it stops: E0613 'Guarded' requires n >= 1"),
    ("example Fortune\n  option luck = lucky\n  expect hit with chance 1/3\n",
     "expects 'hit with chance 1/3', but its chance is 50.00%"),
])
def test_a_refusal_or_an_option_that_does_not_hold(cli, tmp_path, lines: str, found: str) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "game.rules").write_text(OPTIONS_AND_REFUSALS + "\n" + lines)
    run = cli("check", str(tmp_path))
    assert run.code == 1 and f" E0637 the example of " in run.stderr and found in run.stderr, run.show()


def test_a_refused_example_expects_nothing_else(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "game.rules").write_text(OPTIONS_AND_REFUSALS + "\nexample Guarded (n = 0)\n  expect refused\n"
                                         "  expect total >= 1\n")
    run = cli("check", str(tmp_path))
    assert " E0636 'expect' cannot be used here: an example refused has nothing else to expect" in run.stderr, \
        run.show()


SHEETS = """\
stats Might

check Lift (weight = 10)
  roll die = 1d6
  result lifted = actor's Might + die >= weight

procedure Shove
  roll die = 1d6
  result moved = actor's Might + die > target's Might
"""


def test_an_example_takes_character_files_from_the_game_s_folder(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Might 7 lifts 10 on a 3 or more (4 faces in 6); Might 7 shoves Might 9 on a 3 or more too."""
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "strong.yaml").write_text("name: Strong\nstats:\n  Might: 7\n")
    (tmp_path / "examples" / "wall.yaml").write_text("name: Wall\nstats:\n  Might: 9\n")
    (tmp_path / "game.rules").write_text(SHEETS + """
example Lift
  as "examples/strong.yaml"
  expect lifted with chance 2/3

example Lift
  as "examples/strong.yaml"
  dice 2
  expect not lifted

example Shove
  as "examples/strong.yaml"
  against "examples/wall.yaml"
  expect moved with chance 2/3
""")
    run = cli("check", str(tmp_path))
    assert (run.code, run.stderr) == (0, ""), run.show()


@pytest.mark.parametrize("line, why", [
    ('as "/etc/hostname"', "a character file of an example is a file in the game's folder"),
    ('as "../outside.yaml"', "a character file of an example is a file in the game's folder"),
    ('as "link.yaml"', "the file it names is outside the game's folder"),
])
def test_an_example_reads_no_file_outside_the_game_s_folder(cli, tmp_path, line: str, why: str) -> None:  # type: ignore[no-untyped-def]
    game = tmp_path / "game"
    game.mkdir()
    (tmp_path / "outside.yaml").write_text("name: Out\nstats:\n  Might: 7\n")
    (game / "link.yaml").symlink_to(tmp_path / "outside.yaml")
    (game / "game.rules").write_text(SHEETS + f"\nexample Lift\n  {line}\n  expect lifted or not lifted\n")
    run = cli("check", str(game))
    assert run.code == 1 and " E0636 " in run.stderr and why in run.stderr, run.show()
    assert "Out" not in run.stderr


def test_an_example_runs_within_a_tenth_of_the_default_budget(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A climb of d6 steps to 1,200 has over a thousand states (a tenth of `max_states`): as an
    example it is refused, naming the limit; to 300 it runs (at least 300 in every outcome)."""
    (tmp_path / "game.rules").write_text("""\
procedure Climb (top = 1200)
  let total = 0
  repeat
    roll die = 1d6
    set total = total + die
    result total = total
    stop if total >= top

example Climb (top = 300)
  expect total >= 300

example Climb
  expect total >= 1200
""")
    run = cli("check", str(tmp_path))
    assert run.code == 1, run.show()
    failed = [line for line in run.stderr.splitlines() if " E06" in line]
    assert len(failed) == 1 and ":12:9: E0637 " in failed[0] and "max_states" in run.stderr, run.stderr


def test_a_check_runs_at_most_so_many_examples(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from runebook.interpreter.rules import examples

    monkeypatch.setattr(examples, "MOST_EXAMPLES", 3)
    (tmp_path / "game.rules").write_text(RULES + "".join(f"\nexample Skill (threshold = {t})\n  expect hits >= 0\n"
                                                         for t in range(5, 10)))
    rules = interpreter.load(str(tmp_path))
    found = verify_examples(rules)
    assert [d.code for d in found] == ["E0636"] and "at most 3 examples" in found[0].message
    assert found[0].span.line == RULES.count("\n") + 2 + 3 * 3


def test_a_mechanics_problem_names_its_file_from_the_working_folder(cli, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A GitHub annotation places a file by its path in the repository: the mechanics' problems
    (read from the folder's resolved path) were named by their absolute path."""
    game = tmp_path / "game"
    game.mkdir()
    (game / "game.rules").write_text(RULES + "\nexample Skill (threshold = 11)\n  expect hits == 4\n")
    monkeypatch.chdir(tmp_path)
    run = cli("check", "--format", "github", "game")
    assert run.stdout.startswith("::error file=game/game.rules,line="), run.show()


def test_an_expectation_over_a_cut_tail_is_unknown_there_not_an_internal_error(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Two exploding d10s' counts are cut at the explosion depth (`21+`): comparing two such
    results there has no known value. It stopped `check` and `odds --of` with an internal
    error; the tail is now the unknown part of the chance."""
    (tmp_path / "game.rules").write_text("check Pool\n  roll dice = 2d10x10\n  result a = count(dice >= 8)\n"
                                         "  result b = count(dice >= 8)\n\nexample Pool\n  expect a == b\n")
    run = cli("check", str(tmp_path))
    assert run.code == 1 and " E0637 " in run.stderr and "cut off" in run.stderr, run.show()
    odds = cli("odds", str(tmp_path), "Pool", "--of", "a == b")
    assert odds.code == 0 and "true" in odds.stdout, odds.show()
