"""Names declared in a ruleset's files, where they are, and where they are used.

A :class:`Symbol` is one declaration (an entry, a kind, a stat, a check, a procedure, a
table...) with the place its name is written. Uses are found by name, the way the language
matches names: case-insensitively, with spaces, hyphens and underscores alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import attrs

from runebook.dsl import ast
from runebook.dsl.source import Source, Span
from runebook.dsl.vocabulary import fold

__all__ = ["Occurrence", "Symbol", "code_regions", "collect_symbols", "name_pattern", "occurrences", "symbol_at"]

#: Declaration classes whose ``name`` is an expression (a ``Name``), with the word shown for them.
_NAMED: dict[type, str] = {
    ast.CheckDecl: "check",
    ast.ProcedureDecl: "procedure",
    ast.TableDecl: "table",
    ast.FunctionDecl: "function",
    ast.DeriveDecl: "derive",
    ast.ResourceDecl: "resource",
    ast.ConditionDecl: "condition",
}


@attrs.frozen
class Symbol:
    """One declared name: what it is, where its name is written, and what to show for it."""

    name: str
    kind: str  # "entry", "kind", "stat", "name", "option", "levels", "level", or a _NAMED word
    path: str
    line: int  # 1-based
    column: int  # 1-based, where the name starts
    #: The declaration's first line (its signature) and the comment lines just above it.
    signature: str = ""
    doc: str = ""
    #: For an entry: the kind it was read as.
    detail: str = ""
    #: The whole declaration, first and last line (1-based), for the outline.
    end_line: int = 0

    @property
    def end_column(self) -> int:
        return self.column + len(self.name)


@attrs.frozen
class Occurrence:
    """A place a name is written: file, 1-based line, 1-based start and end columns."""

    path: str
    line: int
    column: int
    end_column: int


def _comment_above(source: Source, line: int) -> str:
    lines: list[str] = []
    number = line - 1
    while number >= 1:
        text = source.line_text(number).strip()
        if not text.startswith("#"):
            break
        lines.append(text.lstrip("#").strip())
        number -= 1
    return "\n".join(reversed(lines))


def _place(source: Source, name: str, span: Span | None) -> tuple[int, int]:
    """Where ``name`` is written on the span's first line (falls back to the span's start)."""
    if span is None:
        return 1, 1
    text = source.line_text(span.line)
    match = name_pattern([name]).search(text)
    return span.line, (match.start() + 1) if match else span.column


def _symbol(source: Source, name: str, kind: str, span: Span | None, block_span: Span | None,
            detail: str = "") -> Symbol:
    line, column = _place(source, name, span)
    first = block_span.line if block_span is not None else line
    return Symbol(name, kind, source.name, line, column, source.line_text(first).strip(),
                  _comment_above(source, first), detail,
                  block_span.end_line if block_span is not None else line)


def _block_symbols(source: Source, block: object, kinds: dict[int, str]) -> Iterator[Symbol]:
    if isinstance(block, ast.Entry):
        yield _symbol(source, block.name, "entry", block.span, block.span, kinds.get(id(block), ""))
    elif isinstance(block, ast.KindDecl):
        yield _symbol(source, block.name.text, "kind", block.name.span, block.span)
    elif isinstance(block, ast.StatsDecl | ast.NamesDecl):
        word = "stat" if isinstance(block, ast.StatsDecl) else "name"
        for phrase in block.names:
            yield _symbol(source, phrase.text.strip(), word, phrase.span, phrase.span)
    elif isinstance(block, ast.OptionDecl):
        yield _symbol(source, block.name.text, "option", block.name.span, block.span)
    elif isinstance(block, ast.LevelsDecl):
        yield _symbol(source, block.name.text, "levels", block.name.span, block.span)
    elif type(block) in _NAMED:
        named: Any = block
        yield _symbol(source, str(named.name), _NAMED[type(block)], getattr(named.name, "span", None), named.span)


def collect_symbols(files: Iterable[tuple[Source, ast.RulesFile]],
                    entry_kinds: dict[int, str] | None = None) -> list[Symbol]:
    """Every declaration in ``files``, in file order; ``entry_kinds`` maps ``id(entry)`` to
    the kind the checker read it as."""
    kinds = entry_kinds or {}
    found: list[Symbol] = []
    values: list[Symbol] = []
    for source, rules in files:
        for block in rules.blocks:
            found.extend(_block_symbols(source, block, kinds))
            values.extend(_level_symbols(source, block))
    # Last: where a level is spelt like a declared name, the declaration is the one meant.
    return found + values


def _level_symbols(source: Source, block: object) -> Iterator[Symbol]:
    """The levels of a ``levels`` line and the values of an ``option``, as ``level`` symbols
    whose detail says whose they are."""
    if isinstance(block, ast.LevelsDecl):
        owner, phrases = f"of {block.name.text}", block.levels
    elif isinstance(block, ast.OptionDecl):
        owner, phrases = f"a value of option {block.name.text}", block.choices
    else:
        return
    for phrase in phrases:
        line = phrase.span.line if phrase.span is not None else 1
        start = phrase.span.column if phrase.span is not None else 1
        yield Symbol(phrase.text.strip(), "level", source.name, line, start, source.line_text(line).strip(),
                     "", owner, line)


def name_pattern(names: Sequence[str]) -> re.Pattern[str]:
    """A pattern matching any of ``names`` as whole words, longest first, with spaces,
    hyphens and underscores between words interchangeable and case ignored."""
    parts = []
    for name in sorted(set(names), key=len, reverse=True):
        words = [w for w in re.split(r"[\s_\-]+", name.strip()) if w]
        if words:
            parts.append(r"[\s_\-]*".join(re.escape(w) for w in words))
    if not parts:
        return re.compile(r"(?!x)x")
    return re.compile(r"(?<![\w'])(?:" + "|".join(parts) + r")(?!\w)", re.IGNORECASE)


_LABEL = re.compile(r"^\s*(?:[-*]\s*)?\**([A-Za-z][\w' ]*?)\**(?:\s+\d+\+?)?\s*:")
_BRACKET = re.compile(r"\[[^\[\]]*\]")
_STRING = re.compile(r'"[^"\n]*"')


def _code_regions(line: str, in_entry: bool, header: bool, label_is_code: Any) -> list[tuple[int, int]]:
    """The parts of a line where a name is code, not prose (0-based, end exclusive)."""
    if line.lstrip().startswith("#"):
        return []
    if not in_entry:
        # Mechanics: everything but string literals and a trailing comment.
        end = len(line)
        quoted = [(m.start(), m.end()) for m in _STRING.finditer(line)]
        hash_at = next((i for i, c in enumerate(line) if c == "#" and not any(a <= i < b for a, b in quoted)), -1)
        if hash_at >= 0:
            end = hash_at
        regions, start = [], 0
        for a, b in quoted:
            if a >= end:
                break
            regions.append((start, a))
            start = b
        regions.append((start, end))
        return regions
    regions = [(m.start(), m.end()) for m in _BRACKET.finditer(line)]
    if header:
        cut = min([i for i in (line.find("["), line.find("(")) if i >= 0] + [len(line)])
        regions.append((0, cut))
        return regions
    label = _LABEL.match(line)
    if label and label_is_code(label.group(1).strip()):
        regions.append((label.end(), len(line)))
    return regions


def code_regions(line: str) -> list[tuple[int, int]]:
    """The parts of a mechanics line where names are code, not a comment or a string
    (0-based, end exclusive)."""
    return _code_regions(line, False, False, None)


def occurrences(name: str, files: Iterable[tuple[Source, ast.RulesFile]], code_label: Any = None) -> list[Occurrence]:
    """Every place ``name`` is written as code in ``files``: in mechanics lines (not in
    comments or strings), in an entry's name, brackets, and the values of labels
    ``code_label(entry, label)`` says hold expressions or names."""
    pattern = name_pattern([name])
    found: list[Occurrence] = []
    for source, rules in files:
        lines = source.text.split("\n")
        owner: dict[int, ast.Entry | None] = {}
        for block in rules.blocks:
            span = getattr(block, "span", None)
            if span is None:
                continue
            is_entry = isinstance(block, ast.Entry)
            last = span.end_line
            if isinstance(block, ast.Entry) and block.properties:
                last = max(last, max((p.span.end_line for p in block.properties if p.span), default=last))
            for number in range(span.line, last + 1):
                owner[number] = block if is_entry else None
        for number, text in enumerate(lines, start=1):
            if number not in owner:
                continue
            entry = owner[number]
            header = entry is not None and entry.span is not None and entry.span.line == number
            regions = _code_regions(text, entry is not None, header,
                                    lambda label, e=entry: bool(code_label and code_label(e, label)))
            for start, end in regions:
                for match in pattern.finditer(text, start, end):
                    found.append(Occurrence(source.name, number, match.start() + 1, match.end() + 1))
    return sorted(set(found), key=lambda o: (o.path, o.line, o.column))


def symbol_at(text: str, column: int, symbols: Sequence[Symbol]) -> tuple[Symbol, int, int] | None:
    """The declared name written on line ``text`` around 1-based ``column``, preferring the
    longest name there; with its start and end columns."""
    if not symbols:
        return None
    by_key: dict[str, Symbol] = {}
    for symbol in symbols:
        by_key.setdefault(fold(symbol.name), symbol)
    for match in name_pattern([s.name for s in symbols]).finditer(text):
        if match.start() + 1 <= column <= match.end() + 1:
            hit = by_key.get(fold(match.group(0)))
            if hit is not None:
                return hit, match.start() + 1, match.end() + 1
    return None
