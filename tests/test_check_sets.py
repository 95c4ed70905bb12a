"""`check` sees two authoring mistakes a run would hide or word badly: a `set` of a name no
line makes (a misspelling that leaves the meant value unchanged, E0631), and a procedure's
line written in a check (a syntax error that names the keywords as words and says where the
line belongs)."""

from __future__ import annotations

from pathlib import Path

import pytest


def _check(cli, tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "game.rules"
    path.write_text(text, encoding="utf-8")
    return cli("check", str(path))


def test_a_misspelt_set_is_an_error_naming_the_value_meant(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run = _check(cli, tmp_path, """\
procedure Tally (rounds: number = 3)
  let score = 0
  for each round in range(rounds)
    set scroe = score + round
  result total = score
""")
    assert run.code == 1
    assert "game.rules:4:9: E0631 'set scroe' changes a value no line makes" in run.stderr
    assert "help: did you mean 'score'?" in run.stderr


def test_one_error_per_name_and_a_let_suggested_when_nothing_is_close(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run = _check(cli, tmp_path, """\
procedure Tally (rounds: number = 3)
  let score = 0
  set tally = 1
  set tally = 2
  result total = score + rounds
""")
    assert run.code == 1
    assert run.stderr.count("E0631") == 1
    assert "make it 'let tally = ...' where the value starts" in run.stderr


@pytest.mark.parametrize("maker", [
    "let hits = 0",
    "roll hits = 1d6",
    "choose hits: 1 to 3",
    "result hits = 0",
])
def test_a_set_of_what_a_line_made_is_fine(cli, tmp_path: Path, maker: str) -> None:  # type: ignore[no-untyped-def]
    run = _check(cli, tmp_path, f"""\
procedure Tally (rounds: number = 3)
  {maker}
  set hits = hits + rounds
  result total = hits
""")
    assert run.code == 0, run.stderr


def test_a_set_of_an_input_or_a_loop_name_is_fine(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run = _check(cli, tmp_path, """\
procedure Tally (rounds: number = 3, xs: list of number = [1, 2])
  set rounds = rounds + 1
  set xs[0] = rounds
  let total = 0
  for each x in xs
    set total = total + x
  result total_out = total
""")
    assert run.code == 0, run.stderr


# That the five games set only what they made (no E0631) is part of
# tests/test_rulesets.py::test_built_in_rulesets_check_clean: `check rulesets/` checks each
# game as itself and must print nothing.


def test_a_procedure_line_in_a_check_says_where_it_belongs(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run = _check(cli, tmp_path, """\
check Hit (bonus: number = 0)
  roll d = 1d6
  set d = d + bonus
  result total = d
""")
    assert run.code == 1
    # The keywords by their words, not the grammar's terminal names (`_let`).
    assert "E0102 unexpected 'set'; expected 'let', 'require', 'result', 'roll' or 'show'" in run.stderr
    assert "_let" not in run.stderr
    assert "help: 'set' is a line of a procedure" in run.stderr


def test_other_syntax_errors_get_no_procedure_hint(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run = _check(cli, tmp_path, """\
procedure Go (n: number = 1)
  let x = n +
  result y = x
""")
    assert run.code == 1
    assert "line of a procedure" not in run.stderr


def test_a_loop_with_no_way_out_is_refused_by_check(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Before, check passed this (a warning that the result is never reached) and every run
    # failed on the line budget (E0612).
    run = _check(cli, tmp_path, """\
procedure Forever (n: number = 1)
  let x = 0
  repeat
    set x = x + n
  result total = x
""")
    assert run.code == 1
    assert "game.rules:3:3: E0632 'Forever' never ends" in run.stderr
    assert "add 'stop if CONDITION'" in run.stderr
    assert "E0625" not in run.stderr  # the unreachable result follows from it: not said twice


def test_a_goto_loop_with_no_way_out_is_refused_too(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run = _check(cli, tmp_path, """\
procedure Again ()
  step again
  goto again
""")
    assert run.code == 1 and "E0632 'Again' never ends" in run.stderr


@pytest.mark.parametrize("way_out", ["    stop if x > 10", "    end if x > 10", "    stop"])
def test_any_way_out_of_the_loop_is_enough(cli, tmp_path: Path, way_out: str) -> None:  # type: ignore[no-untyped-def]
    run = _check(cli, tmp_path, f"""\
procedure Bounded (n: number = 1)
  let x = 0
  repeat
    set x = x + n
{way_out}
  result total = x
""")
    assert "E0632" not in run.stderr, run.stderr


def test_a_loop_that_can_end_late_still_meets_the_line_budget(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run = _check(cli, tmp_path, """\
procedure Count (limit: number = 1000000)
  let n = 0
  repeat
    set n = n + 1
    stop if n >= limit
  result counted = n
""")
    assert run.code == 0, run.stderr
    game = str(tmp_path / "game.rules")
    refused = cli("run", game, "Count")
    assert refused.code == 1 and "E0612" in refused.stderr and "'repeat', 'goto'" in refused.stderr
    allowed = cli("run", game, "Count", "--with", "limit=4000", "--limit", "max_steps=20000")
    assert allowed.code == 0 and "counted: 4000" in allowed.stdout


INNER = """\
check Bonus (n: number = 1)
  result value = n + 1

procedure Inner (n: number = 1)
  let b = Bonus(n)
  result total = b.value + n
"""


def test_a_callers_value_hiding_a_name_the_used_procedure_reads_is_refused(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Before, check passed this and the run failed inside Inner: the caller's `bonus` was
    # found where Inner calls the check `Bonus` ("'Bonus' is not a function").
    run = _check(cli, tmp_path, INNER + """
procedure Outer ()
  let bonus = 5
  do Inner(2) as blow
  result t = blow.total + bonus
""")
    assert run.code == 1
    assert "game.rules:5:11: E0633 'Bonus' in 'Inner' means the game's 'Bonus', but where 'Outer' uses it" in run.stderr
    assert "help: 'Outer' has a value 'bonus' (line 9) that hides it where it uses 'Inner': rename that value" \
        in run.stderr


def test_a_value_set_only_after_the_use_hides_nothing(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run = _check(cli, tmp_path, INNER + """
procedure Outer ()
  do Inner(2) as blow
  let bonus = blow.total
  result t = bonus
""")
    assert run.code == 0, run.stderr
    assert cli("run", str(tmp_path / "game.rules"), "Outer").stdout.endswith("t: 5\n")


def test_a_value_set_later_in_a_loop_hides_it_on_the_next_turn(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run = _check(cli, tmp_path, INNER + """
procedure Outer ()
  let total = 0
  for each i in range(2)
    do Inner(i) as blow
    let bonus = blow.total
    set total = total + bonus
  result t = total
""")
    assert run.code == 1 and "E0633 'Bonus' in 'Inner'" in run.stderr


def test_arguments_properties_and_comprehension_items_are_not_hidden(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # The caller's `bonus` passed as Inner's input stands for it (the caller's own value); a
    # property read with 's and a comprehension's item are not names looked up.
    run = _check(cli, tmp_path, """\
procedure Inner (n: number = 1, xs: list of number = [1])
  let doubled = [value * 2 for value in xs]
  result total = n + sum(doubled)

procedure Outer ()
  let bonus = 5
  let value = 1
  do Inner(bonus, [value]) as blow
  result t = blow.total
""")
    assert run.code == 0, run.stderr
