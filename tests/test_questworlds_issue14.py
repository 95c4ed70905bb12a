"""QuestWorlds, issue 14: the `+M` bonus notation, the community's interval review, voluntary
withdrawal (from a contest, and a community's depletion for it), and healing by rest. Expected
values are worked out here from the book's wording (spec §1.1, §1.11, §3.16, §5.1.6)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError

EXAMPLES = Path(__file__).resolve().parent.parent / "rulesets" / "questworlds" / "examples"


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("questworlds")


# ------------------------------------------------------------------ +M bonus notation


@pytest.mark.parametrize(("bonus", "value"), [("+M", 20), ("+M2", 40), ("-M", -20), ("+5M", 25), ("+3", 3)])
def test_a_bonus_in_rating_notation_counts_twenty_per_tier(rules, bonus: str, value: int) -> None:  # type: ignore[no-untyped-def]
    """"+M" = +20, "+M2" = +40, "-M" = -20 (spec §1.1): the contest with the bonus written so
    has exactly the odds of the contest with the number."""
    written = rules.odds("contest", ability=15, resistance=14, modifier=bonus)
    plain = rules.odds("contest", ability=15, resistance=14, modifier=value)
    assert dict(written.results["outcome"]) == dict(plain.results["outcome"])
    assert written.results["target"] == plain.results["target"]


def test_plus_m_on_a_given_roll(cli) -> None:  # type: ignore[no-untyped-def]
    """15 + M is 35 (15 with a mastery): a 10 succeeds and the mastery bumps it to a critical."""
    run = cli("resolve", "questworlds", "contest", "--with", "ability=15", "--with", "resistance=14",
              "--with", "modifier=+M", "--dice", "10,3", "--json")
    assert run.code == 0, run.stderr
    results = json.loads(run.stdout)["results"]
    assert results["target"] == 15 and results["result"] == "critical"


def test_a_situational_bonus_in_rating_notation(rules) -> None:  # type: ignore[no-untyped-def]
    resolved = rules.resolve("modified contest", ability=15, resistance=14, situational="+M", dice=[10, 3])
    assert resolved.results["rating"] == 35


def test_a_bonus_with_another_symbol_is_refused(rules) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError):
        rules.resolve("contest", ability=15, resistance=14, modifier="+Q", dice=[10, 3])


# ------------------------------------------------------------------ interval review


def _review(pc: int, total: int) -> int:
    """§8.3: +1 per 3 points of PC-column bonus from 3 on (max +3); -1 per 3 points of
    Total-column penalty (max -2)."""
    up = min(3, pc // 3) if pc >= 3 else 0
    down = min(2, abs(total) // 3) if total < 0 else 0
    return up - down


@pytest.mark.parametrize("pc", [0, 2, 3, 5, 6, 9, 12, 15])
@pytest.mark.parametrize("total", [0, 4, -2, -3, -5, -6, -9, -12])
def test_interval_review(rules, pc: int, total: int) -> None:  # type: ignore[no-untyped-def]
    results = rules.resolve("interval review", rating="12W", pc_bonus=pc, total=total,
                            options={"rating_symbol": "W"}).results
    assert results["change"] == _review(pc, total)
    assert results["new_rating"] == 32 + _review(pc, total)
    assert results["penalty_left"] == 0


@pytest.mark.parametrize(("total", "left"), [(-2, 0), (-3, 0), (-5, -2), (-9, -6), (4, 0)])
def test_interval_review_shedding_three_points(rules, total: int, left: int) -> None:  # type: ignore[no-untyped-def]
    results = rules.resolve("interval review", rating=18, total=total, options={"depletion_shedding": "shed_three"}).results
    assert results["penalty_left"] == left


# ------------------------------------------------------------------ withdrawal


@pytest.mark.parametrize("outcome", ["victory", "tie", "defeat"])
def test_a_community_that_withdraws_suffers_a_major_defeats_depletion(rules, outcome: str) -> None:  # type: ignore[no-untyped-def]
    assert rules.resolve("resource depletion", outcome=outcome, degree="minor", withdrew=1).results["penalty"] == -6
    assert rules.resolve("resource depletion", withdrew=1).results["penalty"] == -6


def _concede(cli, tmp_path: Path, *extra: str) -> dict:  # type: ignore[no-untyped-def]
    """A first round won by the opposition (16 against 10: a failure against a success, a
    minor defeat, 2 points, T10), then the player concedes."""
    choices = tmp_path / "concede.yaml"
    choices.write_text("- normal\n- concede\n", encoding="utf-8")
    run = cli("run", "questworlds", "scored contest", "--with", "ability=15", "--with", "resistance=14",
              "--dice", "16,10", "--choices", str(choices), "--json", *extra)
    assert run.code == 0, run.stderr
    return json.loads(run.stdout)["results"]


def test_conceding_a_scored_contest_is_a_defeat_by_the_score(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    results = _concede(cli, tmp_path)
    assert (results["outcome"], results["winner"], results["withdrew"]) == ("defeat", "opposition", True)
    assert (results["points"], results["opposition_points"]) == (0, 2)
    # by the score: a difference of 2, a marginal defeat; the loser hurt (Rising Loser 1-2)
    assert (results["degree"], results["consequence"]) == ("marginal", "hurt")


def test_conceding_as_a_major_defeat(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    results = _concede(cli, tmp_path, "--option", "withdrawal=as_major")
    # a major defeat (Rising Level 5-6): the loser injured, the winner unharmed
    assert (results["degree"], results["consequence"], results["opposition_consequence"]) == (
        "major", "injured", "unharmed")


# ------------------------------------------------------------------ rest


def _rest(rules, days: int, options: dict[str, str] | None = None) -> tuple[dict, list[str]]:  # type: ignore[no-untyped-def]
    hero = rules.entity(str(EXAMPLES / "battered.yaml"))
    run = rules.run("rest", as_=hero, days=days, options=options)
    return run.results, run.state["actor"]["conditions"]


@pytest.mark.parametrize("days", [0, 1, 2, 3, 6, 7, 13, 14, 29, 30, 45])
def test_rest_heals_one_hurt_a_day_one_impairment_a_week_an_injury_a_month(rules, days: int) -> None:  # type: ignore[no-untyped-def]
    results, held = _rest(rules, days)
    hurts, impairments, injured = 3 - min(days, 3), 2 - min(days // 7, 2), days < 30
    assert held.count("Hurt State") == hurts and held.count("Impaired State") == impairments
    assert ("Injured State" in held) == injured
    assert results["modifier"] == -3 * hurts - 6 * impairments - 9 * injured


@pytest.mark.parametrize(("days", "hurts"), [(1, 3), (2, 3), (3, 0)])
def test_rest_all_hurts_at_once(rules, days: int, hurts: int) -> None:  # type: ignore[no-untyped-def]
    _, held = _rest(rules, days, {"hurt_rest": "all_at_once"})
    assert held.count("Hurt State") == hurts


def test_a_four_week_month(rules) -> None:  # type: ignore[no-untyped-def]
    _, held = _rest(rules, 28, {"rest_month": "four_weeks"})
    assert "Injured State" not in held
