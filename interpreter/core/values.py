"""Run-time values of expressions, and how they print.

An expression evaluates to one of: ``int`` or ``Fraction`` (numbers; ``/`` is exact and
rounding is explicit), ``bool``, ``str``, ``None`` (nothing: the highest die of an empty
pool), :class:`Rating` (``7M2``: a number with a letter suffix and a count, whose meaning
a ruleset defines), a mapping (a record: ``Target's Defense`` looks up ``Defense`` in the
record ``Target``), :class:`Table`, :class:`Function`, or a pool (see
:mod:`interpreter.core.dice`).

Two values exist only while computing exact odds:

- :class:`Bound` (``21+``): a number known to be at least some value. Explosions never
  end in principle; beyond the depth limit the engine knows only a lower bound, which is
  still enough to decide ``count >= 3`` or a table row ``3+``.
- :data:`UNKNOWN`: a value the engine cannot know. Arithmetic keeps it unknown; deciding
  anything with it raises :class:`Undetermined`, and that world's probability goes to the
  residual of the distribution instead of to a wrong outcome.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from fractions import Fraction
from typing import Any

import attrs

__all__ = [
    "Record",
    "UNKNOWN",
    "Bound",
    "Derived",
    "Function",
    "Rating",
    "Table",
    "Undetermined",
    "equal",
    "format_value",
    "is_number",
    "json_value",
    "normalize",
    "outcome_sort_key",
]

Number = int | Fraction


class Undetermined(Exception):
    """Raised (only while computing odds) when a decision depends on an unknown value."""


def normalize(value: Any) -> Any:
    """A Fraction with denominator 1 becomes an int, so ``4/2`` prints ``2``."""
    if type(value) is Fraction and value.denominator == 1:
        return value.numerator
    return value


def is_number(value: Any) -> bool:
    return type(value) in (int, Fraction, bool, Bound)


@attrs.frozen(order=False)
class Bound:
    """A number known only to be at least ``low`` (printed ``low+``)."""

    low: Number

    def __str__(self) -> str:
        return f"{format_value(self.low)}+"

    # Arithmetic that keeps a lower bound; anything else is undetermined.
    def __add__(self, other: Any) -> Any:
        if other is UNKNOWN:
            return UNKNOWN
        if isinstance(other, Bound):
            return Bound(self.low + other.low)
        if type(other) in (int, Fraction, bool):
            return Bound(normalize(self.low + other))
        return NotImplemented

    __radd__ = __add__

    def __sub__(self, other: Any) -> Any:
        if other is UNKNOWN:
            return UNKNOWN
        if type(other) in (int, Fraction, bool):
            return Bound(normalize(self.low - other))
        raise Undetermined

    def __rsub__(self, other: Any) -> Any:
        raise Undetermined

    def __mul__(self, other: Any) -> Any:
        if other is UNKNOWN:
            return UNKNOWN
        if isinstance(other, Bound):
            if self.low >= 0 and other.low >= 0:
                return Bound(self.low * other.low)
            raise Undetermined
        if type(other) in (int, Fraction, bool):
            if other > 0:
                return Bound(normalize(self.low * other))
            if other == 0:
                return 0
            raise Undetermined
        return NotImplemented

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Any:
        if type(other) in (int, Fraction) and other > 0:
            return Bound(normalize(Fraction(self.low) / other))
        raise Undetermined

    def __floordiv__(self, other: Any) -> Any:
        if type(other) in (int, Fraction) and other > 0:
            return Bound(self.low // other)
        raise Undetermined

    def __rtruediv__(self, other: Any) -> Any:
        raise Undetermined

    __rfloordiv__ = __rtruediv__
    __mod__ = __rtruediv__
    __rmod__ = __rtruediv__

    def __neg__(self) -> Any:
        raise Undetermined

    def __pos__(self) -> Bound:
        return self

    def __abs__(self) -> Any:
        if self.low >= 0:
            return self
        raise Undetermined

    def __floor__(self) -> Bound:
        return Bound(math.floor(self.low))

    def __ceil__(self) -> Bound:
        return Bound(math.ceil(self.low))

    # Ordering against numbers: decided when the bound settles it.
    def __ge__(self, other: Any) -> bool:
        if type(other) in (int, Fraction, bool) and self.low >= other:
            return True
        raise Undetermined

    def __gt__(self, other: Any) -> bool:
        if type(other) in (int, Fraction, bool) and self.low > other:
            return True
        raise Undetermined

    def __le__(self, other: Any) -> bool:
        if type(other) in (int, Fraction, bool) and self.low > other:
            return False
        raise Undetermined

    def __lt__(self, other: Any) -> bool:
        if type(other) in (int, Fraction, bool) and self.low >= other:
            return False
        raise Undetermined

    def __bool__(self) -> bool:
        if self.low > 0:
            return True
        raise Undetermined


class _Unknown:
    """The single unknown value (see the module docstring)."""

    _instance: _Unknown | None = None

    def __new__(cls) -> _Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"

    def _same(self, *_: Any) -> _Unknown:
        return self

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _same
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _same
    __neg__ = __pos__ = __abs__ = __floor__ = __ceil__ = _same

    def _undetermined(self, *_: Any) -> Any:
        raise Undetermined

    __lt__ = __le__ = __gt__ = __ge__ = __bool__ = _undetermined  # type: ignore[assignment]


UNKNOWN = _Unknown()


def equal(left: Any, right: Any) -> bool:
    """The language's ``==``: exact, and aware of :class:`Bound` and :data:`UNKNOWN`."""
    if left is UNKNOWN or right is UNKNOWN:
        raise Undetermined
    if isinstance(left, Bound) or isinstance(right, Bound):
        bound, other = (left, right) if isinstance(left, Bound) else (right, left)
        if type(other) in (int, Fraction, bool) and bound.low > other:
            return False
        raise Undetermined
    if type(left) is str or type(right) is str:
        return type(left) is type(right) and left == right
    return bool(left == right)


class Record(Mapping):  # type: ignore[type-arg]
    """Named values read as ``r.name`` (a check's results): immutable and hashable, so a
    record can be part of a procedure's state for exact odds."""

    __slots__ = ("_items", "_hash")

    def __init__(self, items: Mapping[str, Any] | Iterable[tuple[str, Any]] = ()) -> None:
        self._items = dict(items)
        self._hash: int | None = None

    def __getitem__(self, key: str) -> Any:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(tuple(self._items.items()))
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Record) and self._items == other._items

    def __repr__(self) -> str:
        return f"Record({self._items!r})"


@attrs.frozen(order=False, cache_hash=True)  # hashed in every key of exact odds' memos
class Level:
    """A named outcome in an ordered group (``levels Result: fumble < ... < critical``).

    Levels of one group compare by their order; ``rank`` is the position, from 0.
    """

    group: str
    name: str
    rank: int = attrs.field(eq=False)
    names: tuple[str, ...] = attrs.field(eq=False, repr=False, default=())

    def __str__(self) -> str:
        return self.name

    def _rank_of(self, other: object) -> int:
        if not isinstance(other, Level) or other.group != self.group:
            raise TypeError(f"levels of '{self.group}' compare only with each other")
        return other.rank

    def __lt__(self, other: object) -> bool:
        return self.rank < self._rank_of(other)

    def __le__(self, other: object) -> bool:
        return self.rank <= self._rank_of(other)

    def __gt__(self, other: object) -> bool:
        return self.rank > self._rank_of(other)

    def __ge__(self, other: object) -> bool:
        return self.rank >= self._rank_of(other)

    def moved(self, steps: int) -> Level:
        """The level ``steps`` places up (or down), held at the ends of the group."""
        rank = max(0, min(len(self.names) - 1, self.rank + steps))
        return Level(self.group, self.names[rank], rank, self.names)


@attrs.frozen
class Rating:
    """A rating literal such as ``7M2``: ``base`` 7, ``symbol`` ``M``, ``count`` 2.

    Its fields are reachable as ``r.base``, ``r.symbol`` and ``r.count``; what the suffix
    means (and how ratings compare or add) is up to a ruleset.

    A bonus in the same notation carries a ``sign`` (+1 or -1; 0 for a rating): ``+M`` is
    base 0, one ``M``; ``-M2`` two ``M`` taken away; ``+5M`` base 5 and one ``M``
    (``rating_value`` gives their signed value).
    """

    base: int
    symbol: str
    count: int | None = None
    sign: int = 0

    def __str__(self) -> str:
        text = f"{self.base}{self.symbol}{'' if self.count is None else self.count}"
        if self.sign:
            return ("+" if self.sign > 0 else "-") + (text if self.base else text[1:])
        return text


_MISSING: Any = object()


@attrs.frozen
class Table:
    """A lookup table: rows of ``(key, value)``.

    A key is ``("value", v)`` (an exact key: a number, or text matched ignoring case,
    spaces, hyphens and underscores), or ``("range", low, high)`` (numbers from ``low`` to
    ``high`` inclusive; ``None`` leaves a side open, so ``("range", 3, None)`` is the row
    ``3+``). The first matching row wins; ``default`` answers when none matches. A row's
    value may be a :class:`Derived` (an expression), computed when the row is looked up.
    """

    name: str
    rows: tuple[tuple[tuple[Any, ...], Any], ...]
    default: Any = _MISSING

    def lookup(self, key: Any) -> Any:
        """The value for ``key``; raises ``LookupError`` when no row matches."""
        if isinstance(key, Bound):
            return self._lookup_bound(key)
        if key is UNKNOWN:
            raise Undetermined
        for row_key, value in self.rows:
            if _row_matches(row_key, key):
                return value
        if self.default is not _MISSING:
            return self.default
        raise LookupError(key)

    def _lookup_bound(self, key: Bound) -> Any:
        # Decidable when every value >= key.low falls in the same open-ended row.
        for row_key, value in self.rows:
            if row_key[0] == "range" and row_key[2] is None and row_key[1] <= key.low:
                earlier = self.rows[: self.rows.index((row_key, value))]
                if all(not _could_match_above(k, key.low) for k, _ in earlier):
                    return value
                break
        raise Undetermined

    def keys(self) -> list[str]:
        return [_format_row_key(k) for k, _ in self.rows]


def _row_matches(row_key: tuple[Any, ...], key: Any) -> bool:
    if row_key[0] == "value":
        if is_number(row_key[1]) and is_number(key):
            return equal(row_key[1], key)
        if type(row_key[1]) is str and type(key) is str:
            return _folded(row_key[1]) == _folded(key)
        return type(row_key[1]) is type(key) and row_key[1] == key
    if not is_number(key) or isinstance(key, bool):
        return False
    low, high = row_key[1], row_key[2]
    return (low is None or key >= low) and (high is None or key <= high)


def _folded(text: str) -> str:
    return "".join(text.casefold().split()).replace("_", "").replace("-", "")


def _could_match_above(row_key: tuple[Any, ...], low: Number) -> bool:
    if row_key[0] == "value":
        return is_number(row_key[1]) and row_key[1] >= low
    return row_key[2] is None or row_key[2] >= low


def _format_row_key(row_key: tuple[Any, ...]) -> str:
    if row_key[0] == "value":
        return format_value(row_key[1])
    low, high = row_key[1], row_key[2]
    if high is None:
        return f"{format_value(low)}+"
    if low is None:
        return f"{format_value(high)}-"
    return f"{format_value(low)}-{format_value(high)}" if low != high else format_value(low)


@attrs.frozen
class Function:
    """A pure function defined in rules: ``name(params) = body``.

    Calls bind the parameters over the environment the function was defined in
    (``env``); recursion is bounded by ``Limits.max_depth``.
    """

    name: str
    params: tuple[str, ...]
    body: Any  # dsl.expr_ast.Expr
    env: Any = None
    source: Any = None  # dsl.source.Source of the body, for carets


@attrs.frozen
class Derived:
    """A value defined by an expression (a derived stat), evaluated in ``env`` each time
    it is looked up; a definition that depends on itself is a diagnostic."""

    name: str
    expr: Any  # dsl.expr_ast.Expr
    env: Any = None
    source: Any = None


def format_value(value: Any) -> str:
    if isinstance(value, Level):
        return value.name
    """How a value prints in traces, tables and JSON keys."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "none"
    if type(value) is Fraction:
        return fraction_text(value)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {format_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, tuple | list):  # a list, as the language writes one
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    return str(value)


def json_value(value: Any) -> Any:
    """A JSON-ready form: numbers stay numbers, fractions become ``"7/2"`` strings."""
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is Fraction:
        return format_value(value)
    if isinstance(value, Mapping):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [json_value(v) for v in value]
    return format_value(value)


def outcome_sort_key(value: Any) -> tuple[int, Any, int]:
    """Orders outcomes for display: nothing, booleans, numbers (``21+`` after 21), text."""
    if value is None:
        return (0, 0, 0)
    if type(value) is bool:
        return (1, int(value), 0)
    if type(value) in (int, Fraction):
        return (2, value, 0)
    if isinstance(value, Bound):
        return (2, value.low, 1)
    if isinstance(value, Level):
        return (3, value.rank, 0)
    if type(value) is str:
        return (4, value, 0)
    if isinstance(value, tuple):
        return (5, tuple(outcome_sort_key(v) for v in value), 0)
    return (6, format_value(value), 0)


#: Digits converted at a time for a whole number longer than Python's conversion limit.
_CHUNK = 4000


def integer_text(value: int) -> str:
    """A whole number's digits, however many: exact odds of a long chain have fractions of
    thousands of digits, beyond what ``str`` converts at once (``sys.get_int_max_str_digits``)."""
    if value.bit_length() < 13_000:  # under 4,300 digits
        return str(value)
    if value < 0:
        return "-" + integer_text(-value)
    chunks = []
    scale = 10 ** _CHUNK
    while value >= scale:
        value, low = divmod(value, scale)
        chunks.append(str(low).zfill(_CHUNK))
    chunks.append(str(value))
    return "".join(reversed(chunks))


def fraction_text(value: Fraction) -> str:
    """``numerator/denominator`` (or the whole number), of any length."""
    if value.denominator == 1:
        return integer_text(value.numerator)
    return f"{integer_text(value.numerator)}/{integer_text(value.denominator)}"
