"""Nesting a procedure's lines into blocks by their indentation (the offside rule).

The grammar reads a procedure body as a flat run of lines, each after its indentation. A
line that opens a block (``if``, ``else``, ``match``, ``case``, ``for each``, ``repeat``)
owns the lines below it that are indented further; ``else if`` / ``else`` lines continue
the ``if`` at their own indentation, ``case`` / ``else`` lines sit inside a ``match``. Every
problem (a block with no body, an ``else`` with no ``if``, a line indented for no block) is
reported, and the block is built from what could be read, so one mistake hides no others.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from runebook.dsl import ast
from runebook.dsl.diagnostics import DiagnosticSink
from runebook.dsl.expr_ast import Expr
from runebook.dsl.source import Span

__all__ = ["Opener", "nest"]


@attrs.frozen
class Opener:
    """A line that opens a block, as the grammar read it (before nesting)."""

    word: str  # "if" | "else" | "match" | "case" | "for" | "repeat"
    expr: Expr | None = None
    name: str | None = None
    patterns: tuple[ast.RowKey, ...] = ()
    span: Span | None = None


def nest(lines: Sequence[tuple[int, Any, Span | None]], sink: DiagnosticSink) -> tuple[Any, ...]:
    """The statements of a body from ``(indentation width, line, where the line starts)``."""
    reader = _Reader([(width, line) for width, line, _ in lines], sink)
    reader.starts = {id(line): start for _, line, start in lines}
    body = reader.body(-1)
    while reader.index < len(reader.lines):  # lines left of the first one's indentation
        width, line = reader.lines[reader.index]
        reader.problem("E0106", line, help="the lines of a procedure start at one indentation")
        reader.index += 1
        body += reader.body(width - 1) if reader.index < len(reader.lines) else ()
    return body


class _Reader:
    def __init__(self, lines: list[tuple[int, Any]], sink: DiagnosticSink) -> None:
        self.lines = lines
        self.sink = sink
        self.index = 0
        self.starts: dict[int, Span | None] = {}

    def problem(self, code: str, line: Any, **fields: Any) -> None:
        span = self.starts.get(id(line)) or getattr(line, "span", None)
        self.sink.error(code, Span.point(span.line, span.column) if span is not None else None, **fields)

    def body(self, parent: int) -> tuple[Any, ...]:
        """The lines indented further than ``parent``, at the first one's indentation."""
        if self.index >= len(self.lines) or self.lines[self.index][0] <= parent:
            return ()
        width = self.lines[self.index][0]
        out: list[Any] = []
        while self.index < len(self.lines):
            here, line = self.lines[self.index]
            if here < width:
                break
            if here > width:
                self.problem("E0106", line, help="only the lines of a block ('if', 'for each', ...) go further in")
                self.index += 1
                self.body(here - 1)  # read (and drop) what hangs under it
                continue
            self.index += 1
            statement = self.statement(width, line)
            if statement is not None:
                out.append(statement)
        return tuple(out)

    def block(self, width: int, opener: Opener) -> tuple[Any, ...]:
        inner = self.body(width)
        if not inner:
            self.problem("E0116", opener, word=_shown(opener),
                         help="indent the lines it covers below it")
        return inner

    def statement(self, width: int, line: Any) -> Any:
        if not isinstance(line, Opener):
            return line
        if line.word == "if":
            return self.if_block(width, line)
        if line.word == "match":
            return self.match_block(width, line)
        if line.word == "for":
            return ast.ForEachBlock(line.name or "", line.expr, self.block(width, line), span=line.span)  # type: ignore[arg-type]
        if line.word == "repeat":
            return ast.RepeatBlock(self.block(width, line), span=line.span)
        # `else` or `case` where no `if` / `match` is open: read its body all the same.
        opener = "if" if line.word == "else" else "match"
        self.problem("E0117", line, word=line.word, opener=opener,
                     help=f"put it just below the body of an '{opener}', at the same indentation"
                     if line.word == "else" else "put 'case' lines inside a 'match', indented under it")
        self.body(width)
        return None

    def if_block(self, width: int, opener: Opener) -> ast.IfBlock:
        branches = [(opener.expr, self.block(width, opener))]
        otherwise = None
        else_spans: list[Span | None] = []
        while self.index < len(self.lines):
            here, line = self.lines[self.index]
            if here != width or not isinstance(line, Opener) or line.word != "else":
                break
            self.index += 1
            else_spans.append(line.span)
            if line.expr is not None:
                branches.append((line.expr, self.block(width, line)))
                continue
            otherwise = self.block(width, line)
            break
        return ast.IfBlock(tuple(branches), otherwise, span=opener.span,  # type: ignore[arg-type]
                           else_spans=tuple(else_spans))

    def match_block(self, width: int, opener: Opener) -> ast.MatchBlock:
        cases: list[ast.Case] = []
        otherwise = None
        if self.index >= len(self.lines) or self.lines[self.index][0] <= width:
            self.problem("E0116", opener, word=_shown(opener), help="add 'case' lines below it, indented")
        inner = self.lines[self.index][0] if self.index < len(self.lines) else width + 1
        while self.index < len(self.lines):
            here, line = self.lines[self.index]
            if here <= width:
                break
            self.index += 1
            if here != inner:
                self.problem("E0106", line, help="the 'case' lines of a 'match' line up")
                self.body(here)
                continue
            if isinstance(line, Opener) and line.word == "case":
                if otherwise is not None:
                    self.problem("E0118", line, help="put 'else' after the last 'case'")
                cases.append(ast.Case(line.patterns, self.block(here, line), span=line.span))
            elif isinstance(line, Opener) and line.word == "else" and line.expr is None:
                otherwise = self.block(here, line)
            else:
                self.problem("E0118", line, help="write 'case VALUE' and put this line in its body")
                self.body(here)
        return ast.MatchBlock(opener.expr, tuple(cases), otherwise, span=opener.span)  # type: ignore[arg-type]


def _shown(opener: Opener) -> str:
    return {"for": "for each", "else": "else"}.get(opener.word, opener.word)
