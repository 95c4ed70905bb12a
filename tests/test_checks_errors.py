"""Bad input to `runebook resolve` and `runebook odds GAME CHECK` on the built-in checks.

Every run must exit 1 with a diagnostic code on stderr, print nothing on stdout, and never
show a traceback. The stderr of each run is a syrupy snapshot (with the checkout's path
removed, so the snapshot holds on any machine).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

CASES = {
    "unknown check": ["resolve", "mezzo", "action chek", "--with", "action_votes=2", "--with", "failure_votes=1"],
    "unknown check (odds)": ["odds", "mettle", "chek", "--with", "pool=3", "--with", "difficulty=2"],
    "missing input": ["resolve", "mettle", "check", "--with", "pool=3"],
    "missing input (odds)": ["odds", "questworlds", "contest", "--with", "ability=7M"],
    "wrong type: rating symbol": ["resolve", "questworlds", "contest", "--with", "ability=7Q", "--with",
                                  "resistance=14"],
    "wrong type: number": ["resolve", "d10-pool", "action", "--with", "pool=many"],
    "unknown input": ["odds", "questworlds", "contest", "--with", "ability=7M", "--with", "resistance=14",
                      "--with", "bonus=3"],
    "impossible face": ["resolve", "d10-pool", "action", "--with", "pool=2", "--dice", "11,3"],
    "impossible face on the opposition's die": ["resolve", "questworlds", "contest", "--with", "ability=7M",
                                                "--with", "resistance=14", "--dice", "4,21"],
    "too few faces": ["resolve", "mettle", "check", "--with", "pool=3", "--with", "difficulty=2", "--dice", "1,2"],
    "too few faces for an explosion": ["resolve", "d10-pool", "action", "--with", "pool=2", "--dice", "10,3"],
    "too few faces for the failure option": ["resolve", "mezzo", "action check", "--with", "action_votes=2",
                                             "--with", "failure_votes=1", "--dice", "5"],
    "too many faces": ["resolve", "mettle", "check", "--with", "pool=2", "--with", "difficulty=2", "--dice",
                       "1,2,3"],
    "unknown option value": ["resolve", "mezzo", "action check", "--with", "action_votes=2", "--with",
                             "failure_votes=1", "--option", "restraint_cap=shorter", "--dice", "1,1"],
}


def _clean(text: str) -> str:
    return text.replace(str(REPO) + "/", "")


@pytest.mark.parametrize("args", list(CASES.values()), ids=list(CASES))
def test_bad_input_is_a_diagnostic(args: list[str], cli, snapshot) -> None:  # type: ignore[no-untyped-def]
    run = cli(*args)
    assert run.code == 1, run.show()
    assert run.stdout == ""
    assert "Traceback" not in run.stderr
    assert re.search(r"\bE0\d{3}\b", run.stderr), run.stderr
    assert _clean(run.stderr) == snapshot


def test_unknown_check_suggests_the_name(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli(*CASES["unknown check"])
    assert "E0601" in run.stderr and "did you mean 'Action Check'?" in run.stderr


def test_rating_with_a_symbol_the_game_does_not_use(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli(*CASES["wrong type: rating symbol"])
    assert "E0603" in run.stderr and "7Q" in run.stderr and "M or W" in run.stderr


def test_faces_point_at_the_die(cli) -> None:  # type: ignore[no-untyped-def]
    """The diagnostic for a bad face names the die it was for, with a caret on the rule line."""
    run = cli(*CASES["impossible face on the opposition's die"])
    assert "E0503" in run.stderr and "a d20 cannot show 21" in run.stderr and "face 2 of --dice" in run.stderr
    assert re.search(r"^ *\| *\^+$", run.stderr, re.M)
    few = cli(*CASES["too few faces for an explosion"])
    assert "E0501" in few.stderr and "explosion" in few.stderr
