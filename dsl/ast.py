"""Nodes of a .rules file: content entries in book notation and declarations.

Frozen attrs classes; equality ignores spans, so two parses of equivalent text compare
equal. ``str()`` prints canonical notation, and ``parse(str(node)) == node``.
"""

from __future__ import annotations

import attrs

from dsl.expr_ast import Expr
from dsl.source import Span

__all__ = [
    "Block",
    "Bracket",
    "Emphasis",
    "Entry",
    "ExtendsDecl",
    "Header",
    "Item",
    "KindDecl",
    "LabelDecl",
    "NamesDecl",
    "Part",
    "Phrase",
    "Property",
    "RulesFile",
    "StatsDecl",
    "Text",
    "Value",
]

_span = attrs.field(default=None, eq=False, repr=False, kw_only=True)
INDENT = "  "


# ---------------------------------------------------------------- values


@attrs.frozen
class Text:
    """Plain text inside a value."""

    text: str
    span: Span | None = _span

    def __str__(self) -> str:
        return self.text


@attrs.frozen
class Bracket:
    """``[expression]`` inside a value: a number the rules compute."""

    expr: Expr
    span: Span | None = _span

    def __str__(self) -> str:
        return f"[{self.expr}]"


@attrs.frozen
class Emphasis:
    """``*text*`` or ``**text**``; keyword lists are written this way."""

    parts: tuple[Text | Bracket, ...]
    strong: bool = False
    span: Span | None = _span

    def __str__(self) -> str:
        mark = "**" if self.strong else "*"
        return mark + "".join(map(str, self.parts)) + mark

    @property
    def text(self) -> str:
        return "".join(map(str, self.parts))


Part = Text | Bracket | Emphasis


@attrs.frozen
class Value:
    """The value of a label line: text with brackets and emphasis."""

    parts: tuple[Part, ...]
    span: Span | None = _span

    def __str__(self) -> str:
        return "".join(map(str, self.parts))

    def brackets(self) -> list[Bracket]:
        found: list[Bracket] = []
        for part in self.parts:
            if isinstance(part, Bracket):
                found.append(part)
            elif isinstance(part, Emphasis):
                found.extend(p for p in part.parts if isinstance(p, Bracket))
        return found


# ---------------------------------------------------------------- content


@attrs.frozen
class Item:
    """A bullet: ``- **Name** [Types]`` (named, with sub-properties), ``- **Name:** text``
    (an inline option) or ``- text`` (plain)."""

    style: str  # "named" | "option" | "plain"
    name: str | None = None
    types: str | None = None
    value: Value | None = None
    paragraphs: tuple[Value, ...] = ()
    properties: tuple[Property, ...] = ()
    items: tuple[Item, ...] = ()
    after: tuple[Value, ...] = ()
    span: Span | None = _span
    types_span: Span | None = _span

    def lines(self, depth: int) -> list[str]:
        pad = INDENT * depth
        if self.style == "named":
            head = f"{pad}- **{self.name}**" + (f" [{self.types}]" if self.types is not None else "")
        elif self.style == "option":
            head = f"{pad}- **{self.name}:**" + (f" {self.value}" if self.value else "")
        else:
            head = f"{pad}- {self.value}"
        out = [head]
        out += [f"{pad}{INDENT}{p}" for p in self.paragraphs]
        for prop in self.properties:
            out += prop.lines(depth + 1, bullet=True)
        for item in self.items:
            out += item.lines(depth + 1)
        out += [f"{pad}{INDENT}{p}" for p in self.after]
        return out


@attrs.frozen
class Property:
    """``Label N: value``, its continuation paragraphs and the bullets under it."""

    label: str
    grade: str | None
    value: Value | None
    paragraphs: tuple[Value, ...] = ()
    items: tuple[Item, ...] = ()
    after: tuple[Value, ...] = ()
    span: Span | None = _span
    label_span: Span | None = _span

    @property
    def heading(self) -> str:
        return self.label + (f" {self.grade}" if self.grade else "")

    def lines(self, depth: int = 0, *, bullet: bool = False) -> list[str]:
        pad = INDENT * depth
        value = f" {self.value}" if self.value else ""
        if bullet:
            out = [f"{pad}- *{self.heading}:*{value}"]
            inner = depth + 1
        else:
            out = [f"{self.heading}:{value}"]
            inner = 0
        out += [f"{INDENT * inner if bullet else ''}{p}" for p in self.paragraphs]
        for item in self.items:
            out += item.lines(inner)
        out += [f"{INDENT * inner if bullet else ''}{p}" for p in self.after]
        return out


@attrs.frozen
class Header:
    name: str
    types: str | None = None
    source: str | None = None
    span: Span | None = _span
    types_span: Span | None = _span

    def __str__(self) -> str:
        out = self.name
        if self.types is not None:
            out += f" [{self.types}]"
        if self.source is not None:
            out += f" ({self.source})"
        return out


@attrs.frozen
class Entry:
    """A content entry: a power, a trait, an action, a table..."""

    header: Header
    properties: tuple[Property, ...] = ()
    span: Span | None = _span

    @property
    def name(self) -> str:
        return self.header.name

    def __str__(self) -> str:
        lines = [str(self.header)]
        for prop in self.properties:
            lines += prop.lines()
        return "\n".join(lines)


# ---------------------------------------------------------------- declarations


@attrs.frozen
class Phrase:
    """A name in a declaration: one or more words."""

    text: str
    span: Span | None = _span

    def __str__(self) -> str:
        return self.text


def _phrase_lines(keyword: str, names: tuple[Phrase, ...]) -> str:
    return f"{keyword} {', '.join(map(str, names))}" if names else keyword


@attrs.frozen
class ExtendsDecl:
    """``extends GAME``: this file adds content to a built-in game."""

    game: Phrase
    span: Span | None = _span

    def __str__(self) -> str:
        return f"extends {self.game}"


@attrs.frozen
class StatsDecl:
    names: tuple[Phrase, ...]
    span: Span | None = _span

    def __str__(self) -> str:
        return _phrase_lines("stats", self.names)


@attrs.frozen
class NamesDecl:
    names: tuple[Phrase, ...]
    span: Span | None = _span

    def __str__(self) -> str:
        return _phrase_lines("names", self.names)


@attrs.frozen
class LabelDecl:
    """``Label: type, flag, ...`` inside a kind."""

    label: str
    spec: tuple[Phrase, ...]
    span: Span | None = _span

    def __str__(self) -> str:
        return f"{self.label}: {', '.join(map(str, self.spec))}"


@attrs.frozen
class KindDecl:
    """``kind NAME``: an entry kind, the types that select it and its labels."""

    name: Phrase
    types: tuple[Phrase, ...] = ()
    labels: tuple[LabelDecl, ...] = ()
    span: Span | None = _span

    def __str__(self) -> str:
        lines = [f"kind {self.name}"]
        if self.types:
            lines.append(f"{INDENT}types {', '.join(map(str, self.types))}")
        lines += [f"{INDENT}{label}" for label in self.labels]
        return "\n".join(lines)


Block = Entry | ExtendsDecl | StatsDecl | NamesDecl | KindDecl


@attrs.frozen
class RulesFile:
    """A parsed .rules file."""

    blocks: tuple[Block, ...]
    path: str = attrs.field(default="", eq=False)

    def __str__(self) -> str:
        return "\n\n".join(map(str, self.blocks)) + ("\n" if self.blocks else "")
