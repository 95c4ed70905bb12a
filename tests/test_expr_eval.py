"""The expression language: arithmetic, names, possessives, tables, functions, pools,
traces and limits, evaluated with faces given by hand."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from runebook.dsl.diagnostics import RunebookError
from runebook.dsl.parser import parse_expression
from runebook.interpreter import odds, roll
from runebook.interpreter.core.dice import PoolSource
from runebook.interpreter.core.evaluate import MapEnv, compile_expression, expression_text, pool_spec
from runebook.interpreter.core.limits import Limits
from runebook.interpreter.core.values import Bound, Derived, Function, Rating, Table


def value(expr: str, env: Any = None, dice: list[int] | None = None) -> Any:
    return roll(expr, dice=dice or [], env=env).total


def codes(expr: str, env: Any = None, dice: list[int] | None = None, limits: Limits | None = None) -> list[str]:
    with pytest.raises(RunebookError) as error:
        if limits is None:
            roll(expr, dice=dice or [], env=env)
        else:
            roll(expr, dice=dice or [], env=env, limits=limits)
    return [d.code for d in error.value.diagnostics]


@pytest.mark.parametrize("expr, expected", [
    ("1 + 2 * 3", 7),
    ("(1 + 2) * 3", 9),
    ("7 / 2", Fraction(7, 2)),
    ("8 / 2", 4),
    ("7 // 2", 3),
    ("-7 // 2", -4),
    ("7 % 3", 1),
    ("2 - 3 - 4", -5),
    ("1.5 * 2", 3),
    ("floor(7 / 2)", 3),
    ("ceil(7 / 2)", 4),
    ("round(5 / 2)", 3),
    ("round(-5 / 2)", -3),
    ("round(7 / 3)", 2),
    ("abs(-3)", 3),
    ("min(4, 2, 9)", 2),
    ("max(4, 2, 9)", 9),
    ("clamp(12, 0, 10)", 10),
    ("3 > 2", True),
    ("3 == 3 and 2 != 2", False),
    ("not 3 < 2", True),
    ("0 or 5", 5),
    ("2 and 5", 5),
    ("10 if 2 > 1 else 20", 10),
    ("1 if false else 2 if true else 3", 2),
    ('"a" == "a"', True),
    ('"a" == 1', False),
    ("none or 1", 1),
])
def test_arithmetic_and_logic(expr: str, expected: Any) -> None:
    result = value(expr)
    assert result == expected and type(result) is type(expected)


def test_names_match_ignoring_case_spaces_and_underscores() -> None:
    env = {"Weapon Reach": 2, "strength": 3, "tier_bonus": 1}
    assert value("Weapon Reach + Strength + Tier Bonus", env) == 6
    assert value("weapon_reach * 2", env) == 4


def test_unknown_name_suggests_a_close_one() -> None:
    with pytest.raises(RunebookError) as error:
        roll("Strenght + 1", env={"Strength": 2}, dice=[])
    (diag,) = error.value.diagnostics
    assert diag.code == "E0207" and diag.help == "did you mean 'Strength'?"
    assert (diag.span.column, diag.span.end_column) == (1, 9)


def test_possessives_and_attributes() -> None:
    env = {"Target": {"Defense": 12, "Armor Class": 15}, "rating": Rating(7, "M", 2)}
    assert value("Target's Defense + 1", env) == 13
    assert value("Target’s Armor Class", env) == 15
    assert value("rating.base + rating.count", env) == 9
    assert value("7M2.count") == 2
    with pytest.raises(RunebookError) as error:
        roll("Target's Defence", env=env, dice=[])
    assert error.value.diagnostics[0].help == "did you mean 'Defense'?"


def test_table_lookup_by_value_and_range() -> None:
    grade = Table("Grade", ((("value", 0), "Fail"), (("value", 1), "Low"), (("value", 2), "Medium"),
                            (("range", 3, None), "High")))
    env = {"Grade": grade}
    assert value("Grade[0]", env) == "Fail"
    assert value("Grade[2 + 5]", env) == "High"
    assert value("Grade[count(3d10 >= 8)]", env, [8, 9, 2]) == "Medium"
    assert codes("Grade[-1]", env) == ["E0413"]
    # A tail `21+` of an exploding count still finds its row.
    dist = odds("Grade[5d10x10cs>=8]", env=env)
    assert dist.residual == 0 and set(dist) == {"Fail", "Low", "Medium", "High"}
    assert dist["Fail"] == Fraction(16807, 100000)
    assert grade.lookup(Bound(3)) == "High"


def test_functions_defined_in_rules() -> None:
    env = MapEnv({})
    env.define("bonus", Function("bonus", ("x",), parse_expression("x // 2 - 5"), env))
    env.define("twice", Function("twice", ("n",), parse_expression("bonus(n) * 2"), env))
    assert value("bonus(15) + twice(18)", env) == 10
    assert codes("bonus(1, 2)", env) == ["E0406"]
    assert codes("nope(1)", env) == ["E0412"]
    loop = MapEnv({})
    loop.define("f", Function("f", ("x",), parse_expression("f(x + 1)"), loop))
    assert codes("f(0)", loop) == ["E0409"]


def test_derived_values_and_cycles() -> None:
    env = MapEnv({"Might": 4})
    env.define("Attack", Derived("Attack", parse_expression("Might + 2"), env))
    assert value("Attack * 2", env) == 12
    cycle = MapEnv({})
    cycle.define("A", Derived("A", parse_expression("B + 1"), cycle))
    cycle.define("B", Derived("B", parse_expression("A + 1"), cycle))
    assert codes("A", cycle) == ["E0416"]


@pytest.mark.parametrize("expr, dice, expected", [
    ("3d6 + 3", [1, 2, 3], 9),
    ("4d6kh3", [6, 2, 5, 1], 13),
    ("4d6k3", [6, 2, 5, 1], 13),
    ("4d6dl1", [6, 2, 5, 1], 13),
    ("4d6dh1", [6, 2, 5, 1], 8),
    ("2d20kl1", [15, 4], 4),
    ("5d10>=8", [8, 10, 3, 1, 9], 3),
    ("5d10x10cs>=8", [8, 10, 3, 1, 9, 8], 4),
    ("5d10cs>=8cs10", [8, 10, 3, 1, 9], 4),
    ("5d10cs>=8 >= 3", [8, 10, 3, 1, 9], True),
    ("6d10cs>=8df1", [8, 10, 1, 1, 9, 5], 1),
    ("4d6cf<3", [1, 2, 3, 6], 2),
    ("count(each(3d10) + 3 >= 11)", [8, 6, 1], 1),
    ("sum(each(3d10) + 3)", [8, 6, 1], 24),
    ("sum(5d6 <= 3)", [1, 4, 3, 6, 2], 6),
    ("count(5d6 >= 4)", [1, 4, 3, 6, 2], 2),
    ("any(4d6 == 1)", [2, 3, 1, 6], True),
    ("all(4d6 >= 2)", [2, 3, 1, 6], False),
    ("highest(d8, d6)", [3, 5], 5),
    ("lowest(d8, d6)", [3, 5], 3),
    ("highest(ladder(6, d4, d6, d8, d10, d12))", [7, 4], 7),
    ("ladder(6, d4, d6, d8, d10, d12)", [7, 4], 11),
    ("highest(ladder(0, d4, d6, d8, d10, d12)) or 1", [], 1),
    ("d20 <= 14", [9], 1),
    ("d20 <= 14", [17], 0),
    ("(d20 <= 14) and 1", [17], 0),
    ("4d6! ", [6, 1, 1, 1, 4], 13),
    ("2d6!!", [6, 3, 5], 14),
    ("3d6r1", [1, 1, 4, 5, 6], 15),
    ("3d6ro1", [1, 4, 5, 1], 10),
    ("(1d4)d6", [3, 6, 6, 6], 18),
    ("pool d6", [2, 2], 4),
    ("4dF", [-1, 0, 1, 1], 1),
    ("d{1,1,2,3}", [2], 2),
    ("3d6 > 2d6", [1, 1, 1, 2, 2], False),
    ("each(3d6) * 2 - 1 >= 5", [1, 3, 6], 2),
    ("-each(2d6) + 7 >= 4", [1, 5], 1),
])
def test_dice_with_given_faces(expr: str, dice: list[int], expected: Any) -> None:
    result = value(expr, {"pool": 2}, dice)
    assert result == expected and type(result) is type(expected)


def test_trace_records_dice_fates_operations_and_names() -> None:
    result = roll("4d6kh3 + Bonus", env={"Bonus": 2}, dice=[6, 2, 5, 1])
    kinds = [e.kind for e in result.trace]
    assert kinds == ["roll", "name", "op"]
    dice = result.trace[0].dice
    assert [(d.face, d.fate) for d in dice] == [(6, "kept"), (2, "kept"), (5, "kept"), (1, "dropped")]
    assert result.trace[1].text == "Bonus" and result.trace[1].value == 2
    assert result.to_dict()["trace"][2] == {"kind": "op", "expr": "4d6kh3 + Bonus", "value": 15, "line": 1, "column": 1}


def test_trace_order_is_the_order_faces_are_consumed() -> None:
    result = roll("3d6r1!", dice=[1, 6, 2, 3, 5])
    assert result.dice == [1, 6, 2, 3, 5]
    fates = [(d.face, d.fate, d.cause, d.origin) for d in result.trace[0].dice]
    assert fates == [(1, "rerolled", None, None), (6, "kept", None, None), (2, "kept", None, None),
                     (3, "kept", "reroll", 1), (5, "kept", "explosion", 2)]


def test_a_declared_pool_is_rolled_once_and_read_many_times() -> None:
    dice = PoolSource(pool_spec("pool d6", {"pool": 5}), "dice")
    result = roll("sum(dice <= 3) * 10 + count(dice >= 4)", env={"dice": dice}, dice=[1, 4, 3, 6, 2])
    assert result.total == 6 * 10 + 2
    assert sum(1 for e in result.trace if e.kind == "roll") == 1


def test_pool_spec_needs_a_known_count() -> None:
    assert pool_spec("ladder(6, d4, d6, d8, d10, d12)").size == 2
    with pytest.raises(RunebookError):
        pool_spec("(1d4)d6")
    with pytest.raises(RunebookError):
        pool_spec("2d6 + 1")


@pytest.mark.parametrize("expr, limits, code", [
    ("20d6", Limits(max_dice=10), "E0402"),
    ("(5 + 10)d6", Limits(max_dice=10), "E0402"),
    ("-(-(-(-1)))", Limits(max_depth=3), "E0409"),
])
def test_limits_are_diagnostics(expr: str, limits: Limits, code: str) -> None:
    with pytest.raises(RunebookError) as error:
        roll(expr, seed=1, limits=limits)
    assert [d.code for d in error.value.diagnostics] == [code]


def test_explosions_deeper_than_the_limit_are_a_diagnostic() -> None:
    assert codes("1d6!", dice=[6, 6, 6, 2], limits=Limits(max_explosion_depth=2)) == ["E0410"]
    assert value("1d6!", dice=[6, 6, 2]) == 14


def test_odds_limits_are_diagnostics() -> None:
    with pytest.raises(RunebookError) as error:
        odds("1000d6", limits=Limits(max_work=10_000))  # 5,001 sums, 5 steps each
    assert error.value.diagnostics[0].code == "E0415"
    with pytest.raises(RunebookError) as error:
        odds("d6 * d6", limits=Limits(max_support=10))
    assert error.value.diagnostics[0].code == "E0408"


def test_every_static_problem_is_reported() -> None:
    with pytest.raises(RunebookError) as error:
        compile_expression("1d0 + 2d6kh1dl1 + d1!")  # kh without a count is kh1 (issue 19)
    assert sorted(d.code for d in error.value.diagnostics) == ["E0401", "E0403", "E0407"]


def test_long_chains_do_not_recurse() -> None:
    text = " + ".join(["1"] * 1999)
    assert roll(text).total == 1999
    assert expression_text(parse_expression(text)).count("+") == 1998


def test_printing_round_trips() -> None:
    for text in ["4d6kh3", "5d10x10cs>=8", "d{1,1,2,3}", "(1d4)d6", "count(each(3d10) + 3 >= 11)",
                 "6d10cs>=8df1", "highest(ladder(7, d4, d6, d8, d10, d12)) or 1"]:
        assert expression_text(parse_expression(text)) == text


@pytest.mark.parametrize("text", ["2d6 +* 3", "2d6 + * 3"])
def test_a_stray_star_in_an_expression_is_not_called_emphasis(text: str) -> None:
    """Emphasis belongs to content; in an expression a '*' is an operator out of place."""
    with pytest.raises(RunebookError) as error:
        parse_expression(text)
    (found,) = error.value.diagnostics
    assert found.code == "E0102" and "unexpected '*'" in str(error.value), str(error.value)
