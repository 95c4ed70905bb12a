"""held_value(entity, CONDITION, "parameter"[, keys...]): the value a held condition was
applied with (what Mestezia's stances read to end the stance held)."""

from __future__ import annotations

from pathlib import Path

import pytest

from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.rules import Rules
from runebook.dsl.loader import load_texts
from runebook.dsl.model import build_model

GAME = """\
levels Element: plain < oil < pitch

condition Burning (N, kind: Element = plain)
condition Sworn (to: text)

procedure Probe ()
  apply Burning(3, oil)
  apply Burning(5, pitch)
  result first_kind = held_value(actor, Burning, "kind")
  result pitch_n = held_value(actor, Burning, "N", pitch)
  result oil_n = held_value(actor, Burning, "N", oil)
  result plain_n = held_value(actor, Burning, "N", plain)
  result sworn = held_value(actor, Sworn, "to")

procedure Swear (lord: text)
  apply Sworn(lord)
  result to = held_value(actor, Sworn, "to")

procedure Wrong ()
  result x = held_value(actor, Burning, "heat")
"""


@pytest.fixture(scope="module")
def rules() -> Rules:
    return Rules(build_model(load_texts({"game.rules": GAME})))


@pytest.fixture
def hero(rules: Rules, tmp_path: Path):  # type: ignore[no-untyped-def]
    (tmp_path / "hero.yaml").write_text("name: Hero\n", encoding="utf-8")
    return rules.entity(str(tmp_path / "hero.yaml"))


def test_the_values_a_condition_was_applied_with(rules: Rules, hero) -> None:  # type: ignore[no-untyped-def]
    results = rules.run("Probe", as_=hero).results
    assert str(results["first_kind"]) == "oil"
    assert (results["pitch_n"], results["oil_n"], results["plain_n"]) == (5, 3, None)
    assert results["sworn"] is None
    assert rules.run("Swear", as_=hero, lord="the Queen").results == {"to": "the Queen"}


def test_a_parameter_the_condition_does_not_have(rules: Rules, hero) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as error:
        rules.run("Wrong", as_=hero)
    assert error.value.diagnostics[0].code == "E0705" and "heat" in str(error.value)
