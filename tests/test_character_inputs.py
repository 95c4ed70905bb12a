"""`character` inputs: a procedure's input typed as a character takes an entity (a character
file on the command line), `check` refuses anything else passed to it, and an entity given as
an input takes part by a copy, as the actor and the target do. Before, METTLE's `Strike
(attacker, defender)` took a number and failed deep inside (E0405), and an entity given as an
input was changed by the run, and by every world of exact odds (whose results then depended
on how often they had been computed)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

import runebook

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "rulesets" / "mettle" / "examples"
KIRIN, BANDIT = str(EXAMPLES / "kirin.yaml"), str(EXAMPLES / "bandit.yaml")


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return runebook.load("mettle")


def test_a_number_for_a_character_is_refused_at_the_flag(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "mettle", "Strike", "--with", "attacker=3", "--with", f"defender={BANDIT}")
    assert run.code == 1
    assert "--with:1:10: E0603 input 'attacker' expects a character, got '3'" in run.stderr
    assert "help: give a character file: --with attacker=FILE.yaml" in run.stderr


def test_strike_runs_on_its_own_as_the_attack_runs_it(cli) -> None:  # type: ignore[no-untyped-def]
    dice = ["--dice", "6,6,6", "--answer", "combat_twist=accept_failure", "--json"]
    alone = cli("run", "mettle", "Strike", "--with", f"attacker={KIRIN}", "--with", f"defender={BANDIT}", *dice)
    attack = cli("run", "mettle", "Attack", "--as", KIRIN, "--against", BANDIT, *dice)
    assert alone.code == 0, alone.stderr
    assert attack.code == 0, attack.stderr
    mine, theirs = json.loads(alone.stdout), json.loads(attack.stdout)
    for name in ("hit", "score", "edge", "damage"):
        assert mine["results"][name] == theirs["results"][name], name
    # The defender's state after the blow, by the input's name, as the target's is.
    assert mine["state"]["defender"]["resources"] == theirs["state"]["target"]["resources"]


def test_an_entity_given_as_an_input_is_not_changed_and_odds_repeat(rules) -> None:  # type: ignore[no-untyped-def]
    kirin, bandit = rules.entity(KIRIN), rules.entity(BANDIT)
    before = (dict(kirin.resources), dict(bandit.resources))
    first = rules.odds("Strike", attacker=kirin, defender=bandit)
    second = rules.odds("Strike", attacker=kirin, defender=bandit)
    assert (dict(kirin.resources), dict(bandit.resources)) == before
    assert first.to_dict()["results"] == second.to_dict()["results"]
    assert first.to_dict()["inputs"] == {"attacker": "Kirin", "defender": "Bandit"}
    # The same blow as the Attack command strikes it, and every chance sums to 1.
    attack = rules.odds("Attack", as_=kirin, against=bandit)
    for name in ("hit", "damage"):
        assert dict(first.results[name].items()) == dict(attack.results[name].items()), name
    assert sum(first.results["defender_mettle"].values(), Fraction(0)) == 1
    rules.run("Strike", attacker=kirin, defender=bandit, dice=[6, 6, 6], choose=lambda point: point.options[0])
    assert (dict(kirin.resources), dict(bandit.resources)) == before


def test_check_refuses_a_number_passed_to_a_character_input(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    homebrew = tmp_path / "wild.rules"
    homebrew.write_text("extends mettle\n\nprocedure Wild Swing ()\n  do Strike(3, target) as blow\n"
                        "  result hit = blow.hit\n", encoding="utf-8")
    run = cli("check", str(homebrew))
    assert run.code == 1
    assert "wild.rules:4:13: E0603" in run.stderr and "attacker" in run.stderr and "a character" in run.stderr
