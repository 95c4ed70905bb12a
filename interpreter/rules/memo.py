"""Values of a procedure's lines, worked out once per exact-odds computation.

Exact odds run a procedure's segments once per state and per outcome of their dice, and
states differ in a few values only: most lines compute, again and again, the same value from
the same inputs. A **line memo** (one per odds computation, never kept on the loaded rules)
remembers the value an expression of a line gave for the values of the names it reads.

The same holds for a call of a function the game defines (its body sees only its
arguments and the game's own names): its value is remembered for its arguments.

A value is remembered only when it cannot depend on anything else:

- every name the expression reads, outside the game's own constant names (functions,
  tables, levels), holds a plain value (numbers, levels, text, ratings, records and lists
  of them; never an entity, a pool or an entry, whose state lives elsewhere);
- its evaluation took no choice in the world (no dice read, no check's outcome chosen) and
  rolled no pool;
- the value itself is plain (a lazy pool is never reused).

The options of a computation are fixed, and the game's names never change, so a line that
reads the same values gives the same value: a remembered value is exactly the one a new
evaluation would give.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from operator import itemgetter
from typing import Any

from runebook.dsl import expr_ast as ex
from runebook.dsl.checker import expression_names
from runebook.interpreter.core.evaluate import Context, MapEnv, call_function_value, normalize_name
from runebook.interpreter.core.values import Bound, Function, Level, Rating, Record

__all__ = ["SIMPLE", "LineMemo", "names_read", "plain", "worth_remembering"]

#: Values that are plain whatever they hold.
SIMPLE: frozenset[type] = frozenset({int, bool, str, Fraction, type(None), Level, Bound, Rating})
_MISSING = object()
#: How many records and lists a memo remembers the plainness of (kept alive meanwhile).
_MOST_RECORDS = 1 << 16
#: A value the memo cannot see (an environment it does not know): never plain.
_OPAQUE = object()
#: What a name the game itself defines (outside the run's environments) stands for in a key
#: (equal to nothing else).
_CONSTANT = object()


def _NOTHING(mapping: dict[str, Any]) -> tuple[()]:
    """The run's own values of a line that reads only constants: none."""
    return ()


def plain(value: Any) -> bool:
    """Whether a value is fully known by its equality: simple values, records and lists of them."""
    kind = type(value)
    if kind in SIMPLE:
        return True
    if kind is tuple:
        # Most lists hold simple values only: one test in C for them all.
        return SIMPLE.issuperset(map(type, value)) or all(plain(v) for v in value)
    if kind is Record:
        return all(plain(v) for v in value.values())
    return False


def names_read(exprs: Sequence[ex.Expr | None]) -> tuple[str, ...]:
    """The names (as written) the expressions look up, each once: a possessive by its owner."""
    found: dict[str, None] = {}
    for expr in exprs:
        if expr is None:
            continue
        for node in expression_names(expr):
            while isinstance(node, ex.Possessive):
                node = node.owner  # type: ignore[assignment]
            if isinstance(node, ex.Name):
                found.setdefault(node.text, None)
    return tuple(found)


#: Nodes whose evaluation may cost more than looking its value up: calls (of functions,
#: checks and builtins), comprehensions, dice, and possessives (a stat may be derived).
_COSTLY = (ex.Call, ex.Comprehension, ex.Dice, ex.RollGroup, ex.Possessive)


def worth_remembering(expr: ex.Expr) -> bool:
    """Whether a line's value is worth remembering: its expression does more than read
    names and combine them with operators (such a line takes less time to evaluate again
    than to build its memo key)."""
    stack: list[Any] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, _COSTLY):
            return True
        stack.extend(node.children())
    return False


class LineMemo:
    """The memo of one exact-odds computation: (line, values read) -> value. A line is
    named by its object's id (the loaded rules keep every line alive)."""

    __slots__ = ("constants", "fixed", "getters", "records", "stop", "values")

    def __init__(self, stop: Any) -> None:
        #: The game's own environment: names found there are constants of the computation.
        self.stop = stop
        #: The inputs' scope when every world of the computation shares it (the same inputs
        #: and options, no entity, no entry: see interpreter.markov.chains): names found there
        #: are constants of the computation too. None until a caller says so.
        self.fixed: MapEnv | None = None
        self.values: dict[tuple[Any, ...], Any] = {}
        #: Whether a record is plain, by the record (a check's outcomes are the same records
        #: every time they are chosen; kept alive here, so an id is never reused meanwhile).
        self.records: dict[int, tuple[Record, bool]] = {}
        #: The names each line (by its id) found among the game's own names. A line runs in
        #: environments of one shape throughout a computation (its locals over the same
        #: inputs, options and roles), so such a name is the game's unless a local takes it.
        self.constants: dict[int, set[str]] = {}
        #: Per line whose names were each the run's own value or a constant of the computation
        #: when first read: one call that reads the own values from the environment's mapping,
        #: whether there is one (else the key is a tuple), and the constants' names (None: none),
        #: which a local must not have taken (else, as when one of the own is missing: the long way).
        self.getters: dict[int, tuple[Callable[[dict[str, Any]], Any], bool, frozenset[str] | None]] = {}

    def _plain_record(self, record: Record | tuple[Any, ...]) -> bool:
        records = self.records
        found = records.get(id(record))
        if found is None or found[0] is not record:
            if len(records) >= _MOST_RECORDS:  # lists made anew in every world: stay bounded
                records.clear()
            found = records[id(record)] = (record, plain(record))
        return found[1]

    def plain_value(self, value: Any) -> bool:
        """:func:`plain` for a value of this computation, with the usual cases (simple values,
        lists of them) tested first and the answer for a record or a list of lists or records
        remembered."""
        kind = type(value)
        if kind in SIMPLE or (kind is tuple and SIMPLE.issuperset(map(type, value))):
            return True
        return self._plain_record(value) if kind is Record or kind is tuple else plain(value)

    def key(self, env: Any, names: tuple[str, ...], line: int) -> tuple[Any, ...] | None:
        """The values ``names`` hold in ``env`` for line ``line`` (None when one is not plain)."""
        if type(env) is not MapEnv:
            return None
        mapping = env.mapping
        plan = self.getters.get(line)
        if plan is not None:
            getter, single, fixed = plan
            # The short key: the run's own values only (a key of the long way names every
            # name, so the two never meet).
            if fixed is None or fixed.isdisjoint(mapping):
                try:
                    found = getter(mapping)
                except KeyError:
                    pass  # not the run's own value this time: the long way
                else:
                    values = (found,) if single else found
                    if not SIMPLE.issuperset(map(type, values)):
                        for value in values:
                            if type(value) not in SIMPLE and not self.plain_value(value):
                                return None
                    return values  # type: ignore[no-any-return]
        get = mapping.get
        constants = self.constants.get(line, ())
        out: list[Any] = []
        add = out.append
        own: list[str] = []
        fixed_names: list[str] = []
        shaped = True  # every name the run's own or a constant
        for text in names:
            value = get(text, _MISSING)
            if value is _MISSING:
                if text in constants:
                    add(_CONSTANT)
                    fixed_names.append(text)
                    continue
                value = self._find(env, text)
                if value is _MISSING:
                    add(_CONSTANT)
                    fixed_names.append(text)
                    self.constants.setdefault(line, set()).add(text)
                    continue
                shaped = False
            else:
                own.append(text)
            if not self.plain_value(value):
                return None
            add(value)
        if shaped and names and line not in self.getters:
            self.getters[line] = (itemgetter(*own) if own else _NOTHING, len(own) == 1,
                                  frozenset(fixed_names) or None)
        return tuple(out)

    def _find(self, env: MapEnv, text: str) -> Any:
        """A name's value as ``MapEnv.lookup`` finds it, below the game's own names (``_MISSING``
        when it is one of those, or not found); ``_OPAQUE`` in an environment of another kind."""
        stop, fixed = self.stop, self.fixed
        scope: Any = env
        while scope is not None and scope is not stop and scope is not fixed:
            if type(scope) is not MapEnv:
                return _OPAQUE
            mapping = scope.mapping
            if text in mapping:
                return mapping[text]
            held = scope.index.get(normalize_name(text))
            if held is not None:
                return mapping[held]
            scope = scope.parent
        return _MISSING

    def evaluate(self, line: int, names: tuple[str, ...], closure: Callable[[Context, Any], Any],
                 ctx: Context, env: Any) -> Any:
        """``closure(ctx, env)``, or the value it gave before for the same values read."""
        world = ctx.world
        key = self.key(env, names, line) if world is not None and ctx.trace is None else None
        if key is None:
            return closure(ctx, env)
        key = (line, key)
        values = self.values
        found = values.get(key, _MISSING)
        if found is not _MISSING:
            return found
        taken, realized = len(world.taken), len(ctx.realized)
        value = closure(ctx, env)
        if len(world.taken) == taken and len(ctx.realized) == realized and plain(value):
            values[key] = value
        return value

    def call(self, func: Function, values: list[Any], ctx: Context, site: Any) -> Any:
        """A call of a function the game defines (its body sees only its parameters and the
        game's own names): the value it gave before for the same plain arguments."""
        world = ctx.world
        if func.env is not self.stop:
            return call_function_value(func, values, ctx, site)
        if not SIMPLE.issuperset(map(type, values)) and not all(map(self.plain_value, values)):
            return call_function_value(func, values, ctx, site)
        key = (id(func), *values)
        found = self.values.get(key, _MISSING)
        if found is not _MISSING:
            return found
        taken, realized = len(world.taken), len(ctx.realized)
        value = call_function_value(func, values, ctx, site)
        if len(world.taken) == taken and len(ctx.realized) == realized and plain(value):
            self.values[key] = value
        return value
