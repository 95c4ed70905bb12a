"""Using a Mestezia power end to end: cost, check, threshold, graded results, state."""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

import interpreter
from dsl.diagnostics import RunebookError
from rulesets import RULESETS_DIR

EXAMPLES = RULESETS_DIR / "mestezia" / "examples"
ITZEL, INQUISITOR = str(EXAMPLES / "itzel.yaml"), str(EXAMPLES / "inquisitor.yaml")


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("mestezia")


def test_berserker_charge_from_the_book(cli) -> None:  # type: ignore[no-untyped-def]
    """MZ-W04: weapon cost 3, damage 12, +6 against Defense 12; 6, 7, 9 are all hits: High,
    12 + 3 = 15 damage, and [Weapon + 1] = 4 CP paid."""
    run = cli("run", "mestezia", "Berserker Charge", "--as", ITZEL, "--against", INQUISITOR,
              "--dice", "6,7,9", "--json")
    assert run.code == 0, run.stderr
    payload = json.loads(run.stdout)
    assert payload["results"] == {"damage": 15, "grade": "High"}
    assert payload["state"]["actor"]["resources"]["CP"] == 6 - 4
    assert payload["dice"] == [6, 7, 9]


def test_berserker_charge_odds_match_an_enumeration(rules) -> None:  # type: ignore[no-untyped-def]
    odds = rules.odds("Berserker Charge", as_=rules.entity(ITZEL), against=rules.entity(INQUISITOR))
    grades, damage = {}, {}
    for faces in product(range(1, 11), repeat=3):
        hits = sum(f + 6 >= 12 for f in faces)
        name = ["Fail", "Low", "Medium", "High"][min(hits, 3)]
        grades[name] = grades.get(name, Fraction(0)) + Fraction(1, 1000)
        dealt = 12 + min(hits, 3) if hits else 0
        damage[dealt] = damage.get(dealt, Fraction(0)) + Fraction(1, 1000)
    assert {str(k): v for k, v in odds.results["grade"].items()} == grades
    assert dict(odds.results["damage"]) == damage
    assert odds.residual == 0


def test_a_cost_that_cannot_be_paid(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    poor = tmp_path / "poor.yaml"
    poor.write_text(Path(ITZEL).read_text().replace("CP: 6", "CP: 3"))
    itzel = rules.entity(str(poor))
    with pytest.raises(RunebookError) as error:
        rules.run("Berserker Charge", as_=itzel, against=rules.entity(INQUISITOR), dice=[6, 7, 9])
    assert [d.code for d in error.value.diagnostics] == ["E0706"]
    assert itzel.resources["CP"] == 3  # unchanged


def test_a_power_the_character_does_not_have(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    novice = tmp_path / "novice.yaml"
    novice.write_text("name: Novice\nstats:\n  Attack: 1\n  Weapon Cost: 1\n  Weapon Damage: 4\n")
    with pytest.raises(RunebookError) as error:
        rules.run("Berserker Charge", as_=rules.entity(str(novice)), against=rules.entity(INQUISITOR), dice=[6, 7, 9])
    assert [d.code for d in error.value.diagnostics] == ["E0613"]


def test_an_unknown_power_has_a_suggestion(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "mestezia", "Berserker Charg", "--as", ITZEL, "--against", INQUISITOR, "--dice", "6,7,9")
    assert run.code == 1 and "Traceback" not in run.stderr
    assert "did you mean" in run.stderr and "Berserker Charge" in run.stderr
