"""Every built-in ruleset checks clean, round-trips, and each entry's AST is a snapshot."""

from __future__ import annotations

from pathlib import Path

import pytest

from runebook.dsl import ast
from runebook.dsl.dump import dump
from runebook.dsl.loader import builtin_games, check_paths
from runebook.dsl.parser import parse_rules
from runebook.dsl.source import Source
from runebook.rulesets import RULESETS_DIR

FILES = sorted(RULESETS_DIR.rglob("*.rules"))


def _parse(path: Path) -> ast.RulesFile:
    return parse_rules(Source(str(path.relative_to(RULESETS_DIR)), path.read_text(encoding="utf-8")))


def _entries() -> list[tuple[str, str]]:
    found = []
    for path in FILES:
        for block in _parse(path).blocks:
            if isinstance(block, ast.Entry):
                found.append((str(path.relative_to(RULESETS_DIR)), block.name))
    return found


ENTRIES = _entries()


def test_all_five_games_are_built_in() -> None:
    assert sorted(p.name for p in builtin_games().values()) == [
        "d10-pool", "mestezia", "mettle", "mezzo", "questworlds",
    ]


#: The README's command that checks every built-in game, run here as it is written (from the
#: repository's root) and held to more than its exit code: test_docs_commands leaves it to
#: this test rather than checking the five games twice (7 s of the suite).
README_CHECK = "runebook check rulesets/"


def test_built_in_rulesets_check_clean(cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    readme = (RULESETS_DIR.parent / "README.md").read_text(encoding="utf-8")
    assert f"{README_CHECK}  " in readme or f"{README_CHECK}\n" in readme
    monkeypatch.chdir(RULESETS_DIR.parent)
    run = cli(*README_CHECK.split()[1:])
    assert run.code == 0, run.stderr
    assert run.stderr == ""
    assert run.stdout.rstrip().endswith(": no errors"), run.stdout


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(RULESETS_DIR)) for p in FILES])
def test_canonical_printing_round_trips(path: Path) -> None:
    parsed = _parse(path)
    printed = str(parsed)
    again = parse_rules(Source("printed", printed))
    assert again == parsed
    assert str(again) == printed  # printing is a fixed point


@pytest.mark.parametrize("file, name", ENTRIES, ids=[f"{f}::{n}" for f, n in ENTRIES])
def test_entry_ast(file: str, name: str, snapshot) -> None:  # type: ignore[no-untyped-def]
    rules = _parse(RULESETS_DIR / file)
    entry = next(b for b in rules.blocks if isinstance(b, ast.Entry) and b.name == name)
    assert dump(entry) == snapshot


def test_every_ruleset_has_a_readme_with_attribution() -> None:
    for folder in builtin_games().values():
        readme = folder / "README.md"
        assert readme.is_file(), folder
        text = readme.read_text(encoding="utf-8").lower()
        assert "## options" in text
        assert any(word in text for word in ("attribution", "licence", "license", "credit")), folder


def test_each_ruleset_reports_its_entries() -> None:
    report = check_paths([str(RULESETS_DIR)])
    assert report.entries == len(ENTRIES)
    assert report.diagnostics == []
