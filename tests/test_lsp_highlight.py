"""Highlighting: the Pygments lexer and the VS Code TextMate grammar on every shipped file.

The TextMate grammar is run by a small engine written here (TextMate's rules: per line, the
earliest match wins, a rule's ``end`` before its inner patterns on a tie, ``begin``/``end``
rules stay open across lines), with Python's ``re`` standing in for Oniguruma: the grammar
keeps to the syntax both share, which the first test checks by compiling every pattern.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

pygments = pytest.importorskip("pygments")
from pygments.token import Comment, Error, Keyword, Name, Number  # noqa: E402

from runebook.interpreter.lsp.lexer import RunebookLexer  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
SHIPPED = sorted((REPO / "rulesets").rglob("*.rules"))
GRAMMAR = json.loads((REPO / "editors" / "vscode" / "syntaxes" / "runebook.tmLanguage.json").read_text("utf-8"))


# ---------------------------------------------------------------- Pygments


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(REPO / "rulesets")))
def test_lexer_reads_every_shipped_file_without_error_tokens(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    tokens = list(RunebookLexer().get_tokens(text))
    assert not [value for kind, value in tokens if kind in Error]
    assert "".join(value for _, value in tokens).rstrip("\n") == text.rstrip("\n")


def test_lexer_tokens_of_a_power_and_a_check() -> None:
    power = (REPO / "rulesets" / "mestezia" / "powers.rules").read_text(encoding="utf-8")
    tokens = [(kind, value) for kind, value in RunebookLexer().get_tokens(power) if value.strip()]
    start = tokens.index((Name.Class, "Berserker Charge"))
    assert tokens[start + 1:start + 9] == [
        (Name.Attribute, "Cost"), (pygments.token.Punctuation, ":"), (pygments.token.Punctuation, "["),
        (Name, "Weapon"), (pygments.token.Operator, "+"), (Number, "1"), (pygments.token.Punctuation, "]"),
        (pygments.token.Text, " CP"),
    ]
    check = "# a comment\ncheck Roll (pool = 3)\n  roll dice = pool d10\n  result top = highest(dice)\n"
    tokens = [(kind, value) for kind, value in RunebookLexer().get_tokens(check) if value.strip()]
    assert tokens[:3] == [(Comment.Single, "# a comment"), (Keyword.Declaration, "check"), (Name, "Roll")]
    assert (Keyword, "roll") in tokens and (Number, "d10") in tokens and (Keyword, "result") in tokens


def test_lexer_is_registered_for_rules_files() -> None:
    entry = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]["entry-points"]["pygments.lexers"]
    module, _, name = entry["runebook"].partition(":")
    assert (module, name) == (RunebookLexer.__module__, RunebookLexer.__name__)
    assert "*.rules" in RunebookLexer.filenames and "runebook" in RunebookLexer.aliases


# ---------------------------------------------------------------- TextMate


def _patterns(rule: dict[str, Any]) -> list[dict[str, Any]]:
    """A rule's inner patterns with includes resolved (a pattern group is flattened)."""
    found = []
    for item in rule.get("patterns", []):
        if "include" in item:
            item = GRAMMAR["repository"][item["include"].lstrip("#")]
        if "match" in item or "begin" in item:
            found.append(item)
        else:
            found.extend(_patterns(item))
    return found


def tokenize(lines: list[str]) -> list[list[tuple[int, int, tuple[str, ...]]]]:
    """Each line's tokens as (start, end, scopes), scopes outermost first."""
    stack: list[tuple[dict[str, Any], re.Pattern[str] | None, str]] = [(GRAMMAR, None, GRAMMAR["scopeName"])]
    result = []
    for line in lines:
        tokens: list[tuple[int, int, tuple[str, ...]]] = []
        pos = 0
        while True:
            rule, end, _ = stack[-1]
            scopes = tuple(s for _, _, s in stack if s)
            best: tuple[int, int, Any, re.Match[str]] | None = None
            if end is not None:
                match = end.search(line, pos)
                if match:
                    best = (match.start(), 0, "end", match)
            for order, item in enumerate(_patterns(rule), start=1):
                match = re.compile(item.get("match") or item["begin"]).search(line, pos)
                if match and (best is None or match.start() < best[0]):
                    best = (match.start(), order, item, match)
            if best is None:
                if pos < len(line):
                    tokens.append((pos, len(line), scopes))
                break
            start, _, item, match = best
            if start > pos:
                tokens.append((pos, start, scopes))
            if item == "end":
                stack.pop()
                if match.end() > match.start():
                    tokens.append((match.start(), match.end(), scopes))
            elif "match" in item:
                tokens.append((match.start(), match.end(), (*scopes, item["name"])))
            else:
                stack.append((item, re.compile(item["end"]), item.get("name", "")))
                inner = (*scopes, item.get("name", ""))
                if match.end() > match.start():
                    tokens.append((match.start(), match.end(), inner))
                for group, capture in item.get("beginCaptures", {}).items():
                    if match.group(int(group)):
                        tokens.append((match.start(int(group)), match.end(int(group)), (*inner, capture["name"])))
            if match.end() == pos and item != "end" and "match" in item:
                break  # an empty match would loop
            pos = max(match.end(), pos)
            if pos >= len(line) and (stack[-1][1] is None or not stack[-1][1].search(line, pos)):
                break
        # A rule ending at `$` closes with its line.
        while stack[-1][1] is not None and stack[-1][1].pattern.endswith("$"):
            stack.pop()
        result.append(tokens)
    return result


def _all_regexes(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node[k] for k in ("match", "begin", "end") if k in node]
        return found + [r for value in node.values() for r in _all_regexes(value)]
    if isinstance(node, list):
        return [r for value in node for r in _all_regexes(value)]
    return []


def test_grammar_patterns_compile_and_use_only_shared_syntax() -> None:
    regexes = _all_regexes(GRAMMAR)
    assert len(regexes) > 20
    for pattern in regexes:
        re.compile(pattern)
        # Python-only or Oniguruma-only syntax: named groups, inline flags, \h, \G, \z, possessives.
        assert not re.search(r"\(\?P|\(\?[a-z]|\\[hGz]|(?<!\\)[+*?]\+", pattern), pattern


LINE_SCOPES = ("comment.line.number-sign.runebook", "meta.declaration.runebook", "meta.label-line.runebook",
               "meta.item.runebook", "meta.statement.runebook", "meta.entry-header.runebook")


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(REPO / "rulesets")))
def test_grammar_tokenizes_every_line_of_every_shipped_file(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").split("\n")
    for number, (line, tokens) in enumerate(zip(lines, tokenize(lines), strict=True), start=1):
        if not line.strip():
            continue
        assert tokens, f"{path.name}:{number}: no tokens"
        covered = sorted((s, e) for s, e, _ in tokens)
        assert covered[0][0] == 0 and max(e for _, e in covered) == len(line), f"{path.name}:{number}"
        assert any(scope in LINE_SCOPES for _, _, scopes in tokens for scope in scopes), f"{path.name}:{number}"
        bad = [line[s:e] for s, e, scopes in tokens if any(x.startswith("invalid") for x in scopes)]
        assert not bad, f"{path.name}:{number}: invalid scope on {bad}"


def test_grammar_scopes_of_an_entry_and_a_check_and_an_invalid_bracket() -> None:
    lines = ["Berserker Charge [Attack]", "Cost: [Weapon + 1] CP", "check Roll (pool = 3)", "  roll dice = pool d10",
             "Note: a stray ] here"]
    tokens = tokenize(lines)

    def scopes_of(line: int, text: str) -> tuple[str, ...]:
        start = lines[line].index(text)
        return max((scopes for s, e, scopes in tokens[line] if s <= start < e), key=len)

    assert "entity.name.type.entry.runebook" in scopes_of(0, "Berserker")
    assert "entity.name.tag.types.runebook" in scopes_of(0, "[Attack]")
    assert "entity.other.attribute-name.label.runebook" in scopes_of(1, "Cost")
    assert "variable.other.runebook" in scopes_of(1, "Weapon")
    assert "meta.bracket.runebook" in scopes_of(1, "Weapon")
    assert "keyword.other.declaration.runebook" in scopes_of(2, "check")
    assert "keyword.control.runebook" in scopes_of(3, "roll")
    assert "constant.numeric.dice.runebook" in scopes_of(3, "d10")
    assert "invalid.illegal.unmatched-bracket.runebook" in scopes_of(4, "]")


def test_vscode_extension_folder_is_consistent() -> None:
    folder = REPO / "editors" / "vscode"
    package = json.loads((folder / "package.json").read_text("utf-8"))
    (language,) = package["contributes"]["languages"]
    (grammar,) = package["contributes"]["grammars"]
    assert language["extensions"] == [".rules"] and grammar["language"] == language["id"]
    assert grammar["scopeName"] == GRAMMAR["scopeName"]
    assert json.loads((folder / grammar["path"]).read_text("utf-8")) == GRAMMAR
    configuration = json.loads((folder / language["configuration"]).read_text("utf-8"))
    assert configuration["comments"]["lineComment"] == "#"
    client = (folder / package["main"]).read_text("utf-8")
    assert '["runebook", "lsp"]' in client and "vscode-languageclient" in package["dependencies"]
    settings = package["contributes"]["configuration"]["properties"]
    assert settings["runebook.server.command"]["default"] == ["runebook", "lsp"]
