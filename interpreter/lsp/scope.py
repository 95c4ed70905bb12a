"""The names a declaration binds for its own lines: its inputs and what its lines make.

A check, procedure, function or condition has inputs (``check Dare (pool = 3, bonus:
number = 0)``) and its lines bind more (``roll``, ``let``, ``show``, ``result``, ``choose``,
``for each NAME in``, ``do NAME(...) as LABEL``). These names shadow the game's own while the
declaration runs. They are read from the text, not the parse: the declaration under the
cursor is the one being typed, and usually does not parse yet.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import attrs

__all__ = ["Local", "Scope", "call_at", "params", "scope_at", "word_at"]

#: Declarations whose inputs and lines bind names of their own.
_SCOPED = ("check", "procedure", "function", "condition")
_BINDING = re.compile(r"^\s*(roll|let|show|result|choose)\s+([A-Za-z_]\w*)")
_FOR_EACH = re.compile(r"^\s*for\s+each\s+([A-Za-z_]\w*)\s+in\b")
_DO_AS = re.compile(r"^\s*do\s+.*\bas\s+([A-Za-z_]\w*)\s*$")
_PARAM = re.compile(r"\s*([A-Za-z_]\w*)")
_WORD = re.compile(r"[A-Za-z_]\w*")


@attrs.frozen
class Local:
    """A name bound in a declaration: what binds it, where (1-based), and the binding line."""

    name: str
    kind: str  # "input", "roll", "let", "show", "result", "choose", "for each", "do"
    line: int
    column: int
    text: str

    @property
    def end_column(self) -> int:
        return self.column + len(self.name)


@attrs.frozen
class Scope:
    """A declaration's lines (1-based, first and last) and the names it binds, in order."""

    keyword: str
    header: str
    first: int
    last: int
    names: tuple[Local, ...]

    def find(self, name: str) -> Local | None:
        """The first binding of ``name``, spelt as written (``result grade = Grade[hits]``
        binds ``grade``; ``Grade`` there is still the game's table)."""
        return next((n for n in self.names if n.name == name), None)


def _is_margin(text: str) -> bool:
    """A line that starts a block: at column 1, not blank, not a comment."""
    return bool(text.strip()) and not text[:1].isspace() and not text.startswith("#")


def params(header: str, line: int = 1) -> list[Local]:
    """The inputs between the first parentheses of a header line (``line`` is its number)."""
    start = header.find("(")
    if start < 0:
        return []
    found, depth, part_start = [], 0, start + 1
    for at in range(start, len(header) + 1):
        char = header[at] if at < len(header) else ")"
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        if (char == "," and depth == 1) or depth == 0:
            match = _PARAM.match(header, part_start)
            if match and match.end() <= at:
                found.append(Local(match.group(1), "input", line, match.start(1) + 1, header.strip()))
            part_start = at + 1
        if depth == 0:
            break
    return found


def scope_at(lines: Sequence[str], line: int) -> Scope | None:
    """The check, procedure, function or condition whose lines hold 0-based ``line``."""
    if line >= len(lines):
        line = len(lines) - 1
    start = line
    while start >= 0 and not _is_margin(lines[start]):
        start -= 1
    if start < 0:
        return None
    header = lines[start]
    keyword = header.split(maxsplit=1)[0]
    if keyword not in _SCOPED:
        return None
    end = start + 1
    while end < len(lines) and not _is_margin(lines[end]) and not lines[end].startswith("#"):
        end += 1
    while end - 1 > start and not lines[end - 1].strip():
        end -= 1
    names = params(header, start + 1)
    for number in range(start + 1, end):
        text = lines[number]
        for pattern, kind in ((_BINDING, None), (_FOR_EACH, "for each"), (_DO_AS, "do")):
            match = pattern.match(text)
            if match:
                group = match.lastindex or 1
                names.append(Local(match.group(group), kind or match.group(1), number + 1,
                                   match.start(group) + 1, text.strip()))
                break
    return Scope(keyword, header.strip(), start + 1, end, tuple(names))


def word_at(text: str, column: int) -> tuple[str, int, int] | None:
    """The identifier on ``text`` around 0-based ``column``, with its 1-based start and end."""
    for match in _WORD.finditer(text):
        if match.start() <= column <= match.end():
            return match.group(0), match.start() + 1, match.end() + 1
    return None


def call_at(before: str) -> tuple[str, int] | None:
    """The call the text ``before`` the cursor is inside: the text before its unclosed
    '(' (the callee's name is at its end) and how many arguments precede the cursor's."""
    depth, commas = 0, 0
    for at in range(len(before) - 1, -1, -1):
        char = before[at]
        if char in ")]}":
            depth += 1
        elif char in "([{":
            if depth == 0:
                return (before[:at], commas) if char == "(" else None
            depth -= 1
        elif char == "," and depth == 0:
            commas += 1
    return None
