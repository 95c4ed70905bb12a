"""Parse tree → expression nodes (`dsl.expr_ast`), one method per rule of expr.lark."""

from __future__ import annotations

from fractions import Fraction

from lark import Token, Transformer, v_args
from lark.tree import Meta

from runebook.dsl import expr_ast as ex
from runebook.dsl.source import Span

__all__ = ["ExprBuilder", "Position", "span_of", "spanless", "with_span"]

#: The most faces a range in a die's face list (`d{1..6}`) gives: the default of
#: ``Limits.max_sides``; one face more than that is enough for E0901 to refuse the die.
MAX_RANGE_FACES = 1_000_000


class Position:
    """Where a rule's text lies, derived from its children (no parse tree is built)."""

    __slots__ = ("column", "end_column", "end_line", "line")

    def __init__(self, line: int, column: int, end_line: int, end_column: int) -> None:
        self.line, self.column, self.end_line, self.end_column = line, column, end_line, end_column


def _first(children: list) -> tuple[int, int] | None:  # type: ignore[type-arg]
    for child in children:
        if isinstance(child, Token):
            if child.line:
                return child.line, child.column  # type: ignore[return-value]
        elif isinstance(child, list):
            found = _first(child)
            if found:
                return found
        elif child is not None:
            span = getattr(child, "span", None)
            if span is not None:
                return span.line, span.column
    return None


def _last(children: list) -> tuple[int, int] | None:  # type: ignore[type-arg]
    for child in reversed(children):
        if isinstance(child, Token):
            if child.end_line:
                return child.end_line, child.end_column  # type: ignore[return-value]
        elif isinstance(child, list):
            found = _last(child)
            if found:
                return found
        elif child is not None:
            span = getattr(child, "span", None)
            if span is not None:
                return span.end_line, span.end_column
    return None


def with_span(f, _data, children, _meta=None):  # type: ignore[no-untyped-def]
    """A Lark visitor wrapper: calls ``f(position, children)``.

    Rules are transformed while parsing (Lark's inline transformer), which is several
    times faster than building a tree and transforming it afterwards, but gets no
    ``meta``; the position is the cover of the children's spans instead.
    """
    if not children:
        return f(None, children)
    # The common cases first: a token or a node at either end.
    head = children[0]
    if head.__class__ is Token:
        first: tuple[int, int] | None = (head.line, head.column) if head.line else _first(children)
    else:
        start = getattr(head, "span", None) if head is not None and head.__class__ is not list else None
        first = (start.line, start.column) if start is not None else _first(children)
    if first is None:
        return f(None, children)
    tail = children[-1]
    if tail.__class__ is Token:
        last: tuple[int, int] | None = (tail.end_line, tail.end_column) if tail.end_line else (_last(children) or first)
    else:
        span = getattr(tail, "span", None) if tail is not None and tail.__class__ is not list else None
        last = (span.end_line, span.end_column) if span is not None else (_last(children) or first)
    # A Span has the attributes of a Position; `span_of` passes it through unchanged.
    return f(Span(first[0], first[1], last[0], last[1]), children)  # type: ignore[index]


def spanless(f):  # type: ignore[no-untyped-def]
    """Mark a builder method that never reads its position: the parser calls it with None
    instead of working out the span of its children (dsl.lalr)."""
    f.spanless = True
    return f


def span_of(item: Position | Token | Span | None) -> Span | None:
    if item is None:
        return None
    if item.__class__ is Span:
        return item  # type: ignore[return-value]
    return Span(item.line, item.column, item.end_line, item.end_column)


# Spans come from `with_span`, not Lark's meta: keep this decorator when adding rules.
@v_args(wrapper=with_span)
class ExprBuilder(Transformer):
    """Builds expression nodes (`dsl.expr_ast`)."""

    def number(self, meta: Meta, children: list) -> ex.Number:
        return ex.Number(int(children[0]), span=span_of(meta))

    def negative_number(self, meta: Meta, children: list) -> ex.Number:
        return ex.Number(-int(children[0]), span=span_of(meta))

    def decimal(self, meta: Meta, children: list) -> ex.Decimal:
        text = str(children[0])
        return ex.Decimal(Fraction(text), text, span=span_of(meta))

    def rating(self, meta: Meta, children: list) -> ex.Rating:
        text = str(children[0])
        index = next(i for i, c in enumerate(text) if c.isalpha())
        count = text[index + 1 :]
        return ex.Rating(int(text[:index]), text[index], int(count) if count else None, span=span_of(meta))

    def string(self, meta: Meta, children: list) -> ex.String:
        return ex.String(str(children[0])[1:-1], span=span_of(meta))

    def name(self, meta: Meta, children: list) -> ex.Name:
        return ex.Name(tuple(map(str, children)), span=span_of(meta))

    def possessive(self, meta: Meta, children: list) -> ex.Possessive:
        owner, mark, prop = children
        return ex.Possessive(owner, prop, str(mark)[0], span=span_of(meta))

    def attribute(self, meta: Meta, children: list) -> ex.Attribute:
        return ex.Attribute(children[0], str(children[1]), span=span_of(meta))

    # The brackets these rules keep only give their span its ends (grammar/expr.lark).

    def index(self, meta: Meta, children: list) -> ex.Index:
        return ex.Index(children[0], children[1], span=span_of(meta))

    def call(self, meta: Meta, children: list) -> ex.Call:
        func, *args, _close = children
        return ex.Call(func, tuple(a for a in args if a is not None), span=span_of(meta))

    def list_(self, meta: Meta, children: list) -> ex.ListOf:
        return ex.ListOf(tuple(c for c in children[1:-1] if c is not None), span=span_of(meta))

    def comprehension(self, meta: Meta, children: list) -> ex.Comprehension:
        _open, value, name, collection, condition, _close = children
        return ex.Comprehension(value, str(name), collection, condition, span=span_of(meta))

    def record(self, meta: Meta, children: list) -> ex.RecordOf:
        return ex.RecordOf(tuple(c for c in children[1:-1] if c is not None), span=span_of(meta))

    @spanless
    def field(self, meta: Meta, children: list) -> tuple[str, ex.Expr]:
        return (str(children[0]), children[1])

    def unary(self, meta: Meta, children: list) -> ex.Unary:
        return ex.Unary(str(children[0]), children[1], span=span_of(meta))

    def binary(self, meta: Meta, children: list) -> ex.Binary:
        left, op, right = children
        return ex.Binary(str(op), left, right, span=span_of(meta))

    def compare(self, meta: Meta, children: list) -> ex.Compare:
        left, op, right = children
        return ex.Compare(str(op), left, right, span=span_of(meta))

    def compare_failures(self, meta: Meta, children: list) -> ex.Compare:
        left, op, right, token = children
        text = str(token)[1:]
        digits = text.lstrip("<>=")
        failures = ex.DiceModifier("f", text[: len(text) - len(digits)] or None, int(digits), span=span_of(token))
        return ex.Compare(str(op), left, right, span=span_of(meta), failures=failures)

    def roll_group(self, meta: Meta, children: list) -> ex.RollGroup:
        items = tuple(c for c in children if not isinstance(c, ex.DiceModifier))
        modifiers = tuple(c for c in children if isinstance(c, ex.DiceModifier))
        return ex.RollGroup(items, modifiers, span=span_of(meta))

    def not_(self, meta: Meta, children: list) -> ex.Not:
        return ex.Not(children[0], span=span_of(meta))

    def and_(self, meta: Meta, children: list) -> ex.And:
        return ex.And(children[0], children[1], span=span_of(meta))

    def or_(self, meta: Meta, children: list) -> ex.Or:
        return ex.Or(children[0], children[1], span=span_of(meta))

    def conditional(self, meta: Meta, children: list) -> ex.Conditional:
        then, condition, otherwise = children
        return ex.Conditional(then, condition, otherwise, span=span_of(meta))

    def dice(self, meta: Meta, children: list) -> ex.Dice:
        count, die, *modifiers = children
        return ex.Dice(count, die, tuple(modifiers), span=span_of(meta))

    def die_sides(self, meta: Meta, children: list) -> ex.SidesDie:
        sides = str(children[0])[1:]
        if sides == "F.2":  # Roll20's dF.2 is the standard Fudge die
            sides = "F"
        return ex.SidesDie(int(sides) if sides.isdigit() else sides, span=span_of(meta))

    def die_faces(self, meta: Meta, children: list) -> ex.FacesDie:
        values: list[int] = []
        parts: list[str] = []
        for c in children:
            if isinstance(c, ex.FacesDie):  # a range
                values.extend(c.values)
                parts.append(str(c.written))
            else:
                values.append(c.value)
                parts.append(str(c.value))
        written = ",".join(parts) if len(parts) != len(values) else None
        return ex.FacesDie(tuple(values), span=span_of(meta), written=written)

    def face_range(self, meta: Meta, children: list) -> ex.FacesDie:
        # `d{1..6}` is `d{1,2,3,4,5,6}`, and so is `d{6..1}`; `die_faces` takes the faces.
        low, high = sorted((children[0].value, children[1].value))
        return ex.FacesDie(tuple(range(low, min(high, low + MAX_RANGE_FACES) + 1)), span=span_of(meta),
                           written=f"{children[0].value}..{children[1].value}")

    def _modifier(self, meta: Meta, children: list, ops: tuple[str, ...]) -> ex.DiceModifier:
        token, value = children
        text = str(token)
        op = next(o for o in ops if text.startswith(o))
        compare = text[len(op) :] or None
        return ex.DiceModifier(op, compare, None if value is None else int(value), span=span_of(meta))

    def keep_drop(self, meta: Meta, children: list) -> ex.DiceModifier:
        return self._modifier(meta, children, ("kh", "kl", "dh", "dl", "ph", "pl", "k", "p", "d", "L", "H"))

    def explode(self, meta: Meta, children: list) -> ex.DiceModifier:
        return self._modifier(meta, children, ("!!", "!p", "!", "xo", "x", "e"))

    def reroll(self, meta: Meta, children: list) -> ex.DiceModifier:
        return self._modifier(meta, children, ("rr", "ro", "ra", "r"))

    def count_outcome(self, meta: Meta, children: list) -> ex.DiceModifier:
        return self._modifier(meta, children, ("cs", "cf", "df", "ms", "even", "odd"))

    def clamp(self, meta: Meta, children: list) -> ex.DiceModifier:
        return self._modifier(meta, children, ("min", "max", "mi", "ma"))

    def unique(self, meta: Meta, children: list) -> ex.DiceModifier:
        return ex.DiceModifier("u", None, None, span=span_of(meta))

    def sort(self, meta: Meta, children: list) -> ex.DiceModifier:
        text = str(children[0])
        return ex.DiceModifier("sd" if text == "sd" else "sa", None, None, span=span_of(meta))


