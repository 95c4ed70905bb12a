"""d10 pool options no other test plays (spec d10pool.md §3): A12 `milestones_per_threshold`,
A16 `interval_momentum_cost`, A17 `scale_gate`. Golden cases with given dice, and exact odds
against enumerations written here (10-again off, every face listed)."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import pytest

from runebook import interpreter
from runebook.interpreter.rules.procedures import ScriptedDriver


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("d10-pool")


def plain(value: Any) -> Any:
    return getattr(value, "name", value)


def troupe(rules, tmp_path: Path, momentum: int):  # type: ignore[no-untyped-def]
    path = tmp_path / "troupe.yaml"
    path.write_text(f"name: Troupe\nstats:\n  Players: 4\nresources:\n  Momentum: {momentum}\n", encoding="utf-8")
    return rules.entity(str(path))


# ---------------------------------------------------------------- A12: milestones per threshold


def test_a12_one_milestone_per_threshold_success(rules) -> None:  # type: ignore[no-untyped-def]
    """Interval 1 rolls 8, 9, 2 against Difficulty 1: two successes, one threshold success;
    interval 2 rolls 8, 1, 1: one success. By default that is 1 + 1 = 2 of the 3 milestones
    needed within 2 intervals (a failure); with one_per_threshold, 2 + 1 = 3 (a success)."""
    inputs = dict(pool=3, milestones=3, interval_limit=2, dice=[8, 9, 2, 8, 1, 1])
    plain_run = rules.run("Complex Action", **inputs)
    assert {k: plain(v) for k, v in plain_run.results.items()} == {"outcome": "failure", "milestones": 2, "intervals": 2}
    extra = rules.run("Complex Action", options={"milestones_per_threshold": "one_per_threshold"}, **inputs)
    assert {k: plain(v) for k, v in extra.results.items()} == {"outcome": "success", "milestones": 3, "intervals": 2}


def test_a12_odds_match_an_enumeration(rules) -> None:  # type: ignore[no-untyped-def]
    """Pool 2, Difficulty 1, 2 milestones within 2 intervals, 10-again off: an interval gives
    0, 1 or 2 milestones (two successes: one and one more for the threshold success)."""
    per: Counter = Counter()
    for faces in product(range(1, 11), repeat=2):
        hits = sum(f >= 8 for f in faces)
        per[0 if hits == 0 else 1 + (hits - 1)] += Fraction(1, 100)
    success = Fraction(0)
    for (a, pa), (b, pb) in product(per.items(), repeat=2):
        if a >= 2:
            continue  # done after the first interval: counted below once
        success += pa * pb * (a + b >= 2)
    success += per[2]
    odds = rules.odds("Complex Action", pool=2, milestones=2, interval_limit=2,
                      options={"ten_again": "off", "milestones_per_threshold": "one_per_threshold"})
    assert odds.residual == 0
    assert {plain(k): v for k, v in odds.results["outcome"].items()} == {"success": success, "failure": 1 - success}


# ---------------------------------------------------------------- A16: what an extra interval costs


def test_a16_an_extra_interval_for_two_momentum(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A failed interval (3) gives the troupe 1 Momentum (3 -> 4); the extra interval costs 2
    under two_points (4 -> 2) and succeeds (9)."""
    run = rules.run("Complex Action", as_=troupe(rules, tmp_path, 3), pool=1, milestones=1, interval_limit=1,
                    dice=[3, 9], driver=ScriptedDriver(["add_interval"]),
                    options={"interval_momentum_cost": "two_points"})
    assert {k: plain(v) for k, v in run.results.items()} == {"outcome": "success", "milestones": 1, "intervals": 2,
                                                                "momentum": 2}
    assert run.state["actor"]["resources"]["Momentum"] == 2


def test_a16_no_extra_interval_without_the_price(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """With 0 Momentum the failed interval leaves the troupe 1: enough for one_point (the
    choice is offered), not for two_points (the action fails at the limit, nothing asked)."""
    cheap = rules.run("Complex Action", as_=troupe(rules, tmp_path, 0), pool=1, milestones=1, interval_limit=1,
                      dice=[3, 9], driver=ScriptedDriver(["add_interval"]))
    assert plain(cheap.results["outcome"]) == "success" and cheap.state["actor"]["resources"]["Momentum"] == 0
    dear = rules.run("Complex Action", as_=troupe(rules, tmp_path, 0), pool=1, milestones=1, interval_limit=1,
                     dice=[3], driver=ScriptedDriver([]), options={"interval_momentum_cost": "two_points"})
    assert plain(dear.results["outcome"]) == "failure" and dear.state["actor"]["resources"]["Momentum"] == 1


# ---------------------------------------------------------------- A17: Scale's gate


def test_a17_scale_waits_behind_the_gate_unless_ungated(rules) -> None:  # type: ignore[no-untyped-def]
    """Scale 2 on a roll of 3, 4 (no success) against Difficulty 2: by default the gate keeps
    it out (a failure, 1 Momentum); scale_ungated adds it (2 successes: success, Normal)."""
    gated = rules.resolve("action", pool=2, difficulty=2, scale=2, dice=[3, 4]).results
    assert (gated["total_successes"], plain(gated["outcome"]), gated["momentum"]) == (0, "failure", 1)
    free = rules.resolve("action", pool=2, difficulty=2, scale=2, dice=[3, 4], options={"scale_gate": "scale_ungated"}).results
    assert (free["total_successes"], plain(free["outcome"]), plain(free["degree"])) == (2, "success", "Normal")


def test_a17_ungated_scale_does_not_undo_a_botch(rules) -> None:  # type: ignore[no-untyped-def]
    """Spec §2.4: a Botch is no rolled success and a 1 shown, and it is a Failure, whatever
    bonus successes are added (3 Momentum)."""
    r = rules.resolve("action", pool=2, difficulty=1, scale=2, dice=[1, 4], options={"scale_gate": "scale_ungated"}).results
    assert (plain(r["outcome"]), r["threshold_successes"], r["momentum"]) == ("botch", 0, 3)


def test_a17_ungated_scale_odds_match_an_enumeration(rules) -> None:  # type: ignore[no-untyped-def]
    """Pool 2, Difficulty 2, Scale 1, 10-again off, both gates: every pair of faces."""
    for gate in ("with_enhancement", "scale_ungated"):
        expected: Counter = Counter()
        for faces in product(range(1, 11), repeat=2):
            hits = sum(f >= 8 for f in faces)
            total = hits + (1 if gate == "scale_ungated" or hits >= 1 else 0)
            outcome = "botch" if hits == 0 and 1 in faces else "success" if total >= 2 else "failure"
            expected[outcome] += Fraction(1, 100)
        odds = rules.odds("action", pool=2, difficulty=2, scale=1, options={"ten_again": "off", "scale_gate": gate})
        assert odds.residual == 0
        assert {plain(k): v for k, v in odds.results["outcome"].items()} == {k: v for k, v in expected.items() if v}, gate
