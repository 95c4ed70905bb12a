"""The commonest expressions read without the grammar: sums of dice and numbers (``1d20``,
``2d6+3``, ``1d20 + 5 - 1d4``, ``4d6kh3``, ``2d20kl1 + 4``), what a one-shot ``runebook roll`` or a chat bot's
roll command is given most. Loading the grammar's tables costs more than such a roll, so
these are read here into exactly the nodes the grammar's reading gives (spans included: a
test compares the two); anything else, or anything unusual about these (a leading sign, a
long number, many terms), is left to :func:`dsl.parser.parse_expression`.
"""

from __future__ import annotations

import re

from runebook.dsl import expr_ast as ex
from runebook.dsl.source import Span

__all__ = ["simple_expression"]

#: A term: ``NdM``, ``dM`` (either with one keep or drop: ``4d6kh3``) or ``N`` (at most 6
#: digits each), with the spaces before it.
_TERM = re.compile(r"[ ]*(?:(\d{1,6})?d(\d{1,6})(?:(kh|kl|dh|dl)(\d{1,6}))?(?![\w.%!])|(\d{1,6})(?![\w.]))")
#: An operator between terms, with the spaces before it.
_OPERATOR = re.compile(r"[ ]*([+-])")
#: Terms past this are left to the parser (and its limits).
_MAX_TERMS = 16


def _term(match: re.Match[str]) -> ex.Expr:
    count, sides, op, kept, number = match.group(1, 2, 3, 4, 5)
    if number is not None:
        return ex.Number(int(number), span=Span(1, match.start(5) + 1, 1, match.end(5) + 1))
    die_start = match.start(2)  # the 'd' is just before the sides (a 1-based column)
    die = ex.SidesDie(int(sides), span=Span(1, die_start, 1, match.end(2) + 1))
    modifiers: tuple[ex.DiceModifier, ...] = ()
    end = match.end(2)
    if op is not None:
        modifiers = (ex.DiceModifier(op, None, int(kept), span=Span(1, match.start(3) + 1, 1, match.end(4) + 1)),)
        end = match.end(4)
    start = die_start if count is None else match.start(1) + 1
    counted = None if count is None else ex.Number(int(count), span=Span(1, match.start(1) + 1, 1, match.end(1) + 1))
    return ex.Dice(counted, die, modifiers, span=Span(1, start, 1, end + 1))


def simple_expression(text: str) -> ex.Expr | None:
    """The expression ``text`` reads as, when it is a sum of plain dice and numbers on one
    line; otherwise None (the parser reads it)."""
    match = _TERM.match(text)
    if match is None:
        return None
    node = _term(match)
    if isinstance(node, ex.Dice) and node.die.sides == 0:
        return None  # the parser says what is wrong with a d0
    at, terms = match.end(), 1
    while at < len(text):
        operator = _OPERATOR.match(text, at)
        if operator is None:
            break
        match = _TERM.match(text, operator.end())
        terms += 1
        if match is None or terms > _MAX_TERMS:
            return None
        right = _term(match)
        if isinstance(right, ex.Dice) and right.die.sides == 0:
            return None
        assert node.span is not None and right.span is not None
        node = ex.Binary(operator.group(1), node, right, span=node.span.cover(right.span))
        at = match.end()
    if text[at:].strip(" "):
        return None
    return node
