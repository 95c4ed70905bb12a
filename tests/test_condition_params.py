"""Conditions with parameters, durations, implied conditions and `becomes` (game-neutral)."""

from __future__ import annotations

from pathlib import Path

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.dsl.parser import parse_rules
from runebook.dsl.source import Source

GAME = """\
stats Guard, Pace

option clamp_first: after_all | before_bonuses = after_all

levels Element: plain < oil < pitch

condition Shielded (N, type = ward)
  modifier Guard = N

condition Burning (N, kind: Element = plain)

condition Hurried ()
  modifier Pace = 2

condition Hobbled ()
  becomes Pace = 1 if clamp_first == after_all else 1 + modifier(holder, "Pace")

condition Pinned ()
  becomes Pace = 0

condition Down ()
  implies Hobbled
  modifier Guard = -1

condition Out ()
  implies Down

condition Shaken (lasts = turn)
"""


def _game(tmp_path: Path, procedures: str, entity: str = "name: A\nstats:\n  Guard: 10\n  Pace: 3\n") -> tuple:
    (tmp_path / "game.rules").write_text(GAME + "\n" + procedures)
    (tmp_path / "a.yaml").write_text(entity)
    rules = interpreter.load(str(tmp_path))
    return rules, rules.entity(str(tmp_path / "a.yaml"))


def test_condition_lines_print_back_as_they_parse() -> None:
    text = GAME + "\nprocedure P (n = 2)\n  apply Shielded(n + 1) for (n) rounds on target\n  apply Down for 2 rounds\n" \
        "  remove Burning(oil)\n"
    parsed = parse_rules(Source("g.rules", text))
    assert parse_rules(Source("g.rules", str(parsed))) == parsed
    assert "apply Shielded(n + 1) for (n) rounds on target" in str(parsed)


def test_the_same_condition_twice_is_one_with_the_larger_amount_and_longer_duration(tmp_path: Path) -> None:
    rules, a = _game(tmp_path, "procedure P ()\n  apply Shielded(1) for 1 round\n  apply Shielded(3) for 2 rounds\n"
                     "  apply Shielded(2) for 1 round\n  result guard = modifier(actor, \"Guard\")\n"
                     "  reset round\n  result later = amount(actor, Shielded)\n  reset round\n"
                     "  result gone = has(actor, Shielded)\n")
    run = rules.run("P", as_=a)
    assert run.results == {"guard": 3, "later": 3, "gone": False}


def test_a_condition_without_an_end_outlasts_any_duration(tmp_path: Path) -> None:
    rules, a = _game(tmp_path, "procedure P ()\n  apply Shielded(1)\n  apply Shielded(2) for 1 round\n"
                     "  reset round\n  result held = amount(actor, Shielded)\n")
    run = rules.run("P", as_=a)
    assert run.results == {"held": 2}
    assert run.state["actor"]["conditions"] == ["Shielded(2)"]


def test_identifying_parameters_make_separate_conditions(tmp_path: Path) -> None:
    rules, a = _game(tmp_path, "procedure P ()\n  apply Burning(3, oil)\n  apply Burning(2, pitch)\n"
                     "  apply Burning(1, oil)\n  result in_oil = amount(actor, Burning, oil)\n"
                     "  result in_pitch = amount(actor, Burning, pitch)\n  result in_plain = amount(actor, Burning, plain)\n"
                     "  result largest = amount(actor, Burning)\n  result has_oil = has(actor, Burning, oil)\n"
                     "  remove Burning(oil)\n  result has_oil_after = has(actor, Burning, oil)\n"
                     "  result after = amount(actor, Burning)\n")
    run = rules.run("P", as_=a)
    assert run.results == {"in_oil": 3, "in_pitch": 2, "in_plain": 0, "largest": 3, "has_oil": True,
                           "has_oil_after": False, "after": 2}
    assert run.state["actor"]["conditions"] == ["Burning(2, pitch)"]


def test_implied_conditions_count_once_and_end_with_their_cause(tmp_path: Path) -> None:
    rules, a = _game(tmp_path, "procedure P ()\n  apply Out\n  apply Down\n  result hobbled = has(actor, Hobbled)\n"
                     "  result guard = modifier(actor, \"Guard\")\n  result pace = stat(actor, \"Pace\")\n"
                     "  remove Out\n  remove Down\n  result after = has(actor, Hobbled)\n")
    run = rules.run("P", as_=a)
    assert run.results == {"hobbled": True, "guard": -1, "pace": 1, "after": False}


@pytest.mark.parametrize("setting, pace", [("after_all", 1), ("before_bonuses", 3)])
def test_becomes_sets_a_stat_and_may_read_the_holder(tmp_path: Path, setting: str, pace: int) -> None:
    rules, a = _game(tmp_path, "procedure P ()\n  apply Hurried\n  apply Hobbled\n"
                     "  result pace = stat(actor, \"Pace\")\n")
    assert rules.run("P", as_=a, options={"clamp_first": setting}).results == {"pace": pace}


def test_the_lowest_of_several_becomes_wins(tmp_path: Path) -> None:
    rules, a = _game(tmp_path, "procedure P ()\n  apply Pinned\n  apply Hobbled\n  result pace = stat(actor, \"Pace\")\n"
                     "  remove Pinned\n  result later = stat(actor, \"Pace\")\n  remove Hobbled\n"
                     "  apply Hurried\n  result free = stat(actor, \"Pace\")\n")
    assert rules.run("P", as_=a).results == {"pace": 0, "later": 1, "free": 5}


def test_lasts_and_durations_end_on_their_event(tmp_path: Path) -> None:
    rules, a = _game(tmp_path, "procedure P ()\n  apply Shaken\n  apply Down for 1 turn\n  reset round\n"
                     "  result round = has(actor, Shaken) and has(actor, Down)\n  reset turn\n"
                     "  result turn = has(actor, Shaken) or has(actor, Down)\n")
    assert rules.run("P", as_=a).results == {"round": True, "turn": False}


def test_entity_files_give_conditions_with_values(tmp_path: Path) -> None:
    rules, a = _game(tmp_path, "procedure P ()\n  result guard = modifier(actor, \"Guard\")\n"
                     "  result oil = amount(actor, Burning, oil)\n",
                     entity="name: A\nconditions:\n  - Shielded(2)\n  - Burning(4, oil)\n  - Down\n")
    assert rules.run("P", as_=a).results == {"guard": 1, "oil": 4}


def test_entity_file_mistakes_point_at_the_item(tmp_path: Path) -> None:
    with pytest.raises(RunebookError) as error:
        _game(tmp_path, "", entity="name: A\nconditions:\n  - Shielded\n  - Burning(1, tar)\n  - Shielded(x)\n"
              "  - Hurried(1)\n")
    shown = str(error.value)
    assert [d.code for d in error.value.diagnostics] == ["E0702"] * 4
    assert "a.yaml:3:5" in shown and "expects 1 value(s): 'Shielded(N)'" in shown
    assert "a.yaml:4:5" in shown and "one of plain, oil, pitch for kind" in shown
    assert "a.yaml:5:5" in shown and "a number for N" in shown
    assert "a.yaml:6:5" in shown and "0 value(s): 'Hurried()'" in shown


def test_wrong_values_in_apply_lines_are_caught_when_the_game_loads(tmp_path: Path) -> None:
    (tmp_path / "game.rules").write_text(GAME + "\nprocedure P ()\n  apply Shielded\n  apply Hurried(2)\n"
                                         "  remove Burning(oil, 2)\n  apply Shielded(nope)\n")
    with pytest.raises(RunebookError) as error:
        interpreter.load(str(tmp_path))
    codes = [d.code for d in error.value.diagnostics]
    assert codes == ["E0406", "E0406", "E0406", "E0207"]
    assert "game.rules:31:9" in str(error.value) and "game.rules:34:18: E0207 unknown name 'nope'" in str(error.value)
    assert "wrong number of arguments to 'Shielded': expected 1 (N), got 0" in str(error.value)


def test_an_implied_condition_must_exist(tmp_path: Path) -> None:
    (tmp_path / "game.rules").write_text("condition Down ()\n  implies Hobled\n\ncondition Hobbled ()\n")
    with pytest.raises(RunebookError) as error:
        interpreter.load(str(tmp_path))
    assert "game.rules:2:11: E0705 unknown condition 'Hobled'" in str(error.value)
    assert "did you mean 'Hobbled'?" in str(error.value)


def test_a_value_of_the_wrong_kind_at_run_time_changes_nothing(tmp_path: Path) -> None:
    rules, a = _game(tmp_path, "procedure P (n)\n  apply Hurried\n  apply Shielded(n)\n")
    with pytest.raises(RunebookError) as error:
        rules.run("P", as_=a, n="x")
    assert [d.code for d in error.value.diagnostics] == ["E0603"]
    assert a.conditions == []


def test_a_value_of_a_known_wrong_kind_is_caught_when_the_game_loads(tmp_path: Path) -> None:
    """Text where the amount goes, seen by the type check before anything runs."""
    (tmp_path / "game.rules").write_text(GAME + "\nprocedure P (n: text = \"x\")\n  apply Shielded(n)\n")
    with pytest.raises(RunebookError) as error:
        interpreter.load(str(tmp_path))
    assert [(d.code, d.message) for d in error.value.diagnostics] == [
        ("E0603", "input 'N' expects a number, got 'n'")]


def test_stat_reads_derived_values_and_names_what_is_wrong(tmp_path: Path) -> None:
    (tmp_path / "extra.rules").write_text("derive Reach = Pace + 1\n\ncondition Loop ()\n"
                                          "  becomes Guard = stat(holder, \"Guard\") + 1\n")
    rules, a = _game(tmp_path, "procedure P ()\n  apply Hurried\n  result reach = stat(actor, \"Reach\")\n"
                     "  result pace = stat(actor, \"Pace\")\n\nprocedure Q ()\n  result x = stat(actor, \"Nope\")\n\n"
                     "procedure R ()\n  apply Loop\n  result x = stat(actor, \"Guard\")\n")
    assert rules.run("P", as_=a).results == {"reach": 3 + 1, "pace": 3 + 2}
    with pytest.raises(RunebookError) as error:
        rules.run("Q", as_=a)
    assert "E0701 unknown stat 'Nope'" in str(error.value) and "A has no such stat" in str(error.value)
    with pytest.raises(RunebookError) as error:
        rules.run("R", as_=a)
    assert [d.code for d in error.value.diagnostics] == ["E0416"]


def test_a_misspelt_name_in_a_condition_line_is_caught_when_the_game_loads(tmp_path: Path) -> None:
    (tmp_path / "game.rules").write_text("stats Guard\n\ncondition Shielded (N)\n  modifier Guard = M + 1\n")
    with pytest.raises(RunebookError) as error:
        interpreter.load(str(tmp_path))
    assert "game.rules:4:20: E0207 unknown name 'M'" in str(error.value)


def test_the_documented_example_runs_as_documented(tmp_path: Path) -> None:
    """docs/language.md, "Parameters, durations, implied conditions and set values"."""
    docs = (Path(__file__).resolve().parent.parent / "docs" / "language.md").read_text(encoding="utf-8")
    block = docs[docs.index("### Parameters, durations"):].split("```")[1]
    (tmp_path / "game.rules").write_text("stats Guard, Pace\n\n" + block.strip() + "\n")
    (tmp_path / "a.yaml").write_text("name: A\nstats:\n  Guard: 1\n  Pace: 4\n")
    rules = interpreter.load(str(tmp_path))
    a = rules.entity(str(tmp_path / "a.yaml"))
    run = rules.run("Trip", as_=a, against=a)
    assert run.results == {"guard": 2, "burning": 2, "pace": 1}
    assert run.state["actor"]["conditions"] == ["Down for 1 round"]
    assert run.state["target"]["conditions"] == ["Shielded(2)"]
