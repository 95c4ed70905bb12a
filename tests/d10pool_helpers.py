"""What the d10 pool's test files share: the example sheets, results with levels by name,
the codes of a refusal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from runebook.dsl.diagnostics import RunebookError

EXAMPLES = Path(__file__).resolve().parent.parent / "rulesets" / "d10-pool" / "examples"


def plain(value: Any) -> Any:
    """Levels by name, tuples as lists, so results compare with literals."""
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return getattr(value, "name", value)


def refused(call) -> list[str]:  # type: ignore[no-untyped-def]
    """The codes of the diagnostics ``call()`` is refused with."""
    with pytest.raises(RunebookError) as error:
        call()
    return [d.code for d in error.value.diagnostics]


def sheet(rules, name: str):  # type: ignore[no-untyped-def]
    """An example sheet (rulesets/d10-pool/examples/NAME.yaml) loaded for ``rules``."""
    return rules.entity(str(EXAMPLES / f"{name}.yaml"))


def sheets(rules, *names: str) -> list:  # type: ignore[no-untyped-def]
    return [sheet(rules, n) for n in names]
