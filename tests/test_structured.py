"""Structured procedures: blocks, loops, lists and records, run three ways, and the
mistakes `check` now reports (tests/cases/structured/fight.rules)."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from itertools import product
from pathlib import Path

import attrs
import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.dsl.parser import parse_rules
from runebook.dsl.source import Source
from runebook.interpreter.core.limits import DEFAULT_LIMITS

GAME = Path(__file__).resolve().parent / "cases" / "structured"
D6 = range(1, 7)


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load(str(GAME))


def _name(value) -> str:  # type: ignore[no-untyped-def]
    return getattr(value, "name", value)


# ---------------------------------------------------------------- reading and printing


def test_blocks_print_back_as_written() -> None:
    text = (GAME / "fight.rules").read_text()
    parsed = parse_rules(Source("fight.rules", text))
    again = parse_rules(Source("again", "\n\n".join(str(b) for b in parsed.blocks)))
    assert again.blocks == parsed.blocks
    fight = next(b for b in parsed.blocks if str(getattr(b, "name", "")) == "Group Fight")
    assert "\n    match outcome\n      case win\n        set wins = wins + 1\n" in str(fight)


# ---------------------------------------------------------------- given dice, seeds, odds


def test_a_group_fight_from_given_dice(rules) -> None:  # type: ignore[no-untyped-def]
    # Hero 2 rolls 6 (8) against the foe's 1 (4): a win; hero 1 rolls 2 (3) against 2 (5): a loss.
    run = rules.run("Group Fight", heroes=[2, 1], dice=[6, 1, 2, 2])
    assert _name(run.results["outcome"]) == "tie"
    assert run.results["wins"] == 1
    assert [_name(o) for o in run.results["outcomes"]] == ["win", "loss"]
    text = [e.text for e in run.trace if getattr(e, "kind", "") == "condition"]
    assert "outcome == win" in " ".join(text)  # a case shows what it tested
    assert not any(getattr(e, "text", "").startswith("#") for e in run.trace)  # no internal names


def test_any_number_of_members(rules) -> None:  # type: ignore[no-untyped-def]
    heroes = [4, 2, 5, 1, 3, 6, 2]
    seeded = rules.run("Group Fight", heroes=heroes, seed=11)
    again = rules.run("Group Fight", heroes=heroes, seed=11)
    assert seeded.to_dict() == again.to_dict()
    assert len(seeded.results["outcomes"]) == len(heroes)
    assert len(seeded.trace.dice()) == 2 * len(heroes)


def _pairing(hero: int, foe: int) -> dict[str, Fraction]:
    counts = Counter("win" if a + hero > b + foe else "loss" if a + hero < b + foe else "tie"
                     for a, b in product(D6, D6))
    return {k: Fraction(v, 36) for k, v in counts.items()}


def test_group_fight_odds_match_an_enumeration(rules) -> None:  # type: ignore[no-untyped-def]
    heroes, foe = [2, 1, 4], 3
    expected: Counter[str] = Counter()
    for outcomes in product(*(list(_pairing(h, foe).items()) for h in heroes)):
        p = Fraction(1)
        for _, q in outcomes:
            p *= q
        wins = sum(1 for o, _ in outcomes if o == "win")
        losses = sum(1 for o, _ in outcomes if o == "loss")
        expected["win" if wins > losses else "loss" if losses > wins else "tie"] += p
    odds = rules.odds("Group Fight", heroes=heroes, foe=foe)
    assert {_name(k): v for k, v in odds.results["outcome"].items()} == dict(expected)
    assert odds.residual == 0


def _best_of_five(p: Fraction, q: Fraction) -> Fraction:
    """P(reaching three points first) when a round scores for me with p, for them with q."""
    win = p / (p + q)
    total = Fraction(0)
    for theirs in range(3):  # I win the last round, they have 0-2 points
        ways = [1, 3, 6][theirs]
        total += ways * win ** 3 * (1 - win) ** theirs
    return total


@pytest.mark.parametrize("careful, tie_rule", [(False, "reroll"), (True, "reroll"), (False, "count_as_loss")])
def test_rounds_until_three_points_match_a_closed_form(rules, careful, tie_rule) -> None:  # type: ignore[no-untyped-def]
    pairing = _pairing(3 + (1 if careful else 0), 3)
    p, q = pairing["win"], pairing["loss"] + (pairing["tie"] if tie_rule == "count_as_loss" else 0)
    odds = rules.odds("Best Of Five", careful=careful, options={"tie_rule": tie_rule})
    assert odds.results["won"][True] == _best_of_five(p, q)
    assert sum(odds.results["score"].values()) == 1


def test_seeded_rounds_agree_with_the_odds(rules) -> None:  # type: ignore[no-untyped-def]
    exact = rules.odds("Best Of Five", careful=True).results["won"][True]
    rng = random.Random(5)
    runs = 400
    won = sum(1 for _ in range(runs) if rules.run("Best Of Five", careful=True, rng=rng).results["won"])
    sigma = (runs * exact * (1 - exact)) ** 0.5
    assert abs(won - runs * exact) < 4 * sigma


def test_comprehension_and_list_builtins(rules) -> None:  # type: ignore[no-untyped-def]
    run = rules.run("Best Roll", count=3, dice=[4, 6, 2])
    assert run.results == {"best": 6, "sorted": (2, 4, 6), "first": 4}
    best = rules.odds("Best Roll", count=3).results["best"]
    assert best == {k: Fraction(k ** 3 - (k - 1) ** 3, 216) for k in D6}


@pytest.mark.parametrize("expr, value", [
    ("count([1, 2, 3])", 3),
    ("count([x > 1 for x in [1, 2, 3]])", 2),
    ("sum([x * x for x in [1, 2, 3]])", 14),
    ("max([4, 9, 2]) + min(3, [1, 5])", 10),
    ("highest([])", None),
    ("index([5, 6, 7], 7)", 2),
    ("index([5, 6, 7], 8)", None),
    ("zip([1, 2], [3, 4])[1][0]", 2),
    ("sort_by([10, 20, 30], [3, 1, 2])", (20, 30, 10)),
    ("reverse(sort([3, 1, 2]))", (3, 2, 1)),
    ("last([1, 2] + [3])", 3),
    ("any([x > 2 for x in [1, 3]]) and not all([x > 2 for x in [1, 3]])", True),
    ("{speed: 3, name: \"Ana\"}.speed", 3),
    ("replace([1, 2, 3], 1, 9)", (1, 9, 3)),
    ("range(3)", (0, 1, 2)),
    ("[i * 10 for i in range(2, 4)]", (20, 30)),
    ("[p.speed for p in [{speed: 2}, {speed: 5}] if p.speed > 3]", (5,)),
])
def test_list_expressions(expr, value) -> None:  # type: ignore[no-untyped-def]
    assert interpreter.roll(expr).total == value


def test_ratings_cross_states(tmp_path: Path) -> None:
    """A list of ratings (`7M`) is part of a state of exact odds like any plain value."""
    (tmp_path / "g.rules").write_text(
        "procedure P (xs: list of rating)\n  let hits = 0\n  for each x in xs\n    roll d = 1d2\n"
        "    set hits = hits + (1 if sum(d) == 2 else 0)\n  result hits = hits\n  result last = last(xs)\n")
    odds = interpreter.load(str(tmp_path)).odds("P", xs="7M, 3")
    assert odds.results["hits"] == {0: Fraction(1, 4), 1: Fraction(1, 2), 2: Fraction(1, 4)}


def test_levels_in_lists(tmp_path: Path) -> None:
    (tmp_path / "g.rules").write_text(
        "levels Outcome: loss < tie < win\n\nprocedure P ()\n  result all = levels_of(tie)\n"
        "  result best = max(tie, win, loss)\n  result worst = min([tie, win])\n"
        "  result above = [o for o in levels_of(loss) if o > tie]\n")
    results = interpreter.load(str(tmp_path)).run("P").results
    assert [_name(o) for o in results["all"]] == ["loss", "tie", "win"]
    assert (_name(results["best"]), _name(results["worst"])) == ("win", "tie")
    assert [_name(o) for o in results["above"]] == ["win"]


def test_a_list_of_dice_has_exact_odds() -> None:
    assert interpreter.odds("sum([d6 for i in [1, 2]])") == interpreter.odds("2d6")


def test_set_changes_one_item_or_field(tmp_path: Path) -> None:
    (tmp_path / "g.rules").write_text(
        "procedure Members ()\n"
        "  let members = [{score: 0, name: \"a\"}, {score: 0, name: \"b\"}]\n"
        "  let i = 0\n"
        "  for each m in members\n"
        "    set members[i].score = m.score + 10 + i\n"
        "    set i = i + 1\n"
        "  let xs = [1, 2, 3]\n"
        "  set xs[1] = 20\n"
        "  result scores = [m.score for m in members]\n"
        "  result xs = xs\n")
    rules = interpreter.load(str(tmp_path))
    assert rules.run("Members").results == {"scores": (10, 11), "xs": (1, 20, 3)}
    text = str(parse_rules(Source("g", (tmp_path / "g.rules").read_text())).blocks[0])
    assert "    set members[i].score = m.score + 10 + i\n" in text


def test_a_choice_among_the_items_of_a_list(rules, tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    from runebook.interpreter.rules.procedures import ScriptedDriver

    run = rules.run("Vote", proposals=["fight", "flee", "parley"], driver=ScriptedDriver(["flee", "parley", "flee"]))
    assert run.results == {"winner": "flee", "counts": (0, 2, 1)}
    assert run.choices == (("pick", "flee"), ("pick", "parley"), ("pick", "flee"))
    odds = rules.odds("Vote", proposals=["fight", "flee"], answers={"pick": "flee"})
    assert odds.results["winner"] == {"flee": 1}
    answers = tmp_path / "answers.yaml"
    answers.write_text("- parley\n- Parley\n- fight\n")
    shown = cli("run", str(GAME), "Vote", "--with", "proposals=fight,flee,parley", "--choices", str(answers))
    assert shown.code == 0, shown.stderr
    assert ">> choose pick: parley" in shown.stdout and "winner: parley" in shown.stdout
    answers.write_text("- retreat\n")
    wrong = cli("run", str(GAME), "Vote", "--with", "proposals=fight,flee", "--choices", str(answers))
    assert wrong.code == 1
    assert "E0611 'retreat' is not offered at choice 'pick'; choose one of: fight, flee" in wrong.stderr
    empty = cli("run", str(GAME), "Vote", "--with", "proposals=[]")
    assert empty.code == 1 and "E0627 nothing to choose from at choice 'pick'" in empty.stderr


# ---------------------------------------------------------------- inputs


def test_list_and_boolean_inputs_from_the_command_line(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", str(GAME), "Group Fight", "--with", "heroes=2,1", "--dice", "6,1,2,2", "--json")
    assert run.code == 0, run.stderr
    assert '"outcomes": [\n      "win",\n      "loss"\n    ]' in run.stdout
    run = cli("odds", str(GAME), "Best Of Five", "--with", "careful=yes")
    assert run.code == 0, run.stderr


@pytest.mark.parametrize("given, message", [
    ("heroes=2,x", "E0603 input 'heroes' expects a number, got 'x' (item 2 of 'heroes')"),
    ("heroes=[2, 1", "E0104 unclosed '['"),
])
def test_a_list_input_of_the_wrong_kind(cli, given, message) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", str(GAME), "Group Fight", "--with", given)
    assert run.code == 1
    assert message in run.stderr
    assert "Traceback" not in run.stderr


def test_a_boolean_given_as_maybe(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", str(GAME), "Best Of Five", "--with", "careful=maybe", "--seed", "1")
    assert run.code == 1
    assert "E0603 input 'careful' expects true or false, got 'maybe'" in run.stderr
    assert "Traceback" not in run.stderr


def test_a_loop_over_more_items_than_the_limit() -> None:
    small = interpreter.rules.load(str(GAME), attrs.evolve(DEFAULT_LIMITS, max_collection=4))
    small.run("Group Fight", heroes=[1, 2, 3, 4], seed=1)
    with pytest.raises(RunebookError) as caught:
        small.run("Group Fight", heroes=[1, 2, 3, 4, 5], seed=1)
    assert caught.value.diagnostics[0].code == "E0901"
    assert "the limit is 4" in caught.value.diagnostics[0].message


def test_a_loop_over_too_many_items_from_the_command_line(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "g.rules").write_text("procedure P (n: number = 3)\n  let total = 0\n  for each x in range(n)\n"
                                      "    set total = total + x\n  result total = total\n")
    assert "total: 3" in cli("run", str(tmp_path), "P").stdout
    run = cli("run", str(tmp_path), "P", "--with", "n=5000")
    assert run.code == 1
    assert "E0901 limit exceeded: a range of 5000 numbers (the limit is 1000)" in run.stderr
    assert "Traceback" not in run.stderr
    many = ",".join(["1"] * 1001)
    listed = cli("run", str(GAME), "Group Fight", "--with", f"heroes={many}")
    assert listed.code == 1 and "E0901 limit exceeded: a list of 1001 items for 'heroes'" in listed.stderr


def test_a_loop_over_something_not_a_list(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "g.rules").write_text("procedure P (n: number = 3)\n  for each x in n\n    let y = x\n")
    run = cli("check", str(tmp_path / "g.rules"))
    assert run.code == 1
    assert "g.rules:2:17: E0420 'for each' needs a list; 'n' is a number" in run.stderr
    assert "#" not in run.stderr  # nothing of the loop's own bookkeeping shows


# ---------------------------------------------------------------- what check reports


@pytest.mark.parametrize("body, code, where", [
    ("  else\n    let a = 1\n", "E0117", "4:3"),
    ("  if n > 1\n  let a = 1\n", "E0116", "4:3"),
    ("  next if n > 1\n", "E0623", "4:3"),
    ("  result a = b + 1\n  let b = 2\n", "E0624", "4:14"),
    ("  if n > 1\n    let b = 1\n  result a = b\n", "E0624", "6:14"),
    ("  end\n  step later\n  result a = 1\n", "E0625", "5:8"),
    ("  match w\n    case win\n      let a = 1\n    case loss\n      let a = 2\n", "E0626", "4:3"),
    ("  let a = 1\n      let b = 2\n", "E0106", "5:7"),
    ("  match n\n    let a = 1\n", "E0118", "5:5"),
    ("  let unused = n + 1\n  result a = n\n", "E0628", "4:7"),
])
def test_check_reports_flow_mistakes(tmp_path: Path, cli, body, code, where) -> None:  # type: ignore[no-untyped-def]
    text = "levels Outcome: loss < tie < win\n\nprocedure P (n: number = 3, w: Outcome = win)\n" + body
    path = tmp_path / "p.rules"
    path.write_text(text)  # the procedure's first line is line 4
    run = cli("check", str(path))
    assert f"p.rules:{where}: {code}" in run.stderr, run.stderr
    assert "help:" in run.stderr
    assert run.code == (0 if code in ("E0625", "E0628") else 1)  # those two are warnings


def test_a_name_set_on_every_way_is_fine(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    body = ("procedure P (n: number = 3)\n  if n > 1\n    let b = 1\n  else\n    let b = 2\n"
            "  for each x in [1, 2]\n    set b = b + x\n  result a = b\n")
    (tmp_path / "p.rules").write_text(body)
    run = cli("check", str(tmp_path / "p.rules"))
    assert run.code == 0, run.stderr
    assert run.stderr == ""


# ---------------------------------------------------------------- the language reference


def _doc_block(starts: str) -> str:
    text = (Path(__file__).resolve().parent.parent / "docs" / "language.md").read_text(encoding="utf-8")
    blocks = [b for b in text.split("```") if b.lstrip("\n").startswith(starts)]
    return blocks[-1].strip("\n") + "\n"


def test_the_reference_contest_runs_as_written(tmp_path: Path) -> None:
    """docs/language.md, "From the rulebook to .rules": the contest it builds runs three ways."""
    (tmp_path / "short.rules").write_text("extends questworlds\n\n" + _doc_block("procedure Short Contest"))
    rules = interpreter.load(str(tmp_path))  # the folder's file extends the game
    seeded = rules.run("Short Contest", ability=15, resistance=14, seed=3)
    assert seeded.to_dict() == rules.run("Short Contest", ability=15, resistance=14, seed=3).to_dict()
    odds = rules.odds("Short Contest", ability=15, resistance=14)
    assert sum(odds.results["outcome"].values()) == 1 and odds.residual == 0
    # Against itself a contest is even.
    even = rules.odds("Short Contest", ability=14, resistance=14).results["outcome"]
    assert {_name(k): v for k, v in even.items()} == {"defeat": Fraction(1, 2), "victory": Fraction(1, 2)}


def test_the_reference_group_fight_runs_as_written(tmp_path: Path, rules) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "fight.rules").write_text(_doc_block("levels Outcome"))
    written = interpreter.load(str(tmp_path))
    for dice in ([6, 1, 2, 2], [1, 6, 6, 1], [3, 3, 4, 4]):
        mine = written.run("Group Fight", heroes=[2, 1], dice=dice).results
        assert mine["outcome"] == rules.run("Group Fight", heroes=[2, 1], dice=dice).results["outcome"]
    assert written.odds("Group Fight", heroes=[2, 1]).results["outcome"] == \
        rules.odds("Group Fight", heroes=[2, 1]).results["outcome"]
