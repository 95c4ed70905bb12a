"""Large valid content checks in time linear in its size (issue 15, item 9): a table's
levels share one tuple of names, and `runebook check` parses a content-only homebrew file
once. The figures are in benchmarks/README.md (`bench_check.py --table-rows`, `--mib`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from runebook.dsl.loader import load_texts
from runebook.dsl.model import LevelName, build_model


def test_the_levels_of_a_table_share_one_tuple_of_names() -> None:
    rows = "\n".join(f"  {i}: R{i}" for i in range(1, 301))
    model = build_model(load_texts({"big.rules": f"table Big\n{rows}\n"}))
    levels = [v for _, v in model.values if isinstance(v, LevelName) and v.group == "Big"]
    assert len(levels) == 300 and [v.rank for v in levels] == list(range(300))
    # One tuple for the whole group: a copy for each level was quadratic in memory (a
    # 100,000-row table took more than 20 GB).
    assert all(v.names is levels[0].names for v in levels)
    assert levels[0].names[-1] == "R300"


def test_mechanics_do_not_parse_a_content_only_homebrew_file_again(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """Mestezia's kinds name no checks: content alone needs no second parse for mechanics
    (check_paths has read it; for a 4 MiB file a parse takes seconds)."""
    import runebook.interpreter.cli.commands.check as check

    home = tmp_path / "brew.rules"
    home.write_text("extends mestezia\n\nQuick Jab\nCost: 1 CP\nTarget: Enemy\nThreshold: Target's Defense\n"
                    "Check: [Attack]\nResult 1: [Grade + 1] damage\nKeywords: *Melee Strike*\n", encoding="utf-8")
    parsed: list[str] = []
    original = check._parse

    def counting(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        parsed.append(Path(path).name)
        return original(path, *args, **kwargs)

    monkeypatch.setattr(check, "_parse", counting)
    run = cli("check", str(home))
    assert run.code == 0, run.stderr
    assert "checked 1 file, 1 entries" in run.stdout
    assert parsed == []


def test_a_homebrew_file_with_mechanics_is_still_checked_as_mechanics(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    home = tmp_path / "brew.rules"
    home.write_text("extends mestezia\n\nfunction twice(x) = x * 2\n\ncheck Doubled (n = 1)\n  result v = twice(n) + nothing\n",
                    encoding="utf-8")
    run = cli("check", str(home))
    assert run.code == 1 and "nothing" in run.stderr
