"""The one registry of builtin functions: name, parameters with types, result type and doc.

Both stages read it: the type checker (dsl.typecheck) checks every call against it, and the
evaluator (interpreter.core.evaluate) takes each builtin's number of arguments and its doc from it,
so the two cannot drift apart. Adding a builtin is one line here (and its implementation in
the interpreter):

    builtin("clamp(x: number, low: number, high: number) -> number", "clamp(x, low, high)")

The signature notation:

- ``NAME(PARAM, ...) -> RESULT``;
- a PARAM is ``name: TYPE``; ``name: TYPE = default`` may be left out (the default is shown
  for the reader); a last ``...`` repeats the parameter before it any number of times;
- a TYPE is a kind of dsl.types (``any``, ``number``, ``rating``, ``level``, ``boolean``,
  ``text``, ``none``, ``pool``, ``table``, ``function``, ``record``, ``list``, ``entity``,
  ``entry``, ``cell``, ``cells``), ``list[TYPE]``, an alias of :data:`ALIASES`, or several
  of these joined with ``|``;
- the RESULT is a TYPE, or the name of a parameter (the type of the argument given there:
  ``step(x: level, n: number) -> x``), or ``NAME.item`` (the item type of the list given for
  that parameter), or several of these joined with ``|``.

A parameter typed ``any`` takes anything: a builtin whose parameters are all ``any`` is
checked for its number of arguments only. A name registered twice has two overloads (say,
one over pools and one over lists): a call fits when it fits one of them.

``host=True`` marks a function the rules layer provides (it reads the characters and entries
taking part); the expression evaluator implements the others.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import attrs

from runebook.dsl import types as ty
from runebook.dsl.types import Type

__all__ = ["ALIASES", "BUILTINS", "FOREIGN", "GROUPS", "Builtin", "hidden_builtins", "Param", "Signature", "builtin",
           "foreign_help", "host_functions", "lookup", "parse_type"]

#: Names for unions that several signatures use.
ALIASES: dict[str, str] = {
    # where the grid takes a place: a cell, a character with a position, a list [q, r]
    "place": "cell | entity | list",
}


@attrs.frozen
class Param:
    name: str
    type: Type
    optional: bool = False


@attrs.frozen
class Signature:
    """One overload: its parameters (the last repeating when ``variadic``) and result."""

    text: str
    params: tuple[Param, ...]
    variadic: bool
    #: Alternatives of the result: a Type, or ``(parameter index, "type" | "item")``.
    result: tuple[Type | tuple[int, str], ...]

    @property
    def min_args(self) -> int:
        return sum(1 for p in self.params if not p.optional)

    @property
    def max_args(self) -> int | None:
        return None if self.variadic else len(self.params)

    def fits(self, count: int) -> bool:
        return count >= self.min_args and (self.max_args is None or count <= self.max_args)

    def param(self, index: int) -> Param:
        """The parameter an argument at ``index`` goes to (the repeated one past the end)."""
        return self.params[min(index, len(self.params) - 1)]

    def mismatch(self, args: Sequence[Type]) -> int | None:
        """The index of the first argument its parameter does not take, or None."""
        for index, given in enumerate(args):
            if not ty.accepts(self.param(index).type, given):
                return index
        return None

    def result_type(self, args: Sequence[Type]) -> Type:
        out: Type | None = None
        for part in self.result:
            if isinstance(part, Type):
                found = part
            else:
                index, what = part
                given = args[index] if index < len(args) else ty.ANY
                found = given if what == "type" else (given.of or ty.ANY) if given.kind == "list" else ty.ANY
            out = found if out is None else ty.join(out, found)
        return out or ty.ANY


@attrs.frozen
class Builtin:
    """A builtin function: its overloads and what it does."""

    name: str
    signatures: tuple[Signature, ...]
    doc: str
    host: bool = False
    #: A specialised group (``grid``, ``entry text``): in a ruleset, usable only after
    #: ``uses GROUP``; None: every ruleset has it.
    group: str | None = None

    @property
    def min_args(self) -> int:
        return min(s.min_args for s in self.signatures)

    @property
    def max_args(self) -> int | None:
        tops = [s.max_args for s in self.signatures]
        return None if None in tops else max(t for t in tops if t is not None)

    def expected(self) -> str:
        """How many arguments it takes, in words (for E0406)."""
        low, high = self.min_args, self.max_args
        if high is None:
            return f"at least {low}"
        return str(low) if low == high else f"{low} to {high}"


#: Every builtin, by its name folded to lower case (as calls find them).
BUILTINS: dict[str, Builtin] = {}

_SIGNATURE = re.compile(r"^\s*(#?\w+)\s*\((.*)\)\s*->\s*(.+?)\s*$")


def parse_type(text: str) -> Type:
    """A TYPE of the signature notation (see the module docstring)."""
    out: Type | None = None
    for part in _alternatives(text):
        found = _one_type(part)
        out = found if out is None else ty.join(out, found)
    if out is None:
        raise ValueError(f"no type in {text!r}")
    return out


def _alternatives(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in text:
        depth += char == "["
        depth -= char == "]"
        if char == "|" and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    parts.append(current.strip())
    return [p for p in parts if p]


def _one_type(text: str) -> Type:
    if text in ALIASES:
        return parse_type(ALIASES[text])
    if text.startswith("list[") and text.endswith("]"):
        return ty.list_of(parse_type(text[5:-1]))
    if text in ty.SIMPLE:
        return ty.SIMPLE[text]
    if text in ("level", "entry", "table", "function", "record", "list"):
        return Type(text) if text != "list" else ty.list_of()
    raise ValueError(f"unknown type {text!r} in a builtin's signature")


def _parse(text: str) -> tuple[str, Signature]:
    match = _SIGNATURE.match(text)
    if match is None:
        raise ValueError(f"not a signature: {text!r}")
    name, params_text, result_text = match.groups()
    params: list[Param] = []
    variadic = False
    for raw in (p.strip() for p in params_text.split(",") if p.strip()):
        if raw == "...":
            variadic = True
            continue
        head, _, default = raw.partition("=")
        pname, _, ptype = head.partition(":")
        pname = pname.strip()
        if pname in ty.SIMPLE or pname in ("level", "entry", "table", "function", "record", "list"):
            raise ValueError(f"a parameter of {name} is named like a type: {pname!r}")
        params.append(Param(pname, parse_type(ptype.strip() or "any"), optional=bool(default.strip())))
    names = [p.name for p in params]
    result: list[Type | tuple[int, str]] = []
    for part in _alternatives(result_text):
        base, _, item = part.partition(".")
        if base in names:
            result.append((names.index(base), "item" if item == "item" else "type"))
        else:
            result.append(parse_type(part))
    return name, Signature(text, tuple(params), variadic, tuple(result))


def builtin(signature: str, doc: str, *, host: bool = False, group: str | None = None) -> Builtin:
    """Register a builtin (or one more overload of it) from its one-line signature."""
    name, parsed = _parse(signature)
    key = name.casefold()
    known = BUILTINS.get(key)
    if known is not None:
        if known.host != host:
            raise ValueError(f"'{name}' is registered both as a host function and not")
        found = attrs.evolve(known, signatures=known.signatures + (parsed,))
    else:
        found = Builtin(name, (parsed,), doc, host, group)
    BUILTINS[key] = found
    return found


def lookup(name: str) -> Builtin | None:
    """The builtin a call of ``name`` reaches (builtins match by lower case, as calls do)."""
    return BUILTINS.get(name.casefold())


#: The specialised groups a ruleset opts into with ``uses GROUP``.
GROUPS = ("grid", "entry text")


def hidden_builtins(uses: Iterable[str]) -> frozenset[str]:
    """The builtins (by lower-case name) of the groups a ruleset does not use."""
    used = {" ".join(u.casefold().split()) for u in uses}
    return frozenset(key for key, b in BUILTINS.items() if b.group is not None and b.group not in used)


#: Functions of other languages and dice tools that the language spells otherwise, by lower-case
#: name: what to write instead (a near spelling, `sqrt` for `sort`, would mislead).
FOREIGN: dict[str, str] = {name: advice for names, advice in (
    (("len", "length", "size"), "count(xs) is how many items a list has"),
    (("pow",), "write a ** b"),
    (("int",), "floor(x) rounds down, round(x) to the nearest"),
    (("trunc",), "floor(x) rounds down, ceil(x) up"),
    (("sqrt",), "numbers stay exact, so there is no square root: compare squares instead (x * x <= n)"),
    (("mean", "avg", "average"), "sum(xs) / count(xs) is the mean of a list; 'runebook odds' shows a roll's mean"),
    (("median",), "sort(xs)[count(xs) // 2] is the middle item of a list"),
    (("random", "rand", "roll"), "dice are written as dice: 1d6 (a number from 1 to 6)"),
    (("print",), "'show NAME = value' on a line shows a value in the trace"),
) for name in names}


def foreign_help(name: str) -> str | None:
    """What to write instead of ``name``, a function of another language (None: not one)."""
    return FOREIGN.get(name.casefold())


def host_functions() -> tuple[str, ...]:
    """The names of the functions the rules layer provides."""
    return tuple(b.name for b in BUILTINS.values() if b.host)


# ---------------------------------------------------------------- the expression language

builtin("rank(x: level) -> number", "the position of a level in its group, from 0")
builtin("rating_value(r: rating, size: number) -> number",
        "rating_value(r, size): a rating as one number, its symbol worth size each time it is "
        "counted (7M2 with size 20 is 47; 7M counts once); a number is itself")
builtin("step(x: level, n: number) -> x",
        "step(level, n): the level n places higher (lower if n < 0), held at the ends")
builtin("min(x: number | list[number], ...) -> number", "the smallest of its arguments (and of the items of lists); "
        "of levels of one group, the lowest")
builtin("min(x: level | list[level], ...) -> x.item | x", "the lowest of levels of one group")
builtin("max(x: number | list[number], ...) -> number", "the largest of its arguments (and of the items of lists); "
        "of levels of one group, the highest")
builtin("max(x: level | list[level], ...) -> x.item | x", "the highest of levels of one group")
builtin("floor(x: number) -> number", "round down")
builtin("ceil(x: number) -> number", "round up")
builtin("round(x: number) -> number", "round to nearest, halves away from zero")
builtin("abs(x: number) -> number", "absolute value")
builtin("clamp(x: number, low: number, high: number) -> number", "clamp(x, low, high)")
builtin("sum(p: pool | number | list[number], ...) -> number",
        "the sum of the dice of its pools (plus any numbers, and the items of lists)")
builtin("count(p: pool | boolean | list, ...) -> number",
        "how many dice its pools hold (a selection: how many dice matched); true counts 1; "
        "a list's items count one each (true 1, false 0)")
builtin("highest(p: pool | number | list[number], ...) -> number | none",
        "the highest single die of its pools (or number, or item of a list), or nothing")
builtin("lowest(p: pool | number | list[number], ...) -> number | none",
        "the lowest single die of its pools (or number, or item of a list), or nothing")
builtin("any(p: pool | boolean | list[boolean], ...) -> boolean",
        "whether any die is in its pools (or any argument, or item of a list, is true)")
builtin("all(p: pool | boolean | list[boolean], ...) -> boolean",
        "whether every die of its pools was selected (or every argument, or item of a list, is true)")
builtin("each(p: pool) -> pool", "the pool die by die: each(3d10) + 3 >= 11")
builtin("leaders(xs: list[number] | list[pool]) -> list[number]",
        "leaders(xs): the positions (from 0) of the items equal to the list's highest, in order "
        "(pools by their number): leaders([3, 5, 5]) is [1, 2]; exact odds over pools take it as one choice")
builtin("ladder(n: number, rung: pool, ...) -> pool",
        "step dice: ladder(n, d4, d6, d8, d10, d12) is the n-th rung; past the last, "
        "another top die per full ladder plus the rung of the rest; ladder(n, [4, 6, 8]) takes "
        "the die sizes as a list")
builtin("ladder(n: number, sizes: list[number]) -> pool", "step dice on a ladder of die sizes given as a list")
builtin("keep_highest(p: pool, n: number = 1) -> pool",
        "keep_highest(dice, n): the dice written there rolled as one pool keeping its n highest (khN), "
        "one when n is left out: keep_highest(ladder(7, d4, d6, d8, d10, d12), 1) is a pool whose number is its highest die")
builtin("keep_lowest(p: pool, n: number = 1) -> pool",
        "keep_lowest(dice, n): the dice written there rolled as one pool keeping its n lowest (klN), "
        "one when n is left out: keep_lowest(2d20) is a pool whose number is its lowest die")

# ---------------------------------------------------------------- lists

builtin("levels_of(x: level) -> list[level]", "levels_of(success): every level of its group, lowest first")
builtin("range(n: number, end: number = n) -> list[number]",
        "range(n): the numbers 0 to n - 1 (the positions of a list of n items); range(a, b): a to b - 1")
builtin("first(xs: list) -> xs.item | none", "first(xs): the first item of a list, or none when it is empty")
builtin("last(xs: list) -> xs.item | none", "last(xs): the last item of a list, or none when it is empty")
builtin("index(xs: list, v: any) -> number | none", "index(xs, v): where v first is in the list (from 0), or none")
builtin("zip(xs: list, ...) -> list[list]",
        "zip(xs, ys): the lists side by side, as a list of pairs (p[0], p[1])")
builtin("sort(xs: list) -> xs", "sort(xs): the list from lowest to highest (numbers, levels or text)")
builtin("sort_by(xs: list, keys: list) -> xs",
        "sort_by(xs, keys): the items of xs in the order of their keys, lowest first; equal keys keep "
        "their order: sort_by(heroes, [h.speed for h in heroes])")
builtin("reverse(xs: list) -> xs", "reverse(xs): the list in the opposite order")
builtin("replace(xs: list, i: number, v: any) -> xs", "replace(xs, i, v): the list with item i (from 0) replaced by v")
# Internal (dsl.flow; no name in a file can start with '#'): `for each`, `set xs[i] = v`, `set r.f = v`.
builtin("#items(xs: list) -> xs", "the items a 'for each' goes through, at most the limit")
builtin("#replace(xs: list, i: number, v: any) -> xs", "set xs[i] = v")
builtin("#with(r: record, field: text, v: any) -> r", "set r.field = v")

builtin("number_or(x: any, fallback: any) -> number | fallback",
        "number_or(x, fallback): x when it is a number, else fallback (text, nothing, ...)")

# ---------------------------------------------------------------- grids (interpreter.core.hexgrid)

builtin("line_clear(a: place, b: place, walls: cells | place | none, rule: text | level = \"inside\") -> boolean",
        "line_clear(a, b, walls[, rule]): whether a straight line joins a corner of a to a corner of b "
        "without passing through the walls' cells (rule \"inside\", the default) or touching them "
        "(\"touching\")", group="grid")
builtin("cell(q: number, r: number) -> cell", "cell(q, r): a grid cell in axial coordinates", group="grid")
builtin("cells(c: place, ...) -> cells", "cells(a, b, ...): cells in this order (a path to test with is_path)", group="grid")
builtin("hex_distance(a: place, b: place) -> number",
        "hex_distance(a, b): steps between two hex cells (cells, [q, r] lists or positioned entities)", group="grid")
builtin("position(e: place) -> cell | none", "position(entity): its cell from 'position: [q, r]', or nothing", group="grid")
builtin("placed(e: any, ...) -> boolean",
        "placed(a, ...): whether every entity given takes part and has a position", group="grid")
builtin("burst(origin: place, n: number) -> cells", "burst(origin, n): the cells within n steps of origin", group="grid")
builtin("cone(origin: place, direction: number, n: number) -> cells",
        "cone(origin, direction, n): the triangle of cells between direction (0-5) and the next one, "
        "n steps long", group="grid")
builtin("ray(origin: place, direction: number, n: number) -> cells",
        "ray(origin, direction, n): origin and the n cells after it in a line", group="grid")
builtin("hex_step(c: place, direction: number, k: number = 1) -> cell",
        "hex_step(c, direction, k = 1): the cell k steps from c", group="grid")
builtin("hex_neighbors(c: place) -> cells", "hex_neighbors(c): the six cells next to c", group="grid")
builtin("is_path(c: cells | place | text | level, ...) -> boolean",
        "is_path(cells[, rule]): whether the cells, in order, form a path that never touches itself "
        "(rule \"induced\", the default) or in which no cell touches more than two others (\"degree2\")", group="grid")
builtin("cell_count(s: cells) -> number", "cell_count(cells): how many cells", group="grid")
builtin("has_cell(s: cells, c: place) -> boolean", "has_cell(cells, c): whether c is one of the cells", group="grid")
builtin("without_cell(s: cells, c: place) -> cells", "without_cell(cells, c): the cells but c", group="grid")

# ---------------------------------------------------------------- the rules layer (host functions)

builtin("modifier(e: entity, stat: any) -> number",
        "modifier(entity, \"Stat\"): the total of the modifiers its conditions give the stat", host=True)
builtin("resource(e: entity, name: any) -> number", "resource(entity, NAME): its current points", host=True)
builtin("has(e: entity, condition: any, key: any = none, ...) -> boolean",
        "has(entity, CONDITION[, values...]): whether it holds the condition (or one implied), with "
        "those identifying values", host=True)
builtin("holds(e: entity, condition: any) -> number",
        "holds(entity, CONDITION): how many times it holds the condition", host=True)
builtin("amount(e: entity, condition: any, key: any = none, ...) -> number",
        "amount(entity, CONDITION[, values...]): the condition's first amount (0 when not held)", host=True)
builtin("held_value(e: entity, condition: any, parameter: any, key: any = none, ...) -> any",
        "held_value(entity, CONDITION, \"parameter\"[, values...]): that parameter's value in the first instance "
        "of the condition it holds (with those identifying values); none when it holds none", host=True)
builtin("stat(e: entity, stat: any) -> number",
        "stat(entity, \"Stat\"): the stat with its conditions' modifiers and set values applied", host=True)
builtin("line(x: entry, label: any, grade: number, default: any = none) -> any",
        "line(entry, \"Label\", grade[, default]): the value of the graded line that applies", host=True)
builtin("owns(e: entity, x: any) -> boolean", "owns(entity, entry): whether its file lists the entry", host=True)
builtin("has_stat(e: entity, stat: any) -> boolean",
        "has_stat(entity, \"Stat\"): whether its file gives the stat (or it is derived from the file's stats)",
        host=True)
builtin("line_text(x: entry, label: any, grade: number = none) -> text",
        "line_text(entry, \"Label\"[, grade]): the line's text with its brackets' values", host=True, group="entry text")
builtin("number_in(words: any, pattern: any) -> number",
        "number_in(text, \"pattern\"): the number a pattern finds in a text (# the number, * any words)",
        host=True, group="entry text")
builtin("meets(e: entity, words: any) -> boolean",
        "meets(entity, text): whether it holds every condition and state and owns every entry the "
        "text names", host=True, group="entry text")
builtin("data_of(e: entity, key: any, default: any = \"\") -> any",
        "data_of(entity, \"key\"[, default]): what its file gives under a key that is not a stat", host=True, group="entry text")
builtin("mentions(words: any, name: any) -> boolean",
        "mentions(text, NAME): whether the text names it as whole words, any case (a condition, a level, a text)",
        host=True, group="entry text")
builtin("level_in(words: any, default: level) -> default",
        "level_in(text, level): the level of level's group that the text names first, else level",
        host=True, group="entry text")
