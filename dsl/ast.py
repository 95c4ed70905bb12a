"""Nodes of a .rules file: content entries in book notation and declarations.

Frozen attrs classes; equality ignores spans, so two parses of equivalent text compare
equal. ``str()`` prints canonical notation, and ``parse(str(node)) == node``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import attrs

from runebook.dsl.expr_ast import Expr, Number
from runebook.dsl.source import Span

__all__ = [
    "BLOCKS",
    "Block",
    "Case",
    "CheckDecl",
    "ForEachBlock",
    "IfBlock",
    "MatchBlock",
    "NextLine",
    "RepeatBlock",
    "StopLine",
    "walk_statements",
    "ConditionDecl",
    "DeriveDecl",
    "FunctionDecl",
    "Inlined",
    "LevelsDecl",
    "OptionDecl",
    "Param",
    "ResourceDecl",
    "RowKey",
    "Statement",
    "Amount",
    "ApplyLine",
    "Assignment",
    "BecomesLine",
    "Binding",
    "ChooseLine",
    "ConditionChange",
    "CountLine",
    "DoLine",
    "EachLine",
    "EndLine",
    "GainLine",
    "GotoLine",
    "ImpliesLine",
    "ImposeLine",
    "InputLine",
    "LabelLine",
    "LetLine",
    "LiftLine",
    "Listed",
    "ModifierLine",
    "PayLine",
    "RemoveLine",
    "RequireLine",
    "ResetLine",
    "ResultLine",
    "ShowLine",
    "RollLine",
    "SetLine",
    "SpendLine",
    "StepLine",
    "TestLine",
    "UseLine",
    "TableDecl",
    "TableRow",
    "UsesDecl",
    "Bracket",
    "Emphasis",
    "Entry",
    "Chance",
    "ExampleAnswer",
    "ExampleDecl",
    "ExampleDice",
    "ExampleOption",
    "ExampleSheet",
    "ExpectRefusal",
    "Expectation",
    "ExtendsDecl",
    "Header",
    "Item",
    "KindDecl",
    "LabelDecl",
    "NamesDecl",
    "Part",
    "Phrase",
    "ProcedureDecl",
    "Property",
    "RulesFile",
    "StatChange",
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
    """An entry's header line: ``[replaces] Name [Types] (Source)``; ``replaces`` marks a
    homebrew entry that takes the place of its game's entry of the same name."""

    name: str
    types: str | None = None
    source: str | None = None
    span: Span | None = _span
    types_span: Span | None = _span
    replaces: bool = False

    def __str__(self) -> str:
        out = f"replaces {self.name}" if self.replaces else self.name
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
class UsesDecl:
    """``uses grid, entry text``: specialised groups of builtins the rules call (opt-in)."""

    groups: tuple[Phrase, ...]
    span: Span | None = _span

    def __str__(self) -> str:
        return "uses " + ", ".join(map(str, self.groups))


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
    #: ``keywords A, B``: further words its entries' keyword lists may carry (not types).
    keywords: tuple[Phrase, ...] = ()
    #: ``check A, B``: checks every entry of the kind is given to (`runebook check`, E0232).
    checks: tuple[Phrase, ...] = ()

    def __str__(self) -> str:
        lines = [f"kind {self.name}"]
        if self.types:
            lines.append(f"{INDENT}types {', '.join(map(str, self.types))}")
        if self.keywords:
            lines.append(f"{INDENT}keywords {', '.join(map(str, self.keywords))}")
        if self.checks:
            lines.append(f"{INDENT}check {', '.join(map(str, self.checks))}")
        lines += [f"{INDENT}{label}" for label in self.labels]
        return "\n".join(lines)


# ---------------------------------------------------------------- mechanics


@attrs.frozen
class OptionDecl:
    """``option NAME: a | b = a``: a named choice a table can set (a house rule)."""

    name: Phrase
    choices: tuple[Phrase, ...]
    default: Phrase | None = None
    span: Span | None = _span

    def __str__(self) -> str:
        text = f"option {self.name}: {' | '.join(map(str, self.choices))}"
        return text + (f" = {self.default}" if self.default is not None else "")


@attrs.frozen
class LevelsDecl:
    """``levels NAME: low < ... < high``: ordered named outcomes."""

    name: Phrase
    levels: tuple[Phrase, ...]
    span: Span | None = _span

    def __str__(self) -> str:
        return f"levels {self.name}: {' < '.join(map(str, self.levels))}"


@attrs.frozen
class RowKey:
    """Which lookups a table row answers: a value, ``N+``, ``N-M`` or a name."""

    kind: str  # "exact" | "open" | "range" | "name"
    low: int | None = None
    high: int | None = None
    name: str | None = None
    span: Span | None = _span

    def matches(self, key: object) -> bool:
        if self.kind == "name":
            return isinstance(key, str) and "".join(key.casefold().split()) == "".join(
                (self.name or "").casefold().split()
            )
        if isinstance(key, bool) or not isinstance(key, int | float):
            return False
        if self.kind == "exact":
            return key == self.low
        if self.kind == "open":
            return key >= self.low  # type: ignore[operator]
        return self.low <= key <= self.high  # type: ignore[operator]

    def __str__(self) -> str:
        if self.kind == "name":
            return str(self.name)
        if self.kind == "exact":
            return str(self.low)
        if self.kind == "open":
            return f"{self.low}+"
        # A sign on either end reads better with the range's dash apart: `-10 - 0`, not `-10-0`.
        apart = (self.low or 0) < 0 or (self.high or 0) < 0
        return f"{self.low} - {self.high}" if apart else f"{self.low}-{self.high}"


@attrs.frozen
class TableRow:
    key: RowKey
    value: Expr
    span: Span | None = _span

    def __str__(self) -> str:
        return f"{self.key}: {self.value}"


@attrs.frozen
class TableDecl:
    """``table NAME`` and its rows; looked up as ``NAME[key]``."""

    name: Expr
    rows: tuple[TableRow, ...]
    span: Span | None = _span

    def __str__(self) -> str:
        return "\n".join([f"table {self.name}"] + [f"{INDENT}{row}" for row in self.rows])


@attrs.frozen
class Param:
    """An input of a check or function: ``name``, ``name: type``, ``name = default``."""

    name: str
    type: str | None = None
    default: Expr | None = None
    span: Span | None = _span

    def __str__(self) -> str:
        text = self.name + (f": {self.type}" if self.type else "")
        return text + (f" = {self.default}" if self.default is not None else "")


@attrs.frozen
class FunctionDecl:
    """``function NAME(params) = expression``: pure and total."""

    name: Expr
    params: tuple[Param, ...]
    body: Expr
    span: Span | None = _span

    def __str__(self) -> str:
        return f"function {self.name}({', '.join(map(str, self.params))}) = {self.body}"


@attrs.frozen
class Inlined:
    """Where a line a ``do`` brought into a procedure came from: the procedure used (whose
    file diagnostics point into), the label of the use, and for a ``choose`` line the
    choice's own name (its options are levels of that name)."""

    procedure: str
    label: str
    source: Any = attrs.field(eq=False, repr=False)
    choice: str | None = None
    #: an input line (``InputLine``): the parameter it binds, converted by its type.
    param: Param | None = None
    #: the prefix of the names the line reads and binds (``used``, ``used.inner``; empty for
    #: the caller's own): what an entry's lines read while it runs.
    scope: str = ""


_inlined = attrs.field(default=None, eq=False, repr=False, kw_only=True)


def _condition(expr: Expr | None) -> str:
    return f" if {expr}" if expr is not None else ""


def _on(on: str | None) -> str:
    return f" on {on}" if on else ""


@attrs.frozen
class Statement:
    """A line of a check, procedure or condition: the base of one class per statement.

    Each subclass holds only the parts its line has; the parts a line does not have read
    as the class attributes below (no expression, no arguments...), so a pass over every
    line's expressions (names read, renaming) reads them alike. Code that cares which
    line it has asks ``isinstance`` (or looks up a table by ``type(line)``).
    """

    span: Span | None = _span
    #: A line another procedure's ``do`` brought in (see dsl.inline): where it came from.
    inlined: Inlined | None = _inlined

    name = ""
    expr = None
    #: ``apply NAME(args)``: the condition's parameters, in order (``choose NAME from LIST``:
    #: the list; ``do NAME(args)``: the positional arguments).
    args = None
    choices = ()
    on = None
    #: ``apply NAME for 2 rounds``: how many of which event the condition lasts.
    duration = None
    #: ``do NAME(args) as LABEL``: the arguments given by name.
    named = ()
    label = None
    #: ``set NAME[i].field = value``: the steps into the value named.
    path = ()


@attrs.frozen
class Binding(Statement):
    """A line that binds the name it carries (``name``)."""

    name: str


@attrs.frozen
class Assignment(Binding):
    """``WORD NAME = expression``."""

    expr: Expr

    def __str__(self) -> str:
        return f"{self.keyword} {self.name} = {self.expr}"


@attrs.frozen
class RollLine(Assignment):
    """``roll NAME = dice``: the pool is rolled once, here."""

    keyword = "roll"


@attrs.frozen
class LetLine(Assignment):
    """``let NAME = expression``."""

    keyword = "let"


@attrs.frozen
class ShowLine(LetLine):
    """``show NAME = expression``: a ``let`` whose value ``run`` and ``resolve`` report beside
    the results (a bonus, a resistance worth showing a GM); not a result, so odds omit it."""

    keyword = "show"


@attrs.frozen
class ResultLine(Assignment):
    """``result NAME = expression``: one of the check's (or procedure's) results."""

    keyword = "result"


@attrs.frozen
class SetLine(Assignment):
    """``set NAME = expression``; ``set NAME[i].field = value``: the steps into the value
    named, each ``("index", expr)`` or ``("field", name)`` (dsl.flow rewrites the line into
    a plain ``set``)."""

    path: tuple[tuple[str, Any], ...] = ()
    keyword = "set"

    def __str__(self) -> str:
        steps = "".join(f"[{v}]" if k == "index" else f".{v}" for k, v in self.path)
        return f"set {self.name}{steps} = {self.expr}"


@attrs.frozen
class EachLine(Assignment):
    """Flat programs only (dsl.flow): binds a loop's name to its next item (traced)."""

    keyword = "each"


@attrs.frozen
class CountLine(Assignment):
    """Flat programs only: a loop's own counter (as ``let``, left out of the trace)."""

    keyword = "count"


@attrs.frozen
class InputLine(Binding):
    """A used procedure's input, bound from the caller's value (dsl.inline)."""

    expr: Expr

    def __str__(self) -> str:
        return f"input {self.name} = {self.expr}"


@attrs.frozen
class ChooseLine(Binding):
    """``choose NAME: a | b [if condition]`` (the condition, when given, is ``expr``: not
    asked when false, the first option is taken); ``choose NAME from LIST [if condition]``
    (the list is ``args[0]``)."""

    expr: Expr | None = None
    choices: tuple[str, ...] = ()
    args: tuple[Expr, ...] | None = None

    def __str__(self) -> str:
        if self.args:
            return f"choose {self.name} from {self.args[0]}{_condition(self.expr)}"
        return f"choose {self.name}: {' | '.join(choice_runs(self.choices))}{_condition(self.expr)}"


@attrs.frozen
class StepLine(Statement):
    """``step NAME``: a place ``goto`` jumps to (and a state of exact odds)."""

    name: str

    def __str__(self) -> str:
        return f"step {self.name}"


@attrs.frozen
class LabelLine(Statement):
    """Flat programs only (dsl.flow): a place jumps go to; does nothing."""

    name: str

    def __str__(self) -> str:
        return f"-- {self.name}"


@attrs.frozen
class GotoLine(Statement):
    """``goto NAME [if condition]``."""

    name: str
    expr: Expr | None = None

    def __str__(self) -> str:
        return f"goto {self.name}{_condition(self.expr)}"


@attrs.frozen
class TestLine(Statement):
    """Flat programs only: goes on when the condition holds, else to the label ``name``."""

    name: str
    expr: Expr

    def __str__(self) -> str:
        return f"-- if {self.expr} else {self.name}"


@attrs.frozen
class EndLine(Statement):
    """``end [if condition]``."""

    expr: Expr | None = None

    def __str__(self) -> str:
        return f"end{_condition(self.expr)}"


@attrs.frozen
class RequireLine(Statement):
    """``require condition``: the run fails when it does not hold."""

    expr: Expr

    def __str__(self) -> str:
        return f"require {self.expr}"


@attrs.frozen
class Amount(Statement):
    """``WORD RESOURCE amount [on ROLE]``."""

    name: str
    expr: Expr
    on: str | None = None

    def __str__(self) -> str:
        return f"{self.keyword} {self.name} {self.expr}{_on(self.on)}"


@attrs.frozen
class SpendLine(Amount):
    keyword = "spend"


@attrs.frozen
class GainLine(Amount):
    keyword = "gain"


@attrs.frozen
class ConditionChange(Statement):
    """``WORD CONDITION[(args)] [on ROLE]``."""

    name: str
    args: tuple[Expr, ...] | None = None
    on: str | None = None

    def __str__(self) -> str:
        args = f"({', '.join(map(str, self.args))})" if self.args is not None else ""
        if self.duration is not None:
            count, event = self.duration
            shown = str(count) if isinstance(count, Number) else f"({count})"
            args += f" for {shown} {event}"
        return f"{self.keyword} {self.name}{args}{_on(self.on)}"


@attrs.frozen
class ApplyLine(ConditionChange):
    """``apply NAME(args) [for N EVENT] [on ROLE]``."""

    duration: tuple[Expr, str] | None = None
    keyword = "apply"


@attrs.frozen
class RemoveLine(ConditionChange):
    """``remove NAME(args) [on ROLE]``."""

    keyword = "remove"


@attrs.frozen
class ResetLine(Statement):
    """``reset EVENT``: resources that reset on it start again, conditions lasting it end."""

    name: str

    def __str__(self) -> str:
        return f"reset {self.name}"


@attrs.frozen
class Listed(Statement):
    """``WORD text [on ROLE]``: what a text lists (interpreter.rules.listed)."""

    expr: Expr
    on: str | None = None

    def __str__(self) -> str:
        return f"{self.keyword} {self.expr}{_on(self.on)}"


@attrs.frozen
class PayLine(Listed):
    keyword = "pay"


@attrs.frozen
class ImposeLine(Listed):
    keyword = "impose"


@attrs.frozen
class LiftLine(Listed):
    keyword = "lift"


@attrs.frozen
class DoLine(Statement):
    """``do NAME(args) as LABEL``: the positional arguments (``args``), those given by name,
    and the label; ``name`` is the procedure used."""

    name: str
    args: tuple[Expr, ...] = ()
    named: tuple[tuple[str, Expr], ...] = ()
    label: str | None = None

    def __str__(self) -> str:
        given = [str(a) for a in self.args or ()] + [f"{k} = {v}" for k, v in self.named]
        return f"do {self.name}({', '.join(given)})" + (f" as {self.label}" if self.label else "")


@attrs.frozen
class UseLine(Statement):
    """Where the lines of a used procedure (``do NAME as LABEL``) start (dsl.inline)."""

    name: str
    label: str | None = None

    def __str__(self) -> str:
        return f"-- do {self.name} as {self.label}"


@attrs.frozen
class StatChange(Statement):
    """A condition's ``WORD STAT = expression``."""

    name: str
    expr: Expr

    def __str__(self) -> str:
        return f"{self.keyword} {self.name} = {self.expr}"


@attrs.frozen
class ModifierLine(StatChange):
    """A condition's ``modifier STAT = expression``: added to the stat while held."""

    keyword = "modifier"


@attrs.frozen
class BecomesLine(StatChange):
    """A condition's ``becomes STAT = expression``: the stat's value while held."""

    keyword = "becomes"


@attrs.frozen
class ImpliesLine(Statement):
    """A condition's ``implies CONDITION``."""

    name: str

    def __str__(self) -> str:
        return f"implies {self.name}"


Body = tuple[Any, ...]


def _body_lines(body: Body) -> list[str]:
    """A block's body as printed: each statement's lines, one level further in."""
    return [f"{INDENT}{line}" for statement in body for line in str(statement).split("\n")]


@attrs.frozen
class IfBlock:
    """``if C`` and its indented body, then any ``else if C`` bodies and an ``else`` body."""

    branches: tuple[tuple[Expr, Body], ...]
    otherwise: Body | None = None
    span: Span | None = _span
    #: Where each ``else`` line is (for diagnostics about its body).
    else_spans: tuple[Span | None, ...] = attrs.field(default=(), eq=False, repr=False)

    def __str__(self) -> str:
        lines: list[str] = []
        for index, (condition, body) in enumerate(self.branches):
            lines.append(f"{'if' if index == 0 else 'else if'} {condition}")
            lines.extend(_body_lines(body))
        if self.otherwise is not None:
            lines.append("else")
            lines.extend(_body_lines(self.otherwise))
        return "\n".join(lines)


@attrs.frozen
class Case:
    """``case A, B`` inside a ``match``: what it matches (as table rows match) and its body."""

    patterns: tuple[RowKey, ...]
    body: Body
    span: Span | None = _span

    def __str__(self) -> str:
        return "\n".join([f"case {', '.join(map(str, self.patterns))}"] + _body_lines(self.body))


@attrs.frozen
class MatchBlock:
    """``match E`` with ``case`` lines and an optional ``else``: the first case that matches
    the value runs."""

    subject: Expr
    cases: tuple[Case, ...]
    otherwise: Body | None = None
    span: Span | None = _span

    def __str__(self) -> str:
        lines = [f"match {self.subject}"]
        for case in self.cases:
            lines.extend(f"{INDENT}{line}" for line in str(case).split("\n"))
        if self.otherwise is not None:
            lines.append(f"{INDENT}else")
            lines.extend(f"{INDENT}{line}" for line in _body_lines(self.otherwise))
        return "\n".join(lines)


@attrs.frozen
class ForEachBlock:
    """``for each NAME in COLLECTION``: the body once per item, in order."""

    name: str
    collection: Expr
    body: Body
    span: Span | None = _span

    def __str__(self) -> str:
        return "\n".join([f"for each {self.name} in {self.collection}"] + _body_lines(self.body))


@attrs.frozen
class RepeatBlock:
    """``repeat``: the body again and again, until a ``stop`` leaves it or ``end`` ends the
    procedure (a contest's rounds)."""

    body: Body
    span: Span | None = _span

    def __str__(self) -> str:
        return "\n".join(["repeat"] + _body_lines(self.body))


@attrs.frozen
class NextLine:
    """``next [if C]``: on with the next turn of the innermost loop."""

    condition: Expr | None = None
    span: Span | None = _span

    def __str__(self) -> str:
        return "next" + (f" if {self.condition}" if self.condition is not None else "")


@attrs.frozen
class StopLine:
    """``stop [if C]``: leave the innermost loop."""

    condition: Expr | None = None
    span: Span | None = _span

    def __str__(self) -> str:
        return "stop" + (f" if {self.condition}" if self.condition is not None else "")


#: Statements that hold other statements.
BLOCKS = (IfBlock, MatchBlock, ForEachBlock, RepeatBlock)


def walk_statements(body: Body) -> Any:
    """Every statement of a body, blocks before the statements inside them, in order."""
    for statement in body:
        yield statement
        if isinstance(statement, IfBlock):
            for _, inner in statement.branches:
                yield from walk_statements(inner)
            if statement.otherwise is not None:
                yield from walk_statements(statement.otherwise)
        elif isinstance(statement, MatchBlock):
            for case in statement.cases:
                yield from walk_statements(case.body)
            if statement.otherwise is not None:
                yield from walk_statements(statement.otherwise)
        elif isinstance(statement, ForEachBlock | RepeatBlock):
            yield from walk_statements(statement.body)


@attrs.frozen
class CheckDecl:
    """``check NAME (inputs)``: dice rolled and named results read from them."""

    name: Expr
    params: tuple[Param, ...]
    statements: tuple[Statement, ...]
    span: Span | None = _span

    def __str__(self) -> str:
        head = f"check {self.name} ({', '.join(map(str, self.params))})"
        return "\n".join([head] + [f"{INDENT}{line}" for line in self.statements])


@attrs.frozen
class ProcedureDecl:
    """``procedure NAME (inputs)``: steps, choice points and state changes."""

    name: Expr
    params: tuple[Param, ...]
    statements: tuple[Statement, ...]
    span: Span | None = _span

    def __str__(self) -> str:
        head = f"procedure {self.name} ({', '.join(map(str, self.params))})"
        return "\n".join([head] + _body_lines(self.statements))


@attrs.frozen
class DeriveDecl:
    """``derive NAME = expression``: a value computed from an entity's stats."""

    name: Expr
    expr: Expr
    span: Span | None = _span

    def __str__(self) -> str:
        return f"derive {self.name} = {self.expr}"


@attrs.frozen
class ResourceDecl:
    """``resource NAME (cap = ..., start = ..., reset = EVENT)``."""

    name: Expr
    params: tuple[Param, ...]
    span: Span | None = _span

    def __str__(self) -> str:
        return f"resource {self.name} ({', '.join(map(str, self.params))})"


@attrs.frozen
class ConditionDecl:
    """``condition NAME (type = ..., lasts = ..., PARAMETERS)`` with ``modifier STAT =
    expression``, ``becomes STAT = expression`` and ``implies NAME`` lines (all in ``modifiers``,
    told apart by their kind)."""

    name: Expr
    params: tuple[Param, ...]
    modifiers: tuple[Statement, ...]
    span: Span | None = _span

    def __str__(self) -> str:
        head = f"condition {self.name} ({', '.join(map(str, self.params))})"
        return "\n".join([head] + [f"{INDENT}{m}" for m in self.modifiers])


@attrs.frozen
class Chance:
    """The chance an ``expect ... with chance`` line names: ``5/8`` exactly, or ``62.5%`` and
    ``0.625`` to the places written (``places`` decimals of the percentage or of the number)."""

    value: Fraction
    text: str
    places: int | None = None

    def __str__(self) -> str:
        return self.text

    def tolerance(self) -> Fraction:
        """How far the exact chance may be from ``value`` and still read as written (half a
        unit of the last place written; none for a fraction)."""
        if self.places is None:
            return Fraction(0)
        unit = Fraction(1, 10 ** self.places)
        return unit / 2 / (100 if self.text.endswith("%") else 1)


@attrs.frozen
class ExampleDice:
    """``dice 8, 6, 1``: the faces an example's check is resolved from, in the order it rolls."""

    faces: tuple[int, ...]
    span: Span | None = _span

    def __str__(self) -> str:
        return "dice " + ", ".join(map(str, self.faces))


@attrs.frozen
class Expectation:
    """``expect EXPR`` (it holds: for the example's dice, or whatever the dice show) or
    ``expect EXPR with chance P`` (its exact chance is P)."""

    expr: Expr
    chance: Chance | None = None
    span: Span | None = _span

    def __str__(self) -> str:
        return f"expect {self.expr}" + (f" with chance {self.chance}" if self.chance is not None else "")


@attrs.frozen
class ExampleAnswer:
    """``answer stance = bold``: the answer an example's procedure gets at that choice."""

    name: str
    value: str
    span: Span | None = _span

    def __str__(self) -> str:
        return f"answer {self.name} = {self.value}"


@attrs.frozen
class ExpectRefusal:
    """``expect refused`` (or ``expect refused E0613``): the example's run must stop, with
    that code when one is named (a ``require`` its inputs fail, a limit)."""

    code: str | None = None
    span: Span | None = _span

    def __str__(self) -> str:
        return "expect refused" + (f" {self.code}" if self.code else "")


@attrs.frozen
class ExampleSheet:
    """``as "examples/hero.yaml"`` (or ``against``): a character file taking part in an
    example, as ``--as`` and ``--against`` give one; the path is the file's, from the folder
    of the ``.rules`` file."""

    role: str
    path: str
    span: Span | None = _span

    def __str__(self) -> str:
        return f'{self.role} "{self.path}"'


@attrs.frozen
class ExampleOption:
    """``option stretch = bump_down``: one of the game's options, set for an example."""

    name: str
    value: str
    span: Span | None = _span

    def __str__(self) -> str:
        return f"option {self.name} = {self.value}"


@attrs.frozen
class ExampleDecl:
    """``example CHECK (name = value, ...)``: a use of a check the tour shows, and with lines
    (``dice``, ``expect``, ``answer``, ``option``) a test of it that ``runebook check`` runs."""

    check: Expr
    args: tuple[Param, ...]
    lines: tuple[ExampleDice | Expectation | ExpectRefusal | ExampleAnswer | ExampleOption | ExampleSheet, ...] = ()
    span: Span | None = _span

    def __str__(self) -> str:
        head = f"example {self.check} ({', '.join(map(str, self.args))})"
        return "\n".join([head, *(INDENT + str(line) for line in self.lines)])


Block = (
    Entry | ExtendsDecl | UsesDecl | StatsDecl | NamesDecl | KindDecl
    | OptionDecl | LevelsDecl | TableDecl | FunctionDecl | CheckDecl | ExampleDecl | ProcedureDecl
    | ResourceDecl | ConditionDecl | DeriveDecl
)


@attrs.frozen
class RulesFile:
    """A parsed .rules file."""

    blocks: tuple[Block, ...]
    path: str = attrs.field(default="", eq=False)

    def __str__(self) -> str:
        return "\n\n".join(map(str, self.blocks)) + ("\n" if self.blocks else "")


def choice_runs(choices: tuple[str, ...]) -> list[str]:
    """Options as written: three or more consecutive whole numbers print as ``low to high``."""
    shown: list[str] = []
    i = 0
    while i < len(choices):
        j = i
        if choices[i].isdigit():
            while j + 1 < len(choices) and choices[j + 1].isdigit() and int(choices[j + 1]) == int(choices[j]) + 1:
                j += 1
        shown.append(f"{choices[i]} to {choices[j]}" if j - i >= 2 else choices[i])
        if 0 < j - i < 2:
            shown.extend(choices[i + 1:j + 1])
        i = j + 1
    return shown
