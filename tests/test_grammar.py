"""The grammar: conflict-free LALR, and canonical printing that round-trips."""

from __future__ import annotations

import logging

import pytest
from lark import Lark, logger

from runebook.dsl.parser import GRAMMAR_FILE, parse_expression, parse_rules
from runebook.dsl.source import Source


def test_parser_builds_without_lalr_conflicts(caplog: pytest.LogCaptureFixture) -> None:
    logger.setLevel(logging.DEBUG)
    try:
        with caplog.at_level(logging.DEBUG, logger="lark"):
            Lark.open(str(GRAMMAR_FILE), parser="lalr", start=["start", "expr"], debug=True,
                      maybe_placeholders=True)
    finally:
        logger.setLevel(logging.WARNING)
    conflicts = [r.getMessage() for r in caplog.records if "conflict" in r.getMessage().lower()]
    assert conflicts == []


CANONICAL_EXPRESSIONS = [
    "Weapon + Grade",
    "Target's Defense",
    "Target's Weapon's Reach + 1",
    "4d6kh3",
    "5d10x10cs>=8",
    "pool d10",
    "(pool + 1)d10",
    "d{1,1,2,3}",
    "-(a + b) * 2",
    "a - (b - c)",
    "a // 2 % 3",
    "success if total >= difficulty else failure",
    "botch if successes == 0 and any(dice == 1) else failure",
    "not a or b and c",
    "Grade[successes]",
    "count(each(dice) + 3 >= 11)",
    "7M2 + 3",
]


@pytest.mark.parametrize("text", CANONICAL_EXPRESSIONS)
def test_canonical_expressions_print_as_written(text: str) -> None:
    assert str(parse_expression(text)) == text


@pytest.mark.parametrize(
    "loose, canonical",
    [("[Strength+1]", "Strength + 1"), ("((a))", "a"), ("a+b*c", "a + b * c"), ("(a+b)*c", "(a + b) * c"),
     ("Target’s Jolt", "Target’s Jolt")],
)
def test_loose_spelling_prints_canonically(loose: str, canonical: str) -> None:
    node = parse_expression(loose.strip("[]"))
    assert str(node) == canonical
    assert parse_expression(str(node)) == node


def test_spans_are_ignored_by_equality() -> None:
    assert parse_expression("a+1") == parse_expression("a  +  1")


def test_markdown_emphasis_is_tolerated_in_labels_and_headers() -> None:
    loose = parse_rules(Source("t", "**Berserker Charge**\n**Cost:** 2 CP\n*Result 2:* [Grade] damage\n"))
    plain = parse_rules(Source("t", "Berserker Charge\nCost: 2 CP\nResult 2: [Grade] damage\n"))
    assert loose == plain


def test_blank_line_followed_by_indentation_stays_in_the_block() -> None:
    text = "kind Spell\n  Cost: text\n\n  Effect: text\n\nFireball\nCost: 2\n"
    rules = parse_rules(Source("t", text))
    assert [type(b).__name__ for b in rules.blocks] == ["KindDecl", "Entry"]
    assert [label.label for label in rules.blocks[0].labels] == ["Cost", "Effect"]


def test_comments_are_ignored() -> None:
    text = "# a ruleset\nstats Might  # the only stat\n# between\n\n# before an entry\nBlow\n# inside\nCost: 1\n"
    rules = parse_rules(Source("t", text))
    assert str(rules) == "stats Might\n\nBlow\nCost: 1\n"
