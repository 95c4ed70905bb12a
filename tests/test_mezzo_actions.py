"""Mezzo action checks (spec mezzo.md §3.8, A7, A8), contested actions and adversity (§3.10):
rulesets/mezzo/actions.rules. Odds are compared with an enumeration written here."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import pytest

from runebook.interpreter.rules import load
from runebook.interpreter.rules.model import RunebookError
from runebook.interpreter.rules.procedures import ScriptedDriver
from mezzo_helpers import action_odds, book_pool, six_sided_score_odds

EXAMPLES = Path(__file__).resolve().parent.parent / "rulesets" / "mezzo" / "examples"
BASE = {"negligible": 0, "occasional": 1, "common": 2}


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load("mezzo")



def plain(results: dict[str, Any]) -> dict[str, Any]:
    return {k: v if isinstance(v, (int, Fraction)) else str(v) for k, v in results.items()}


@pytest.mark.parametrize(("chance", "failure", "votes"), [
    ("common", "occasional", 0), ("occasional", "common", 0), ("common", "common", 3), ("occasional", "occasional", 5),
])
def test_action_exact_odds(rules, chance: str, failure: str, votes: int) -> None:  # type: ignore[no-untyped-def]
    odds = rules.odds("Action", chance=chance, failure_chance=failure, votes=votes)
    assert odds.residual == 0
    got = {str(k): p for k, p in odds.results["outcome"].items()}
    assert got == action_odds(BASE[chance] + votes, BASE[failure])


@pytest.mark.parametrize(("chance", "failure", "outcome"), [
    ("negligible", "common", "failure"), ("common", "negligible", "success"), ("negligible", "negligible", "failure"),
])
def test_a8_negligible_needs_no_check(rules, chance: str, failure: str, outcome: str) -> None:  # type: ignore[no-untyped-def]
    result = rules.run("Action", dice=[], chance=chance, failure_chance=failure)
    assert plain(result.results)["outcome"] == outcome
    assert result.results["checked"] is False
    assert list(result.trace.dice()) == []


def test_scope_perks_cost_votes_from_the_action(rules) -> None:  # type: ignore[no-untyped-def]
    """Common (2) + 2 votes = 4; Local Coverage (Extended first: 2 votes) leaves 2: a d6."""
    result = rules.run("Action", dice=[5, 3], chance="common", votes=2, coverage="local_coverage")
    assert [d.label for d in result.trace.dice()] == ["d6", "d4"]
    assert plain(result.results) | {} == {"votes_on_scope": 2, "checked": True, "first_outcome": "success",
                                          "outcome": "success"}


def test_scope_perks_beyond_the_votes_are_refused(rules) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as error:
        rules.run("Action", dice=[1, 1], chance="occasional", coverage="regional_coverage")
    assert error.value.diagnostics[0].code == "E0613"
    assert "scope_votes" in error.value.diagnostics[0].message


def test_a_tie_is_rolled_off(rules) -> None:  # type: ignore[no-untyped-def]
    """d6 3 against d4 3: a tie; d12s 5 and 5 tie again; 2 and 8: the failure."""
    result = rules.run("Action", dice=[3, 3, 5, 5, 2, 8], chance="common",
                       driver=ScriptedDriver(["roll", "roll"]))
    assert plain(result.results)["first_outcome"] == "tie"
    assert plain(result.results)["outcome"] == "failure"


def test_contested_action_several_parties(rules) -> None:  # type: ignore[no-untyped-def]
    """Three parties: 2, 4 and 6 votes (d6, d10, d12 & d4) showing 6, 9 and 9, 2: the last
    two tie at 9; their d12s 3 and 10."""
    result = rules.run("Contested Action", dice=[6, 9, 9, 2, 3, 10], parties=["ana", "bo", "cy"],
                       votes=[2, 4, 6], driver=ScriptedDriver(["roll"]))
    assert [str(x) for x in result.results["first_tie"]] == ["bo", "cy"]
    assert str(result.results["winner"]) == "cy"


def test_contested_action_odds_with_a_failure_option(rules) -> None:  # type: ignore[no-untyped-def]
    votes, failure = [1, 2], 1
    pools = [book_pool(v) for v in votes + [failure]]
    sides = [s for p in pools for s in p]
    expected: Counter = Counter()
    for faces in product(*[range(1, s + 1) for s in sides]):
        scores = list(faces)  # one die each here
        top = [n for n, s in zip(["a", "b", "failure"], scores) if s == max(scores)]
        for n in top:
            expected[n] += Fraction(1, math.prod(sides)) / len(top)
    odds = rules.odds("Contested Action", parties=["a", "b"], votes=votes, failure_votes=failure)
    assert {str(k): p for k, p in odds.results["winner"].items()} == dict(expected)


# ---------------------------------------------------------------- adversity


def test_fortunes_favor_with_one_point_takes_a_point_of_debt(rules) -> None:  # type: ignore[no-untyped-def]
    wren = rules.entity(str(EXAMPLES / "wren.yaml"))
    run = rules.run("Spend Adversity", as_=wren, option="fortunes_favor")
    assert run.results == {"paid": 1, "debt_taken": 1, "extra_votes": 1, "score_bonus": 0, "flaws_ignored": 0,
                           "edges_without_slot": 0}
    resources = run.to_dict()["state"]["actor"]["resources"]
    assert (resources["Adversity"], resources["Debt"]) == (0, 1)


def test_adversity_purchase_without_a_point_is_refused(cli) -> None:  # type: ignore[no-untyped-def]
    path = EXAMPLES / "brannock.yaml"
    before = path.read_text()
    out = cli("run", "mezzo", "Spend Adversity", "--with", "option=sudden_surge", "--as", str(path))
    assert out.code == 1
    assert "E0613" in out.stderr and "'Spend Adversity' requires" in out.stderr
    assert "Traceback" not in out.stderr
    assert path.read_text() == before


def test_unexpected_edge_only_without_a_fitting_trait(rules) -> None:  # type: ignore[no-untyped-def]
    wren = rules.entity(str(EXAMPLES / "wren.yaml"))
    with pytest.raises(RunebookError) as error:
        rules.run("Spend Adversity", as_=wren, option="unexpected_edge")
    assert "unexpected_edge" in error.value.diagnostics[0].message
    run = rules.run("Spend Adversity", as_=wren, option="unexpected_edge", no_fitting_trait=True)
    assert run.results["paid"] == 1 and run.results["debt_taken"] == 4


@pytest.mark.parametrize(("gained", "repaid", "adversity", "debt"), [(1, 1, 0, 1), (2, 2, 0, 0), (3, 2, 1, 0)])
def test_gaining_adversity_first_repays_debt(rules, gained: int, repaid: int, adversity: int, debt: int) -> None:  # type: ignore[no-untyped-def]
    """Brannock owes 2: each point gained pays one off before any is kept (§3.10)."""
    brannock = rules.entity(str(EXAMPLES / "brannock.yaml"))
    run = rules.run("Gain Adversity", as_=brannock, points=gained)
    assert run.results == {"repaid": repaid, "adversity": adversity, "debt": debt}


def test_a7_scope_perks_are_paid_from_every_vote_the_action_holds(rules) -> None:  # type: ignore[no-untyped-def]
    """A7: scope perks are bought after all votes are cast, from the action's total. Occasional
    (1) + a Vulnerability's vote (1) = 2 votes buy Local Coverage (2): no dice left, the action
    scores 1 against the failure's d4 showing 2. Occasional (1) + one law (+1) pays for it the
    same way."""
    vulnerable = rules.run("Action", dice=[2], vulnerable=1, coverage="local_coverage")
    assert vulnerable.results["votes_on_scope"] == 2
    assert [d.label for d in vulnerable.trace.dice()] == ["d4"]
    assert plain(vulnerable.results)["outcome"] == "failure"
    lawful = rules.run("Action", dice=[2], action_laws=1, coverage="local_coverage")
    assert [d.label for d in lawful.trace.dice()] == ["d4"]


def test_a7_scope_perks_cannot_take_the_action_below_no_votes(rules) -> None:  # type: ignore[no-untyped-def]
    """A7: the votes spent cannot take the action below 0. Common (2) with an Impaired Ability
    (a step off: 1 vote) cannot buy Local Coverage (2); laws beyond Law Limits (+5 held at +2)
    pay for no more than the two votes they give: Occasional (1) + 2 buys Extended and Local
    (2) plus one Lingering (1), not Regional and Lingering (4)."""
    with pytest.raises(RunebookError) as error:
        rules.run("Action", dice=[1, 1], chance="common", impaired=1, coverage="local_coverage")
    assert "scope_votes" in error.value.diagnostics[0].message
    paid = rules.run("Action", dice=[1], action_laws=5, coverage="local_coverage",
                     repercussions="lingering_consequences", driver=ScriptedDriver(["compromise"]))
    assert paid.results["votes_on_scope"] == 3
    with pytest.raises(RunebookError):
        rules.run("Action", dice=[1], action_laws=5, coverage="regional_coverage",
                  repercussions="lingering_consequences")


@pytest.mark.parametrize("options", [{"tiebreaker_die": "six_sided"}, {"dice_game": "sixes"}])
def test_a_contested_tie_rolls_the_table_s_tiebreaker_die(rules, options: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    """§3.5, §3.20: with the D6 variant's tiebreaker (or the whole D6 game) a tie is rolled off
    with d6s, in a contested action as in any conflict: d6s 3 and 3 tie, tiebreaker d6s 5 and 2."""
    run = rules.run("Contested Action", dice=[3, 3, 5, 2], options=options, parties=["ana", "bo"], votes=[2, 2],
                    driver=ScriptedDriver(["roll"]))
    assert [d.label for d in run.trace.dice()][2:] == ["d6", "d6"]
    assert str(run.results["winner"]) == "ana"


# ---------------------------------------------------------------- the D6 game (§3.20)


def test_d6_game_action_check_with_given_dice(rules) -> None:  # type: ignore[no-untyped-def]
    """§3.20: an action check is left to chance, so the D6 game rolls it. Common (2) + 5 votes
    = 7: multiplier 2, threshold 1; a first 1 bursts (taken): multiplier 3, the re-roll 4
    scores 12. The Occasional failure (1 vote) rolls a 5: 5. Every die is a d6."""
    run = rules.run("Action", dice=[1, 4, 5], options={"dice_game": "sixes"}, chance="common", votes=5,
                    driver=ScriptedDriver(["take"]))
    assert [d.label for d in run.trace.dice()] == ["d6", "d6", "d6"]
    assert plain(run.results)["outcome"] == "success"


def six_game_action_odds(action_votes: int, failure_votes: int) -> dict[str, Fraction]:
    """Both options scored by the D6 game (bursts taken); a tie is broken by d6s rolled until
    they differ: half to each."""
    odds: Counter = Counter()
    for (sa, pa), (sf, pf) in product(six_sided_score_odds(action_votes).items(),
                                      six_sided_score_odds(failure_votes).items()):
        if sa == sf:
            odds["success"] += pa * pf / 2
            odds["failure"] += pa * pf / 2
        else:
            odds["success" if sa > sf else "failure"] += pa * pf
    return dict(odds)


@pytest.mark.parametrize(("chance", "votes", "laws"), [("common", 5, 0), ("occasional", 0, 3)])
def test_d6_game_action_exact_odds(rules, chance: str, votes: int, laws: int) -> None:  # type: ignore[no-untyped-def]
    """The D6 game's odds of an action check, laws held at +2 by Law Limits."""
    odds = rules.odds("Action", answers={"burst": "take"}, options={"dice_game": "sixes"}, chance=chance,
                      votes=votes, action_laws=laws, failure_chance="common")
    assert odds.residual == 0
    got = {str(k): p for k, p in odds.results["outcome"].items()}
    assert got == six_game_action_odds(BASE[chance] + votes + min(laws, 2), 2)


def test_d6_game_contested_action(rules) -> None:  # type: ignore[no-untyped-def]
    """Each party rolls the D6 game: ana 2 votes (threshold 2) rolls 6: 6; bo 7 votes
    (multiplier 2, threshold 1) rolls 2: 4. Ana wins."""
    run = rules.run("Contested Action", dice=[6, 2], options={"dice_game": "sixes"}, parties=["ana", "bo"],
                    votes=[2, 7])
    assert [d.label for d in run.trace.dice()] == ["d6", "d6"]
    assert str(run.results["winner"]) == "ana"


def test_tempting_target(rules) -> None:  # type: ignore[no-untyped-def]
    """§3.10, Tempting Target: Wren (1 adversity, no debt) sets a harmful perk on Brannock (2
    debt) and takes the adversity point: she has 2, he owes 1."""
    wren = rules.entity(str(EXAMPLES / "wren.yaml"))
    brannock = rules.entity(str(EXAMPLES / "brannock.yaml"))
    run = rules.run("Tempting Target", as_=wren, against=brannock)
    state = run.to_dict()["state"]
    assert state["actor"]["resources"]["Adversity"] == 2
    assert state["target"]["resources"]["Debt"] == 1


def test_tempting_target_needs_a_target_in_debt(rules) -> None:  # type: ignore[no-untyped-def]
    """Only the Adversity Debt flaw tempts: Brannock setting a perk on Wren (no debt) gains
    nothing. Setting one on another in debt, his own point first pays off his own debt."""
    wren = rules.entity(str(EXAMPLES / "wren.yaml"))
    brannock = rules.entity(str(EXAMPLES / "brannock.yaml"))
    with pytest.raises(RunebookError) as error:
        rules.run("Tempting Target", as_=brannock, against=wren)
    assert "Debt" in error.value.diagnostics[0].message
    other = rules.entity(str(EXAMPLES / "brannock.yaml"))
    state = rules.run("Tempting Target", as_=brannock, against=other).to_dict()["state"]
    assert (state["actor"]["resources"]["Adversity"], state["actor"]["resources"]["Debt"]) == (0, 1)
    assert state["target"]["resources"]["Debt"] == 1


# ---------------------------------------------------------------- momentum on leaving (§3.13)


@pytest.mark.parametrize(("inputs", "spent", "gives"), [
    ({"use": "victory_narration", "points": 2}, 2, {"votes": 2}),
    ({"use": "claiming_stakes", "points": 1}, 1, {"major_perks": 1}),
    ({"use": "lasting_effects", "points": 1}, 1, {"transient_changes": 1}),
    ({"use": "boons", "points": 2}, 2, {"boon_uses": 3}),
    ({"use": "boons", "boon": "one_challenge", "points": 3}, 3, {"boon_uses": None}),
])
def test_momentum_spent_on_leaving_in_victory(rules, inputs: dict[str, Any], spent: int, gives: dict[str, Any]) -> None:  # type: ignore[no-untyped-def]
    """§3.13: the thief leaves in victory with 3 momentum: 1 vote, 1 major perk or 1 Transient
    Flaw added or removed per point; boons at the Edge Guide's prices (2 points: 3 uses; One
    Challenge 3, unlimited in it)."""
    thief = rules.entity(str(EXAMPLES / "thief.yaml"))
    run = rules.run("Spend Momentum", as_=thief, **inputs)
    assert run.to_dict()["state"]["actor"]["resources"]["Momentum"] == 3 - spent
    for name, value in gives.items():
        assert run.results[name] == value


def test_momentum_beyond_what_is_held_or_priced_is_refused(rules) -> None:  # type: ignore[no-untyped-def]
    thief = rules.entity(str(EXAMPLES / "thief.yaml"))
    with pytest.raises(RunebookError):
        rules.run("Spend Momentum", as_=thief, use="boons", boon="one_arc", points=5)
    with pytest.raises(RunebookError):
        rules.run("Spend Momentum", as_=thief, use="boons", boon="one_challenge", points=2)
    with pytest.raises(RunebookError) as error:
        rules.run("Spend Momentum", as_=thief, use="victory_narration", player="bo", claimed_by="ana")
    assert "resources_open_to" in error.value.diagnostics[0].message


@pytest.mark.parametrize(("momentum", "debt", "adversity_after", "debt_after", "momentum_after"), [
    (3, 0, 1, 0, 1), (4, 1, 1, 0, 0), (1, 0, 0, 0, 1),
])
def test_leaving_in_defeat_converts_momentum(rules, tmp_path: Path, momentum: int, debt: int, adversity_after: int,
                                             debt_after: int, momentum_after: int) -> None:
    """§3.13, A32, T18: a defeated challenger turns every 2 momentum into 1 adversity (an odd
    point stays); adversity gained first pays off debt (§3.10)."""
    path = tmp_path / "loser.yaml"
    path.write_text(f"name: Loser\nresources:\n  Momentum: {momentum}\n  Adversity: 0\n  Debt: {debt}\n")
    run = rules.run("Convert Momentum", as_=rules.entity(str(path)))
    resources = run.to_dict()["state"]["actor"]["resources"]
    assert (resources["Adversity"], resources["Debt"], resources["Momentum"]) == (adversity_after, debt_after,
                                                                                    momentum_after)
