"""Exact odds of procedures: a procedure with finitely many states is a Markov chain.

A **state** is where a run stands at a ``step`` line: that line, the values the procedure
holds, and the resources and conditions of the entities taking part. From a state, the
lines up to the next ``step`` (or the end) are a **segment**; the exact joint distribution
of where a segment leads is computed by the one evaluator
(:func:`interpreter.core.distribution.joint`), so every roll inside it is exact. States are
explored breadth-first from the start; then the chance of ending with each set of results
is solved exactly: probability flows forward from the start, and strongly connected groups
of states (a tie that repeats a round, a loop between steps) are solved as small sparse
linear systems of expected visits, in topological order, in whole numbers over shared
denominators (the odds of a long contest have thousands of digits). Nothing is simulated.
The lines of a segment are evaluated once per distinct values they read, across every state
of the computation (:mod:`interpreter.rules.memo`), the worlds of a state run the lines
before their first roll once, and worlds that meet again (the same live values where a value
was read for the last time) take the outcome one of them went on to
(:mod:`interpreter.markov.meet`).

Choice points need answers for odds: a fixed answer per choice name (``answers``), else
the first option. Values carried from one step to the next must be plain values (numbers,
levels, true/false, text, records and lists of them, entities by their role); a roll the
rest of the run still reads cannot be (its dice are the world's), and is E0615 there; the
game's own values (a table, a function) are held as they are; any other value the rest of
the run reads is E0615 too.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import attrs

from runebook.dsl import ast
from runebook.dsl.checker import CheckedEntry
from runebook.dsl.diagnostics import Diagnostic, RunebookError
from runebook.dsl.flow import flow_of
from runebook.dsl.model import takes_entry
from runebook.dsl.vocabulary import fold
from runebook.interpreter.core.hexgrid import Cell, Cells
from runebook.interpreter.core.dice import PoolSource, PoolView
from runebook.interpreter.core.distribution import Distribution
from runebook.interpreter.core.evaluate import Context, MapEnv, kind_of, normalize_name
from runebook.interpreter.core.limits import WorldForecast, limit_error
from runebook.interpreter.core.values import Bound, Level, Record
from runebook.interpreter.markov.meet import Meetings, same_in_every_world
from runebook.interpreter.rules.memo import SIMPLE, LineMemo
from runebook.interpreter.rules.procedures import MET, ChoicePoint, Driver, answer_named, run_segment
from runebook.interpreter.rules.results import CheckOdds

__all__ = ["FixedDriver", "ProcedureOdds", "procedure_odds"]

_UNKNOWN = ("unknown",)


class FixedDriver(Driver):
    """Answers each choice point by its name (``answers``), else with its first option. A
    choice of a procedure brought in by ``do ... as blow`` is named ``blow.burst_hits``: the
    answer for ``burst_hits`` serves it, as ``--answer`` does for a run, unless
    ``blow.burst_hits`` has its own."""

    reads_state = False

    def __init__(self, answers: Mapping[str, str] | None = None) -> None:
        self.answers = {fold(k): v for k, v in (answers or {}).items()}

    def choose(self, point: ChoicePoint) -> str:
        found = answer_named(self.answers, point.name)
        return point.options[0] if found is None else found


@attrs.frozen
class ProcedureOdds(CheckOdds):
    """The exact distribution of each result of a procedure, and how many states it has."""

    states: int = 0
    #: Results no run of the procedure sets with these inputs (left out of ``results``;
    #: an expression of ``odds ... --of`` reads them as none).
    never_set: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.check

    def to_dict(self) -> dict[str, Any]:
        payload = super().to_dict()
        return {"procedure": payload.pop("check"), "states": self.states, **payload}


#: The types of values a state may carry from one step to the next.
#: Values a state holds as they are: the memo's simple values, records, and a grid's cells
#: (tuples of whole numbers of their own type, which the tests for a list do not see).
_PLAIN_TYPES: frozenset[type] = SIMPLE | {Record, Cell, Cells}


#: A roll's values: a declared pool (`roll d = 1d6`) and a pool made by an expression.
_ROLLS: frozenset[type] = frozenset({PoolSource, PoolView})


def _holds_roll(value: Any) -> bool:
    """Whether a value is a roll or holds one (in a list or a record); a list of simple
    values, the usual case, in one test."""
    kind = type(value)
    if kind in _ROLLS:
        return True
    if kind is tuple:
        return not SIMPLE.issuperset(map(type, value)) and not same_in_every_world(value)
    return kind is Record and not same_in_every_world(value)


@attrs.frozen
class _Member:
    """An entity taking part, as a state holds it: by its role (``actor``, ``target#2``)."""

    role: str


class _Same:
    """One of the game's own values (a table, a function: ``let t = Damage``), as a state
    holds it: by the object itself, which is the same in every world and never changes
    while the game is loaded (equal only to itself; a table's rows are not compared)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return type(other) is _Same and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)

    def __repr__(self) -> str:
        return f"_Same({self.value!r})"


#: What stands in a state for a value that is not plain: an entity (by its role) or one of
#: the game's own values; by the value's id.
_Refs = Mapping[int, "_Member | _Same"]


def _game_values(globals_: Any) -> dict[int, _Same]:
    """The game's own values a state may hold as they are, by id: every value its names hold
    that is not plain (tables, functions), through the chain of its environments."""
    found: dict[int, _Same] = {}
    env = globals_
    while type(env) is MapEnv:
        for value in env.mapping.values():
            if type(value) not in _PLAIN_TYPES and type(value) is not tuple:
                found.setdefault(id(value), _Same(value))
        env = env.parent
    return found


def _freeze(value: Any, refs: _Refs) -> Any:
    """A value as a state keeps it: entities by their role, the game's own values as they are,
    inside lists and records too."""
    kind = type(value)
    if kind is tuple:
        return value if _PLAIN_TYPES.issuperset(map(type, value)) else tuple(_freeze(v, refs) for v in value)
    if kind is Record:
        return Record({k: _freeze(v, refs) for k, v in value.items()})
    stand_in = refs.get(id(value)) if kind not in _PLAIN_TYPES else None
    return stand_in if stand_in is not None else value


def _thaw(value: Any, entities: Mapping[str, Any]) -> Any:
    kind = type(value)
    if kind is _Member:
        return entities[value.role]
    if kind is _Same:
        return value.value
    if kind is tuple:
        # A list of simple values (a loop's thousand numbers) in one C-level test, in every world.
        if SIMPLE.issuperset(map(type, value)) or not any(type(v) in (_Member, _Same, tuple, Record) for v in value):
            return value
        return tuple(_thaw(v, entities) for v in value)
    if kind is Record:
        return Record({k: _thaw(v, entities) for k, v in value.items()})
    return value


def _kept(values: list[tuple[str, Any]], held: Mapping[str, Any], refs: _Refs) -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
    """The values a state keeps, each frozen (an entity as its role), and plain; and those it
    cannot keep (the caller refuses one the rest of the run reads)."""
    kept = []
    dropped = []
    for k, v in values:
        if type(v) in SIMPLE or v is held.get(k):
            # A value the state held, unchanged: already frozen and plain.
            kept.append((k, v))
            continue
        frozen = _freeze(v, refs)
        if _plain(frozen):
            kept.append((k, frozen))
        else:
            dropped.append((k, v))
    return kept, dropped


def _plain(value: Any) -> bool:
    """Whether a value can be part of a state: plain values, records, and lists of them."""
    kind = type(value)
    if kind is _Member or kind is _Same:
        return True
    if kind in _PLAIN_TYPES:
        return kind is not Record or all(_plain(v) for v in value.values())
    if kind is tuple:
        return SIMPLE.issuperset(map(type, value)) or all(_plain(v) for v in value)
    return isinstance(value, Level | Bound)


def procedure_odds(rules: Any, procedure: Any, inputs: Mapping[str, Any], options: Mapping[str, Level],
                   roles: Mapping[str, Any], answers: Mapping[str, str] | None = None,
                   progress: Callable[[int], None] | None = None) -> ProcedureOdds:
    """Explore a procedure's states and solve its chain exactly; ``progress`` is told the
    number of states explored as each one is (a command line shows it for long runs)."""
    decl, source = procedure.decl, procedure.source
    procedure_name = procedure.name
    statements = decl.statements
    result_names = list(dict.fromkeys(s.name for s in statements if isinstance(s, ast.ResultLine)))
    driver = FixedDriver(answers)
    flow = flow_of(statements)
    # Entries' lines read the procedure's values by name at run time, where no analysis
    # sees them: a procedure that takes an entry keeps every value in its states.
    reads_entries = takes_entry(decl, rules.ruleset.vocabulary.kinds)
    live = None if reads_entries else flow.live

    def entity_key(entities: Mapping[str, Any]) -> tuple[Hashable, ...]:
        return tuple(sorted((role, tuple(sorted(e.resources.items())), tuple(e.conditions))
                            for role, e in entities.items()))

    # A state's values and entities are long tuples; each distinct one is numbered once, so
    # that states hash, compare and sort as small tuples of numbers (the distribution of every
    # segment sorts its outcomes, and the chain keys its transitions by state).
    numbers: dict[Any, int] = {}
    numbered: list[Any] = []
    #: Segment runs so far, one per state and dice outcome (``Limits.max_worlds``).
    worlds = [0]
    # Values of lines for the values they read, shared by every segment of this computation
    # (not for the lines of a procedure that takes an entry: its lines read the procedure's
    # values by name, unseen; calls of the game's functions are remembered all the same).
    memo = LineMemo(rules.globals)
    game_values = _game_values(rules.globals)
    #: The scope of the inputs, when every world can share it (see `run`); names as `fold` has them.
    shared_scope: list[Any] = [None]
    # Where worlds meet again (interpreter.markov.meet): with no entity and no entry, once the
    # inputs' scope is known to be the same plain values in every world.
    meetings = Meetings(live, flow.meetings, memo.plain_value) if live is not None and not roles else None
    meeting: list[Meetings | None] = [None]
    #: The results some run ends with (a result whose line no run reaches is left out, as a
    #: run leaves it out; one set in some runs only is `none` in the others).
    set_somewhere: set[str] = set()
    #: The names of a world's values its outcome keeps, sorted: (line, names held) -> names.
    selections: dict[tuple[Any, ...], tuple[str, ...]] = {}

    def number(value: Any) -> int:
        found = numbers.get(value)
        if found is None:
            found = numbers[value] = len(numbered)
            numbered.append(value)
        return found

    def segment(state: tuple[Any, ...]) -> Distribution:
        pc, held_number, entity_number = state
        held, entity_state = numbered[held_number], numbered[entity_number]
        # Where this state's worlds first part ways (procedures.run_segment).
        resume: list[Any] = [None]
        # The values the state holds, with their names' folded index, made once for its worlds.
        held_values = dict(held)
        if not entity_state and not SIMPLE.issuperset(type(v) for _, v in held):
            # The game's own values it holds, as they are (with entities, each world thaws).
            held_values = {k: _thaw(v, {}) for k, v in held}
        held_index = {normalize_name(k): k for k in held_values}

        def run(ctx: Context) -> tuple[Any, ...]:
            worlds[0] += 1
            if worlds[0] > rules.limits.max_worlds:
                raise limit_error("max_worlds", rules.limits, (source, decl.name.span),
                                  f"more than {rules.limits.max_worlds:,} runs of a segment")
            entities = {}
            for role, resources, conditions in entity_state:
                entity = roles[role].copy()
                entity.resources.clear()
                entity.resources.update(dict(resources))
                entity.conditions[:] = list(conditions)
                entities[role] = entity
            ctx.run.options, ctx.run.roles = options, entities
            try:
                scope = shared_scope[0]
                if entities:
                    env = MapEnv({k: _thaw(v, entities) for k, v in held}, parent=scope)
                elif resume[0] is not None and not reads_entries:
                    # run_segment starts this world from the first world's values where it parted.
                    env = MapEnv.indexed({}, {}, scope)
                else:
                    env = MapEnv.indexed(dict(held_values), dict(held_index), scope)
                if scope is None:
                    chosen = len(ctx.world.taken)
                    scope = env.parent = rules._scope(ctx, decl.params, inputs, options, entities, source)
                    if not entities and len(ctx.world.taken) == chosen and \
                            not any(isinstance(v, CheckedEntry) for v in scope.mapping.values()):
                        # No entity and no entry: the inputs' scope is the same in every world,
                        # and what lines read there is a constant of the computation.
                        shared_scope[0] = scope
                        memo.fixed = scope
                        if meetings is not None and all(map(same_in_every_world, scope.mapping.values())):
                            meeting[0] = meetings
                    rules.entry_views(scope, env)
                met = meeting[0] if not entities else None
                if met is not None:
                    met.start()
                following = rules.in_world(ctx, lambda: run_segment(
                    rules, procedure_name, statements, source, ctx, env, driver, pc, {}, [], stop_at_step=True,
                    memo=None if reads_entries else memo, resume=None if entities or reads_entries else resume,
                    meetings=met))
            finally:
                ctx.run.options = ctx.run.roles = None
            if following == MET:
                # The points this world met before, with no choice since, lead there too.
                met.went(met.outcome, len(ctx.world.taken), len(ctx.realized))  # type: ignore[union-attr]
                return met.outcome  # type: ignore[union-attr]
            # An entity a value holds (a loop's member) is kept as the role it has.
            refs = {**game_values, **{id(e): _Member(role) for role, e in entities.items()}} if entities \
                else game_values
            # Only what the rest of the run may read is part of its state, in the order of
            # its names (worked out once per line and names held).
            mapping = env.mapping
            shape = (following, tuple(mapping))
            selection = selections.get(shape)
            if selection is None:
                needed = live[following] if following is not None and live is not None else None
                selection = selections[shape] = tuple(sorted(
                    k for k in mapping if needed is None or fold(k) in needed))
            kept = [(k, mapping[k]) for k in selection]
            types = [type(v) for _, v in kept]
            if not SIMPLE.issuperset(types):
                if following is not None and live is not None:
                    # The rest of the run reads it (when an entry may read any name, nothing
                    # says so: the roll is left out, as every value that is not plain). A list
                    # or a record holding a roll is held the same way.
                    rolled = next((k for k, v in kept if _holds_roll(v)), None)
                    if rolled is not None:
                        raise RunebookError([flow.roll_kept(following, rolled, source)])
                kept, dropped = _kept(kept, held_values, refs)
                if dropped and following is not None and live is not None:
                    # The rest of the run reads it (every value selected is live there).
                    name, value = dropped[0]
                    raise RunebookError([flow.value_kept(following, name, kind_of(value), source)])
            values = tuple(kept)
            if following is None:
                found = dict(values)
                set_somewhere.update(n for n in result_names if n in found)
                outcome: tuple[Any, ...] = ("end", tuple(found.get(n) for n in result_names))
            else:
                outcome = ("state", following, number(values), number(entity_key(entities)))
            if met is not None:
                met.went(outcome, len(ctx.world.taken), len(ctx.realized))
            return outcome

        return rules.enumerate(run, memo, (source, decl.name.span))

    start = (0, number(()), number(entity_key(roles)))
    forecast = WorldForecast(rules.limits, (source, decl.name.span))
    found = _FoundStates(rules.limits.max_states, numbered, lambda: _too_many_states(
        rules.limits.max_states, found.states, numbered, source, decl))
    found.add(start)
    transitions: dict[tuple[Any, ...], dict[Any, Fraction]] = {}
    queue = [start]
    while queue:
        state = queue.pop()
        if state in transitions:
            continue
        if progress is not None:
            progress(len(transitions))
        before = worlds[0]
        dist = segment(state)
        forecast.explored(state, state[0], worlds[0] - before, worlds[0])
        edges: dict[Any, Fraction] = {}
        for outcome, p in dist.items():
            target = ("end", outcome[1]) if outcome[0] == "end" else outcome[1:]
            # Most targets come from one outcome: no sum (a Fraction sum costs a gcd).
            before = edges.get(target)
            edges[target] = p if before is None else before + p
            if outcome[0] != "end" and target not in transitions:
                queue.append(target)
                forecast.queued(target, target[0])
                found.add(target)
        if dist.residual:
            edges[_UNKNOWN] = edges.get(_UNKNOWN, Fraction(0)) + dist.residual
        transitions[state] = edges
    final = _solve(transitions, start, source, decl)
    unknown = final.pop(_UNKNOWN, Fraction(0))
    outcomes = {key[1]: p for key, p in final.items()}
    never_set = tuple(n for n in result_names if n not in set_somewhere)
    if never_set:
        # Each left-out result is none in every outcome: no two outcomes become one.
        kept = [i for i, n in enumerate(result_names) if n in set_somewhere]
        outcomes = {tuple(values[i] for i in kept): p for values, p in outcomes.items()}
        result_names = [result_names[i] for i in kept]
    together = Distribution(outcomes, unknown)
    parts: dict[str, dict[Any, list[Fraction]]] = {n: {} for n in result_names}
    for values, p in outcomes.items():
        for name, value in zip(result_names, values):
            parts[name].setdefault(value, []).append(p)
    results = {n: Distribution({value: _total(ps) for value, ps in found.items()}, unknown)
               for n, found in parts.items()}
    return ProcedureOdds(procedure_name, results, together, dict(inputs), {k: v.name for k, v in options.items()},
                         states=len(transitions), never_set=never_set)


def _total(fractions: list[Fraction]) -> Fraction:
    """The sum of exact probabilities, reduced once: the odds of a long contest have thousands
    of digits, mostly over denominators that divide each other, and a sum of two Fractions
    reduces (two gcds of that size)."""
    if len(fractions) == 1:
        return fractions[0]
    common = _common(p.denominator for p in fractions)
    return Fraction(sum(p.numerator * (common // p.denominator) for p in fractions), common)


def _is_state(key: Any) -> bool:
    return key != _UNKNOWN and key[0] != "end"


def _solve(transitions: dict[Any, dict[Any, Fraction]], start: Any, source: Any, decl: Any) -> dict[Any, Fraction]:
    """The probability of ending in each end (and of the unknown), exactly.

    Probability flows forward from the start, one strongly connected group of states at a
    time in topological order: within a group, the expected visits x of its states solve
    x = inflow + x Q (Q: moves inside the group), one scalar per state; what leaves the
    group flows on to the next groups and to the ends.

    The amounts are kept as whole numbers over a denominator their group shares (a state's
    inflow is a list of such parts): adding fractions of thousands of digits one by one
    would reduce each sum, and the chain's odds have that many digits. Each end's
    probability is reduced once, at the end.
    """
    inflow: dict[Any, list[tuple[int, int]]] = {start: [(1, 1)]}
    ends: dict[Any, list[tuple[int, int]]] = {}
    for group in reversed(_components(transitions)):
        parts = [inflow.pop(s, ()) for s in group]
        if not any(parts):
            continue
        # One denominator for everything entering the group (parts from one group share theirs).
        common = _common(den for found in parts for _, den in found)
        entering = [sum(num * (common // den) for num, den in found) for found in parts]
        members = set(group)
        solved = _visits(group, transitions, entering, members)
        if solved is None:
            raise RunebookError([Diagnostic.make("E0614", source, decl.name.span)])
        visits, below = solved
        below *= common
        leaving: dict[Any, list[int]] = {}
        for state, times in zip(group, visits):
            if not times:
                continue
            for target, p in transitions[state].items():
                if target in members:
                    continue
                sums = leaving.get(target)
                if sums is None:
                    sums = leaving[target] = [0, 1]
                # sums[0] / (below * sums[1]) += times * p / below
                num, den = p.numerator, p.denominator
                if sums[1] % den:
                    grow = den // math.gcd(sums[1], den)
                    sums[0] *= grow
                    sums[1] *= grow
                sums[0] += times * num * (sums[1] // den)
        for target, (num, den) in leaving.items():
            bucket = inflow if _is_state(target) else ends
            bucket.setdefault(target, []).append((num, below * den))
    result: dict[Any, Fraction] = {}
    for end_key, found in ends.items():
        common = _common(den for _, den in found)
        result[end_key] = Fraction(sum(num * (common // den) for num, den in found), common)
    return result


def _common(denominators: Iterable[int]) -> int:
    """The least common multiple of whole numbers that mostly divide each other (one division
    each when they do)."""
    common = 1
    for den in denominators:
        if common % den:
            common = math.lcm(common, den)
    return common


def _visits(group: list[Any], transitions: dict[Any, dict[Any, Fraction]], entering: list[int],
            members: set[Any]) -> tuple[list[int], int] | None:
    """Expected visits of each state of a group times a denominator they share, and that
    denominator: x_t - sum_s x_s p(s,t) = entering_t (whole numbers; the caller divides by
    their own denominator), solved exactly by sparse elimination (a state leads to few
    others). None if the group never lets go of its probability (the procedure may not end).

    The states are numbered along the group (breadth first from an end: a chain of rounds
    becomes a narrow band, and elimination fills in little outside it); each equation's
    coefficients are scaled to whole numbers and eliminated without fractions (a row less
    another times a number, then divided by what all its numbers share). A row's right-hand
    side is a whole number over a small divisor of its own; back substitution brings the
    visits over one denominator. No step reduces a fraction of the size of the odds."""
    if len(group) == 1:
        (state,) = group
        stay = transitions[state].get(state, Fraction(0))
        if stay == 1:
            return None
        # x = e / (1 - stay)
        return [entering[0] * stay.denominator], stay.denominator - stay.numerator
    position = {s: i for i, s in enumerate(group)}
    order = _banded(group, transitions, members)
    index = {s: i for i, s in enumerate(order)}
    size = len(order)
    exact: list[dict[int, Fraction]] = [{i: Fraction(1)} for i in range(size)]
    for s in order:
        column = index[s]
        for t, p in transitions[s].items():
            if t in members:
                coefficients = exact[index[t]]
                coefficients[column] = coefficients.get(column, 0) - p
    rows: list[dict[int, int]] = []
    rhs: list[int] = []
    divisors: list[int] = []
    for i, s in enumerate(order):
        scale = math.lcm(*(c.denominator for c in exact[i].values()))
        rows.append({j: v.numerator * (scale // v.denominator) for j, v in exact[i].items() if v})
        rhs.append(entering[position[s]] * scale)
        divisors.append(1)
    holders: list[set[int]] = [set() for _ in range(size)]
    for i, row in enumerate(rows):
        for j in row:
            holders[j].add(i)
    for col in range(size):
        pivot = col if rows[col].get(col) else next((r for r in sorted(holders[col]) if r > col), None)
        if pivot is None or not rows[pivot].get(col):
            return None
        if pivot != col:
            for r in (col, pivot):
                for j in rows[r]:
                    holders[j].discard(r)
            rows[col], rows[pivot] = rows[pivot], rows[col]
            rhs[col], rhs[pivot] = rhs[pivot], rhs[col]
            divisors[col], divisors[pivot] = divisors[pivot], divisors[col]
            for r in (col, pivot):
                for j in rows[r]:
                    holders[j].add(r)
        pivot_row, pivot_rhs, pivot_divisor = rows[col], rhs[col], divisors[col]
        lead = pivot_row[col]
        for r in [r for r in holders[col] if r > col]:
            target = rows[r]
            scale = target[col]
            # target * lead - pivot_row * scale: the column's entry becomes 0.
            updated = {j: v * lead for j, v in target.items()}
            for j, v in pivot_row.items():
                value = updated.get(j, 0) - scale * v
                if value:
                    updated[j] = value
                else:
                    updated.pop(j, None)
            # The right-hand sides: rhs[r] / divisors[r] * lead - pivot_rhs / pivot_divisor * scale.
            divisor = math.lcm(divisors[r], pivot_divisor)
            right = rhs[r] * lead * (divisor // divisors[r])
            if pivot_rhs:
                right -= pivot_rhs * scale * (divisor // pivot_divisor)
            common = math.gcd(*updated.values())
            if common > 1:
                updated = {j: v // common for j, v in updated.items()}
                divisor *= common
            shared = math.gcd(right, divisor)  # a small divisor: cheap
            if shared > 1:
                right //= shared
                divisor //= shared
            for j in target:
                if j not in updated:
                    holders[j].discard(r)
            for j in updated:
                if j not in target:
                    holders[j].add(r)
            rows[r], rhs[r], divisors[r] = updated, right, divisor
    # Back substitution: x_i = numerators[i] / denominators[i].
    numerators: list[int] = [0] * size
    denominators: list[int] = [1] * size
    for i in range(size - 1, -1, -1):
        row = rows[i]
        below = divisors[i]
        later = [j for j in row if j > i and numerators[j]]
        for j in later:
            if below % denominators[j]:
                below = math.lcm(below, denominators[j])
        value = rhs[i] * (below // divisors[i])
        for j in later:
            value -= row[j] * numerators[j] * (below // denominators[j])
        lead = row[i]
        if lead < 0:
            lead, value = -lead, -value
        below *= lead
        shared = math.gcd(value, below)
        if shared > 1:
            value //= shared
            below //= shared
        numerators[i], denominators[i] = value, below
    common = _common(denominators)
    visits = [0] * size
    for s in group:
        i = index[s]
        visits[position[s]] = numerators[i] * (common // denominators[i])
    return visits, common


def _banded(group: list[Any], transitions: dict[Any, dict[Any, Fraction]], members: set[Any]) -> list[Any]:
    """The group's states in breadth-first order from an end of it (Cuthill-McKee: neighbours
    with fewer links first), so that each state's links reach only a few places away."""
    links: dict[Any, set[Any]] = {s: set() for s in group}
    for s in group:
        for t in transitions[s]:
            if t in members and t != s:
                links[s].add(t)
                links[t].add(s)
    order = {s: i for i, s in enumerate(group)}

    def sweep(root: Any) -> list[Any]:
        seen = {root}
        found = [root]
        for state in found:
            for other in sorted(links[state] - seen, key=lambda o: (len(links[o]), order[o])):
                seen.add(other)
                found.append(other)
        return found

    start = min(group, key=lambda s: (len(links[s]), order[s]))
    found = sweep(sweep(start)[-1])
    if len(found) < len(group):  # not connected both ways (cannot happen in a group): keep it whole
        found += [s for s in group if s not in set(found)]
    return found


def _components(transitions: dict[Any, dict[Any, Fraction]]) -> list[list[Any]]:
    """Strongly connected components, each after every component it leads to (iterative Tarjan)."""
    order: dict[Any, int] = {}
    low: dict[Any, int] = {}
    on_stack: set[Any] = set()
    stack: list[Any] = []
    found: list[list[Any]] = []
    counter = 0
    for root in transitions:
        if root in order:
            continue
        work = [(root, iter([t for t in transitions[root] if _is_state(t)]))]
        order[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for target in successors:
                if target not in order:
                    order[target] = low[target] = counter
                    counter += 1
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter([t for t in transitions[target] if _is_state(t)])))
                    advanced = True
                    break
                if target in on_stack:
                    low[node] = min(low[node], order[target])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == order[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                found.append(group)
    return found


#: Items of new lists and records a chain's states may hold for the cost of one more state:
#: each run of a segment thaws, copies, hashes and compares them (Fire's damage of 1,000
#: rounds, a list of up to 1,000 numbers, made a state cost a millisecond).
_ITEMS_A_STATE = 4


def _items(value: Any) -> int:
    """The items of the lists and records in a value, nested ones too."""
    kind = type(value)
    if kind is tuple:
        return len(value) if SIMPLE.issuperset(map(type, value)) else len(value) + sum(map(_items, value))
    if kind is Record:
        return len(value) + sum(map(_items, value.values()))
    return 0


class _FoundStates:
    """The states a chain has found, explored or waiting, charged against ``max_states`` as
    they are found: every one found is explored, so a chain is refused as soon as the states
    it has found pass the limit, not once it has explored that many (Fire's states of a
    thousand rounds, each finding four more, were refused after exploring all 10,000).

    A state counts one, and one more for every ``_ITEMS_A_STATE`` items of the lists and
    records it holds that no state found before held (a list of damage that grows every
    round is new in every state; the list a loop walks, the same in each, counts once)."""

    __slots__ = ("charged", "counted", "items", "most", "numbered", "refuse", "states")

    def __init__(self, most: int, numbered: Sequence[Any], refuse: Callable[[], RunebookError]) -> None:
        self.most = most
        self.numbered = numbered
        self.refuse = refuse
        self.states: set[tuple[Any, ...]] = set()
        #: The items charged for each numbered set of values, and the lists and records charged.
        self.items: dict[int, int] = {}
        self.counted: set[Any] = set()
        self.charged = 0

    def add(self, state: tuple[Any, ...]) -> None:
        """Charge a state found (once however often it is found); refuse past the limit."""
        if state in self.states:
            return
        self.states.add(state)
        held = state[1]
        items = self.items.get(held)
        if items is None:
            items = self.items[held] = sum(map(self._new_items, self.numbered[held]))
        self.charged += 1 + items // _ITEMS_A_STATE
        if self.charged > self.most:
            raise self.refuse()

    def _new_items(self, named: tuple[str, Any]) -> int:
        value = named[1]
        if type(value) not in (tuple, Record) or value in self.counted:
            return 0
        self.counted.add(value)
        return _items(value)


def _too_many_states(most: int, states: Collection[tuple[Any, ...]], numbered: Sequence[Any], source: Any,
                     decl: Any) -> RunebookError:
    size = f"more than {most} states"
    if len(states) <= most:
        size += (f": {len(states):,} found, each counting one more for every {_ITEMS_A_STATE} items of the new lists "
                 "and records it holds")
    return RunebookError([Diagnostic.make("E0408", source, decl.name.span, size=size, limit=f"{most} states",
                                          help=_many_states_help(states, numbered))])


def _many_states_help(states: Iterable[tuple[Any, ...]], numbered: Sequence[Any]) -> str:
    """Help for a chain with too many states: the value held in the most different ways (a
    count of rounds that grows without end is the usual cause)."""
    seen: dict[str, set[Any]] = {}
    for state in states:
        for name, value in numbered[state[1]]:
            try:
                seen.setdefault(name, set()).add(value)
            except TypeError:  # a value that cannot be a key: told apart by how it prints
                seen.setdefault(name, set()).add(repr(value))
    widest = max(seen, key=lambda n: len(seen[n]), default=None)
    named = (f"'{widest}' takes {len(seen[widest])} values in the states found: "
             if widest is not None and len(seen[widest]) > 1 else "")
    return (f"{named}each value the rest of the run reads is part of a state, so one that grows every round "
            "makes new states without end; cap it, leave it out, or raise --limit max_states=N")
