"""`import runebook` is the public API: every name it lists resolves, and importing it is cheap."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import runebook

REPO = Path(__file__).resolve().parent.parent


def test_every_listed_name_resolves_to_what_the_implementation_defines() -> None:
    from runebook.dsl.diagnostics import RunebookError
    from runebook.interpreter.rules.model import Rules

    for name in runebook.__all__:
        assert getattr(runebook, name) is not None, name
    assert runebook.Ruleset is Rules and runebook.RunebookError is RunebookError
    assert sorted(runebook._LAZY) == sorted(n for n in runebook.__all__ if n != "__version__")


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        runebook.Rolll  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as error:
        assert "Rolll" in str(error)
    else:
        raise AssertionError("runebook.Rolll resolved")


def test_importing_runebook_loads_nothing_until_a_name_is_used() -> None:
    code = "import sys, runebook; print(sorted(m for m in sys.modules if m.startswith('runebook.')))"
    shown = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "[]"


def test_the_public_api_from_the_top() -> None:
    assert runebook.roll("4d6kh3", dice=[6, 2, 5, 1]).total == 13
    rules = runebook.load("mestezia")
    assert isinstance(rules, runebook.Ruleset)
    assert rules.resolve("skill check", threshold=11, modifier=3, dice=[8, 6, 1]).results["successes"] == 1


def test_entities_are_given_as_entities_or_paths_and_anything_else_is_named() -> None:
    """``as_``/``against`` take an entity or a character file's path; a run's state dict
    handed back (an easy slip for an embedder) is a TypeError saying what they take."""
    rules = runebook.load("mettle")
    examples = REPO / "rulesets" / "mettle" / "examples"
    chief, kirin = examples / "bandit-chief.yaml", examples / "kirin.yaml"
    by_path = rules.run("Attack", as_=str(chief), against=kirin, seed=3)
    by_entity = rules.run("Attack", as_=rules.entity(str(chief)), against=rules.entity(str(kirin)), seed=3)
    assert by_path.results == by_entity.results
    with pytest.raises(TypeError, match="as_ takes an entity .* not dict"):
        rules.run("Attack", as_=by_path.state, against=kirin, seed=3)
    with pytest.raises(TypeError, match="against takes an entity"):
        rules.odds("Attack", as_=chief, against=42)
