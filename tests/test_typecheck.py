"""The type check stage (dsl.typecheck) and the one registry of builtins (dsl.builtins).

Each diagnostic test is a snippet of .rules text that `runebook check` passed before the
check stage existed (and that failed on its first run); now `runebook check` reports it with
file:line:col, its code, a caret and help, and `interpreter.load` refuses the game.
"""

from __future__ import annotations

import pytest

from runebook import interpreter
from runebook.dsl import builtins as registry
from runebook.dsl.diagnostics import Diagnostic, RunebookError
from runebook.dsl import types as ty
from runebook.interpreter.core.evaluate import BUILTINS
from runebook.interpreter.rules.model import HOST_FUNCTIONS

# ---------------------------------------------------------------- the registry


def test_every_evaluator_builtin_has_a_signature_and_every_signature_an_implementation() -> None:
    evaluated = {name for name, b in registry.BUILTINS.items() if not b.host}
    assert set(BUILTINS) == evaluated
    assert set(HOST_FUNCTIONS) == {b.name for b in registry.BUILTINS.values() if b.host}
    assert not set(HOST_FUNCTIONS) & set(BUILTINS)


def test_the_evaluator_takes_arity_and_doc_from_the_registry() -> None:
    for name, implemented in BUILTINS.items():
        declared = registry.BUILTINS[name]
        assert (implemented.min_args, implemented.max_args, implemented.doc) == (
            declared.min_args, declared.max_args, declared.doc), name
    assert (BUILTINS["clamp"].min_args, BUILTINS["clamp"].max_args) == (3, 3)
    assert (BUILTINS["hex_step"].min_args, BUILTINS["hex_step"].max_args) == (2, 3)
    assert (BUILTINS["max"].min_args, BUILTINS["max"].max_args) == (1, None)


def test_a_signature_is_one_line() -> None:
    found = registry._parse("pick(xs: list[number], k: number = 1, ...) -> xs.item | none")[1]
    assert [(p.name, str(p.type), p.optional) for p in found.params] == [
        ("xs", "a list of numbers", False), ("k", "a number", True)]
    assert (found.min_args, found.max_args) == (1, None)
    assert found.result_type([ty.list_of(ty.level("Grade")), ty.NUMBER]) == ty.join(ty.level("Grade"), ty.NONE)
    assert registry.BUILTINS["step"].signatures[0].result_type([ty.level("Result"), ty.NUMBER]) == ty.level("Result")
    with pytest.raises(ValueError):
        registry._parse("bad(x: nombre) -> number")
    with pytest.raises(ValueError):
        registry._parse("bad(level: level) -> number")  # a parameter named like a type


def test_overloads_and_any_parameters() -> None:
    """A second line for a name is an overload; `any` parameters are checked for arity only."""
    saved = dict(registry.BUILTINS)
    try:
        registry.builtin("twice(p: pool, ...) -> number", "twice the dice")
        twice = registry.builtin("twice(xs: list) -> xs.item", "ignored: the first line's doc stays")
        assert twice.doc == "twice the dice" and (twice.min_args, twice.max_args) == (1, None)
        by_list = [s for s in twice.signatures if s.fits(1) and s.mismatch([ty.list_of(ty.TEXT)]) is None]
        assert [s.result_type([ty.list_of(ty.TEXT)]) for s in by_list] == [ty.TEXT]
        loose = registry.builtin("loose(a: any, b: any) -> any", "anything goes")
        assert loose.signatures[0].mismatch([ty.table("T"), ty.level("L")]) is None
    finally:
        registry.BUILTINS.clear()
        registry.BUILTINS.update(saved)


# ---------------------------------------------------------------- diagnostics

#: Declarations every case below reads: levels, a table whose rows are levels, a function, a
#: check whose results are a record.
PRELUDE = """\
levels Result: failure < success < critical

table Grade
  0: Fail
  1: Low
  2: Medium
  3+: High

function half(x) = floor(x / 2)

check Roll (pool = 3)
  roll dice = pool d10
  result successes = count(dice >= 8)
  result grade = Grade[successes]

check Case (ability: rating, pool = 3)
  let r = Roll(pool)
"""
#: The line of the case: the one after the prelude.
LINE = PRELUDE.count("\n") + 1

CASES = {
    "a table used as a number": ("  let bad = Grade + 1", """\
game.rules:{line}:13: E0420 '+' needs a number; 'Grade' is the table 'Grade'
 {line} |   let bad = Grade + 1
    |             ^^^^^
help: look a row up: Grade[...]"""),
    "a builtin with the wrong number of arguments": ("  let kept = clamp(pool, 1)", """\
game.rules:{line}:14: E0406 wrong number of arguments to 'clamp': expected 3, got 2
 {line} |   let kept = clamp(pool, 1)
    |              ^^^^^^^^^^^^^^
help: clamp(x: number, low: number, high: number) -> number"""),
    "a builtin given a number for a level": ("  let ranked = rank(3)", """\
game.rules:{line}:21: E0423 argument 1 of 'rank' is a number; it takes a level
 {line} |   let ranked = rank(3)
    |                     ^
help: rank(x: level) -> number"""),
    "a builtin given a table for a number": ("  let rounded = floor(Grade)", """\
game.rules:{line}:23: E0423 argument 1 of 'floor' is the table 'Grade'; it takes a number
 {line} |   let rounded = floor(Grade)
    |                       ^^^^^
help: floor(x: number) -> number"""),
    "a function with the wrong number of arguments": ("  let halved = half(pool, 2)", """\
game.rules:{line}:16: E0406 wrong number of arguments to 'half': expected 1, got 2
 {line} |   let halved = half(pool, 2)
    |                ^^^^^^^^^^^^^
help: half(x)"""),
    "a rating compared with a level": ("  let better = ability > success", """\
game.rules:{line}:16: E0421 '>' compares a rating with a level of 'Result'
 {line} |   let better = ability > success
    |                ^^^^^^^^^^^^^^^^^
help: a level compares only with levels of 'Result'; rank(success) is its position as a number"""),
    "arithmetic on a level": ("  let next = success + 1", """\
game.rules:{line}:14: E0420 '+' needs a number; 'success' is a level of 'Result'
 {line} |   let next = success + 1
    |              ^^^^^^^
help: rank(success) is its position in its group; step(success, n) moves it"""),
    "levels of two groups compared": ("  let mixed = r.grade < success", """\
game.rules:{line}:15: E0421 '<' compares a level of 'Grade' with a level of 'Result'
 {line} |   let mixed = r.grade < success
    |               ^^^^^^^^^^^^^^^^^
help: levels compare only with levels of their own group"""),
    "a record used as a number": ("  let total = r + 1", """\
game.rules:{line}:15: E0420 '+' needs a number; 'r' is the results of 'Roll'
 {line} |   let total = r + 1
    |               ^
help: read one of its results: r.successes (results: successes, grade)"""),
    "a field the record does not have": ("  result grade = r.grde", """\
game.rules:{line}:18: E0424 no field 'grde' in the results of 'Roll'
 {line} |   result grade = r.grde
    |                  ^^^^^^
help: did you mean 'grade'?"""),
    "levels that are never equal": ("  let same = r.grade == success", """\
game.rules:{line}:14: E0422 '==' compares a level of 'Grade' with a level of 'Result', which are never equal
 {line} |   let same = r.grade == success
    |              ^^^^^^^^^^^^^^^^^^
help: levels of two groups are never equal"""),
    "text that is never a level": ('  let named = success == "success"', """\
game.rules:{line}:15: E0422 '==' compares a level of 'Result' with text, which are never equal
 {line} |   let named = success == "success"
    |               ^^^^^^^^^^^^^^^^^^^^
help: text equals only text: a level is not the text of its name"""),
    "a check called without an input it needs": ("  let roll = Case()", """\
game.rules:{line}:14: E0602 missing input 'ability' for 'Case'
 {line} |   let roll = Case()
    |              ^^^^^^
help: Case(ability, pool)"""),
    "a check given a level for a rating": ("  let again = Case(success)", """\
game.rules:{line}:20: E0423 argument 1 of 'Case' is a level of 'Result'; it takes a rating
 {line} |   let again = Case(success)
    |                    ^^^^^^^
help: Case(ability: rating, pool = 3)"""),
    "a table looked up by a level none of its rows names": ("  let looked = Grade[success]", """\
game.rules:{line}:22: E0425 no row of 'Grade' can answer a level of 'Result'
 {line} |   let looked = Grade[success]
    |                      ^^^^^^^
help: its rows: 0, 1, 2, 3+"""),
    "a table looked up by a number none of its rows matches": ("  let looked = Grade[-1]", """\
game.rules:{line}:16: E0413 no row of 'Grade' matches -1
 {line} |   let looked = Grade[-1]
    |                ^^^^^^^^^
help: rows: 0, 1, 2, 3+"""),
    "a division by a literal zero": ("  let half = 10 // (0)", """\
game.rules:{line}:21: E0404 division by zero
 {line} |   let half = 10 // (0)
    |                     ^
help: the divisor is always 0 here"""),
    "a function given text where its body needs a number": ('  let halved = half("three")', """\
game.rules:{line}:21: E0426 'half' cannot take text as argument 1 ('x'): '/' needs a number; 'x' is text
 {line} |   let halved = half("three")
    |                     ^^^^^^^
help: game.rules:9:26: the line that fails; give 'half' the kind of value it uses 'x' as"""),
    "a function given a level where its body needs a number": ("  let halved = half(r.grade)", """\
game.rules:{line}:21: E0426 'half' cannot take a level of 'Grade' as argument 1 ('x'): '/' needs a number; 'x' is a level of 'Grade'
 {line} |   let halved = half(r.grade)
    |                     ^^^^^^^
help: game.rules:9:26: the line that fails; give 'half' the kind of value it uses 'x' as"""),
    "dice counted by a level": ("  roll more = (success)d6", """\
game.rules:{line}:16: E0420 the number of dice needs a number; 'success' is a level of 'Result'
 {line} |   roll more = (success)d6
    |                ^^^^^^^
help: rank(success) is its position in its group; step(success, n) moves it"""),
}


def _checked(cli, folder, text: str):  # type: ignore[no-untyped-def]
    (folder / "game.rules").write_text(text)
    run = cli("check", str(folder / "game.rules"))
    return run, run.stderr.replace(str(folder.resolve()) + "/", "").replace(str(folder) + "/", "")


@pytest.mark.parametrize("line, expected", list(CASES.values()), ids=list(CASES))
def test_the_check_stage_reports_it(cli, tmp_path, line: str, expected: str) -> None:  # type: ignore[no-untyped-def]
    run, stderr = _checked(cli, tmp_path, PRELUDE + line + "\n")
    assert run.code == 1, run.show()
    assert stderr == expected.format(line=LINE) + "\n"
    assert run.stdout.endswith("checked 1 file, 0 entries: 1 error\n")


@pytest.mark.parametrize("line", [line for line, _ in CASES.values()], ids=list(CASES))
def test_without_the_check_stage_it_passed(cli, tmp_path, monkeypatch, line: str) -> None:  # type: ignore[no-untyped-def]
    """Each case is something `runebook check` let through before: no other check sees it."""
    monkeypatch.setattr("runebook.dsl.model.check_types", lambda *a, **k: [])
    run, _ = _checked(cli, tmp_path, PRELUDE + line + "\n")
    assert run.code == 0, run.show()


def test_load_refuses_a_game_with_type_errors(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "game.rules").write_text(PRELUDE + "  let bad = Grade + 1\n  result next = success + 1\n")
    with pytest.raises(RunebookError) as error:
        interpreter.load(str(tmp_path))
    assert [(d.code, d.span.line) for d in error.value.diagnostics] == [("E0420", LINE), ("E0420", LINE + 1)]


def test_a_stat_that_hides_a_function_of_the_same_name(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """In a check a bare name is the actor's stat before the game's own names: a function
    named like a stat cannot be called there once a character has that stat."""
    run, stderr = _checked(cli, tmp_path, """\
stats Vigor

function vigor(e) = 1

procedure Probe ()
  result shown = vigor(actor)
""")
    assert run.code == 1
    assert stderr == """\
game.rules:6:18: E0420 a call needs a function; 'vigor' is a number
 6 |   result shown = vigor(actor)
   |                  ^^^^^
help: here 'vigor' is a stat of the actor, which hides the function 'vigor': rename one of them
"""


PERMISSIVE = """\
stats Might
levels Result: failure < success
option style: bold | careful = bold

table Grade
  0: Fail
  1: Low
  2+: High

table Cost
  Fail: 0
  Low: 1
  High: 2

function pick(x, y) = x if x > y else y
function degree(n) = none if n < 0 else Grade[n]

check Roll (pool = 3, bonus = 0)
  roll dice = pool d10
  result successes = count(each(dice) + bonus >= 8)
  result best = highest(dice) or 1
  result cost = Cost[Grade[successes]] + Cost["low"]
  result grade = Grade[successes]
  result degree = degree(successes - 1)
  result bold = style == bold
  result picked = pick(Might, bonus) + 1

procedure Rounds (pool = 2)
  let best = none
  let rounds = 0
  let grade = Grade[0]
  step round
  choose stake: all_in | 1 to 3
  let r = Roll(pool)
  set best = r.grade if best == none or r.grade > best else best
  set rounds = rounds + 1
  goto round if rounds < 2
  result better = best > Low
  result paid = stake + 1 if stake != all_in else 0
  result degree = r.degree == Low or r.degree == none
  result stepped = step(grade, 1) > Fail
"""


def test_what_cannot_be_known_is_never_an_error(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Parameters of functions are `any`; `none` in a union is not held against an operation
    (`highest(dice) or 1`); a procedure's name has the join of its bindings (a `goto` brings
    the later ones round); a number choice is a number; a name of a check's own that is also
    a table's holds only from its line on."""
    run, stderr = _checked(cli, tmp_path, PERMISSIVE)
    assert (run.code, stderr) == (0, "")


def test_the_shipped_games_check_clean() -> None:
    from runebook.dsl.loader import load_game
    from runebook.dsl.typecheck import check_types

    for game in ("d10-pool", "mestezia", "mettle", "mezzo", "questworlds"):
        loaded = load_game(game)
        assert not isinstance(loaded, Diagnostic)
        assert check_types(loaded.files, loaded.vocabulary) == [], game


DECLARED = """\
levels Element: plain < frost < flame

condition Burning (N, kind: Element = plain)

check Strike (power: number = 1, element: Element = "fire")
  result hit = power >= 2

procedure Use (bonus: number = 0)
  apply Burning(plain, frost)
  result bonus = bonus

procedure Twice ()
  do Use(bonus = frost) as first
  result hit = first.bonus

example Strike (power = flame)
"""


def test_values_for_declared_inputs(cli, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A default, an `apply` value, a `do` value and an `example` value of the wrong type for
    the input they go to: E0603, as when such a value is given at run time."""
    run, stderr = _checked(cli, tmp_path, DECLARED)
    assert run.code == 1
    assert stderr == """\
game.rules:5:53: E0603 input 'element' expects a level of 'Element', got '"fire"'
 5 | check Strike (power: number = 1, element: Element = "fire")
   |                                                     ^^^^^^
help: '"fire"' is text: give 'element' a default of its type, or no type
game.rules:9:17: E0603 input 'N' expects a number, got 'plain'
 9 |   apply Burning(plain, frost)
   |                 ^^^^^
help: 'plain' is a level of 'Element'; 'Burning' declares 'N'
game.rules:13:18: E0603 input 'bonus' expects a number, got 'frost'
 13 |   do Use(bonus = frost) as first
    |                  ^^^^^
help: 'frost' is a level of 'Element'; 'Use' declares 'bonus: number = 0'
game.rules:16:25: E0603 input 'power' expects a number, got 'flame'
 16 | example Strike (power = flame)
    |                         ^^^^^
help: 'flame' is a level of 'Element'; 'Strike' declares 'power: number = 1'
"""
    monkeypatch.setattr("runebook.dsl.model.check_types", lambda *a, **k: [])
    assert _checked(cli, tmp_path, DECLARED)[0].code == 0


def test_a_line_that_hides_a_table_of_the_same_name(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Names match ignoring case: after `let grade = ...`, `Grade` in that check is the line."""
    run, stderr = _checked(cli, tmp_path, PRELUDE + "  let grade = r.grade\n  result again = Grade[1]\n")
    assert run.code == 1
    assert stderr == f"""\
game.rules:{LINE + 1}:18: E0420 '[...]' needs a table; 'Grade' is a level of 'Grade'
 {LINE + 1} |   result again = Grade[1]
    |                  ^^^^^
help: here 'Grade' is a name of this declaration, which hides the table 'Grade': rename one of them
"""


def test_a_homebrew_file_is_checked_against_its_game(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Mechanics in a file that extends a game see the game's checks, levels and tables."""
    path = tmp_path / "lucky.rules"
    path.write_text("extends mezzo\n\ncheck Lucky (votes: number = 1)\n  let r = Action Check(votes, 1)\n"
                    "  result better = r.outcome > 2\n  result worse = r.outcom\n")
    run = cli("check", str(path))
    assert run.code == 1
    assert run.stderr.replace(str(tmp_path) + "/", "") == """\
lucky.rules:5:19: E0421 '>' compares a level of 'Outcome' with a number
 5 |   result better = r.outcome > 2
   |                   ^^^^^^^^^^^^^
help: a level compares only with levels of 'Outcome'; rank(r.outcome) is its position as a number
lucky.rules:6:18: E0424 no field 'outcom' in the results of 'Action Check'
 6 |   result worse = r.outcom
   |                  ^^^^^^^^
help: did you mean 'outcome'?
"""


def test_a_kind_of_line_the_check_does_not_know_yet() -> None:
    """A statement node of another class (a structured `if` with nested lines, say) is walked
    generically: its expressions typed, its nested lines checked, nothing it binds assumed."""
    import attrs

    from runebook.dsl import expr_ast as ex
    from runebook.dsl.diagnostics import DiagnosticSink
    from runebook.dsl.parser import parse_rules
    from runebook.dsl.source import Source
    from runebook.dsl.typecheck import check_types
    from runebook.dsl.vocabulary import build_vocabulary

    @attrs.frozen
    class Branch:
        condition: ex.Expr
        body: tuple  # type: ignore[type-arg]
        otherwise: tuple = ()  # type: ignore[type-arg]

    source = Source("g.rules", "levels Result: failure < success\n\nprocedure P (n = 1)\n  let x = 1\n"
                               "  let y = success + 1\n  choose c: a | b\n  result x = x\n")
    rules = parse_rules(source, DiagnosticSink(source))
    levels, procedure = rules.blocks
    first, second, third, last = procedure.statements
    nested = attrs.evolve(procedure, statements=(first, Branch(ex.Name(("n",)), (second,), (third,)), last))
    files = [(source, attrs.evolve(rules, blocks=(levels, nested)))]
    found = check_types(files, build_vocabulary(files, DiagnosticSink()))
    assert [(d.code, d.span.line) for d in found] == [("E0420", 5)]


def test_a_file_whose_only_mechanics_are_a_condition(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`runebook check` runs the mechanics checks for conditions, resources and derived values
    too, so what the game would refuse to load it reports."""
    run, stderr = _checked(cli, tmp_path, 'stats Guard\n\ncondition Dazed (N)\n  modifier Guard = "x" + N\n')
    assert run.code == 1
    assert stderr == """\
game.rules:4:20: E0420 '+' needs a number; '"x"' is text
 4 |   modifier Guard = "x" + N
   |                    ^^^
"""


# ---------------------------------------------------------------- inference

INFERRED = """\
stats Might
levels Result: failure < success
option style: bold | careful = bold

table Grade
  0: Fail
  1: Low
  2+: High

function half(x) = floor(x / 2)
function pick(x) = success if x > 2 else failure
function loop(n) = 0 if n <= 0 else loop(n - 1) + 1

check Roll (ability: rating, pool = 3, kind: Result = success, given)
  roll dice = pool d10
  let selection = dice >= 8
  let n = count(selection)
  let graded = Grade[n]
  let maybe = Grade[n] if n > 0 else none
  let halved = half(n)
  let picked = pick(n)
  let looped = loop(n)
  let each_die = each(dice) + 1
  let best = highest(dice) or 1
  let stepped = step(kind, 1)
  let ranked = rank(kind)
  let might = actor's Might
  let bare = Might
  let setting = style
  let words = "x"
  let rated = 7M2
  let anything = given
  let both = n > 2 and kind == success
  result ability = ability
  result n = n

check Twice (pool = 2)
  let first = Roll(7M, pool, success, 1)
  let field = first.n
  let rating = first.ability.base
"""


def test_every_expression_gets_a_type() -> None:
    from runebook.dsl.parser import parse_rules
    from runebook.dsl.diagnostics import DiagnosticSink
    from runebook.dsl.source import Source
    from runebook.dsl.typecheck import check_types
    from runebook.dsl.vocabulary import build_vocabulary

    source = Source("game.rules", INFERRED)
    rules = parse_rules(source, DiagnosticSink(source))
    files = [(source, rules)]
    found: dict[int, ty.Type] = {}
    assert check_types(files, build_vocabulary(files, DiagnosticSink()), types=found) == []
    lines = {line.name: str(found[id(line.expr)]) for block in rules.blocks
             for line in getattr(block, "statements", ()) if line.expr is not None}
    assert lines == {
        "dice": "a pool of dice",
        "selection": "a pool of dice",
        "n": "a number",
        "graded": "a level of 'Grade'",
        "maybe": "a level of 'Grade' or nothing",
        "halved": "a number",
        "picked": "a level of 'Result'",
        "looped": "a number",
        "each_die": "a pool of dice",
        "best": "a number",
        "stepped": "a level of 'Result'",
        "ranked": "a number",
        "might": "a number",
        "bare": "a number",
        "setting": "a level of 'style'",
        "words": "text",
        "rated": "a rating",
        "anything": "anything",
        "both": "true/false",
        "ability": "a rating",
        "first": "the results of 'Roll'",
        "field": "a number",
        "rating": "a number",
    }


def test_a_list_input_has_the_type_it_declares(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`xs: list of number` is a list of numbers: joined with a list it is fine, used as a
    number it is E0420 (both passed or failed the wrong way when such an input had no type)."""
    path = tmp_path / "l.rules"
    path.write_text("procedure P (xs: list of number = [1])\n  let ys = xs + [1]\n  result r = count(ys)\n",
                    encoding="utf-8")
    assert cli("check", str(path)).code == 0
    (tmp_path / "wrong").mkdir()  # another folder: a loaded game is cached by its folder
    path = tmp_path / "wrong" / "l.rules"
    path.write_text("procedure P (xs: list of number = [1])\n  result m = xs * 2\n", encoding="utf-8")
    run = cli("check", str(path))
    assert run.code == 1
    assert "l.rules:2:14: E0420 '*' needs a number; 'xs' is a list of numbers" in run.stderr


# ---------------------------------------------------------------- calls of the game's functions

CALLS = """\
levels Result: failure < success

function half(x) = x / 2
function twice_half(y) = half(y) * 2
function countdown(n) = 0 if n <= 0 else countdown(n - 1)
function guarded(x) = 0 if x == none else x / 2
function broken(x) = success + 1

check Calls
  result a = twice_half("a")
  result b = countdown("b")
  result c = guarded(none)
  result d = half(4) + twice_half(3.5) + countdown(3)
  result e = broken(1)
"""


def test_a_function_is_typed_with_the_arguments_it_is_given(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Text through one function into another's division: the outer call is where it is wrong
    (the help names the failing line); a function calling itself is followed once; `none` is
    not held against a body that tests for it; a body wrong whatever its arguments is reported
    once, at the function, not again at each call."""
    run, stderr = _checked(cli, tmp_path, CALLS)
    assert run.code == 1, run.show()
    found = [line for line in stderr.splitlines() if "game.rules:" in line and " E0" in line]
    assert found == [
        "game.rules:7:22: E0420 '+' needs a number; 'success' is a level of 'Result'",
        "game.rules:10:25: E0426 'twice_half' cannot take text as argument 1 ('y'): "
        "'half' cannot take text as argument 1 ('x'): '/' needs a number; 'x' is text",
        "game.rules:11:24: E0426 'countdown' cannot take text as argument 1 ('n'): "
        "'<=' needs a number or a level; 'n' is text",
    ], stderr


def test_such_a_call_stopped_on_its_first_run(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """What E0426 reports is what the run meets: without the check stage the game loads and
    the call stops inside the function's body."""
    monkeypatch.setattr("runebook.dsl.model.check_types", lambda *a, **k: [])
    (tmp_path / "game.rules").write_text("function half(x) = x / 2\n\ncheck Halved\n  result h = half(\"three\")\n")
    rules = interpreter.load(str(tmp_path))
    with pytest.raises(RunebookError) as error:
        rules.resolve("Halved", seed=1)
    assert [(d.code, d.span.line) for d in error.value.diagnostics] == [("E0405", 1)]


def test_typing_bodies_again_is_bounded(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A hostile file: a long function (1,900 terms, near the limit of one expression) called with 60 kinds of values. Its body is typed again
    at most until the budget of nodes is spent (every call past it passes unfollowed), so the
    check's work stays bounded whatever the file holds."""
    from runebook.dsl import expr_ast as ex
    from runebook.dsl import typecheck

    typed: list[int] = []
    original = typecheck._Checker._quietly_typed

    def counting(self, expr, scope, source):  # type: ignore[no-untyped-def]
        typed.append(sum(1 for _ in ex.nodes(expr)))
        return original(self, expr, scope, source)

    monkeypatch.setattr(typecheck._Checker, "_quietly_typed", counting)
    body = " + ".join(["x"] * 1900)
    groups = "\n".join(f"levels G{i}: a{i} < b{i}" for i in range(60))
    calls = "\n".join(f"  result r{i} = long(a{i})" for i in range(60))
    (tmp_path / "game.rules").write_text(f"{groups}\n\nfunction long(x) = {body}\n\ncheck Many\n{calls}\n")
    with pytest.raises(RunebookError) as error:
        interpreter.load(str(tmp_path))
    reported = [d for d in error.value.diagnostics if d.code == "E0426"]
    size = 2 * 1900 - 1
    assert sum(typed) <= typecheck._MOST_INSTANCE_NODES + size  # the budget, and the body once as written
    assert 0 < len(reported) == typecheck._MOST_INSTANCE_NODES // size < 60
