"""A large plain table read by dsl.fast_table gives exactly the parser's nodes and spans; a
table with anything else in it is left to the parser (issue 15: a 100,000-row table)."""

from __future__ import annotations

import random
from typing import Any

import attrs
import pytest

import runebook.dsl.parser as parser
from runebook.dsl.diagnostics import DiagnosticSink
from runebook.dsl.fast_table import read_table
from runebook.dsl.source import Source


def _dump(node: Any) -> Any:
    """Every field of every node, spans included (nodes compare without their spans)."""
    if attrs.has(type(node)):
        return (type(node).__name__, tuple((f.name, _dump(getattr(node, f.name))) for f in attrs.fields(type(node))))
    if isinstance(node, tuple):
        return tuple(_dump(v) for v in node)
    return node


def _row(rng: random.Random, i: int) -> str:
    key = rng.choice([f"{i}", f"{i}+", f"{i}-{i + rng.randint(0, 99)}", f"{i:03d}"])
    value = rng.choice([f"R{i}", "Two Words", "Three  Spaced   Words", str(rng.randint(0, 10**6)), "_under_score", "dx", "Dagger"])
    return " " * rng.randint(1, 4) + f"{key}:" + " " * rng.randint(1, 3) + value + " " * rng.randint(0, 2)


def _both(text: str) -> tuple[Any, Any]:
    """The file read with the fast path and without it: blocks, and diagnostics."""
    source = Source("t.rules", text)
    fast_sink, slow_sink = DiagnosticSink(source), DiagnosticSink(source)
    fast = parser.parse_rules(source, fast_sink)
    saved = parser._FAST_TABLE_ROWS
    parser._FAST_TABLE_ROWS = 10**9
    try:
        slow = parser.parse_rules(source, slow_sink)
    finally:
        parser._FAST_TABLE_ROWS = saved
    return ((fast, [(d.code, d.span) for d in fast_sink.items]),
            (slow, [(d.code, d.span) for d in slow_sink.items]))


@pytest.mark.parametrize("seed", range(8))
def test_a_plain_table_reads_as_the_parser_reads_it(seed: int) -> None:
    rng = random.Random(seed)
    rows = "\n".join(_row(rng, i) for i in range(1, 150 + seed * 20))
    text = f"# before\nfunction f(x) = x + 1\n\ntable Big {'Thing' if seed % 2 else 'List'}\n{rows}\n\ntable Small\n  1: a\n"
    first = text.split("\n").index(text.split("\n")[3]) + 1
    start = text.index("table Big")
    end = text.index("\n\ntable Small")
    assert read_table(text, first, start, end) is not None  # the fast path is taken
    fast, slow = _both(text)
    assert _dump(fast) == _dump(slow)


@pytest.mark.parametrize("odd", [
    "  5: x + 1",            # an expression
    "  5: d6",               # dice
    "  5: dF",
    "  5: none",             # literals and keywords
    "  5: not here",
    "  5: x  # a comment",
    "  five: x",             # a name key
    "  -5: x",               # a signed key
    "\t5: x",                # a tab
    "  5: \"quoted\"",
])
def test_anything_else_goes_to_the_parser(odd: str) -> None:
    rows = [f"  {i}: R{i}" for i in range(1, 200)]
    rows[100] = odd
    text = "table Big\n" + "\n".join(rows) + "\n"
    assert read_table(text, 1, 0, len(text) - 1) is None
    fast, slow = _both(text)
    assert _dump(fast) == _dump(slow)
