"""The fast reading of plain dice sums (dsl.simple_expr) gives exactly the nodes the
grammar's reading gives, spans included, and leaves everything else to the parser."""

from __future__ import annotations

from typing import Any

import attrs
from hypothesis import given
from hypothesis import strategies as st

from runebook.dsl.parser import parse_expression
from runebook.dsl.simple_expr import simple_expression


def _fields(node: Any) -> Any:
    """A node as nested tuples, spans included (they are left out of ``==``)."""
    if attrs.has(type(node)):
        return (type(node).__name__, *((f.name, _fields(getattr(node, f.name))) for f in attrs.fields(type(node))))
    if isinstance(node, tuple):
        return tuple(_fields(n) for n in node)
    return node


CORPUS = ["1d20", "d20", "2d6+3", "2d6 + 3", "1d20 + 5 - 1d4", "  1d20", "1d20  ", "3", "10d10", "1d100",
          "007d6", "1d6+1d6+1d6", "100-1d20", "4d6kh3", "2d20kl1 + 4", "d20kh1", "4d6dl1", "5d10dh2-1"]
LEFT_TO_THE_PARSER = ["4d6k3", "1d20kh", "4d6kh3x", "4d6kh3!", "4d6khh3", "4d6kh 3", "-1d4", "+1d4", "1d20+", "1 d20", "1d20 5", "1D20", "1d%", "1dF", "1d6x",
                      "1d20\n+1", "d0", "1d0", "2d6*2", "(1d6)", "1d6.5", "1234567d6", "x", "", "1d20+str",
                      "+".join(["1d6"] * 17)]


def test_the_corpus_reads_as_the_parser_reads_it() -> None:
    for text in CORPUS:
        fast = simple_expression(text)
        assert fast is not None, text
        assert _fields(fast) == _fields(parse_expression(text)), text


def test_anything_else_is_left_to_the_parser() -> None:
    for text in LEFT_TO_THE_PARSER:
        assert simple_expression(text) is None, text


_terms = st.one_of(
    st.integers(0, 999_999).map(str),
    st.tuples(st.one_of(st.just(""), st.integers(0, 999).map(str)), st.integers(1, 1000),
              st.one_of(st.just(""), st.tuples(st.sampled_from(["kh", "kl", "dh", "dl"]), st.integers(0, 99))
                        .map(lambda m: f"{m[0]}{m[1]}"))).map(lambda t: f"{t[0]}d{t[1]}{t[2]}"),
)
_spaces = st.sampled_from(["", " ", "  "])


@given(st.lists(st.tuples(_spaces, st.sampled_from("+-"), _spaces, _terms), max_size=8), _terms, _spaces, _spaces)
def test_generated_sums_read_as_the_parser_reads_them(rest, first, before, after) -> None:  # type: ignore[no-untyped-def]
    text = before + first + "".join(a + op + b + term for a, op, b, term in rest) + after
    fast = simple_expression(text)
    assert fast is not None, text
    assert _fields(fast) == _fields(parse_expression(text)), text
