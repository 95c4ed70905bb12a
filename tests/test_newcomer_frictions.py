"""Frictions a first-time author met writing a small game from the docs alone
(tests/cases/newcomer-game): each test fails on the code before its fix."""

from __future__ import annotations

import attrs
import pytest

import runebook
from runebook import RunebookError

_DUEL = """\
check Duel (skill: number = 1)
  roll die = 1d6
  result total = sum(die) + skill
"""


def _diagnostics(text: str) -> list[runebook.Diagnostic]:
    with pytest.raises(RunebookError) as raised:
        runebook.load_text(text)
    return list(raised.value.diagnostics)


def test_a_value_by_name_in_a_call_is_not_an_unclosed_bracket() -> None:
    # `Duel(skill = 3)` closes its '(': the '=' is the problem, and the help says what to write.
    [problem] = _diagnostics(_DUEL + "\nprocedure P ()\n  let r = Duel(skill = 3)\n  result t = r.total\n")
    assert (problem.code, problem.span.line, problem.span.column) == ("E0102", 6, 22)
    assert "'='" in problem.message
    assert problem.help is not None and "in order" in problem.help and "'=='" in problem.help


def test_a_single_equals_in_brackets_suggests_a_comparison() -> None:
    with pytest.raises(RunebookError) as raised:
        runebook.odds("(3 = 2)")
    [problem] = raised.value.diagnostics
    assert problem.code == "E0102" and problem.help == "to compare, write '=='"


@pytest.mark.parametrize(("line", "column", "bracket"), [("  let r = max(3", 14, "("), ("  let r = [3, 4", 11, "[")])
def test_a_bracket_left_open_before_another_line_is_reported_on_its_line(line: str, column: int,
                                                                          bracket: str) -> None:
    # Not E0106 'unexpected indentation' on the next line, which is indented as it should be.
    [problem] = _diagnostics(f"procedure Q ()\n{line}\n  result t = r\n")
    assert (problem.code, problem.span.line, problem.span.column) == ("E0104", 2, column)
    assert problem.message == f"unclosed '{bracket}'"


def test_a_set_before_the_let_that_makes_its_name_is_reported() -> None:
    # At run time the later `let` starts the value again: what the `set` gave is lost.
    [problem] = _diagnostics("procedure Tally ()\n  set score = 1\n  let score = 0\n  result total = score\n")
    assert (problem.code, problem.span.line, problem.span.column) == ("E0635", 2, 7)
    assert problem.help is not None and "let score" in problem.help and "line 3" in problem.help


def test_a_set_in_a_loop_before_the_let_is_reported_too() -> None:
    text = ("procedure Sum (n: number = 2)\n  for each i in range(n)\n    set total = i\n"
            "  let total = 0\n  result total = total\n")
    [problem] = _diagnostics(text)
    assert (problem.code, problem.span.line) == ("E0635", 3)


def test_a_set_that_some_way_reaches_after_a_let_is_not_reported() -> None:
    # One way through makes `bonus` first; the `set` is then a change, on the other a start.
    rules = runebook.load_text("procedure P (flag: boolean = false)\n  if flag\n    let bonus = 2\n"
                               "  set bonus = 3\n  result bonus = bonus\n")
    assert rules.run("P", flag=True).results == {"bonus": 3}


def test_a_loop_over_a_number_suggests_range() -> None:
    [problem] = _diagnostics("procedure L (n: number = 3)\n  let s = 0\n  for each i in n\n    set s = s + i\n"
                             "  result s = s\n")
    assert (problem.code, problem.span.line, problem.span.column) == ("E0420", 3, 17)
    assert problem.help is not None and "range(n)" in problem.help


def test_too_many_states_names_the_value_that_keeps_growing() -> None:
    rules = runebook.load_text("procedure Rounds ()\n  let rounds = 0\n  repeat\n    roll d = 1d6\n"
                               "    set rounds = rounds + 1\n    stop if sum(d) == 6\n  result rounds = rounds\n",
                               limits=attrs.evolve(runebook.DEFAULT_LIMITS, max_states=50))
    with pytest.raises(RunebookError) as raised:
        rules.odds("Rounds")
    [problem] = raised.value.diagnostics
    assert problem.code == "E0408" and "states outcomes" not in problem.message
    assert problem.message == "the distribution is too large (more than 50 states; the limit is 50 states)"
    assert problem.help is not None and problem.help.startswith("'rounds' takes ")


def test_a_stat_read_with_no_actor_asks_for_the_actor_where_it_is_read() -> None:
    # `check` passes (an actor may be given); the run without one was E0207 'unknown name'.
    rules = runebook.load_text("stats Spark\n\ncheck Glow (bonus: number = 0)\n  result x = Spark + bonus\n")
    with pytest.raises(RunebookError) as raised:
        rules.resolve("Glow")
    [problem] = raised.value.diagnostics
    assert problem.code == "E0707" and "--as" in problem.message and problem.help == "'Spark' is a stat of the actor"
    assert problem.span is not None and (problem.span.line, problem.span.column) == (4, 14)


_STRUCTURED = "tests/cases/structured"


@pytest.mark.parametrize(("args", "shown", "hint"), [
    # The last value silently won: a newcomer's list of answers for a loop's choice, or of heroes.
    (("run", _STRUCTURED, "Vote", "--with", "proposals=a,b", "--answer", "pick=a", "--answer", "pick=b"),
     "--answer:1:1: E0008 invalid --answer value 'pick=b'", "every time it comes"),
    (("odds", _STRUCTURED, "Group Fight", "--with", "heroes=2", "--with", "heroes=1"),
     "--with:1:1: E0008 invalid --with value 'heroes=1'", "--with heroes=2,1"),
])
def test_a_name_given_twice_on_the_command_line_is_refused(cli, args: tuple[str, ...], shown: str, hint: str) -> None:
    run = cli(*args)
    assert run.code == 1 and run.stdout == ""
    assert run.stderr.startswith(shown) and hint in run.stderr


def test_an_input_both_varied_and_fixed_is_refused(cli) -> None:
    run = cli("odds", _STRUCTURED, "Best Of Five", "--vary", "skill=2..3", "--with", "skill=4")
    assert run.code == 1 and run.stderr.startswith("--with:1:1: E0008 invalid input 'skill'")
    assert "both varied and fixed" in run.stderr


def test_run_takes_answers_by_name_as_odds_does() -> None:
    # Was E0604 "unknown input 'answers'": the docs give `answers={"stance": ...}` for the API.
    rules = runebook.load(_STRUCTURED)
    run = rules.run("Vote", proposals=["a", "b"], voters=2, answers={"pick": "b"})
    assert run.results["winner"] == "b" and run.choices == (("pick", "b"), ("pick", "b"))
    with pytest.raises(RunebookError) as raised:
        rules.run("Vote", proposals=["a", "b"], answers={"pik": "b"})
    assert [d.code for d in raised.value.diagnostics] == ["E0708"]


@pytest.mark.parametrize(("given", "hint"), [("brigth", "did you mean 'bright'?"),
                                             ("grim", "'Omen' is one of: ill, plain, bright")])
def test_a_wrong_level_for_a_typed_input_names_the_levels(given: str, hint: str) -> None:
    rules = runebook.load_text("levels Omen: ill < plain < bright\n\n"
                               "check Sign (omen: Omen = plain)\n  result good = omen >= plain\n")
    with pytest.raises(RunebookError) as raised:
        rules.resolve("Sign", omen=given)
    [problem] = raised.value.diagnostics
    assert problem.code == "E0603" and problem.help == hint


def test_an_error_in_the_game_is_not_blamed_on_a_flag_that_happens_to_quote_the_same_word(cli, tmp_path) -> None:
    # E0626 quotes the choice 'c'; the answer `who=c` is not what is wrong.
    (tmp_path / "game.rules").write_text(
        "procedure D ()\n  choose c: yes_ | no_\n  match c\n    case yes_\n      result r = 1\n\n"
        "procedure E ()\n  choose who: a | b | c\n  result w = who\n")
    run = cli("run", str(tmp_path), "E", "--answer", "who=c")
    assert run.code == 1 and run.stderr.startswith(f"{tmp_path / 'game.rules'}:3:3: E0626")


def test_a_wrong_item_of_a_list_given_on_the_command_line_has_the_caret_under_it(cli) -> None:
    run = cli("run", _STRUCTURED, "Group Fight", "--with", "heroes=2, 1,x")
    assert run.code == 1
    assert run.stderr.splitlines()[:3] == [
        "--with:1:13: E0603 input 'heroes' expects a number, got 'x' (item 3 of 'heroes')",
        " 1 | heroes=2, 1,x",
        "   |             ^"]


def test_a_choice_option_clashing_with_a_declared_name_says_which() -> None:
    # 'a' is the procedure 'A' (names match whatever their case): "something else" named nothing.
    [problem] = _diagnostics("procedure A ()\n  result x = 1\n\nprocedure D ()\n  choose c: a | b\n  result s = c\n")
    assert problem.code == "E0306"
    assert problem.message == ("choice option 'a' is already the name of the procedure 'A' (line 1); "
                               "names match whatever their case")


_INNER = "procedure Inner (x: number = 1)\n  result y = x + 1\n\n"


@pytest.mark.parametrize(("text", "code", "hint"), [
    # A procedure called like a check: only a `do` line uses one.
    (_DUEL + "\n" + _INNER + "procedure Outer ()\n  let r = Inner(2)\n  result y = r.y\n", "E0412",
     "'Inner' is a procedure, not a check or a function: use it on a line of its own"),
    # A use without a label gives no results to read.
    (_DUEL + "\n" + _INNER + "procedure Outer ()\n  do Inner(2)\n  result y = Inner.y\n", "E0207",
     "'Inner' is a procedure: a use with a label, 'do Inner(...) as LABEL'"),
    # A check used with `do`: a check is called in an expression.
    (_DUEL + "\n" + _INNER + "procedure Outer ()\n  do Duel(3) as d\n  result y = d.total\n", "E0620",
     "'Duel' is a check, not a procedure: call it in an expression, 'let d = Duel(...)'"),
])
def test_a_procedure_and_a_check_used_the_one_for_the_other_say_how_each_is_used(text: str, code: str,
                                                                                  hint: str) -> None:
    problems = [d for d in _diagnostics(text) if d.code == code]
    assert len(problems) == 1 and problems[0].help is not None and problems[0].help.startswith(hint)


def test_a_number_case_of_a_match_over_levels_is_placed_under_the_case() -> None:
    # `case 4` was reported with no line at all, `case 3+` under the '+' alone, a range twice.
    problems = _diagnostics("levels Omen: ill < plain < bright\n\nprocedure M (omen: Omen = plain)\n  match omen\n"
                            "    case 3+\n      result r = 1\n    case 4\n      result r = 1\n    case 10-12\n"
                            "      result r = 1\n    else\n      result r = 0\n")
    assert [(d.code, d.span.line, d.span.column, d.span.end_column) for d in problems if d.span is not None] == [
        ("E0421", 5, 10, 12), ("E0422", 7, 10, 11), ("E0421", 9, 10, 15)]
    assert len(problems) == 3


@pytest.mark.parametrize(("body", "where", "expected"), [
    # Each was "unexpected 'if'; expected 'if'" (or 'in' / 'in'), or a wrong indentation below.
    ("  repeat\n    stop if\n  result s = 2\n", (3, 12), "a condition after 'if'"),
    ("  if true\n    result s = 1\n  else if\n    result s = 2\n", (4, 10), "a condition after 'if'"),
    ("  for each x in\n    next\n  result r = 1\n", (2, 16), "a list after 'in'"),
    ("  let x =\n  result r = 1\n", (2, 10), "a value after '='"),
    # Each was "unexpected indentation" on the next line, which is indented as it should be.
    ("  let x = 2 +\n  result r = x\n", (2, 14), "a value after '+'"),
    ("  let x = 2 >=\n  result r = x\n", (2, 15), "a value after '>='"),
    ("  repeat\n    stop if true and\n  result r = 1\n", (3, 21), "a value after 'and'"),
])
def test_a_line_that_stops_short_says_what_is_missing_at_its_end(body: str, where: tuple[int, int],
                                                                  expected: str) -> None:
    [problem] = _diagnostics("procedure R ()\n" + body)
    assert (problem.code, problem.span.line, problem.span.column) == ("E0103", *where)
    assert problem.message == f"unexpected end of line; expected {expected}"


def test_an_expression_broken_over_two_lines_inside_brackets_says_lines_end_it() -> None:
    [problem, *_cascade] = _diagnostics("procedure R ()\n  let x = max(1,\n    2)\n  result r = x\n")
    assert (problem.code, problem.span.line, problem.span.column) == ("E0104", 2, 14)
    assert problem.help is not None and "ends with its line" in problem.help and "')'" in problem.help


def test_resolving_a_procedure_says_to_run_it(cli) -> None:
    run = cli("resolve", _STRUCTURED, "Group Fight", "--with", "heroes=2")
    assert run.code == 1 and "E0601 unknown check 'Group Fight'" in run.stderr
    assert "help: 'Group Fight' is a procedure, not a check: run it with 'runebook run GAME \"Group Fight\"'" in run.stderr


def test_a_check_or_procedure_without_inputs_may_leave_out_the_parentheses(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`procedure Watch` (no inputs, no `()`) was read as an entry's header, and its first
    line was 'unexpected indentation'. It is a procedure, and `fmt` leaves the header as written."""
    game = tmp_path / "plain.rules"
    game.write_text("check Morale\n  roll d = 1d6\n  result steady = sum(d) >= 4\n\n"
                    "procedure Watch\n  let m = Morale()\n  choose stance: calm | alert\n"
                    "  result steady = m.steady\n  result stance = stance\n")
    assert cli("check", str(game)).code == 0
    ran = cli("run", str(game), "Watch", "--dice", "5", "--answer", "stance=alert", "--json")
    assert ran.code == 0, ran.stderr
    assert '"steady": true' in ran.stdout and '"stance": "alert"' in ran.stdout
    assert cli("resolve", str(game), "Morale", "--dice", "2", "-q").stdout.strip().endswith("steady: false")
    assert cli("fmt", "--check", str(game)).code == 0  # a header is kept as written


def test_a_character_file_names_its_game_by_a_path_from_its_own_folder(cli, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`game: ../game` in a character file is read from the file's folder, wherever `check`
    runs from (it was read from the current folder: E0006 from anywhere else)."""
    (tmp_path / "game").mkdir()
    (tmp_path / "game" / "g.rules").write_text("stats Grit\n")
    (tmp_path / "chars").mkdir()
    hero = tmp_path / "chars" / "wren.yaml"
    hero.write_text("game: ../game\nname: Wren\nstats:\n  Grit: 3\n  Guile: 2\n")
    (tmp_path / "x" / "elsewhere").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "x" / "elsewhere")  # where ../game names nothing
    hero = tmp_path / "chars" / "wren.yaml"
    run = cli("check", str(hero))
    assert run.code == 1 and "Guile" in run.stdout + run.stderr  # read against its game: Guile is no stat
    assert "E0006" not in run.stdout + run.stderr
    hero.write_text("game: ../game\nname: Wren\nstats:\n  Grit: 3\n")
    assert cli("check", str(hero)).code == 0
    hero.write_text("game: mestezia\nname: Wren\n")  # a built-in name stays a name
    assert "E0006" not in cli("check", str(hero)).stderr
