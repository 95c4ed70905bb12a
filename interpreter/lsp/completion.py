"""What may be written at a place in a document: labels, names, keywords.

The place is read from the text around the cursor, not from the parse: the line being
typed is usually not valid yet.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import attrs

from runebook.dsl.vocabulary import KindSpec, Vocabulary, fold

__all__ = ["DECLARATION_KEYWORDS", "LABEL_LINE", "STATEMENT_KEYWORDS", "Place", "allowed_labels", "entry_kind",
           "place_at"]

#: Words that start a declaration at the left margin (docs/language.md).
DECLARATION_KEYWORDS = ("extends", "uses", "stats", "names", "kind", "option", "levels", "table", "function",
                        "derive", "check", "example", "procedure", "condition", "resource")
#: Words that start a line in a check or procedure body, and the condition lines.
STATEMENT_KEYWORDS = ("roll", "let", "result", "set", "input", "choose", "step", "label", "goto", "end",
                      "require", "spend", "gain", "apply", "remove", "reset", "pay", "impose", "lift", "do",
                      "use", "modifier", "becomes", "implies", "if", "else", "match", "case", "for each",
                      "repeat", "next", "stop", "test", "each", "count", "expect", "dice", "answer")

LABEL_LINE = re.compile(r"^\s*(?:[-*]\s*)?\**([A-Za-z][\w' ]*?)\**(?:\s+\d+\+?)?\s*:")
_HEADER = re.compile(r"^([^\[\(#:]+?)\s*(?:\[([^\]]*)\])?\s*(?:\(.*\))?\s*$")


@attrs.frozen
class Place:
    """What the cursor is in: ``bracket`` (an expression), ``label`` (the start of a line
    in an entry), ``body`` (a declaration's line past its keyword), ``game`` (the game an
    ``extends`` line names) or ``top`` (the margin)."""

    what: str
    #: For ``label``: the entry's header line number (0-based) and the labels above the cursor.
    header: int = -1
    labels_above: tuple[str, ...] = ()


def _in_bracket(before: str) -> bool:
    return before.rfind("[") > before.rfind("]")


def place_at(lines: Sequence[str], line: int, column: int) -> Place:
    """The place at 0-based ``line``, ``column`` of a document split into ``lines``."""
    text = lines[line] if line < len(lines) else ""
    before = text[:column]
    if _in_bracket(before):
        return Place("bracket")
    if ":" in before:
        return Place("value")
    # The paragraph the cursor is in: up to the blank line above.
    start = line
    while start > 0 and lines[start - 1].strip():
        start -= 1
    first = lines[start] if start < line else ""
    if start == line or not first.strip():
        return _own_line(text, column)
    if first.lstrip().startswith("#"):
        while start < line and lines[start].lstrip().startswith("#"):
            start += 1
        first = lines[start] if start < line else ""
        if start == line:
            return _own_line(text, column)
    word = first.split(maxsplit=1)[0] if first.split() else ""
    if first[:1].isspace() or word in DECLARATION_KEYWORDS:
        # At the margin after a declaration, the next declaration starts; indented, its body goes on.
        return Place("body" if text[:1].isspace() or column > 0 else "top")
    above = tuple(m.group(1).strip() for m in (LABEL_LINE.match(lines[i]) for i in range(start + 1, line)) if m)
    return Place("label", start, above)


def _own_line(text: str, column: int) -> Place:
    """The place on a line that starts its paragraph: past a declaration's keyword (``function
    half(x) = |``) the line goes on as code; before it, a declaration starts."""
    if text[:1].isspace():
        return Place("body")
    word = text.split(maxsplit=1)[0] if text.split() else ""
    if word in DECLARATION_KEYWORDS and column > len(word) and text[:column].strip() != "":
        return Place("game" if word == "extends" else "body")
    return Place("top")


def entry_kind(vocab: Vocabulary, header: str, labels: Sequence[str], values: str) -> KindSpec | None:
    """The kind an entry being written is read as: its ``[Type]``, a keyword in its
    lines that names a type, or the one kind the game has (as the checker decides)."""
    match = _HEADER.match(header.strip())
    types = match.group(2) if match else None
    if types:
        for word in re.split(r"[,\s]+", types):
            hit = vocab.types.get(fold(word))
            if hit:
                return vocab.kinds.get(fold(hit[0]))
        whole = vocab.types.get(fold(types))
        if whole:
            return vocab.kinds.get(fold(whole[0]))
    for word in re.findall(r"[A-Za-z][\w'-]*", values):
        hit = vocab.types.get(fold(word))
        if hit:
            return vocab.kinds.get(fold(hit[0]))
    if len(vocab.kinds) == 1:
        return next(iter(vocab.kinds.values()))
    return None


def allowed_labels(kind: KindSpec, labels_above: Sequence[str]) -> list[str]:
    """The labels that may start the next line of an entry of ``kind`` after
    ``labels_above``: not one already there that may appear only once, and a label that
    must follow another only right after it."""
    used: dict[str, int] = {}
    spec_of = {}
    for spec in kind.labels.values():
        for spelling in (spec.name, *spec.aliases):
            spec_of[fold(spelling)] = spec
    for label in labels_above:
        spec = spec_of.get(fold(label))
        if spec is not None:
            used[fold(spec.name)] = used.get(fold(spec.name), 0) + 1
    previous = spec_of.get(fold(labels_above[-1])) if labels_above else None
    allowed = []
    for spec in kind.labels.values():
        if used.get(fold(spec.name)) and not spec.repeatable and not spec.graded:
            continue
        if spec.after and (previous is None or fold(previous.name) != fold(spec.after)):
            continue
        allowed.append(spec.name)
    return allowed
