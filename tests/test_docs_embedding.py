"""The embedding guide (docs/embedding.md) is true: its Python blocks run, in order, in one
namespace, from the repository's root (their asserts are the outputs the guide states)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
GUIDE = REPO / "docs" / "embedding.md"
BLOCKS = re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)


def test_the_guide_has_its_examples() -> None:
    assert len(BLOCKS) >= 8


def test_every_block_runs_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    namespace: dict[str, object] = {"__name__": "embedding_guide"}
    for number, block in enumerate(BLOCKS, 1):
        try:
            exec(compile(block, f"{GUIDE.name} block {number}", "exec"), namespace)  # noqa: S102 - our own docs
        except Exception as error:  # noqa: BLE001 - say which block failed
            raise AssertionError(f"block {number} of {GUIDE.name} fails:\n{block}") from error
