"""The formatter: a ``.rules`` file in canonical spelling, its comments and blank lines kept.

Each declaration is printed the way the AST prints it (``str()``: canonical spacing,
indentation of two spaces a level, canonical keywords), and the author's layout is laid
back over that print line by line. Where a line differs from its print by more than
spacing (parentheses written for clarity), the author's spelling is kept, re-indented and
with runs of spaces made one. A comment on a line of its own stays before the line it
stood before (indented as that line now is), a comment at the end of a line stays at its
end, and a run of blank lines becomes one. An entry keeps the book's notation as its author
wrote it (only trailing spaces go), and a block whose lines cannot be matched one to one
with its print (a value written over several lines) keeps its own lines, trimmed.

Formatting never changes meaning: the result is parsed again and must give the same AST and
the same comments, or the file is left as it was (:class:`Formatted` says which).
"""

from __future__ import annotations

import attrs

from runebook.dsl import ast
from runebook.dsl.diagnostics import DiagnosticSink
from runebook.dsl.parser import parse_rules, split_blocks
from runebook.dsl.source import Source

__all__ = ["Formatted", "format_source"]


@attrs.frozen
class Formatted:
    """The outcome for one file: its formatted text, or why it was left alone."""

    text: str
    changed: bool
    #: Why the file was left as it was: its syntax errors, or a print that would not read back.
    refused: str | None = None


def format_source(source: Source) -> Formatted:
    """The canonical form of a file (see the module's docstring)."""
    sink = DiagnosticSink(source)
    before = parse_rules(source, sink)
    if any(d.severity == "error" for d in sink.items):
        return Formatted(source.text, False, refused="it has syntax errors (run 'runebook check')")
    lines = source.text.replace("\r\n", "\n").split("\n")
    spans = split_blocks(source.text, DiagnosticSink())
    for text in (_canonical(source, lines, spans), _trimmed(lines)):
        if _same_meaning(source, before, text):
            return Formatted(text, text != source.text)
    return Formatted(source.text, False, refused="its canonical print would not read back the same")


def _canonical(source: Source, lines: list[str], spans: list[tuple[int, int, int, int]]) -> str:
    """Every block printed canonically, with the comments and blank lines around and inside it."""
    out: list[str] = []
    line = 1
    for first, last, start, end in spans:
        out.extend(_between(lines[line - 1:first - 1]))
        out.extend(_block(source, lines[first - 1:last], start, end))
        line = last + 1
    out.extend(_between(lines[line - 1:]))
    return _finish(out)


def _between(lines: list[str]) -> list[str]:
    """Lines outside any block: comments (from column 1) and blank lines."""
    return ["" if not line.strip() else line.strip() for line in lines]


def _block(source: Source, lines: list[str], start: int, end: int) -> list[str]:
    sliced = Source(source.name, source.text[start:end])
    sink = DiagnosticSink(sliced)
    blocks = parse_rules(sliced, sink).blocks
    if any(d.severity == "error" for d in sink.items) or any(isinstance(b, ast.Entry) for b in blocks):
        # An entry is in the book's notation, as the author copied it; a slice that does not
        # parse alone is left to `check`.
        return [line.rstrip() for line in lines]
    printed = [p for b in blocks for p in str(b).rstrip("\n").split("\n")]
    code = [line for line in lines if line.strip() and not line.lstrip().startswith("#")]
    if len(printed) != len(code):
        return [line.rstrip() for line in lines]
    out: list[str] = []
    pending: list[str] = []  # comments waiting for the indentation of the line they precede
    index = 0
    for line in lines:
        stripped = line.strip()
        if not stripped:
            out.extend(pending)
            pending = []
            out.append("")
        elif stripped.startswith("#"):
            pending.append(stripped)
        else:
            canonical = printed[index]
            index += 1
            indent = canonical[:len(canonical) - len(canonical.lstrip())]
            out.extend(indent + comment for comment in pending)
            pending = []
            comment = _trailing_comment(line)
            written = (line[:len(line) - len(comment)] if comment else line).strip()
            if "".join(written.split()) != "".join(canonical.split()):
                # More than spacing differs (parentheses kept for clarity, emphasis from the
                # book): the author's spelling stays, in canonical indentation and spacing runs.
                canonical = indent + _collapsed(written)
            out.append(canonical + ("  " + comment if comment else ""))
    out.extend(pending)
    return out


def _trailing_comment(line: str) -> str | None:
    """The ``# ...`` that ends a line of code, if any (a ``#`` inside quotes is text)."""
    quote = None
    for index, char in enumerate(line):
        if quote is not None:
            if char == quote:
                quote = None
        elif char in "\"'" and (index == 0 or not line[index - 1].isalnum()):
            quote = char
        elif char == "#":
            return line[index:].rstrip()
    return None


def _collapsed(code: str) -> str:
    """Runs of spaces outside quotes made one space."""
    out: list[str] = []
    quote = None
    for index, char in enumerate(code):
        if quote is not None:
            quote = None if char == quote else quote
        elif char in "\"'" and (index == 0 or not code[index - 1].isalnum()):
            quote = char
        elif char in " \t" and out and out[-1] == " ":
            continue
        out.append(" " if char == "\t" and quote is None else char)
    return "".join(out)


def _trimmed(lines: list[str]) -> str:
    """The file as written, with trailing spaces and extra blank lines gone."""
    return _finish([line.rstrip() for line in lines])


def _finish(lines: list[str]) -> str:
    """No blank line at the start, none doubled, one newline at the end."""
    out: list[str] = []
    for line in lines:
        if not line and (not out or not out[-1]):
            continue
        out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n" if out else ""


def _comments(text: str) -> list[str]:
    found = []
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith("#"):
            found.append(stripped)
        else:
            comment = _trailing_comment(line)
            if comment is not None:
                found.append(comment)
    return found


def _same_meaning(source: Source, before: ast.RulesFile, text: str) -> bool:
    """Whether ``text`` parses to the same AST as ``source`` did, with the same comments."""
    after_source = Source(source.name, text)
    sink = DiagnosticSink(after_source)
    after = parse_rules(after_source, sink)
    if any(d.severity == "error" for d in sink.items):
        return False
    return after == before and _comments(text) == _comments(source.text)
