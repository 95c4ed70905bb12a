"""The types of the rules language, as the static check stage (dsl.typecheck) sees values.

A :class:`Type` is a frozen value: a ``kind`` and, for some kinds, what it is of:

========== =========================================== ====================================
kind       values                                      detail
========== =========================================== ====================================
any        what cannot be known (never an error)
number     whole numbers and fractions
rating     a number or a rating literal (``7M2``)
level      a named outcome of an ordered group          ``name``: the group
boolean    true/false (counts as 1 and 0 in arithmetic)
text       ``"fire"``
none       nothing (``none``, ``highest()`` of no dice)
pool       the dice of a roll (reads as a number)       ``each``: die by die (``each(dice)``)
table      a lookup table                               ``name``; ``of``: the rows' type
function   a function, a check or a host function       ``name``
record     named fields (a check's results)             ``name``; ``fields`` (None: unknown);
                                                       ``open``: missing fields are not errors
list       a list                                       ``of``: the items' type
entity     a character taking part (actor, target)
entry      a content entry                              ``name``: its kind
cell       a cell of a grid
cells      a set of cells of a grid
union      one of several                               ``members``
========== =========================================== ====================================

:func:`join` is the type of a value that may come from either of two places (the branches of
a conditional, the ``set`` lines of a procedure). The checker is permissive: ``any`` never
gives an error, ``none`` in a union is not held against an operation (``highest(dice) or 1``),
and a union is only an error where none of its members fits.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from runebook.dsl.vocabulary import fold

__all__ = [
    "ANY", "BOOLEAN", "CELL", "CELLS", "ENTITY", "NONE", "NUMBER", "POOL", "RATING", "TEXT",
    "Type", "accepts", "describe", "entry", "function", "join", "level", "list_of", "members",
    "record", "table",
]

#: More members than this and a union is simply ``any``.
MAX_UNION = 6


@attrs.frozen
class Type:
    """One type; build them with the constants and helpers of this module."""

    kind: str
    name: str | None = None
    of: Type | None = None
    fields: tuple[tuple[str, Type], ...] | None = None
    members: frozenset[Type] = frozenset()
    each: bool = False
    #: A record whose missing fields are someone else's to report (a ``do`` label: E0622).
    open: bool = False

    def __str__(self) -> str:
        return describe(self)

    def field(self, name: str) -> Type | None:
        """A record's field by name (names match as everywhere), or None."""
        key = fold(name)
        return next((t for n, t in self.fields or () if fold(n) == key), None)


ANY = Type("any")
NUMBER = Type("number")
RATING = Type("rating")
BOOLEAN = Type("boolean")
TEXT = Type("text")
NONE = Type("none")
POOL = Type("pool")
ENTITY = Type("entity")
CELL = Type("cell")
CELLS = Type("cells")
#: Kinds that need no detail, by name (the signature notation of dsl.builtins reads them).
#: Words that are values in every game (never a level a table's row would define).
LITERAL_WORDS = frozenset({"true", "false", "none"})

SIMPLE = {t.kind: t for t in (ANY, NUMBER, RATING, BOOLEAN, TEXT, NONE, POOL, ENTITY, CELL, CELLS)}


def level(group: str | None = None) -> Type:
    return Type("level", group)


def entry(kind: str | None = None) -> Type:
    return Type("entry", kind)


def table(name: str | None = None, rows: Type = ANY) -> Type:
    return Type("table", name, of=rows)


def function(name: str | None = None) -> Type:
    return Type("function", name)


def record(name: str | None = None, fields: Iterable[tuple[str, Type]] | None = None, *,
           open: bool = False) -> Type:
    return Type("record", name, fields=None if fields is None else tuple(fields), open=open)


def list_of(item: Type = ANY) -> Type:
    return Type("list", of=item)


def members(t: Type) -> tuple[Type, ...]:
    """The members of a union (a plain type is its own only member)."""
    return tuple(sorted(t.members, key=_order)) if t.kind == "union" else (t,)


def _order(t: Type) -> tuple[str, str]:
    return (t.kind, describe(t))


def _same(a: Type, b: Type) -> bool:
    if a.kind != b.kind:
        return False
    if a.kind in ("level", "entry"):
        return fold(a.name or "") == fold(b.name or "")
    return a == b


def join(a: Type, b: Type) -> Type:
    """A value that is of type ``a`` or of type ``b``."""
    if a is b or a == b:
        return a
    if a.kind == "any" or b.kind == "any":
        return ANY
    found: list[Type] = []
    for t in members(a) + members(b):
        for index, seen in enumerate(found):
            if _same(seen, t):
                break
            merged = _merge(seen, t)
            if merged is not None:
                found[index] = merged
                break
        else:
            found.append(t)
    if len(found) == 1:
        return found[0]
    if len(found) > MAX_UNION:
        return ANY
    return Type("union", members=frozenset(found))


def _merge(a: Type, b: Type) -> Type | None:
    """Two types of one kind that join into one of that kind (two levels of unknown group, two
    lists), or None."""
    if a.kind != b.kind:
        return None
    if a.kind == "list":
        return list_of(join(a.of or ANY, b.of or ANY))
    if a.kind == "pool":
        return POOL
    if a.kind in ("level", "entry") and (a.name is None or b.name is None):
        return Type(a.kind)
    if a.kind == "record" and a.name is not None and a.name == b.name:
        return record(a.name) if a.fields != b.fields else a
    if a.kind in ("table", "function"):
        return Type(a.kind) if a.name != b.name else a
    return None


def without_none(t: Type) -> Type:
    """``t`` without its ``none`` member (what ``x or y`` keeps of ``x``); ``none`` itself stays."""
    kept = [m for m in members(t) if m.kind != "none"]
    if not kept:
        return t
    result = kept[0]
    for m in kept[1:]:
        result = join(result, m)
    return result


# ---------------------------------------------------------------- compatibility

#: What each kind also passes for: a true/false is a number (1 or 0), a pool reads as its
#: number and is true when it holds a die, a rating may be a plain number.
_PASSES_FOR = {
    "number": {"rating"},
    "boolean": {"number"},
    "pool": {"number", "boolean"},
}


def accepts(wanted: Type, given: Type) -> bool:
    """Whether a value of type ``given`` may stand where ``wanted`` is needed.

    Permissive: ``any`` on either side fits; a union fits when one of its members (other than
    ``none``) does, and a wanted union when one of its members takes ``given``.
    """
    if wanted.kind == "any" or given.kind == "any":
        return True
    if given.kind == "union":
        return any(accepts(wanted, m) for m in members(given) if m.kind != "none") or all(
            m.kind == "none" for m in members(given))
    if wanted.kind == "union":
        return any(accepts(m, given) for m in members(wanted))
    if given.kind == "none":
        return True  # nothing is a value of its own; what it means is the author's to decide
    if wanted.kind == given.kind:
        if wanted.kind in ("level", "entry"):
            return wanted.name is None or given.name is None or fold(wanted.name) == fold(given.name)
        if wanted.kind == "list":
            return accepts(wanted.of or ANY, given.of or ANY)
        return True
    return wanted.kind in _PASSES_FOR.get(given.kind, ())


def numeric(t: Type) -> bool:
    """Whether arithmetic takes it (a number, true/false, a pool; ``any``)."""
    return accepts(NUMBER, t)


def overlaps(a: Type, b: Type) -> bool:
    """Whether a value of ``a`` may equal a value of ``b`` (``==`` can be true)."""
    if a.kind in ("any", "none") or b.kind in ("any", "none"):
        return True
    if a.kind == "union" or b.kind == "union":
        return any(overlaps(x, y) for x in members(a) for y in members(b))
    numberish = {"number", "boolean", "pool", "rating"}
    if a.kind in numberish and b.kind in numberish:
        return True
    if a.kind != b.kind:
        return False
    if a.kind in ("level", "entry"):
        return a.name is None or b.name is None or fold(a.name) == fold(b.name)
    return True


# ---------------------------------------------------------------- words


_PHRASES = {
    "any": "anything",
    "number": "a number",
    "rating": "a rating",
    "boolean": "true/false",
    "text": "text",
    "none": "nothing",
    "pool": "a pool of dice",
    "entity": "a character",
    "cell": "a cell",
    "cells": "cells",
}


def describe(t: Type) -> str:
    """The type in words, for messages: ``a level of 'Result'``, ``the table 'Grade'``."""
    if t.kind in _PHRASES:
        return _PHRASES[t.kind]
    if t.kind == "level":
        return f"a level of '{t.name}'" if t.name else "a level"
    if t.kind == "entry":
        return f"an entry of kind '{t.name}'" if t.name else "an entry"
    if t.kind == "table":
        return f"the table '{t.name}'" if t.name else "a table"
    if t.kind == "function":
        return f"the function '{t.name}'" if t.name else "a function"
    if t.kind == "record":
        return f"the results of '{t.name}'" if t.name else "a record"
    if t.kind == "list":
        inner = t.of or ANY
        return "a list" if inner.kind == "any" else f"a list of {_plural(inner)}"
    parts = [describe(m) for m in members(t)]
    return ", ".join(parts[:-1]) + " or " + parts[-1]


def _plural(t: Type) -> str:
    """``numbers``, ``levels of 'Grade'``: what a list of ``t`` holds, in words."""
    if t.kind == "union":
        return " or ".join(_plural(m) for m in members(t))
    plural = {"boolean": "true/false values", "none": "nothings", "entity": "characters", "entry": "entries",
              "cells": "sets of cells", "text": "texts", "any": "values"}.get(t.kind, t.kind + "s")
    if t.kind in ("level", "record", "table", "function") and t.name:
        return f"{plural} of '{t.name}'"
    if t.kind == "entry" and t.name:
        return f"entries of kind '{t.name}'"
    return plural
