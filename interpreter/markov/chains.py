"""Exact odds of procedures: a procedure with finitely many states is a Markov chain.

A **state** is where a run stands at a ``step`` line: that line, the values the procedure
holds, and the resources and conditions of the entities taking part. From a state, the
lines up to the next ``step`` (or the end) are a **segment**; the exact joint distribution
of where a segment leads is computed by the one evaluator
(:func:`interpreter.core.distribution.joint`), so every roll inside it is exact. States are
explored breadth-first from the start; then the chance of ending with each set of results
is solved exactly, with fractions: probability flows forward from the start, and strongly
connected groups of states (a tie that repeats a round, a loop between steps) are solved as
small sparse linear systems of expected visits, in topological order. Nothing is simulated.

Choice points need answers for odds: a fixed answer per choice name (``answers``), else
the first option. Values carried from one step to the next must be plain values (numbers,
levels, true/false, text); a record returned by a check lasts only within its segment.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from fractions import Fraction
from typing import Any

import attrs

from runebook.dsl import ast
from runebook.dsl.diagnostics import Diagnostic, RunebookError
from runebook.dsl.flow import flow_of
from runebook.dsl.vocabulary import fold
from runebook.interpreter.core.dice import PoolSource
from runebook.interpreter.core.distribution import Distribution
from runebook.interpreter.core.evaluate import Context, MapEnv
from runebook.interpreter.core.limits import WorldForecast, limit_error
from runebook.interpreter.core.values import Bound, Level, Rating, Record
from runebook.interpreter.rules.procedures import ChoicePoint, Driver, run_segment
from runebook.interpreter.rules.results import CheckOdds

__all__ = ["FixedDriver", "ProcedureOdds", "procedure_odds"]

_UNKNOWN = ("unknown",)


class FixedDriver(Driver):
    """Answers each choice point by its name (``answers``), else with its first option."""

    def __init__(self, answers: Mapping[str, str] | None = None) -> None:
        self.answers = {fold(k): v for k, v in (answers or {}).items()}

    def choose(self, point: ChoicePoint) -> str:
        return self.answers.get(fold(point.name), point.options[0])


@attrs.frozen
class ProcedureOdds(CheckOdds):
    """The exact distribution of each result of a procedure, and how many states it has."""

    states: int = 0

    @property
    def name(self) -> str:
        return self.check

    def to_dict(self) -> dict[str, Any]:
        payload = super().to_dict()
        return {"procedure": payload.pop("check"), "states": self.states, **payload}


#: The types of values a state may carry from one step to the next.
_PLAIN_TYPES: frozenset[type] = frozenset({type(None), int, bool, str, Fraction, Level, Bound, Rating, Record})


@attrs.frozen
class _Member:
    """An entity taking part, as a state holds it: by its role (``actor``, ``target#2``)."""

    role: str


def _freeze(value: Any, refs: Mapping[int, str]) -> Any:
    """A value as a state keeps it: entities by their role, inside lists and records too."""
    kind = type(value)
    if kind is tuple:
        return tuple(_freeze(v, refs) for v in value) if any(type(v) not in _PLAIN_TYPES for v in value) else value
    if kind is Record:
        return Record({k: _freeze(v, refs) for k, v in value.items()})
    role = refs.get(id(value)) if kind not in _PLAIN_TYPES else None
    return _Member(role) if role is not None else value


def _thaw(value: Any, entities: Mapping[str, Any]) -> Any:
    kind = type(value)
    if kind is _Member:
        return entities[value.role]
    if kind is tuple:
        return tuple(_thaw(v, entities) for v in value) if any(type(v) in (_Member, tuple, Record) for v in value) \
            else value
    if kind is Record:
        return Record({k: _thaw(v, entities) for k, v in value.items()})
    return value


def _plain(value: Any) -> bool:
    """Whether a value can be part of a state: plain values, records, and lists of them."""
    kind = type(value)
    if kind is _Member:
        return True
    if kind in _PLAIN_TYPES:
        return kind is not Record or all(_plain(v) for v in value.values())
    if kind is tuple:
        return all(_plain(v) for v in value)
    return isinstance(value, Level | Bound)


def procedure_odds(rules: Any, procedure: Any, inputs: Mapping[str, Any], options: Mapping[str, Level],
                   roles: Mapping[str, Any], answers: Mapping[str, str] | None = None,
                   progress: Callable[[int], None] | None = None) -> ProcedureOdds:
    """Explore a procedure's states and solve its chain exactly; ``progress`` is told the
    number of states explored as each one is (a command line shows it for long runs)."""
    decl, source = procedure.decl, procedure.source
    statements = decl.statements
    result_names = list(dict.fromkeys(s.name for s in statements if isinstance(s, ast.ResultLine)))
    driver = FixedDriver(answers)
    flow = flow_of(statements)
    # Entries' lines read the procedure's values by name at run time, where no analysis
    # sees them: a procedure that takes an entry keeps every value in its states.
    kinds = rules.ruleset.vocabulary.kinds
    reads_entries = any(p.type and fold(p.type) in kinds for p in decl.params) or any(
        isinstance(s, ast.InputLine) and s.inlined is not None and s.inlined.param is not None
        and s.inlined.param.type and fold(s.inlined.param.type) in kinds for s in statements)
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

    def number(value: Any) -> int:
        found = numbers.get(value)
        if found is None:
            found = numbers[value] = len(numbered)
            numbered.append(value)
        return found

    def segment(state: tuple[Any, ...]) -> Distribution:
        pc, held_number, entity_number = state
        held, entity_state = numbered[held_number], numbered[entity_number]

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
                scope = rules._scope(ctx, decl.params, inputs, options, entities, source)
                env = MapEnv({k: _thaw(v, entities) for k, v in held}, parent=scope)
                rules.entry_views(scope, env)
                following = rules.in_world(ctx, lambda: run_segment(
                    rules, procedure.name, statements, source, ctx, env, driver, pc, {}, [], stop_at_step=True))
            finally:
                ctx.run.options = ctx.run.roles = None
            # An entity a value holds (a loop's member) is kept as the role it has.
            refs = {id(e): role for role, e in entities.items()}
            if following is not None and live is not None:
                # Only what the rest of the run may read is part of its state.
                needed = live[following]
                values = tuple(sorted((k, _freeze(v, refs)) for k, v in env.mapping.items()
                                      if fold(k) in needed and _plain(_freeze(v, refs))))
            else:
                values = tuple(sorted((k, _freeze(v, refs)) for k, v in env.mapping.items()
                                      if _plain(_freeze(v, refs))))
            if following is None:
                found = dict(values)
                return ("end", tuple(found.get(n) for n in result_names))
            return ("state", following, number(values), number(entity_key(entities)))

        return rules.enumerate(run)

    start = (0, number(()), number(entity_key(roles)))
    forecast = WorldForecast(rules.limits, (source, decl.name.span))
    transitions: dict[tuple[Any, ...], dict[Any, Fraction]] = {}
    queue = [start]
    while queue:
        state = queue.pop()
        if state in transitions:
            continue
        if len(transitions) >= rules.limits.max_states:
            most = rules.limits.max_states
            raise RunebookError([Diagnostic.make("E0408", source, decl.name.span, size=f"more than {most} states",
                                                 limit=f"{most} states")])
        if progress is not None:
            progress(len(transitions))
        before = worlds[0]
        dist = segment(state)
        forecast.explored(state, state[0], worlds[0] - before, worlds[0])
        edges: dict[Any, Fraction] = {}
        for outcome, p in dist.items():
            target = ("end", outcome[1]) if outcome[0] == "end" else outcome[1:]
            edges[target] = edges.get(target, Fraction(0)) + p
            if outcome[0] != "end" and target not in transitions:
                queue.append(target)
                forecast.queued(target, target[0])
        if dist.residual:
            edges[_UNKNOWN] = edges.get(_UNKNOWN, Fraction(0)) + dist.residual
        transitions[state] = edges
    final = _solve(transitions, start, source, decl)
    unknown = final.pop(_UNKNOWN, Fraction(0))
    outcomes = {key[1]: p for key, p in final.items()}
    together = Distribution(outcomes, unknown)
    marginals: dict[str, dict[Any, Fraction]] = {n: {} for n in result_names}
    for values, p in outcomes.items():
        for name, value in zip(result_names, values):
            marginals[name][value] = marginals[name].get(value, Fraction(0)) + p
    results = {n: Distribution(m, unknown) for n, m in marginals.items()}
    return ProcedureOdds(procedure.name, results, together, dict(inputs), {k: v.name for k, v in options.items()},
                         states=len(transitions))


def _is_state(key: Any) -> bool:
    return key != _UNKNOWN and key[0] != "end"


def _solve(transitions: dict[Any, dict[Any, Fraction]], start: Any, source: Any, decl: Any) -> dict[Any, Fraction]:
    """The probability of ending in each end (and of the unknown), exactly.

    Probability flows forward from the start, one strongly connected group of states at a
    time in topological order: within a group, the expected visits x of its states solve
    x = inflow + x Q (Q: moves inside the group), one scalar per state; what leaves the
    group flows on to the next groups and to the ends.
    """
    inflow: dict[Any, Fraction] = {start: Fraction(1)}
    ends: dict[Any, Fraction] = {}
    for group in reversed(_components(transitions)):
        entering = {s: inflow.pop(s, Fraction(0)) for s in group}
        if not any(entering.values()):
            continue
        members = set(group)
        visits = _visits(group, transitions, entering, members)
        if visits is None:
            raise RunebookError([Diagnostic.make("E0614", source, decl.name.span)])
        for state, times in visits.items():
            if not times:
                continue
            for target, p in transitions[state].items():
                if target in members:
                    continue
                bucket = inflow if _is_state(target) else ends
                bucket[target] = bucket.get(target, Fraction(0)) + times * p
    return ends


def _visits(group: list[Any], transitions: dict[Any, dict[Any, Fraction]], entering: dict[Any, Fraction],
            members: set[Any]) -> dict[Any, Fraction] | None:
    """Expected visits of each state of a group: x_t - sum_s x_s p(s,t) = entering_t, solved
    exactly by sparse elimination (a state leads to few others). None if the group never
    lets go of its probability (the procedure may not end)."""
    index = {s: i for i, s in enumerate(group)}
    if len(group) == 1:
        (state,) = group
        stay = transitions[state].get(state, Fraction(0))
        return None if stay == 1 else {state: entering[state] / (1 - stay)}
    rows: dict[int, dict[int, Fraction]] = {i: {i: Fraction(1)} for i in range(len(group))}
    rhs = [entering[s] for s in group]
    for s in group:
        for t, p in transitions[s].items():
            if t in members:
                row = rows[index[t]]
                row[index[s]] = row.get(index[s], Fraction(0)) - p
    holders: dict[int, set[int]] = {i: set() for i in range(len(group))}
    for i, row in rows.items():
        for j in [j for j, v in row.items() if not v]:
            del row[j]
        for j in row:
            holders[j].add(i)
    for col in range(len(group)):
        pivot = col if rows[col].get(col) else next((r for r in sorted(holders[col]) if r > col), None)
        if pivot is None or not rows[pivot].get(col):
            return None
        if pivot != col:
            for r in (col, pivot):
                for j in rows[r]:
                    holders[j].discard(r)
            rows[col], rows[pivot] = rows[pivot], rows[col]
            rhs[col], rhs[pivot] = rhs[pivot], rhs[col]
            for r in (col, pivot):
                for j in rows[r]:
                    holders[j].add(r)
        factor = rows[col][col]
        if factor != 1:
            rows[col] = {j: v / factor for j, v in rows[col].items()}
            rhs[col] /= factor
        pivot_row, pivot_rhs = rows[col], rhs[col]
        for r in list(holders[col]):
            if r == col:
                continue
            scale = rows[r][col]
            target = rows[r]
            for j, v in pivot_row.items():
                value = target.get(j, Fraction(0)) - scale * v
                if value:
                    if j not in target:
                        holders[j].add(r)
                    target[j] = value
                elif j in target:
                    del target[j]
                    holders[j].discard(r)
            rhs[r] -= scale * pivot_rhs
    return {s: rhs[index[s]] for s in group}


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
