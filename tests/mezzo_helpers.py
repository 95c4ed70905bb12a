"""What several Mezzo test files share: the book's dice, computed independently of the ruleset,
and entity files written from a run's state."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

#: The die sizes of the step ladder, smallest first (spec §3.2).
LADDER = [4, 6, 8, 10, 12]


def book_pool(votes: int) -> list[int]:
    """§3.2: a d12 per five votes, then the die of what is left; no votes, no dice (A2)."""
    v = max(votes, 0)
    return [12] * (v // 5) + ([LADDER[v % 5 - 1]] if v % 5 else [])


def saved(tmp_path: Path, state: dict[str, Any], name: str) -> str:
    """An entity's state after a run, written as the entity file a GM would keep."""
    path = tmp_path / f"{name}.yaml"
    kept = {k: state[k] for k in ("name", "resources", "conditions") if state.get(k)}
    path.write_text(yaml.safe_dump(kept), encoding="utf-8")
    return str(path)
