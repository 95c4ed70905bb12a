"""QuestWorlds community resources: penalties to a resource from a contest's outcome (SRD
8.2.2, spec §3.16, AMB-30). A simple defeat gives the Consequences of Defeat state (T3); a
long contest, the second worst state among the defeated group's members; the state's penalty
is hurt -3, impaired -6, injured -9, and dying or dead -9 with a narrative flag."""

from __future__ import annotations

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.rules.procedures import CallbackDriver
from questworlds_helpers import by_name

#: T3 (SRD "Consequences of Defeat"): the state a defeat of each degree gives.
T3 = {"marginal": "hurt", "minor": "impaired", "major": "injured", "complete": "dying"}
#: The penalties of the states of adversity (§1.11), dying and dead read as -9 (AMB-30).
PENALTY = {"unharmed": 0, "dazed": 0, "hurt": -3, "impaired": -6, "injured": -9, "dying": -9, "dead": -9}
NAME = "resource penalty"


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("questworlds")


@pytest.mark.parametrize("degree", list(T3))
def test_a_simple_defeat_gives_the_consequence_of_its_degree(rules, degree: str) -> None:  # type: ignore[no-untyped-def]
    results = by_name(rules.resolve(NAME, outcome="defeat", degree=degree).results)
    state = T3[degree]
    assert results == {"state": state, "penalty": PENALTY[state], "dying": state == "dying"}


@pytest.mark.parametrize("outcome", ["victory", "tie"])
def test_no_defeat_no_penalty(rules, outcome: str) -> None:  # type: ignore[no-untyped-def]
    results = by_name(rules.resolve(NAME, outcome=outcome, degree="complete").results)
    assert results == {"state": "unharmed", "penalty": 0, "dying": False}


@pytest.mark.parametrize(("harms", "state"), [
    (["injured"], "injured"),                       # one defeated member: theirs
    (["hurt", "dying"], "hurt"),                    # of two, the less severe (AMB-29's reading)
    (["impaired", "dead", "injured"], "injured"),   # the second worst of three
    (["dying", "dying", "hurt"], "dying"),          # two equally worst: the second is as bad
    (["dazed", "unharmed"], "unharmed"),            # no state of adversity: nothing
])
def test_a_long_contest_gives_the_second_worst_state(rules, harms: list[str], state: str) -> None:  # type: ignore[no-untyped-def]
    results = by_name(rules.resolve(NAME, harms=harms).results)
    assert results == {"state": state, "penalty": PENALTY[state], "dying": state in ("dying", "dead")}


def test_a_long_contests_consequences_feed_it(rules) -> None:  # type: ignore[no-untyped-def]
    """A group scored contest's `consequences` list is what the check takes. Round 1: member 1
    (15) wins 5 vs 16 (minor: 2 points); member 2 (12) fumbles against a critical (complete:
    5 against, out, a difference of 5: injured). Round 2: member 1 fumbles against a critical
    (5 against, out, 2 to 5: a difference of 3, impaired). Of the two, the less severe."""
    run = rules.run("group scored contest", abilities=[15, 12], resistances=[14, 14],
                    dice=[5, 16, 20, 1, 20, 1], driver=CallbackDriver(lambda point: "normal"))
    consequences = [c.name for c in run.results["consequences"]]
    assert consequences == ["impaired", "injured"]
    results = by_name(rules.resolve(NAME, harms=consequences).results)
    assert results == {"state": "impaired", "penalty": -6, "dying": False}


def test_from_the_command_line(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("resolve", "questworlds", NAME, "--with", "harms=hurt,dying,injured", "--quiet")
    assert run.code == 0 and "state: injured" in run.stdout and "penalty: -9" in run.stdout


def test_a_degree_that_is_not_one_is_refused(rules) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError, match="E0613"):
        rules.resolve(NAME, degree="victory")
