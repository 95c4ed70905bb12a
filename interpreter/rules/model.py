"""The rules layer: a game's mechanics, read from its declarations and run for any game.

:func:`load` turns a checked ruleset (``dsl.loader``) into :class:`Rules`: its options,
ordered levels, tables, functions and checks, with every name in every check checked
before anything runs. A check runs through one code path for all three semantics —
dice from a seeded ``random.Random``, faces a player gives, or every world of the exact
distribution (:func:`interpreter.core.distribution.joint`) — so a resolved roll and the odds
can never disagree about what the rules say.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import attrs

from dsl import ast
from dsl import expr_ast as ex
from dsl.builder import MAX_CHOICE_RANGE
from dsl.builtins import BUILTINS as BUILTIN_REGISTRY
from dsl.builtins import GROUPS as BUILTIN_GROUPS
from dsl.builtins import hidden_builtins, host_functions
from dsl.checker import CheckedEntry, expression_names
from dsl.diagnostics import Diagnostic, DiagnosticSink, RunebookError, did_you_mean
from dsl.flow import Flow, lower, reads_of
from dsl.loader import Ruleset, load_game
from dsl.parser import parse_expression
from dsl.source import Source, Span
from dsl.typecheck import check_types
from dsl.vocabulary import fold
from interpreter.core.dice import GivenOracle, PoolSource, RandomOracle
from interpreter.core.distribution import Distribution, joint
from interpreter.core.evaluate import (
    BUILTINS,
    HOLDER,
    Context,
    MapEnv,
    compile_expression,
    normalize_name,
    pool_spec,
    resolve_value,
)
from interpreter.core.limits import DEFAULT_LIMITS, Limits
from interpreter.core.trace import StepEvent, Trace
from interpreter.core.values import (
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
from interpreter.markov.chains import procedure_odds
from interpreter.rules.amendments import amended
from interpreter.rules.entities import Entity, Held, load_entities, load_entity, signed_rating
from interpreter.rules.entries import EntryView, line_value
from interpreter.rules.inline import ReadingEnv, expand_procedures
from interpreter.rules.listed import entry_query
from interpreter.rules.procedures import RunResult, ScriptedDriver, run_lines
from interpreter.rules.results import CheckOdds, CheckResult
from interpreter.rules.runstate import RunState
from interpreter.rules.shown import run_show

__all__ = ["CheckOdds", "CheckResult", "Rules", "load"]

#: Names a check may use for the entities taking part (`--as`, `--against`): the first of
#: each, and (`actors`, `targets`) all of them, in order, when several are given.
ROLES = ("actor", "target")
GROUPS = ("actors", "targets")


def role_map(as_: Any, against: Any, *, copy: bool = False) -> dict[str, Any]:
    """The entities taking part, by role: ``actor``, ``actor#2``, ... and ``target``,
    ``target#2``, ...; ``as_`` and ``against`` are an entity or a list of them."""
    roles: dict[str, Any] = {}
    for role, given in (("actor", as_), ("target", against)):
        group = list(given) if isinstance(given, list | tuple) else [] if given is None else [given]
        for index, entity in enumerate(group):
            roles[role if index == 0 else f"{role}#{index + 1}"] = entity.copy() if copy else entity
    return roles


def _first(given: Any) -> Any:
    """The first of the entities given for a role (one entity, or a list of them)."""
    if isinstance(given, list | tuple):
        return given[0] if given else None
    return given

#: Input types a check may declare (`ability: rating`), besides the name of a levels group,
#: an entry kind, or a list of any of them (`heroes: list of rating`; `list`: of anything).
INPUT_TYPES = ("number", "rating", "text", "boolean", "list")

_BOOLEAN_WORDS = {"true": True, "yes": True, "false": False, "no": False}


def list_item_type(written: str | None) -> str | None:
    """``list of rating`` → ``rating``; ``list`` → ``any``; anything else → None."""
    if written is None:
        return None
    words = written.split()
    if not words or fold(words[0]) != "list":
        return None
    if len(words) == 1:
        return "any"
    if len(words) >= 3 and fold(words[1]) == "of":
        return " ".join(words[2:])
    return None


@attrs.frozen
class Option:
    """A house rule or reading of the rulebook: its choices and default."""

    name: str
    choices: tuple[Level, ...]
    default: Level


@attrs.frozen
class Check:
    """A declared check (or procedure) and the file it came from (for carets)."""

    decl: ast.CheckDecl | ast.ProcedureDecl
    source: Source = attrs.field(eq=False, repr=False)

    @property
    def name(self) -> str:
        return str(self.decl.name)

    def param(self, name: str) -> ast.Param | None:
        key = fold(name)
        return next((p for p in self.decl.params if fold(p.name) == key), None)


@attrs.frozen
class Example:
    """A use of a check that a ruleset shows (``example CHECK (inputs)``)."""

    check: str
    inputs: dict[str, Any]


class Rules:
    """A game's mechanics, ready to resolve checks and compute their odds."""

    def __init__(self, ruleset: Ruleset, limits: Limits = DEFAULT_LIMITS) -> None:
        self.ruleset = ruleset
        self.name = ruleset.name
        self.limits = limits
        self.options: dict[str, Option] = {}
        self.checks: dict[str, Check] = {}
        self.examples: list[Example] = []
        self.procedures: dict[str, Procedure] = {}
        self.resources: dict[str, Resource] = {}
        self.derived: dict[str, tuple[str, ex.Expr, Source]] = {}
        # Nothing here changes per run (that is on each context: interpreter.rules.runstate), so
        # threads may share one Rules. The two memos below only gain entries, each assigned
        # whole and never changed afterwards; threads racing on one key compute it twice and
        # both values are right (two closures compiled from one node behave as one, even
        # while exact odds run: see `World.folds`).
        # Compiled expressions, by node (see `compiled`).
        self._compiled_cache: dict[int, tuple[ex.Expr, Any]] = {}
        # Exact result distributions of checks called from procedures, per inputs.
        self._call_cache: dict[tuple[Any, ...], Distribution] = {}
        self.conditions: dict[str, Condition] = {}
        self.globals = MapEnv()
        sink = DiagnosticSink()
        self._build(sink)
        self.diagnostics: tuple[Diagnostic, ...] = tuple(sink.items)

    # ---------------------------------------------------------------- building

    def _declarations(self) -> list[tuple[Source, Any]]:
        return [(source, block) for source, rules in self.ruleset.files for block in rules.blocks]

    def _build(self, sink: DiagnosticSink) -> None:
        blocks = self._declarations()
        defined: dict[str, tuple[Source, Span | None]] = {}

        # `uses GROUP`: the specialised builtins the rules call (the others' names are free).
        self.uses: tuple[str, ...] = ()
        for source, block in blocks:
            if isinstance(block, ast.UsesDecl):
                for phrase in block.groups:
                    group = " ".join(phrase.text.casefold().split())
                    if group not in BUILTIN_GROUPS:
                        sink.items.append(Diagnostic.make("E0303", source, phrase.span, what="group of builtins",
                                                          name=phrase.text,
                                                          help=did_you_mean(phrase.text, list(BUILTIN_GROUPS))
                                                          or f"groups: {', '.join(BUILTIN_GROUPS)}"))
                    elif group not in self.uses:
                        self.uses += (group,)
        self.hidden = hidden_builtins(self.uses)

        def claim(name: str, source: Source, span: Span | None, callable_: bool = False) -> bool:
            key = fold(name)
            if callable_ and name.casefold() in BUILTINS and name.casefold() not in self.hidden and span is not None:
                sink.items.append(Diagnostic.make("E0306", source, span,
                                                  message=f"'{name}' is the name of a builtin function",
                                                  help="choose another name"))
                return False
            if key in defined:
                first = defined[key][1]
                sink.items.append(Diagnostic.make("E0302", source, span, name=name,
                                                  line=first.line if first else "?"))
                return False
            defined[key] = (source, span)
            return True

        matches: list[tuple[ast.MatchBlock, Source]] = []
        self._unused: list[tuple[Diagnostic, Span | None]] = []
        for host in HOST_FUNCTIONS:
            if host.casefold() in self.hidden:
                continue  # a specialised group this ruleset does not use
            claim(host, Source("<runebook>", ""), None)
            self.globals.define(host, StateQuery(self, host))
        for source, block in blocks:
            if isinstance(block, ast.ResourceDecl):
                if claim(str(block.name), source, block.name.span):
                    self.resources[fold(str(block.name))] = Resource(str(block.name), _settings(block.params), source)
                    # The name stands for the resource itself: resource(actor, Points).
                    self.globals.define(str(block.name), Level("resource", str(block.name), 0, (str(block.name),)))
            elif isinstance(block, ast.ConditionDecl):
                if claim(str(block.name), source, block.name.span):
                    settings = [p for p in block.params if p.name in CONDITION_SETTINGS]
                    own = tuple(p for p in block.params if p.name not in CONDITION_SETTINGS)
                    self.conditions[fold(str(block.name))] = Condition(
                        str(block.name), _settings(settings), block.modifiers, source, own)
                    self.globals.define(str(block.name), Level("condition", str(block.name), 0, (str(block.name),)))
            elif isinstance(block, ast.DeriveDecl):
                self.derived[fold(str(block.name))] = (str(block.name), block.expr, source)
            elif isinstance(block, ast.LevelsDecl):
                names = tuple(p.text for p in block.levels)
                claim(block.name.text, source, block.name.span)
                for rank, phrase in enumerate(block.levels):
                    if claim(phrase.text, source, phrase.span):
                        self.globals.define(phrase.text, Level(block.name.text, phrase.text, rank, names))
            elif isinstance(block, ast.OptionDecl):
                if not claim(block.name.text, source, block.name.span):
                    continue
                names = tuple(p.text for p in block.choices)
                choices = tuple(Level(block.name.text, n, i, names) for i, n in enumerate(names))
                for level, phrase in zip(choices, block.choices):
                    if claim(phrase.text, source, phrase.span):
                        self.globals.define(phrase.text, level)
                default = choices[0]
                if block.default is not None:
                    match = [c for c in choices if fold(c.name) == fold(block.default.text)]
                    if not match:
                        sink.items.append(Diagnostic.make(
                            "E0606", source, block.default.span, name=block.name.text,
                            value=block.default.text, allowed=", ".join(names)))
                    else:
                        default = match[0]
                self.options[fold(block.name.text)] = Option(block.name.text, choices, default)
                # Seen from functions and derived values: the setting of the run in progress.
                self.globals.define(block.name.text, OptionSetting(self, block.name.text, default))
            elif isinstance(block, ast.FunctionDecl):
                name = str(block.name)
                if claim(name, source, block.name.span, callable_=True):
                    self.globals.define(name, Function(name, tuple(p.name for p in block.params), block.body,
                                                       self.globals, source))
            elif isinstance(block, ast.CheckDecl):
                if claim(str(block.name), source, block.name.span, callable_=True):
                    check = self.checks[fold(str(block.name))] = Check(block, source)
                    self.globals.define(check.name, CheckCall(self, check))
            elif isinstance(block, ast.ProcedureDecl):
                # Blocks become flat lines with internal jumps: the form every semantics runs.
                flat_sink = DiagnosticSink(source)
                matches.extend((m, source) for m in ast.walk_statements(block.statements)
                               if isinstance(m, ast.MatchBlock))
                block = attrs.evolve(block, statements=lower(block.statements, flat_sink))
                sink.extend(flat_sink.items)
                if claim(str(block.name), source, block.name.span):
                    self.procedures[fold(str(block.name))] = Procedure(block, source)
                for statement in block.statements:
                    if isinstance(statement, ast.ChooseLine):
                        # A choice's options are levels of the choice, so rules can compare with them.
                        for rank, option in enumerate(statement.choices):
                            if option.isdigit():
                                continue  # a number stands for itself
                            if " to " in option:
                                sink.items.append(Diagnostic.make("E0308", source, statement.span, text=option,
                                                                  most=MAX_CHOICE_RANGE))
                                continue
                            if fold(option) not in defined:
                                defined[fold(option)] = (source, statement.span)
                                self.globals.define(option, Level(statement.name, option, rank, statement.choices))
                                continue
                            try:
                                taken = self.globals.lookup(option)
                            except KeyError:
                                taken = None
                            if not (isinstance(taken, Level) and fold(taken.group) == fold(statement.name)):
                                # Another choice (or a check, level...) has the name: comparing with it
                                # would silently never match this choice's answer.
                                sink.items.append(Diagnostic.make(
                                    "E0306", source, statement.span,
                                    message=f"choice option '{option}' is already the name of something else",
                                    help=f"rename it (e.g. '{statement.name}_{option}') or use the same choice name"))
            elif isinstance(block, ast.TableDecl):
                claim(str(block.name), source, block.name.span)
        # Tables last: a row naming nothing else defines a level of the table's own group.
        for source, block in blocks:
            if isinstance(block, ast.TableDecl):
                self._shadowed_rows(block, source, defined, sink)
                self._table(block, source, defined)
        for match, source in matches:
            self._check_coverage(match, source, sink)
        for check in self.checks.values():
            self._check_names(check, sink)
            self._check_unused(check.decl, check.source, sink)
        for procedure in self.procedures.values():
            self._check_procedure(procedure, sink)
        # `do NAME(args) as LABEL`: the used procedure's lines, brought in (interpreter.rules.inline).
        self.procedures = expand_procedures(self.procedures, sink)
        for condition in self.conditions.values():
            self._check_condition(condition, sink)
        for source, block in blocks:
            if isinstance(block, ast.ExampleDecl):
                self._example(block, source, sink)
        # The type check stage: what would fail at run time whatever the dice say (dsl.typecheck).
        sink.extend(check_types(self.ruleset.files, self.ruleset.vocabulary))
        # Unused values matter once a declaration is otherwise right: not beside its errors.
        wrong = [(d.path, d.span.line) for d in sink.items if d.severity == "error" and d.span is not None]
        for warning, span in self._unused:
            if span is None or not any(path == warning.path and span.line <= line <= span.end_line
                                       for path, line in wrong):
                sink.items.append(warning)
        del self._unused  # building only: a loaded ruleset keeps nothing it does not run with

    def _example(self, block: ast.ExampleDecl, source: Source, sink: DiagnosticSink) -> None:
        check = self.checks.get(fold(str(block.check))) or self.procedures.get(fold(str(block.check)))
        if check is None:
            names = [c.name for c in self.checks.values()] + [p.name for p in self.procedures.values()]
            sink.items.append(Diagnostic.make("E0601", source, block.check.span, name=str(block.check),
                                              help=did_you_mean(str(block.check), names)))
            return
        inputs: dict[str, Any] = {}
        for arg in block.args:
            if check.param(arg.name) is None:
                sink.items.append(Diagnostic.make("E0604", source, arg.span, name=arg.name, check=check.name,
                                                  help=did_you_mean(arg.name, [p.name for p in check.decl.params])))
            elif arg.default is not None:
                try:
                    inputs[arg.name] = _literal(arg.default, self.globals)
                except RunebookError as error:
                    sink.extend(error.diagnostics)
        self.examples.append(Example(check.name, inputs))

    @staticmethod
    def _shadowed_rows(block: ast.TableDecl, source: Source, defined: dict[str, Any],
                       sink: DiagnosticSink) -> None:
        """A warning for a table whose rows give new levels and also a name declared elsewhere
        (a condition `High` turns the row `3+: High` of a table of grades into that condition)."""
        names = [r.value for r in block.rows if isinstance(r.value, ex.Name)]
        if not any(fold(n.text) not in defined for n in names):
            return  # every row names something declared: a table onto existing values
        for name in names:
            if fold(name.text) in defined:
                where, span = defined[fold(name.text)]
                line = f"line {span.line}" if span is not None else "the start"
                place = line if where.name == source.name else f"{where.name}, {line}"
                sink.items.append(Diagnostic.make(
                    "E0307", source, name.span, severity="warning", name=name.text, table=str(block.name),
                    where=place, help=f"rename one of them if '{name.text}' should be a level of '{block.name}'"))

    def _table(self, block: ast.TableDecl, source: Source, defined: dict[str, Any]) -> None:
        name = str(block.name)
        implied = [str(r.value) for r in block.rows
                   if isinstance(r.value, ex.Name) and fold(r.value.text) not in defined]
        implied = list(dict.fromkeys(implied))
        for rank, level in enumerate(implied):
            self.globals.define(level, Level(name, level, rank, tuple(implied)))
            defined[fold(level)] = (source, None)
        rows = []
        for row in block.rows:
            key = row.key
            if key.kind == "exact":
                row_key: tuple[Any, ...] = ("value", key.low)
            elif key.kind == "open":
                row_key = ("range", key.low, None)
            elif key.kind == "range":
                row_key = ("range", key.low, key.high)
            else:
                row_key = ("value", key.name)
            value = row.value
            if isinstance(value, ex.Number):
                rows.append((row_key, value.value))
            elif isinstance(value, ex.Name):
                rows.append((row_key, Derived(f"{name}[{key}]", value, self.globals, source)))
            else:
                rows.append((row_key, Derived(f"{name}[{key}]", value, self.globals, source)))
        self.globals.define(name, Table(name, tuple(rows)))

    def _check_names(self, check: Check, sink: DiagnosticSink) -> None:
        """Every name a check uses is an input, an earlier line, or defined by the game."""
        known = {fold(n) for n in self.globals.names()} | {fold(n) for n in self.options_names()}
        known |= {fold(p.name) for p in check.decl.params} | {"true", "false", "none"} | set(ROLES) | set(GROUPS)
        known |= set(self.ruleset.vocabulary.stats)
        local = [p.name for p in check.decl.params]
        groups = {fold(self.globals.lookup(n).group) for n in self.globals.names()
                  if isinstance(self.globals.lookup(n), Level)}
        for param in check.decl.params:
            kinds = set(self.ruleset.vocabulary.kinds)
            self._check_param_type(param, check.source, known | groups | kinds, sink)
            if param.default is not None:
                self._names_in(param.default, known, check.source, sink, local)
        for statement in check.decl.statements:
            self._names_in(statement.expr, known, check.source, sink, local)
            known.add(fold(statement.name))
            local.append(statement.name)

    def _check_param_type(self, param: ast.Param, source: Source, known: set[str], sink: DiagnosticSink) -> None:
        """An input's type is a basic type, a levels group, an entry kind, or a list of one."""
        written = param.type
        if not written:
            return
        item = list_item_type(written)
        if item == "any":
            return
        wanted = item if item is not None else written
        if fold(wanted) in {fold(t) for t in INPUT_TYPES} or fold(wanted) in known:
            return
        sink.items.append(Diagnostic.make("E0301", source, param.span, name=written,
                                          help=did_you_mean(wanted, INPUT_TYPES)))

    def _check_procedure(self, procedure: Procedure, sink: DiagnosticSink) -> None:
        """Names as in checks; since `goto` can jump back, every name the procedure binds
        counts as known everywhere in it. Every `goto` must name a step."""
        decl = procedure.decl
        known = {fold(n) for n in self.globals.names()} | {fold(n) for n in self.options_names()}
        known |= {fold(p.name) for p in decl.params} | {"true", "false", "none"} | set(ROLES) | set(GROUPS)
        known |= set(self.ruleset.vocabulary.stats)
        local = [p.name for p in decl.params] + [s.name for s in decl.statements
                                                 if isinstance(s, ast.Binding) and not isinstance(s, ast.InputLine)]
        known |= {fold(n) for n in local}
        # `do NAME(...) as LABEL`: the label's results are read as `LABEL.name` (checked when
        # the use is expanded, interpreter.rules.inline); the arguments are the caller's expressions.
        known |= {fold(s.label) for s in decl.statements if isinstance(s, ast.DoLine) and s.label}
        for statement in decl.statements:
            if isinstance(statement, ast.DoLine):
                for arg in tuple(statement.args or ()) + tuple(v for _, v in statement.named):
                    self._names_in(arg, known, procedure.source, sink, local)
        steps = [s.name for s in decl.statements if isinstance(s, ast.StepLine | ast.LabelLine)]
        for statement in decl.statements:
            if statement.expr is not None:
                self._names_in(statement.expr, known, procedure.source, sink, local)
            if isinstance(statement, ast.ChooseLine) and statement.args:  # `choose NAME from LIST`
                self._names_in(statement.args[0], known, procedure.source, sink, local)
            mechanic = ("resource", self.resources) if isinstance(statement, ast.Amount) else \
                ("condition", self.conditions) if isinstance(statement, ast.ConditionChange) else None
            if mechanic is not None:
                what, declared = mechanic
                if fold(statement.name) not in declared:
                    sink.items.append(Diagnostic.make("E0705", procedure.source, statement.span, what=what,
                                                      name=statement.name,
                                                      help=did_you_mean(statement.name,
                                                                        [d.name for d in declared.values()])))
                elif what == "condition":
                    self._check_condition_use(declared[fold(statement.name)], statement, procedure.source,
                                              known, local, sink)
            if statement.on is not None and statement.on not in ROLES and fold(statement.on) not in {
                    fold(n) for n in local}:
                sink.items.append(Diagnostic.make("E0207", procedure.source, statement.span, name=statement.on,
                                                  help=did_you_mean(statement.on, ROLES)))
            if isinstance(statement, ast.GotoLine) and fold(statement.name) not in {fold(n) for n in steps}:
                sink.items.append(Diagnostic.make("E0609", procedure.source, statement.span, name=statement.name,
                                                  help=did_you_mean(statement.name, steps)))
        for param in decl.params:
            groups = {fold(v.group) for v in (self.globals.lookup(n) for n in self.globals.names())
                      if isinstance(v, Level)}
            self._check_param_type(param, procedure.source, groups | set(self.ruleset.vocabulary.kinds), sink)
        self._check_flow(procedure, sink)

    def _check_coverage(self, match: ast.MatchBlock, source: Source, sink: DiagnosticSink) -> None:
        """A `match` whose cases name levels of one group covers every level of it, or has
        an `else`: otherwise a value it does not cover would silently do nothing."""
        if match.otherwise is not None or not match.cases:
            return
        groups: set[str] = set()
        named: set[str] = set()
        every: tuple[str, ...] = ()
        for case in match.cases:
            for pattern in case.patterns:
                if pattern.kind != "name":
                    return
                try:
                    value = self.globals.lookup(pattern.name or "")
                except KeyError:
                    return  # an unknown name: reported where names are checked
                if not isinstance(value, Level):
                    return
                groups.add(value.group)
                named.add(fold(value.name))
                every = value.names or every
        if len(groups) != 1:
            return
        group = groups.pop()
        missing = [n for n in every if fold(n) not in named]
        if missing:
            sink.items.append(Diagnostic.make(
                "E0626", source, match.span, missing=", ".join(f"'{n}'" for n in missing), group=group,
                help=f"add 'case {', '.join(missing)}' or an 'else'"))

    def _check_flow(self, procedure: Procedure, sink: DiagnosticSink) -> None:
        """A name of the procedure's read where some way through it has not set it yet (an
        error: that run would fail), and lines nothing reaches (a warning)."""
        decl = procedure.decl
        flow = Flow(decl.statements)
        outside = {fold(p.name) for p in decl.params} | {fold(n) for n in self.globals.names()}
        outside |= {fold(n) for n in self.options_names()} | set(ROLES) | set(GROUPS)
        outside |= set(self.ruleset.vocabulary.stats)
        outside |= {fold(s.label) for s in decl.statements if isinstance(s, ast.DoLine) and s.label}
        reported: set[str] = set()
        for index, name in flow.unset_reads(frozenset(outside)):
            statement = decl.statements[index]
            if name in reported or name.startswith("#"):
                continue
            reported.add(name)
            where = next((n for n in _names_read(statement) if fold(n.text) == name), None)
            setter = next((s for s in decl.statements if isinstance(s, _WRITTEN_BINDINGS)
                           and fold(s.name) == name), None)
            line = f" (line {setter.span.line})" if setter is not None and setter.span is not None else ""
            sink.items.append(Diagnostic.make(
                "E0624", procedure.source, where.span if where is not None else statement.span,
                name=where.text if where is not None else name,
                help=f"set it with 'let' before this line on every way here; it is set later{line}"))
        self._check_unused(decl, procedure.source, sink)
        reached = flow.reachable()
        previous = True
        for index, statement in enumerate(decl.statements):
            internal = isinstance(statement, ast.LabelLine | ast.TestLine) or statement.name.startswith("#")
            if not reached[index] and previous and not internal:
                sink.items.append(Diagnostic.make(
                    "E0625", procedure.source, statement.span, severity="warning", line=str(statement),
                    help="nothing jumps here and the line above never goes on to it; remove it or "
                    "put it where a run comes"))
            if not internal:
                previous = reached[index]

    def _check_unused(self, decl: ast.CheckDecl | ast.ProcedureDecl, source: Source, sink: DiagnosticSink) -> None:
        """A warning for a `let` or `roll` whose name no line reads and no result gives (an
        entry's lines read names too, where nothing can see: a declaration taking an entry is
        left alone)."""
        kinds = self.ruleset.vocabulary.kinds
        if any(p.type and fold(p.type) in kinds for p in decl.params):
            return
        statements = decl.statements
        if any(isinstance(s, ast.InputLine) for s in statements):
            return  # a `do` brought in another procedure's lines: their names are its own
        read: set[str] = set()
        for statement in statements:
            read |= reads_of(statement)
        for statement in statements:
            if (not isinstance(statement, ast.LetLine | ast.RollLine) or isinstance(statement, ast.ShowLine)
                    or statement.name.startswith("#")):
                continue
            if fold(statement.name) not in read:
                self._unused.append((Diagnostic.make(
                    "E0628", source, statement.span, severity="warning", name=statement.name,
                    help="remove the line, or make it a 'result' if the value is wanted"), decl.span))

    def _check_condition_use(self, condition: Condition, statement: ast.Statement, source: Source,
                             known: set[str], local: list[str], sink: DiagnosticSink) -> None:
        """`apply NAME(values) for N EVENT`: values for its parameters (all of them, or those
        with defaults left out); `remove NAME(values)`: values for the parameters that tell
        instances apart."""
        args = statement.args or ()
        for arg in args:
            self._names_in(arg, known, source, sink, local)
        if statement.duration is not None:
            self._names_in(statement.duration[0], known, source, sink, local)
        applied = isinstance(statement, ast.ApplyLine)
        params = condition.params if applied else condition.keys
        needed = [p.name for p in params if p.default is None]
        if len(args) > len(params) or (applied and len(args) < len(needed)):
            shown = ", ".join(p.name for p in params) or "none"
            sink.items.append(Diagnostic.make(
                "E0406", source, statement.span, name=condition.name,
                expected=f"{len(needed)}" + (f" to {len(params)}" if len(params) != len(needed) else "")
                + f" ({shown})", got=len(args)))

    def _check_condition(self, condition: Condition, sink: DiagnosticSink) -> None:
        """Its lines and defaults use known names (the holder's stats, its parameters,
        `holder`); an `implies` line names a declared condition that needs no values."""
        local = [p.name for p in condition.params] + ["holder"]
        known = {fold(n) for n in self.globals.names()} | {fold(n) for n in self.options_names()}
        known |= {fold(n) for n in local} | {"true", "false", "none"} | set(self.ruleset.vocabulary.stats)
        for param in condition.params:
            if param.default is not None:
                self._names_in(param.default, known, condition.source, sink, local)
        for line in condition.modifiers:
            if line.expr is not None:
                self._names_in(line.expr, known, condition.source, sink, local)
        for line in condition.lines(ast.ImpliesLine):
            implied = self.conditions.get(fold(line.name))
            if implied is None:
                sink.items.append(Diagnostic.make("E0705", condition.source, line.span, what="condition",
                                                  name=line.name,
                                                  help=did_you_mean(line.name,
                                                                    [c.name for c in self.conditions.values()])))
            elif any(p.default is None for p in implied.params):
                sink.items.append(Diagnostic.make("E0602", condition.source, line.span,
                                                  name=next(p.name for p in implied.params if p.default is None),
                                                  check=implied.name,
                                                  help="an implied condition takes its defaults; give the "
                                                  "parameter a default"))

    def _names_in(self, expr: ex.Expr, known: set[str], source: Source, sink: DiagnosticSink,
                  local: list[str]) -> None:
        candidates = local + list(self.globals.names()) + self.options_names()
        for node in expression_names(expr):
            target = node.owner if isinstance(node, ex.Possessive) else node
            while isinstance(target, ex.Possessive):
                target = target.owner
            if isinstance(target, ex.Name) and fold(target.text) not in known:
                sink.items.append(Diagnostic.make("E0207", source, target.span, name=target.text,
                                                  help=did_you_mean(target.text, candidates)))
        for call in _calls(expr):
            name = call.func.text
            if name.casefold() in self.hidden and fold(name) not in known:
                group = BUILTIN_REGISTRY[name.casefold()].group
                sink.items.append(Diagnostic.make("E0412", source, call.func.span, name=name,
                                                  help=f"'{name}' is one of the {group} builtins: add a line "
                                                  f"'uses {group}' to use them"))
            elif name.casefold() not in BUILTINS and fold(name) not in known:
                sink.items.append(Diagnostic.make("E0412", source, call.func.span, name=name,
                                                  help=did_you_mean(name, list(BUILTINS) + candidates)))

    def options_names(self) -> list[str]:
        return [o.name for o in self.options.values()]

    # ---------------------------------------------------------------- running

    def check(self, name: str) -> Check:
        """A check by name (any case, spaces, hyphens or underscores)."""
        found = self.checks.get(fold(name))
        if found is None:
            names = [c.name for c in self.checks.values()]
            raise RunebookError([Diagnostic.make(
                "E0601", None, None, name=name,
                help=did_you_mean(name, names) or (f"checks in {self.name}: {', '.join(names)}" if names
                                                   else f"{self.name} declares no checks"))])
        return found

    def entity(self, path: str) -> Any:
        """Load a character, NPC or obstacle file against this game's stats, resources and
        conditions; resources it does not list start at their declared start."""
        return self._prepared(load_entity(path, self.ruleset.vocabulary, [r.name for r in self.resources.values()],
                                          [c.name for c in self.conditions.values()], bind=self._bind_held))

    def entities(self, path: str) -> list[Any]:
        """The entities of a file: one, or each of a YAML list of them (a party)."""
        found = load_entities(path, self.ruleset.vocabulary, [r.name for r in self.resources.values()],
                              [c.name for c in self.conditions.values()], bind=self._bind_held)
        return [self._prepared(entity) for entity in found]

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
        own = MapEnv(dict(entity.stats), parent=self.globals)
        own.define(HOLDER, entity)  # a derived value reading a stat the file lacks says so
        for name, expr, source in self.derived.values():
            if fold(name) not in {fold(s) for s in entity.stats}:  # a stat the file gives wins
                entity.derived[name] = Derived(name, expr, own, source)
                own.define(name, entity.derived[name])
        for resource in self.resources.values():
            if resource.name not in entity.resources:
                start = resource.settings.get("start") or resource.settings.get("cap")
                if start is not None and self._lacks_stats(start, entity):
                    continue  # its start reads stats this entity does not have: it holds none
                entity.resources[resource.name] = self._owner_value(start, entity, resource.source) if start else 0
        return entity

    def _lacks_stats(self, expr: ex.Expr, owner: Any) -> bool:
        """Whether an expression names a stat of the game that the owner's file does not give."""
        have = {fold(s) for s in owner.stats}
        for node in expression_names(expr):
            if isinstance(node, ex.Name) and fold(node.text) in self.ruleset.vocabulary.stats \
                    and fold(node.text) not in have:
                return True
        return False

    def _owner_value(self, expr: ex.Expr, owner: Any, source: Source) -> Any:
        """A setting such as a cap, computed from its owner's stats."""
        ctx = Context(limits=self.limits)
        env = MapEnv(dict(owner.stats) if owner is not None else {}, parent=self.globals)
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
            raise RunebookError([Diagnostic.make("E0701", site[0], site[1], name=stat,
                                                 help=f"{entity.name} has no such stat")]) from None
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
        for name, choice in (chosen or {}).items():
            option = self.options.get(fold(name))
            if option is None:
                problems.append(Diagnostic.make("E0605", None, None, name=name,
                                                help=did_you_mean(name, self.options_names())))
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
                    help=did_you_mean(name, [p.name for p in check.decl.params])
                    or f"inputs: {', '.join(p.name for p in check.decl.params)}"))
                continue
            offered.add(param.name)
            converted = self._convert(param, value, check, problems)
            if converted is not None:
                values[param.name] = converted
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
        if isinstance(value, str):
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
            problems.append(Diagnostic.make("E0603", None, None, name=param.name, expected=expected,
                                            value=_shown(value)))
            return None
        return value

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
        stats = MapEnv({**dict(actor.stats), **dict(actor.derived)} if actor is not None else {},
                       parent=self.globals)
        present: dict[str, Any] = {role: MissingRole(role) for role in ROLES}
        for role, group in zip(ROLES, GROUPS):
            members = tuple(e for key, e in (roles or {}).items() if key.split("#")[0] == role)
            if members:
                present[role] = members[0]
            present[group] = members
        scope = MapEnv({**dict(options), **present}, parent=stats)
        for param in params:
            if param.name in inputs:
                scope.define(param.name, inputs[param.name])
            elif param.default is not None:
                scope.define(param.name, ctx.result(ctx.evaluate(self.compiled(param.default, source), scope)))
        return scope

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
            spec = pool_spec(compiled, env, limits=self.limits)
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
             options: Mapping[str, Level], roles: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Run a check's lines in order against one context: the single code path."""
        run = ctx.run
        if run is None:
            run = ctx.run = RunState()
        previous = run.options, run.roles
        run.options, run.roles = options, roles
        try:
            scope = self._scope(ctx, check.decl.params, inputs, options, roles, check.source)
            env = MapEnv({}, parent=scope)
            self.entry_views(scope, env, ctx)
            results: dict[str, Any] = {}
            for index, statement in enumerate(check.decl.statements):
                value = VALUE_LINES[type(statement)](self, ctx, statement, check.source, env, index, check.name)
                if isinstance(statement, ast.ResultLine):
                    results[statement.name] = value
            return results
        finally:
            run.options, run.roles = previous

    def enumerate(self, fn: Any) -> Distribution:
        """``joint(fn)`` with pools named by their place in the run: every world's context
        gets a run state whose ``pools`` are this enumeration's (see interpreter.rules.runstate)."""
        pools: dict[tuple[Any, ...], PoolSource] = {}

        def world(ctx: Context) -> Any:
            ctx.run = RunState(pools=pools)
            return fn(ctx)

        return joint(world, limits=self.limits)

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


    def resolve(self, check: str, *, options: Mapping[str, str] | None = None, seed: int | None = None,
                dice: Sequence[int] | None = None, rng: random.Random | None = None,
                as_: Any = None, against: Any = None, **inputs: Any) -> CheckResult:
        """Resolve a check once: with a seeded RNG, or with the faces a player rolled.

        ``as_`` and ``against`` are entities (:meth:`entity`), like ``--as`` and
        ``--against``; in the check they are ``actor`` and ``target``.
        """
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
        return self.procedures.get(fold(name))

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

    def run(self, name: str, *, options: Mapping[str, str] | None = None, seed: int | None = None,
            dice: Sequence[int] | None = None, rng: random.Random | None = None, driver: Any = None,
            as_: Any = None, against: Any = None, **inputs: Any) -> Any:
        """Run a procedure (or a check) to its end, asking ``driver`` at each choice point.

        Returns a :class:`~interpreter.rules.procedures.RunResult`.
        """
        procedure = self.procedure(name)
        if procedure is None and fold(name) not in self.checks:
            used = self._user_of(name)
            if used is not None:
                procedure, param = used
                inputs = {param: name, **inputs}
        if procedure is None:
            if fold(name) in self.checks:
                result = self.resolve(name, options=options, seed=seed, dice=dice, rng=rng, as_=as_,
                                      against=against, **inputs)
                return RunResult(result.check, result.results, _state(result.inputs, role_map(as_, against)), result.trace)
            usable = {fold(p.type) for proc in self.procedures.values() for p in proc.decl.params if p.type}
            names = [p.name for p in self.procedures.values()] + [c.name for c in self.checks.values()]
            names += [e.entry.name for e in self.ruleset.entries if fold(e.kind or "") in usable]
            raise RunebookError([Diagnostic.make("E0608", None, None, name=name, help=did_you_mean(name, names))])
        decl = procedure.decl
        bound = self.bind_inputs(procedure, inputs, _first(as_))
        chosen = self.option_values(options)
        driver = driver if driver is not None else ScriptedDriver([])
        if dice is not None:
            oracle: Any = GivenOracle(list(dice), Source("--dice", ",".join(map(str, dice))))
        else:
            oracle = RandomOracle(rng if rng is not None else random.Random(seed))
        # The run changes copies: a run that fails leaves every entity as it was.
        roles = role_map(as_, against, copy=True)
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

    def odds(self, check: str, *, options: Mapping[str, str] | None = None, as_: Any = None,
             against: Any = None, answers: Mapping[str, str] | None = None, **inputs: Any) -> Any:
        """The exact distribution of every named result of a check — or of a procedure,
        solved as a Markov chain (:mod:`interpreter.markov.chains`; ``answers`` fixes its choices)."""
        procedure = self.procedure(check)
        if procedure is None and fold(check) not in self.checks:
            used = self._user_of(check)
            if used is not None:
                procedure, param = used
                inputs = {param: check, **inputs}
        if procedure is not None:
            bound = self.bind_inputs(procedure, inputs, _first(as_))
            roles = role_map(as_, against)
            return procedure_odds(self, procedure, bound, self.option_values(options), roles, answers)
        spec = self.check(check)
        bound = self.bind_inputs(spec, inputs, _first(as_))
        roles = role_map(as_, against)
        chosen = self.option_values(options)
        names: list[str] = [s.name for s in spec.decl.statements if isinstance(s, ast.ResultLine)]

        def outcome(ctx: Context) -> tuple[Any, ...]:
            results = self.in_world(ctx, lambda: self._run(ctx, spec, bound, chosen, roles))
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
            key = env.index.get(normalize_name(node.text))
            value = env.mapping.get(key) if key is not None else None
            if isinstance(value, (bool, int, Fraction, str, Level)):
                shown[node.text] = format_value(value)
    parts = [f"{text} = {value}" for text, value in list(shown.items())[:6]]
    return "here " + "; ".join(parts) if parts else None


#: Functions the rules layer gives every game: an entity's state, read in expressions (their
#: signatures and docs: the lines marked `host=True` in dsl/builtins.py).
HOST_FUNCTIONS = host_functions()


@attrs.frozen
class Resource:
    """A declared resource: ``cap``, ``start`` and ``reset`` settings (expressions)."""

    name: str
    settings: dict[str, Any]
    source: Source = attrs.field(eq=False, repr=False)


#: Settings of a condition declaration; its other inputs are the condition's parameters.
CONDITION_SETTINGS = ("type", "lasts", "stacks")


@attrs.frozen
class Condition:
    """A declared condition: its settings (``type``, ``lasts``), its parameters and its
    ``modifier``/``becomes``/``implies`` lines.

    A parameter typed ``number`` (or untyped) is an amount: applying the condition again
    keeps the larger one. Any other parameter (``kind: text``) tells instances apart:
    ``Burning(3, "oil")`` and ``Burning(2, "pitch")`` are two conditions.
    """

    name: str
    settings: dict[str, Any]
    modifiers: tuple[ast.Statement, ...]
    source: Source = attrs.field(eq=False, repr=False)
    params: tuple[ast.Param, ...] = ()

    def is_amount(self, param: ast.Param) -> bool:
        return param.type is None or param.type == "number"

    @property
    def keys(self) -> tuple[ast.Param, ...]:
        return tuple(p for p in self.params if not self.is_amount(p))

    def lines(self, cls: type[ast.Statement]) -> tuple[Any, ...]:
        """Its lines of one class (``ast.ModifierLine``, ``ast.BecomesLine``, ``ast.ImpliesLine``)."""
        return tuple(m for m in self.modifiers if isinstance(m, cls))


def _settings(params: Sequence[ast.Param]) -> dict[str, Any]:
    return {p.name: p.default for p in params}


#: How each line of a check (and the value lines of a procedure) runs: ``Rules.run_statement``.
VALUE_LINES: dict[type, Callable[..., Any]] = {
    ast.LetLine: Rules.run_let,
    ast.SetLine: Rules.run_set,
    ast.ResultLine: Rules.run_result,
    ast.ShowLine: run_show,
    ast.RollLine: Rules.run_roll,
    ast.RequireLine: Rules.run_require,
}

#: Lines an author writes that bind a name (where a name read too early is set later).
_WRITTEN_BINDINGS = (ast.LetLine, ast.RollLine, ast.SetLine, ast.ResultLine, ast.ChooseLine)


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
    identifying values) and ``stat(entity, Stat)`` (the stat with its conditions applied)."""

    rules: Rules
    name: str

    def invoke(self, ctx: Context, args: list[Any], site: Any) -> Any:
        if self.name == "line":
            return self._line(ctx, args, site)  # type: ignore[attr-defined]
        if self.name in ("line_text", "number_in", "meets", "data_of", "level_in"):
            return entry_query(self.rules, self.name, ctx, args, site)
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


@attrs.frozen
class Procedure(Check):
    """A declared procedure and the file it came from."""


@attrs.frozen(eq=False)
class CheckCall:
    """A check used like a function inside rules (``contest(ability, resistance)``): it
    runs with the caller's context, options and entities, and gives a record of results."""

    rules: Rules
    check: Check

    @property
    def name(self) -> str:
        return self.check.name

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
        names = [s.name for s in self.check.decl.statements if isinstance(s, ast.ResultLine)]
        try:
            key = (self.check.name, tuple(sorted(inputs.items())), tuple(sorted((k, v.name) for k, v in options.items())),
                   tuple(sorted((role, tuple(sorted(e.stats.items())), tuple(sorted(e.resources.items())),
                                 tuple(e.conditions)) for role, e in (roles or {}).items())))
            hash(key)
        except TypeError:
            return None
        cache = self.rules._call_cache
        dist = cache.get(key)
        if dist is None:
            rules = self.rules

            def outcome(inner: Context) -> tuple[Any, ...]:
                results = rules.in_world(inner, lambda: rules._run(inner, self.check, inputs, options, roles))
                return tuple(results.get(n) for n in names)

            dist = cache[key] = rules.enumerate(outcome)
        unknown = object()
        branches = list(dist.items()) + ([(unknown, dist.residual)] if dist.residual else [])
        picked = ctx.world.choose(branches)
        if picked is unknown:
            raise Undetermined
        return Record(zip(names, picked))


def _names_read(statement: ast.Statement) -> list[ex.Name]:
    found: list[ex.Name] = []
    for expr in ([statement.expr] if statement.expr is not None else []) + list(statement.args or ()):
        found.extend(n for n in expression_names(expr) if isinstance(n, ex.Name))
    return found


def _calls(expr: ex.Expr) -> list[ex.Call]:
    found, stack = [], [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ex.Call):
            found.append(node)
        stack.extend(node.children())
    return found


def _literal(expr: ex.Expr, env: MapEnv) -> Any:
    """A `--with` value: a number, a rating, a name the game defines, or text."""
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
                                         help="give a number, a rating such as 7M2, or a name")])


def _state(values: Mapping[str, Any], roles: Mapping[str, Any]) -> dict[str, Any]:
    """What a run leaves behind: its values, and each entity taking part (``actors`` and
    ``targets`` list them all when several take part on a side)."""
    state: dict[str, Any] = {k: v for k, v in values.items()
                             if not isinstance(v, PoolSource | CheckCall) and not _is_entity(v)}
    for role, group in zip(ROLES, GROUPS):
        members = [e for key, e in roles.items() if key.split("#")[0] == role]
        if members:
            state[role] = members[0].state()
        if len(members) > 1:
            state[group] = [e.state() for e in members]
    return state


def _entity_named(env: MapEnv, name: str, source: Source, span: Span | None) -> Any:
    """``spend HP 3 on hero``: the entity a name of the procedure holds (a loop's member)."""
    try:
        value = env.lookup(name)
    except KeyError:
        value = None
    if not isinstance(value, Entity):
        raise RunebookError([Diagnostic.make("E0405", source, span, op=f"on {name}",
                                             kind="something that is not a character" if value is not None
                                             else "a name nothing set", help="'on' names actor, target or a "
                                             "name holding one of them (for each hero in actors)")])
    return value


def _is_entity(value: Any) -> bool:
    return isinstance(value, Entity) or (type(value) is tuple and any(isinstance(v, Entity) for v in value))


def _shown(value: Any) -> str:
    return str(value)


def load(game: str, limits: Limits = DEFAULT_LIMITS) -> Rules:
    """Load a built-in game (or a folder of .rules files) with its mechanics.

    Raises :class:`RunebookError` when the game is unknown or its files have errors.
    """
    loaded = load_game(game)
    if isinstance(loaded, Diagnostic):
        raise RunebookError([loaded])
    errors = [d for d in loaded.diagnostics if d.severity == "error"]
    if errors:
        raise RunebookError(errors)
    rules = Rules(loaded, limits)
    if any(d.severity == "error" for d in rules.diagnostics):
        raise RunebookError([d for d in rules.diagnostics if d.severity == "error"])
    return rules
