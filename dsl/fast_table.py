"""A large table read line by line, without the parser (issue 15: a 100,000-row table).

A table whose rows are all of the plainest forms — ``N: value``, ``N+: value``,
``N-M: value``, where the value is a whole number or a name of plain words — is built here
with a regular expression per line, giving exactly the nodes and spans the parser gives
(tests/test_fast_table.py compares the two). Anything else in the block (a comment, an
expression, a name key, a word the grammar reserves, a tab) makes :func:`read_table` return
None, and the parser reads the block as always.
"""

from __future__ import annotations

import re

from runebook.dsl import ast
from runebook.dsl import expr_ast as ex
from runebook.dsl.source import Span

__all__ = ["read_table"]

_WORD = r"[A-Za-z_][A-Za-z0-9_]*"
_HEADER = re.compile(rf"table[ ]+({_WORD}(?:[ ]+{_WORD})*)[ ]*")
_ROW = re.compile(rf"([ ]+)(\d{{1,18}})(?:(\+)|(-)(\d{{1,18}}))?:[ ]+(?:(\d{{1,18}})|({_WORD}(?:[ ]+{_WORD})*))[ ]*")
_WORDS = re.compile(_WORD)
#: Words the grammar reads as keywords or literals somewhere: such a value goes to the parser.
_RESERVED = frozenset("""
against and answer apply as becomes case chance check choose condition derive dice do each else end example expect extends false for from function
gain goto if implies impose in keywords kind let levels lift match modifier names next none not on option or pay
procedure refused remove repeat require reset resource result roll set show spend stats step stop table to true types uses
with
""".split())


def _plain(word: str) -> bool:
    """A word the parser reads as a plain name: not reserved, not a die (``d6``, ``dF``)."""
    if word.casefold() in _RESERVED:
        return False
    return not (word[0] in "dD" and len(word) > 1 and (word[1].isdigit() or word[1:] == "F"))


def _name(text: str, line: int, start: int) -> ex.Name | None:
    """The words of ``text`` (starting at column ``start``) as a name, or None."""
    words = [(text, 0)] if " " not in text else [(m.group(), m.start()) for m in _WORDS.finditer(text)]
    if not all(_plain(w) for w, _ in words):
        return None
    first, last = words[0], words[-1]
    return ex.Name(tuple(w for w, _ in words),
                   span=Span(line, start + first[1], line, start + last[1] + len(last[0])))


def read_table(text: str, first: int, start: int, end: int) -> ast.TableDecl | None:
    """The table block ``text[start:end]`` (its first line is line ``first``), or None when
    it is not a table of plain rows."""
    lines = text[start:end].split("\n")
    header = _HEADER.fullmatch(lines[0])
    if header is None or len(lines) < 2:
        return None
    name = _name(header.group(1), first, header.start(1) + 1)
    if name is None:
        return None
    rows = []
    for offset, line in enumerate(lines[1:], start=1):
        match = _ROW.fullmatch(line)
        if match is None:
            return None
        number = first + offset
        low = int(match.group(2))
        # The key's span covers what is written, as the parser's (dsl.builder) does.
        col = match.start(2) + 1
        if match.group(3) is not None:
            key = ast.RowKey("open", low, span=Span(number, col, number, match.end(3) + 1))
        elif match.group(4) is not None:
            key = ast.RowKey("range", low, int(match.group(5)), span=Span(number, col, number, match.end(5) + 1))
        else:
            key = ast.RowKey("exact", low, span=Span(number, col, number, match.end(2) + 1))
        if match.group(6) is not None:
            col = match.start(6) + 1
            value: ex.Expr | None = ex.Number(int(match.group(6)), span=Span(number, col, number, col + len(match.group(6))))
        else:
            value = _name(match.group(7), number, match.start(7) + 1)
            if value is None:
                return None
        head = key.span if key.span is not None else value.span
        assert head is not None and value.span is not None
        rows.append(ast.TableRow(key, value, span=Span(head.line, head.column, number, value.span.end_column)))
    assert name.span is not None
    last = rows[-1].span
    assert last is not None
    return ast.TableDecl(name, tuple(rows), span=Span(first, name.span.column, last.end_line, last.end_column))
