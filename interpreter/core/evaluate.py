"""The expression evaluator: one code path for rolling, given dice and exact odds.

An expression is checked (:func:`check_expression`: dice that cannot exist, modifiers
without a number, unknown builtins' arity, nesting) and compiled once into Python
closures, one small ``c_<Node>`` method per node type; compiled expressions are cached.
Evaluation runs the closures against a :class:`Context` that carries what is injected:

- ``oracle``: where faces come from when rolling (:class:`~interpreter.core.dice.RandomOracle`
  for a seeded ``random.Random``, :class:`~interpreter.core.dice.GivenOracle` for faces the
  user rolled at the table);
- ``world``: instead of rolling, a world of the exact-odds enumeration
  (:mod:`interpreter.core.distribution`): dice terms become lazy pools and every reading of a
  pool becomes a choice over its exact distribution;
- ``limits`` (:class:`~interpreter.core.limits.Limits`) and ``trace`` (a list of events, or
  None to skip tracing);
- ``run``: the state of the check or procedure running (:mod:`interpreter.rules.runstate`).

Names resolve through an environment: any object with ``lookup(name)`` (raising
``KeyError``) and ``names()``; :class:`MapEnv` wraps a mapping and matches names ignoring
case, spaces, hyphens and underscores, :class:`CallbackEnv` wraps a function.

For callers that evaluate several expressions over the same dice (a check computing
several results from one roll), build each pool's spec with :func:`pool_spec`, bind it as a
:class:`~interpreter.core.dice.PoolSource` in the environment and evaluate every expression with
the same :class:`Context`::

    ctx = Context(oracle=GivenOracle([8, 6, 1]), trace=Trace())
    view = ctx.realize(source)        # roll now: given faces go in the order pools are rolled
    value = ctx.result(ctx.evaluate(compiled, env))
    ctx.finish()                      # E0502 if faces were left over

:func:`interpreter.core.distribution.joint` gives the exact joint distribution of the same
computation.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any

import attrs

from runebook.dsl import builtins as registry
from runebook.dsl import expr_ast as ex
from runebook.dsl.diagnostics import Diagnostic, RunebookError, did_you_mean
from runebook.dsl.simple_expr import simple_expression
from runebook.dsl.source import Source, Span
from runebook.interpreter.core import hexgrid as _hexgrid
from runebook.interpreter.core.dice import (
    ARITH,
    COMPARE,
    FLIPPED,
    MAX_DICE_HELP,
    DiceOracle,
    DieSpec,
    LazyPool,
    PoolSource,
    PoolSpec,
    PoolView,
    RolledPool,
    aggregate,
    apply_transforms,
    number_reader,
    roll_pool,
)
from runebook.interpreter.core.limits import DEFAULT_LIMITS, Limits, check_digits, limit_error
from runebook.interpreter.core.notation import DEFAULT_DIALECT, build_term, check_dialect, foreign_hint, roll20_compare
from runebook.interpreter.core.sized import SizedCache
from runebook.interpreter.core.trace import RollEvent, StepEvent, Trace
from runebook.interpreter.core.values import (
    Level,
    Record,
    UNKNOWN,
    Bound,
    Derived,
    Function,
    Rating,
    Table,
    Undetermined,
    equal,
    format_value,
    normalize,
)

__all__ = [
    "BUILTINS",
    "CallbackEnv",
    "CompiledExpression",
    "Context",
    "EmptyEnv",
    "MapEnv",
    "check_expression",
    "compile_expression",
    "evaluate",
    "normalize_name",
    "pool_spec",
]

Closure = Callable[["Context", Any], Any]
NUMERIC = (int, Fraction, bool, Bound, type(UNKNOWN))


# ---------------------------------------------------------------- environments


@lru_cache(maxsize=4096)
def normalize_name(name: str) -> str:
    """How names match: ignoring case, spaces, hyphens and underscores (memoized: the same few
    names are folded millions of times when exact odds run a procedure's segments)."""
    return name.casefold().replace(" ", "").replace("_", "").replace("-", "")


class EmptyEnv:
    """An environment with no names."""

    def lookup(self, name: str) -> Any:
        raise KeyError(name)

    def names(self) -> Iterable[str]:
        return ()


class MapEnv:
    """An environment over a mapping, optionally in front of a parent environment."""

    def __init__(self, mapping: Mapping[str, Any] | None = None, parent: Any = None) -> None:
        self.mapping = dict(mapping or {})
        self.index = {normalize_name(k): k for k in self.mapping}
        self.parent = parent

    @classmethod
    def indexed(cls, mapping: dict[str, Any], index: dict[str, str], parent: Any = None) -> MapEnv:
        """``MapEnv(mapping, parent)`` from a dict it may keep and its folded-name index,
        already built (keep in step with ``__init__``)."""
        env = cls.__new__(cls)
        env.mapping = mapping
        env.index = index
        env.parent = parent
        return env

    def define(self, name: str, value: Any) -> None:
        """Add a name (for definitions that refer to the environment they live in)."""
        self.mapping[name] = value
        self.index[normalize_name(name)] = name

    def lookup(self, name: str) -> Any:
        # Walk a chain of plain map environments in a loop (no recursion, the name folded
        # once); any other kind of parent is asked in the usual way.
        env = self
        folded = None
        while True:
            mapping = env.mapping
            if name in mapping:
                return mapping[name]
            if folded is None:
                folded = normalize_name(name)
            key = env.index.get(folded)
            if key is not None:
                return mapping[key]
            parent = env.parent
            if parent is None:
                raise KeyError(name)
            if type(parent) is not MapEnv:
                return parent.lookup(name)
            env = parent

    def names(self) -> Iterable[str]:
        yield from self.mapping
        if self.parent is not None:
            yield from self.parent.names()


class CallbackEnv:
    """An environment over a function ``name -> value`` that raises ``KeyError`` for
    unknown names; ``names`` (optional) lists names for "did you mean" hints."""

    def __init__(self, lookup: Callable[[str], Any], names: Callable[[], Iterable[str]] | None = None) -> None:
        self._lookup = lookup
        self._names = names

    def lookup(self, name: str) -> Any:
        return self._lookup(name)

    def names(self) -> Iterable[str]:
        return self._names() if self._names is not None else ()


def as_env(env: Any) -> Any:
    """An environment from None, a mapping, a callable or an environment object."""
    if type(env) is MapEnv:  # the common case, without the abstract-class checks below
        return env
    if env is None:
        return EmptyEnv()
    if isinstance(env, Mapping):
        return MapEnv(env)
    if callable(env) and not hasattr(env, "lookup"):
        return CallbackEnv(env)
    if not hasattr(env, "lookup"):
        raise TypeError(f"env takes a mapping of names to values, not {type(env).__name__}")
    return env


def _lookup_in(container: Any, name: str) -> Any:
    if isinstance(container, Mapping):
        if name in container:
            return container[name]
        wanted = normalize_name(name)
        for key in container:
            if isinstance(key, str) and normalize_name(key) == wanted:
                return container[key]
        raise KeyError(name)
    return container.lookup(name)


#: The name under which an entity's own environment (its stats, where its derived values
#: are computed) keeps the entity, so that a stat its file lacks is reported as such.
HOLDER = "#holder"


def _lacking(holder: Any, name: str, site: Any) -> RunebookError | None:
    """``'Stone Door' has no 'Max HP'``, pointing at the rule that read it and naming the
    entity's file; None when ``holder`` is not an entity."""
    if not isinstance(getattr(holder, "stats", None), Mapping):
        return None
    where = getattr(holder, "path", "") or "its file"
    return RunebookError([Diagnostic.make(
        "E0607", site[0], site[1], message=f"'{holder}' has no '{name}'",
        help=f"{where} gives no '{name}' among its stats")])


def _holder_of(env: Any) -> Any:
    try:
        return env.lookup(HOLDER)
    except (KeyError, AttributeError):
        return None


def _names_of(container: Any) -> list[str]:
    if isinstance(container, Mapping):
        return [k for k in container if isinstance(k, str)]
    return list(container.names())


# ---------------------------------------------------------------- worlds


class Spread:
    """A world's outcome that is still a list of (value, probability) options: the world's
    last act read a pool (or folded a chain) and nothing ran after it, so each option is an
    outcome of its own. One run of the evaluator stands for them all, instead of one world
    per option replaying the same evaluation (``50d6`` is one world, not 251)."""

    __slots__ = ("options",)

    def __init__(self, options: list[tuple[Any, Fraction]]) -> None:
        self.options = options

    def map(self, fn: Callable[[Any], Any]) -> Spread:
        """Each option's value through ``fn`` (equal results are merged later); a value
        ``fn`` cannot determine becomes :data:`UNKNOWN` (residual)."""
        out = []
        for value, p in self.options:
            try:
                out.append((fn(value), p))
            except Undetermined:
                out.append((UNKNOWN, p))
        return Spread(out)


# ---------------------------------------------------------------- context


class Context:
    """What one evaluation (or one world of an odds computation) runs against."""

    __slots__ = ("active", "calls", "counter", "depth", "iterations", "limits", "oracle", "realized", "run", "trace",
                 "world")

    def __init__(self, *, oracle: DiceOracle | None = None, world: Any = None,
                 limits: Limits = DEFAULT_LIMITS, trace: Trace | None = None, run: Any = None) -> None:
        self.oracle = oracle
        self.world = world
        self.limits = limits
        self.trace = trace
        #: The run this context evaluates (:class:`interpreter.rules.runstate.RunState`), if any:
        #: per-run state lives here, never on a loaded ruleset that threads may share.
        self.run = run
        self.counter = [0]
        #: Calls of rules-defined functions so far (``Limits.max_calls``).
        self.calls = 0
        #: Items walked by lists made with ``for`` so far (``Limits.max_iterations``).
        self.iterations = 0
        self.depth = 0
        self.realized: dict[int, tuple[PoolSource, PoolView]] = {}
        self.active: set[str] = set()

    def finish(self) -> None:
        """After the last evaluation with given dice: report faces left unused (E0502)."""
        if self.oracle is not None:
            self.oracle.finish()

    def evaluate(self, compiled: CompiledExpression, env: Any = None) -> Any:
        """Evaluate a compiled expression; a pool comes back as a pool (see ``result``)."""
        return compiled.closure(self, env if type(env) is MapEnv else as_env(env))

    def result(self, value: Any) -> Any:
        """A final value: a pool reads as its number (its total, or its successes), in a
        list too (a list keeps its pools until then)."""
        kind = type(value)
        if kind is PoolView:
            return number(value, self)
        if kind is tuple and any(type(v) is PoolView or type(v) is tuple for v in value):
            return tuple([self.result(v) for v in value])
        return value

    def realize(self, source: PoolSource) -> PoolView:
        """Roll a declared pool now (once per context), or make it lazy when computing odds."""
        known = self.realized.get(id(source))
        if known is not None and known[0] is source:
            return known[1]
        if self.world is not None:
            view = PoolView(self.world.pool_source(source))
        else:
            view = self._roll(source.spec, source.span, source.source, source.name or source.spec.text)
        # Keep the source alive with its view: a freed source's id could be reused by a new one.
        self.realized[id(source)] = (source, view)
        return view

    def new_pool(self, spec: PoolSpec, site: Any, span: Span | None, source: Source | None) -> PoolView:
        if self.world is not None:
            return PoolView(self.world.new_pool(spec, site))
        return self._roll(spec, span, source, spec.text)

    def _roll(self, spec: PoolSpec, span: Span | None, source: Source | None, text: str) -> PoolView:
        assert self.oracle is not None, "a context needs an oracle or a world"
        pool = roll_pool(spec, self.oracle, self.limits, self.counter, span, source)
        view = PoolView(pool)
        if self.trace is not None:
            event = RollEvent(text, span, pool.dice, number(view, self))
            if pool.sorted:
                event.order = [d.value for d in pool.members if d.fate == "kept"]
            pool.event = event
            self.trace.append(event)
        return view


def read(view: PoolView, reader: tuple[Any, str], ctx: Context) -> Any:
    """Read a pool through a reader: directly when rolled, as a choice when lazy."""
    source = view.source
    if type(source) is RolledPool:
        return aggregate(source.kept_values, reader)
    return ctx.world.read(source, reader)


def number(value: Any, ctx: Context) -> Any:
    if type(value) is PoolView:
        source = value.source
        if not value.transforms and type(source) is RolledPool:
            if source.total is None:
                source.total = aggregate(source.kept_values, number_reader(value))
            return source.total
        return read(value, number_reader(value), ctx)
    return value


def truth(value: Any, ctx: Context) -> bool:
    t = type(value)
    if t is bool:
        return value
    if t is PoolView:
        return bool(read(value, number_reader(value), ctx))
    return bool(value)


def trace_value(value: Any) -> Any:
    """How a value is kept in a trace: a rolled pool as the tuple of its dice values."""
    if type(value) is PoolView and type(value.source) is RolledPool:
        out = []
        for v in value.source.kept_values:
            ok, mapped = apply_transforms(v, value.transforms)
            if ok:
                out.append(mapped)
        return tuple(out)
    if isinstance(value, Table | Function):
        return f"<{'table' if isinstance(value, Table) else 'function'} {value.name}>"
    return value


def kind_of(value: Any) -> str:
    if value is None:
        return "nothing"
    if type(value) is str:
        return f"text ({format_value(value)!r})"
    if type(value) is bool:
        return "true/false"
    if isinstance(value, Rating):
        return f"a rating ({value})"
    if isinstance(value, Level):
        return f"the level '{value.name}' of '{value.group}'"
    if isinstance(value, Table):
        return f"the table '{value.name}'"
    if isinstance(value, Function):
        return f"the function '{value.name}'"
    if type(value) is PoolView:
        return "a pool"
    if isinstance(value, Mapping):
        return "a record"
    if type(value) is tuple:
        return f"a list of {len(value)}"
    if type(value) in NUMERIC:
        return "a number"
    return type(value).__name__


def _error(code: str, site: Any, **fields: Any) -> RunebookError:
    source, span = site
    help = fields.pop("help", None)
    return RunebookError([Diagnostic.make(code, source, span, help=help, **fields)])


# ---------------------------------------------------------------- operators


_FAST_INT = {"+": operator.add, "-": operator.sub, "*": operator.mul}


def binop(op: str, a: Any, b: Any, ctx: Context, site: Any, right_site: Any = None) -> Any:
    """``a op b`` with the language's rules (pools, exact division, clear errors).

    ``site`` locates the left operand and ``right_site`` the right one, for carets."""
    right_site = right_site or site
    if type(a) is int and type(b) is int:
        fast = _FAST_INT.get(op)
        if fast is not None:
            return fast(a, b) if op != "*" else check_digits(a * b, ctx.limits if ctx else DEFAULT_LIMITS, site)
    if type(a) is PoolView or type(b) is PoolView:
        a_view, b_view = type(a) is PoolView, type(b) is PoolView
        if a_view and a.per_die and not b_view:
            b = _operand(op, number(b, ctx), right_site)
            return a.derive(("map", op, b, False))
        if b_view and b.per_die and not a_view:
            a = _check_number(op, number(a, ctx), site)
            return b.derive(("map", op, a, True))
        if a_view and b_view and (a.per_die or b.per_die):
            raise _error("E0405", site, op=op, kind="two pools die by die",
                         help="apply per-die arithmetic to one pool: each(dice) + 3")
        a, b = number(a, ctx), number(b, ctx)
    if type(a) is tuple and type(b) is tuple and op == "+":
        # Lists join end to end, within the limit on a collection's size.
        if len(a) + len(b) > ctx.limits.max_collection:
            raise _error("E0901", site, what=f"a list of {len(a) + len(b)} items", limit=ctx.limits.max_collection)
        return a + b
    a = _check_number(op, a, site)
    b = _operand(op, b, right_site)
    if op == "**":
        _check_power(a, b, right_site)
    try:
        return check_digits(normalize(ARITH[op](a, b)), ctx.limits if ctx else DEFAULT_LIMITS, site)
    except ZeroDivisionError:
        raise _error("E0404", right_site) from None


#: Bits a power may have (``2 ** 100000`` would stall the evaluation).
_MAX_POWER_BITS = 100_000


def _check_power(base: Any, exponent: Any, site: Any) -> None:
    if type(exponent) is not int:
        raise _error("E0403", site, message=f"the exponent {format_value(exponent)} is not a whole number",
                     help="values are exact: raise to whole powers, as in '2 ** 3'")
    size = max(abs(Fraction(base).numerator).bit_length(), abs(Fraction(base).denominator).bit_length())
    if size > 1 and abs(exponent) * size > _MAX_POWER_BITS:
        raise _error("E0403", site, message=f"a power of {abs(exponent) * size:,} bits is too large",
                     help=f"powers are computed exactly, up to {_MAX_POWER_BITS:,} bits")


def _check_number(op: str, value: Any, site: Any) -> Any:
    if type(value) not in NUMERIC:
        raise _error("E0405", site, op=op, kind=kind_of(value))
    return value


def _operand(op: str, value: Any, site: Any) -> Any:
    _check_number(op, value, site)
    if op in ("/", "//", "%") and type(value) is not Bound and value is not UNKNOWN and value == 0:
        raise _error("E0404", site)
    return value


#: Types whose values of one type ``equal`` compares by plain ``==`` (no Bound, no UNKNOWN).
_SAME_EQUAL: frozenset[type] = frozenset({Level, str, bool, Fraction})


def compare(op: str, a: Any, b: Any, ctx: Context, site: Any) -> Any:
    """``a op b``; a pool against a number selects the dice that satisfy it (per die)."""
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        return COMPARE[op](a, b)
    if ta is tb and ta in _SAME_EQUAL and (op == "==" or op == "!="):
        # Two plain values of one type: `equal` would come to `a == b` after its checks.
        return (a == b) if op == "==" else (a != b)
    # A pool counting successes (cs/cf/df) is already a number: `5d10cs>=8 >= 3`.
    if ta is PoolView and _counted(a):
        a, ta = number(a, ctx), None
    if tb is PoolView and _counted(b):
        b, tb = number(b, ctx), None
    if ta is PoolView and tb is not PoolView:
        return a.derive(("filter", op, _check_number(op, number(b, ctx), site)))
    if tb is PoolView and ta is not PoolView:
        return b.derive(("filter", FLIPPED[op], _check_number(op, number(a, ctx), site)))
    if ta is PoolView:
        a, b = number(a, ctx), number(b, ctx)
    if op in ("==", "!="):
        same = equal(a, b)
        return same if op == "==" else not same
    if isinstance(a, Level) and isinstance(b, Level):
        if a.group != b.group:
            raise _error("E0405", site, op=op, kind=f"levels of '{a.group}' and '{b.group}'")
        return bool(COMPARE[op](a.rank, b.rank))
    _check_number(op, a, site)
    _check_number(op, b, site)
    return bool(COMPARE[op](a, b))


def _counted(view: PoolView) -> bool:
    return not view.per_die and not view.transforms and bool(view.source.spec.score)


def _max2(a: Any, b: Any) -> Any:
    if a is None:
        return b
    if b is None:
        return a
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    if isinstance(a, Bound) or isinstance(b, Bound):
        la = a.low if isinstance(a, Bound) else a
        lb = b.low if isinstance(b, Bound) else b
        return Bound(la if la >= lb else lb)
    return a if a >= b else b


def _min2(a: Any, b: Any) -> Any:
    if a is None:
        return b
    if b is None:
        return a
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    if isinstance(a, Bound) and isinstance(b, Bound):
        raise Undetermined
    if isinstance(a, Bound):
        a, b = b, a
    if isinstance(b, Bound):
        if a <= b.low:
            return a
        raise Undetermined
    return a if a <= b else b


def _round_half_away(x: Any) -> Any:
    if isinstance(x, Bound):
        return Bound(_round_half_away(x.low))
    if x is UNKNOWN:
        return UNKNOWN
    f = Fraction(x)
    n = math.floor(abs(f) + Fraction(1, 2))
    return n if f >= 0 else -n


# ---------------------------------------------------------------- builtins


class Builtin:
    """A builtin function: ``impl(ctx, args, site)`` over evaluated arguments, or a
    special form ``impl(ctx, env, node, compiler_closures, site)``."""

    def __init__(self, name: str, impl: Callable[..., Any], min_args: int, max_args: int | None,
                 doc: str, special: bool = False) -> None:
        self.name = name
        self.impl = impl
        self.min_args = min_args
        self.max_args = max_args
        self.doc = doc
        self.special = special


def _numbers(name: str, ctx: Context, args: list[Any], site: Any) -> list[Any]:
    values = [_check_number(name, number(a, ctx), site) for a in _spread(args)]
    if not values:
        raise _error("E0405", site, op=name, kind="an empty list")
    return values


def _exactly(name: str, count: int, values: list[Any], site: Any) -> list[Any]:
    """``values`` when there are ``count`` of them (a list argument spreads into several)."""
    if len(values) != count:
        raise _error("E0406", site, name=name, expected=count, got=len(values))
    return values


def _spread(args: list[Any]) -> list[Any]:
    """Arguments with the items of any list among them, so ``max(xs)`` and ``max(a, b)`` agree."""
    if not any(type(a) is tuple for a in args):
        return args
    out: list[Any] = []
    for arg in args:
        if type(arg) is tuple:
            out.extend(arg)
        else:
            out.append(arg)
    return out


def items_of(value: Any, op: str, site: Any, limits: Limits) -> tuple[Any, ...]:
    """A collection's items, in order; anything else (or too many items) is an error."""
    if type(value) is not tuple:
        raise _error("E0405", site, op=op, kind=kind_of(value), help=f"'{op}' goes through a list: [a, b, c]")
    if len(value) > limits.max_collection:
        raise _error("E0901", site, what=f"a collection of {len(value)} items", limit=limits.max_collection)
    return value


def _levels(name: str, args: list[Any], site: Any) -> list[Level] | None:
    """The arguments (and list items) when they are all levels of one group, else None."""
    values = _spread(args)
    if not values or not all(isinstance(v, Level) for v in values):
        return None
    if len({v.group for v in values}) > 1:
        raise _error("E0405", site, op=name, kind="levels of different groups")
    return values


def _extreme(name: str, pick: Callable[..., Any], pair: Callable[[Any, Any], Any]) -> Callable[..., Any]:
    """``min``/``max``: of levels of one group by their order, else of numbers (and list items)."""

    def impl(ctx: Context, args: list[Any], site: Any) -> Any:
        levels = _levels(name, args, site)
        if levels is not None:
            return pick(levels, key=lambda level: level.rank)
        values = _numbers(name, ctx, args, site)
        result = values[0]
        for v in values[1:]:
            result = pair(result, v)
        return result

    return impl


_b_min = _extreme("min", min, _min2)
_b_max = _extreme("max", max, _max2)


def _b_floor(ctx: Context, args: list[Any], site: Any) -> Any:
    (x,) = _exactly("floor", 1, _numbers("floor", ctx, args, site), site)
    return math.floor(x)


def _b_ceil(ctx: Context, args: list[Any], site: Any) -> Any:
    (x,) = _exactly("ceil", 1, _numbers("ceil", ctx, args, site), site)
    return math.ceil(x)


def _b_round(ctx: Context, args: list[Any], site: Any) -> Any:
    (x,) = _exactly("round", 1, _numbers("round", ctx, args, site), site)
    return _round_half_away(x)


def _b_abs(ctx: Context, args: list[Any], site: Any) -> Any:
    (x,) = _exactly("abs", 1, _numbers("abs", ctx, args, site), site)
    return abs(x)


def _b_clamp(ctx: Context, args: list[Any], site: Any) -> Any:
    x, low, high = _exactly("clamp", 3, _numbers("clamp", ctx, args, site), site)
    return _min2(_max2(x, low), high)


def _pool_item(name: str, agg: str, accept: Callable[[Any], Any]) -> Callable[[Context, Any, Any], Any]:
    """What one argument (or list item) of a pool reduction brings to it: a pool's reading
    ``agg``, or the value itself when ``accept`` takes it."""

    def item(ctx: Context, arg: Any, site: Any) -> Any:
        if type(arg) is PoolView:
            return read(arg, (arg.transforms, agg), ctx)
        value = accept(arg)
        if value is _REJECT:
            raise _error("E0405", site, op=name, kind=kind_of(arg),
                         help=f"{name}(...) takes pools{'' if agg == 'count' else ' or numbers'}")
        return value

    return item


def _pool_fold(name: str, agg: str, combine: Callable[[Any, Any], Any], start: Any,
               accept: Callable[[Any], Any]) -> Callable[[Context, list[Any], Any], Any]:
    item = _pool_item(name, agg, accept)

    def impl(ctx: Context, args: list[Any], site: Any) -> Any:
        result = start
        for arg in _spread(args):
            result = combine(result, item(ctx, arg, site))
        return result

    return impl


_REJECT = object()


def _accept_number(v: Any) -> Any:
    return v if type(v) in NUMERIC and type(v) is not bool else _REJECT


def _accept_bool(v: Any) -> Any:
    return v if type(v) is bool or v is UNKNOWN else _REJECT


def _accept_count(v: Any) -> Any:
    return int(v) if type(v) is bool else (v if v is UNKNOWN else _REJECT)


def _and(a: Any, b: Any) -> Any:
    if a is False or b is False:
        return False
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    return True


def _or(a: Any, b: Any) -> Any:
    if a is True or b is True:
        return True
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    return False


def _b_each(ctx: Context, args: list[Any], site: Any) -> Any:
    (pool,) = args
    if type(pool) is not PoolView:
        raise _error("E0405", site, op="each", kind=kind_of(pool), help="each(...) takes a pool: each(3d10) + 3")
    return pool.with_per_die()


BUILTINS: dict[str, Builtin] = {}


def _register(name: str, impl: Callable[..., Any], special: bool = False) -> None:
    """Give a builtin of the registry (dsl.builtins: its arity, types and doc) its implementation."""
    declared = registry.lookup(name)
    if declared is None or declared.host:
        raise KeyError(f"no signature for the builtin '{name}': add its line to dsl/builtins.py")
    BUILTINS[name] = Builtin(name, impl, declared.min_args, declared.max_args, declared.doc, special)


def _b_rank(ctx: Context, args: list[Any], site: Any) -> Any:
    level = args[0]
    if not isinstance(level, Level):
        raise _error("E0405", site, op="rank", kind=kind_of(level))
    return level.rank


def _b_step(ctx: Context, args: list[Any], site: Any) -> Any:
    level, steps = args[0], number(args[1], ctx)
    if not isinstance(level, Level):
        raise _error("E0405", site, op="step", kind=kind_of(level))
    return level.moved(int(steps))


def _b_rating_value(ctx: Context, args: list[Any], site: Any) -> Any:
    rating, size = args[0], number(args[1], ctx)
    _check_number("rating_value", size, site)
    if isinstance(rating, Rating):
        value = rating.base + size * (1 if rating.count is None else rating.count)
        return normalize(-value if rating.sign < 0 else value)
    return _check_number("rating_value", number(rating, ctx), site)


_register("rank", _b_rank)
_register("rating_value", _b_rating_value)
_register("step", _b_step)
_register("min", _b_min)
_register("max", _b_max)
_register("floor", _b_floor)
_register("ceil", _b_ceil)
_register("round", _b_round)
_register("abs", _b_abs)
_register("clamp", _b_clamp)
def _add(a: Any, b: Any) -> Any:
    return normalize(a + b)


_register("sum", _pool_fold("sum", "sum", _add, 0, _accept_number))
_count_fold = _pool_fold("count", "count", lambda a, b: a + b, 0, _accept_count)


def _count_item(ctx: Context, value: Any, site: Any) -> int:
    """What a list's item adds to ``count``: one each (true 1, false 0, so counting tests
    counts matches)."""
    return int(value) if type(value) is bool else 1


def _b_count(ctx: Context, args: list[Any], site: Any) -> Any:
    total = 0
    rest = []
    for arg in args:
        if type(arg) is tuple:
            total += sum(_count_item(ctx, v, site) for v in arg)
        else:
            rest.append(arg)
    return total + _count_fold(ctx, rest, site) if rest else total


_register("count", _b_count)


def _b_leaders(ctx: Context, args: list[Any], site: Any) -> Any:
    """``leaders(xs)``: the positions (from 0) of the items equal to the list's highest.
    While computing odds, pools among the items are not read one by one: the world makes
    one choice among the possible sets of positions (see ``World.leaders``)."""
    items = items_of(args[0], "leaders", site, ctx.limits)
    world = ctx.world
    if world is not None and any(type(x) is PoolView and type(x.source) is LazyPool for x in items):
        found = world.leaders(items, ctx)
        if found is not None:
            return found
    values = []
    for item in items:
        value = number(item, ctx)
        if type(value) is bool or type(value) not in NUMERIC:
            raise _error("E0405", site, op="leaders", kind=kind_of(value),
                         help="leaders(...) takes a list of numbers or pools: leaders([3, 5, 5]) is [1, 2]")
        values.append(value)
    top = None
    for value in values:
        top = _max2(top, value)
    return tuple([i for i, value in enumerate(values) if equal(value, top)])


_register("leaders", _b_leaders)
_register("highest", _pool_fold("highest", "max", _max2, None, _accept_number))
_register("lowest", _pool_fold("lowest", "min", _min2, None, _accept_number))
_register("any", _pool_fold("any", "any", _or, False, _accept_bool))
_register("all", _pool_fold("all", "all", _and, True, _accept_bool))
_register("each", _b_each)


class NotFoldable(Exception):
    """A list's reduction cannot be folded item by item here (see :class:`ListFold`): the
    call is evaluated plainly instead."""


def _extreme_item(name: str) -> Callable[[Context, Any, Any], Any]:
    """What one list item brings to ``max``/``min``: its number. Levels compare by their
    group's order, a choice over the whole list: such a call is not folded."""

    def item(ctx: Context, value: Any, site: Any) -> Any:
        if isinstance(value, Level):
            raise NotFoldable
        return _check_number(name, number(value, ctx), site)

    return item


@attrs.frozen
class ListFold:
    """How a builtin reduces a whole list, item by item: ``combine(start, item(x1))``, then
    each later item's contribution. Computing odds, a call of it on a list whose items are
    independent random values is folded over the items' distributions
    (``distribution.World.fold_list``) instead of enumerating their worlds.

    ``agg``: the reading of a pool item (its options are spread, not chosen), None when the
    item is read otherwise. ``kind``: ``"add"`` when ``combine`` adds whole numbers,
    ``"max"``/``"min"`` for the highest and lowest (identical items are then a power),
    None otherwise. ``nonempty``: an empty list is an error, left to plain evaluation."""

    item: Callable[[Context, Any, Any], Any]
    combine: Callable[[Any, Any], Any]
    start: Any
    agg: str | None = None
    kind: str | None = None
    nonempty: bool = False


#: The reductions of a whole list that fold: ``sum([d6 for i in range(8)])`` is one
#: distribution of nine-to-48, not 6^8 worlds.
LIST_FOLDS: dict[str, ListFold] = {
    "sum": ListFold(_pool_item("sum", "sum", _accept_number), _add, 0, "sum", "add"),
    "count": ListFold(_count_item, operator.add, 0, None, "add"),
    "highest": ListFold(_pool_item("highest", "max", _accept_number), _max2, None, "max", "max"),
    "lowest": ListFold(_pool_item("lowest", "min", _accept_number), _min2, None, "min", "min"),
    "any": ListFold(_pool_item("any", "any", _accept_bool), _or, False, "any"),
    "all": ListFold(_pool_item("all", "all", _accept_bool), _and, True, "all"),
    "max": ListFold(_extreme_item("max"), _max2, None, None, "max", nonempty=True),
    "min": ListFold(_extreme_item("min"), _min2, None, None, "min", nonempty=True),
}
def _one_list(name: str, value: Any, site: Any) -> tuple[Any, ...]:
    if type(value) is not tuple:
        raise _error("E0405", site, op=name, kind=kind_of(value), help=f"{name}(...) takes a list: [a, b, c]")
    return value


def _b_first(ctx: Context, args: list[Any], site: Any) -> Any:
    items = _one_list("first", args[0], site)
    return items[0] if items else None


def _b_last(ctx: Context, args: list[Any], site: Any) -> Any:
    items = _one_list("last", args[0], site)
    return items[-1] if items else None


def _b_index(ctx: Context, args: list[Any], site: Any) -> Any:
    items = _one_list("index", args[0], site)
    wanted = args[1]
    return next((i for i, item in enumerate(items) if _same_value(item, wanted)), None)


def _same_value(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except TypeError:
        return False


def _b_zip(ctx: Context, args: list[Any], site: Any) -> Any:
    lists = [_one_list("zip", a, site) for a in args]
    return tuple(zip(*lists))


def _sort_key(name: str, site: Any) -> Callable[[Any], Any]:
    def key(value: Any) -> Any:
        if isinstance(value, Level):
            return (1, value.group, value.rank)
        if type(value) in NUMERIC and type(value) is not bool:
            return (0, "", value)
        if type(value) is str:
            return (2, value, 0)
        raise _error("E0405", site, op=name, kind=kind_of(value), help="items sort by numbers, levels or text")

    return key


def _b_sort(ctx: Context, args: list[Any], site: Any) -> Any:
    items = _one_list("sort", args[0], site)
    try:
        return tuple(sorted(items, key=_sort_key("sort", site)))
    except TypeError:
        raise _error("E0405", site, op="sort", kind="a list of different kinds of values") from None


def _b_sort_by(ctx: Context, args: list[Any], site: Any) -> Any:
    items, keys = _one_list("sort_by", args[0], site), _one_list("sort_by", args[1], site)
    if len(items) != len(keys):
        raise _error("E0405", site, op="sort_by", kind=f"{len(items)} items and {len(keys)} keys",
                     help="give one key per item: sort_by(xs, [x.speed for x in xs])")
    key = _sort_key("sort_by", site)
    try:
        order = sorted(range(len(items)), key=lambda i: key(keys[i]))
    except TypeError:
        raise _error("E0405", site, op="sort_by", kind="keys of different kinds") from None
    return tuple(items[i] for i in order)


def _b_reverse(ctx: Context, args: list[Any], site: Any) -> Any:
    return tuple(reversed(_one_list("reverse", args[0], site)))


def _b_items(ctx: Context, args: list[Any], site: Any) -> Any:
    return items_of(ctx.result(args[0]), "for each", site, ctx.limits)


def _b_range(ctx: Context, args: list[Any], site: Any) -> Any:
    low, high = (0, args[0]) if len(args) == 1 else (args[0], args[1])
    low = _whole("range's start", number(low, ctx), site)
    high = _whole("range's end", number(high, ctx), site)
    if high - low > ctx.limits.max_collection:
        raise _error("E0901", site, what=f"a range of {high - low} numbers", limit=ctx.limits.max_collection)
    return tuple(range(low, high))


def _b_levels_of(ctx: Context, args: list[Any], site: Any) -> Any:
    level = args[0]
    if not isinstance(level, Level):
        raise _error("E0405", site, op="levels_of", kind=kind_of(level), help="levels_of(success): every level of its group")
    return tuple(Level(level.group, name, rank, level.names) for rank, name in enumerate(level.names))


_register("levels_of", _b_levels_of)
_register("range", _b_range)
_register("first", _b_first)
_register("last", _b_last)
_register("index", _b_index)
_register("zip", _b_zip)
_register("sort", _b_sort)
_register("sort_by", _b_sort_by)
_register("reverse", _b_reverse)
def _b_replace(ctx: Context, args: list[Any], site: Any) -> Any:
    items, at, value = _one_list("replace", args[0], site), args[1], ctx.result(args[2])
    if type(at) is not int or not -len(items) <= at < len(items):
        raise _error("E0430", site, key=format_value(at), count=len(items),
                     help="items are numbered from 0; add one with xs + [value]")
    return items[:at] + (value,) + items[at + 1:] if at >= 0 else _b_replace(ctx, [items, len(items) + at, value], site)


def _b_with(ctx: Context, args: list[Any], site: Any) -> Any:
    record, field, value = args[0], args[1], ctx.result(args[2])
    if not isinstance(record, Mapping):
        raise _error("E0405", site, op=f".{field}", kind=kind_of(record))
    if field not in record:
        hint = did_you_mean(field, list(record))
        raise _error("E0207", site, name=field, help=hint)
    return Record({**record, field: value})


_register("replace", _b_replace)
_register("#replace", _b_replace)
_register("#with", _b_with)
# The collection a `for each` walks (dsl.flow): its items, at most the limit.
_register("#items", _b_items)


#: Builtins of the specialised groups (dsl.builtins.GROUPS), which a ruleset's own function may
#: replace when the ruleset does not use the group.
GROUPED = frozenset(key for key, b in registry.BUILTINS.items() if b.group is not None)


# ladder is a special form: its rungs are dice, not values (see Compiler.c_Call).
_register("ladder", lambda *a: None, special=True)


# ---------------------------------------------------------------- static checks


def _faces_of(die: ex.SidesDie | ex.FacesDie) -> tuple[int, ...]:
    return die.faces()


def build_die(node: ex.Dice, source: Source | None, limits: Limits,
              diagnostics: list[Diagnostic], dialect: str = DEFAULT_DIALECT) -> tuple[
                  DieSpec, tuple[str, int] | None, tuple[tuple[int, str, int], ...], str | None]:
    """The die, keep rule and counting rules of a dice term; problems go to ``diagnostics``
    (the whole reading is :func:`interpreter.core.notation.build_term`)."""
    term = build_term(node, source, limits, diagnostics, dialect)
    return term.die, term.keep, term.score, term.counting


def _depth(node: ex.Expr) -> int:
    """Nesting depth, counting a chain like ``a + b + c`` as one level."""
    best = 0
    stack = [(node, 1)]
    while stack:
        current, depth = stack.pop()
        best = max(best, depth)
        if isinstance(current, ex.Binary):
            operands = _flatten(current)
            stack.extend((o, depth + 1) for _, o in operands)
            continue
        children = list(current.children())
        if isinstance(current, ex.Dice) and current.count is not None:
            children = [current.count]
        stack.extend((c, depth + 1) for c in children if c is not None)
    return best


def _flatten(node: ex.Binary) -> list[tuple[str | None, ex.Expr]]:
    return ex.flatten_chain(node)


def check_expression(expr: ex.Expr, source: Source | None = None,
                     limits: Limits = DEFAULT_LIMITS, free: frozenset[str] = frozenset(),
                     dialect: str = DEFAULT_DIALECT) -> list[Diagnostic]:
    """Problems visible before evaluation, all of them (not only the first). ``free``: names
    of builtins the ruleset does not use (its own functions may bear them)."""
    diagnostics: list[Diagnostic] = []
    if _depth(expr) > limits.max_depth:
        diagnostics.append(Diagnostic.make("E0409", source, expr.span, limit=limits.max_depth))
        return diagnostics
    stack: list[ex.Expr] = [expr]
    # Reading a die's rules goes face by face: over all its terms, an expression may name at
    # most twice the faces of the largest die allowed (a dozen `d1000000` terms would take
    # seconds before any of them is refused).
    faces_left = 2 * limits.max_sides
    while stack:
        node = stack.pop()
        if isinstance(node, ex.Dice):
            sides = node.die.sides if isinstance(node.die, ex.SidesDie) and isinstance(node.die.sides, int) else 1
            faces_left -= max(sides, 1) if sides <= limits.max_sides else 1
            if faces_left < 0:
                diagnostics.append(Diagnostic.make("E0901", source, node.span, limit=f"{2 * limits.max_sides:,} faces",
                                                   what="dice terms with more faces in all than twice the largest die"))
                return diagnostics
            build_die(node, source, limits, diagnostics, dialect)
            if isinstance(node.count, ex.Number) and node.count.value > limits.max_dice:
                diagnostics.append(Diagnostic.make("E0402", source, node.count.span or node.span,
                                                   count=node.count.value, limit=limits.max_dice,
                                                   help=MAX_DICE_HELP))
        elif isinstance(node, ex.Call):
            # (A specialised builtin a ruleset does not use may be the name of its own function.)
            builtin = None if node.func.text.casefold() in free else BUILTINS.get(node.func.text.casefold())
            if builtin is not None:
                got = len(node.args)
                if got < builtin.min_args or (builtin.max_args is not None and got > builtin.max_args):
                    if builtin.max_args is None:
                        expected = f"at least {builtin.min_args}"
                    elif builtin.min_args == builtin.max_args:
                        expected = str(builtin.min_args)
                    else:
                        expected = f"{builtin.min_args} to {builtin.max_args}"
                    diagnostics.append(Diagnostic.make("E0406", source, node.span, name=builtin.name,
                                                       expected=expected, got=got))
                # `ladder(n, rungs)` with one argument for its rungs: a list of die sizes (checked when run).
                if builtin.name == "ladder" and not (len(node.args) == 2 and not isinstance(node.args[1], ex.Dice)):
                    for rung in node.args[1:]:
                        if not _is_single_die(rung):
                            diagnostics.append(Diagnostic.make(
                                "E0403", source, rung.span or node.span,
                                message="each rung of a ladder is one die, as in 'd8' or 'd6!'",
                                help="ladder(steps, d4, d6, d8, d10, d12)"))
        elif isinstance(node, ex.Compare):
            _check_comparison(node, source, limits, diagnostics)
        if isinstance(node, ex.Binary):
            stack.extend(o for _, o in _flatten(node))
        elif isinstance(node, ex.Dice):
            if node.count is not None:
                stack.append(node.count)
        else:
            stack.extend(c for c in node.children() if c is not None)
    return diagnostics


def _check_comparison(node: ex.Compare, source: Source | None, limits: Limits,
                      diagnostics: list[Diagnostic]) -> None:
    """Warn about ``2d6 >= 8``: per die, no d6 reaches 8, so it always counts 0."""
    dice, number, op = node.left, node.right, node.op
    if isinstance(dice, ex.Number) and isinstance(number, ex.Dice):
        dice, number, op = number, dice, FLIPPED[op]
    if not (isinstance(dice, ex.Dice) and isinstance(number, ex.Number)):
        return
    if any(m.op in ("!!", "cs", "cf", "df") for m in dice.modifiers):
        return
    die, _keep, _score, _counting = build_die(dice, source, limits, [])
    if any(COMPARE[op](face, number.value) for face in set(die.faces)):
        return
    diagnostics.append(Diagnostic.make(
        "E0417", source, node.span, severity="warning", die=die.label, op=op, value=number.value,
        help=f"to compare the total, write 'sum({dice}) {op} {number.value}'"))


def _walk(node: ex.Expr) -> Iterable[ex.Expr]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, ex.Binary):
            stack.extend(o for _, o in _flatten(current))
        elif isinstance(current, ex.Dice):
            if current.count is not None:
                stack.append(current.count)
        else:
            stack.extend(c for c in current.children() if c is not None)


def expression_size(node: ex.Expr) -> int:
    """The nodes of an expression (an operator chain's operands each count): about what one
    evaluation of it costs, in steps of ``Limits.max_work``."""
    return sum(1 for _ in _walk(node))


def _walked(ctx: Context, items: Any, site: Any, limits: Limits) -> tuple[Any, ...]:
    """The items a comprehension walks (a pool walks its number), counted against
    ``Limits.max_iterations``."""
    items = items_of(number(items, ctx) if type(items) is PoolView else items, "for", site, limits)
    # Counted before the walk, over the whole evaluation: each list is bounded, but
    # a list made in a list multiplies them (a million items walked took 12 s).
    ctx.iterations += len(items)
    if ctx.iterations > ctx.limits.max_iterations:
        raise limit_error("max_iterations", ctx.limits, site,
                          f"more than {ctx.limits.max_iterations:,} items walked by lists made with 'for'")
    return items


_UNBOUND = object()


def _memo_of(node: ex.Expr) -> Callable[[Any], Any]:
    """What a folded list's distribution depends on besides its node: the values of the
    names it reads (a function of the environment). Worlds of a check's odds each make
    their own environment: keyed by it, the list would be folded again in every world."""
    names = sorted({n.text for n in _walk(node) if isinstance(n, ex.Name)}
                   | {n.func.text for n in _walk(node) if isinstance(n, ex.Call)} | {HOLDER})

    def memo(env: Any) -> Any:
        values = []
        for name in names:
            try:
                values.append(env.lookup(name))
            except KeyError:
                values.append(_UNBOUND)  # bound inside the list (a loop's name), or an error there
        key = tuple(values)
        try:
            hash(key)
        except TypeError:
            return env
        return key

    return memo


def _holds_pool(value: Any) -> bool:
    return type(value) is PoolView or (type(value) is tuple and any(_holds_pool(v) for v in value))


def _has_dice(node: ex.Expr) -> bool:
    return any(isinstance(n, ex.Dice) for n in _walk(node))


def _uses_each(node: ex.Expr) -> bool:
    return any(isinstance(n, ex.Call) and n.func.text.casefold() == "each" for n in _walk(node))


def _is_single_die(node: ex.Expr) -> bool:
    return (isinstance(node, ex.Dice)
            and (node.count is None or (isinstance(node.count, ex.Number) and node.count.value == 1))
            and all(m.op in ("x", "!", "!!", "r", "ro") for m in node.modifiers))


def expression_text(node: ex.Expr) -> str:
    """The canonical text of a node (``str(node)``, safe on long operator chains)."""
    return str(node)


# ---------------------------------------------------------------- the compiler


class Compiler:
    """Turns expression nodes into closures ``f(ctx, env)``; one method per node type."""

    def __init__(self, source: Source | None, limits: Limits, dialect: str = DEFAULT_DIALECT) -> None:
        self.source = source
        self.limits = limits
        self.dialect = dialect

    def compile(self, node: ex.Expr) -> Closure:
        method = getattr(self, f"c_{type(node).__name__}")
        return method(node)

    def site(self, node: Any) -> tuple[Source | None, Span | None]:
        return (self.source, node.span)

    def c_Number(self, node: ex.Number) -> Closure:
        value = node.value
        return lambda ctx, env: value

    def c_Decimal(self, node: ex.Decimal) -> Closure:
        value = normalize(node.value)
        return lambda ctx, env: value

    def c_Rating(self, node: ex.Rating) -> Closure:
        value = Rating(node.base, node.symbol, node.count)
        return lambda ctx, env: value

    def c_String(self, node: ex.String) -> Closure:
        value = node.value
        return lambda ctx, env: value

    def c_Name(self, node: ex.Name) -> Closure:
        text = node.text
        site = self.site(node)
        span = node.span
        constants = {"true": True, "false": False, "none": None}
        if text.casefold() in constants:
            # The values, even where a level of the same name is declared.
            constant = constants[text.casefold()]
            return lambda ctx, env: constant
        # Internal names (dsl.flow: a loop's items, a match's subject) stay out of traces.
        shown = not text.startswith("#")

        def name(ctx: Context, env: Any) -> Any:
            try:
                # The name held right in a map environment: MapEnv.lookup's first test, inlined.
                value = env.mapping[text] if type(env) is MapEnv and text in env.mapping else env.lookup(text)
            except KeyError:
                folded = text.casefold()
                if folded in constants:
                    return constants[folded]
                lacking = _lacking(_holder_of(env), text, site)
                if lacking is not None:
                    raise lacking from None
                hint = did_you_mean(text, [n for n in env.names() if n != HOLDER])
                raise _error("E0207", site, name=text, help=hint) from None
            if type(value) not in _SETTLED:
                value = resolve_value(value, text, ctx, site)
            if ctx.trace is not None and shown:
                ctx.trace.append(StepEvent("name", text, trace_value(value), span))
            return value

        return name

    def c_Possessive(self, node: ex.Possessive) -> Closure:
        owner = self.compile(node.owner)
        prop = node.prop.text
        text = str(node)
        site = self.site(node)
        span = node.span

        def possessive(ctx: Context, env: Any) -> Any:
            container = owner(ctx, env)
            if not (isinstance(container, Mapping) or hasattr(container, "lookup")):
                raise _error("E0405", site, op="'s", kind=kind_of(container))
            try:
                value = _lookup_in(container, prop)
            except KeyError:
                lacking = _lacking(container, prop, site)
                if lacking is not None:
                    raise lacking from None
                hint = did_you_mean(prop, _names_of(container))
                raise _error("E0207", site, name=text, help=hint) from None
            value = resolve_value(value, text, ctx, site)
            if ctx.trace is not None:
                ctx.trace.append(StepEvent("name", text, trace_value(value), span))
            return value

        return possessive

    def c_Attribute(self, node: ex.Attribute) -> Closure:
        obj = self.compile(node.obj)
        name = node.name
        site = self.site(node)

        def attribute(ctx: Context, env: Any) -> Any:
            value = obj(ctx, env)
            if isinstance(value, Rating) and name in ("base", "symbol", "count"):
                return getattr(value, name)
            if isinstance(value, Mapping) or hasattr(value, "lookup"):
                try:
                    return resolve_value(_lookup_in(value, name), name, ctx, site)
                except KeyError:
                    hint = did_you_mean(name, _names_of(value))
                    raise _error("E0207", site, name=name, help=hint) from None
            raise _error("E0405", site, op=f".{name}", kind=kind_of(value))

        return attribute

    def c_Index(self, node: ex.Index) -> Closure:
        if isinstance(node.key, ex.Name) and isinstance(node.obj, ex.Number | ex.Decimal | ex.Dice | ex.RollGroup):
            return self._label(node)
        obj = self.compile(node.obj)
        key = self.compile(node.key)
        text = expression_text(node)
        site = self.site(node)
        span = node.span
        shown = "#" not in text

        def index(ctx: Context, env: Any) -> Any:
            table = obj(ctx, env)
            k = number(key(ctx, env), ctx)
            if isinstance(k, Level):
                k = k.name  # a level looks up the row of its name
            if type(table) is tuple:
                if type(k) is not int:
                    raise _error("E0405", site, op="[...]", kind=f"a list indexed by {kind_of(k)}",
                                 help="a list's items are numbered from 0: items[0] is the first")
                if not -len(table) <= k < len(table):
                    raise _error("E0430", site, key=format_value(k), count=len(table),
                                 help="items are numbered from 0; last(xs) is the last one")
                value = table[k]
            elif isinstance(table, Table):
                try:
                    value = table.lookup(k)
                except LookupError:
                    raise _error("E0413", site, table=table.name, key=format_value(k),
                                 help="rows: " + ", ".join(table.keys())) from None
            elif isinstance(table, Mapping) or hasattr(table, "lookup"):
                try:
                    value = _lookup_in(table, k) if isinstance(k, str) else table[k]
                except (KeyError, TypeError):
                    raise _error("E0413", site, table=str(node.obj), key=format_value(k)) from None
            else:
                raise _error("E0405", site, op="[...]", kind=kind_of(table))
            value = resolve_value(value, text, ctx, site)
            if ctx.trace is not None and shown:
                ctx.trace.append(StepEvent("lookup", text, trace_value(value), span))
            return value

        return index

    def _label(self, node: ex.Index) -> Closure:
        """An inline label (``2d6[fire] + 3[strength]``): a number or a dice term cannot be
        indexed, so a name in brackets after one names it; the trace carries the label."""
        obj = self.compile(node.obj)
        label = str(node.key)
        text = f"{node.obj} [{label}]"
        span = node.span

        def labelled(ctx: Context, env: Any) -> Any:
            value = obj(ctx, env)
            if ctx.trace is not None:
                ctx.trace.append(StepEvent("label", text, trace_value(number(value, ctx)), span))
            return value

        return labelled

    def c_ListOf(self, node: ex.ListOf) -> Closure:
        items = [self.compile(item) for item in node.items]
        site = self.site(node)
        most = self.limits.max_collection
        if len(items) > most:
            raise _error("E0901", site, what=f"a list of {len(items)} items", limit=most)
        # A pool stays a pool in a list (`[2d6, 1d8][0]` is still two dice).
        return lambda ctx, env: tuple([item(ctx, env) for item in items])

    def c_RecordOf(self, node: ex.RecordOf) -> Closure:
        fields = [(name, self.compile(value)) for name, value in node.fields]
        site = self.site(node)
        names = [name for name, _ in fields]
        twice = next((n for n in names if names.count(n) > 1), None)
        if twice is not None:
            raise _error("E0405", site, op="{...}", kind=f"the field '{twice}' twice")
        return lambda ctx, env: Record({name: ctx.result(value(ctx, env)) for name, value in fields})

    def c_Comprehension(self, node: ex.Comprehension) -> Closure:
        value = self.compile(node.value)
        collection = self.compile(node.collection)
        condition = self.compile(node.condition) if node.condition is not None else None
        name = node.name
        site = self.site(node)
        limits = self.limits
        # What an item costs exact odds: a step, and one per node its value and condition
        # evaluate (a list of items of 400 nodes counted one step an item, and its worlds
        # ran for 18 s within max_work).
        per_item = 1 + expression_size(node.value) + (expression_size(node.condition) if node.condition else 0)

        def comprehension(ctx: Context, env: Any) -> tuple[Any, ...]:
            out = []
            items = _walked(ctx, collection(ctx, env), site, limits)
            if ctx.world is not None:
                ctx.world.charge(len(items) * per_item)
            for item in items:
                inner = MapEnv.indexed({name: item}, {normalize_name(name): name}, env)
                if condition is None or truth(condition(ctx, inner), ctx):
                    out.append(value(ctx, inner))
            return tuple(out)

        return comprehension

    def _list_fold(self, node: ex.Call, fold: ListFold, plain: Closure) -> Closure:
        """``sum(L)``, ``count(L)``, ``highest(L)``... of a list written in place (``[d6, d8]``,
        ``[d6 + 1 for i in range(n)]``). Rolling, and given dice, evaluate ``plain``; computing
        odds, each item is an independent part whose distribution is computed on its own and
        the parts are folded with the reduction (see ``World.fold_list``). When an item turns
        out not to be independent (it reads a roll made outside it) or the reduction cannot
        fold, the world gives up and the enumeration restarts with ``plain``."""
        key = id(node)
        usable = [True]
        site = self.site(node)
        groups = self._fold_groups(node.args[0], fold, site, key, usable)

        def make(last: bool) -> Closure:
            def folded(ctx: Context, env: Any) -> Any:
                world = ctx.world
                if world is not None and world.folds(key, usable):
                    memo, parts = groups(ctx, env)
                    return world.fold_list(key, memo, parts, fold, usable, last)
                return plain(ctx, env)

            return folded

        folded = make(False)
        folded.last = make(True)  # type: ignore[attr-defined]
        return folded

    def _fold_groups(self, arg: ex.ListOf | ex.Comprehension, fold: ListFold, site: Any, key: Any,
                     usable: list[bool]) -> Callable[[Context, Any], tuple[Any, list[tuple[Closure, Any, int]]]]:
        """For a folded list: a function of (ctx, env) giving a memo key and the list's items as
        parts ``(closure, env, count)``: ``count`` items alike, each ``closure(ctx, env)``
        giving its contribution to the fold. Items alike are those written alike (each
        evaluation of an expression is a new roll) or made by a comprehension whose body does
        not read its name."""

        memo = _memo_of(arg)

        def contribution(ctx: Context, value: Any) -> Any:
            if fold.agg is not None and type(value) is PoolView and type(value.source) is LazyPool \
                    and not value.per_die:
                # The item's last act: its reading's options spread, one world for them all.
                return ctx.world.read(value.source, (value.transforms, fold.agg), last=True)
            return fold.item(ctx, value, site)

        if isinstance(arg, ex.ListOf):
            alike: dict[str, list[Any]] = {}
            for item in arg.items:
                alike.setdefault(expression_text(item), [item, 0])[1] += 1
            def item_part(closure: Closure) -> Closure:
                return lambda ctx, env: contribution(ctx, closure(ctx, env))

            parts = [(item_part(self.compile(item)), count) for item, count in alike.values()]

            def listed(ctx: Context, env: Any) -> tuple[Any, list[tuple[Closure, Any, int]]]:
                ctx.world.charge(len(arg.items))
                return memo(env), [(part, env, count) for part, count in parts]

            return listed

        value = self.compile(arg.value)
        collection = self.compile(arg.collection)
        condition = self.compile(arg.condition) if arg.condition is not None else None
        name = arg.name
        loop = normalize_name(name)
        body = [arg.value] + ([arg.condition] if arg.condition is not None else [])
        same = not any(isinstance(n, ex.Name) and normalize_name(n.text) == loop for b in body for n in _walk(b))
        limits = self.limits
        start = fold.start

        def part(ctx: Context, inner: Any) -> Any:
            if condition is not None and not truth(condition(ctx, inner), ctx):
                return start  # an item left out adds nothing
            return contribution(ctx, value(ctx, inner))

        def made(ctx: Context, env: Any) -> tuple[Any, list[tuple[Closure, Any, int]]]:
            items = _walked(ctx, collection(ctx, env), site, limits)
            if any(_holds_pool(x) for x in items):
                ctx.world.give_up(usable, key)  # the items are rolls made outside: shared
            ctx.world.charge(len(items))
            index = {loop: name}
            if same:
                inner = MapEnv.indexed({name: items[0]}, index, env) if items else env
                return (memo(env), len(items)), ([(part, inner, len(items))] if items else [])
            return (memo(env), items), [(part, MapEnv.indexed({name: x}, index, env), 1) for x in items]

        return made

    def c_Unary(self, node: ex.Unary) -> Closure:
        operand = self.compile(node.operand)
        op = node.op
        site = self.site(node)
        if isinstance(node.operand, ex.Number):
            value = -node.operand.value if op == "-" else node.operand.value
            return lambda ctx, env: value

        def unary(ctx: Context, env: Any) -> Any:
            v = operand(ctx, env)
            if type(v) is PoolView:
                if v.per_die and op == "-":
                    return v.derive(("neg",))
                v = number(v, ctx)
            _check_number(op, v, site)
            return -v if op == "-" else v

        return unary

    def c_Binary(self, node: ex.Binary) -> Closure:
        parts = _flatten(node)
        first = self.compile(parts[0][1])
        rest = []
        start = parts[0][1].span
        for i, (op, operand) in enumerate(parts[1:], 1):
            before = parts[i - 1][1].span
            left_span = start.cover(before) if start and before else node.span
            rest.append((op, self.compile(operand), (self.source, left_span), (self.source, operand.span or node.span)))
        text = expression_text(node)
        span = node.span
        operands = [operand for _, operand in parts]
        random_parts = [i for i, operand in enumerate(operands) if _has_dice(operand)]
        if len(random_parts) >= 2 and not _uses_each(node):
            return self._independent_chain(node, first, rest, random_parts, text)
        if len(rest) == 1:
            op, second, left_site, right_site = rest[0]
            fast = _FAST_INT.get(op)

            def binary(ctx: Context, env: Any) -> Any:
                a = first(ctx, env)
                b = second(ctx, env)
                if fast is not None:
                    # A pool read as its total, plus a number: the common `3d6 + 2`.
                    if type(a) is PoolView and type(b) is int and not a.per_die:
                        a = number(a, ctx)
                    elif type(b) is PoolView and type(a) is int and not b.per_die:
                        b = number(b, ctx)
                if fast is not None and type(a) is int and type(b) is int:
                    value = fast(a, b)
                    if op == "*":
                        check_digits(value, ctx.limits, left_site)
                else:
                    value = binop(op, a, b, ctx, left_site, right_site)
                if ctx.trace is not None:
                    ctx.trace.append(StepEvent("op", text, trace_value(value), span))
                return value

            if fast is not None and random_parts:
                def binary_last(ctx: Context, env: Any) -> Any:
                    """``binary`` as a world's last act: a pool's total and a number spread."""
                    world = ctx.world
                    if world is not None:
                        a = first(ctx, env)
                        b = second(ctx, env)
                        if type(a) is PoolView and type(b) is int and not a.per_die:
                            read = world.read(a.source, number_reader(a), last=True)
                            if type(read) is Spread:
                                return read.map(lambda v: binop(op, v, b, ctx, left_site, right_site))
                            return binop(op, read, b, ctx, left_site, right_site)
                        if type(b) is PoolView and type(a) is int and not b.per_die:
                            read = world.read(b.source, number_reader(b), last=True)
                            if type(read) is Spread:
                                return read.map(lambda v: binop(op, a, v, ctx, left_site, right_site))
                            return binop(op, a, read, ctx, left_site, right_site)
                        return binop(op, a, b, ctx, left_site, right_site)
                    return binary(ctx, env)

                binary.last = binary_last  # type: ignore[attr-defined]
            return binary

        def chain(ctx: Context, env: Any) -> Any:
            value = first(ctx, env)
            for op, operand, left_site, right_site in rest:
                value = binop(op, value, operand(ctx, env), ctx, left_site, right_site)
            if ctx.trace is not None:
                ctx.trace.append(StepEvent("op", text, trace_value(value), span))
            return value

        return chain

    def _independent_chain(self, node: ex.Binary, first: Closure, rest: list[Any], random_parts: list[int],
                           text: str) -> Closure:
        """A chain like ``2d6 + 1d8 + 3`` with several dice terms. Rolling evaluates it like
        any chain; computing odds, the other operands are evaluated in the world and the
        dice terms, independent of each other, are folded into one distribution (see
        ``World.chain``) instead of multiplying worlds."""
        closures = [first] + [c for _, c, _, _ in rest]
        steps = [(op, left_site, right_site) for op, _c, left_site, right_site in rest]
        # The chain's identity in an enumeration: its node, not this closure (the same node
        # may be compiled twice, by threads racing to fill a cache, and both closures must
        # count as one chain), and a hint for new enumerations (see ``World.folds``).
        key = id(node)
        usable = [True]
        random_set = frozenset(random_parts)
        span = node.span

        def make(last: bool) -> Closure:
            def chain(ctx: Context, env: Any) -> Any:
                world = ctx.world
                if world is not None and world.folds(key, usable):
                    fixed = []
                    for i, closure in enumerate(closures):
                        if i in random_set:
                            fixed.append(None)
                            continue
                        operand = closure(ctx, env)
                        if type(operand) is PoolView and operand.per_die:
                            world.give_up(usable, key)  # per-die arithmetic: evaluate plainly
                        fixed.append(number(operand, ctx))
                    return world.chain(key, env, tuple(fixed), closures, random_set, steps, usable, last)
                value = closures[0](ctx, env)
                for i, (op, left_site, right_site) in enumerate(steps, 1):
                    value = binop(op, value, closures[i](ctx, env), ctx, left_site, right_site)
                if ctx.trace is not None:
                    ctx.trace.append(StepEvent("op", text, trace_value(value), span))
                return value

            return chain

        chain = make(False)
        # The chain as a world's last act (its value is the outcome): spread, not chosen.
        chain.last = make(True)  # type: ignore[attr-defined]
        return chain

    def c_Compare(self, node: ex.Compare) -> Closure:
        if node.failures is not None:
            return self._success_failures(node)
        left = self.compile(node.left)
        right = self.compile(node.right)
        op = node.op
        if isinstance(node.left, ex.Dice) and isinstance(node.right, ex.Number):
            op = roll20_compare(op, self.dialect)  # a success target written on the dice
        if isinstance(node.left, ex.RollGroup) and self._written_straight_after(node.left):
            raise _error("E0403", self.site(node), message="a roll group with a success target counts rolls "
                         "(or a one-roll group's dice) in Roll20; that is not supported",
                         help="count dice over a target without the braces, as in '5d6!! > 8', or compare "
                              "the group's total with a space: '{3d6, 3d6}kh1 > 10'")
        text = expression_text(node)
        site = self.site(node)
        span = node.span

        # For two whole numbers `==` and `!=` are Python's (what `equal` comes to for them).
        plain = {"==": operator.eq, "=": operator.eq, "!=": operator.ne}.get(op, COMPARE.get(op, None))

        def comparison(ctx: Context, env: Any) -> Any:
            a, b = left(ctx, env), right(ctx, env)
            # Two whole numbers: compare's first case, inlined.
            value = plain(a, b) if type(a) is int and type(b) is int and plain is not None \
                else compare(op, a, b, ctx, site)
            if ctx.trace is not None:
                ctx.trace.append(StepEvent("op", text, trace_value(value), span))
            return value

        return comparison

    def _written_straight_after(self, node: ex.Expr) -> bool:
        """Whether the text right after ``node`` is not a space (``{5d6!!}>8``)."""
        span = node.span
        if self.source is None or span is None or span.line != span.end_line:
            return False
        line = self.source.text.split("\n")[span.end_line - 1]
        following = line[span.end_column - 1 : span.end_column]
        return following not in ("", " ", "\t", ")")

    def _success_failures(self, node: ex.Compare) -> Closure:
        """Roll20's ``3d6>3f1``: each die over the target counts +1, each die at the failure
        target -1 (a die matching both counts both)."""
        left = self.compile(node.left)
        if not isinstance(node.right, ex.Number):
            raise _error("E0403", self.site(node.right), message="a success target is a number",
                         help="as in '3d6>3f1'")
        failures = node.failures
        assert failures is not None
        op = roll20_compare("=" if node.op == "==" else node.op, self.dialect)
        rules = ((1, op, node.right.value), (-1, roll20_compare(failures.compare or "=", self.dialect), failures.value))
        text = expression_text(node)
        site = self.site(node)
        span = node.span

        def success_failures(ctx: Context, env: Any) -> Any:
            pool = left(ctx, env)
            if type(pool) is not PoolView or pool.transforms:
                raise _error("E0405", site, op=f"f{failures.compare or ''}{failures.value}", kind=kind_of(pool),
                             help="failures are counted on dice, as in '3d6>3f1'")
            view = pool.derive(("score", rules))
            value = read(view, ((("score", rules),), "sum"), ctx)
            if ctx.trace is not None:
                ctx.trace.append(StepEvent("op", text, value, span))
            return value

        return success_failures

    def c_Not(self, node: ex.Not) -> Closure:
        operand = self.compile(node.operand)
        return lambda ctx, env: not truth(operand(ctx, env), ctx)

    def c_And(self, node: ex.And) -> Closure:
        left = self.compile(node.left)
        right = self.compile(node.right)

        def and_(ctx: Context, env: Any) -> Any:
            a = left(ctx, env)
            if not (a if type(a) is bool else truth(a, ctx)):
                return a
            return right(ctx, env)

        return and_

    def c_Or(self, node: ex.Or) -> Closure:
        left = self.compile(node.left)
        right = self.compile(node.right)

        def or_(ctx: Context, env: Any) -> Any:
            a = left(ctx, env)
            if a if type(a) is bool else truth(a, ctx):
                return a
            return right(ctx, env)

        return or_

    def c_Conditional(self, node: ex.Conditional) -> Closure:
        then = self.compile(node.then)
        condition = self.compile(node.condition)
        otherwise = self.compile(node.otherwise)
        text = expression_text(node.condition)
        span = node.condition.span

        def conditional(ctx: Context, env: Any) -> Any:
            decided = condition(ctx, env)
            if type(decided) is not bool:
                decided = truth(decided, ctx)
            if ctx.trace is not None:
                ctx.trace.append(StepEvent("condition", text, decided, span))
            return then(ctx, env) if decided else otherwise(ctx, env)

        return conditional

    def c_Call(self, node: ex.Call) -> Closure:
        name = node.func.text
        builtin = BUILTINS.get(name.casefold())
        text = expression_text(node)
        site = self.site(node)
        span = node.span
        if builtin is not None and builtin.special:
            # A special form compiles its own arguments: ladder's rungs are dice; others
            # (such as the grid's `placed`) give ``impl(compiler, node)`` a closure.
            return self._ladder(node) if builtin.name == "ladder" else builtin.impl(self, node)
        args = [self.compile(a) for a in node.args]
        if builtin is not None and name.casefold() in GROUPED:
            # A specialised builtin (a grid's, an entry reader): a ruleset that does not use its
            # group may define a function of that name, which then wins.
            plain = self._call_user(node, args)
            impl = builtin.impl
            shown_call = "#" not in text

            def call_grouped(ctx: Context, env: Any) -> Any:
                try:
                    own = env.lookup(name)
                except KeyError:
                    own = None
                if isinstance(own, Function):
                    return plain(ctx, env)
                value = impl(ctx, [a(ctx, env) for a in args], site)
                if ctx.trace is not None and shown_call:
                    ctx.trace.append(StepEvent("call", text, trace_value(value), span))
                return value

            return call_grouped
        if builtin is not None:
            impl = builtin.impl

            shown = "#" not in text  # a loop's own calls (dsl.flow) stay out of traces

            def call_builtin(ctx: Context, env: Any) -> Any:
                value = impl(ctx, [a(ctx, env) for a in args], site)
                if ctx.trace is not None and shown:
                    ctx.trace.append(StepEvent("call", text, trace_value(value), span))
                return value

            fold = LIST_FOLDS.get(name.casefold())
            if (fold is not None and len(node.args) == 1 and isinstance(node.args[0], (ex.ListOf, ex.Comprehension))
                    and _has_dice(node.args[0])):
                return self._list_fold(node, fold, call_builtin)
            return call_builtin

        return self._call_user(node, args)

    def _call_user(self, node: ex.Call, args: list[Closure]) -> Closure:
        """A call of a function the rules define (or a check, which the host runs)."""
        name = node.func.text
        text = expression_text(node)
        site = self.site(node)
        span = node.span

        def call_function(ctx: Context, env: Any) -> Any:
            try:
                func = env.lookup(name)
            except KeyError:
                hint = registry.foreign_help(name) or did_you_mean(name, list(BUILTINS) + [n for n in env.names()])
                raise _error("E0412", site, name=name, help=hint) from None
            if type(func) is not Function:  # the checks below, skipped for a plain function
                invoke = getattr(func, "invoke", None)
                if invoke is not None and not isinstance(func, Function):
                    # Something the host defines as callable (a rules layer's check): it runs
                    # with this context, so its dice and trace join this evaluation's.
                    return invoke(ctx, [ctx.result(a(ctx, env)) for a in args], site)
                if not isinstance(func, Function):
                    raise _error("E0405", site, op="(...)", kind=kind_of(func),
                                 help=f"'{name}' is not a function")
            if len(args) != len(func.params):
                raise _error("E0406", site, name=name, expected=len(func.params), got=len(args))
            values = [a(ctx, env) for a in args]
            if ctx.trace is None and ctx.world is not None:
                # Exact odds: the run's memo may know the value for these arguments.
                memo = getattr(ctx.run, "memo", None)
                if memo is not None:
                    return memo.call(func, values, ctx, site)
            value = call_function_value(func, values, ctx, site)
            if ctx.trace is not None:
                ctx.trace.append(StepEvent("call", text, trace_value(value), span))
            return value

        return call_function

    def _ladder(self, node: ex.Call) -> Closure:
        steps = self.compile(node.args[0])
        if len(node.args) == 2 and not isinstance(node.args[1], ex.Dice):
            return self._ladder_of_sizes(node, steps)
        rungs = []
        for rung in node.args[1:]:
            assert isinstance(rung, ex.Dice)
            die, _keep, _score, _counting = build_die(rung, self.source, self.limits, [])
            rungs.append(die)
        text = expression_text(node)
        site = self.site(node)
        span = node.span
        specs: dict[int, PoolSpec] = {}

        def ladder(ctx: Context, env: Any) -> Any:
            n = number(steps(ctx, env), ctx)
            n = _whole("the number of steps", n, site)
            spec = specs.get(n)
            if spec is None:
                spec = ladder_spec(max(n, 0), rungs)
                specs[n] = spec
            if spec.size > ctx.limits.max_dice:
                raise _error("E0402", site, count=spec.size, limit=ctx.limits.max_dice, help=MAX_DICE_HELP)
            view = ctx.new_pool(spec, node, span, self.source)
            if ctx.trace is not None:
                ctx.trace.append(StepEvent("call", text, trace_value(view), span))
            return view

        return ladder

    def _ladder_of_sizes(self, node: ex.Call, steps: Closure) -> Closure:
        """``ladder(n, sizes)``: the rungs are a list of die sizes worked out when it runs
        (``[4, 6, 8, 10, 10]``), so rules can choose a ladder (a table row, a condition)."""
        sizes_of = self.compile(node.args[1])
        text = expression_text(node)
        site = self.site(node)
        span = node.span
        source, limits = self.source, self.limits
        specs: dict[tuple[tuple[int, ...], int], PoolSpec] = {}

        def ladder(ctx: Context, env: Any) -> Any:
            sizes = ctx.result(sizes_of(ctx, env))
            if type(sizes) is not tuple or not sizes or not all(type(s) is int and s >= 1 for s in sizes):
                raise _error("E0405", site, op="ladder", kind=f"{kind_of(sizes)} as its rungs",
                             help="give the die sizes in order, as in ladder(n, [4, 6, 8, 10, 12])")
            n = _whole("the number of steps", number(steps(ctx, env), ctx), site)
            spec = specs.get((sizes, n))
            if spec is None:
                rungs = [build_die(ex.Dice(None, ex.SidesDie(size)), source, limits, [])[0] for size in sizes]
                spec = specs[(sizes, n)] = ladder_spec(max(n, 0), rungs)
            if spec.size > ctx.limits.max_dice:
                raise _error("E0402", site, count=spec.size, limit=ctx.limits.max_dice, help=MAX_DICE_HELP)
            view = ctx.new_pool(spec, node, span, source)
            if ctx.trace is not None:
                ctx.trace.append(StepEvent("call", text, trace_value(view), span))
            return view

        return ladder

    def c_Dice(self, node: ex.Dice) -> Closure:
        diagnostics: list[Diagnostic] = []
        term = build_term(node, self.source, self.limits, diagnostics, self.dialect)
        if diagnostics:
            raise RunebookError(diagnostics)
        die, keep, score, counting = term.die, term.keep, term.score, term.counting
        text = str(node)
        site = self.site(node)
        span = node.span
        source = self.source
        finish = _term_reading(term)

        def make(n: int) -> PoolSpec:
            if term.unique and n > len(die.faces):
                raise _error("E0403", site, message=f"{n} dice cannot all show different faces of a {die.label}",
                             help=f"roll at most {len(die.faces)} unique dice")
            return PoolSpec(((n, die),), keep, score, counting, text, term.crits, term.order, term.unique)

        if node.count is None or isinstance(node.count, ex.Number):
            fixed = make(1 if node.count is None else node.count.value)

            if finish is None:
                def dice(ctx: Context, env: Any) -> Any:
                    return ctx.new_pool(fixed, node, span, source)
            else:
                def dice(ctx: Context, env: Any) -> Any:
                    return finish(ctx.new_pool(fixed, node, span, source), ctx)

            return dice
        count = self.compile(node.count)
        specs: dict[int, PoolSpec] = {}

        def dice_counted(ctx: Context, env: Any) -> Any:
            n = _whole("the number of dice", number(count(ctx, env), ctx), site)
            if n < 0:
                raise _error("E0403", site, message=f"cannot roll {n} dice",
                             help="the number of dice is negative here")
            if n > ctx.limits.max_dice:
                raise _error("E0402", site, count=n, limit=ctx.limits.max_dice, help=MAX_DICE_HELP)
            spec = specs.get(n)
            if spec is None:
                spec = specs[n] = make(n)
            view = ctx.new_pool(spec, node, span, source)
            return view if finish is None else finish(view, ctx)

        return dice_counted

    def c_RollGroup(self, node: ex.RollGroup) -> Closure:
        items = [self.compile(item) for item in node.items]
        keep, select = _group_rules(node, self.source)
        text = expression_text(node)
        span = node.span

        def group(ctx: Context, env: Any) -> Any:
            values = [number(item(ctx, env), ctx) for item in items]
            kept = _keep_values(values, keep, select)
            value = sum(kept) if select is None or select[0] == "sum" else len(kept)
            if ctx.trace is not None:
                ctx.trace.append(StepEvent("op", f"{text}: rolls", tuple(values), span))
                if keep is not None:
                    ctx.trace.append(StepEvent("op", f"{text}: kept", tuple(kept), span))
            return normalize(value)

        return group


def _term_reading(term: Any) -> Callable[[PoolView, Context], Any] | None:
    """What a dice term gives beyond its pool: selected dice (d20's ``k3``) or a margin."""
    if term.select:
        transforms = tuple(("select", op, value) for op, value in term.select)

        def selected(view: PoolView, ctx: Context) -> Any:
            chosen = PoolView(view.source, view.transforms + transforms)
            pool = view.source
            if type(pool) is RolledPool:
                for d in pool.members:
                    if d.fate == "kept" and not apply_transforms(d.value, transforms)[0]:
                        d.fate = "dropped"
                pool.kept_values = [d.value for d in pool.members if d.fate == "kept"]
                if pool.event is not None:
                    pool.event.value = number(chosen, ctx)
            return chosen

        return selected
    if term.margin is not None:
        op, target = term.margin
        below = op in ("<", "<=")

        def margin(view: PoolView, ctx: Context) -> Any:
            total = number(view, ctx)
            return target - total if below else total - target

        return margin
    return None


def _group_rules(node: ex.RollGroup, source: Source | None) -> tuple[tuple[str, int] | None, Any]:
    """A roll group's keep/drop rule and success target (``{...}>10`` is written as a
    comparison; here only modifiers: ``kh``/``kl``/``dh``/``dl``/``d``/``k``)."""
    keep = None
    if len(node.items) == 1 and node.modifiers:
        # Roll20 applies the modifiers of a one-roll group to that roll's dice.
        raise RunebookError([Diagnostic.make(
            "E0403", source, node.span, message="a group of one roll keeps or drops its dice in Roll20",
            help="write the modifier on the dice, as in '4d6kh3' for '{4d6}kh3'")])
    for mod in node.modifiers:
        op = {"k": "kh", "d": "dl", "L": "dl", "H": "dh", "ph": "dh", "pl": "dl"}.get(mod.op, mod.op)
        if op not in ("kh", "kl", "dh", "dl") or mod.compare is not None or keep is not None:
            raise RunebookError([Diagnostic.make(
                "E0403", source, mod.span or node.span, message=f"'{mod}' does not apply to a roll group",
                help="keep or drop whole rolls, as in '{4d6+3, 2d8}kh1'; count rolls over a target "
                     "with comparisons, as in 'count(sum(4d6) > 10, sum(3d8) > 10)'")])
        keep = (op, 1 if mod.value is None else mod.value)
    return keep, None


def _keep_values(values: list[Any], keep: tuple[str, int] | None, select: Any) -> list[Any]:
    if keep is None:
        return values
    mode, n = keep
    order = sorted(range(len(values)), key=lambda i: (-values[i], i) if mode in ("kh", "dl") else (values[i], i))
    count = n if mode in ("kh", "kl") else len(values) - n
    chosen = set(order[: max(count, 0)])
    return [v for i, v in enumerate(values) if i in chosen]


def _whole(what: str, value: Any, site: Any) -> int:
    if type(value) is bool or type(value) not in (int, Fraction):
        if value is UNKNOWN or isinstance(value, Bound):
            raise Undetermined
        raise _error("E0414", site, what=what, value=kind_of(value))
    if type(value) is Fraction:
        raise _error("E0414", site, what=what, value=format_value(value))
    return value


def ladder_spec(n: int, rungs: list[DieSpec]) -> PoolSpec:
    """Step dice: ``n`` steps on the rungs; each full ladder adds one top die."""
    full, rest = divmod(n, len(rungs))
    groups: list[tuple[int, DieSpec]] = []
    if full:
        groups.append((full, rungs[-1]))
    if rest:
        if groups and rungs[rest - 1] == rungs[-1]:
            groups[0] = (full + 1, rungs[-1])
        else:
            groups.append((1, rungs[rest - 1]))
    text = " + ".join(f"{c if c > 1 else ''}{d.label}" for c, d in groups) or "no dice"
    return PoolSpec(tuple(groups), None, (), None, text)


#: Types whose values :func:`resolve_value` returns as they are (exact types, not subclasses):
#: a list or a record is returned whole (its items are resolved where they are read).
_SETTLED: frozenset[type] = frozenset({int, bool, str, float, Fraction, type(None), Level, Bound, Rating, tuple,
                                       Record})


def resolve_value(value: Any, name: str, ctx: Context, site: Any) -> Any:
    """A looked-up value as the expression sees it: declared pools are rolled (once),
    derived values are computed."""
    if type(value) in _SETTLED:  # plain values need none of the checks below
        return value
    if isinstance(value, PoolSource):
        return ctx.realize(value)
    resolve = getattr(value, "resolve_in", None)
    if resolve is not None:
        # A value the host computes per evaluation (a rules layer's option setting).
        try:
            return resolve(ctx)
        except RunebookError as error:
            raise _placed(error, site) from None
    if isinstance(value, Derived):
        if value.name in ctx.active:
            raise _error("E0416", site, name=value.name)
        compiled = compile_body(value.expr, value.source, ctx.limits)
        ctx.active.add(value.name)
        ctx.depth += 1
        try:
            if ctx.depth > ctx.limits.max_depth:
                raise _error("E0409", site, limit=ctx.limits.max_depth)
            return compiled(ctx, as_env(value.env))
        except RunebookError as error:
            raise _read_from(error, value.name, site) from None
        finally:
            ctx.depth -= 1
            ctx.active.discard(value.name)
    return value


def _placed(error: RunebookError, site: Any) -> RunebookError:
    """An error of no place (a role nobody gave) placed where the value was read."""
    source, span = site if isinstance(site, tuple) and len(site) == 2 else (None, None)
    if source is None or span is None or not error.diagnostics or error.diagnostics[0].source is not None:
        return error
    return RunebookError([attrs.evolve(error.diagnostics[0], source=source, span=span), *error.diagnostics[1:]])


def _read_from(error: RunebookError, name: str, site: Any) -> RunebookError:
    """An error inside a derived value (a stat's formula, an entry's line) read from another
    file: its help also names where it was read (``read as Reach at spells.rules:12:22``), so a
    problem in a game's rules points back at the user's own file that caused it."""
    source, span = site if isinstance(site, tuple) and len(site) == 2 else (None, None)
    if source is None or span is None or not error.diagnostics:
        return error
    first = error.diagnostics[0]
    if first.source is not None and first.source.name == source.name:
        return error
    where = f"read as {name} at {source.name}:{span.line}:{span.column}"
    if first.help and where in first.help:
        return error
    help = f"{first.help}; {where}" if first.help else where
    return RunebookError([attrs.evolve(first, help=help), *error.diagnostics[1:]])


def call_function_value(func: Function, values: list[Any], ctx: Context, site: Any) -> Any:
    compiled, size = _body(func.body, func.source, ctx.limits)
    # MapEnv(dict(zip(params, values))), with the parameters' index folded once per function.
    env = MapEnv.indexed(dict(zip(func.params, values)), dict(_params_index(func.params)), as_env(func.env))
    ctx.calls += 1
    if ctx.calls > ctx.limits.max_calls:
        raise limit_error("max_calls", ctx.limits, site, f"more than {ctx.limits.max_calls:,} calls in one evaluation")
    if ctx.world is not None:
        # Every world of exact odds makes its calls again: each counts its body's nodes.
        ctx.world.charge(size)
    ctx.depth += 1
    try:
        if ctx.depth > ctx.limits.max_depth:
            raise _error("E0409", site, limit=ctx.limits.max_depth)
        return compiled(ctx, env)
    finally:
        ctx.depth -= 1


@lru_cache(maxsize=4096)
def _params_index(params: tuple[str, ...]) -> dict[str, str]:
    """The folded-name index of a function's parameters (copied per call, never changed)."""
    index: dict[str, str] = {}
    for name in params:  # as MapEnv builds it: a later parameter wins a folded clash
        index[normalize_name(name)] = name
    return index


#: Compiled bodies by their node's id: (node, limits, closure, its expression_size).
_BODIES: dict[int, tuple[Any, Limits, Closure, int]] = {}


def _body(expr: ex.Expr, source: Source | None, limits: Limits) -> tuple[Closure, int]:
    """A body compiled once (keyed by the node object) with its size in nodes, checked
    against the limits of the evaluation that calls it."""
    entry = _BODIES.get(id(expr))
    if entry is not None and entry[0] is expr and (entry[1] is limits or entry[1] == limits):
        return entry[2], entry[3]
    if len(_BODIES) > 4096:
        _BODIES.clear()
    diagnostics = [d for d in check_expression(expr, source, limits) if d.severity == "error"]
    if diagnostics:
        raise RunebookError(diagnostics)
    closure = Compiler(source, limits).compile(expr)
    size = expression_size(expr)
    _BODIES[id(expr)] = (expr, limits, closure, size)
    return closure, size


def compile_body(expr: ex.Expr, source: Source | None, limits: Limits = DEFAULT_LIMITS) -> Closure:
    """Compile a function body or a derived value once (keyed by the node object), checked
    against the limits of the evaluation that calls it."""
    return _body(expr, source, limits)[0]


# ---------------------------------------------------------------- compiled expressions


class CompiledExpression:
    """A checked, compiled expression: its tree, its source and its closure."""

    __slots__ = ("_text", "closure", "expr", "source", "warnings")

    def __init__(self, expr: ex.Expr, source: Source | None, closure: Closure, text: str | None = None) -> None:
        self.expr = expr
        self.source = source
        self.closure = closure
        self._text = text
        self.warnings: tuple[Diagnostic, ...] = ()

    @property
    def text(self) -> str:
        """The expression's canonical text (worked out when first asked: a ruleset compiles
        hundreds of expressions whose text nothing shows)."""
        if self._text is None:
            self._text = expression_text(self.expr)
        return self._text

    def __repr__(self) -> str:
        return f"CompiledExpression({self.text!r})"


def compile_expression(expr: str | ex.Expr, source: Source | None = None,
                       limits: Limits = DEFAULT_LIMITS, free: frozenset[str] = frozenset(),
                       dialect: str = DEFAULT_DIALECT) -> CompiledExpression:
    """Parse (when given text), check and compile an expression. Raises RunebookError.
    ``free``: builtins of groups the ruleset does not use (see dsl.builtins.hidden_builtins).
    ``dialect``: how dice notation the tools read differently is read
    (:mod:`interpreter.core.notation`)."""
    if isinstance(expr, str):
        return _compile_text(expr, limits, dialect)
    return _compile_node(expr, source, limits, free, check_dialect(dialect))


def _compile_text(text: str, limits: Limits, dialect: str = DEFAULT_DIALECT) -> CompiledExpression:
    """:func:`_compile_new_text`, remembered for the process (512 texts, the least recently
    used dropped first) unless its dice hold more than 10,000 faces in all: a compiled
    `d1000000` holds its million faces (~38 MB), and a bot asked for ever new such texts kept
    every one."""
    key = (text, limits, dialect)
    found = _TEXTS.get(key)
    if found is None:
        found = _compile_new_text(text, limits, dialect)
        _TEXTS.put(key, found)
    return found


def _faces_written(expr: ex.Expr) -> int:
    """How many faces the dice written in an expression have, in all."""
    total = 0
    for node in ex.nodes(expr):
        if isinstance(node, ex.Dice):
            sides = node.die.sides if isinstance(node.die, ex.SidesDie) else len(node.die.values)
            total += sides if isinstance(sides, int) else 100  # `%`, `F`
    return total


_TEXTS: SizedCache[CompiledExpression] = SizedCache(512, 512 * 10_000, 10_000,
                                                   lambda compiled: _faces_written(compiled.expr))


def _compile_new_text(text: str, limits: Limits, dialect: str = DEFAULT_DIALECT) -> CompiledExpression:
    check_dialect(dialect)
    source = Source("<expression>", text)
    try:
        node = simple_expression(text)
        if node is None:
            from runebook.dsl.parser import parse_expression  # the grammar, loaded only when needed

            node = parse_expression(text, source)
    except RunebookError as error:
        hint = foreign_hint(text)
        if hint is None or error.diagnostics[0].code not in ("E0101", "E0102", "E0103", "E0104", "E0105"):
            raise
        first = attrs.evolve(error.diagnostics[0], help=f"{hint[0]} is not supported: {hint[1]}")
        raise RunebookError((first, *error.diagnostics[1:])) from None
    return _compile_node(node, source, limits, dialect=dialect)


def _compile_node(node: ex.Expr, source: Source | None, limits: Limits,
                  free: frozenset[str] = frozenset(), dialect: str = DEFAULT_DIALECT) -> CompiledExpression:
    diagnostics = check_expression(node, source, limits, free, dialect)
    errors = [d for d in diagnostics if d.severity == "error"]
    if errors:
        raise RunebookError(errors)
    closure = Compiler(source, limits, dialect).compile(node)
    text = source.text if source is not None and source.name == "<expression>" else None
    compiled = CompiledExpression(node, source, closure, text)
    compiled.warnings = tuple(diagnostics)
    return compiled


def evaluate(expr: str | ex.Expr | CompiledExpression, env: Any = None, *, oracle: DiceOracle,
             limits: Limits = DEFAULT_LIMITS, trace: bool = True) -> tuple[Any, Trace | None]:
    """Evaluate once with faces from ``oracle``: (value, trace). A pool reads as its number."""
    compiled = expr if isinstance(expr, CompiledExpression) else compile_expression(expr, limits=limits)
    ctx = Context(oracle=oracle, limits=limits, trace=Trace() if trace else None)
    value = ctx.result(compiled.closure(ctx, as_env(env)))
    oracle.finish()
    return value, ctx.trace


class _SpecWorld:
    """Captures the spec of a dice expression instead of rolling it."""

    #: No die is ever taken here (a memo of the run's values compares its length).
    taken: tuple[Any, ...] = ()

    def __init__(self, site: Any) -> None:
        self.site = site

    def new_pool(self, spec: PoolSpec, site: Any) -> LazyPool:
        return LazyPool(spec, None)

    def pool_source(self, source: PoolSource) -> LazyPool:
        return LazyPool(source.spec, None)

    def folds(self, key: Any, usable: list[bool]) -> bool:
        return False  # a chain of dice terms (`1d6 + 1d8`) is not one pool: evaluated plainly, it reads them

    def read(self, pool: LazyPool, reader: Any) -> Any:
        raise _error("E0403", self.site, message="the number of dice of a declared pool must be known before rolling")

    def leaders(self, items: tuple[Any, ...], ctx: Context) -> None:
        return None  # read plainly: a pool read here is refused by ``read``

    def charge(self, steps: int) -> None:
        """Nothing is enumerated here: no work is counted."""


def pool_spec(expr: str | ex.Expr | CompiledExpression, env: Any = None, *,
              limits: Limits = DEFAULT_LIMITS, run: Any = None) -> PoolSpec:
    """The :class:`~interpreter.core.dice.PoolSpec` of a dice expression (``pool d10 x10``,
    ``ladder(steps, d4, d6, d8, d10, d12)``), with its count taken from ``env``; wrap it in
    a :class:`~interpreter.core.dice.PoolSource` to declare a pool that several expressions read.
    ``run``: the run the dice are for (its options and roles), when there is one."""
    compiled = expr if isinstance(expr, CompiledExpression) else compile_expression(expr, limits=limits)
    site = (compiled.source, compiled.expr.span)
    value = Context(world=_SpecWorld(site), limits=limits, run=run).evaluate(compiled, env)
    if type(value) is not PoolView or value.transforms:
        raise _error("E0403", site, message="this is not a pool of dice", help="declare a pool such as 'pool d10'")
    return value.source.spec


# Grid geometry (cells, distances, area shapes) lives in its own module.
_hexgrid.register(_register, kind_of, number)


def _b_number_or(ctx: Context, args: list[Any], site: Any) -> Any:
    value = number(args[0], ctx) if type(args[0]) is PoolView else args[0]
    return value if type(value) in NUMERIC and type(value) is not bool else args[1]


_register("number_or", _b_number_or)


class _FreshDice(_SpecWorld):
    """Captures the spec of dice written in a call (``keep_highest``): a declared pool's
    name is refused, since its dice are rolled elsewhere."""

    def new_pool(self, spec: PoolSpec, site: Any) -> LazyPool:
        return LazyPool(spec, _FRESH)

    def pool_source(self, source: PoolSource) -> LazyPool:
        return LazyPool(source.spec, None)


_FRESH = ("fresh",)


def _keep(rule: str, name: str, end: str) -> Callable[[Compiler, ex.Call], Closure]:
    """``keep_highest(dice, n)`` (rule ``kh``) and ``keep_lowest(dice, n)`` (``kl``): the dice
    written there rolled as one pool that keeps its n highest (lowest), so its number is what
    ``highest(dice)`` (``lowest``) reads when n is 1, and the pool stays a pool (exact odds
    read it once, where it is read)."""

    def compile_keep(compiler: Compiler, node: ex.Call) -> Closure:
        dice_of = compiler.compile(node.args[0])
        count_of = compiler.compile(node.args[1]) if len(node.args) > 1 else None
        site = compiler.site(node)
        span, source = node.span, compiler.source
        text = expression_text(node)
        specs: dict[tuple[PoolSpec, int], PoolSpec] = {}

        def keep(ctx: Context, env: Any) -> Any:
            n = _whole("the number of dice kept", number(count_of(ctx, env), ctx), site) if count_of is not None else 1
            if n < 0:
                raise _error("E0403", site, message=f"{name} keeps 0 dice or more, not {n}",
                             help=f"{name}(dice, 1) keeps the {end} die")
            value = dice_of(Context(world=_FreshDice(site), limits=ctx.limits, run=ctx.run), env)
            if type(value) is not PoolView or value.transforms or value.per_die or value.source.key is not _FRESH:
                raise _error("E0403", site, message=f"{name} keeps dice written in its call",
                             help="give it dice to roll (a dice term, ladder(...), a function giving dice), "
                                  f"not a pool rolled before: {name}(ladder(n, d4, d6, d8), 1)")
            spec = value.source.spec
            if spec.keep is not None:
                raise _error("E0403", site, message="a pool has one keep or drop rule",
                             help=f"{name}(3d6, 1), not {name}(3d6kh2, 1)")
            kept = specs.get((spec, n))
            if kept is None:
                kept = specs[(spec, n)] = attrs.evolve(spec, keep=(rule, n), text=f"{spec.text or 'no dice'} {rule}{n}")
            view = ctx.new_pool(kept, node, span, source)
            if ctx.trace is not None:
                ctx.trace.append(StepEvent("call", text, trace_value(view), span))
            return view

        return keep

    return compile_keep


_register("keep_highest", _keep("kh", "keep_highest", "highest"), special=True)
_register("keep_lowest", _keep("kl", "keep_lowest", "lowest"), special=True)
