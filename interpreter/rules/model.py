"""The rules layer: a game's mechanics, read from its declarations and run for any game.

:func:`load` turns a game's checked model (``dsl.model``: every name bound and checked
before anything runs) into :class:`Rules`: the runtime values of its options, levels,
tables, functions and checks. A check runs through one code path for all three semantics —
dice from a seeded ``random.Random``, faces a player gives, or every world of the exact
distribution (:func:`interpreter.core.distribution.joint`) — so a resolved roll and the odds
can never disagree about what the rules say.
"""

from __future__ import annotations

import functools
import os
import random
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import attrs

from runebook.dsl import ast
from runebook.dsl import expr_ast as ex
from runebook.dsl.builtins import host_functions
from runebook.dsl.checker import CheckedEntry, expression_names
from runebook.dsl.diagnostics import Diagnostic, RunebookError, did_you_mean
from runebook.dsl.loader import Ruleset, load_game, load_texts, probe
from runebook.dsl.model import GROUPS_OF_ROLES as GROUPS
from runebook.dsl.model import (
    INPUT_TYPES,
    ROLES,
    Check,
    CheckName,
    Condition,
    FunctionName,
    HostName,
    LevelName,
    Model,
    OptionName,
    Procedure,
    Resource,
    TableName,
    build_model,
    list_item_type,
)
from runebook.dsl.parser import parse_expression
from runebook.dsl.source import Source, Span
from runebook.dsl.vocabulary import fold
from runebook.interpreter.core.arguments import one_dice_source, require_text
from runebook.interpreter.core.dice import GivenOracle, PoolSource, RandomOracle
from runebook.interpreter.core.distribution import Distribution, joint
from runebook.interpreter.core.evaluate import (
    HOLDER,
    Context,
    MapEnv,
    compile_expression,
    normalize_name,
    pool_spec,
    resolve_value,
)
from runebook.interpreter.core.limits import DEFAULT_LIMITS, Limits, check_digits
from runebook.interpreter.core.trace import StepEvent, Trace
from runebook.interpreter.core.values import (
    Derived,
    Function,
    Level,
    Rating,
    Record,
    Table,
    Undetermined,
    format_value,
    json_value,
)
from runebook.interpreter.markov.chains import procedure_odds
from runebook.interpreter.markov.meet import same_in_every_world
from runebook.interpreter.rules.amendments import amended
from runebook.interpreter.rules.entities import Cap, Entity, Held, load_entities, load_entity, signed_rating
from runebook.interpreter.rules.entries import EntryView, line_value
from runebook.interpreter.rules.inline import ReadingEnv
from runebook.interpreter.rules.listed import entry_query
from runebook.interpreter.rules.memo import LineMemo, names_read
from runebook.interpreter.rules.procedures import (CallbackDriver, Chooser, Driver, NamedDriver, RunResult, ScriptedDriver,
                                                   run_lines, unknown_answers)
from runebook.interpreter.rules.results import CheckOdds, CheckResult
from runebook.interpreter.rules.runstate import RunState
from runebook.interpreter.rules.shown import run_show

__all__ = ["CheckOdds", "CheckResult", "Rules", "load", "load_text"]

def role_map(as_: Any, against: Any, *, copy: bool = False) -> dict[str, Any]:
    """The entities taking part, by role: ``actor``, ``actor#2``, ... and ``target``,
    ``target#2``, ...; ``as_`` and ``against`` are an entity or a list of them."""
    roles: dict[str, Any] = {}
    for role, given in (("actor", as_), ("target", against)):
        group = list(given) if isinstance(given, list | tuple) else [] if given is None else [given]
        for index, entity in enumerate(group):
            roles[role if index == 0 else f"{role}#{index + 1}"] = entity.copy() if copy else entity
    return roles


@attrs.frozen
class _InputRole:
    """An input given an entity (a `character` input): held as a role of its own, ``key``."""

    key: str


def _entity_inputs(bound: Mapping[str, Any], roles: Mapping[str, Any], *, copy: bool = False
                   ) -> tuple[dict[str, Any], dict[str, Any]]:
    """Inputs holding entities moved among the roles (keyed by the input's name), so that a
    run changes copies of them, and exact odds copy them in every world and keep their
    resources and conditions in each state, as they do the actor's and the target's."""
    inputs, held = dict(bound), dict(roles)
    for name, value in bound.items():
        if isinstance(value, Entity):
            key = name if name not in held else f"{name}#input"
            held[key] = value.copy() if copy else value
            inputs[name] = _InputRole(key)
    return inputs, held


def _first(given: Any) -> Any:
    """The first of the entities given for a role (one entity, or a list of them)."""
    if isinstance(given, list | tuple):
        return given[0] if given else None
    return given

_BOOLEAN_WORDS = {"true": True, "yes": True, "false": False, "no": False}


@attrs.frozen
class Option:
    """A house rule or reading of the rulebook: its choices and default."""

    name: str
    choices: tuple[Level, ...]
    default: Level


@attrs.frozen
class Example:
    """A use of a check that a ruleset shows (``example CHECK (inputs)``), with the lines that
    make it a test (``dice``, ``expect``: see interpreter.rules.examples)."""

    check: str
    inputs: dict[str, Any]
    lines: tuple[Any, ...] = ()
    source: Source | None = attrs.field(default=None, eq=False)
    span: Span | None = attrs.field(default=None, eq=False)


#: Names an embedder may pass as an input that belong elsewhere (no check's parameter has
#: the name): where each goes instead.
_NOT_INPUTS = {
    "limits": "limits belong to the loaded rules, not to one call: load(game, limits=Limits(...)) from "
              "Python, --limit NAME=N on the command line",
    "seed": "a seed is not an input: resolve and run take one (--seed N, seed=N from Python); exact odds "
            "need none, they follow every way the dice fall",
    "dice": "faces are not an input: resolve and run take them (--dice 3,5, dice=[3, 5] from Python); exact "
            "odds need none, they follow every way the dice fall",
    "rng": "a generator is not an input: resolve and run take rng=random.Random(...); exact odds need none, "
           "they follow every way the dice fall",
}


class Rules:
    """A game's mechanics, ready to resolve checks and compute their odds."""

    def __init__(self, ruleset: Ruleset | Model, limits: Limits = DEFAULT_LIMITS) -> None:
        model = ruleset if isinstance(ruleset, Model) else build_model(ruleset)
        self.model = model
        self.ruleset = model.ruleset
        self.name = model.ruleset.name
        self.limits = limits
        self.options: dict[str, Option] = {}
        self.checks: dict[str, Check] = {}
        self.examples: list[Example] = []
        self.procedures: dict[str, Procedure] = {}
        self.resources: dict[str, Resource] = {}
        self.derived: dict[str, tuple[str, ex.Expr, Source]] = {}
        # Nothing here changes per run (that is on each context: interpreter.rules.runstate), so
        # threads may share one Rules. The memos below only gain entries, each assigned
        # whole and never changed afterwards; threads racing on one key compute it twice and
        # both values are right (two closures compiled from one node behave as one, even
        # while exact odds run: see `World.folds`).
        # Compiled expressions, by node (see `compiled`).
        self._compiled_cache: dict[int, tuple[ex.Expr, Any]] = {}
        # Exact result distributions of checks called from procedures, per inputs: (record, chance).
        self._call_cache: dict[tuple[Any, ...], list[tuple[Any, Fraction]]] = {}
        # Procedures' lines compiled to closures, by their tuple of lines (procedures.program_of).
        self._programs: dict[int, tuple[Any, Any]] = {}
        # What each option of a choice stands for, by its line (procedures.choice_values).
        self._choice_values: dict[int, tuple[Any, Any]] = {}
        # A check's lines prepared for exact odds, by its lines (`_check_lines`).
        self._check_plans: dict[int, tuple[Any, Any]] = {}
        self.conditions: dict[str, Condition] = {}
        self.globals = MapEnv()
        self._build(model)
        # What the model's checks found (dsl.model): `load` refuses a ruleset with errors.
        self.diagnostics: tuple[Diagnostic, ...] = model.diagnostics

    # ---------------------------------------------------------------- building

    def _build(self, model: Model) -> None:
        """Runtime values for the names the model binds (nothing is checked here: dsl.model)."""
        self.uses = model.uses
        self.hidden = model.hidden
        self.conditions = dict(model.conditions)
        self.resources = dict(model.resources)
        self.derived = dict(model.derived)
        self.checks = dict(model.checks)
        self.procedures = dict(model.procedures)
        for key, option in model.options.items():
            choices = tuple(Level(option.name, n, i, option.choices) for i, n in enumerate(option.choices))
            self.options[key] = Option(option.name, choices, choices[option.default])
        for name, named in model.values:
            self.globals.define(name, _RUNTIME[type(named)](self, named))
        for example in model.examples:
            self.examples.append(Example(example.check, {name: _literal(expr, self.globals)
                                                         for name, expr in example.args},
                                         example.lines, example.source, example.span))

    def _option_setting(self, named: OptionName) -> OptionSetting:
        return OptionSetting(self, named.option.name, self.options[fold(named.option.name)].default)

    def _table(self, named: TableName) -> Table:
        rows = []
        for row_key, written, value in named.rows:
            if isinstance(value, ex.Number):
                rows.append((row_key, value.value))
            else:
                rows.append((row_key, Derived(f"{named.name}[{written}]", value, self.globals, named.source)))
        return Table(named.name, tuple(rows))

    def options_names(self) -> list[str]:
        return [o.name for o in self.options.values()]

    # ---------------------------------------------------------------- running

    def check(self, name: str) -> Check:
        """A check by name (any case, spaces, hyphens or underscores)."""
        found = self.checks.get(fold(require_text(name, "a check's name")))
        if found is None:
            names = [c.name for c in self.checks.values()]
            procedure = self.procedures.get(fold(name))
            raise RunebookError([Diagnostic.make(
                "E0601", None, None, name=name,
                help=f"'{procedure.name}' is a procedure, not a check: run it with "
                     f"'runebook run GAME \"{procedure.name}\"' (rules.run from Python)"
                if procedure is not None else
                did_you_mean(name, names) or (f"checks in {self.name}: {', '.join(names)}" if names
                                              else f"{self.name} declares no checks"))])
        return found

    def entity(self, path: str) -> Entity:
        """Load a character, NPC or obstacle file against this game's stats, resources and
        conditions; resources it does not list start at their declared start."""
        return self._prepared(load_entity(path, self.ruleset.vocabulary, [r.name for r in self.resources.values()],
                                          [c.name for c in self.conditions.values()], bind=self._bind_held,
                                          caps=self._caps))

    def entities(self, path: str) -> list[Entity]:
        """The entities of a file: one, or each of a YAML list of them (a party)."""
        found = load_entities(path, self.ruleset.vocabulary, [r.name for r in self.resources.values()],
                              [c.name for c in self.conditions.values()], bind=self._bind_held, caps=self._caps)
        return [self._prepared(entity) for entity in found]

    def taking_part(self, given: Any, role: str = "as_") -> Any:
        """The entity (or list of them) given for ``as_`` or ``against``: entities as they
        are, and a path (``str`` or ``os.PathLike``) read as a character file (a party file
        gives its list). Anything else is a ``TypeError`` naming what the role takes."""
        if given is None or isinstance(given, Entity):
            return given
        if isinstance(given, str | os.PathLike):
            found = self.entities(os.fspath(given))
            return found[0] if len(found) == 1 else found
        if isinstance(given, list | tuple):
            group: list[Any] = []
            for item in given:
                one = self.taking_part(item, role)
                group.extend(one if isinstance(one, list) else [one])
            return group
        raise TypeError(f"{role} takes an entity (rules.entity(path)), the path of a character file, "
                        f"or a list of them, not {type(given).__name__}")

    def _prepared(self, entity: Any) -> Any:
        """An entity as read, with its conditions merged, its derived values and every
        resource at its start."""
        held: list[Any] = []
        for instance in entity.conditions:  # a file that lists one condition twice holds it once
            condition = self.conditions[fold(instance.name)]
            if "stacks" in condition.settings:
                if sum(1 for c in held if c.name == condition.name) < self._stacks(condition, entity):
                    held.append(instance)
            else:
                _merge(condition, held, instance)
        entity.conditions[:] = held
        entity.derived.update(self._own(entity)[1])
        for resource in self.resources.values():
            if resource.name not in entity.resources:
                start = resource.settings.get("start") or resource.settings.get("cap")
                if start is not None and self._lacks_stats(start, entity):
                    continue  # its start reads stats this entity does not have: it holds none
                entity.resources[resource.name] = self._owner_value(start, entity, resource.source) if start else 0
        return entity

    def _own(self, entity: Entity) -> tuple[MapEnv, dict[str, Derived]]:
        """An entity's own names over the globals: its stats, and the values the game derives
        from them (those its file does not give as stats; a prepared entity's own)."""
        own = MapEnv(dict(entity.stats), parent=self.globals)
        own.define(HOLDER, entity)  # a derived value reading a stat the file lacks says so
        derived: dict[str, Derived] = {}
        given = {fold(s) for s in entity.stats}
        for name, expr, source in self.derived.values():
            if fold(name) not in given:  # a stat the file gives wins
                derived[name] = entity.derived.get(name) or Derived(name, expr, own, source)
                own.define(name, derived[name])
        return own, derived

    def _caps(self, entity: Entity) -> dict[str, Cap]:
        """The cap of each capped resource for an entity as its file gives it (its stats and
        the values derived from them), or the diagnostic that stopped it: a file's resources
        are checked against them (entities.load_entity)."""
        own = self._own(entity)[0]

        def value(expr: ex.Expr, source: Source) -> Any:
            return self._owner_value(expr, entity, source, own)

        caps: dict[str, Cap] = {}
        for resource in self.resources.values():
            cap = resource.settings.get("cap")
            if cap is None:
                continue
            try:
                caps[resource.name] = Cap(str(cap), value(cap, resource.source))
            except RunebookError as error:
                start = resource.settings.get("start")
                try:
                    begun = value(start, resource.source) if start is not None else None
                except RunebookError:
                    begun = None
                caps[resource.name] = Cap(str(cap), failure=error.diagnostics[0], start=begun)
        return caps

    def _lacks_stats(self, expr: ex.Expr, owner: Any) -> bool:
        """Whether an expression names a stat of the game that the owner's file does not give."""
        have = {fold(s) for s in owner.stats}
        for node in expression_names(expr):
            if isinstance(node, ex.Name) and fold(node.text) in self.ruleset.vocabulary.stats \
                    and fold(node.text) not in have:
                return True
        return False

    def _owner_value(self, expr: ex.Expr, owner: Any, source: Source, env: MapEnv | None = None) -> Any:
        """A setting such as a cap, computed from its owner's stats and the values the game
        derives from them (``cap = Max HP`` where ``derive Max HP = Body * 2``); ``env``: the
        owner's names when the caller has them already (:meth:`_own`)."""
        ctx = Context(limits=self.limits)
        if env is None:
            env = self._own(owner)[0] if owner is not None else MapEnv({}, parent=self.globals)
        return ctx.result(ctx.evaluate(self.compiled(expr, source), env))

    def change_state(self, ctx: Context, statement: ast.Statement, source: Source, env: MapEnv) -> None:
        """Run a `spend`, `gain`, `apply`, `remove` or `reset` line against the entities taking part."""
        roles = (ctx.run.roles if ctx.run is not None else None) or {}
        if isinstance(statement, ast.ResetLine):
            for entity in roles.values():
                for resource in self.resources.values():
                    reset = resource.settings.get("reset")
                    if isinstance(reset, ex.Name) and fold(reset.text) == fold(statement.name):
                        start = resource.settings.get("start") or resource.settings.get("cap")
                        entity.resources[resource.name] = self._owner_value(start, entity, resource.source)
                self._expire(entity, statement.name)
            self._note(ctx, f"reset {statement.name}", None, statement, source)
            return
        role = statement.on or "actor"
        entity = roles.get(role) if role in ROLES else _entity_named(env, role, source, statement.span)
        if entity is None:
            raise RunebookError([Diagnostic.make("E0707", source, statement.span, role=role,
                                                 flag="--as" if role == "actor" else "--against")])
        if isinstance(statement, ast.Amount):
            resource = self.resources[fold(statement.name)]
            assert statement.expr is not None
            amount = ctx.result(ctx.evaluate(self.compiled(statement.expr, source), env))
            if not (type(amount) in (int, Fraction) and amount >= 0):
                # A negative spend would add points past the cap, a negative gain take them
                # below 0: the other line says what is meant.
                other = "gain" if isinstance(statement, ast.SpendLine) else "spend"
                raise RunebookError([Diagnostic.make(
                    "E0603", source, statement.span, name=f"{statement.keyword} {resource.name}",
                    expected="an amount of 0 or more", value=_shown(amount),
                    help=f"to {'add' if other == 'gain' else 'take away'} points, write '{other} {resource.name} ...'")])
            held = entity.resources.get(resource.name, 0)
            if isinstance(statement, ast.SpendLine):
                if held < amount:
                    raise RunebookError([Diagnostic.make("E0706", source, statement.span, name=entity.name,
                                                         amount=amount, resource=resource.name, held=held)])
                entity.resources[resource.name] = held - amount
            else:
                cap = resource.settings.get("cap")
                top = self._owner_value(cap, entity, resource.source) if cap is not None else None
                entity.resources[resource.name] = held + amount if top is None else min(top, held + amount)
            self._note(ctx, f"{statement.keyword} {resource.name} {amount} ({entity.name})",
                       entity.resources[resource.name], statement, source)
            return
        condition = self.conditions[fold(statement.name)]
        values = [ctx.result(ctx.evaluate(self.compiled(a, source), env)) for a in statement.args or ()]
        if isinstance(statement, ast.ApplyLine):
            left = None
            if statement.duration is not None:
                count = ctx.result(ctx.evaluate(self.compiled(statement.duration[0], source), env))
                if type(count) is not int:
                    raise RunebookError([Diagnostic.make("E0603", source, statement.span, name="for",
                                                         expected="a whole number", value=_shown(count))])
                left = (count, statement.duration[1])
            held = self.held(condition, values, left, (source, statement.span))
            if "stacks" in condition.settings:
                if sum(1 for c in entity.conditions if c.name == condition.name) < self._stacks(condition, entity):
                    entity.conditions.append(held)  # held once, unless it stacks
            else:
                _merge(condition, entity.conditions, held)
        elif isinstance(statement, ast.RemoveLine):
            keys = [(p.name, v) for p, v in zip(condition.keys, values)]
            gone = [c for c in entity.conditions if c.name == condition.name
                    and all(_same(c.arg(k), v) for k, v in keys)]
            for held in gone[:1] if "stacks" in condition.settings else gone:
                entity.conditions.remove(held)  # one instance of a stacking condition; else all that match
        self._note(ctx, f"{statement.keyword} {condition.name} ({entity.name})", [str(c) for c in entity.conditions],
                   statement, source)

    def held(self, condition: Condition, values: Sequence[Any], left: tuple[int, str] | None = None,
             site: Any = (None, None)) -> Any:
        """A condition instance: ``values`` bound to its parameters in order, the rest at their
        defaults."""
        args: list[tuple[str, Any]] = []
        for index, param in enumerate(condition.params):
            if index < len(values):
                value = values[index]
            elif param.default is not None:
                value = ctx_free(self, param.default, condition.source)
            else:
                raise RunebookError([Diagnostic.make("E0602", site[0], site[1], name=param.name,
                                                     check=condition.name)])
            if condition.is_amount(param) and type(value) not in (int, Fraction):
                raise RunebookError([Diagnostic.make("E0603", site[0], site[1], name=param.name,
                                                     expected="a number", value=_shown(value))])
            group = self._level_group(param)
            if group is not None and not (isinstance(value, Level) and fold(value.group) == fold(group)):
                raise RunebookError([Diagnostic.make("E0603", site[0], site[1], name=param.name,
                                                     expected=f"a level of '{group}'", value=_shown(value))])
            args.append((param.name, value))
        # Shown as applied: the values given, not the defaults filled in after them.
        return Held(condition.name, tuple(args), left, min(len(values), len(args)))

    def _bind_held(self, name: str, values: list[Any]) -> Any:
        """For entity files: a condition with its values, or what is wrong with them."""
        condition = self.conditions[fold(name)]
        shown = f"{condition.name}({', '.join(p.name for p in condition.params)})"
        needed = [p for p in condition.params if p.default is None]
        if len(values) > len(condition.params) or len(values) < len(needed):
            return f"{len(needed)}" + (f" to {len(condition.params)}" if len(needed) != len(condition.params) else "") \
                + f" value(s): '{shown}'"
        values = list(values)
        for index, (param, value) in enumerate(zip(condition.params, values)):
            if condition.is_amount(param) and type(value) is not int:
                return f"a number for {param.name}: '{shown}'"
            group = self._level_group(param)
            if group is not None:
                try:
                    level = self.globals.lookup(str(value))
                except KeyError:
                    level = None
                if not (isinstance(level, Level) and fold(level.group) == fold(group)):
                    return f"one of {', '.join(self._group_names(group))} for {param.name}"
                values[index] = level
        return self.held(condition, values)

    def _level_group(self, param: ast.Param) -> str | None:
        """The levels group a parameter is typed by (`kind: Element`), if any."""
        if param.type is None or param.type in INPUT_TYPES:
            return None
        return param.type

    def _group_names(self, group: str) -> list[str]:
        names = []
        for name in self.globals.names():
            value = self.globals.lookup(name)
            if isinstance(value, Level) and fold(value.group) == fold(group) and value.name not in names:
                names.append(value.name)
        return names

    def _expire(self, entity: Any, event: str) -> None:
        """`reset EVENT`: conditions that last until it end; those applied `for N EVENTs`
        count one down and end at zero."""
        for held in list(entity.conditions):
            lasts = self.conditions[fold(held.name)].settings.get("lasts")
            index = entity.conditions.index(held)
            if held.left is not None:
                if _event(held.left[1]) == _event(event):
                    if held.left[0] <= 1:
                        del entity.conditions[index]
                    else:
                        entity.conditions[index] = attrs.evolve(held, left=(held.left[0] - 1, held.left[1]))
            elif isinstance(lasts, ex.Name) and _event(lasts.text) == _event(event):
                del entity.conditions[index]

    def under(self, entity: Any) -> list[tuple[Any, Condition]]:
        """Every condition an entity is under: those it holds, then those they imply (each
        once, with its defaults), in order."""
        held = [h if isinstance(h, Held) else Held(str(h)) for h in entity.conditions]  # a bare name is held too
        found: list[tuple[Any, Condition]] = [(h, self.conditions[fold(h.name)]) for h in held]
        names = {fold(h.name) for h in held}
        index = 0
        while index < len(found):
            for line in found[index][1].lines(ast.ImpliesLine):
                implied = self.conditions.get(fold(line.name))
                if implied is not None and fold(implied.name) not in names:
                    names.add(fold(implied.name))
                    found.append((self.held(implied, []) if implied.params else Held(implied.name), implied))
            index += 1
        return found

    def _line_env(self, entity: Any, held: Any) -> MapEnv:
        """Where a condition's lines are evaluated: its holder's stats, its parameters, `holder`."""
        return MapEnv({**dict(entity.stats), **dict(entity.derived), **dict(held.args), "holder": entity},
                      parent=self.globals)

    def stat(self, ctx: Context, entity: Any, stat: str, site: Any = (None, None)) -> Any:
        """A stat as the entity's conditions leave it: its value plus `modifier`, unless a
        condition's `becomes` line sets it (several such lines: the lowest value wins, as the
        most restrictive)."""
        try:
            value = entity.lookup(stat)
        except KeyError:
            near = did_you_mean(stat, [s for s in [*entity.stats, *self.ruleset.vocabulary.stats.values()]
                                       if fold(s) != fold(stat)])
            raise RunebookError([Diagnostic.make("E0701", site[0], site[1], name=stat,
                                                 help=f"{entity.name} has no such stat"
                                                 + (f"; {near}" if near else ""))]) from None
        value = ctx.result(resolve_value(value, stat, ctx, site))
        key = f"stat({entity.name}, {stat})"
        if key in ctx.active:  # a `becomes` line that reads the stat it sets
            raise RunebookError([Diagnostic.make("E0416", site[0], site[1], name=key)])
        ctx.active.add(key)
        try:
            overrides = []
            for held, condition in self.under(entity):
                for line in condition.lines(ast.BecomesLine):
                    if fold(line.name) == fold(stat):
                        assert line.expr is not None
                        overrides.append(ctx.result(ctx.evaluate(self.compiled(line.expr, condition.source),
                                                                 self._line_env(entity, held))))
            return min(overrides) if overrides else value + self.modifier(ctx, entity, stat)
        finally:
            ctx.active.discard(key)

    def amount(self, entity: Any, name: str, keys: Sequence[Any]) -> Any:
        """The amount (first number parameter) of the condition the entity is under whose
        other parameters equal ``keys`` (those given, in order); the largest if several; 0 if
        none."""
        best: Any = None
        for held, condition in self.under(entity):
            if fold(condition.name) != fold(name):
                continue
            if not all(_same(held.arg(p.name), k) for p, k in zip(condition.keys, keys)):
                continue
            amounts = [held.arg(p.name) for p in condition.params if condition.is_amount(p)]
            if amounts:
                best = amounts[0] if best is None else max(best, amounts[0])
        return 0 if best is None else best

    def _stacks(self, condition: Condition, entity: Any) -> int:
        """How many times an entity may hold a condition: its `stacks` setting (1 without)."""
        limit = condition.settings.get("stacks")
        return 1 if limit is None else int(self._owner_value(limit, entity, condition.source))

    def _note(self, ctx: Context, text: str, value: Any, statement: ast.Statement, source: Source) -> None:
        if ctx.trace is not None:
            ctx.trace.append(StepEvent("state", text, json_value(value), statement.span, source.name))

    def modifier(self, ctx: Context, entity: Any, stat: str) -> Any:
        """The total modifier an entity's conditions give a stat, by `option stacking`
        (sum by default; `highest`; `extremes`: highest bonus plus lowest penalty;
        `by_type`: the highest of each condition type, summed)."""
        found: list[tuple[str, Any]] = []
        for held, condition in self.under(entity):
            for line in condition.lines(ast.ModifierLine):
                if fold(line.name) == fold(stat):
                    assert line.expr is not None
                    env = self._line_env(entity, held)
                    value = ctx.result(ctx.evaluate(self.compiled(line.expr, condition.source), env))
                    kind = condition.settings.get("type")
                    found.append((kind.text if isinstance(kind, ex.Name) else condition.name, value))
        option = self.options.get(fold("stacking"))
        policy = fold(_option(ctx, option.name, option.default).name) if option else "sum"
        values = [v for _, v in found]
        if not values:
            return 0
        if policy == "highest":
            return max(values)
        if policy == "extremes":
            return max([v for v in values if v > 0], default=0) + min([v for v in values if v < 0], default=0)
        if policy == "bytype":
            by_type: dict[str, Any] = {}
            for kind, value in found:
                by_type[kind] = max(by_type.get(kind, value), value)
            return sum(by_type.values())
        return sum(values)

    def option_values(self, chosen: Mapping[str, str] | None) -> dict[str, Level]:
        """Every option at its default, except those ``chosen`` (name → choice)."""
        values = {o.name: o.default for o in self.options.values()}
        problems = []
        if chosen is not None and not isinstance(chosen, Mapping):
            raise TypeError(f"options takes a mapping of option names to choices, not {type(chosen).__name__}")
        for name, choice in (chosen or {}).items():
            option = self.options.get(fold(name))
            if option is None:
                names = self.options_names()
                problems.append(Diagnostic.make("E0605", None, None, name=name, help=did_you_mean(str(name), names) or (
                    f"options of {self.name}: {', '.join(names)}" if names else f"{self.name} declares no options")))
                continue
            match = [c for c in option.choices if fold(c.name) == fold(str(choice))]
            if not match:
                problems.append(Diagnostic.make("E0606", None, None, name=option.name, value=choice,
                                                allowed=", ".join(c.name for c in option.choices)))
                continue
            values[option.name] = match[0]
        if problems:
            raise RunebookError(problems)
        return values

    def bind_inputs(self, check: Check, given: Mapping[str, Any], actor: Any = None) -> dict[str, Any]:
        """Validate the inputs against the check's parameters; the actor's stats of the same
        name, then the defaults, fill the rest."""
        problems: list[Diagnostic] = []
        values: dict[str, Any] = {}
        offered: set[str] = set()
        for name, value in given.items():
            param = check.param(name)
            if param is None:
                problems.append(Diagnostic.make(
                    "E0604", None, None, name=name, check=check.name,
                    help=did_you_mean(name, [p.name for p in check.decl.params]) or _NOT_INPUTS.get(name)
                    or f"inputs: {', '.join(p.name for p in check.decl.params)}"))
                continue
            offered.add(param.name)
            before = len(problems)
            converted = self._convert(param, value, check, problems)
            if converted is not None:
                values[param.name] = converted
            elif len(problems) == before + 1 and problems[-1].code == "E0603" and actor is not None \
                    and isinstance(value, str):
                problems[-1] = _as_actors_stat(problems[-1], param.name, value, actor)
        for param in check.decl.params:
            if param.name in values or param.name in offered:
                continue
            if actor is not None:
                try:
                    values[param.name] = actor.lookup(param.name)
                    continue
                except KeyError:
                    pass
            if param.default is None:
                problems.append(Diagnostic.make("E0602", None, None, name=param.name, check=check.name,
                                                help=f"give it with --with {param.name}=VALUE"))
        if problems:
            raise RunebookError(problems)
        return values

    def _convert(self, param: ast.Param, value: Any, check: Check, problems: list[Diagnostic]) -> Any:
        if param.type is not None and fold(param.type) == "character":
            return self._character(param, value, problems)
        if value is None:
            # Not "left out": an input given as None would otherwise vanish, and the check would
            # fail later on a name it cannot find.
            problems.append(Diagnostic.make(
                "E0603", None, None, name=param.name, expected=_EXPECTED.get(fold(param.type or ""), "a value"),
                value="None", help="leave the input out to use its default" if param.default is not None
                else f"'{param.name}' has no default: give it a value"))
            return None
        if type(value) is float:
            problems.append(Diagnostic.make(
                "E0603", None, None, name=param.name, expected="a whole number or an exact fraction",
                value=repr(value), help="a float is not exact: give an int, a Fraction (Fraction(3, 2)) or "
                                        "the text of the number ('1.5')"))
            return None
        if type(value) in (int, Fraction):
            # A number from Python is not read from text (E0119), so its size is checked here:
            # one of thousands of digits would otherwise reach results that cannot be printed.
            try:
                check_digits(value, self.limits, None)
            except RunebookError as error:
                problems.extend(attrs.evolve(d, help=f"the input '{param.name}' is too large; {d.help}") for d in error.diagnostics)
                return None
        if type(value) in (list, dict, tuple):
            value = _from_python(value)
        item_type = list_item_type(param.type)
        if item_type is not None:
            return self._convert_list(param, item_type, value, check, problems)
        if param.type is not None and fold(param.type) == "boolean":
            if type(value) is bool:
                return value
            if isinstance(value, str) and fold(value) in _BOOLEAN_WORDS:
                return _BOOLEAN_WORDS[fold(value)]
            problems.append(Diagnostic.make("E0603", None, None, name=param.name, expected="true or false",
                                            value=_shown(value), help="give true or false (yes and no also do)"))
            return None
        if isinstance(value, str) and (named := _named_level(value, self.globals)) is not None:
            value = named
        elif isinstance(value, str):
            try:
                value = _literal(parse_expression(value, Source(f"--with {param.name}", value)), self.globals)
            except RunebookError as error:
                problems.extend(error.diagnostics)
                return None
        kind = param.type
        if kind is None and isinstance(param.default, ex.Number | ex.Unary | ex.Decimal):
            kind = "number"  # an input whose default is a number takes numbers
        ok = True
        if kind == "number":
            ok = type(value) in (int, Fraction)
        elif kind == "rating":
            ok = type(value) is int or (isinstance(value, Rating) and self._rating_symbol_ok(value))
        elif kind == "text":
            if isinstance(value, Level):  # a word that happens to name a level is still the word
                value = value.name
            ok = isinstance(value, str)
        elif kind is not None and fold(kind) in self.ruleset.vocabulary.kinds:
            entry = self.ruleset.entry(str(value))
            if entry is None or fold(entry.kind or "") != fold(kind):
                names = [e.entry.name for e in self.ruleset.entries if fold(e.kind or "") == fold(kind)]
                problems.append(Diagnostic.make("E0213", None, None, name=str(value),
                                                help=did_you_mean(str(value), names)
                                                or f"no {kind} of that name in {self.name}"))
                return None
            return entry
        elif kind is not None:
            ok = isinstance(value, Level) and fold(value.group) == fold(kind)
        if not ok:
            expected = {"number": "a number", "rating": "a rating" + self._rating_hint(),
                        "text": "text"}.get(kind or "", f"a level of '{kind}'")
            names = self._level_names(kind) if kind is not None and kind not in ("number", "rating", "text") else ()
            help = (did_you_mean(str(value), list(names)) or f"'{kind}' is one of: {', '.join(names)}") if names else None
            problems.append(Diagnostic.make("E0603", None, None, name=param.name, expected=expected,
                                            value=_shown(value), help=help))
            return None
        return value

    def _level_names(self, group: str) -> tuple[str, ...]:
        """The levels of a group the game declares, lowest first (none for a name of no group)."""
        for value in self.globals.mapping.values():
            if isinstance(value, Level) and fold(value.group) == fold(group) and value.names:
                return value.names
        return ()

    def _character(self, param: ast.Param, value: Any, problems: list[Diagnostic]) -> Any:
        """A `character` input: an entity, or the path of a character file (one character)."""
        if isinstance(value, Entity):
            return value
        if isinstance(value, str | os.PathLike) and os.fspath(value).endswith((".yaml", ".yml")):
            try:
                found = self.entities(os.fspath(value))
            except RunebookError as error:
                problems.extend(error.diagnostics)
                return None
            if len(found) == 1:
                return found[0]
        problems.append(Diagnostic.make("E0603", None, None, name=param.name, expected="a character",
                                        value=_shown(value), help=f"give a character file: --with {param.name}="
                                        "FILE.yaml (in Python, an entity: rules.entity(path))"))
        return None

    def _convert_list(self, param: ast.Param, item_type: str, value: Any, check: Check,
                      problems: list[Diagnostic]) -> Any:
        """A list input: a Python list or tuple, or text such as ``15, 12, 17`` or ``[15, 12]``
        (``--with heroes=15,12,17``); each item converted as an input of the item type."""
        where = f"--with {param.name}"
        if isinstance(value, str):
            text = value.strip()
            text = text if text.startswith("[") else f"[{text}]"
            try:
                parsed = parse_expression(text, Source(where, text))
            except RunebookError as error:
                problems.extend(error.diagnostics)
                return None
            if not isinstance(parsed, ex.ListOf):
                problems.append(Diagnostic.make("E0603", None, None, name=param.name, expected="a list",
                                                value=value, help="give the items separated by commas: 15,12,17"))
                return None
            items: list[Any] = []
            for node in parsed.items:
                named = _named_level(_text_of(node, text), self.globals)
                if named is not None:
                    items.append(named)
                    continue
                try:
                    items.append(_literal(node, self.globals))
                except RunebookError as error:
                    problems.extend(error.diagnostics)
                    return None
        elif isinstance(value, list | tuple):
            items = list(value)
        else:
            problems.append(Diagnostic.make("E0603", None, None, name=param.name, expected=f"a list of {item_type}",
                                            value=_shown(value), help="give the items separated by commas"))
            return None
        if len(items) > self.limits.max_collection:
            problems.append(Diagnostic.make("E0901", None, None, what=f"a list of {len(items)} items for "
                                            f"'{param.name}'", limit=self.limits.max_collection))
            return None
        inner = attrs.evolve(param, name=param.name, type=item_type if item_type != "any" else None)
        converted = []
        for index, item in enumerate(items):
            found: list[Diagnostic] = []
            value = self._convert(inner, item, check, found) if item_type != "any" else item
            if found:
                problems.extend(attrs.evolve(d, message=f"{d.message} (item {index + 1} of '{param.name}')")
                                for d in found)
                return None
            converted.append(value)
        return tuple(converted)

    def _rating_symbols(self) -> tuple[str, ...]:
        option = self.options.get(fold("rating symbol"))
        return tuple(c.name for c in option.choices) if option else ()

    def _rating_symbol_ok(self, rating: Rating) -> bool:
        symbols = self._rating_symbols()
        return not symbols or rating.symbol in symbols

    def _rating_hint(self) -> str:
        symbols = self._rating_symbols()
        return f" (a number, or a number with {' or '.join(symbols)})" if symbols else ""

    def _scope(self, ctx: Context, params: Sequence[ast.Param], inputs: Mapping[str, Any],
               options: Mapping[str, Level], roles: Mapping[str, Any] | None, source: Source) -> MapEnv:
        # A bare stat name is the actor's stat, as in content brackets ([Attack + Strength]).
        actor = (roles or {}).get("actor")
        stats = MapEnv({**dict(actor.stats), **dict(actor.derived)} if actor is not None else self._unheld_stats,
                       parent=self.globals)
        if actor is not None:
            stats.define(HOLDER, actor)  # a stat the actor's file lacks: "'Itzel' has no 'Speed'"
        present: dict[str, Any] = {role: MissingRole(role) for role in ROLES}
        for role, group in zip(ROLES, GROUPS):
            members = tuple(e for key, e in (roles or {}).items() if key.split("#")[0] == role)
            if members:
                present[role] = members[0]
            present[group] = members
        scope = MapEnv({**dict(options), **present}, parent=stats)
        for param in params:
            if param.name in inputs:
                value = inputs[param.name]
                scope.define(param.name, (roles or {})[value.key] if type(value) is _InputRole else value)
            elif param.default is not None:
                scope.define(param.name, ctx.result(ctx.evaluate(self.compiled(param.default, source), scope)))
        return scope

    @functools.cached_property
    def _unheld_stats(self) -> dict[str, UnheldStat]:
        """The game's stats and derived values as a run without an actor sees them: reading
        one asks for the actor (E0707), where an unknown name (E0207) would mislead."""
        names = [*self.ruleset.vocabulary.stats.values(), *(name for name, _, _ in self.derived.values())]
        unheld = {}
        for name in names:
            try:
                self.globals.lookup(name)
            except KeyError:
                unheld[name] = UnheldStat(name)
        return unheld

    def entry_views(self, scope: MapEnv, env: MapEnv, ctx: Context | None = None) -> None:
        """Entries given as inputs become views whose lines evaluate in ``env``, changed
        by the entries the actor owns that amend it (interpreter.rules.amendments; each change is traced)."""
        actor = scope.mapping.get("actor")
        for name, value in list(scope.mapping.items()):
            if isinstance(value, CheckedEntry):
                kind = self.ruleset.vocabulary.kinds.get(fold(value.kind or ""))
                entry, changes = amended(self, value, actor if not isinstance(actor, MissingRole) else None)
                if ctx is not None and ctx.trace is not None:
                    for patch, line in changes:
                        ctx.trace.append(StepEvent("amend", f"{patch.by} -> {value.entry.name}", line,
                                                   patch.prop.span, patch.source.name))
                scope.define(name, EntryView(entry, kind, ReadingEnv(env), value.source))

    def run_statement(self, ctx: Context, statement: ast.Statement, source: Source, env: MapEnv,
                      index: int = 0, owner: str = "") -> Any:
        """Run one ``roll``/``let``/``set``/``result``/``require`` line; returns the value it binds."""
        return VALUE_LINES[type(statement)](self, ctx, statement, source, env, index, owner)

    def run_require(self, ctx: Context, statement: ast.RequireLine, source: Source, env: MapEnv,
                    index: int = 0, owner: str = "") -> None:
        """``require condition``: the run fails (E0613) when it does not hold."""
        expr = statement.expr
        found = self._compiled_cache.get(id(expr))  # self.compiled, inlined: this runs per line
        compiled = found[1] if found is not None and found[0] is expr else self.compiled(expr, source)
        seen = len(ctx.trace) if ctx.trace is not None else 0
        if not ctx.result(ctx.evaluate(compiled, env)):
            raise RunebookError([Diagnostic.make("E0613", source, expr.span, check=owner, condition=str(expr),
                                                 help=_require_help(ctx, seen, expr, env))])
        return None

    def run_roll(self, ctx: Context, statement: ast.RollLine, source: Source, env: MapEnv,
                 index: int = 0, owner: str = "") -> Any:
        """``roll NAME = dice``: the pool, rolled now (in exact odds, the pool every world
        reads at this place in the run)."""
        expr = statement.expr
        found = self._compiled_cache.get(id(expr))
        compiled = found[1] if found is not None and found[0] is expr else self.compiled(expr, source)
        try:
            spec = pool_spec(compiled, env, limits=self.limits, run=ctx.run)
        except RunebookError:
            value = ctx.result(ctx.evaluate(compiled, env))
        else:
            pool = None
            run = ctx.run
            pools = run.pools if run is not None else None
            if pools is not None:  # a world of exact odds: the pool every world reads
                nth = run.rolls
                run.rolls = nth + 1
                key = (nth, index, spec)
                pool = pools.get(key)
            if pool is None:
                pool = PoolSource(spec, statement.name, expr.span, source)
                if pools is not None:
                    pools[key] = pool
            ctx.realize(pool)  # roll now: given dice are consumed in the order of the lines
            value = pool
        env.define(statement.name, value)
        return value

    def run_let(self, ctx: Context, statement: ast.Assignment, source: Source, env: MapEnv,
                index: int = 0, owner: str = "") -> Any:
        """``let NAME = expression``: the value as it is (a pool stays a pool)."""
        expr = statement.expr
        found = self._compiled_cache.get(id(expr))
        compiled = found[1] if found is not None and found[0] is expr else self.compiled(expr, source)
        # ctx.evaluate, inlined for the usual environment (this runs once per line).
        value = compiled.closure(ctx, env) if type(env) is MapEnv else ctx.evaluate(compiled, env)
        env.define(statement.name, value)
        return value

    def run_set(self, ctx: Context, statement: ast.Assignment, source: Source, env: MapEnv,
                index: int = 0, owner: str = "") -> Any:
        """``set NAME = expression``: the value's result (a pool's total)."""
        expr = statement.expr
        found = self._compiled_cache.get(id(expr))
        compiled = found[1] if found is not None and found[0] is expr else self.compiled(expr, source)
        value = ctx.result(compiled.closure(ctx, env) if type(env) is MapEnv else ctx.evaluate(compiled, env))
        env.define(statement.name, value)
        return value

    def run_result(self, ctx: Context, statement: ast.Assignment, source: Source, env: MapEnv,
                   index: int = 0, owner: str = "") -> Any:
        """``result NAME = expression``: as ``set``, and shown in the trace."""
        expr = statement.expr
        found = self._compiled_cache.get(id(expr))
        compiled = found[1] if found is not None and found[0] is expr else self.compiled(expr, source)
        value = ctx.result(compiled.closure(ctx, env) if type(env) is MapEnv else ctx.evaluate(compiled, env))
        if ctx.trace is not None:
            ctx.trace.append(StepEvent("result", statement.name, json_value(value), statement.span, source.name))
        env.define(statement.name, value)
        return value

    def _run(self, ctx: Context, check: Check, inputs: Mapping[str, Any],
             options: Mapping[str, Level], roles: Mapping[str, Any] | None = None,
             shared: list[Any] | None = None) -> dict[str, Any]:
        """Run a check's lines in order against one context: the single code path.

        ``shared`` (exact odds: one list for the worlds of one enumeration of this check with
        these inputs): the inputs' scope, once a world has built it without a choice, with no
        entity and no entry, is the same in every world; later worlds take it, and the
        enumeration's memo reads its names as constants (``LineMemo.fixed``)."""
        run = ctx.run
        if run is None:
            run = ctx.run = RunState()
        previous = run.options, run.roles
        run.options, run.roles = options, roles
        try:
            scope = shared[0] if shared is not None else None
            memo = run.memo if ctx.trace is None else None
            prelude = shared[1] if scope is not None and memo is not None else None
            if prelude is not None:
                # The lines every world computes alike, as the first world computed them.
                values, index, _ = prelude
                env = MapEnv.indexed(dict(values), dict(index), scope)
            elif scope is not None:
                env = MapEnv({}, parent=scope)
            else:
                world = ctx.world
                chosen = len(world.taken) if world is not None else 0
                scope = self._scope(ctx, check.decl.params, inputs, options, roles, check.source)
                # Shared as procedure_odds shares its scope: no entity, no entry, no pool.
                if shared is not None and world is not None and not roles and len(world.taken) == chosen \
                        and not ctx.realized and all(same_in_every_world(v) and not isinstance(v, CheckedEntry)
                                                     for v in scope.mapping.values()):
                    shared[0] = scope
                    if run.memo is not None:
                        run.memo.fixed = scope
                env = MapEnv({}, parent=scope)
                self.entry_views(scope, env, ctx)
            results: dict[str, Any] = dict(prelude[2]) if prelude is not None else {}
            if memo is None:
                for index, statement in enumerate(check.decl.statements):
                    value = VALUE_LINES[type(statement)](self, ctx, statement, check.source, env, index, check.name)
                    if type(statement) is ast.ResultLine:
                        results[statement.name] = value
                return results
            lines, constant = self._check_lines(check)
            # The first world of a shared scope notes the values of the lines that read only the
            # scope, the game's names and such lines (``constant``), when they took no choice.
            world = ctx.world
            noting = scope is not None and shared[1] is None and world is not None and bool(constant)  # type: ignore[index]
            taken = realized = 0
            for index, (statement, names, closure) in enumerate(lines):
                if prelude is not None and index in constant:
                    continue
                kind = type(statement)
                if closure is not None:
                    if noting and index in constant:
                        taken, realized = len(world.taken), len(ctx.realized)  # type: ignore[union-attr]
                    # Exact odds: a value line's value for the values it reads, once (interpreter.rules.memo).
                    value = memo.evaluate(id(statement), names, closure, ctx, env)
                    if kind is not ast.LetLine:
                        value = ctx.result(value)
                    env.define(statement.name, value)
                    if noting and index in constant and (len(world.taken) != taken  # type: ignore[union-attr]
                                                         or len(ctx.realized) != realized):
                        noting = False  # such a line rolled: every world runs it
                else:
                    value = VALUE_LINES[kind](self, ctx, statement, check.source, env, index, check.name)
                if kind is ast.ResultLine:
                    results[statement.name] = value
            if noting:
                kept = {lines[i][0].name for i in constant}
                shared[1] = ({k: v for k, v in env.mapping.items() if k in kept},  # type: ignore[index]
                             {k: v for k, v in env.index.items() if v in kept},
                             {k: v for k, v in results.items() if k in kept})
            return results
        finally:
            run.options, run.roles = previous

    def _check_lines(self, check: Check) -> tuple[tuple[tuple[Any, tuple[str, ...], Any], ...], frozenset[int]]:
        """A check's lines for exact odds, each with the names it reads and its compiled
        closure when the memo serves it (else ``(line, (), None)``), and which of them are the
        same in every world of one inputs' scope (:func:`_constant_lines`); worked out once per
        loaded rules (a pure function of the lines: threads may each make it, both alike)."""
        statements = check.decl.statements
        found = self._check_plans.get(id(statements))
        if found is None or found[0] is not statements:
            lines = tuple((s, names_read([s.expr]), self.compiled(s.expr, check.source).closure)
                          if type(s) in _MEMO_LINES and not getattr(s, "path", ()) else (s, (), None)
                          for s in statements)
            found = self._check_plans[id(statements)] = (statements, (lines, _constant_lines(lines)))
        return found[1]  # type: ignore[no-any-return]

    def enumerate(self, fn: Any, memo: LineMemo | None = None,
                  site: tuple[Source | None, Span | None] = (None, None)) -> Distribution:
        """``joint(fn)`` with pools named by their place in the run: every world's context
        gets a run state whose ``pools`` are this enumeration's (see interpreter.rules.runstate),
        and whose ``memo`` of line values is ``memo`` (a new one when None). ``site``: where
        a limit's refusal points."""
        pools: dict[tuple[Any, ...], PoolSource] = {}
        memo = memo if memo is not None else LineMemo(self.globals)

        def world(ctx: Context) -> Any:
            ctx.run = RunState(pools=pools, memo=memo)
            return fn(ctx)

        return joint(world, limits=self.limits, site=site)

    def in_world(self, ctx: Context, fn: Any) -> Any:
        """Run ``fn`` as one world of an enumeration: its rolls are counted from zero."""
        if ctx.run is None:
            ctx.run = RunState()
        ctx.run.rolls = 0
        return fn()

    def compiled(self, expr: ex.Expr, source: Source) -> Any:
        # Rules keep their AST alive, so a node's id is a stable key; exact odds re-run a
        # check once per outcome and must not recompile it each time.
        key = id(expr)
        found = self._compiled_cache.get(key)
        if found is None or found[0] is not expr:
            found = self._compiled_cache[key] = (expr, compile_expression(expr, source, limits=self.limits,
                                                                                 free=self.hidden))
        return found[1]


    def resolve(self, check: str, given: Mapping[str, Any] | None = None, /, *,
                options: Mapping[str, str] | None = None, seed: int | None = None,
                dice: Sequence[int] | None = None, rng: random.Random | None = None,
                as_: Any = None, against: Any = None, **inputs: Any) -> CheckResult:
        """Resolve a check once: with a seeded RNG (``seed``, or ``rng`` for your own), or with
        the faces a player rolled (``dice``); one of the three at most (else ``ValueError``).
        Inputs come as keywords, or as a mapping ``given`` (any names, ``options`` too).

        ``as_`` and ``against`` are entities (:meth:`entity`) or paths of character files
        (:meth:`taking_part`), like ``--as`` and ``--against``; in the check they are
        ``actor`` and ``target``.
        """
        one_dice_source(seed, dice, rng)
        inputs = {**(given or {}), **inputs}
        as_, against = self.taking_part(as_), self.taking_part(against, "against")
        spec = self.check(check)
        bound = self.bind_inputs(spec, inputs, _first(as_))
        roles = role_map(as_, against)
        chosen = self.option_values(options)
        if dice is not None:
            text = ",".join(map(str, dice))
            oracle: Any = GivenOracle(list(dice), Source("--dice", text))
        else:
            oracle = RandomOracle(rng if rng is not None else random.Random(seed))
        ctx = Context(oracle=oracle, limits=self.limits, trace=Trace())
        results = self._run(ctx, spec, bound, chosen, roles)
        ctx.finish()
        assert ctx.trace is not None
        return CheckResult(spec.name, results, ctx.trace, bound, {k: v.name for k, v in chosen.items()})

    def procedure(self, name: str) -> Procedure | None:
        """A procedure by name (any case, spaces, hyphens or underscores), or None."""
        return self.procedures.get(fold(require_text(name, "a procedure's name")))

    def _user_of(self, entry_name: str) -> tuple[Procedure, str] | None:
        """The procedure that uses an entry of this kind (its first input of that kind). When
        several do, the one that needs the fewest other inputs (those without a default) is
        the plain use of the entry; declaration order breaks ties."""
        entry = self.ruleset.entry(entry_name)
        if entry is None or entry.kind is None:
            return None
        found = []
        for order, procedure in enumerate(self.procedures.values()):
            params = procedure.decl.params
            typed = [p for p in params if p.type and fold(p.type) == fold(entry.kind)]
            if typed:
                needed = sum(1 for p in params if p.default is None and p is not typed[0])
                found.append((needed, order, procedure, typed[0].name))
        if not found:
            return None
        _, _, procedure, name = min(found, key=lambda item: item[:2])
        return procedure, name

    def run(self, name: str, given: Mapping[str, Any] | None = None, /, *,
            options: Mapping[str, str] | None = None, seed: int | None = None,
            dice: Sequence[int] | None = None, rng: random.Random | None = None, driver: Driver | None = None,
            choose: Chooser | None = None, answers: Mapping[str, str] | None = None, as_: Any = None,
            against: Any = None, **inputs: Any) -> RunResult:
        """Run a procedure (or a check) to its end, asking ``driver`` at each choice point
        (or ``choose``, a function ``(ChoicePoint) -> str``: a
        :class:`~interpreter.rules.procedures.CallbackDriver`). ``answers`` answers choices by
        name, every time they come, as for :meth:`odds` (``--answer``); the others are asked.
        Inputs come as keywords, or as a mapping ``given`` (any names, ``options`` too).
        Without either, a choice point with nobody to answer it is E0610.

        Returns a :class:`~interpreter.rules.procedures.RunResult`.
        """
        one_dice_source(seed, dice, rng)
        if choose is not None:
            if driver is not None:
                raise ValueError("give driver or choose, not both")
            driver = CallbackDriver(choose)
        if answers:
            named = self.procedure(name)
            if named is not None:
                self._known_answers(named.name, named.decl.statements, answers)
            driver = NamedDriver(answers, driver if driver is not None else ScriptedDriver([], asker="python"))
        inputs = {**(given or {}), **inputs}
        as_, against = self.taking_part(as_), self.taking_part(against, "against")
        procedure = self.procedure(name)
        if procedure is None and fold(name) not in self.checks:
            used = self._user_of(name)
            if used is not None:
                procedure, param = used
                inputs = {param: name, **inputs}
        if procedure is None:
            if fold(name) in self.checks:
                result = self.resolve(name, inputs, options=options, seed=seed, dice=dice, rng=rng, as_=as_,
                                      against=against)
                return RunResult(result.check, result.results, _state(result.inputs, role_map(as_, against)), result.trace)
            usable = {fold(p.type) for proc in self.procedures.values() for p in proc.decl.params if p.type}
            names = [p.name for p in self.procedures.values()] + [c.name for c in self.checks.values()]
            names += [e.entry.name for e in self.ruleset.entries if fold(e.kind or "") in usable]
            raise RunebookError([Diagnostic.make("E0608", None, None, name=name, help=did_you_mean(name, names))])
        decl = procedure.decl
        bound = self.bind_inputs(procedure, inputs, _first(as_))
        chosen = self.option_values(options)
        driver = driver if driver is not None else ScriptedDriver([], asker="python")
        if dice is not None:
            oracle: Any = GivenOracle(list(dice), Source("--dice", ",".join(map(str, dice))))
        else:
            oracle = RandomOracle(rng if rng is not None else random.Random(seed))
        # The run changes copies: a run that fails leaves every entity as it was.
        bound, roles = _entity_inputs(bound, role_map(as_, against, copy=True), copy=True)
        ctx = Context(oracle=oracle, limits=self.limits, trace=Trace(), run=RunState(chosen, roles))
        scope = self._scope(ctx, decl.params, bound, chosen, roles, procedure.source)
        env = MapEnv({}, parent=scope)
        self.entry_views(scope, env, ctx)
        results, choices = run_lines(self, procedure.name, decl.statements, procedure.source, ctx, env, driver)
        ctx.finish()
        driver.finish()
        assert ctx.trace is not None
        state = _state({**bound, **{k: v for k, v in env.mapping.items()
                                    if not isinstance(v, PoolSource)}}, roles)
        return RunResult(procedure.name, results, state, ctx.trace, tuple(choices))

    @staticmethod
    def _known_answers(owner: str, statements: Sequence[ast.Statement], answers: Mapping[str, str]) -> None:
        """E0708 for answers naming no choice of ``owner`` (exact odds would ignore them)."""
        problems = unknown_answers(owner, statements, answers)
        if problems:
            raise RunebookError(problems)

    async def run_async(self, name: str, given: Mapping[str, Any] | None = None, /, *,
                        choose: Chooser | None = None, driver: Driver | None = None, **kwargs: Any) -> RunResult:
        """:meth:`run` for asyncio code (a chat bot waiting for its player): the procedure
        runs in a worker thread, so the event loop goes on while it computes, and ``choose``
        may be a coroutine function (``async def choose(point) -> str``), awaited on this
        loop at each choice point — it can wait for a message. A plain function works too.
        Other arguments as for :meth:`run`; what it raises, it raises here."""
        import asyncio  # only asyncio embedders pay for it

        loop = asyncio.get_running_loop()
        if choose is not None:
            if driver is not None:
                raise ValueError("give driver or choose, not both")
            driver = CallbackDriver(choose, loop)
        elif isinstance(driver, CallbackDriver) and driver.loop is None:
            driver = CallbackDriver(driver.callback, loop)
        try:
            return await asyncio.to_thread(self.run, name, given, driver=driver, **kwargs)
        except asyncio.CancelledError:
            # The thread cannot be stopped from here; the choice it waits on can.
            if isinstance(driver, CallbackDriver):
                driver.cancel()
            raise

    def odds(self, check: str, given: Mapping[str, Any] | None = None, /, *,
             options: Mapping[str, str] | None = None, as_: Any = None,
             against: Any = None, answers: Mapping[str, str] | None = None,
             progress: Callable[[int], None] | None = None, **inputs: Any) -> CheckOdds:
        """The exact distribution of every named result of a check — or of a procedure,
        solved as a Markov chain (:mod:`interpreter.markov.chains`; ``answers`` fixes its
        choices; ``progress`` hears the number of states explored so far)."""
        inputs = {**(given or {}), **inputs}
        as_, against = self.taking_part(as_), self.taking_part(against, "against")
        procedure = self.procedure(check)
        if procedure is None and fold(check) not in self.checks:
            used = self._user_of(check)
            if used is not None:
                procedure, param = used
                inputs = {param: check, **inputs}
        if procedure is not None:
            if answers:
                self._known_answers(procedure.name, procedure.decl.statements, answers)
            bound, roles = _entity_inputs(self.bind_inputs(procedure, inputs, _first(as_)), role_map(as_, against))
            found = procedure_odds(self, procedure, bound, self.option_values(options), roles, answers, progress)
            # An entity given as an input is shown by its name, as a run's state shows it.
            return attrs.evolve(found, inputs={k: roles[v.key].name if type(v) is _InputRole else v
                                               for k, v in found.inputs.items()})
        spec = self.check(check)
        if answers:
            self._known_answers(spec.name, (), answers)  # a check has no choices
        bound = self.bind_inputs(spec, inputs, _first(as_))
        roles = role_map(as_, against)
        chosen = self.option_values(options)
        names: list[str] = [s.name for s in spec.decl.statements if isinstance(s, ast.ResultLine)]

        shared: list[Any] = [None, None]

        def outcome(ctx: Context) -> tuple[Any, ...]:
            results = self.in_world(ctx, lambda: self._run(ctx, spec, bound, chosen, roles, shared))
            return tuple(results.get(n) for n in names)

        together = self.enumerate(outcome)
        marginals: dict[str, dict[Any, Fraction]] = {n: {} for n in names}
        for values, p in together.items():
            for name, value in zip(names, values):
                marginals[name][value] = marginals[name].get(value, Fraction(0)) + p
        results = {n: Distribution(m, together.residual, together.note) for n, m in marginals.items()}
        return CheckOdds(spec.name, results, together, bound, {k: v.name for k, v in chosen.items()})


def _require_help(ctx: Context, seen: int, expr: ex.Expr | None = None, env: MapEnv | None = None) -> str | None:
    """What a failed ``require`` computed: the values its condition read — the calls it made
    and the run's own names in it (inputs, ``let`` and ``result`` values)."""
    shown: dict[str, str] = {}
    if ctx.trace is not None:
        for event in ctx.trace[seen:]:
            if isinstance(event, StepEvent) and event.kind == "call" and event.text not in shown:
                shown[event.text] = format_value(event.value)
    if expr is not None and env is not None:
        for node in reversed(list(expression_names(expr))):
            if not isinstance(node, ex.Name) or node.text in shown:
                continue
            value = _run_name_value(env, node.text)
            # A level's own name (`unexpected_edge`) is a constant: it says nothing.
            if isinstance(value, Level) and normalize_name(value.name) == normalize_name(node.text):
                continue
            if isinstance(value, (bool, int, Fraction, str, Level)):
                shown[node.text] = format_value(value)
    parts = [f"{text} = {value}" for text, value in list(shown.items())[:6]]
    return "here " + "; ".join(parts) if parts else None


def _run_name_value(env: MapEnv, name: str) -> Any:
    """A name's value as a run sees it (its own lines' names, then the inputs and options in
    the scopes above them); None when nothing holds it."""
    try:
        return env.lookup(name)
    except KeyError:
        return None


#: Functions the rules layer gives every game: an entity's state, read in expressions (their
#: signatures and docs: the lines marked `host=True` in dsl/builtins.py).
HOST_FUNCTIONS = host_functions()


#: How each line of a check (and the value lines of a procedure) runs: ``Rules.run_statement``.
VALUE_LINES: dict[type, Callable[..., Any]] = {
    ast.LetLine: Rules.run_let,
    ast.SetLine: Rules.run_set,
    ast.ResultLine: Rules.run_result,
    ast.ShowLine: run_show,
    ast.RollLine: Rules.run_roll,
    ast.RequireLine: Rules.run_require,
}

def ctx_free(rules: Rules, expr: ex.Expr, source: Source) -> Any:
    """A declaration's default value (no entity, no dice)."""
    ctx = Context(limits=rules.limits)
    return ctx.result(ctx.evaluate(rules.compiled(expr, source), rules.globals))


def _same(held: Any, given: Any) -> bool:
    """Parameters that tell instances apart compare as names: `"Fire"` is `fire`."""
    given = given.name if isinstance(given, Level) else given
    return fold(str(held)) == fold(str(given))


def _merge(condition: Condition, conditions: list[Any], new: Any) -> None:
    """Apply a condition that does not stack: an instance with the same name and the same
    identifying parameters becomes one, with the larger amounts and the longer duration
    (one without an end outlasts any); otherwise the new instance is added."""
    for index, held in enumerate(conditions):
        if held.name != new.name or not all(_same(held.arg(p.name), new.arg(p.name)) for p in condition.keys):
            continue
        args = tuple((k, max(v, new.arg(k)) if condition.is_amount(next(p for p in condition.params if p.name == k))
                      else v) for k, v in held.args)
        if held.left is None or new.left is None:
            left = None
        elif _event(held.left[1]) != _event(new.left[1]):
            left = new.left
        else:
            left = held.left if held.left[0] >= new.left[0] else new.left
        conditions[index] = attrs.evolve(held, args=args, left=left, shown=max(held.shown, new.shown))
        return
    conditions.append(new)


def _event(word: str) -> str:
    """An event name as `reset` and `for N rounds` compare it: folded, without a plural s."""
    key = fold(word)
    return key[:-1] if key.endswith("s") and len(key) > 1 else key


@attrs.frozen(eq=False)
class MissingRole:
    """``actor`` or ``target`` when no entity was given: using it asks for one."""

    role: str

    def resolve_in(self, ctx: Context) -> Any:
        raise RunebookError([Diagnostic.make("E0707", None, None, role=self.role,
                                             flag="--as" if self.role == "actor" else "--against")])


@attrs.frozen
class UnheldStat:
    """A stat (or derived value) read bare when no actor takes part: reading it asks for one."""

    name: str

    def resolve_in(self, ctx: Context) -> Any:
        raise RunebookError([Diagnostic.make("E0707", None, None, role="actor", flag="--as",
                                             help=f"'{self.name}' is a stat of the actor")])


@attrs.frozen(eq=False)
class OptionSetting:
    """An option as functions see it: the setting of the run in progress (else the default)."""

    rules: Rules
    name: str
    default: Level

    def resolve_in(self, ctx: Context) -> Level:
        return _option(ctx, self.name, self.default)


def _option(ctx: Context, name: str, default: Level) -> Level:
    """An option's setting in the run ``ctx`` belongs to (its default outside any run)."""
    options = ctx.run.options if ctx.run is not None else None
    return options.get(name, default) if options else default


@attrs.frozen(eq=False)
class StateQuery:
    """``modifier(entity, Stat)``, ``resource(entity, NAME)``, ``has(entity, CONDITION)``,
    ``holds(entity, CONDITION)`` (how many times), ``amount(entity, CONDITION, keys...)`` (its
    number parameter), ``has(entity, CONDITION, keys...)`` (an instance with those
    identifying values), ``stat(entity, Stat)`` (the stat with its conditions applied) and
    ``has_stat(entity, Stat)`` (whether its file gives the stat: a sheet may leave one out)."""

    rules: Rules
    name: str

    def invoke(self, ctx: Context, args: list[Any], site: Any) -> Any:
        if self.name == "line":
            return self._line(ctx, args, site)  # type: ignore[attr-defined]
        if self.name in ("line_text", "number_in", "meets", "data_of", "level_in", "mentions"):
            return entry_query(self.rules, self.name, ctx, args, site)
        if self.name == "held_value":
            return _held_value(self, args, site)
        keys: list[Any] = []
        if self.name in ("amount", "has") and len(args) > 2:
            args, keys = args[:2], args[2:]  # amount(entity, CONDITION, its identifying values...)
        if len(args) != 2:
            raise RunebookError([Diagnostic.make("E0406", site[0], site[1], name=self.name, expected=2, got=len(args))])
        entity, what = args
        if not hasattr(entity, "conditions"):
            raise RunebookError([Diagnostic.make("E0405", site[0], site[1], op=self.name,
                                                 kind="something that is not a character")])
        key = what.name if isinstance(what, Level) else str(what)
        if self.name == "owns":
            # An entity lists the entries it has (powers, traits, items...) in its file.
            lists = [v for v in entity.data.values() if isinstance(v, list)]
            owned = any(fold(str(item)) == fold(key) for items in lists for item in items)
            if not owned and ctx.trace is not None:  # for the help of a failed `require`
                listed = ", ".join(str(item) for items in lists for item in items) or "nothing"
                ctx.trace.append(StepEvent("call", f"{entity.name}'s file lists", listed))
            return owned
        if self.name == "has_stat":
            return fold(key) in {fold(n) for n in entity.names()}
        if self.name == "modifier":
            return self.rules.modifier(ctx, entity, key)
        if self.name == "resource":
            return entity.resources.get(key, 0)
        if self.name == "holds":  # how many times (a condition that stacks may be held several)
            return sum(1 for c in entity.conditions if fold(c.name) == fold(key))
        if self.name == "amount":
            return self.rules.amount(entity, key, keys)
        if self.name == "stat":
            return self.rules.stat(ctx, entity, key, site)
        # Held or implied by a condition held (`implies`); with values, an instance that has them.
        return any(fold(held.name) == fold(key) and all(_same(held.arg(p.name), k) for p, k in zip(condition.keys, keys))
                   for held, condition in self.rules.under(entity))


def _as_actors_stat(problem: Diagnostic, name: str, value: str, actor: Any) -> Diagnostic:
    """An input given as the name of one of the acting character's stats (`--with
    ability=Haughty`) takes its value, not its name: the help says which to type."""
    try:
        stat = actor.lookup(value)
    except KeyError:
        return problem
    return attrs.evolve(problem, help=f"'{value}' is a stat of {actor.name}: give its value, "
                        f"--with {name}={format_value(stat)}")


def _held_value(query: StateQuery, args: list[Any], site: Any) -> Any:
    """``held_value(entity, CONDITION, "parameter", keys...)``: the value a held condition was
    applied with (the lord a `Sworn(to)` names), in its first instance with those
    identifying values; none when the entity holds no such instance."""
    if len(args) < 3:
        raise RunebookError([Diagnostic.make("E0406", site[0], site[1], name="held_value", expected="at least 3",
                                             got=len(args))])
    entity, what, parameter, *keys = args
    if not hasattr(entity, "conditions"):
        raise RunebookError([Diagnostic.make("E0405", site[0], site[1], op="held_value",
                                             kind="something that is not a character")])
    key = fold(what.name if isinstance(what, Level) else str(what))
    condition = query.rules.conditions.get(key)
    if condition is None:
        raise RunebookError([Diagnostic.make("E0705", site[0], site[1], what="condition", name=key,
                                             help=did_you_mean(key, [c.name for c in query.rules.conditions.values()]) or None)])
    wanted = fold(str(parameter.name if isinstance(parameter, Level) else parameter))
    names = [p.name for p in condition.params]
    if wanted not in {fold(n) for n in names}:
        raise RunebookError([Diagnostic.make("E0705", site[0], site[1], what=f"parameter of '{key}'", name=str(parameter),
                                             help=did_you_mean(str(parameter), names) or None)])
    for held in entity.conditions:
        if fold(held.name) == key and all(_same(held.arg(p.name), k) for p, k in zip(condition.keys, keys)):
            return next((v for k, v in held.args if fold(k) == wanted), None)
    return None


def _line_query(query: StateQuery, ctx: Context, args: list[Any], site: Any) -> Any:
    """``line(entry, "Label", grade)``: the graded line that applies (see interpreter.rules.entries)."""
    if len(args) not in (3, 4) or not isinstance(args[0], EntryView):
        raise RunebookError([Diagnostic.make("E0406", site[0], site[1], name="line",
                                             expected="an entry, a label, a grade (and a default)", got=len(args))])
    label = str(args[1].name if isinstance(args[1], Level) else args[1])
    if len(args) == 4 and not args[0].lines(label):
        return args[3]  # the default, for an entry without that line
    value = line_value(args[0], label, args[2], site)
    return None if value is None else ctx.result(resolve_value(value, "line", ctx, site))


StateQuery._line = _line_query  # type: ignore[attr-defined]


@attrs.frozen(eq=False)
class CheckCall:
    """A check used like a function inside rules (``contest(ability, resistance)``): it
    runs with the caller's context, options and entities, and gives a record of results."""

    rules: Rules
    check: Check
    #: The names of the check's results, in order (exact odds read them in every world).
    result_names: tuple[str, ...] = attrs.field(init=False, default=attrs.Factory(
        lambda self: tuple(s.name for s in self.check.decl.statements if isinstance(s, ast.ResultLine)),
        takes_self=True))
    #: The check's name (made once: exact odds key their cache by it at every call).
    name: str = attrs.field(init=False, default=attrs.Factory(lambda self: self.check.name, takes_self=True))

    def invoke(self, ctx: Context, args: list[Any], site: Any) -> dict[str, Any]:
        params = self.check.decl.params
        if len(args) > len(params):
            raise RunebookError([Diagnostic.make("E0406", site[0], site[1], name=self.check.name,
                                                 expected=len(params), got=len(args))])
        run = ctx.run
        if run is not None and run.options is not None:  # the caller's run
            options, roles = run.options, run.roles
        else:
            options, roles = self.rules.option_values(None), None
        inputs = {p.name: a for p, a in zip(params, args)}
        missing = [p.name for p in params[len(args):] if p.default is None]
        if missing:
            raise RunebookError([Diagnostic.make("E0602", site[0], site[1], name=missing[0],
                                                 check=self.check.name)])
        if ctx.world is not None:
            chosen = self._as_one_choice(ctx, inputs, options, roles)
            if chosen is not None:
                return chosen
        return Record(self.rules._run(ctx, self.check, inputs, options, roles))

    def _as_one_choice(self, ctx: Context, inputs: dict[str, Any], options: Mapping[str, Level],
                       roles: Mapping[str, Any] | None) -> dict[str, Any] | None:
        """While computing odds: the check's results as one choice among their exact
        distribution (computed once per inputs), instead of enumerating its dice in every
        world of the caller. None when the inputs cannot be a cache key."""
        names = self.result_names
        try:
            key = (self.name, tuple(inputs.items()), _options_key(options),
                   tuple(sorted((role, tuple(sorted(e.stats.items())), tuple(sorted(e.resources.items())),
                                 tuple(e.conditions)) for role, e in roles.items())) if roles else ())
            hash(key)
        except TypeError:
            return None
        cache = self.rules._call_cache
        found = cache.get(key)
        if found is None:
            rules = self.rules
            shared: list[Any] = [None, None]

            def outcome(inner: Context) -> tuple[Any, ...]:
                results = rules.in_world(inner, lambda: rules._run(inner, self.check, inputs, options, roles,
                                                                    shared))
                return tuple(results.get(n) for n in names)

            dist = rules.enumerate(outcome)
            # Each outcome as the record the caller gets: made once, the same object every time.
            branches = [(Record(zip(names, values)), p) for values, p in dist.items()]
            if len(cache) >= 4096:  # a long-lived embedder asks for ever new inputs: stay bounded
                cache.clear()
            found = cache[key] = branches + ([(_UNKNOWN_BRANCH, dist.residual)] if dist.residual else [])
        picked = ctx.world.choose(found)
        if picked is _UNKNOWN_BRANCH:
            raise Undetermined
        return picked


def _constant_lines(lines: Sequence[tuple[Any, tuple[str, ...], Any]]) -> frozenset[int]:
    """The value lines of a check (by index) whose values are alike in every world that shares
    the inputs' scope: no dice written in them, and every name they read is one no line of the
    check sets (an input, an option, the game's) or one that only such a line before them
    sets. Each sets a name set once and read by no line before it, so giving a world these
    values at its start is the same as computing them in order. (Whether a call in one rolls
    is seen as the first world runs: see ``Rules._run``.)"""
    setters: dict[str, int] = {}
    for statement, _, _ in lines:
        name = getattr(statement, "name", None)
        if name is not None:
            setters[normalize_name(name)] = setters.get(normalize_name(name), 0) + 1
    read_before: set[str] = set()
    constant: set[int] = set()
    constant_names: set[str] = set()
    for index, (statement, names, closure) in enumerate(lines):
        expr = getattr(statement, "expr", None)
        reads = {normalize_name(n) for n in (names if closure is not None else names_read([expr]))}
        if closure is not None:
            name = normalize_name(statement.name)
            if setters[name] == 1 and name not in read_before and not any(isinstance(n, ex.Dice | ex.RollGroup) for n in ex.nodes(expr)) \
                    and all(n not in setters or n in constant_names for n in reads):
                constant.add(index)
                constant_names.add(name)
        read_before |= reads
    return frozenset(constant)


#: Lines of a check whose values exact odds remember (interpreter.rules.memo).
_MEMO_LINES = frozenset({ast.LetLine, ast.SetLine, ast.ResultLine})
#: The outcome of a check called in exact odds that rests on what the limits cut off.
_UNKNOWN_BRANCH = object()
#: Options as part of a cache key, by the options mapping (the same object throughout a run).
_OPTION_KEYS: dict[int, tuple[Mapping[str, Level], tuple[tuple[str, str], ...]]] = {}


def _options_key(options: Mapping[str, Level]) -> tuple[tuple[str, str], ...]:
    found = _OPTION_KEYS.get(id(options))
    if found is None or found[0] is not options:
        if len(_OPTION_KEYS) > 256:
            _OPTION_KEYS.clear()
        found = _OPTION_KEYS[id(options)] = (options, tuple(sorted((k, v.name) for k, v in options.items())))
    return found[1]


#: The runtime value of each name the model binds, by what the name stands for (dsl.model).
_RUNTIME: dict[type, Callable[[Rules, Any], Any]] = {
    LevelName: lambda rules, n: Level(n.group, n.name, n.rank, n.names),
    HostName: lambda rules, n: StateQuery(rules, n.name),
    OptionName: Rules._option_setting,
    FunctionName: lambda rules, n: Function(str(n.decl.name), tuple(p.name for p in n.decl.params), n.decl.body,
                                            rules.globals, n.source),
    CheckName: lambda rules, n: CheckCall(rules, n.check),
    TableName: Rules._table,
}


def _named_level(text: str, env: MapEnv) -> Level | None:
    """The level ``text`` names as written, hyphens and all (``One-Shot``), if one does: a
    value such as ``--with trait=One-Shot`` is that level, not a subtraction."""
    if "-" not in text:
        return None
    try:
        found = env.lookup(text.strip())
    except KeyError:
        return None
    return found if isinstance(found, Level) and found.name.casefold() == text.strip().casefold() else None


def _text_of(node: ex.Expr, text: str) -> str:
    """The text an item of a one-line list was written as."""
    span = node.span
    if span is None or span.line != 1 or span.end_line != 1:
        return ""
    return text[span.column - 1 : span.end_column - 1]


def _from_python(value: Any) -> Any:
    """An embedder's value as the rules hold it: a list as a tuple (immutable, so a state of
    exact odds can keep it), a dict as a record (``r.name``), inside each other too."""
    kind = type(value)
    if kind is list or kind is tuple:
        return tuple(_from_python(v) for v in value)
    if kind is dict:
        return Record({str(k): _from_python(v) for k, v in value.items()})
    return value


#: The values a name stands for whatever a game declares (as in an expression).
_CONSTANTS: dict[str, Any] = {"true": True, "false": False, "none": None}


def _literal(expr: ex.Expr, env: MapEnv) -> Any:
    """A `--with` or `example` value: a number, a rating, a name the game defines, text,
    true, false or none, or a list or a record (``{who: 1, did: attack}``) of those."""
    if isinstance(expr, ex.ListOf):
        return tuple(_literal(item, env) for item in expr.items)
    if isinstance(expr, ex.RecordOf):
        return Record({name: _literal(value, env) for name, value in expr.fields})
    if isinstance(expr, ex.Name) and expr.text.casefold() in _CONSTANTS:
        return _CONSTANTS[expr.text.casefold()]
    if isinstance(expr, ex.Number):
        return expr.value
    if isinstance(expr, ex.Unary) and isinstance(expr.operand, ex.Number):
        return -expr.operand.value if expr.op == "-" else expr.operand.value
    bonus = signed_rating(expr)
    if bonus is not None:
        return bonus
    if isinstance(expr, ex.Decimal):
        return expr.value
    if isinstance(expr, ex.Rating):
        return Rating(expr.base, expr.symbol, expr.count)
    if isinstance(expr, ex.Name):
        try:
            return env.lookup(expr.text)
        except KeyError:
            return expr.text
    if isinstance(expr, ex.String):
        return expr.value
    raise RunebookError([Diagnostic.make("E0008", None, None, what="input value", value=str(expr),
                                         help="give a number, a rating such as 7M2, a name, text in quotes, "
                                         "or a list or a record of those")])


def _state(values: Mapping[str, Any], roles: Mapping[str, Any]) -> dict[str, Any]:
    """What a run leaves behind: its values, and each entity taking part (``actors`` and
    ``targets`` list them all when several take part on a side). A loop's own bookkeeping
    (``#items3``: names no author can write) is not shown."""
    state: dict[str, Any] = {k: v for k, v in values.items()
                             if "#" not in k and not isinstance(v, PoolSource | CheckCall | _InputRole)
                             and not _is_entity(v)}
    for key, entity in roles.items():  # an entity given as an input, by the input's name
        if key.split("#")[0] not in ROLES:
            state[key.partition("#")[0]] = entity.state()
    for role, group in zip(ROLES, GROUPS):
        members = [e for key, e in roles.items() if key.split("#")[0] == role]
        if members:
            state[role] = members[0].state()
        if len(members) > 1:
            state[group] = [e.state() for e in members]
    return state


def _entity_named(env: MapEnv, name: str, source: Source, span: Span | None) -> Any:
    """``spend HP 3 on hero``: the entity a name of the procedure holds (a loop's member)."""
    missing = object()
    try:
        value = env.lookup(name)
    except KeyError:
        value = missing
    if not isinstance(value, Entity):
        hint = "'on' names actor, target or a name holding one of them (for each hero in actors)"
        if value is None:
            # `let troupe = last(actors)` with nobody taking part, say.
            kind, hint = "none", f"'{name}' holds none here: no character took its place (give one with --as or " \
                "--against)"
        else:
            kind = "a name nothing set" if value is missing else "something that is not a character"
        raise RunebookError([Diagnostic.make("E0405", source, span, op=f"on {name}", kind=kind, help=hint)])
    return value


def _is_entity(value: Any) -> bool:
    return isinstance(value, Entity) or (type(value) is tuple and any(isinstance(v, Entity) for v in value))


#: What an input of each declared type takes, as E0603 says it.
_EXPECTED = {"number": "a number", "rating": "a rating", "text": "text", "boolean": "true or false"}


def _shown(value: Any) -> str:
    return str(value)


def load_text(text: str | Mapping[str, str], *, name: str = "memory", limits: Limits = DEFAULT_LIMITS) -> Rules:
    """Rules from text in memory: one string of `.rules` text, or file names mapped to their
    text (``extends GAME`` adds to a game). Raises :class:`RunebookError` with every problem,
    each placed in its text (``<memory>/memory.rules:3:5``)."""
    if not isinstance(text, Mapping):
        require_text(text, "load_text")
    elif not all(isinstance(k, str) and isinstance(v, str) for k, v in text.items()):
        raise TypeError("load_text takes text (a str) or file names mapped to their text (str to str)")
    loaded = load_texts(text, name)
    errors = [d for d in loaded.diagnostics if d.severity == "error"]
    if errors:
        raise RunebookError(errors)
    model = build_model(loaded)
    if model.errors:
        raise RunebookError(model.errors)
    return Rules(model, limits)


def load(game: str | os.PathLike[str], limits: Limits = DEFAULT_LIMITS) -> Rules:
    """Load a game with its mechanics: a built-in game's name, or the path (``str`` or
    ``os.PathLike``) of a folder of .rules files or of one .rules file.

    Raises :class:`RunebookError` when the game is unknown or its files have errors.
    """
    game = os.fspath(game) if isinstance(game, os.PathLike) else require_text(game, "load")
    loaded = load_game(game)
    if isinstance(loaded, Diagnostic):
        raise RunebookError([loaded])
    errors = [d for d in loaded.diagnostics if d.severity == "error"]
    if errors:
        raise RunebookError(_read_alone(game, errors))
    model = build_model(loaded)
    if model.errors:
        raise RunebookError(_read_alone(game, list(model.errors)))
    return Rules(model, limits)


def _read_alone(game: str, errors: list[Diagnostic]) -> list[Diagnostic]:
    """The errors of a game named by one .rules file; when other .rules files sit beside it,
    the first error for a name nothing declares says the file was read alone (it may be one
    file of a folder's game, whose other files declare what it reads)."""
    path = Path(game)
    if path.suffix != ".rules" or not probe(path, "is_file"):
        return errors
    path = path.resolve()  # its folder's entries come back resolved: the file is not its own sibling
    if not any(p != path and p.suffix == ".rules" for p in path.parent.iterdir()):
        return errors
    # Only a name the file does not know may be declared beside it.
    at = next((i for i, d in enumerate(errors) if d.code in _UNKNOWN_NAME_CODES), None)
    if at is None:
        return errors
    where = (f"{path.name} was read alone: if it is one file of the game in its folder, give the folder "
             f"({path.resolve().parent.name}/)")
    first = errors[at]
    return [*errors[:at], attrs.evolve(first, help=f"{first.help}; {where}" if first.help else where),
            *errors[at + 1:]]


#: Errors for a name nothing declares (a value, a function, a check, a procedure, an entry type
#: or entry, a resource or condition, a stat): what another file of a folder's game may declare.
_UNKNOWN_NAME_CODES = frozenset({"E0201", "E0207", "E0213", "E0303", "E0412", "E0601", "E0620", "E0701", "E0705"})
