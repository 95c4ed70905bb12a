"""The server's adapter over `check` (interpreter.lsp.analysis), in process.

Its diagnostics must be those `check` prints for the same file, and its block-by-block
parse, reused across versions of a document (blocks moved to other lines are shifted, not
parsed again), must give the very AST `parse_rules` gives — spans included.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import pytest

from runebook.dsl.loader import check_paths
from runebook.dsl.parser import parse_rules
from runebook.dsl.source import Source, Span
from runebook.interpreter.lsp.analysis import _parse_text, analyze

REPO = Path(__file__).resolve().parent.parent
#: One mechanics file and one content file per game, and the homebrew folder.
FILES = [REPO / "rulesets" / name for name in (
    "mestezia/mechanics.rules", "mestezia/powers.rules", "mestezia/combat.rules", "mestezia/homebrew/powers.rules",
    "mezzo/mechanics.rules", "mezzo/perks.rules", "mettle/actions.rules", "d10-pool/mechanics.rules",
    "questworlds/contests.rules", "questworlds/abilities.rules")]


def _spans(node: Any) -> list[Span]:
    """Every span in an AST, in a fixed order (AST equality ignores spans)."""
    if isinstance(node, Span):
        return [node]
    if isinstance(node, tuple | list):
        return [s for n in node for s in _spans(n)]
    if attrs.has(type(node)) and not isinstance(node, Source):
        return [s for f in attrs.fields(type(node)) for s in _spans(getattr(node, f.name))]
    return []


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(REPO / "rulesets")))
def test_reused_and_moved_blocks_give_the_ast_parse_rules_gives(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    name = f"/virtual/{path.parent.name}/{path.name}"
    lines = text.split("\n")
    middle = len(lines) // 2
    # Versions an editor might send: lines added at the top, a comment in the middle, then the file.
    for version in ("# a\n# b\n\n" + text, "\n".join(lines[:middle] + ["# note"] + lines[middle:]), text):
        _parse_text(name, version)
    source, rules, diagnostics = _parse_text(name, text)
    expected = parse_rules(Source(name, text))
    assert rules == expected
    assert _spans(rules) == _spans(expected)
    assert diagnostics == ()


BROKEN = {
    "misspelt.rules": "extends mestezia\n\nFrost Lance [Attack]\nCost: 2 CP\nThreshold: Target's Defense\n"
                      "Check: [Aim + Strenght]\nReslt 2: [Grade + 3] Cold damage\nKeywords: *Evocation Cold*\n",
    "syntax.rules": "extends mestezia\n\nBroken [Attack]\nCheck: [Aim + (Strength]\nKeywords: *Cold*\n\n"
                    "  stray indented line\n\nFine [Attack]\nKeywords: *Cold*\nCheck: [Aim +]\n",
    "mechanics.rules": "extends mettle\n\ncheck Odd (pool: number = 2)\n  roll dice = pool d6\n"
                       "  result top = highest(dice) + missing_name\n",
    "unknown-game.rules": "extends nowhere\n\nThing\nNote: x\n",
    # An example whose expectation fails when it runs (E0637), and one whose dice do not fit.
    "examples.rules": "check Hit (bonus = 0)\n  roll die = 1d6\n  result total = die + bonus\n\n"
                      "example Hit (bonus = 1)\n  expect total >= 3\n\nexample Hit ()\n  dice 7\n  expect total == 7\n",
    # A block with a syntax error still reports its other mistakes (read without the broken part).
    "recovered.rules": "extends mestezia\n\nFrost Lance [Atack]\nCost: 2 CP\nCheck: [Aim + Strength\n"
                       "Keywords: *Cold*\n\nIce Wall [Attack]\nCost: 2 CP\nCost: 3 CP\nCheck: [Aim + (Aim * 2]\n"
                       "Keywords: *Cold*\n",
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_diagnostics_are_those_check_prints(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text(BROKEN[name], encoding="utf-8")
    # `check` adds the mechanics problems in its command; the adapter does the same steps.
    from runebook.interpreter.cli.commands.check import _mechanics_problems

    report = check_paths([str(path)])
    report.diagnostics.extend(_mechanics_problems([str(path)], report.diagnostics))
    expected = sorted((d.code, d.message, d.help, d.span) for d in report.diagnostics)
    got = sorted((d.code, d.message, d.help, d.span) for d in analyze(path, BROKEN[name]).diagnostics)
    assert expected, "the case must have problems"
    assert got == expected


def test_a_folder_document_is_read_with_its_unsaved_siblings(tmp_path: Path) -> None:
    (tmp_path / "vocabulary.rules").write_text("stats Grit\n\nkind Move\n  Roll: expression\n", encoding="utf-8")
    moves = tmp_path / "moves.rules"
    moves.write_text("Shove\nRoll: [Grit + Nerve]\n", encoding="utf-8")
    assert [d.code for d in analyze(moves, moves.read_text()).diagnostics] == ["E0207"]
    # The vocabulary open in the editor, not saved, declares Nerve.
    overlay = {str((tmp_path / "vocabulary.rules").resolve()): "stats Grit, Nerve\n\nkind Move\n  Roll: expression\n"}
    assert analyze(moves, moves.read_text(), overlay).diagnostics == []


def test_the_mechanics_gate_is_the_one_check_uses() -> None:
    from runebook.interpreter.cli.commands.check import _MECHANICS
    from runebook.interpreter.lsp.analysis import MECHANICS

    assert (MECHANICS.pattern, MECHANICS.flags) == (_MECHANICS.pattern, _MECHANICS.flags)


def _check_prints(path: Path) -> list[tuple]:
    from runebook.interpreter.cli.commands.check import _mechanics_problems

    report = check_paths([str(path)])
    report.diagnostics.extend(_mechanics_problems([str(path)], report.diagnostics))
    return sorted((d.code, d.message, d.help, d.span) for d in report.diagnostics)


def test_a_broken_sibling_neither_leaks_its_diagnostics_nor_hides_the_documents(tmp_path: Path) -> None:
    (tmp_path / "other.rules").write_text("stats Grit\n\nstats Grit\n", encoding="utf-8")
    mine = tmp_path / "mine.rules"
    mine.write_text("check Dare (bonus = 0)\n  roll dice = 2d6\n  result total = sum(dice) + bonsu\n", encoding="utf-8")
    found = analyze(mine, mine.read_text())
    assert all(d.source is None or d.source.name == str(mine) for d in found.diagnostics)
    assert [d.code for d in found.diagnostics] == ["E0207"]
    assert sorted((d.code, d.message, d.help, d.span) for d in found.diagnostics) == _check_prints(mine)


def test_a_half_typed_line_reports_its_syntax_error_alone(tmp_path: Path) -> None:
    # Two kinds: a line that did not read as a declaration is also an entry of no known kind.
    vocabulary = "stats Grit\n\nkind Move\n  Roll: expression\n\nkind Gear\n  Cost: text\n"
    (tmp_path / "vocabulary.rules").write_text(vocabulary, encoding="utf-8")
    mine = tmp_path / "moves.rules"
    mine.write_text("check\n", encoding="utf-8")
    found = analyze(mine, mine.read_text())
    assert [d.code for d in found.diagnostics] == ["E0115"]
    assert sorted((d.code, d.message, d.help, d.span) for d in found.diagnostics) == _check_prints(mine)


def test_a_byte_order_mark_and_crlf_are_read_as_check_reads_them(tmp_path: Path) -> None:
    (tmp_path / "vocabulary.rules").write_bytes(b"\xef\xbb\xbfstats Grit\r\n\r\nfunction twice(x) = x * 2\r\n")
    mine = tmp_path / "moves.rules"
    text = "check Dare (bonus = 0)\r\n  result total = twice(bonus) + Grit\r\n"
    mine.write_text(text, encoding="utf-8", newline="")
    assert _check_prints(mine) == []
    assert analyze(mine, text).diagnostics == []
    assert analyze(mine, "\ufeff" + text).diagnostics == []


def test_a_misspelt_stat_in_a_check_suggests_the_stat(tmp_path: Path) -> None:
    """The suggestion is what the editor's quick fix offers (and what `check` prints)."""
    path = tmp_path / "dare.rules"
    text = "extends mestezia\n\ncheck Dare (bonus = 0)\n  result total = Strenght + bonus\n"
    path.write_text(text, encoding="utf-8")
    (found,) = analyze(path, text).diagnostics
    assert (found.code, found.help) == ("E0207", "did you mean 'Strength'?")
    assert _check_prints(path) == [(found.code, found.message, found.help, found.span)]


def test_an_entry_its_kinds_check_refuses_is_shown_as_check_shows_it(tmp_path: Path) -> None:
    """E0232 (interpreter.rules.kind_checks): in a game's own file and in a homebrew file."""
    from tests.test_kind_checks import GAME

    folder = tmp_path / "gadgets"
    folder.mkdir()
    game = folder / "game.rules"
    game.write_text(GAME + "\nClock [Gadget]\nCost: 25 gold\nParts: 3 parts\n", encoding="utf-8")
    found = analyze(game, game.read_text())
    assert [(d.code, d.span.line) for d in found.diagnostics] == [("E0232", 17)]
    assert sorted((d.code, d.message, d.help, d.span) for d in found.diagnostics) == _check_prints(game)
    homebrew = REPO / "tests" / "cases" / "mezzo" / "storm_blade.rules"
    found = analyze(homebrew, homebrew.read_text(encoding="utf-8"))
    assert [d.code for d in found.diagnostics] == ["E0232"] and "Storm Blade" in found.diagnostics[0].message
    assert sorted((d.code, d.message, d.help, d.span) for d in found.diagnostics) == _check_prints(homebrew)
