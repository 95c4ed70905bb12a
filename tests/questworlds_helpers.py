"""What the QuestWorlds test files share: reading results by level name, stopping a run at a
choice point, and a character holding given states."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from runebook.interpreter.rules.entities import Held


def level_name(value: Any) -> Any:
    """A level as its name (other values as they are), for comparing with plain data."""
    return getattr(value, "name", value)


def by_name(results: dict[str, Any]) -> dict[str, Any]:
    return {k: level_name(v) for k, v in results.items()}


class Stop(Exception):
    """Raised by a driver to end a run once the state of interest was seen."""


def hero_maker(rules: Any, tmp_path: Path) -> Callable[..., Any]:
    """``make("Hurt State", ...)``: a character with Ability 15 holding those conditions."""

    def make(*conditions: str) -> Any:
        path = tmp_path / "hero.yaml"
        path.write_text("name: Test Hero\nstats:\n  Ability: 15\n", encoding="utf-8")
        return attrs.evolve(rules.entity(str(path)), conditions=[Held(c) for c in conditions])

    return make
