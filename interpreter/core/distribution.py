"""Exact distributions: the third semantics of the one evaluator.

How it works
------------
The evaluator (:mod:`interpreter.core.evaluate`) runs unchanged, with a :class:`World` in place
of a dice oracle. In a world a dice term does not roll: it becomes a lazy pool. When the
expression *reads* a pool (its total, ``count(dice >= 8)``, ``highest(dice)``...), the
world makes a **choice** among the exact outcomes of that reading, weighted by their
probabilities. :func:`enumerate_worlds` explores every sequence of choices depth-first
(re-running the evaluator per world) and adds up the weights of equal results. Because a
reading is a fold over the pool (a sum, a count, a maximum...), its distribution is small
even when the pool is big: ten d10 are 10^10 faces but their success count has 11 values.

The distribution of a pool's readings is computed by dynamic programming over the dice
with the fold state as the key (:func:`pool_outcomes`), never by enumerating faces:

- no keep/drop: die after die, the state is the tuple of every reading's accumulator;
  each die contributes an element of that monoid and equal states merge;
- keep/drop (``kh kl dh dl``): over the faces in order, highest first for ``kh``/``dl``,
  choosing how many dice show each face (binomial weights); the state is (dice left,
  accumulators of the kept dice) and stops changing once every kept die is known;
- explosions: each die is a chain of rolls. Its contribution is
  ``sum over j of E^j * T`` (``E``: faces that explode, ``T``: faces that stop). When
  ``E^(j+1)`` is proportional to ``E^j`` (the chain no longer changes the state, e.g.
  counting faces under 4 while 10s explode, or keeping the top three of exploding d6),
  the rest is a geometric series and the result is exact. Otherwise chains are followed
  to ``Limits.max_explosion_depth`` and what lies beyond is kept as a lower bound
  (:class:`~interpreter.core.values.Bound`, shown ``21+``) when the reading only grows with
  more dice, or as unknown. Outcomes that rest on an unknown go to ``residual``; nothing
  is dropped silently.

Several readings of one pool are chosen jointly, so ``low = sum(dice <= 3)`` and
``high = count(dice >= 4)`` of the same dice are correlated exactly. A reading discovered
late (in some world only) restarts the enumeration with the larger joint reading.

Independent dice terms combined by an operator chain (``2d6 + 1d8 - 1d4``) are not
multiplied out world by world: each term's distribution is computed on its own and the
chain folds them (a convolution, :meth:`World.chain`), so ``d6 + d6 + ... + d6`` stays
cheap. A term that turns out to read a pool declared elsewhere switches the chain back to
plain evaluation.

``leaders(xs)`` over a list of pools no reading has settled yet is one choice too
(:meth:`World.leaders`): among the sets S of positions that can be the highest, with
P(S) = sum over the top f of prod_{i in S} P(X_i = f) * prod_{j not in S} P(X_j < f)
(:func:`leader_table`), rather than a choice per pool (eight d12 would be 12^8 worlds). The
pools stay unread; a later reading of one first chooses the top given S, then the pool's
readings given its own condition (equal to the top, or under it), so the worlds' weights
multiply to the joint probability of the faces.

Finally, numeric outcomes at or above the lowest tail ``b+`` are folded into it, so every
listed number has exactly its probability and ``sum(listed) + residual == 1``.

Joint distributions
-------------------
:func:`joint` evaluates any function of a :class:`~interpreter.core.evaluate.Context` in every
world and returns the distribution of its (hashable) results. A rules layer computing
several named results from the same rolls passes a function that evaluates each result
expression with the same context, over an environment binding each declared pool to a
:class:`~interpreter.core.dice.PoolSource`; it gets the exact joint distribution of the results
as a :class:`Distribution` over tuples::

    dice = PoolSource(pool_spec("5d6"), "dice")
    env = MapEnv({"dice": dice})
    low, high = compile_expression("sum(dice <= 3)"), compile_expression("count(dice >= 4)")
    dist = joint(lambda ctx: (ctx.result(ctx.evaluate(low, env)),
                              ctx.result(ctx.evaluate(high, env))))

Independent pools multiply out; readings of one pool are joint. When the enumeration is
too large (``Limits.max_work``/``max_support``) a diagnostic is raised.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from fractions import Fraction
from itertools import combinations, product
from typing import Any, NoReturn

from runebook.dsl.diagnostics import Diagnostic, RunebookError
from runebook.dsl.source import Source, Span
from runebook.interpreter.core.dice import DieSpec, LazyPool, PoolSource, PoolSpec, PoolView, Reader, contribution, number_reader
from runebook.interpreter.core.evaluate import (
    CompiledExpression,
    Context,
    ListFold,
    NotFoldable,
    _and,
    _max2,
    _min2,
    Spread,
    _or,
    as_env,
    binop,
    compile_expression,
    expression_size,
)
from runebook.interpreter.core.limits import DEFAULT_LIMITS, Limits
from runebook.interpreter.core.render import distribution_text
from runebook.interpreter.core.sized import SizedCache
from runebook.interpreter.core import series
from runebook.interpreter.core.values import UNKNOWN, Bound, Undetermined, format_value, normalize, outcome_sort_key

__all__ = [
    "Distribution",
    "World",
    "enumerate_worlds",
    "joint",
    "odds",
    "pool_outcomes",
]


# ---------------------------------------------------------------- the result


class Distribution(Mapping):  # type: ignore[type-arg]
    """Outcome → exact probability (``Fraction``), sorted by outcome.

    ``residual`` is the probability not given to any listed outcome (``0`` when the
    listing is complete) and ``note`` says why it is not zero. An outcome such as
    ``Bound(21)`` (printed ``21+``) is a tail: every result of at least 21, exactly.
    """

    def __init__(self, outcomes: Mapping[Any, Fraction], residual: Fraction = Fraction(0),
                 note: str | None = None) -> None:
        self._items = dict(sorted(outcomes.items(), key=lambda kv: outcome_sort_key(kv[0])))
        self.residual = residual
        self.note = note

    def __getitem__(self, key: Any) -> Fraction:
        return self._items[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def items(self) -> Any:
        """(outcome, probability) pairs in order, straight from the stored dict (the
        Mapping default looks each key up again; exact odds iterate these very often)."""
        return self._items.items()

    def __repr__(self) -> str:
        shown = ", ".join(f"{format_value(k)}: {format_value(v)}" for k, v in self._items.items())
        return f"Distribution({{{shown}}}, residual={format_value(self.residual)})"

    @property
    def exact(self) -> bool:
        return self.residual == 0

    def mean(self) -> Fraction | None:
        """The expected value, when every outcome is a plain number and nothing is residual."""
        if self.residual or not self._items:
            return None
        common = max(p.denominator for p in self._items.values())
        if all(type(o) is int and common % p.denominator == 0 for o, p in self._items.items()):
            # Whole numbers over one denominator: a sum of Fractions costs a gcd each.
            return Fraction(sum(o * p.numerator * (common // p.denominator) for o, p in self._items.items()), common)
        total = Fraction(0)
        for outcome, p in self._items.items():
            if type(outcome) not in (int, Fraction):
                return None
            total += p * outcome
        return total

    def to_dict(self) -> dict[str, Any]:
        """The distribution as plain data (JSON-serialisable), as ``runebook odds EXPR --json``
        prints it without the expression: ``distribution`` (outcome → probability, both as
        text: ``"7": "1/6"``, a tail ``"21+"``), ``residual``, ``mean`` (or None) and ``note`` when
        there is one."""
        mean = self.mean()
        data: dict[str, Any] = {
            "distribution": {format_value(k): format_value(p) for k, p in self._items.items()},
            "residual": format_value(self.residual),
            "mean": None if mean is None else format_value(mean),
        }
        if self.note:
            data["note"] = self.note
        return data

    def to_json(self) -> str:
        """:meth:`to_dict` as indented JSON."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    def text(self, title: str = "", *, unicode: bool = True) -> str:
        """The table ``runebook odds`` prints (outcome, chance, chance of at least it, exact
        fraction, a bar; then the mean), under ``title``; ``unicode=False`` draws bars in ``#``."""
        return distribution_text(title, self, unicode=unicode)

    def at_least(self, outcome: Any) -> Fraction:
        """P(result >= outcome) over the numeric outcomes (a tail ``b+`` counts when b >= outcome)."""
        total = Fraction(0)
        for key, p in self._items.items():
            low = key.low if isinstance(key, Bound) else key
            if type(low) in (int, Fraction) and low >= outcome:
                total += p
        return total


# ---------------------------------------------------------------- worlds


class _Restart(Exception):
    """A new reading of a pool was discovered: start the enumeration again with it."""


class _Session:
    """State shared by the worlds of one enumeration."""

    def __init__(self, limits: Limits, site: tuple[Source | None, Span | None]) -> None:
        self.limits = limits
        self.site = site
        self.readers: dict[Any, list[Reader]] = {}
        self.branched: set[Any] = set()
        self.work = 0
        self.closed = False  # inside an independent part: shared pools are not allowed
        self.parts: dict[Any, list[tuple[Any, Fraction]]] = {}
        # Whether each operator chain (by its key) is folded as independent parts in this
        # enumeration: decided at its first use and kept by every world (and restart) of it.
        self.folded: dict[Any, bool] = {}

    def spend(self, amount: int) -> None:
        self.work += amount
        if self.work > self.limits.max_work:
            raise _too_big(self.site, f"more than max_work = {self.limits.max_work:,} steps")


def _too_big(site: tuple[Source | None, Span | None], why: str) -> RunebookError:
    source, span = site
    return RunebookError([Diagnostic.make("E0415", source, span, what="this expression", why=why,
                                          help="use fewer dice, or raise the limit with --limit NAME=N")])


#: A product of two weights' bit lengths that costs about a step (half a µs) to multiply
#: and reduce: measured in lists of readings of a thousand d1000, whose weights grow by a
#: thousand bits a reading (at 200,000, such a list took 2 s to be refused).
_PRODUCT_BITS = 50_000

#: What a world counts for each choice it makes (a pool read or a chain's value chosen),
#: besides the options it reads: the evaluator's way to it and back, made again in every
#: later world that shares the choice. Measured: 5 to 15 µs a choice with the list item
#: that makes it (``[d2 for i in range(14)]``, ``[all(each(100d1000cs>=50) % 2 == 0) for i
#: in range(12)]``), where a step of a sum's fold takes a third of a µs; at 1 step a choice
#: such lists ran for 2 to 7 s before their refusal.
_CHOICE_STEPS = 20
#: What a world counts for being made and run at all (its context, its path, its outcome
#: added up): an operator chain's dice terms in a list's items are each an enumeration of
#: their own, made again for every item of every world (`[d6 + d6 + d6 for i in range(10)]`
#: made 36,000 of them, 1.9 s before its refusal).
_WORLD_STEPS = 16
#: What making one exact probability of whole-number weights counts (a Fraction and its gcd).
_FRACTION_STEPS = 4
#: What an enumeration counts for its session and its distribution, besides its worlds.
_ENUMERATION_STEPS = 16


class World:
    """One path through the choices; the evaluator's ``ctx.world`` while computing odds."""

    __slots__ = ("assigned", "leads", "made", "occurrences", "position", "prefix", "session", "sizes", "taken",
                 "weight")

    def __init__(self, session: _Session, prefix: tuple[int, ...]) -> None:
        self.session = session
        self.prefix = prefix
        self.position = 0
        self.taken: list[int] = []
        self.sizes: list[int] = []
        self.weight: Fraction | int = 1
        self.assigned: dict[Any, tuple[Any, ...]] = {}
        #: Pools a ``leaders`` choice constrained and no reading has settled yet, by key:
        #: the choice and the pool's position in it (see :meth:`leaders`).
        self.leads: dict[Any, tuple[_Lead, int]] = {}
        self.occurrences: dict[int, int] = {}
        #: The pools this world made, in an independent part (see :meth:`_readers`).
        self.made: set[LazyPool] = set()

    def choose(self, options: list[tuple[Any, Fraction]]) -> Any:
        """Take the option this world's path says (the first one on a new branch)."""
        i = self.prefix[self.position] if self.position < len(self.prefix) else 0
        self.position += 1
        self.taken.append(i)
        self.sizes.append(len(options))
        value, p = options[i]
        weight = self.weight
        if weight == 1:
            self.weight = p
        else:
            # A product of fractions costs a gcd of each numerator with the other's
            # denominator: negligible for dice of a few faces, but the highest of a thousand
            # d100 is 7,000 bits, and ten of them multiplied took seconds while each counted
            # one step.
            size = weight.denominator.bit_length() * p.denominator.bit_length()
            if size > _PRODUCT_BITS:
                self.session.spend(size // _PRODUCT_BITS)
            self.weight = weight * p
        return value

    def charge(self, steps: int) -> None:
        """Count evaluation this world does (the items of its lists, its calls), as it is done."""
        self.session.spend(steps)

    def new_pool(self, spec: PoolSpec, site: Any) -> LazyPool:
        """A dice term evaluated in this world; each evaluation of it is a new roll."""
        k = self.occurrences.get(id(site), 0)
        self.occurrences[id(site)] = k + 1
        pool = LazyPool(spec, (id(site), k))
        if self.session.closed:
            self.made.add(pool)
        return pool

    def pool_source(self, source: PoolSource) -> LazyPool:
        if self.session.closed:
            raise _NotClosed
        return LazyPool(source.spec, ("source", id(source)))

    def folds(self, key: Any, usable: list[bool]) -> bool:
        """Whether this enumeration folds the chain ``key`` (see :meth:`chain`). The compiled
        chain's flag ``usable`` (shared by every enumeration, and every thread, that runs
        it) only says how a new enumeration starts: one enumeration evaluates a chain one
        way in all its worlds, or the choices of its worlds would not line up."""
        folded = self.session.folded
        found = folded.get(key)
        if found is None:
            found = folded[key] = usable[0]
        return found

    def give_up(self, usable: list[bool], key: Any = None) -> NoReturn:
        """An optimisation does not apply: clear its flag and start the enumeration again."""
        usable[0] = False
        if key is not None:
            self.session.folded[key] = False
        raise _Restart

    def chain(self, key: Any, env: Any, fixed: tuple[Any, ...], closures: list[Callable[[Any, Any], Any]],
              random_parts: frozenset[int], steps: list[tuple[str, Any, Any]], usable: list[bool],
              last: bool = False) -> Any:
        """The value of an operator chain whose dice terms are independent of each other
        and of the rest: each dice term's distribution is computed once, on its own; they
        are folded together with the chain's operators (a convolution), and the world
        makes one choice from the result (or, when the chain is the world's ``last`` act,
        spreads it: see :class:`Spread`). ``fixed`` holds the other operands, already
        evaluated in this world. When a term turns out not to be independent (it reads a
        pool declared outside it), ``usable[0]`` is cleared and the enumeration restarts
        with the chain evaluated plainly."""
        session = self.session
        try:
            # The environment itself, not its id: the key keeps it alive, so a later world's
            # environment made at the same address cannot take this one's parts (whose values
            # read this environment's names).
            memo_key = (key, env, fixed)
            options = session.parts.get(memo_key)
        except TypeError:  # an operand that is not hashable: evaluate plainly
            self.give_up(usable, key)
        if options is None:
            if any(type(v) is PoolView for v in fixed):
                self.give_up(usable, key)
            parts = []
            for i, closure in enumerate(closures):
                if i in random_parts:
                    try:
                        parts.append(_part_options(closure, env, session))
                    except _NotClosed:
                        self.give_up(usable, key)
                else:
                    parts.append([(fixed[i], Fraction(1))])
            # Each part's weights are made whole numbers, and each result a Fraction: a gcd
            # apiece (a list's items each fold their chain anew, in every world).
            session.spend(_FRACTION_STEPS * sum(map(len, parts)))
            scaled = _scaled_sums(parts, steps, session)
            if scaled is not None:
                session.spend(_FRACTION_STEPS * len(scaled))
                session.parts[memo_key] = options = scaled
                return Spread(options) if last else self._chosen(options)
            # Whole-number weights over one denominator per part: a pair costs a product of
            # integers, not a Fraction's product, sum and gcd (five times as much, measured).
            first, denominator = _whole_weights(parts[0])
            folded: dict[Any, int] = {}
            for value, w in first:
                folded[value] = folded.get(value, 0) + w
            for (op, left_site, right_site), options_i in zip(steps, parts[1:]):
                session.spend(len(folded) * len(options_i))
                weights, den = _whole_weights(options_i)
                folded = _pairs(folded, weights, lambda a, b, op=op, left_site=left_site, right_site=right_site:
                                binop(op, a, b, None, left_site, right_site))  # type: ignore[arg-type]
                denominator *= den
            session.spend(_FRACTION_STEPS * len(folded))
            options = [(value, Fraction(w, denominator)) for value, w in folded.items()]
            session.parts[memo_key] = options
        if last:
            return Spread(options)
        return self._chosen(options)

    def fold_list(self, key: Any, memo: Any, parts: list[tuple[Callable[[Any, Any], Any], Any, int]],
                  fold: ListFold, usable: list[bool], last: bool = False) -> Any:
        """The value of a reduction of a list (``sum``, ``count``, ``highest``...: ``fold``)
        whose items are independent of each other and of the rest: each part ``(closure,
        env, count)`` stands for ``count`` items alike, its distribution computed once on
        its own (``closure`` gives an item's contribution); the parts are folded with the
        reduction, ``count`` alike as a power, and the world makes one choice from the
        result (or spreads it when ``last``). When an item is not independent (it reads a
        roll made outside it) or the reduction does not fold, ``usable[0]`` is cleared and
        the enumeration restarts with the call evaluated plainly."""
        session = self.session
        try:
            memo_key = (key, memo)
            options = session.parts.get(memo_key)
        except TypeError:  # an item that is not hashable: evaluate plainly
            self.give_up(usable, key)
        if options is None:
            folding = _ListFolding(fold, session)
            for closure, env, count in parts:
                try:
                    item = _part_options(closure, env, session)
                except NotFoldable:
                    self.give_up(usable, key)
                folding.add(item, count)
            options = folding.options()
            if options is None:
                self.give_up(usable, key)
            session.parts[memo_key] = options
        return Spread(options) if last else self._chosen(options)

    def _chosen(self, options: list[tuple[Any, Fraction]]) -> Any:
        value = self.choose(options)
        if value is _RESIDUAL:
            raise Undetermined
        return value

    def _readers(self, pool: LazyPool, reader: Reader) -> list[Reader]:
        """The readings made of ``pool`` in this computation, ``reader`` among them."""
        session = self.session
        if session.closed and pool not in self.made:
            # A roll made outside an independent part (a name bound to it): reading it here
            # as if it were the part's own would make it independent of itself.
            raise _NotClosed
        known = session.readers.setdefault(pool.key, [])
        if reader not in known:
            known.append(reader)
            if pool.key in session.branched:
                # Earlier worlds chose among fewer readings of this pool: start again.
                raise _Restart
        return known

    def read(self, pool: LazyPool, reader: Reader, last: bool = False) -> Any:
        """The value of ``reader`` on ``pool`` in this world: a choice among the pool's joint
        readings, made once per world. When the reading is the world's ``last`` act, its
        options are spread instead (see :class:`Spread`)."""
        session = self.session
        known = self._readers(pool, reader)
        values = self.assigned.get(pool.key)
        if values is None:
            lead = self.leads.get(pool.key) if self.leads else None
            if lead is None:
                options = pool_options(pool.spec, tuple(known), session.limits)
            else:
                options = self._led_options(pool, tuple(known), *lead)
            session.spend(len(options))
            session.branched.add(pool.key)
            if last:
                return _spread_reading(options, known.index(reader))
            values = self.choose(options)
            self.assigned[pool.key] = values
        return values[known.index(reader)]

    def leaders(self, items: tuple[Any, ...], ctx: Any) -> tuple[int, ...] | None:
        """``leaders(items)`` as ONE choice when some items are pools no reading has settled:
        the positions S of the items equal to the highest, with the probability that the
        pools' numbers make exactly them the highest (see :func:`leader_table`), instead of
        a choice per pool. The pools stay unread: a later reading of one is chosen under the
        condition the choice set (its number equal to the top, or below it; the top itself
        is chosen at the first such reading), so every world stays consistent. None when no
        item qualifies (the caller reads them plainly)."""
        session = self.session
        seen: dict[Any, int] = {}
        for item in items:
            if type(item) is PoolView and type(item.source) is LazyPool:
                seen[item.source.key] = seen.get(item.source.key, 0) + 1
        lazy: dict[int, tuple[LazyPool, Reader]] = {}
        for position, item in enumerate(items):
            if type(item) is PoolView and type(item.source) is LazyPool:
                pool = item.source
                # A pool listed twice, read already, or led by an earlier choice is not
                # independent of the others: it is read as it is.
                if seen[pool.key] == 1 and pool.key not in self.assigned and pool.key not in self.leads:
                    lazy[position] = (pool, number_reader(item))
        if not lazy:
            return None
        parts: list[Any] = []
        for position, item in enumerate(items):
            if position in lazy:
                pool, reader = lazy[position]
                self._readers(pool, reader)
                parts.append((pool.spec, reader))
            else:
                value = ctx.result(item)
                if type(value) not in (int, Fraction):
                    return None  # the plain reading says what is wrong (or leaves it to the residual)
                parts.append(value)
        table = leader_table(tuple(parts), session)
        if table is None:
            return None
        options, tops = table
        chosen = self.choose(options)
        lead = _Lead(frozenset(chosen), tops[chosen], {p: reader for p, (_, reader) in lazy.items()})
        for position, (pool, _) in lazy.items():
            self.leads[pool.key] = (lead, position)
        return chosen

    def _led_options(self, pool: LazyPool, readers: tuple[Reader, ...], lead: _Lead,
                     position: int) -> list[tuple[Any, Fraction]]:
        """The pool's joint readings under what a ``leaders`` choice set: its number equal to
        the top (a leader) or below it, each option's probability given that."""
        if lead.top is None:
            lead.top = self.choose(lead.tops)
        index = readers.index(lead.readers[position])
        leading = position in lead.chosen
        key = (pool.spec, readers, index, leading, lead.top, self.session.limits)
        found = _LED.get(key)
        if found is None:
            top = lead.top
            kept = [(values, p) for values, p in pool_options(pool.spec, readers, self.session.limits)
                    if (values[index] == top if leading else values[index] < top)]
            total = sum(p for _, p in kept)
            found = [(values, p / total) for values, p in kept]
            _LED.put(key, found)
        return found


class _Lead:
    """One ``leaders`` choice in a world: the positions chosen, the top's options given
    them, the top once a reading chose it, and the reader each pool was compared by."""

    __slots__ = ("chosen", "readers", "top", "tops")

    def __init__(self, chosen: frozenset[int], tops: list[tuple[Any, Fraction]], readers: dict[int, Reader]) -> None:
        self.chosen = chosen
        self.tops = tops
        self.readers = readers
        self.top: Any = None


#: A led pool's options by (spec, readers, index of the compared reader, leading, top, limits).
_LED: SizedCache[list[tuple[Any, Fraction]]] = SizedCache(256, 200_000, 50_000, len)


def leader_table(parts: tuple[Any, ...], session: _Session) -> tuple[list[tuple[tuple[int, ...], Fraction]],
                                                                   dict[tuple[int, ...], list[tuple[Any, Fraction]]]] | None:
    """The exact distribution of the positions of the highest among independent items:
    ``parts`` holds a number, or a pool's (spec, reader), per item. For a top ``f`` and a
    set ``S``: P(S, f) = prod over S of P(X_i = f) times prod over the rest of P(X_j < f).
    Returns the options (S, P(S)) and, for each S, the options (f, P(f | S)); None when a
    pool's number is not a plain number (an explosion's tail): then the items are read
    one by one. Work: for each f, 2^k sets of k products, k the items that may equal f or lie
    under it (sixteen d6 are refused at once by ``max_work``)."""
    key = (parts, session.limits)
    found = _LEADERS.get(key)
    if found is not None:
        return None if found is _NO_TABLE else found
    weights: list[dict[Any, int]] = []
    totals: list[int] = []
    for part in parts:
        if type(part) is tuple:
            spec, reader = part
            options = pool_options(spec, (reader,), session.limits)
            session.spend(len(options))
            if any(type(values[0]) not in (int, Fraction) for values, _ in options):
                _LEADERS.put(key, _NO_TABLE)
                return None
            whole, denominator = _to_integers({values[0]: p for values, p in options if p})
            weights.append(whole)
            totals.append(denominator)
        else:
            weights.append({part: 1})
            totals.append(1)
    tops = sorted({v for dist in weights for v in dist})
    by_set: dict[tuple[int, ...], dict[Any, int]] = {}
    for top in tops:
        equal = [dist.get(top, 0) for dist in weights]
        below = [sum(w for v, w in dist.items() if v < top) for dist in weights]
        must = [i for i in range(len(parts)) if equal[i] and not below[i]]
        free = [i for i in range(len(parts)) if equal[i] and below[i]]
        base = 1
        for i in range(len(parts)):
            base *= equal[i] if i in must else below[i] if not equal[i] else 1
        if not base:
            continue
        session.spend(2 ** len(free) * (len(free) + 1))  # each set costs a product over the free items
        for mask in range(2 ** len(free)):
            weight = base
            members = list(must)
            for bit, i in enumerate(free):
                if mask >> bit & 1:
                    weight *= equal[i]
                    members.append(i)
                else:
                    weight *= below[i]
            if members:
                row = by_set.setdefault(tuple(sorted(members)), {})
                row[top] = row.get(top, 0) + weight
    denominator = math.prod(totals)
    options = [(chosen, Fraction(sum(row.values()), denominator)) for chosen, row in by_set.items()]
    given = {chosen: [(top, Fraction(w, sum(row.values()))) for top, w in row.items()] for chosen, row in by_set.items()}
    result = (options, given)
    _LEADERS.put(key, result)
    return result


#: Leader tables by (parts, limits): their size is the number of sets they hold.
_LEADERS: SizedCache[Any] = SizedCache(256, 200_000, 50_000, lambda t: len(t[0]))
#: What ``_LEADERS`` holds for items one of which is not a plain number.
_NO_TABLE: Any = ((), {})


_RESIDUAL = object()


def _spread_reading(options: list[tuple[tuple[Any, ...], Fraction]], index: int) -> Spread:
    """The options of one reading (``index``) among a pool's joint readings."""
    if len(options[0][0]) == 1:
        return Spread([(values[0], p) for values, p in options])
    merged: dict[Any, Fraction] = {}
    for values, p in options:
        v = values[index]
        merged[v] = merged[v] + p if v in merged else p
    return Spread(list(merged.items()))


def last_result(ctx: Any, value: Any) -> Any:
    """``ctx.result(value)`` as the outcome of a world: a pool read as its number is spread
    (:class:`Spread`) rather than chosen, since nothing runs after it."""
    if type(value) is PoolView and type(value.source) is LazyPool and ctx.world is not None:
        return ctx.world.read(value.source, number_reader(value), last=True)
    return ctx.result(value)


class _NotClosed(NotFoldable):
    """An independent part reads a pool declared or rolled outside it, or yields a per-die pool."""


def _part_options(closure: Callable[[Any, Any], Any], env: Any, parent: _Session) -> list[tuple[Any, Fraction]]:
    session = _Session(parent.limits, parent.site)
    session.closed = True
    session.work = parent.work

    last = getattr(closure, "last", closure)

    def part(ctx: Any) -> Any:
        value = last(ctx, env)
        if type(value) is PoolView and value.per_die:
            raise _NotClosed
        return last_result(ctx, value)

    while True:
        try:
            dist = _explore(part, session, Context, parent.limits)
            break
        except _Restart:
            session.branched.clear()
            continue
    parent.work = session.work
    options = list(dist.items())
    if dist.residual:
        options.append((_RESIDUAL, dist.residual))
    return options


def _pairs(folded: dict[Any, int], weights: list[tuple[Any, int]],
           combine: Callable[[Any, Any], Any]) -> dict[Any, int]:
    """Every outcome of ``folded`` with every one of ``weights`` (whole-number weights, each
    pair's the product), combined; an unknown side, or a value ``combine`` cannot know, is
    the residual outcome."""
    out: dict[Any, int] = {}
    for a, wa in folded.items():
        for b, wb in weights:
            if a is _RESIDUAL or b is _RESIDUAL:
                value = _RESIDUAL
            else:
                try:
                    value = combine(a, b)
                except Undetermined:
                    value = _RESIDUAL
            out[value] = out.get(value, 0) + wa * wb
    return out


class _ListFolding:
    """A reduction of independent items folded part after part (:meth:`World.fold_list`):
    whole-number weights over one denominator, an item that is residual makes the result
    residual. Items alike are a power: a sum of whole numbers by the power of a series
    (:func:`series.power`), a highest or lowest by the power of the cumulative weights."""

    def __init__(self, fold: ListFold, session: _Session) -> None:
        self.fold = fold
        self.session = session
        self.folded: dict[Any, int] = {fold.start: 1}
        self.denominator = 1

    def add(self, options: list[tuple[Any, Fraction]], count: int) -> None:
        """Fold in ``count`` items, each with the distribution ``options``."""
        session = self.session
        session.spend(_FRACTION_STEPS * len(options))
        weights, denominator = _whole_weights([(v, p) for v, p in options if p])
        if count > 1 and all(type(v) in (int, Fraction) for v, _ in weights):
            if self.fold.kind == "add" and all(type(v) is int for v, _ in weights):
                weights, denominator = self._sum_power(weights, denominator, count)
                count = 1
            elif self.fold.kind in ("max", "min"):
                weights, denominator = self._extreme_power(weights, denominator, count)
                count = 1
        for _ in range(count):
            self._pair(weights, denominator)

    def _cost(self, pairs: int, bits: int) -> None:
        # A product of weights costs more as they grow (as in the pools' own folds).
        self.session.spend(pairs * (1 + bits // _BITS_PER_STEP))

    def _pair(self, weights: list[tuple[Any, int]], denominator: int) -> None:
        folded, combine = self.folded, self.fold.combine
        self._cost(len(folded) * len(weights), self.denominator.bit_length() + denominator.bit_length())
        out = _pairs(folded, weights, combine)
        self._bounded(len(out))
        self.folded = out
        self.denominator *= denominator

    def _bounded(self, size: int) -> None:
        limits = self.session.limits
        if size > limits.max_support:
            raise _too_big(self.session.site, f"more than max_support = {limits.max_support:,} outcomes")

    def _sum_power(self, weights: list[tuple[Any, int]], denominator: int,
                   count: int) -> tuple[list[tuple[Any, int]], int]:
        least = min(v for v, _ in weights)
        most = max(v for v, _ in weights)
        terms = (most - least) * count + 1
        self._bounded(terms)
        coefficients = [0] * (most - least + 1)
        for v, w in weights:
            coefficients[v - least] += w
        bits = count * denominator.bit_length()
        found = series.power(coefficients, count, terms, lambda steps: self._cost(steps, bits))
        return [(least * count + i, w) for i, w in enumerate(found) if w], denominator**count

    def _extreme_power(self, weights: list[tuple[Any, int]], denominator: int,
                       count: int) -> tuple[list[tuple[Any, int]], int]:
        # P(highest <= v) = P(item <= v)^count (for the lowest: from the top down).
        ordered = sorted(weights, key=lambda vw: vw[0], reverse=self.fold.kind == "min")
        self._cost(len(ordered), count * denominator.bit_length())
        out: list[tuple[Any, int]] = []
        below = before = 0
        for v, w in ordered:
            below += w
            now = below**count
            out.append((v, now - before))
            before = now
        return out, denominator**count

    def options(self) -> list[tuple[Any, Fraction]] | None:
        """The folded distribution, None when an empty list is an error (``max([])``): the
        plain evaluation then says so."""
        if self.fold.nonempty and self.fold.start in self.folded:
            return None
        # Each outcome's fraction costs a gcd, quadratic in the weights' length (as the
        # pools' sums count it): a hundred items of a thousand bits each took 3 s.
        bits = self.denominator.bit_length()
        self.session.spend(len(self.folded) * (_FRACTION_STEPS + bits * bits // 400_000))
        return [(value, Fraction(w, self.denominator)) for value, w in self.folded.items()]


def enumerate_worlds(fn: Callable[[Any], Any], limits: Limits = DEFAULT_LIMITS,
                     site: tuple[Source | None, Span | None] = (None, None)) -> Distribution:
    """The exact distribution of ``fn(ctx)`` over every world (see the module docstring)."""
    session = _Session(limits, site)
    while True:
        try:
            return _explore(fn, session, Context, limits)
        except _Restart:
            session.branched.clear()
            continue


def _explore(fn: Callable[[Any], Any], session: _Session, context: Any, limits: Limits) -> Distribution:
    # Each outcome's probability is summed as a whole number over a denominator (the worlds'
    # weights mostly share theirs): adding Fractions would reduce every sum, two gcds each.
    sums: dict[Any, list[int]] = {}
    # An outcome reached once keeps its weight as it came, already in lowest terms: making
    # it again from its parts costs a gcd, quadratic in their length (a hundred of 70,000
    # bits, the highest of 10000d100, took half a second).
    alone: dict[Any, Fraction] = {}
    residual = Fraction(0)
    stack: list[tuple[int, ...]] = [()]
    while stack:
        prefix = stack.pop()
        world = World(session, prefix)
        ctx = context(world=world, limits=limits)
        try:
            outcome = fn(ctx)
        except Undetermined:
            outcome = _RESIDUAL
        for position in range(len(prefix), len(world.taken)):
            base = tuple(world.taken[:position])
            for i in range(1, world.sizes[position]):
                stack.append(base + (i,))
        weight = world.weight
        spread = outcome.options if type(outcome) is Spread else ((outcome, 1),)
        # A world costs _WORLD_STEPS, a step per outcome it spreads and _CHOICE_STEPS per
        # choice it made: each is a reading the evaluator made again, in every world after
        # the first (a list of a thousand dice was one step a world, and took seconds to be
        # refused). The items its lists walked were counted as they were walked (World.charge).
        session.spend(_WORLD_STEPS + len(spread) + _CHOICE_STEPS * len(world.taken))
        for outcome, p in spread:
            if outcome is UNKNOWN or (isinstance(outcome, tuple) and UNKNOWN in outcome):
                outcome = _RESIDUAL
            w = weight if p == 1 else p if weight == 1 else weight * p
            if outcome is _RESIDUAL:
                residual += w
                continue
            try:
                found = sums.get(outcome)
            except TypeError:  # a record or another value that cannot be a key: show it as text
                outcome = format_value(outcome)
                found = sums.get(outcome)
            if found is not None and alone:
                alone.pop(outcome, None)
            num, den = (w.numerator, w.denominator) if type(w) is Fraction else (int(w), 1)
            if found is None:
                sums[outcome] = [num, den]
                if type(w) is Fraction:
                    alone[outcome] = w
                if len(sums) > limits.max_support:
                    source, span = session.site
                    raise RunebookError([Diagnostic.make("E0408", source, span, size=f"{len(sums)} outcomes",
                                                         limit=limits.max_support)])
            elif found[1] == den:
                found[0] += num
            elif found[1] % den == 0:
                found[0] += num * (found[1] // den)
            else:
                common = math.lcm(found[1], den)
                found[0] = found[0] * (common // found[1]) + num * (common // den)
                found[1] = common
    # The enumeration's own making and its table: a Fraction per outcome. Small once, but an
    # operator chain's dice terms in a list's items are each an enumeration, made again for
    # every item of every world (`[d2 + d2 for i in range(10)]` made 40,000 of them).
    session.spend(_ENUMERATION_STEPS + _FRACTION_STEPS * len(sums))
    results = {outcome: alone[outcome] if outcome in alone else Fraction(num, den)
               for outcome, (num, den) in sums.items()}
    results, note = _merge_tails(results)
    if residual:
        note = "some outcomes depend on explosions deeper than the limit"
    return Distribution(results, residual, note)


def _merge_tails(results: dict[Any, Fraction]) -> tuple[dict[Any, Fraction], str | None]:
    """Fold every numeric outcome at or above the lowest tail ``b+`` into it, so that every
    listed exact outcome is exactly its probability."""
    bounds = [k for k in results if isinstance(k, Bound)]
    if not bounds:
        return results, None
    low = min(b.low for b in bounds)
    merged: dict[Any, Fraction] = {}
    tail = Fraction(0)
    for key, p in results.items():
        if isinstance(key, Bound) or (type(key) in (int, Fraction) and key >= low):
            tail += p
        else:
            merged[key] = p
    merged[Bound(low)] = tail
    return merged, None


def joint(fn: Callable[[Any], Any], *, limits: Limits = DEFAULT_LIMITS,
          site: tuple[Source | None, Span | None] = (None, None)) -> Distribution:
    """The exact distribution of ``fn(ctx)`` where ``fn`` evaluates any number of
    expressions with one context (see the module docstring). Results must be hashable.
    ``site``: where a limit's refusal points (a procedure's name, say)."""
    return enumerate_worlds(fn, limits, site)


def odds(expr: Any, env: Any = None, *, limits: Limits = DEFAULT_LIMITS) -> Distribution:
    """The exact distribution of an expression (text, node or compiled)."""
    compiled = expr if isinstance(expr, CompiledExpression) else compile_expression(expr, limits=limits)
    # A closure's ``last`` variant spreads its final choice (see :class:`Spread`).
    closure = getattr(compiled.closure, "last", compiled.closure)
    environment = as_env(env)
    site = (compiled.source, compiled.expr.span)
    size = expression_size(compiled.expr)

    def world(ctx: Any) -> Any:
        ctx.world.charge(size)  # every world evaluates the whole expression again
        return last_result(ctx, closure(ctx, environment))

    return enumerate_worlds(world, limits, site)


# ---------------------------------------------------------------- readings of one pool


def pool_options(spec: PoolSpec, readers: tuple[Reader, ...], limits: Limits) -> list[tuple[Any, Fraction]]:
    """The joint outcomes of ``readers`` on a pool, as (values, probability) options
    (remembered for the process: the worlds of exact odds read the same pools again and
    again; bounded by the options held, since one `d1000000` holds a million)."""
    key = (spec, readers, limits)
    found = _OPTIONS.get(key)
    if found is not None:
        return found
    weights, denominator = pool_outcomes(spec, readers, limits)
    options = [(tuple(normalize(v) for v in values), Fraction(w, denominator)) for values, w in weights.items()]
    _OPTIONS.put(key, options)
    return options


#: Pools' options by (spec, readers, limits): at most 256 pools and 200,000 options in all,
#: none from a pool with more than a quarter of them.
_OPTIONS: SizedCache[list[tuple[Any, Fraction]]] = SizedCache(256, 200_000, 50_000, len)


class _TooBig(Exception):
    pass


def pool_outcomes(spec: PoolSpec, readers: tuple[Reader, ...],
                  limits: Limits = DEFAULT_LIMITS) -> tuple[dict[tuple[Any, ...], int], int]:
    """Integer weights of the joint reading values of a pool, and their common denominator."""
    try:
        for _, die in spec.groups:
            # Every face is visited at least once: a die alone may not outgrow a distribution.
            if len(die.faces) > limits.max_support:
                raise _TooBig(f"a die of {len(die.faces):,} faces, more than max_support = {limits.max_support:,}")
        if spec.unique:
            return _unique(spec, readers, limits)
        if spec.keep is None:
            return _unkept(spec, readers, limits)
        if any(die.explode and not die.compound for _, die in spec.groups):
            return _kept_exploding(spec, readers, limits)
        return _kept(spec, readers, limits)
    except _TooBig as error:
        raise RunebookError([Diagnostic.make("E0415", None, None, what=spec.text or "a pool",
                                             why=str(error), help="use fewer dice, or raise the limit with --limit NAME=N")]) from None


# --- monoid of reading accumulators

_IDENTITY = {"sum": 0, "count": 0, "max": None, "min": None, "any": False, "all": True}


def _safe(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def wrapped(a: Any, b: Any) -> Any:
        try:
            return fn(a, b)
        except Undetermined:
            return UNKNOWN

    return wrapped


def _combine_fn(agg: str) -> Callable[[Any, Any], Any]:
    if agg in ("sum", "count"):
        return lambda a, b: a + b
    if agg in ("any", "all"):
        return _or if agg == "any" else _and  # they only compare: never Undetermined
    return _safe({"max": _max2, "min": _min2}[agg])


def _contribution(value: Any, reader: Reader) -> Any:
    """What one kept die with this value adds to a reading."""
    transforms, agg = reader
    ok, mapped = contribution(value, transforms) if transforms else (True, value)
    if ok is UNKNOWN:
        return UNKNOWN
    if agg == "sum":
        return mapped if ok else 0
    if agg == "count":
        return 1 if ok else 0
    if agg in ("max", "min"):
        return mapped if ok else None
    if agg == "any":
        return bool(ok)
    return bool(ok)


def _times(contrib: Any, agg: str, count: int) -> Any:
    """A contribution repeated ``count`` times."""
    if agg in ("sum", "count"):
        return contrib * count if count else 0
    return contrib if count else _IDENTITY[agg]


def _combiner(readers: tuple[Reader, ...]) -> Callable[[tuple[Any, ...], tuple[Any, ...]], tuple[Any, ...]]:
    fns = [_combine_fn(agg) for _, agg in readers]
    if all(agg in ("sum", "count") for _, agg in readers):
        if len(readers) == 1:
            return lambda a, b: (a[0] + b[0],)
        return lambda a, b: tuple(x + y for x, y in zip(a, b))
    if len(readers) == 1:
        # One reading (a highest, an any...): no generator per combination, half the time
        # of any(each(100d1000kh50) >= 999), which makes 1.4 million of them.
        (fn,) = fns
        return lambda a, b: (fn(a[0], b[0]),)
    return lambda a, b: tuple(f(x, y) for f, x, y in zip(fns, a, b))


def _die_weights(die: DieSpec) -> tuple[dict[Any, int], int]:
    """Faces → integer weights after rerolls (before explosions), and their total."""
    weights: dict[Any, int] = {}
    for face in die.faces:
        weights[face] = weights.get(face, 0) + 1
    total = len(die.faces)
    if die.reroll:
        rerolled = sum(w for f, w in weights.items() if f in die.reroll)
        if die.reroll_once:
            weights = {f: (0 if f in die.reroll else total) * w + rerolled * w for f, w in weights.items()}
            total = total * total
        else:
            weights = {f: w for f, w in weights.items() if f not in die.reroll}
            total -= rerolled
    weights = {f: w for f, w in weights.items() if w}
    if die.low is not None or die.high is not None:
        clamped: dict[Any, int] = {}
        for f, w in weights.items():
            v = die.clamp(f)
            clamped[v] = clamped.get(v, 0) + w
        weights = clamped
    return weights, total


def _convolve(a: dict[Any, Any], b: dict[Any, Any], combine: Callable[[Any, Any], Any]) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    get = out.get
    for ka, wa in a.items():
        for kb, wb in b.items():
            k = combine(ka, kb)
            out[k] = get(k, 0) + wa * wb
    return out


def _common_denominator(probabilities: Iterable[Fraction]) -> int:
    """The least common denominator of ``probabilities``."""
    return math.lcm(1, *(p.denominator for p in probabilities))


def _to_integers(dist: dict[Any, Fraction]) -> tuple[dict[Any, int], int]:
    denominator = _common_denominator(dist.values())
    return {k: p.numerator * (denominator // p.denominator) for k, p in dist.items()}, denominator


def _chain(element_of: Callable[[Any], Any], weights: dict[Any, int], total: int, explode: frozenset[int],
           combine: Callable[[Any, Any], Any], identity: Any, overflow: Callable[[Any], Any],
           depth: int, max_work: int = DEFAULT_LIMITS.max_work, cost: int = 1) -> dict[Any, Fraction]:
    """The distribution of one die's exploding chain as monoid elements (see the module
    docstring): exact when the chain stabilises, else followed to ``depth`` explosions with
    ``overflow(element)`` standing for everything deeper. ``cost``: steps one ``combine`` counts."""
    stop: dict[Any, int] = {}
    go: dict[Any, int] = {}
    for face, w in weights.items():
        element = element_of(face)
        bucket = go if face in explode else stop
        bucket[element] = bucket.get(element, 0) + w
    # What has stopped so far, as whole numbers over `below` (total^(j+1) after step j):
    # a Fraction per element and step would cost a gcd each (most of a long chain's time).
    result: dict[Any, int] = {}
    below = 1
    extra: dict[Any, Fraction] = {}
    power: dict[Any, int] = {identity: 1}  # E^j, weights over total^j
    scale = 1
    work = 0
    for _j in range(depth + 1):
        # Charged before the step: a long chain of many states (8d%!p>=9) is refused at once.
        work += len(power) * len(weights) * cost
        if work > max_work:
            raise _TooBig(f"more than max_work = {max_work:,} steps")
        denominator = scale * total
        if below != denominator:
            grow = denominator // below
            for k in result:
                result[k] *= grow
            below = denominator
        for k, w in _convolve(power, stop, combine).items():
            result[k] = result.get(k, 0) + w
        following = _convolve(power, go, combine)
        if not following:
            break  # no face left that explodes (rerolled away): the chain has ended
        if _proportional(power, following):
            # E^(j+1) = lambda E^j from here on: the rest is a geometric series.
            ratio = Fraction(sum(following.values()), sum(power.values()) * total)
            if ratio >= 1:
                raise _TooBig("a die that explodes on every face never stops")
            factor = 1 / (1 - ratio)
            for k, w in _convolve(following, stop, combine).items():
                extra[k] = extra.get(k, Fraction(0)) + Fraction(w, scale * total * total) * factor
            break
        power = following
        scale *= total
    else:
        for k, w in power.items():
            element = overflow(k)
            extra[element] = extra.get(element, Fraction(0)) + Fraction(w, scale)
    out = {k: Fraction(w, below) for k, w in result.items()}
    for k, p in extra.items():
        out[k] = out[k] + p if k in out else p
    return out


def _explosion_chain(die: DieSpec, element_of: Callable[[Any], Any], weights: dict[Any, int], total: int,
                     combine: Callable[[Any, Any], Any], identity: Any, overflow: Callable[[Any], Any],
                     depth: int, max_work: int = DEFAULT_LIMITS.max_work, cost: int = 1) -> dict[Any, Fraction]:
    """:func:`_chain` for any exploding die: a penetrating die's added dice count one less
    than their faces (``!p``), and a die that explodes once (``xo``) adds one plain die."""
    if not (die.penetrate or die.explode_once):
        return _chain(element_of, weights, total, die.explode, combine, identity, overflow, depth, max_work, cost)
    if die.explode_once:
        tail: dict[Any, Fraction] = {}
        for face, w in weights.items():
            element = element_of(face)
            tail[element] = tail.get(element, Fraction(0)) + Fraction(w, total)
    else:
        tail = _chain(lambda f: element_of(f - 1), weights, total, die.explode, combine, identity,
                      overflow, depth - 1, max_work, cost)
    # Every exploding face meets every element of the tail: charged before, and summed as
    # whole numbers over total * (the tail's denominator), not Fraction by Fraction.
    exploding = sum(1 for face in weights if face in die.explode)
    if exploding * len(tail) * cost > max_work:
        raise _TooBig(f"more than max_work = {max_work:,} steps")
    tail_weights, tail_total = _to_integers(tail)
    result: dict[Any, int] = {}
    for face, w in weights.items():
        element = element_of(face)
        if face in die.explode:
            for k, q in tail_weights.items():
                key = combine(element, k)
                result[key] = result.get(key, 0) + w * q
        else:
            result[element] = result.get(element, 0) + w * tail_total
    below = total * tail_total
    return {key: Fraction(w, below) for key, w in result.items()}


def _proportional(a: dict[Any, int], b: dict[Any, int]) -> bool:
    if a.keys() != b.keys():
        return False
    ta, tb = sum(a.values()), sum(b.values())
    return all(a[k] * tb == b[k] * ta for k in a)


def _overflow_reading(agg: str, value: Any, nonnegative: bool) -> Any:
    """A reading after a chain cut at the depth limit: a lower bound where more dice can
    only raise it, otherwise unknown."""
    if value is UNKNOWN:
        return UNKNOWN
    if agg in ("sum", "count"):
        if nonnegative and type(value) in (int, Fraction, Bound):
            return value if isinstance(value, Bound) else Bound(value)
        return UNKNOWN
    if agg == "max":
        return Bound(value) if type(value) in (int, Fraction) else (value if isinstance(value, Bound) else UNKNOWN)
    if agg == "any" and value is True:
        return True
    if agg == "all" and value is False:
        return False
    return UNKNOWN


def _compound_weights(die: DieSpec, limits: Limits) -> tuple[dict[Any, int], int]:
    """A compounding die (``!!``) as one die whose faces are chain totals."""
    weights, total = _die_weights(die)
    nonnegative = all(f >= 0 for f in weights)
    chain = _chain(lambda f: f, weights, total, die.explode, lambda a, b: a + b, 0,
                   lambda v: Bound(v) if nonnegative else UNKNOWN, limits.max_explosion_depth, limits.max_work)
    return _to_integers(chain)


def _unkept(spec: PoolSpec, readers: tuple[Reader, ...], limits: Limits) -> tuple[dict[Any, int], int]:
    summed = _summed(spec, readers, limits)
    if summed is not None:
        return summed
    identity = tuple(_IDENTITY[agg] for _, agg in readers)
    combine = _combiner(readers)
    element = _element_fn(readers)
    cost = _combine_cost(readers)
    per_group: list[tuple[int, dict[Any, int], int]] = []
    for n, die in spec.groups:
        if die.explode and die.compound:
            weights, total = _compound_weights(die, limits)
        else:
            weights, total = _die_weights(die)
        if die.explode and not die.compound:
            nonnegative = [all(_nonneg(element(f)[i]) for f in weights) for i in range(len(readers))]

            def overflow(k: tuple[Any, ...], nonnegative: list[bool] = nonnegative) -> tuple[Any, ...]:
                return tuple(_overflow_reading(agg, v, nn) for (_, agg), v, nn in zip(readers, k, nonnegative))

            chain = _explosion_chain(die, element, weights, total, combine, identity, overflow,
                                     limits.max_explosion_depth, limits.max_work, cost)
            per_die, total = _to_integers(chain)
        else:
            per_die = {}
            for face, w in weights.items():
                k = element(face)
                per_die[k] = per_die.get(k, 0) + w
        per_group.append((n, per_die, total))
    lump = _lumper(readers, [d for _, d, _ in per_group])
    if len(readers) == 1 and readers[0][1] in ("max", "min"):
        extreme = _extremes(per_group, readers[0][1], lump, limits)
        if extreme is not None:
            return extreme
    scalar = len(readers) == 1 and readers[0][1] in ("sum", "count")
    if scalar:
        # One sum or count: plain numbers as states, no tuples.
        states: dict[Any, int] = {identity[0]: 1}
        groups = [(n, {k[0]: w for k, w in d.items()}, t) for n, d, t in per_group]
        add = _add_scalar
        fix = (lambda v: lump((v,))[0]) if lump else None
    else:
        states = {identity: 1}
        groups = per_group
        add = combine
        fix = lump
    if scalar:
        foreseen = _foreseen_sum_work(groups)
        if foreseen > _FORESIGHT * limits.max_work:
            raise _TooBig(f"more than max_work = {limits.max_work:,} steps foreseen (about {foreseen:,})")
    denominator = 1
    work = 0
    for n, per_die, total in groups:
        for _ in range(n):
            # A step multiplies weights as long as the denominator so far: past a few
            # thousand bits (an exploding die's chain makes a hundred or more each) a step
            # costs more the longer they are (1000d100x>=5 read twice ran for 15 s).
            work += len(states) * len(per_die) * (cost + denominator.bit_length() // _BITS_PER_STEP)
            if work > limits.max_work:
                raise _TooBig(f"more than max_work = {limits.max_work:,} steps")
            states = _convolve(states, per_die, add)
            if fix is not None:
                lumped: dict[Any, int] = {}
                for k, w in states.items():
                    k = fix(k)
                    lumped[k] = lumped.get(k, 0) + w
                states = lumped
            if len(states) > limits.max_support:
                raise _TooBig(f"more than max_support = {limits.max_support:,} states")
            denominator *= total
    if scalar:
        states = {(k,): w for k, w in states.items()}
    return states, denominator


#: Bits of a weight that cost as much as one step of a fold (a step's Python overhead).
_BITS_PER_STEP = 2_000


def _combine_cost(readers: tuple[Reader, ...]) -> int:
    """Steps one combination of two states counts: a sum or count adds, a highest,
    lowest, any or all calls a function or two for each (measured: 1.2 µs a combination
    for one highest, 3 µs for a highest and a lowest, against 0.3 µs for a sum)."""
    return 1 + 2 * sum(1 for _, agg in readers if agg not in ("sum", "count"))


def _extremes(groups: list[tuple[int, dict[Any, int], int]], agg: str,
              lump: Callable[[tuple[Any, ...]], tuple[Any, ...]] | None,
              limits: Limits) -> tuple[dict[Any, int], int] | None:
    """The highest (``max``) or lowest (``min``) die of a pool by order statistics: the
    chance that no die passes ``v`` is each die's chance of that raised to the number of
    dice, so each outcome costs one power per kind of die, not one step per die and state
    (``highest(1000d100x>=5)`` folded die by die took 15 s). None where the dice's values
    are not plain numbers, or ``min`` meets a tail ``b+`` (whose fold is not a plain minimum).

    The result is the one the fold gives: a die is ``None`` (not selected), a number, a
    tail ``b+`` (for ``max``: the highest known value, and whether a tail took part) or
    unknown (which makes the reading unknown); ``lump`` then folds values into the lowest
    tail as the fold does."""
    highest = agg == "max"
    values: set[Any] = set()
    for _, per_die, _ in groups:
        for (v,) in per_die:
            if isinstance(v, Bound):
                if not highest:
                    return None
                v = v.low
            elif v is None or v is UNKNOWN:
                continue
            if type(v) not in (int, Fraction):
                return None
            values.add(v)
    low = None
    if lump is not None:
        low = lump((Bound(0),))[0].low  # every tail lumps into the lowest one
    thresholds = sorted((v for v in values if low is None or v < low), reverse=not highest)
    # One power of each kind of die per outcome, and one fraction made of each outcome
    # later (a gcd, quadratic in the weights' length: a 140,000-bit one takes 30 ms).
    bits = sum(n * total.bit_length() for n, _, total in groups)
    work = (len(thresholds) + 3) * len(groups) * (1 + bits * bits // 400_000)
    if work > limits.max_work:
        raise _TooBig(f"more than max_work = {limits.max_work:,} steps foreseen (about {work:,})")

    # Per kind of die: the weight of no value (a die not selected), of each value plain
    # and as a tail, and of unknown.
    kinds = []
    for n, per_die, total in groups:
        plain: dict[Any, int] = {}
        tails: dict[Any, int] = {}
        nothing = unknown = 0
        for (v,), w in per_die.items():
            if v is None:
                nothing += w
            elif v is UNKNOWN:
                unknown += w
            elif isinstance(v, Bound):
                tails[v.low] = tails.get(v.low, 0) + w
            else:
                plain[v] = plain.get(v, 0) + w
        kinds.append((n, plain, tails, nothing, unknown, sum(per_die.values())))
    out: dict[Any, int] = {}

    def add(state: Any, w: int) -> None:
        if w:
            key = lump((state,)) if lump is not None else (state,)
            out[key] = out.get(key, 0) + w

    # Walking the values in order (up for max, down for min), each kind's weight at or
    # before the value, without tails (``plain``) and with them (``every``): the chance
    # that every die is there is that weight to the power of the dice.
    running = [[nothing, nothing] for _, _, _, nothing, _, _ in kinds]
    below_plain = below_every = math.prod(nothing**n for n, *_ in kinds)
    add(None, below_plain)
    for v in thresholds:
        plain_product = every_product = 1
        for (n, plain, tails, _, _, _), sums in zip(kinds, running):
            sums[0] += plain.get(v, 0)
            sums[1] += plain.get(v, 0) + tails.get(v, 0)
            plain_product *= sums[0] ** n
            every_product *= sums[1] ** n
        add(v, plain_product - below_plain)
        add(Bound(v), (every_product - plain_product) - (below_every - below_plain))
        below_plain, below_every = plain_product, every_product
    known = math.prod((whole - unknown) ** n for n, _, _, _, unknown, whole in kinds)
    if low is not None:
        add(Bound(low), known - below_every)  # every value from the lowest tail up
    add(UNKNOWN, math.prod(whole**n for n, *_, whole in kinds) - known)
    denominator = math.prod(total**n for n, _, total in groups)
    return out, denominator


def _summed(spec: PoolSpec, readers: tuple[Reader, ...], limits: Limits) -> tuple[dict[Any, int], int] | None:
    """One sum or count of dice that each add a whole number, by power series
    (:mod:`interpreter.core.series`); None where that does not apply (several readings, a
    fraction or an unknown per die, penetrating or once-only explosions, an explosion that
    adds nothing), and the dice are folded one by one instead.

    The result is the one the fold gives: where some die has a tail (an exploding die cut
    at ``max_explosion_depth``, a compounding die's ``b+``), every value below the lowest
    tail ``low`` is exact and the rest is one outcome ``low+``; the series are simply
    stopped at ``low`` terms."""
    if len(readers) != 1 or readers[0][1] not in ("sum", "count"):
        return None
    reader = readers[0]
    plain: list[tuple[int, dict[int, int], int, int]] = []  # (dice, value → weight, tail weight, faces)
    exploding: list[tuple[int, dict[int, int], dict[int, int], int]] = []  # (dice, stop, go, faces)
    low: int | None = None
    negative = False
    for n, die in spec.groups:
        if die.explode and not die.compound:
            if die.penetrate or die.explode_once:
                return None
            weights, total = _die_weights(die)
        elif die.explode:
            weights, total = _compound_weights(die, limits)
        else:
            weights, total = _die_weights(die)
        stop: dict[int, int] = {}
        go: dict[int, int] = {}
        tail = 0
        for face, w in weights.items():
            v = _contribution(face, reader)
            if isinstance(v, Bound) and type(v.low) is int:
                low = v.low if low is None else min(low, v.low)
                tail += w
                continue
            if type(v) is not int:
                return None
            negative = negative or v < 0
            bucket = go if die.explode and not die.compound and face in die.explode else stop
            bucket[v] = bucket.get(v, 0) + w
        if go:
            if not stop or min(go) < 1:
                return None
            depth_low = (limits.max_explosion_depth + 1) * min(go)
            low = depth_low if low is None else min(low, depth_low)
            exploding.append((n, stop, go, total))
        else:
            plain.append((n, stop, tail, total))
    if low is not None and negative:
        return None  # no tail can be lumped: the dice fold one by one (see _lumper)
    # The weights are whole numbers about as long as the denominator: a step on them costs
    # more as they grow, and making each outcome's fraction (a gcd) grows as its square.
    bits = sum(n * total.bit_length() for n, _, _, total in plain)
    bits += sum((n + low - 1) * total.bit_length() for n, _, _, total in exploding)  # type: ignore[operator]
    size = 1 + bits // 2_000
    work = [0]

    def charge(steps: int) -> None:
        work[0] += steps * size
        if work[0] > limits.max_work:
            raise _TooBig(f"more than max_work = {limits.max_work:,} steps")

    # Each group: (lowest value, weights from there, denominator).
    parts: list[tuple[int, list[int], int]] = []
    for n, weights, _tail, total in plain:
        if not weights or n == 0:
            parts.append((0, [1] if n == 0 else [], total**n))
            continue
        least, most = min(weights), max(weights)
        if low is not None:
            most = min(most, low - 1)
        span = (most - least) * n + 1
        terms = span if low is None else max(0, min(span, low - least * n))
        if terms > limits.max_support:
            raise _TooBig(f"more than max_support = {limits.max_support:,} states")
        if terms == 0:
            parts.append((0, [], total**n))
            continue
        weights_from = [weights.get(least + i, 0) for i in range(most - least + 1)]
        parts.append((least * n, series.power(weights_from, n, terms, charge), total**n))
    assert low is not None or not exploding
    for n, stop, go, total in exploding:
        least = min(stop)
        terms = max(0, low - least * n)  # type: ignore[operator]
        if terms > limits.max_support:
            raise _TooBig(f"more than max_support = {limits.max_support:,} states")
        charge(low * len(go))  # type: ignore[operator]
        scaled = series.exploding_series(stop, go, total, low)[least:]  # type: ignore[arg-type]
        found = series.power(scaled, n, terms, charge) if terms else []
        # [z^K] d^n = found[K - least n] / t^(n + K): over one denominator t^(n + low - 1)
        top = n + low - 1  # type: ignore[operator]
        parts.append((least * n, [c * total ** (top - n - least * n - i) for i, c in enumerate(found)], total**top))
    charge(sum(len(w) for _, w, _ in parts) * (bits * bits // 400_000) // size)
    offset, weights_list, denominator = parts[0]
    for start, more, den in parts[1:]:
        terms = len(weights_list) + len(more) - 1 if low is None else max(0, low - offset - start)
        charge(len(weights_list) * len(more))
        weights_list = series.product(weights_list, more, terms) if weights_list and more else []
        offset += start
        denominator *= den
    out: dict[Any, int] = {}
    exact = 0
    for i, w in enumerate(weights_list):
        if w:
            out[(offset + i,)] = w
            exact += w
    if exact != denominator:
        out[(Bound(low),)] = denominator - exact
    return out, denominator


def _scaled_sums(parts: list[list[tuple[Any, Fraction]]], steps: list[tuple[str, Any, Any]],
                 session: _Session) -> list[tuple[Any, Fraction]] | None:
    """An operator chain of ``+`` and ``-`` over whole numbers and fractions, folded as whole
    numbers over one denominator (every value times ``scale``): a pair costs an integer sum,
    not a call of the language's operator making a Fraction. None when the chain has another
    operator or value, or when a partial sum could pass ``Limits.max_digits`` (the plain fold
    then refuses it where the language would)."""
    if any(op != "+" and op != "-" for op, _, _ in steps):
        return None
    scale = 1
    for options in parts:
        for value, _ in options:
            kind = type(value)
            if kind is Fraction:
                if scale % value.denominator:
                    scale = math.lcm(scale, value.denominator)
            elif kind is not int:
                return None
    if scale > 1:
        # The largest partial sum is at most the sum of each part's largest size.
        most = session.limits.max_digits * 3322 // 1000 + 1
        bound = int(sum(max(abs(value) for value, _ in options) for options in parts) * scale)
        if bound.bit_length() > most or scale.bit_length() > most:
            return None
    first, denominator = _whole_weights(parts[0])
    folded: dict[int, int] = {}
    for value, w in first:
        key = int(value * scale)
        folded[key] = folded.get(key, 0) + w
    for (op, _, _), options in zip(steps, parts[1:]):
        session.spend(len(folded) * len(options))
        weights, den = _whole_weights(options)
        sign = 1 if op == "+" else -1
        terms = [(sign * int(value * scale), w) for value, w in weights]
        following: dict[int, int] = {}
        get = following.get
        for a, wa in folded.items():
            for b, wb in terms:
                following[a + b] = get(a + b, 0) + wa * wb
        folded = following
        denominator *= den
    return [(n // scale if n % scale == 0 else Fraction(n, scale), Fraction(w, denominator))
            for n, w in folded.items()]


def _whole_weights(options: list[tuple[Any, Fraction]]) -> tuple[list[tuple[Any, int]], int]:
    """The probabilities of ``options`` as whole numbers over their least common denominator."""
    denominator = _common_denominator(p for _, p in options)
    return [(value, p.numerator * (denominator // p.denominator)) for value, p in options], denominator


def _add_scalar(a: Any, b: Any) -> Any:
    return a + b


#: How far past ``max_work`` a foreseen amount of work must go to be refused before it is
#: done (the foresight is an upper bound; within the margin the work itself is counted).
_FORESIGHT = 2


def _foreseen_sum_work(groups: list[tuple[int, dict[Any, int], int]]) -> int:
    """The pairs of states and faces the sum fold of :func:`_unkept` will combine, at most,
    from each die's outcomes alone: after some dice the sums are at most the values between
    the lowest and highest sum, in steps of the faces' common difference (twice that with
    open-ended tails ``b+``), and at most the product of the dice's outcome counts. 0 when
    the outcomes are not whole numbers (nothing is foreseen then)."""
    low = high = step = work = 0
    states = 1
    tails = False
    for n, per_die, _total in groups:
        values = [k.low if isinstance(k, Bound) else k for k in per_die]
        if not values or not all(type(v) is int for v in values):
            return 0
        least = min(values)
        spread = 0
        for v in values:
            spread = math.gcd(spread, v - least)
        tails = tails or any(isinstance(k, Bound) for k in per_die)
        for _ in range(n):
            work += states * len(per_die)
            low += least
            high += max(values)
            step = math.gcd(step, spread)
            span = (high - low) // step + 1 if step else 1
            states = min(states * len(per_die), span * (2 if tails else 1))
    return work


def _lumper(readers: tuple[Reader, ...],
            elements: list[dict[Any, int]]) -> Callable[[tuple[Any, ...]], tuple[Any, ...]] | None:
    """Where a reading can only grow and some die already gives a lower bound ``b+``,
    every value of at least ``b`` is lumped into ``b+``: exact values are only listed
    below the lowest tail anyway (see ``_merge_tails``), and the states stay few."""
    lows: list[Any] = []
    for i, (_, agg) in enumerate(readers):
        low = None
        if agg in ("sum", "count", "max"):
            bounds = [k[i].low for d in elements for k in d if isinstance(k[i], Bound)]
            values_ok = all(_nonneg(k[i]) for d in elements for k in d) or agg == "max"
            if bounds and values_ok:
                low = min(bounds)
        lows.append(low)
    if all(low is None for low in lows):
        return None

    def lump(state: tuple[Any, ...]) -> tuple[Any, ...]:
        out = list(state)
        for i, low in enumerate(lows):
            if low is None:
                continue
            v = out[i]
            if isinstance(v, Bound):
                if v.low != low:
                    out[i] = Bound(low)
            elif type(v) in (int, Fraction) and v >= low:
                out[i] = Bound(low)
        return tuple(out)

    return lump


def _nonneg(value: Any) -> bool:
    if value is None or type(value) is bool:
        return True
    if isinstance(value, Bound):
        return value.low >= 0
    if value is UNKNOWN:
        return False
    return value >= 0


def _unique(spec: PoolSpec, readers: tuple[Reader, ...], limits: Limits) -> tuple[dict[Any, int], int]:
    """Unique dice (``4d6u``): every set of distinct faces is equally likely (rerolling
    repeats is drawing without replacement), so the readings are folded over the sets."""
    ((n, die),) = spec.groups
    identity = tuple(_IDENTITY[agg] for _, agg in readers)
    combine = _combiner(readers)
    element = _element_fn(readers)
    out: dict[Any, int] = {}
    # Known before any is made: each of the sets folds its n faces (10d100u, 17 trillion
    # sets, was only refused after 2 million of them, ten seconds in).
    count = math.comb(len(die.faces), n)
    if count * max(1, n) > limits.max_work:
        raise _TooBig(f"more than max_work = {limits.max_work:,} steps ({count:,} sets of {n} faces)")
    sets = 0
    for chosen in combinations(sorted(die.faces), n):
        sets += 1
        kept = chosen
        if spec.keep is not None:
            mode, k = spec.keep
            count = k if mode in ("kh", "kl") else n - k
            count = max(0, min(count, n))
            kept = chosen[n - count:] if mode in ("kh", "dl") else chosen[:count]
        acc = identity
        for face in kept:
            acc = combine(acc, element(face))
        out[acc] = out.get(acc, 0) + 1
    return out, sets


def _element_fn(readers: tuple[Reader, ...]) -> Callable[[Any], tuple[Any, ...]]:
    def element(face: Any) -> tuple[Any, ...]:
        return tuple(_contribution(face, r) for r in readers)

    return element


# --- keep and drop


#: What one way of splitting dice over a face costs in `_kept`, in steps of ``max_work``
#: (measured: about eight times a step of the other folds, so that a refusal comes as soon).
_KEEP_STEP = 8


def _kept(spec: PoolSpec, readers: tuple[Reader, ...], limits: Limits) -> tuple[dict[Any, int], int]:
    """Keep/drop by walking the faces in order (see the module docstring)."""
    mode, k = spec.keep  # type: ignore[misc]
    groups: list[tuple[int, dict[Any, int], int]] = []
    for n, die in spec.groups:
        if die.explode:
            weights, total = _compound_weights(die, limits)
        else:
            weights, total = _die_weights(die)
        groups.append((n, weights, total))
    n_total = sum(n for n, _, _ in groups)
    kept_count = min(k, n_total) if mode in ("kh", "kl") else max(n_total - k, 0)
    descending = mode in ("kh", "dl")
    values = {v for _, weights, _ in groups for v in weights}
    finite = [v for v in values if type(v) in (int, Fraction)]
    top = max(finite) if finite else 0

    def order_key(v: Any) -> Any:
        if isinstance(v, Bound) and v.low > top:
            return (1, v.low)
        if type(v) in (int, Fraction):
            return (0, v)
        return (2, 0)  # an unknown position: handled below

    ordered = sorted(values, key=order_key, reverse=descending)
    unknown_faces = {v for v in values if order_key(v)[0] == 2}
    identity = tuple(_IDENTITY[agg] for _, agg in readers)
    combine = _combiner(readers)
    element = _element_fn(readers)
    aggs = [agg for _, agg in readers]
    denominator = 1
    for n, _, total in groups:
        denominator *= total ** n
    final: dict[Any, int] = {}
    if kept_count == 0:
        final[identity] = denominator
        return final, denominator
    # after[g][i]: weight of group g's faces strictly after position i in the order
    after = []
    for _, weights, _ in groups:
        suffix = []
        running = 0
        for v in reversed(ordered):
            suffix.append(running)
            running += weights.get(v, 0)
        after.append(list(reversed(suffix)))
    unknown_state = tuple(UNKNOWN for _ in readers)
    if kept_count == 1 and not unknown_faces:
        return _kept_one(groups, ordered, after, identity, combine, element, limits), denominator
    if len(groups) == 1 and not unknown_faces:
        if len(readers) == 1 and aggs[0] in ("sum", "count") and all(type(element(v)[0]) is int for v in ordered):
            return _kept_summed(groups[0], ordered, after[0], kept_count, element, limits), denominator
        return _kept_one_group(groups[0], ordered, after[0], kept_count, identity, combine, element, aggs,
                               limits), denominator
    states: dict[tuple[tuple[int, ...], tuple[Any, ...]], int] = {(tuple(n for n, _, _ in groups), identity): 1}
    comb = math.comb
    work = 0
    for i, face in enumerate(ordered):
        having = [(g, groups[g][1][face]) for g in range(len(groups)) if face in groups[g][1]]
        if not having:
            continue
        contrib = element(face)
        new: dict[tuple[tuple[int, ...], tuple[Any, ...]], int] = {}
        for (remaining, acc), weight in states.items():
            processed = n_total - sum(remaining)
            ranges = [range(remaining[g], remaining[g] + 1) if after[g][i] == 0 else range(remaining[g] + 1)
                      for g, _ in having]
            # Each way of splitting the dice left over this face is a step: counted before it is taken.
            work += _KEEP_STEP * math.prod(map(len, ranges))
            if work > limits.max_work:
                raise _TooBig(f"more than max_work = {limits.max_work:,} steps")
            for combo in product(*ranges):
                w = weight
                rem = list(remaining)
                c = 0
                for (g, fw), cg in zip(having, combo):
                    if cg:
                        w *= comb(remaining[g], cg) * fw**cg
                        rem[g] -= cg
                        c += cg
                kept_here = max(0, min(c, kept_count - processed))
                if face in unknown_faces and c:
                    new_acc = unknown_state
                elif kept_here:
                    new_acc = combine(acc, tuple(_times(x, agg, kept_here) for x, agg in zip(contrib, aggs)))
                else:
                    new_acc = acc
                if processed + c >= kept_count:
                    for g, r in enumerate(rem):
                        if r:
                            w *= after[g][i] ** r
                    if w:
                        final[new_acc] = final.get(new_acc, 0) + w
                    continue
                key = (tuple(rem), new_acc)
                new[key] = new.get(key, 0) + w
        states = new
        if len(states) > limits.max_support:
            raise _TooBig(f"more than max_support = {limits.max_support:,} states")
    return final, denominator


def _kept_one(groups: list[tuple[int, dict[Any, int], int]], ordered: list[Any], after: list[list[int]],
              identity: tuple[Any, ...], combine: Callable[[Any, Any], Any],
              element: Callable[[Any], tuple[Any, ...]], limits: Limits) -> dict[Any, int]:
    """One die kept (``kh1``, ``kl1``, ``dl`` all but one): the first face in ``ordered`` some
    die shows, by order statistics. Every die shows that face or a later one, less every die
    a later one: a power per kind of die and face (``1000d1000kl1`` walked a thousand faces
    with a thousand counts each, 10 s for a sum of them)."""
    bits = sum(n * total.bit_length() for n, _, total in groups)
    work = (len(ordered) + 1) * len(groups) * (1 + bits * bits // 400_000)
    if work > limits.max_work:
        raise _TooBig(f"more than max_work = {limits.max_work:,} steps foreseen (about {work:,})")
    final: dict[Any, int] = {}
    from_here = math.prod(sum(weights.values()) ** n for n, weights, _ in groups)
    for i, face in enumerate(ordered):
        later = math.prod(after[g][i] ** n for g, (n, _, _) in enumerate(groups))
        if from_here != later:
            acc = combine(identity, element(face))
            final[acc] = final.get(acc, 0) + from_here - later
        from_here = later
    return final


def _binomials(n: int, limits: Limits) -> tuple[int, list[list[int]]]:
    """Pascal's triangle to row ``n`` by additions (``math.comb`` row by row is quadratic in
    big multiplications), and the work it counts."""
    work = (n + 1) * (n + 2) // 2
    if work > limits.max_work:
        raise _TooBig(f"more than max_work = {limits.max_work:,} steps")
    combs = [[1]]
    for r in range(1, n + 1):
        prev = combs[-1]
        combs.append([1, *(prev[c - 1] + prev[c] for c in range(1, r)), 1])
    return work, combs


def _foreseen_keep_work(n: int, kept_count: int, faces: int, per_state: int, per_face: int, done: int,
                        limits: Limits) -> None:
    """Refuse before walking a pool's faces when the steps the walk will charge already pass
    ``max_work``: after its first face the walk holds a state for each count of dice left that
    still needs kept dice (``kept_count`` of them, kept by every later face showing no die),
    and each face charges ``per_state`` a state and ``per_face`` (a lower bound, so nothing the
    walk would answer is refused). ``any(each(100d1000kh50) >= 999)`` walked 97 of its 1,000
    faces, most of a second, before its refusal."""
    foreseen = done + per_state + per_face + max(0, faces - 1) * (kept_count * per_state + per_face)
    if foreseen > limits.max_work:
        raise _TooBig(f"more than max_work = {limits.max_work:,} steps foreseen (about {foreseen:,})")


def _kept_one_group(group: tuple[int, dict[Any, int], int], ordered: list[Any], after: list[int],
                    kept_count: int, identity: tuple[Any, ...], combine: Callable[[Any, Any], Any],
                    element: Callable[[Any], tuple[Any, ...]], aggs: list[str], limits: Limits) -> dict[Any, int]:
    """``_kept`` for one kind of die: the state is (dice left, accumulators)."""
    n, weights, total = group
    work, combs = _binomials(n, limits)
    final: dict[Any, int] = {}
    states: dict[tuple[int, tuple[Any, ...]], int] = {(n, identity): 1}
    # The weights grow to n times the bits of one die's denominator (a compounding die's is
    # huge: 10**21 for d10!!), and a step multiplies them: it costs more the larger they are
    # (200d10!!kh50 took 7 s to be refused, 1000d6!!kh50 over a minute).
    size = 1 + n * total.bit_length() // 2048
    _foreseen_keep_work(n, kept_count, sum(1 for face in ordered if weights.get(face)), (n + 1) * size,
                        2 * (n + 1) * size, work, limits)
    for i, face in enumerate(ordered):
        fw = weights.get(face)
        if not fw:
            continue
        rest = after[i]
        # Charged before the face is walked: each state tries up to n + 1 counts, and the
        # face's n + 1 powers and the rest's are made.
        work += (len(states) + 2) * (n + 1) * size
        if work > limits.max_work:
            raise _TooBig(f"more than max_work = {limits.max_work:,} steps")
        powers = [fw**c for c in range(n + 1)]
        # The dice left below this face, by how many: a power of thousands of bits is not
        # recomputed for every state.
        rests = [1] * (n + 1)
        if rest:
            for j in range(1, n + 1):
                rests[j] = rests[j - 1] * rest
        contrib = element(face)
        repeated = [tuple(_times(x, agg, k) for x, agg in zip(contrib, aggs)) for k in range(kept_count + 1)]
        new: dict[tuple[int, tuple[Any, ...]], int] = {}
        get = new.get
        for (r, acc), weight in states.items():
            need = kept_count - (n - r)
            row = combs[r]
            for c in (range(r, r + 1) if rest == 0 else range(r + 1)):
                w = weight * row[c] * powers[c]
                if c >= need:
                    new_acc = combine(acc, repeated[need]) if need else acc
                    if r > c:
                        w *= rests[r - c]
                    final[new_acc] = final.get(new_acc, 0) + w
                    continue
                new_acc = combine(acc, repeated[c]) if c else acc
                key = (r - c, new_acc)
                new[key] = get(key, 0) + w
        states = new
        if len(states) > limits.max_support:
            raise _TooBig(f"more than max_support = {limits.max_support:,} states")
    return final


def _kept_summed(group: tuple[int, dict[Any, int], int], ordered: list[Any], after: list[int], kept_count: int,
                 element: Callable[[Any], tuple[Any, ...]], limits: Limits) -> dict[Any, int]:
    """``_kept_one_group`` for one sum or count of whole numbers, by counts: the kept sums
    of all the ways that leave ``r`` dice are one distribution ``A_r``, and a face shown by
    ``c`` of them moves all of ``A_r`` at once (shifted by ``c`` times its value, scaled by
    ``C(r, c) w^c``), so each (dice left, count) pair costs one pass over its sums and
    one big multiplication, not one per sum."""
    n, weights, total = group
    work, combs = _binomials(n, limits)
    final: dict[Any, int] = {}
    by_left: dict[int, dict[int, int]] = {n: {0: 1}}
    # As in _kept_one_group: a step multiplies weights of up to n times a die's bits, and
    # each face makes its n powers (sum(each(1000d1000kl2) % 2 == 0) took 7 s to be refused).
    size = 1 + n * total.bit_length() // 2048
    _foreseen_keep_work(n, kept_count, sum(1 for face in ordered if weights.get(face)), (n + 1) * size,
                        2 * n * size, work, limits)
    for i, face in enumerate(ordered):
        fw = weights.get(face)
        if not fw:
            continue
        rest = after[i]
        value = element(face)[0]
        work += (sum(len(sums) for sums in by_left.values()) * (n + 1) + 2 * n) * size
        if work > limits.max_work:
            raise _TooBig(f"more than max_work = {limits.max_work:,} steps")
        powers = [1]
        for _ in range(n):
            powers.append(powers[-1] * fw)
        rests = [1]
        if rest:
            for _ in range(n):
                rests.append(rests[-1] * rest)
        following: dict[int, dict[int, int]] = {}
        for r, sums in by_left.items():
            need = kept_count - (n - r)
            row = combs[r]
            for c in (range(r, r + 1) if rest == 0 else range(r + 1)):
                if c >= need:
                    # Every kept die is known: the r - c dice left all show lower faces.
                    factor = row[c] * powers[c] * rests[r - c] if r > c else row[c] * powers[c]
                    shift = value * need
                    target = final
                    for acc, w in sums.items():
                        key = acc + shift
                        target[key] = target.get(key, 0) + w * factor
                    continue
                factor = row[c] * powers[c]
                shift = value * c
                target = following.setdefault(r - c, {})
                get = target.get
                for acc, w in sums.items():
                    key = acc + shift
                    target[key] = get(key, 0) + w * factor
        by_left = following
        if sum(len(sums) for sums in by_left.values()) > limits.max_support:
            raise _TooBig(f"more than max_support = {limits.max_support:,} states")
    return {(acc,): w for acc, w in final.items()}


def _kept_exploding(spec: PoolSpec, readers: tuple[Reader, ...], limits: Limits) -> tuple[dict[Any, int], int]:
    """Keep highest/lowest of exploding dice: the state is the sorted kept dice."""
    mode, k = spec.keep  # type: ignore[misc]
    if mode not in ("kh", "kl"):
        raise _TooBig("dropping dice from an exploding pool (use kh or kl)")
    descending = mode == "kh"
    unknown = ("?",)

    def merge(a: tuple[Any, ...], b: tuple[Any, ...]) -> tuple[Any, ...]:
        if a == unknown or b == unknown:
            return unknown
        return tuple(sorted(a + b, reverse=descending)[:k])

    states: dict[Any, int] = {(): 1}
    denominator = 1
    # Counted over every die, not per die: a thousand dice each just under the limit took
    # minutes. A merge sorts up to k kept dice: a step of many kept dice costs more.
    work = 0
    for n, die in spec.groups:
        weights, total = _die_weights(die)
        chain = _chain(lambda f: (f,), weights, total, die.explode, merge, (), lambda _e: unknown,
                       limits.max_explosion_depth, limits.max_work)
        per_die, total = _to_integers(chain)
        for _ in range(n):
            work += len(states) * len(per_die) * (1 + k // 4)
            if work > limits.max_work:
                raise _TooBig(f"more than max_work = {limits.max_work:,} steps")
            states = _convolve(states, per_die, merge)
            if len(states) > limits.max_support:
                raise _TooBig(f"more than max_support = {limits.max_support:,} states")
            denominator *= total
    identity = tuple(_IDENTITY[agg] for _, agg in readers)
    combine = _combiner(readers)
    element = _element_fn(readers)
    final: dict[Any, int] = {}
    for kept, w in states.items():
        if kept == unknown:
            acc: tuple[Any, ...] = tuple(UNKNOWN for _ in readers)
        else:
            acc = identity
            for v in kept:
                acc = combine(acc, element(v))
        final[acc] = final.get(acc, 0) + w
    return final, denominator
