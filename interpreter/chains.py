"""Exact odds of procedures: a procedure with finitely many states is a Markov chain.

A **state** is where a run stands at a ``step`` line: that line, the values the procedure
holds, and the resources and conditions of the entities taking part. From a state, the
lines up to the next ``step`` (or the end) are a **segment**; the exact joint distribution
of where a segment leads is computed by the one evaluator
(:func:`interpreter.distribution.joint`), so every roll inside it is exact. States are
explored breadth-first from the start; then the chance of ending with each set of results
is solved exactly, with fractions: strongly connected groups of states (a tie that repeats
a round, a loop between steps) are solved as small linear systems, in the order that
leaves every group's successors already known. Nothing is simulated.

Choice points need answers for odds: a fixed answer per choice name (``answers``), else
the first option. Values carried from one step to the next must be plain values (numbers,
levels, true/false, text); a record returned by a check lasts only within its segment.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from fractions import Fraction
from typing import Any

import attrs

from dsl.diagnostics import Diagnostic, RunebookError
from dsl.vocabulary import fold
from interpreter.dice import PoolSource
from interpreter.distribution import Distribution
from interpreter.evaluate import Context, MapEnv
from interpreter.procedures import ChoicePoint, Driver, run_segment
from interpreter.rules import CheckOdds
from interpreter.values import Bound, Level

__all__ = ["FixedDriver", "ProcedureOdds", "procedure_odds"]

#: How many states a procedure's chain may have before odds give up (with a diagnostic).
MAX_STATES = 5_000

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


def _plain(value: Any) -> bool:
    return value is None or type(value) in (int, bool, str, Fraction) or isinstance(value, Level | Bound)


def procedure_odds(rules: Any, procedure: Any, inputs: Mapping[str, Any], options: Mapping[str, Level],
                   roles: Mapping[str, Any], answers: Mapping[str, str] | None = None) -> ProcedureOdds:
    """Explore a procedure's states and solve its chain exactly."""
    decl, source = procedure.decl, procedure.source
    statements = decl.statements
    result_names = list(dict.fromkeys(s.name for s in statements if s.kind == "result"))
    driver = FixedDriver(answers)

    def entity_key(entities: Mapping[str, Any]) -> tuple[Hashable, ...]:
        return tuple(sorted((role, tuple(sorted(e.resources.items())), tuple(e.conditions))
                            for role, e in entities.items()))

    def segment(state: tuple[Any, ...]) -> Distribution:
        pc, held, entity_state = state

        def run(ctx: Context) -> tuple[Any, ...]:
            entities = {}
            for role, resources, conditions in entity_state:
                entity = roles[role].copy()
                entity.resources.clear()
                entity.resources.update(dict(resources))
                entity.conditions[:] = list(conditions)
                entities[role] = entity
            rules._active[id(ctx)] = (options, entities)
            try:
                scope = rules._scope(ctx, decl.params, inputs, options, entities, source)
                env = MapEnv(dict(held), parent=scope)
                rules.entry_views(scope, env)
                following = rules.in_world(ctx, lambda: run_segment(
                    rules, procedure.name, statements, source, ctx, env, driver, pc, {}, [], stop_at_step=True))
            finally:
                rules._active.pop(id(ctx), None)
            values = tuple(sorted((k, v) for k, v in env.mapping.items() if _plain(v)))
            if following is None:
                found = dict(values)
                return ("end", tuple(found.get(n) for n in result_names))
            return ("state", following, values, entity_key(entities))

        return rules.enumerate(run)

    start = (0, (), entity_key(roles))
    transitions: dict[tuple[Any, ...], dict[Any, Fraction]] = {}
    queue = [start]
    while queue:
        state = queue.pop()
        if state in transitions:
            continue
        if len(transitions) >= MAX_STATES:
            raise RunebookError([Diagnostic.make("E0408", source, decl.name.span, size=f"more than {MAX_STATES} states",
                                                 limit=f"{MAX_STATES} states")])
        dist = segment(state)
        edges: dict[Any, Fraction] = {}
        for outcome, p in dist.items():
            target = ("end", outcome[1]) if outcome[0] == "end" else outcome[1:]
            edges[target] = edges.get(target, Fraction(0)) + p
            if outcome[0] != "end" and target not in transitions:
                queue.append(target)
        if dist.residual:
            edges[_UNKNOWN] = edges.get(_UNKNOWN, Fraction(0)) + dist.residual
        transitions[state] = edges
    absorbed = _solve(transitions, source, decl)
    final = absorbed[start]
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


def _solve(transitions: dict[Any, dict[Any, Fraction]], source: Any, decl: Any) -> dict[Any, dict[Any, Fraction]]:
    """Absorption probabilities of every state, group by group (Tarjan's strongly connected
    components come out successors first)."""
    absorbed: dict[Any, dict[Any, Fraction]] = {}
    for group in _components(transitions):
        members = set(group)
        # Known part: ends, and states in groups already solved.
        known: dict[Any, dict[Any, Fraction]] = {}
        inner: dict[Any, dict[Any, Fraction]] = {}
        for state in group:
            rhs: dict[Any, Fraction] = {}
            loops: dict[Any, Fraction] = {}
            for target, p in transitions[state].items():
                if target in members:
                    loops[target] = loops.get(target, Fraction(0)) + p
                elif _is_state(target):
                    for end, q in absorbed[target].items():
                        rhs[end] = rhs.get(end, Fraction(0)) + p * q
                else:
                    rhs[target] = rhs.get(target, Fraction(0)) + p
            known[state], inner[state] = rhs, loops
        solution = _linear(group, inner, known)
        if solution is None:
            raise RunebookError([Diagnostic.make("E0614", source, decl.name.span)])
        absorbed.update(solution)
    return absorbed


def _linear(group: list[Any], inner: dict[Any, dict[Any, Fraction]],
            known: dict[Any, dict[Any, Fraction]]) -> dict[Any, dict[Any, Fraction]] | None:
    """Solve x_s - sum_t p(s,t) x_t = known_s over a group, exactly.

    Sparse Gauss-Jordan: a state leads to few others, so rows are dicts and only the rows
    that hold a column are touched when it is eliminated.
    """
    index = {s: i for i, s in enumerate(group)}
    rows: dict[int, dict[int, Fraction]] = {}
    rhs: dict[int, dict[Any, Fraction]] = {}
    holders: dict[int, set[int]] = {i: set() for i in range(len(group))}
    for s in group:
        i = index[s]
        row: dict[int, Fraction] = {i: Fraction(1)}
        for t, p in inner[s].items():
            j = index[t]
            row[j] = row.get(j, Fraction(0)) - p
        rows[i] = {j: v for j, v in row.items() if v}
        rhs[i] = dict(known[s])
        for j in rows[i]:
            holders[j].add(i)
    for col in range(len(group)):
        pivot = col if rows[col].get(col) else next((r for r in sorted(holders[col]) if r > col), None)
        if pivot is None or not rows[pivot].get(col):
            return None  # some states can never leave: the procedure may not end
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
            rhs[col] = {k: v / factor for k, v in rhs[col].items()}
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
            merged = rhs[r]
            for k, v in pivot_rhs.items():
                merged[k] = merged.get(k, Fraction(0)) - scale * v
    return {s: {k: v for k, v in rhs[index[s]].items() if v} for s in group}


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
