"""Source texts and spans: where a piece of syntax came from."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

import attrs

__all__ = ["Source", "Span", "decode_source", "gc_paused"]


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many acyclic objects.

    Parsing a large file creates millions of AST nodes; the collector would rescan them
    again and again (about 40% of the time on a 100,000-line file). Nothing built here
    forms a cycle, so reference counting alone frees it.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@attrs.frozen
class Span:
    """A region of a source text, 1-based lines and columns, end exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int

    @classmethod
    def point(cls, line: int, column: int, width: int = 1) -> Span:
        return cls(line, column, line, column + max(width, 1))

    def shifted(self, line_offset: int, column_offset: int) -> Span:
        """Move a span measured inside a substring to the enclosing text.

        ``column_offset`` applies only to positions on the substring's first line.
        """
        def col(line: int, column: int) -> int:
            return column + column_offset if line == 1 else column

        return Span(
            self.line + line_offset,
            col(self.line, self.column),
            self.end_line + line_offset,
            col(self.end_line, self.end_column),
        )

    def cover(self, other: Span) -> Span:
        start = min((self.line, self.column), (other.line, other.column))
        end = max((self.end_line, self.end_column), (other.end_line, other.end_column))
        return Span(start[0], start[1], end[0], end[1])


@attrs.frozen
class Source:
    """A named text being checked: a file, a command-line expression or an inline snippet."""

    name: str
    text: str = attrs.field(repr=False)
    _lines: list[str] | None = attrs.field(default=None, init=False, eq=False, repr=False)

    def line_text(self, line: int) -> str:
        if self._lines is None:
            # Computed once: a file with thousands of diagnostics must not split itself each time.
            object.__setattr__(self, "_lines", self.text.split("\n"))
        lines = self._lines
        assert lines is not None
        if 1 <= line <= len(lines):
            return lines[line - 1]
        return ""


def decode_source(name: str, data: bytes) -> tuple[Source | None, tuple[int, int, int] | None]:
    """Decode file bytes as UTF-8.

    Returns the source, or None and the (line, column, byte) of the first invalid byte.
    A UTF-8 byte-order mark is dropped; CRLF line ends become LF.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        head = data[: error.start]
        line = head.count(b"\n") + 1
        line_start = head.rfind(b"\n") + 1
        column = len(head[line_start:].decode("utf-8", errors="replace")) + 1
        return None, (line, column, data[error.start])
    return Source(name, text.replace("\r\n", "\n").replace("\r", "\n")), None
