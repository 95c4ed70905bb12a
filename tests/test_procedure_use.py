"""`do NAME(args) as LABEL`: a procedure that uses another one, by seeded run, given dice,
choices (file and callback) and exact odds; refusals change nothing; mistakes are diagnostics."""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.rules.procedures import CallbackDriver, ScriptedDriver, load_choices

GAME = Path(__file__).resolve().parent / "cases" / "procedure_use"
HERO, FOE = str(GAME / "hero.yaml"), str(GAME / "foe.yaml")
STRIKE_LINE = 17  # `procedure Strike` in game.rules: its require is the next line, its spend the one after


@pytest.fixture
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load(str(GAME))


def _strike(die: int, bonus: int, stance: str) -> tuple[object, object]:
    """Strike by hand: (hit, grade) — both none when the die is 1 (it ends first)."""
    if die == 1:
        return None, None
    total = die + bonus + (1 if stance == "bold" else 0)
    return total >= 5, total


def test_results_are_read_by_label_and_names_stay_apart(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", str(GAME), "Duel", "--as", FOE, "--against", HERO, "--dice", "4,3",
              "--choices", str(GAME / "answers.yaml"), "--json")
    assert run.code == 0, run.stderr
    payload = json.loads(run.stdout)
    # first: 4 + 0 + 1 (bold) = 5, a hit; second: 3 + 1 (careful) = 4; the caller's own total stays 100
    assert payload["results"] == {"first_hit": True, "second_grade": 4, "total": 100, "points": 6 - 1 - 2}
    assert payload["state"]["first.total"] == 5 and payload["state"]["second.total"] == 4
    assert payload["choices"] == [{"choice": "first.stance", "answer": "bold"},
                                  {"choice": "second.stance", "answer": "careful"}]
    assert payload["dice"] == [4, 3]
    assert payload["state"]["target"]["conditions"] == ["Dazed"]


def test_the_trace_shows_each_use_and_its_own_names(cli, snapshot) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", str(GAME), "Duel", "--as", FOE, "--against", HERO, "--dice", "4,1",
              "--choices", str(GAME / "answers.yaml"))
    assert run.code == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines.index("  -- do Strike as first") < lines.index("  >> choose first.stance: bold") \
        < lines.index("  -- do Strike as second") < lines.index("  >> choose second.stance: careful")
    # the second strike's die of 1 ended it before its results; the first went on to them
    assert "  first.total >= 5 = true" in lines and not any(l.startswith("  second.total >=") for l in lines)
    assert run.show().replace(str(GAME), "GAME") == snapshot


def test_end_in_the_used_procedure_ends_only_it(rules) -> None:  # type: ignore[no-untyped-def]
    run = rules.run("Duel", as_=rules.entity(FOE), against=rules.entity(HERO), dice=[1, 1],
                    driver=ScriptedDriver(["bold", "bold"]))
    # both strikes end at their die of 1: their results were never reached, the caller goes on
    assert run.results == {"first_hit": None, "second_grade": None, "total": 100, "points": 3}
    assert run.state["target"]["conditions"] == []


def test_choices_come_in_order_from_a_file_and_from_a_callback(rules) -> None:  # type: ignore[no-untyped-def]
    asked: list[tuple[str, tuple[str, ...]]] = []

    def decide(point):  # type: ignore[no-untyped-def]
        asked.append((point.name, point.options))
        return ["bold", "careful"][len(asked) - 1]

    by_callback = rules.run("Duel", as_=rules.entity(FOE), against=rules.entity(HERO), dice=[2, 6],
                            driver=CallbackDriver(decide))
    from_file = rules.run("Duel", as_=rules.entity(FOE), against=rules.entity(HERO), dice=[2, 6],
                          driver=load_choices(GAME / "answers.yaml"))
    assert asked == [("first.stance", ("bold", "careful")), ("second.stance", ("bold", "careful"))]
    assert by_callback.results == from_file.results
    assert by_callback.choices == from_file.choices == (("first.stance", "bold"), ("second.stance", "careful"))
    hit, _ = _strike(2, 0, "bold")
    _, grade = _strike(6, 1, "careful")
    assert from_file.results["first_hit"] == hit and from_file.results["second_grade"] == grade


def test_a_refused_spend_inside_the_used_procedure_changes_nothing(rules, cli) -> None:  # type: ignore[no-untyped-def]
    hero, foe = rules.entity(HERO), rules.entity(FOE)  # the hero holds 2 Points: 1, then 2 cannot be paid
    with pytest.raises(RunebookError) as caught:
        rules.run("Duel", as_=hero, against=foe, dice=[4], driver=ScriptedDriver(["bold"]))
    problem = caught.value.diagnostics[0]
    assert problem.code == "E0706" and problem.source.name.endswith("game.rules")
    assert (problem.span.line, problem.span.column) == (STRIKE_LINE + 2, 9)
    assert hero.resources["Points"] == 2 and foe.conditions == []  # the first strike's Dazed is undone too
    run = cli("run", str(GAME), "Duel", "--as", HERO, "--against", FOE, "--dice", "4",
              "--choices", str(GAME / "answers.yaml"))
    assert run.code == 1 and "Traceback" not in run.stderr
    assert f"game.rules:{STRIKE_LINE + 2}:9: E0706 Hero cannot pay 2 Points: it has 1" in run.stderr


def test_a_failed_require_points_at_the_used_procedures_line(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", str(GAME), "Duel", "--as", FOE, "--with", "bonus=5")
    assert run.code == 1 and "Traceback" not in run.stderr and run.stdout == ""
    first = run.stderr.splitlines()[:3]
    assert first[0].endswith(f"game.rules:{STRIKE_LINE + 1}:11: E0613 'Strike' requires bonus < 5")
    assert first[1] == f" {STRIKE_LINE + 1} |   require bonus < 5"


@pytest.mark.parametrize("answers", [{}, {"first.stance": "careful", "second.stance": "bold"}])
def test_exact_odds_of_the_caller_match_an_enumeration(rules, answers: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    odds = rules.odds("Duel", as_=rules.entity(FOE), against=rules.entity(HERO), answers=answers)
    first_stance = answers.get("first.stance", "bold")  # unanswered: the first option
    second_stance = answers.get("second.stance", "bold")
    hits: dict[object, Fraction] = {}
    grades: dict[object, Fraction] = {}
    for one, two in product(range(1, 7), repeat=2):
        hit, _ = _strike(one, 0, first_stance)
        _, grade = _strike(two, 1, second_stance)
        hits[hit] = hits.get(hit, Fraction(0)) + Fraction(1, 36)
        grades[grade] = grades.get(grade, Fraction(0)) + Fraction(1, 36)
    assert dict(odds.results["first_hit"]) == hits
    assert dict(odds.results["second_grade"]) == grades
    assert dict(odds.results["total"]) == {100: 1}


def test_uses_two_deep_with_steps_have_exact_odds(rules) -> None:  # type: ignore[no-untyped-def]
    odds = rules.odds("Match")
    expected: dict[int, Fraction] = {}
    for faces in product(range(1, 7), repeat=4):  # two bouts of two exchanges, each won on 4+
        wins = sum(f >= 4 for f in faces)
        expected[wins] = expected.get(wins, Fraction(0)) + Fraction(1, 6 ** 4)
    assert dict(odds.results["total"]) == expected
    run = rules.run("Match", dice=[4, 1, 6, 5])
    assert run.results == {"total": 3}


def test_answers_name_a_used_procedures_choice_by_label(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("odds", str(GAME), "Duel", "--as", FOE, "--against", HERO, "--answer", "second.stance=careful",
              "--json")
    assert run.code == 0, run.stderr
    grades = json.loads(run.stdout)["results"]["second_grade"]
    # careful: die + 1 for dice 2..6 (a 1 ends the strike)
    assert grades == {"null": "1/6", **{str(d + 1): "1/6" for d in range(2, 7)}}


def test_an_entry_input_reads_the_used_procedures_names(rules) -> None:  # type: ignore[no-untyped-def]
    # Spark's Damage is [Might + 2]: 3 * 2 + 2 for the first use, the text "Spark" given to the
    # second (level 1) becomes the entry: 1 * 2 + 2; the caller's own Might is 100.
    assert rules.run("Volley", spell="Spark").results == {"first": 8, "second": 4, "own": 102}


def test_a_text_that_names_no_entry_is_a_diagnostic(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    text = (GAME / "game.rules").read_text().replace('do Cast("Spark")', 'do Cast("Sprak")')
    (tmp_path / "game.rules").write_text(text)
    run = cli("run", str(tmp_path), "Volley", "--with", "spell=Spark")
    assert run.code == 1 and "Traceback" not in run.stderr
    assert "E0603 input 'spell' expects a Spell, got 'Sprak'" in run.stderr
    assert "help: did you mean 'Spark'?" in run.stderr


BAD = """\
procedure Ping (n = 1)
  do Pong(n) as p

procedure Pong (n = 1)
  do Ping(n) as q

procedure Caller ()
  do Inenr(1) as x
  do Inner(1, 2, 3) as y
  do Inner(c = 2) as z
  result r = y.totl

procedure Inner (a, b = 2)
  result total = a + b

procedure Again ()
  do Again() as again
"""


def test_mistakes_in_uses_are_load_time_diagnostics(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "bad.rules").write_text(BAD)
    run = cli("check", str(tmp_path / "bad.rules"))
    assert run.code == 1 and "Traceback" not in run.stderr
    heads = [line.split("bad.rules:", 1)[1] for line in run.stderr.splitlines() if "bad.rules:" in line]
    assert heads == [
        "5:6: E0621 procedure 'Pong' uses itself: Ping -> Pong -> Ping",
        "8:6: E0620 unknown procedure 'Inenr'",
        "9:6: E0406 wrong number of arguments to 'Inner': expected 2, got 3",
        "10:6: E0604 unknown input 'c' for 'Inner'",
        "10:6: E0602 missing input 'a' for 'Inner'",
        "11:14: E0622 'y.totl' is not a result of 'Inner'",
        "17:6: E0621 procedure 'Again' uses itself: Again -> Again",
    ]
    assert "help: did you mean 'Inner'?" in run.stderr and "help: did you mean 'total'?" in run.stderr


def test_a_label_may_not_be_a_name_the_procedure_uses(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "g.rules").write_text(
        "procedure Inner ()\n  result x = 1\n\nprocedure Outer ()\n  let a = 2\n  do Inner() as a\n"
        "  do Inner() as b\n  do Inner() as b\n  result y = b\n")
    run = cli("check", str(tmp_path / "g.rules"))
    assert run.code == 1
    assert "g.rules:6:6: E0304 name 'a' is declared twice in one procedure" in run.stderr
    assert "g.rules:8:6: E0304 name 'b' is declared twice in one procedure" in run.stderr
    assert "g.rules:9:14: E0306 'b' names a use of 'Inner', not a value" in run.stderr


def test_a_use_prints_back_as_written() -> None:
    from runebook.dsl.parser import parse_rules
    from runebook.dsl.source import Source

    text = "procedure Outer ()\n  do Inner(1, b = 3) as first\n  do Inner(2)"
    parsed = parse_rules(Source("t.rules", text))
    assert str(parsed.blocks[0]) == text
    assert parse_rules(Source("t.rules", str(parsed.blocks[0]))) == parsed


def test_on_names_an_input_of_the_used_procedure(tmp_path: Path) -> None:
    """`gain Harm 2 on victim` inside a used procedure: `victim` is that procedure's input,
    whether the caller passes a name of its own or an expression that picks the entity."""
    (tmp_path / "g.rules").write_text(
        "stats Might\n\nresource Harm (start = 0)\n\n"
        "procedure Hurt (victim, n = 1)\n  gain Harm n on victim\n\n"
        "procedure Both ()\n  let first = actors[1]\n  do Hurt(first, 2)\n  do Hurt(actors[0], 3) as again\n"
        "  result harm = [resource(a, Harm) for a in actors]\n")
    (tmp_path / "a.yaml").write_text("name: A\nstats: {Might: 1}\n")
    (tmp_path / "b.yaml").write_text("name: B\nstats: {Might: 1}\n")
    rules = interpreter.load(str(tmp_path))
    sides = [rules.entity(str(tmp_path / "a.yaml")), rules.entity(str(tmp_path / "b.yaml"))]
    run = rules.run("Both", as_=sides)
    assert run.results["harm"] == (3, 2)
    odds = rules.odds("Both", as_=sides)
    assert dict(odds.results["harm"]) == {(3, 2): Fraction(1)}


def test_a_comprehension_in_a_used_procedure_keeps_its_own_name(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """`[a * 10 for a in xs]` inside a used procedure whose input is also `a`: the loop's `a`
    is the comprehension's (10 + 20 + 30), not the input (which gave 3 × 50 before)."""
    (tmp_path / "p.rules").write_text(
        "procedure Inner (a: number = 2, xs: list of number = [1, 2, 3])\n"
        "  result total = sum([a * 10 for a in xs if a > 0]) + a\n\n"
        "procedure Outer (n: number = 5)\n  do Inner(a = n) as inner\n  result got = inner.total\n", encoding="utf-8")
    run = cli("run", str(tmp_path), "Outer", "--json")
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout)["results"]["got"] == 65
