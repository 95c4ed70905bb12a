"""Expression and dice nodes: frozen attrs classes whose equality ignores spans.

Every node prints back to canonical notation with ``str()``; printing adds the
parentheses that precedence needs, so ``parse(str(node)) == node``.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

import attrs

from runebook.dsl.source import Span

__all__ = [
    "And",
    "Attribute",
    "Binary",
    "Call",
    "Comprehension",
    "Compare",
    "Conditional",
    "Decimal",
    "Dice",
    "DiceModifier",
    "Expr",
    "FacesDie",
    "Index",
    "ListOf",
    "Name",
    "Not",
    "Number",
    "Or",
    "Possessive",
    "Rating",
    "RecordOf",
    "SidesDie",
    "String",
    "Unary",
    "flatten_chain",
    "nodes",
    "precedence",
]

_span = attrs.field(default=None, eq=False, repr=False, kw_only=True)


@attrs.frozen
class Expr:
    """Base of all expression nodes."""

    def children(self) -> tuple[Expr, ...]:
        return ()


@attrs.frozen
class Number(Expr):
    value: int
    span: Span | None = _span

    def __str__(self) -> str:
        return str(self.value)


@attrs.frozen
class Decimal(Expr):
    value: Fraction
    text: str = attrs.field(eq=False)
    span: Span | None = _span

    def __str__(self) -> str:
        return self.text


@attrs.frozen
class Rating(Expr):
    """A number with a letter suffix and an optional count, such as ``7M2`` or ``3D``.

    What the suffix means is up to the ruleset, never the interpreter.
    """

    base: int
    symbol: str
    count: int | None
    span: Span | None = _span

    def __str__(self) -> str:
        return f"{self.base}{self.symbol}{'' if self.count is None else self.count}"


@attrs.frozen
class String(Expr):
    value: str
    span: Span | None = _span

    def __str__(self) -> str:
        return f'"{self.value}"'


@attrs.frozen
class Name(Expr):
    """A name of one or more words: ``Level``, ``Blade Length``."""

    words: tuple[str, ...]
    span: Span | None = _span

    @property
    def text(self) -> str:
        return " ".join(self.words)

    def __str__(self) -> str:
        return self.text


@attrs.frozen
class Possessive(Expr):
    """``Target's Defense``: a property of something a name refers to."""

    owner: Expr
    prop: Name
    apostrophe: str = attrs.field(default="'", eq=False)
    span: Span | None = _span

    def children(self) -> tuple[Expr, ...]:
        return (self.owner, self.prop)

    def __str__(self) -> str:
        return f"{self.owner}{self.apostrophe}s {self.prop}"


@attrs.frozen
class Attribute(Expr):
    obj: Expr
    name: str
    span: Span | None = _span

    def children(self) -> tuple[Expr, ...]:
        return (self.obj,)

    def __str__(self) -> str:
        return f"{_wrap(self.obj, POSTFIX)}.{self.name}"


@attrs.frozen
class Index(Expr):
    """``Table[key]``: a lookup."""

    obj: Expr
    key: Expr
    span: Span | None = _span

    def children(self) -> tuple[Expr, ...]:
        return (self.obj, self.key)

    def __str__(self) -> str:
        return f"{_wrap(self.obj, POSTFIX)}[{self.key}]"


@attrs.frozen
class Call(Expr):
    func: Name
    args: tuple[Expr, ...]
    span: Span | None = _span

    def children(self) -> tuple[Expr, ...]:
        return self.args

    def __str__(self) -> str:
        return f"{self.func}({', '.join(map(str, self.args))})"


@attrs.frozen
class Unary(Expr):
    op: str
    operand: Expr
    span: Span | None = _span

    def children(self) -> tuple[Expr, ...]:
        return (self.operand,)

    def __str__(self) -> str:
        return f"{self.op}{_wrap(self.operand, UNARY)}"


@attrs.frozen
class Binary(Expr):
    """Arithmetic: ``+ - * / // % **``."""

    op: str
    left: Expr
    right: Expr
    span: Span | None = _span

    def children(self) -> tuple[Expr, ...]:
        return (self.left, self.right)

    def __str__(self) -> str:
        # Iterative over a left-leaning chain (`1 + 2 + ... + 2000`), so long sums print.
        level = precedence(self)
        if level == POWER:  # right-associative: the left side needs brackets at its own level
            return f"{_wrap(self.left, POWER + 1)} ** {_wrap(self.right, UNARY)}"
        operands = flatten_chain(self)
        parts = [_wrap(operands[0][1], level)]
        for op, operand in operands[1:]:
            parts.append(f" {op} {_wrap(operand, level + 1)}")
        return "".join(parts)


@attrs.frozen
class Compare(Expr):
    """``a op b``; ``failures`` is a failure target written after a success target
    (``3d6>3f1``: dice over 3 count +1, ones count -1)."""

    op: str
    left: Expr
    right: Expr
    span: Span | None = _span
    failures: DiceModifier | None = None

    def children(self) -> tuple[Expr, ...]:
        return (self.left, self.right)

    def __str__(self) -> str:
        tail = "" if self.failures is None else str(self.failures)
        return f"{_wrap(self.left, SUM)} {self.op} {_wrap(self.right, SUM)}{tail}"


@attrs.frozen
class Not(Expr):
    operand: Expr
    span: Span | None = _span

    def children(self) -> tuple[Expr, ...]:
        return (self.operand,)

    def __str__(self) -> str:
        return f"not {_wrap(self.operand, NOT)}"


@attrs.frozen
class And(Expr):
    left: Expr
    right: Expr
    span: Span | None = _span

    def children(self) -> tuple[Expr, ...]:
        return (self.left, self.right)

    def __str__(self) -> str:
        return f"{_wrap(self.left, AND)} and {_wrap(self.right, AND + 1)}"


@attrs.frozen
class Or(Expr):
    left: Expr
    right: Expr
    span: Span | None = _span

    def children(self) -> tuple[Expr, ...]:
        return (self.left, self.right)

    def __str__(self) -> str:
        return f"{_wrap(self.left, OR)} or {_wrap(self.right, OR + 1)}"


@attrs.frozen
class Conditional(Expr):
    """``then if condition else otherwise``."""

    then: Expr
    condition: Expr
    otherwise: Expr
    span: Span | None = _span

    def children(self) -> tuple[Expr, ...]:
        return (self.then, self.condition, self.otherwise)

    def __str__(self) -> str:
        return f"{_wrap(self.then, OR)} if {_wrap(self.condition, OR)} else {self.otherwise}"


@attrs.frozen
class SidesDie:
    """A die numbered 1..sides; ``%`` is a d100, ``F`` a fudge die (-1, 0, +1) and ``F.1``
    the fudge variant with four blanks."""

    sides: int | str
    span: Span | None = _span

    def faces(self) -> tuple[int, ...]:
        if self.sides == "%":
            return tuple(range(1, 101))
        if self.sides == "F":
            return (-1, 0, 1)
        if self.sides == "F.1":  # Roll20's variant: one minus, one plus, four blanks
            return (-1, 0, 0, 0, 0, 1)
        assert isinstance(self.sides, int)
        return tuple(range(1, self.sides + 1))

    def __str__(self) -> str:
        return f"d{self.sides}"


@attrs.frozen
class FacesDie:
    """A die with the listed faces: ``d{1,1,2,3}``; ``d{0..9}`` lists a range (``written``
    keeps the list as written, ranges and all, for printing; equality ignores it)."""

    values: tuple[int, ...]
    span: Span | None = _span
    written: str | None = attrs.field(default=None, eq=False, repr=False, kw_only=True)

    def faces(self) -> tuple[int, ...]:
        return self.values

    def __str__(self) -> str:
        return "d{" + (self.written or ",".join(map(str, self.values))) + "}"


@attrs.frozen
class DiceModifier:
    """A dice operator: keep/drop (``kh``), explode (``x``, ``!``, ``!!``), reroll (``r``,
    ``ro``) or count (``cs``, ``cf``), with an optional comparison and number."""

    op: str
    compare: str | None
    value: int | None
    span: Span | None = _span

    def __str__(self) -> str:
        return f"{self.op}{self.compare or ''}{'' if self.value is None else self.value}"


@attrs.frozen
class Dice(Expr):
    """``NdX`` with its modifiers; the count may be any expression."""

    count: Expr | None
    die: SidesDie | FacesDie
    modifiers: tuple[DiceModifier, ...] = ()
    span: Span | None = _span

    def children(self) -> tuple[Expr, ...]:
        return (self.count,) if self.count is not None else ()

    def __str__(self) -> str:
        count = ""
        if isinstance(self.count, Number):
            count = str(self.count)
        elif isinstance(self.count, Name):
            count = f"{self.count} "
        elif self.count is not None:
            count = f"({self.count})"
        return count + str(self.die) + "".join(map(str, self.modifiers))


@attrs.frozen
class RollGroup(Expr):
    """A roll group ``{4d6+3, 2d8}kh1``: sub-rolls whose totals are kept or dropped like
    dice (keep/drop, success targets); the group's value is the sum of the kept totals."""

    items: tuple[Expr, ...]
    modifiers: tuple[DiceModifier, ...] = ()
    span: Span | None = _span

    def children(self) -> tuple[Expr, ...]:
        return self.items

    def __str__(self) -> str:
        return "{" + ", ".join(map(str, self.items)) + "}" + "".join(map(str, self.modifiers))


@attrs.frozen
class ListOf(Expr):
    """``[a, b, c]``: a list of values, in order."""

    items: tuple[Expr, ...]
    span: Span | None = _span

    def children(self) -> tuple[Expr, ...]:
        return self.items

    def __str__(self) -> str:
        return f"[{', '.join(map(str, self.items))}]"


@attrs.frozen
class Comprehension(Expr):
    """``[value for NAME in collection if condition]``: a list made from another, item by
    item (the condition, when given, keeps only the items it holds for)."""

    value: Expr
    name: str
    collection: Expr
    condition: Expr | None = None
    span: Span | None = _span

    def children(self) -> tuple[Expr, ...]:
        return (self.value, self.collection) + ((self.condition,) if self.condition is not None else ())

    def __str__(self) -> str:
        condition = f" if {_wrap(self.condition, OR)}" if self.condition is not None else ""
        return f"[{self.value} for {self.name} in {_wrap(self.collection, OR)}{condition}]"


@attrs.frozen
class RecordOf(Expr):
    """``{name: value, ...}``: named values, read as ``r.name``."""

    fields: tuple[tuple[str, Expr], ...]
    span: Span | None = _span

    def children(self) -> tuple[Expr, ...]:
        return tuple(value for _, value in self.fields)

    def __str__(self) -> str:
        return "{" + ", ".join(f"{name}: {value}" for name, value in self.fields) + "}"


# Precedence levels, lowest binding first.
CONDITIONAL, OR, AND, NOT, COMPARE, SUM, PRODUCT, UNARY, POWER, POSTFIX, ATOM = range(11)


def nodes(expr: Expr) -> Iterator[Expr]:
    """Every node of an expression, itself included (in no particular order)."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.children())


def precedence(node: Expr) -> int:
    match node:
        case Conditional():
            return CONDITIONAL
        case Or():
            return OR
        case And():
            return AND
        case Not():
            return NOT
        case Compare():
            return COMPARE
        case Binary(op="**"):
            return POWER
        case Binary(op=op):
            return SUM if op in "+-" else PRODUCT
        case Unary():
            return UNARY
        case Index() | Attribute():
            return POSTFIX
        case Dice(count=count) if count is not None and not isinstance(count, Number):
            # `pool d10` reads as one unit only where a postfix would.
            return POSTFIX
        case _:
            return ATOM


def flatten_chain(node: Binary) -> list[tuple[str | None, Expr]]:
    """A left-leaning chain of operators of one precedence level, ``a + b - c``, as
    ``[(None, a), ("+", b), ("-", c)]``, without recursion."""
    level = precedence(node)
    if level == POWER:  # right-associative: no left-leaning chain
        return [(None, node.left), (node.op, node.right)]
    parts: list[tuple[str | None, Expr]] = []
    current: Expr = node
    while isinstance(current, Binary) and precedence(current) == level:
        parts.append((current.op, current.right))
        current = current.left
    parts.append((None, current))
    parts.reverse()
    return parts


def _wrap(node: Expr, level: int) -> str:
    text = str(node)
    return f"({text})" if precedence(node) < level else text


# Compare is non-associative: `a < b < c` does not parse, so both sides need SUM level.
