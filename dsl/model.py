"""A game's mechanics as one immutable model: every name it declares bound, every
declaration checked, and all the diagnostics a run could have seen collected.

:func:`build_model` reads a checked ruleset (``dsl.loader``) and returns a :class:`Model`:
the options, levels, resources, conditions, functions, checks, procedures (their blocks
lowered to flat lines and their ``do`` lines expanded) and tables, each with the file it came
from, plus the diagnostics of the name, duplicate, option, condition, flow and type checks.
``runebook check`` needs nothing else, and the interpreter (``interpreter.rules``) builds
its runtime values from the model without checking anything again.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import attrs

from runebook.dsl import ast
from runebook.dsl import expr_ast as ex
from runebook.dsl.builder import MAX_CHOICE_RANGE
from runebook.dsl.builtins import BUILTINS, GROUPS, foreign_help, hidden_builtins, host_functions
from runebook.dsl.checker import expression_names
from runebook.dsl.diagnostics import Diagnostic, DiagnosticSink, did_you_mean
from runebook.dsl.flow import Flow, flow_of, lower, reads_of
from runebook.dsl.inline import expand_procedures
from runebook.dsl.loader import Ruleset
from runebook.dsl.source import Source, Span, gc_paused
from runebook.dsl.typecheck import check_types
from runebook.dsl.types import LITERAL_WORDS
from runebook.dsl.vocabulary import fold

__all__ = [
    "CONDITION_SETTINGS", "GROUPS_OF_ROLES", "INPUT_TYPES", "ROLES", "Check", "CheckName", "Condition",
    "Example", "FunctionName", "HostName", "LevelName", "Model", "OptionModel", "OptionName", "Procedure",
    "Resource", "TableName", "build_model", "is_literal", "list_item_type", "takes_entry",
]

#: Names a check may use for the entities taking part (`--as`, `--against`): the first of
#: each, and (`actors`, `targets`) all of them, in order, when several are given.
ROLES = ("actor", "target")
GROUPS_OF_ROLES = ("actors", "targets")

#: Input types a check may declare (`ability: rating`), besides the name of a levels group,
#: an entry kind, or a list of any of them (`heroes: list of rating`; `list`: of anything).
INPUT_TYPES = ("number", "rating", "text", "boolean", "list", "character")

#: Settings of a condition declaration; its other inputs are the condition's parameters.
CONDITION_SETTINGS = ("type", "lasts", "stacks")

#: Lines an author writes that bind a name (where a name read too early is set later).
_WRITTEN_BINDINGS = (ast.LetLine, ast.RollLine, ast.SetLine, ast.ResultLine, ast.ChooseLine)


#: The most lines one procedure may hold as written (its loops and blocks as the flat lines a run
#: follows); the games' longest, expanded, has about 2,000.
MAX_PROCEDURE_LINES = 10_000


def _holds_dice(expr: ex.Expr) -> bool:
    """Whether a `let` of this expression holds a pool as it is: dice alone, or a list or
    either way of a condition holding one (a record's fields are their values' numbers)."""
    if isinstance(expr, ex.Dice | ex.RollGroup):
        return True
    if isinstance(expr, ex.ListOf):
        return any(_holds_dice(item) for item in expr.items)
    if isinstance(expr, ex.Comprehension):
        return _holds_dice(expr.value)
    if isinstance(expr, ex.Conditional):
        return _holds_dice(expr.then) or _holds_dice(expr.otherwise)
    return False


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


def takes_entry(decl: ast.CheckDecl | ast.ProcedureDecl, kinds: Any) -> bool:
    """Whether a declaration takes an entry (an input of an entry kind, its own or one a `do`
    brought in): an entry's lines read the run's names where no analysis sees them."""
    return any(p.type and fold(p.type) in kinds for p in decl.params) or any(
        isinstance(s, ast.InputLine) and s.inlined is not None and s.inlined.param is not None
        and s.inlined.param.type and fold(s.inlined.param.type) in kinds for s in decl.statements)


def is_literal(expr: ex.Expr) -> bool:
    """Whether an input value is written as one: a number (signed), a decimal, a rating, a
    name or text, a list of those, or a record of those (``{who: 1, did: attack}``) alone or
    in a list — what ``example`` lines and ``--with`` take."""
    if isinstance(expr, ex.Unary):
        return isinstance(expr.operand, ex.Number | ex.Rating)
    if isinstance(expr, ex.ListOf):
        return all(is_literal(item) and not isinstance(item, ex.ListOf) for item in expr.items)
    if isinstance(expr, ex.RecordOf):
        return all(is_literal(value) and not isinstance(value, ex.RecordOf) for _, value in expr.fields)
    return isinstance(expr, ex.Number | ex.Decimal | ex.Rating | ex.Name | ex.String)


# ---------------------------------------------------------------- declarations


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
class Procedure(Check):
    """A declared procedure: its lines lowered to flat form, ``do`` lines expanded."""


@attrs.frozen
class Resource:
    """A declared resource: ``cap``, ``start`` and ``reset`` settings (expressions)."""

    name: str
    settings: dict[str, Any]
    source: Source = attrs.field(eq=False, repr=False)


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


@attrs.frozen
class OptionModel:
    """A house rule or reading of the rulebook: its choices (in order) and the default's index."""

    name: str
    choices: tuple[str, ...]
    default: int = 0


@attrs.frozen
class Example:
    """A use of a check that a ruleset shows (``example CHECK (inputs)``): inputs as written,
    and the lines that make it a test (``dice``, ``expect``), in the file ``source``."""

    check: str
    args: tuple[tuple[str, ex.Expr], ...]
    lines: tuple[ast.ExampleDice | ast.Expectation | ast.ExpectRefusal | ast.ExampleAnswer | ast.ExampleOption
                 | ast.ExampleSheet, ...] = ()
    source: Source | None = attrs.field(default=None, eq=False)
    span: Span | None = attrs.field(default=None, eq=False)


# ------------------------------------------------- what each game name stands for


@attrs.frozen
class LevelName:
    """One of an ordered group of names: a level, an option's choice, a choice's option, a
    table's row value, or a resource or condition named as a value."""

    group: str
    name: str
    rank: int
    names: tuple[str, ...]


@attrs.frozen
class HostName:
    """A function the rules layer gives every game (an entity's state, read in expressions)."""

    name: str


@attrs.frozen
class OptionName:
    """An option's name, read as the setting of the run in progress."""

    option: OptionModel


@attrs.frozen
class FunctionName:
    """A pure function the game declares."""

    decl: ast.FunctionDecl
    source: Source = attrs.field(eq=False, repr=False)


@attrs.frozen
class CheckName:
    """A check, called from expressions for its results."""

    check: Check


@attrs.frozen
class TableName:
    """A table; ``rows`` are (key, the key as written, value expression), keys being
    ``("value", v)`` or ``("range", low, high)`` (``high`` None for an open range)."""

    name: str
    rows: tuple[tuple[tuple[Any, ...], str, ex.Expr], ...]
    source: Source = attrs.field(eq=False, repr=False)


Named = LevelName | HostName | OptionName | FunctionName | CheckName | TableName


@attrs.frozen
class Model:
    """A game's mechanics, checked: what ``runebook check`` reports and the interpreter runs.

    ``values`` lists every name the game gives a value, in the order declared (what each
    stands for: :data:`Named`); the mappings are keyed by folded name and read-only, and
    every node is frozen, so one model is safe to share between threads.
    """

    ruleset: Ruleset
    uses: tuple[str, ...]
    hidden: frozenset[str]
    values: tuple[tuple[str, Named], ...]
    options: Mapping[str, OptionModel]
    checks: Mapping[str, Check]
    procedures: Mapping[str, Procedure]
    resources: Mapping[str, Resource]
    conditions: Mapping[str, Condition]
    derived: Mapping[str, tuple[str, ex.Expr, Source]]
    examples: tuple[Example, ...]
    diagnostics: tuple[Diagnostic, ...]

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]


def build_model(ruleset: Ruleset) -> Model:
    """Bind and check a ruleset's mechanics (see the module's docstring), once per ruleset:
    both are immutable, and an unchanged game's files load as the same ruleset (the
    loader keeps it), so every load of a game after the first takes the model built then."""
    found = _MODELS.get(id(ruleset))
    if found is not None and found[0] is ruleset:
        return found[1]
    with gc_paused():  # a name per level of a large table: no cycles, many objects
        model = _Builder(ruleset).build()
    if len(_MODELS) >= 16:  # an editor makes a new ruleset per change: keep a few only
        _MODELS.clear()
    _MODELS[id(ruleset)] = (ruleset, model)
    return model


#: Models built, by their ruleset's id (the ruleset kept beside it, so the id stays its own).
_MODELS: dict[int, tuple[Ruleset, Model]] = {}


# ---------------------------------------------------------------- building


class _Builder:
    """Reads the declarations once, in order, claiming each name; then checks them."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self.sink = DiagnosticSink()
        self.defined: dict[str, tuple[Source, Span | None]] = {}
        self.values: dict[str, tuple[str, Named]] = {}
        self.options: dict[str, OptionModel] = {}
        self.checks: dict[str, Check] = {}
        self.procedures: dict[str, Procedure] = {}
        self.resources: dict[str, Resource] = {}
        self.conditions: dict[str, Condition] = {}
        self.derived: dict[str, tuple[str, ex.Expr, Source]] = {}
        self.examples: list[Example] = []
        self.uses: tuple[str, ...] = ()
        self.hidden: frozenset[str] = frozenset()
        self.unused: list[tuple[Diagnostic, Span | None]] = []

    def blocks(self) -> Iterator[tuple[Source, Any]]:
        for source, rules in self.ruleset.files:
            for block in rules.blocks:
                yield source, block

    def error(self, *args: Any, **kwargs: Any) -> None:
        self.sink.items.append(Diagnostic.make(*args, **kwargs))

    def define(self, name: str, value: Named) -> None:
        self.values[fold(name)] = (name, value)

    def lookup(self, name: str) -> Named | None:
        found = self.values.get(fold(name))
        return found[1] if found is not None else None

    def claim(self, name: str, source: Source, span: Span | None, callable_: bool = False) -> bool:
        """Whether ``name`` is free to declare here (else a diagnostic, and the first one stays)."""
        key = fold(name)
        self.literal_word(name, source, span)
        builtin = BUILTINS.get(name.casefold())
        if callable_ and builtin is not None and not builtin.host and span is not None \
                and name.casefold() not in self.hidden:
            self.error("E0306", source, span, message=f"'{name}' is the name of a builtin function",
                       help="choose another name")
            return False
        if key in self.defined:
            where, first = self.defined[key]
            line: object = first.line if first else "?"
            if where.name != source.name:
                line = f"{line} of {where.name}"
            self.error("E0302", source, span, name=name, line=line)
            return False
        self.defined[key] = (source, span)
        return True

    def literal_word(self, name: str, source: Source, span: Span | None) -> None:
        """A warning for a level named `true`, `false` or `none`: in rules those words are
        always the values, so no expression can name the level (answers and --option still can)."""
        if fold(name) in LITERAL_WORDS and span is not None:
            self.error("E0306", source, span, severity="warning",
                       message=f"'{name}' is a value of the language: in rules it means {fold(name)}, not this level",
                       help="to compare with the level, rename it (such as 'nothing' or 'off')")

    # -------------------------------------------------------------- declarations

    def build(self) -> Model:
        self.read_uses()
        for host in host_functions():
            if host.casefold() in self.hidden:
                continue  # a specialised group this ruleset does not use
            self.claim(host, Source("<runebook>", ""), None)
            self.define(host, HostName(host))
        matches: list[tuple[ast.MatchBlock, Source]] = []
        for source, block in self.blocks():
            self.declare(block, source, matches)
        # Tables last: a row naming nothing else defines a level of the table's own group.
        for source, block in self.blocks():
            if isinstance(block, ast.TableDecl):
                self.shadowed_rows(block, source)
                self.table(block, source)
        for match, source in matches:
            self.check_coverage(match, source)
        for _, named in list(self.values.values()):
            if isinstance(named, FunctionName):
                self.check_function(named)
        for declared in list(self.checks.values()) + list(self.procedures.values()):
            self.check_inputs(declared)
        self.check_derived()
        for check in self.checks.values():
            self.check_names(check)
            self.check_unused(check.decl, check.source)
            self.check_sets(check.decl, check.source,
                            self.known_outside() | {fold(p.name) for p in check.decl.params})
        for procedure in self.procedures.values():
            self.check_procedure(procedure)
        # `do NAME(args) as LABEL`: the used procedure's lines, brought in (dsl.inline).
        self.procedures = expand_procedures(self.procedures, self.sink, checks=self.checks)
        warned: set[tuple[str, int]] = set()
        for procedure in self.procedures.values():
            self.check_rolls_kept(procedure, warned)
        for condition in self.conditions.values():
            self.check_condition(condition)
        for source, block in self.blocks():
            if isinstance(block, ast.ExampleDecl):
                self.example(block, source)
            elif isinstance(block, ast.KindDecl):
                self.kind_checks(block, source)
        # The type check stage: what would fail at run time whatever the dice say (dsl.typecheck).
        self.sink.extend(check_types(self.ruleset.files, self.ruleset.vocabulary))
        # Unused values matter once a declaration is otherwise right: not beside its errors.
        wrong = [(d.path, d.span.line) for d in self.sink.items if d.severity == "error" and d.span is not None]
        for warning, span in self.unused:
            if span is None or not any(path == warning.path and span.line <= line <= span.end_line
                                       for path, line in wrong):
                self.sink.items.append(warning)
        frozen = MappingProxyType
        return Model(self.ruleset, self.uses, self.hidden, tuple(self.values.values()), frozen(self.options),
                     frozen(self.checks), frozen(self.procedures), frozen(self.resources),
                     frozen(self.conditions), frozen(self.derived), tuple(self.examples), tuple(self.sink.items))

    def read_uses(self) -> None:
        """`uses GROUP`: the specialised builtins the rules call (the others' names are free)."""
        for source, block in self.blocks():
            if not isinstance(block, ast.UsesDecl):
                continue
            for phrase in block.groups:
                group = " ".join(phrase.text.casefold().split())
                if group not in GROUPS:
                    self.error("E0303", source, phrase.span, what="group of builtins", name=phrase.text,
                               help=did_you_mean(phrase.text, list(GROUPS)) or f"groups: {', '.join(GROUPS)}")
                elif group not in self.uses:
                    self.uses += (group,)
        self.hidden = frozenset(hidden_builtins(self.uses))

    def declare(self, block: Any, source: Source, matches: list[tuple[ast.MatchBlock, Source]]) -> None:
        handler = _DECLARE.get(type(block))
        if handler is not None:
            handler(self, block, source, matches)

    def declare_resource(self, block: ast.ResourceDecl, source: Source, _: Any) -> None:
        name = str(block.name)
        if self.claim(name, source, block.name.span):
            self.resources[fold(name)] = Resource(name, _settings(block.params), source)
            # The name stands for the resource itself: resource(actor, Points).
            self.define(name, LevelName("resource", name, 0, (name,)))

    def declare_condition(self, block: ast.ConditionDecl, source: Source, _: Any) -> None:
        name = str(block.name)
        if self.claim(name, source, block.name.span):
            settings = [p for p in block.params if p.name in CONDITION_SETTINGS]
            own = tuple(p for p in block.params if p.name not in CONDITION_SETTINGS)
            self.conditions[fold(name)] = Condition(name, _settings(settings), block.modifiers, source, own)
            self.define(name, LevelName("condition", name, 0, (name,)))

    def declare_derived(self, block: ast.DeriveDecl, source: Source, _: Any) -> None:
        self.derived[fold(str(block.name))] = (str(block.name), block.expr, source)

    def declare_levels(self, block: ast.LevelsDecl, source: Source, _: Any) -> None:
        names = tuple(p.text for p in block.levels)
        self.claim(block.name.text, source, block.name.span)
        for rank, phrase in enumerate(block.levels):
            if self.claim(phrase.text, source, phrase.span):
                self.define(phrase.text, LevelName(block.name.text, phrase.text, rank, names))

    def declare_option(self, block: ast.OptionDecl, source: Source, _: Any) -> None:
        if not self.claim(block.name.text, source, block.name.span):
            return
        names = tuple(p.text for p in block.choices)
        for rank, phrase in enumerate(block.choices):
            if self.claim(phrase.text, source, phrase.span):
                self.define(phrase.text, LevelName(block.name.text, phrase.text, rank, names))
        default = 0
        if block.default is not None:
            found = [i for i, n in enumerate(names) if fold(n) == fold(block.default.text)]
            if not found:
                self.error("E0606", source, block.default.span, name=block.name.text,
                           value=block.default.text, allowed=", ".join(names))
            else:
                default = found[0]
        option = self.options[fold(block.name.text)] = OptionModel(block.name.text, names, default)
        # Seen from functions and derived values: the setting of the run in progress.
        self.define(block.name.text, OptionName(option))

    def declare_function(self, block: ast.FunctionDecl, source: Source, _: Any) -> None:
        name = str(block.name)
        if self.claim(name, source, block.name.span, callable_=True):
            self.define(name, FunctionName(block, source))

    def declare_check(self, block: ast.CheckDecl, source: Source, _: Any) -> None:
        if self.claim(str(block.name), source, block.name.span, callable_=True):
            check = self.checks[fold(str(block.name))] = Check(block, source)
            self.define(check.name, CheckName(check))

    def declare_procedure(self, block: ast.ProcedureDecl, source: Source,
                          matches: list[tuple[ast.MatchBlock, Source]]) -> None:
        # Blocks become flat lines with internal jumps: the form every semantics runs.
        flat_sink = DiagnosticSink(source)
        matches.extend((m, source) for m in ast.walk_statements(block.statements) if isinstance(m, ast.MatchBlock))
        block = attrs.evolve(block, statements=lower(block.statements, flat_sink))
        self.sink.extend(flat_sink.items)
        if len(block.statements) > MAX_PROCEDURE_LINES:
            # The flow checks keep a set of names per line: bounded here, before any runs.
            self.error("E0634", source, block.name.span, name=str(block.name), lines=f"{len(block.statements):,}",
                       limit=f"{MAX_PROCEDURE_LINES:,}",
                       help="split it into procedures that use each other with 'do NAME(...) as LABEL'")
            block = attrs.evolve(block, statements=())
        if self.claim(str(block.name), source, block.name.span):
            self.procedures[fold(str(block.name))] = Procedure(block, source)
        for statement in block.statements:
            if isinstance(statement, ast.ChooseLine):
                self.choice_options(statement, source)

    def choice_options(self, statement: ast.ChooseLine, source: Source) -> None:
        """A choice's options are levels of the choice, so rules can compare with them."""
        for rank, option in enumerate(statement.choices):
            if option.isdigit():
                continue  # a number stands for itself
            if " to " in option:
                self.error("E0308", source, statement.span, text=option, most=MAX_CHOICE_RANGE)
                continue
            self.literal_word(option, source, statement.span)
            if fold(option) not in self.defined:
                self.defined[fold(option)] = (source, statement.span)
                self.define(option, LevelName(statement.name, option, rank, statement.choices))
                continue
            taken = self.lookup(option)
            if not (isinstance(taken, LevelName) and fold(taken.group) == fold(statement.name)):
                # Another choice (or a check, level...) has the name: comparing with it
                # would silently never match this choice's answer.
                where, first = self.defined[fold(option)]
                line: object = first.line if first is not None else "?"
                if where.name != source.name:
                    line = f"{line} of {where.name}"
                self.error("E0306", source, statement.span,
                           message=f"choice option '{option}' is already the name of {self.described(option, taken)} "
                                   f"(line {line}); names match whatever their case",
                           help=f"rename it (e.g. '{statement.name}_{option}') or use the same choice name")

    def described(self, name: str, named: Named | None) -> str:
        """What a declared name is, for a message: ``the procedure 'Duel'``, ``a level of 'Omen'``."""
        procedure = self.procedures.get(fold(name))
        if procedure is not None:
            return f"the procedure '{procedure.decl.name}'"
        if isinstance(named, LevelName):
            if named.group in ("resource", "condition") and named.names == (named.name,):
                return f"the {named.group} '{named.name}'"
            return f"a level of '{named.group}'"
        kinds = {OptionName: "option", FunctionName: "function", CheckName: "check", TableName: "table"}
        kind = kinds.get(type(named))
        return "a declaration" if kind is None else f"the {kind} '{self.values[fold(name)][0]}'"

    def declare_table(self, block: ast.TableDecl, source: Source, _: Any) -> None:
        self.claim(str(block.name), source, block.name.span)

    def shadowed_rows(self, block: ast.TableDecl, source: Source) -> None:
        """A warning for a table whose rows give new levels and also a name declared elsewhere
        (a condition `High` turns the row `3+: High` of a table of grades into that condition)."""
        names = [r.value for r in block.rows if isinstance(r.value, ex.Name) and fold(r.value.text) not in LITERAL_WORDS]
        if not any(fold(n.text) not in self.defined for n in names):
            return  # every row names something declared: a table onto existing values
        for name in names:
            if fold(name.text) in self.defined:
                where, span = self.defined[fold(name.text)]
                line = f"line {span.line}" if span is not None else "the start"
                place = line if where.name == source.name else f"{where.name}, {line}"
                self.error("E0307", source, name.span, severity="warning", name=name.text, table=str(block.name),
                           where=place, help=f"rename one of them if '{name.text}' should be a level of "
                           f"'{block.name}'")

    def table(self, block: ast.TableDecl, source: Source) -> None:
        name = str(block.name)
        implied = [str(r.value) for r in block.rows if isinstance(r.value, ex.Name)
                   and fold(r.value.text) not in self.defined and fold(r.value.text) not in LITERAL_WORDS]
        implied = list(dict.fromkeys(implied))
        group = tuple(implied)  # one tuple shared by every level (a copy each was quadratic)
        for rank, level in enumerate(group):
            self.define(level, LevelName(name, level, rank, group))
            self.defined[fold(level)] = (source, None)
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
            rows.append((row_key, str(key), row.value))
        self.define(name, TableName(name, tuple(rows), source))

    def kind_checks(self, block: ast.KindDecl, source: Source) -> None:
        """`check NAME, ...` in a kind names checks or procedures the game declares."""
        names = [c.name for c in self.checks.values()] + [p.name for p in self.procedures.values()]
        for phrase in block.checks:
            if fold(phrase.text) not in self.checks and fold(phrase.text) not in self.procedures:
                self.error("E0303", source, phrase.span, what="check", name=phrase.text,
                           help=did_you_mean(phrase.text, names) or "name a check or procedure of the game")

    def example(self, block: ast.ExampleDecl, source: Source) -> None:
        check = self.checks.get(fold(str(block.check))) or self.procedures.get(fold(str(block.check)))
        if check is None:
            names = [c.name for c in self.checks.values()] + [p.name for p in self.procedures.values()]
            self.error("E0601", source, block.check.span, name=str(block.check),
                       help=did_you_mean(str(block.check), names))
            return
        args: list[tuple[str, ex.Expr]] = []
        for arg in block.args:
            if check.param(arg.name) is None:
                self.error("E0604", source, arg.span, name=arg.name, check=check.name,
                           help=did_you_mean(arg.name, [p.name for p in check.decl.params]))
            elif arg.default is not None:
                if is_literal(arg.default):
                    args.append((arg.name, arg.default))
                else:
                    self.error("E0008", source, arg.default.span or arg.span, what="input value",
                               value=str(arg.default),
                               help="give a number, a rating such as 7M2, a name, text in quotes, or a list "
                               "or a record of those")
        self._example_lines(block, source, fold(str(block.check)) not in self.checks)
        self.examples.append(Example(check.name, tuple(args), block.lines, source, block.span))

    def _example_lines(self, block: ast.ExampleDecl, source: Source, procedure: bool) -> None:
        """An example's test lines: one ``dice`` line at most, for a check only, and no
        ``with chance`` beside it (given dice give one outcome, not a chance)."""
        dice = [line for line in block.lines if isinstance(line, ast.ExampleDice)]
        for extra in dice[1:]:
            self.error("E0636", source, extra.span, line="dice", why="an example has one 'dice' line",
                       help="put every face on the first 'dice' line, in the order the check rolls them")
        if dice and procedure:
            self.error("E0636", source, dice[0].span, line="dice", why=f"'{block.check}' is a procedure",
                       help="a procedure's example is checked whatever the dice show: remove the line")
        refusals = [line for line in block.lines if isinstance(line, ast.ExpectRefusal)]
        others = [line for line in block.lines if isinstance(line, ast.Expectation)]
        if refusals and (others or len(refusals) > 1):
            self.error("E0636", source, others[0].span if others else refusals[1].span,
                       line="expect", why="an example refused has nothing else to expect",
                       help="give the expectations of a run that goes through an example of their own")
        roles: set[str] = set()
        for line in block.lines:
            if isinstance(line, ast.ExampleSheet):
                parts = line.path.replace("\\", "/").split("/")
                if line.role in roles:
                    self.error("E0636", source, line.span, line=line.role, why=f"the example has an '{line.role}' file already",
                               help="a file holding a YAML list of characters gives a whole side")
                elif not line.path or line.path.startswith("/") or ":" in parts[0] or ".." in parts:
                    self.error("E0636", source, line.span, line=f'{line.role} "{line.path}"',
                               why="a character file of an example is a file in the game's folder",
                               help=f'give its path from this file\'s folder, as in {line.role} "examples/hero.yaml"')
                roles.add(line.role)
        answered: set[str] = set()
        for line in block.lines:
            if isinstance(line, ast.ExampleAnswer):
                if not procedure:
                    self.error("E0636", source, line.span, line="answer", why=f"'{block.check}' is a check: it makes no choice",
                               help="a procedure's example answers its choices; a check's takes inputs")
                elif fold(line.name) in answered:
                    self.error("E0636", source, line.span, line=f"answer {line.name}",
                               why=f"'{line.name}' is answered already", help="answer each choice once")
                answered.add(fold(line.name))
            if isinstance(line, ast.Expectation) and line.chance is not None:
                if dice:
                    self.error("E0636", source, line.span, line="with chance",
                               why="the example's dice give one outcome, not a chance",
                               help="write 'expect ...' alone, or remove the 'dice' line")
                elif not 0 <= line.chance.value <= 1:
                    self.error("E0636", source, line.span, line=f"with chance {line.chance}",
                               why="a chance is between 0 and 1 (0% and 100%)", help=None)

    # -------------------------------------------------------------- names

    def value_names(self) -> list[str]:
        return [name for name, _ in self.values.values()]

    def level_groups(self) -> set[str]:
        return {fold(v.group) for _, v in self.values.values() if isinstance(v, LevelName)}

    def known_values(self) -> set[str]:
        """Names any expression may read: the game's values and options, true/false/none, stats."""
        known = set(self.values) | {fold(o.name) for o in self.options.values()}
        return known | set(LITERAL_WORDS) | set(self.ruleset.vocabulary.stats)

    def known_outside(self) -> set[str]:
        """Names a check or procedure may read: :meth:`known_values` and the roles."""
        return self.known_values() | set(ROLES) | set(GROUPS_OF_ROLES)

    def check_inputs(self, check: Check) -> None:
        """Each input named once (a second would silently never be read)."""
        seen: set[str] = set()
        for param in check.decl.params:
            if fold(param.name) in seen:
                what = "procedure" if isinstance(check, Procedure) else "check"
                self.error("E0304", check.source, param.span, what="input", name=param.name, owner=what,
                           help="give each input a name of its own")
            seen.add(fold(param.name))

    def check_derived(self) -> None:
        """A derived value that reads itself, directly or through others, has no value (E0416)."""
        reads = {key: {fold(n.text) for n in expression_names(expr) if isinstance(n, ex.Name)} & set(self.derived)
                 for key, (_, expr, _) in self.derived.items()}
        reported: set[str] = set()
        for start in self.derived:
            stack, seen = [start], set()
            while stack:
                key = stack.pop()
                for following in reads.get(key, ()):
                    if following == start and start not in reported:
                        name, expr, source = self.derived[start]
                        reported.add(start)
                        self.error("E0416", source, expr.span, name=name,
                                   help="compute it from stats and other values that do not read it")
                    elif following not in seen:
                        seen.add(following)
                        stack.append(following)

    def check_function(self, function: FunctionName) -> None:
        """A function's body reads its parameters and the game's names (a call runs it later,
        anywhere: an unknown name would fail that run)."""
        params = [p.name for p in function.decl.params]
        known = self.known_values() | {fold(n) for n in params}
        self.names_in(function.decl.body, known, function.source, params)

    def check_names(self, check: Check) -> None:
        """Every name a check uses is an input, an earlier line, or defined by the game."""
        known = self.known_outside() | {fold(p.name) for p in check.decl.params}
        local = [p.name for p in check.decl.params]
        kinds = set(self.ruleset.vocabulary.kinds)
        for param in check.decl.params:
            self.check_param_type(param, check.source, known | self.level_groups() | kinds)
            if param.default is not None:
                self.names_in(param.default, known, check.source, local)
        for statement in check.decl.statements:
            self.names_in(statement.expr, known, check.source, local)
            known.add(fold(statement.name))
            local.append(statement.name)

    def check_param_type(self, param: ast.Param, source: Source, known: set[str]) -> None:
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
        self.error("E0301", source, param.span, name=written, help=did_you_mean(wanted, INPUT_TYPES))

    def check_procedure(self, procedure: Procedure) -> None:
        """Names as in checks, but every name the procedure binds counts as known everywhere
        in it (the flow check finds reads before a value is set); a `goto` names a step."""
        decl, source = procedure.decl, procedure.source
        local = [p.name for p in decl.params] + [s.name for s in decl.statements
                                                 if isinstance(s, ast.Binding) and not isinstance(s, ast.InputLine)]
        known = self.known_outside() | {fold(p.name) for p in decl.params} | {fold(n) for n in local}
        # `do NAME(...) as LABEL`: the label's results are read as `LABEL.name` (checked when
        # the use is expanded, dsl.inline); the arguments are the caller's expressions.
        known |= {fold(s.label) for s in decl.statements if isinstance(s, ast.DoLine) and s.label}
        for statement in decl.statements:
            if isinstance(statement, ast.DoLine):
                for arg in tuple(statement.args or ()) + tuple(v for _, v in statement.named):
                    self.names_in(arg, known, source, local)
        steps = [s.name for s in decl.statements if isinstance(s, ast.StepLine | ast.LabelLine)]
        folded_steps = {fold(n) for n in steps}
        folded_local = {fold(n) for n in local}
        for statement in decl.statements:
            if statement.expr is not None:
                self.names_in(statement.expr, known, source, local)
            if isinstance(statement, ast.ChooseLine) and statement.args:  # `choose NAME from LIST`
                self.names_in(statement.args[0], known, source, local)
            self.check_mechanic(statement, source, known, local)
            if statement.on is not None and statement.on not in ROLES and fold(statement.on) not in folded_local:
                self.error("E0207", source, statement.span, name=statement.on, help=did_you_mean(statement.on, ROLES))
            if isinstance(statement, ast.GotoLine) and fold(statement.name) not in folded_steps:
                self.error("E0609", source, statement.span, name=statement.name, help=did_you_mean(statement.name, steps))
        for param in decl.params:
            self.check_param_type(param, source, self.level_groups() | set(self.ruleset.vocabulary.kinds))
        self.check_flow(procedure)

    def check_mechanic(self, statement: ast.Statement, source: Source, known: set[str], local: list[str]) -> None:
        """A line changing a resource or a condition names a declared one."""
        if isinstance(statement, ast.Amount):
            what, declared = "resource", self.resources
        elif isinstance(statement, ast.ConditionChange):
            what, declared = "condition", self.conditions  # type: ignore[assignment]
        else:
            return
        if fold(statement.name) not in declared:
            self.error("E0705", source, statement.span, what=what, name=statement.name,
                       help=did_you_mean(statement.name, [d.name for d in declared.values()]))
        elif what == "condition":
            self.check_condition_use(self.conditions[fold(statement.name)], statement, source, known, local)

    def check_coverage(self, match: ast.MatchBlock, source: Source) -> None:
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
                value = self.lookup(pattern.name or "")
                if not isinstance(value, LevelName):
                    return  # an unknown name is reported where names are checked
                groups.add(value.group)
                named.add(fold(value.name))
                every = value.names or every
        if len(groups) != 1:
            return
        group = groups.pop()
        missing = [n for n in every if fold(n) not in named]
        if missing:
            self.error("E0626", source, match.span, missing=", ".join(f"'{n}'" for n in missing), group=group,
                       help=f"add 'case {', '.join(missing)}' or an 'else'")

    def check_flow(self, procedure: Procedure) -> None:
        """A name of the procedure's read where some way through it has not set it yet (an
        error: that run would fail), and lines nothing reaches (a warning)."""
        decl, source = procedure.decl, procedure.source
        flow = Flow(decl.statements)
        outside = self.known_outside() | {fold(p.name) for p in decl.params}
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
            self.error("E0624", source, where.span if where is not None else statement.span,
                       name=where.text if where is not None else name,
                       help=f"set it with 'let' before this line on every way here; it is set later{line}")
        self.check_unused(decl, source)
        self.check_sets(decl, source, outside)
        self.check_set_first(decl, source, flow, outside)
        if not flow.ends():
            # The loop that never lets go: the first jump back to a line at or above it.
            back = next((s for i, s in enumerate(decl.statements) if isinstance(s, ast.GotoLine) and s.expr is None
                         and flow.labels.get(fold(s.name), i + 1) <= i), None)
            self.error("E0632", source, back.span if back is not None and back.span is not None else decl.name.span,
                       name=str(decl.name),
                       help="add 'stop if CONDITION' (or 'end if CONDITION') where the loop should finish")
            return
        reached = flow.reachable()
        previous = True
        for index, statement in enumerate(decl.statements):
            internal = isinstance(statement, ast.LabelLine | ast.TestLine) or statement.name.startswith("#")
            if not reached[index] and previous and not internal:
                self.error("E0625", source, statement.span, severity="warning", line=str(statement),
                           help="nothing jumps here and the line above never goes on to it; remove it or "
                           "put it where a run comes")
            if not internal:
                previous = reached[index]

    def check_rolls_kept(self, procedure: Procedure, warned: set[tuple[str, int]]) -> None:
        """A warning (E0615) where a roll the rest of the procedure reads meets a `step` or a
        loop's head or end (a used procedure's too: its lines as `do` brings them in): exact
        odds keep only plain values there and refuse (a seeded run or given dice are not
        affected). Names set only by `roll` lines or by a `let` of dice alone; not for a
        procedure that takes an entry (its lines may read any name: the odds leave such a roll
        out). ``warned``: the places said already (a used procedure's loop, once)."""
        decl = procedure.decl
        statements = decl.statements
        if takes_entry(decl, self.ruleset.vocabulary.kinds):
            return
        # A `roll` line's name, or a `let` of dice alone (`let d = 2d6`: a pool stays a pool),
        # or of a list or a record written with dice in it.
        rolls = [s for s in statements if isinstance(s, ast.RollLine)
                 or (type(s) is ast.LetLine and _holds_dice(s.expr))]
        written = {fold(s.name): s.name for s in rolls}
        ids = {id(s) for s in rolls}
        rolled = set(written) - {fold(s.name) for s in statements if isinstance(s, _WRITTEN_BINDINGS)
                                 and id(s) not in ids}
        if not rolled:
            return
        # The same flow exact odds use for these lines (computed once, kept by flow_of).
        flow = flow_of(statements)
        live = flow.live
        said: set[str] = set()
        for index in sorted(flow.boundaries):
            for name in sorted(rolled & live[index] - said):
                said.add(name)
                found = flow.roll_kept(index, written[name], procedure.source, severity="warning")
                if found.span is None or (found.path, found.span.line) in warned:
                    continue
                warned.add((found.path, found.span.line))
                self.sink.items.append(found)

    def check_set_first(self, decl: ast.ProcedureDecl, source: Source, flow: Flow, outside: set[str]) -> None:
        """A `set` that every way from the start reaches before any line makes its name, while
        a later line does (`set score = 1` above `let score = 0`): the later line starts the
        value again, so what the `set` gave is lost."""
        makers = {fold(s.name): s for s in reversed(decl.statements)
                  if isinstance(s, _WRITTEN_BINDINGS) and not isinstance(s, ast.SetLine)}
        maybe_made = flow.maybe_set(sets=False)
        reported: set[str] = set()
        for index, statement in enumerate(decl.statements):
            if not isinstance(statement, ast.SetLine) or statement.name.startswith("#"):
                continue
            name = fold(statement.name)
            maker = makers.get(name)
            if (maker is None or name in outside or name in reported or name.partition(".")[0] in outside
                    or maybe_made(index, name)):
                continue
            reported.add(name)
            line = maker.span.line if maker.span is not None else "?"
            self.error("E0635", source, statement.span, name=statement.name, line=line,
                       help=f"start the value with 'let {statement.name} = ...' here, or move line {line} above "
                            f"this one")

    def check_sets(self, decl: ast.CheckDecl | ast.ProcedureDecl, source: Source, outside: set[str]) -> None:
        """A `set` of a name no other line binds (nor an input): `set` changes a value, so this
        is a misspelt name (`set scroe = score + 1` would leave `score` as it was)."""
        made = [s.name for s in decl.statements if isinstance(s, ast.Binding) and not isinstance(s, ast.SetLine)]
        bound = {fold(n) for n in made}
        choices = sorted({n for n in made if not n.startswith("#")} | {p.name for p in decl.params})
        reported: set[str] = set()
        for statement in decl.statements:
            if not isinstance(statement, ast.SetLine) or statement.name.startswith("#"):
                continue
            name = fold(statement.name)
            # `set blow.total = ...`: a value a `do ... as blow` brought in (its label is outside).
            if name in bound or name in outside or name in reported or name.partition(".")[0] in outside:
                continue
            reported.add(name)
            self.error("E0631", source, statement.span, name=statement.name,
                       help=did_you_mean(statement.name, choices)
                       or f"make it 'let {statement.name} = ...' where the value starts")

    def check_unused(self, decl: ast.CheckDecl | ast.ProcedureDecl, source: Source) -> None:
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
            read |= reads_of(statement, calls=True)
        for statement in statements:
            if (not isinstance(statement, ast.LetLine | ast.RollLine) or isinstance(statement, ast.ShowLine)
                    or statement.name.startswith("#")):
                continue
            if fold(statement.name) not in read:
                self.unused.append((Diagnostic.make(
                    "E0628", source, statement.span, severity="warning", name=statement.name,
                    help="remove the line, or make it a 'result' if the value is wanted"), decl.span))

    def check_condition_use(self, condition: Condition, statement: ast.Statement, source: Source,
                            known: set[str], local: list[str]) -> None:
        """`apply NAME(values) for N EVENT`: values for its parameters (all of them, or those
        with defaults left out); `remove NAME(values)`: values for the parameters that tell
        instances apart."""
        args = statement.args or ()
        for arg in args:
            self.names_in(arg, known, source, local)
        if statement.duration is not None:
            self.names_in(statement.duration[0], known, source, local)
        applied = isinstance(statement, ast.ApplyLine)
        params = condition.params if applied else condition.keys
        needed = [p.name for p in params if p.default is None]
        if len(args) > len(params) or (applied and len(args) < len(needed)):
            shown = ", ".join(p.name for p in params) or "none"
            self.error("E0406", source, statement.span, name=condition.name,
                       expected=f"{len(needed)}" + (f" to {len(params)}" if len(params) != len(needed) else "")
                       + f" ({shown})", got=len(args))

    def check_condition(self, condition: Condition) -> None:
        """Its lines and defaults use known names (the holder's stats, its parameters,
        `holder`); an `implies` line names a declared condition that needs no values."""
        local = [p.name for p in condition.params] + ["holder"]
        known = self.known_values() | {fold(n) for n in local}
        for param in condition.params:
            if param.default is not None:
                self.names_in(param.default, known, condition.source, local)
        for line in condition.modifiers:
            if line.expr is not None:
                self.names_in(line.expr, known, condition.source, local)
        for line in condition.lines(ast.ImpliesLine):
            implied = self.conditions.get(fold(line.name))
            if implied is None:
                self.error("E0705", condition.source, line.span, what="condition", name=line.name,
                           help=did_you_mean(line.name, [c.name for c in self.conditions.values()]))
            elif any(p.default is None for p in implied.params):
                self.error("E0602", condition.source, line.span,
                           name=next(p.name for p in implied.params if p.default is None), check=implied.name,
                           help="an implied condition takes its defaults; give the parameter a default")

    def names_in(self, expr: ex.Expr, known: set[str], source: Source, local: list[str]) -> None:
        """Every name ``expr`` reads is known, and every function it calls exists here."""
        def candidates() -> list[str]:
            # Only for a suggestion: a long procedure has many lines and few mistakes.
            return (local + self.value_names() + [o.name for o in self.options.values()]
                    + list(self.ruleset.vocabulary.stats.values()))

        for node in expression_names(expr):
            target = node.owner if isinstance(node, ex.Possessive) else node
            while isinstance(target, ex.Possessive):
                target = target.owner
            if isinstance(target, ex.Name) and fold(target.text) not in known:
                used = self.procedures.get(fold(target.text))
                self.error("E0207", source, target.span, name=target.text,
                           help=f"'{used.decl.name}' is a procedure: a use with a label, "
                                f"'do {used.decl.name}(...) as LABEL', gives its results as LABEL.NAME"
                           if used is not None else did_you_mean(target.text, candidates()))
        for call in _calls(expr):
            name = call.func.text
            builtin = BUILTINS.get(name.casefold())
            if name.casefold() in self.hidden and fold(name) not in known:
                group = BUILTINS[name.casefold()].group
                self.error("E0412", source, call.func.span, name=name,
                           help=f"'{name}' is one of the {group} builtins: add a line 'uses {group}' to use them")
            elif (builtin is None or builtin.host) and fold(name) not in known:
                pure = [n for n, b in BUILTINS.items() if not b.host]
                used = self.procedures.get(fold(name))
                self.error("E0412", source, call.func.span, name=name,
                           help=f"'{used.decl.name}' is a procedure, not a check or a function: use it on a line "
                                f"of its own, 'do {used.decl.name}(...) as LABEL', and read its results as LABEL.NAME"
                           if used is not None else foreign_help(name) or did_you_mean(name, pure + candidates()))


_DECLARE: dict[type, Any] = {
    ast.ResourceDecl: _Builder.declare_resource,
    ast.ConditionDecl: _Builder.declare_condition,
    ast.DeriveDecl: _Builder.declare_derived,
    ast.LevelsDecl: _Builder.declare_levels,
    ast.OptionDecl: _Builder.declare_option,
    ast.FunctionDecl: _Builder.declare_function,
    ast.CheckDecl: _Builder.declare_check,
    ast.ProcedureDecl: _Builder.declare_procedure,
    ast.TableDecl: _Builder.declare_table,
}


def _settings(params: Sequence[ast.Param]) -> dict[str, Any]:
    return {p.name: p.default for p in params}


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
