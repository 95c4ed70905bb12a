"""A result no run reaches is left out of a procedure's odds, as a run leaves it out; one set
in some runs only is `none` in the others; `--of` and sweeps read a left-out result as none."""

from __future__ import annotations

from fractions import Fraction

import pytest

import runebook

GAME = """\
procedure Stand (bonus: number = 1)
  roll d = 1d6
  result total = sum(d) + bonus
  if bonus > 5
    result big = true
  if sum(d) > 4
    result high = true
"""


@pytest.fixture(scope="module")
def rules() -> runebook.Ruleset:
    return runebook.load_text(GAME)


def test_a_result_no_run_sets_is_left_out_as_runs_leave_it_out(rules: runebook.Ruleset) -> None:
    assert "big" not in rules.run("Stand", dice=[6]).results
    odds = rules.odds("Stand")
    assert list(odds.results) == ["total", "high"] and odds.never_set == ("big",)
    assert "Stand: big" not in odds.text() and "big" not in odds.to_dict()["results"]
    # Every joint outcome names the results kept, in order.
    assert all(len(values) == 2 for values in odds.joint)
    assert odds.joint[(7, True)] == Fraction(1, 6)


def test_a_result_some_runs_set_is_none_in_the_others(rules: runebook.Ruleset) -> None:
    high = rules.odds("Stand").results["high"]
    assert dict(high.items()) == {None: Fraction(2, 3), True: Fraction(1, 3)}
    # With a larger bonus the result the other inputs left out is set in every run.
    assert dict(rules.odds("Stand", bonus=6).results["big"].items()) == {True: Fraction(1)}


def test_of_reads_a_left_out_result_as_none(rules: runebook.Ruleset, cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "g.rules").write_text(GAME, encoding="utf-8")
    printed = cli("odds", str(tmp_path), "Stand", "--of", "big == none", "--json")
    assert printed.code == 0, printed.stderr
    assert '"true": "1"' in printed.stdout


def test_a_sweep_keeps_every_column_where_a_result_is_set_at_some_points_only(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "g.rules").write_text(GAME, encoding="utf-8")
    grid = runebook.sweep(str(tmp_path), "Stand", vary={"bonus": [5, 6]}, workers=1)
    rows = grid.rows()
    assert list(rows[0]) == list(rows[1])
    assert rows[0]["big=none"] == 1 and rows[1]["big=true"] == 1
