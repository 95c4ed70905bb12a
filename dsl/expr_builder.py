"""Parse tree → expression nodes (`dsl.expr_ast`), one method per rule of expr.lark."""

from __future__ import annotations

from fractions import Fraction

from lark import Token, Transformer, v_args
from lark.tree import Meta

from dsl import expr_ast as ex
from dsl.source import Span

__all__ = ["ExprBuilder", "span_of"]


def span_of(item: Meta | Token) -> Span:
    return Span(item.line, item.column, item.end_line, item.end_column)


@v_args(meta=True)
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
        return ex.Name(tuple(str(c) for c in children), span=span_of(meta))

    def possessive(self, meta: Meta, children: list) -> ex.Possessive:
        owner, mark, prop = children
        return ex.Possessive(owner, prop, str(mark)[0], span=span_of(meta))

    def attribute(self, meta: Meta, children: list) -> ex.Attribute:
        return ex.Attribute(children[0], str(children[1]), span=span_of(meta))

    def index(self, meta: Meta, children: list) -> ex.Index:
        return ex.Index(children[0], children[1], span=span_of(meta))

    def call(self, meta: Meta, children: list) -> ex.Call:
        func, *args = children
        return ex.Call(func, tuple(a for a in args if a is not None), span=span_of(meta))

    def unary(self, meta: Meta, children: list) -> ex.Unary:
        return ex.Unary(str(children[0]), children[1], span=span_of(meta))

    def binary(self, meta: Meta, children: list) -> ex.Binary:
        left, op, right = children
        return ex.Binary(str(op), left, right, span=span_of(meta))

    def compare(self, meta: Meta, children: list) -> ex.Compare:
        left, op, right = children
        return ex.Compare(str(op), left, right, span=span_of(meta))

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
        return ex.SidesDie(int(sides) if sides.isdigit() else sides, span=span_of(meta))

    def die_faces(self, meta: Meta, children: list) -> ex.FacesDie:
        return ex.FacesDie(tuple(c.value for c in children), span=span_of(meta))

    def _modifier(self, meta: Meta, children: list, ops: tuple[str, ...]) -> ex.DiceModifier:
        token, value = children
        text = str(token)
        op = next(o for o in ops if text.startswith(o))
        compare = text[len(op) :] or None
        return ex.DiceModifier(op, compare, None if value is None else int(value), span=span_of(meta))

    def keep_drop(self, meta: Meta, children: list) -> ex.DiceModifier:
        return self._modifier(meta, children, ("kh", "kl", "dh", "dl", "k"))

    def explode(self, meta: Meta, children: list) -> ex.DiceModifier:
        return self._modifier(meta, children, ("!!", "!", "x"))

    def reroll(self, meta: Meta, children: list) -> ex.DiceModifier:
        return self._modifier(meta, children, ("ro", "r"))

    def count_outcome(self, meta: Meta, children: list) -> ex.DiceModifier:
        return self._modifier(meta, children, ("cs", "cf"))


