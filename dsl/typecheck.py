"""The type check stage: every expression of a ruleset's mechanics gets a type before anything runs.

A stage of its own, between parsing and evaluation (as in CEL: parse → check → evaluate): it
reads the declarations of a whole ruleset — levels, options, tables, functions, checks,
procedures, conditions, resources, derived values, stats — infers a type (dsl.types) for
every expression in them, and reports what would fail at run time whatever the dice say:

- E0420 an operator, a lookup or a call given the wrong kind of value (a table used as a
  number, arithmetic on a level or a record);
- E0421 an ordering of values that do not compare (a rating or a number with a level, levels
  of two groups);
- E0422 ``==`` or ``!=`` between values that can never be equal;
- E0423 an argument of the wrong type for a builtin (dsl.builtins);
- E0424 a field a record does not have (``r.outcom``);
- E0425 a table looked up with a key no row of it can answer (a level of a group none of its
  rows names, text in a table of numbers);
- E0406 a call with the wrong number of arguments, E0602 a check called without an input it
  needs, and E0603 a value of the wrong type for a declared input (a default, an ``example``,
  ``apply``, ``do``): the codes the rules layer gives when it meets them at run time.

It is permissive: what cannot be known is ``any`` and never an error; only two known and
incompatible types are. Builtins are checked against the one registry of signatures
(dsl.builtins) that the evaluator also takes their arity from.

The names a check sees are, innermost first: its own lines, its inputs and options and the
roles (``actor``, ``target``), the actor's stats and derived values, then the ruleset's
globals (levels, options, tables, functions, checks, host functions). A check's lines bind in
order; a procedure may jump back (``goto``), so a name it binds has, from its first binding
on, the join of the types of all its bindings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from typing import Any

import attrs

from runebook.dsl import ast
from runebook.dsl import expr_ast as ex
from runebook.dsl import types as ty
from runebook.dsl.builtins import BUILTINS, Builtin, hidden_builtins, host_functions
from runebook.dsl.flow import ITEMS, lower
from runebook.dsl.diagnostics import Diagnostic, did_you_mean
from runebook.dsl.source import Source, Span
from runebook.dsl.types import ANY, Type

_MAX_NESTED_DECLARATIONS = 100
#: How many expression nodes function bodies may be typed again with their calls' arguments,
#: in all (a hostile file of many functions and calls is checked in bounded time).
_MOST_INSTANCE_NODES = 200_000
from runebook.dsl.vocabulary import Vocabulary
from runebook.dsl.vocabulary import fold as _fold_now

__all__ = ["check_types"]

#: Names are folded often and the same few come back: remembered.
fold = lru_cache(maxsize=8192)(_fold_now)

#: Input types a declaration may name (`ability: rating`), besides levels groups and entry kinds.
_INPUT_TYPES = {"number": ty.NUMBER, "rating": ty.RATING, "text": ty.TEXT, "boolean": ty.BOOLEAN,
                "character": ty.ENTITY}
#: Settings of a condition declaration (its other inputs are its parameters).
_CONDITION_SETTINGS = ("type", "lasts", "stacks")
_CONSTANTS = {"true": ty.BOOLEAN, "false": ty.BOOLEAN, "none": ty.NONE}
_ROLES = ("actor", "target")
_EACH = Type("pool", each=True)


def check_types(files: Sequence[tuple[Source, ast.RulesFile]], vocabulary: Vocabulary | None = None,
                *, report: Iterable[str] | None = None, types: dict[int, Type] | None = None) -> list[Diagnostic]:
    """Type-check the mechanics of a ruleset (all of ``files``, read as one).

    ``report`` limits the diagnostics to the files of those names (a homebrew file checked
    on top of its game). ``types``, when given, is filled with the type of every expression
    of the declarations, by the ``id`` of its node. Never raises for bad input: every problem
    is a diagnostic.
    """
    vocabulary = vocabulary or Vocabulary()
    key = (id(files), id(vocabulary))
    cached = _CACHE.get(key)
    if cached is not None and cached[0] is files and cached[1] is vocabulary and types is None:
        found = cached[2]
    else:
        checker = _Checker(files, vocabulary, types)
        checker.run()
        found = checker.found
        if types is None:
            # A loaded game's files stay the same objects (dsl.loader caches them): every load
            # of it needs the check once.
            _CACHE[key] = (files, vocabulary, found)
            while len(_CACHE) > 16:
                del _CACHE[next(iter(_CACHE))]
    wanted = set(report) if report is not None else None
    return [d for d in found if wanted is None or (d.source is not None and d.source.name in wanted)]


_CACHE: dict[tuple[int, int], tuple[Any, Any, list[Diagnostic]]] = {}


class _Scope:
    """Names to types, innermost frame first; keys are folded names."""

    def __init__(self, *frames: dict[str, Type]) -> None:
        self.frames = list(frames)

    def lookup(self, name: str) -> Type | None:
        key = fold(name)
        for frame in self.frames:
            found = frame.get(key)
            if found is not None:
                return found
        return None

    def inner(self, frame: dict[str, Type]) -> _Scope:
        return _Scope(frame, *self.frames)


class _Checker:
    def __init__(self, files: Sequence[tuple[Source, ast.RulesFile]], vocabulary: Vocabulary,
                 types: dict[int, Type] | None = None) -> None:
        self.files = files
        self.vocabulary = vocabulary
        #: Builtins of the specialised groups no `uses` line asks for: not this ruleset's.
        self.hidden = hidden_builtins(phrase.text for _, f in files for b in f.blocks
                                      if isinstance(b, ast.UsesDecl) for phrase in b.groups)
        self.types = types
        self.found: list[Diagnostic] = []
        self.source: Source | None = None
        self._quiet = 0
        self._busy: set[int] = set()
        #: A function's body typed with its arguments' types: (function id, types) -> its first
        #: problem (see _arguments); the ones being typed; each body's problems with any arguments.
        self._instances: dict[tuple[int, tuple[Type, ...]], Diagnostic | None] = {}
        self._busy_instances: set[tuple[int, tuple[Type, ...]]] = set()
        self._generic: dict[int, frozenset[tuple[str, Span | None]]] = {}
        self._instance_nodes = 0
        self._sizes: dict[int, int] = {}
        #: Each declaration's type and, until the pass reaches it, its diagnostics (by its id).
        self._memo: dict[int, Type] = {}
        self._reports: dict[int, list[Diagnostic]] = {}
        self.globals: dict[str, Type] = {}
        #: folded name → what a call of it runs: a FunctionDecl, a CheckDecl or a host Builtin.
        self.callables: dict[str, tuple[Any, Source | None]] = {}
        self.procedures: dict[str, tuple[ast.ProcedureDecl, Source]] = {}
        self.tables: dict[str, tuple[ast.TableDecl, Source]] = {}
        self.derived: dict[str, tuple[ast.DeriveDecl, Source]] = {}
        self.conditions: dict[str, ast.ConditionDecl] = {}
        #: folded group name → the folded names of its levels.
        self.group_levels: dict[str, set[str]] = {}
        #: A check sees the options' settings beside its inputs (before the actor's stats).
        self.options: dict[str, Type] = {}
        #: folded group name → the group as declared (levels, options, tables' own levels, choices).
        self.groups: dict[str, str] = {}
        self._declare()

    # ---------------------------------------------------------------- declarations

    def _blocks(self) -> Iterator[tuple[Source, Any]]:
        for source, rules in self.files:
            for block in rules.blocks:
                yield source, block

    def _declare(self) -> None:
        """The ruleset's global names, claimed in the order the rules layer claims them (the
        first declaration of a name wins; a duplicate is reported elsewhere)."""
        defined: set[str] = set()
        names = self.globals

        def claim(name: str, value: Type | None) -> bool:
            key = fold(name)
            if key in defined:
                return False
            defined.add(key)
            if value is not None:
                names[key] = value
                if value.kind == "level" and value.name is not None:
                    self.group_levels.setdefault(fold(value.name), set()).add(key)
            return True

        for host in host_functions():
            claim(host, ty.function(host))
            self.callables[fold(host)] = (BUILTINS[host.casefold()], None)
        for source, block in self._blocks():
            if isinstance(block, ast.ResourceDecl):
                claim(str(block.name), ty.level("resource"))
            elif isinstance(block, ast.ConditionDecl):
                if claim(str(block.name), ty.level("condition")):
                    self.conditions[fold(str(block.name))] = block
            elif isinstance(block, ast.DeriveDecl):
                self.derived.setdefault(fold(str(block.name)), (block, source))
            elif isinstance(block, ast.LevelsDecl):
                claim(block.name.text, None)
                self.groups.setdefault(fold(block.name.text), block.name.text)
                for phrase in block.levels:
                    claim(phrase.text, ty.level(block.name.text))
            elif isinstance(block, ast.OptionDecl):
                if not claim(block.name.text, ty.level(block.name.text)):
                    continue
                self.options[fold(block.name.text)] = ty.level(block.name.text)
                self.groups.setdefault(fold(block.name.text), block.name.text)
                for phrase in block.choices:
                    claim(phrase.text, ty.level(block.name.text))
            elif isinstance(block, ast.FunctionDecl | ast.CheckDecl):
                name = str(block.name)
                if (name.casefold() not in BUILTINS or name.casefold() in self.hidden) and claim(name, ty.function(name)):
                    self.callables[fold(name)] = (block, source)
            elif isinstance(block, ast.ProcedureDecl):
                if claim(str(block.name), None):
                    self.procedures[fold(str(block.name))] = (block, source)
                for statement in _all_lines(block.statements):
                    if isinstance(statement, ast.ChooseLine):
                        self.groups.setdefault(fold(statement.name), statement.name)
                        for option in statement.choices:
                            if not option.isdigit() and " to " not in option:
                                claim(option, ty.level(statement.name))
            elif isinstance(block, ast.TableDecl):
                claim(str(block.name), None)
        # Tables last: a row naming nothing else defines a level of the table's own group.
        for source, block in self._blocks():
            if isinstance(block, ast.TableDecl):
                name = str(block.name)
                for row in block.rows:
                    if isinstance(row.value, ex.Name) and fold(row.value.text) not in defined \
                            and fold(row.value.text) not in ty.LITERAL_WORDS:
                        claim(row.value.text, ty.level(name))
                        self.groups.setdefault(fold(name), name)
                key = fold(name)
                if key not in self.tables:
                    self.tables[key] = (block, source)
                    names.setdefault(key, ty.table(name))

    def run(self) -> None:
        for source, block in self._blocks():
            try:
                self.type_of(block, source)
            except RecursionError:
                pass  # an expression nested too deeply for this pass: the evaluator reports it
            self.found.extend(self._reports.pop(id(block), ()))

    def type_of(self, block: Any, source: Source) -> Type:
        """A declaration's type (a function's result, a check's record of results, a table's
        rows...), computed once, in its own file; its diagnostics are kept until the pass over
        the declarations reaches it. ``any`` while it is being computed (recursion)."""
        key = id(block)
        if key in self._memo:
            return self._memo[key]
        if key in self._busy or len(self._busy) > _MAX_NESTED_DECLARATIONS:
            # Recursion, or declarations using each other deeper than any real ruleset:
            # the type is not followed further (the rules layer bounds such chains).
            return ANY
        self._busy.add(key)
        outer = (self.source, self.found, self._quiet)
        self.source, self.found, self._quiet = source, [], 0
        try:
            found = self._declaration(block)
        finally:
            self._reports[key] = self.found
            self.source, self.found, self._quiet = outer
            self._busy.discard(key)
        self._memo[key] = found
        return found

    def _declaration(self, block: Any) -> Type:
        if isinstance(block, ast.FunctionDecl):
            return self.infer(block.body, self._function_scope(block))
        if isinstance(block, ast.CheckDecl):
            return self._check(block)
        if isinstance(block, ast.ProcedureDecl):
            # Typed as it runs: blocks lowered to flat lines (dsl.flow).
            return self._procedure(attrs.evolve(block, statements=lower(block.statements)))
        if isinstance(block, ast.TableDecl):
            rows: Type | None = None
            scope = _Scope(self.globals)
            for row in block.rows:
                t = self.infer(row.value, scope)
                rows = t if rows is None else ty.join(rows, t)
            return rows or ANY
        if isinstance(block, ast.DeriveDecl):
            return self.infer(block.expr, _Scope({k: ty.NUMBER for k in self.vocabulary.stats}, self.globals))
        if isinstance(block, ast.ResourceDecl):
            scope = self._stats_scope()
            for param in block.params:
                if param.name in ("cap", "start") and param.default is not None:
                    self.number(param.default, scope, f"'{param.name}'")
        elif isinstance(block, ast.ConditionDecl):
            scope = _Scope(self.globals)
            own = {fold(p.name): self.param_type(attrs.evolve(p, type=p.type or "number"), scope)
                   for p in block.params if p.name not in _CONDITION_SETTINGS}
            scope = self._stats_scope().inner({**own, "holder": ty.ENTITY})
            self.walk(block.modifiers, scope, lambda *_: None)
        elif isinstance(block, ast.ExampleDecl):
            self._example(block)
        return ANY

    # ---------------------------------------------------------------- scopes

    def _stats_scope(self) -> _Scope:
        """An entity's own names: its stats and derived values, then the globals."""
        stats: dict[str, Type] = {key: ty.NUMBER for key in self.vocabulary.stats}
        for key in self.derived:
            stats[key] = self.derived_type(key)
        return _Scope(stats, self.globals)

    def _function_scope(self, block: ast.FunctionDecl) -> _Scope:
        return _Scope({fold(p.name): ANY for p in block.params}, self.globals)

    def _inputs_scope(self, params: Sequence[ast.Param]) -> _Scope:
        """A check's or procedure's inputs over the roles, the actor's stats and the globals."""
        inputs: dict[str, Type] = {**self.options, **{role: ty.ENTITY for role in _ROLES},
                                   "actors": ty.list_of(ty.ENTITY), "targets": ty.list_of(ty.ENTITY)}
        scope = self._stats_scope().inner(inputs)
        for param in params:
            inputs[fold(param.name)] = self.param_type(param, scope)
        return scope

    def param_type(self, param: ast.Param, scope: _Scope) -> Type:
        """An input's type: as declared (`ability: rating`, a levels group, an entry kind), else
        its default's (a number default makes a number input, as the rules layer converts)."""
        default = self.infer(param.default, scope) if param.default is not None else None
        declared = self.declared_type(param)
        if declared is not None:
            if default is not None and not _converts(declared, default):
                # A default is not converted as a given value is: it must be of the type already.
                self.error("E0603", param.default, name=param.name, expected=declared, value=_text(param.default),
                           help=f"'{_text(param.default)}' is {default}: give '{param.name}' a default of its "
                           "type, or no type")
            return declared
        return default if default is not None else ANY

    def declared_type(self, param: ast.Param) -> Type | None:
        """The type an input converts what it is given to (`ability: rating`; an input whose
        default is a number takes numbers), or None when it takes anything."""
        if param.type:
            return self.named_type(param.type)
        if isinstance(param.default, ex.Number | ex.Decimal) or (
                isinstance(param.default, ex.Unary) and isinstance(param.default.operand, ex.Number | ex.Decimal)):
            return ty.NUMBER
        return None

    def _example(self, block: ast.ExampleDecl) -> None:
        """``example CHECK (name = value)``: each value as the check's input takes it."""
        key = fold(str(block.check))
        found, source = self.callables.get(key, (None, None))
        if not isinstance(found, ast.CheckDecl):
            found, source = self.procedures.get(key, (None, None))
        if not isinstance(found, ast.CheckDecl | ast.ProcedureDecl):
            return  # an unknown check is E0601, reported with the other mechanics
        if block.lines:
            # An `expect` line reads the results by name, over the inputs and the game's names.
            assert source is not None
            results = self.type_of(found, source)
            fields = {fold(n): t for n, t in results.fields or ()} if results.kind == "record" else {}
            scope = self._inputs_scope(found.params).inner(fields)
            for line in block.lines:
                if isinstance(line, ast.Expectation):
                    self.infer(line.expr, scope)
        params = {fold(p.name): p for p in found.params}
        for arg in block.args:
            param = params.get(fold(arg.name))
            declared = self.declared_type(param) if param is not None else None
            if declared is None or arg.default is None:
                continue
            given = _literal_type(arg.default, self.globals)
            if not _converts(declared, given):
                self.error("E0603", arg.default, name=arg.name, expected=declared, value=_text(arg.default),
                           help=f"'{_text(arg.default)}' is {given}; '{found.name}' declares '{param}'")

    def named_type(self, name: str) -> Type:
        if name in _INPUT_TYPES:
            return _INPUT_TYPES[name]
        words = name.split()
        if words and fold(words[0]) == "list":
            # `list` (of anything), `list of rating`, `list of Outcome`...
            of = words[2:] if len(words) >= 3 and fold(words[1]) == "of" else []
            return ty.list_of(self.named_type(" ".join(of)) if of else ANY)
        key = fold(name)
        if key in self.groups:
            return ty.level(self.groups[key])
        kind = self.vocabulary.kinds.get(key)
        if kind is not None:
            return ty.entry(kind.name)
        return ANY

    # ---------------------------------------------------------------- checks and procedures

    def walk(self, statements: Sequence[ast.Statement], scope: _Scope,
             bind: Callable[[str, Type], None]) -> None:
        """Type every expression of the lines, in order; what a line binds goes to ``bind``.

        The one place that knows what each kind of line holds."""
        for line in statements:
            if not isinstance(line, ast.Statement):
                self._other_line(line, scope, bind)
                continue
            value = self.infer(line.expr, scope) if line.expr is not None else None
            args = [self.infer(arg, scope) for arg in line.args or ()]
            named = [(name, arg, self.infer(arg, scope)) for name, arg in line.named]
            if isinstance(line, ast.ConditionChange):
                self._condition_values(line, args)
            elif isinstance(line, ast.DoLine):
                self._do_values(line, args, named)
            if line.duration is not None:
                self.number(line.duration[0], scope, "a duration")
            if isinstance(line, ast.ChooseLine):
                if line.args:  # `choose NAME from LIST`: one of its items
                    bind(line.name, self._item(line.args[0], args[0], "'choose from'"))
                else:
                    bind(line.name, self._choice_type(line))
            elif isinstance(line, ast.Binding) and value is not None:
                # (`each`: the loop's item, `#items[#at]`, typed as the list's item)
                bind(line.name, value)
            elif isinstance(line, ast.DoLine) and line.label:
                bind(line.label, self.procedure_results(line.name))
            elif isinstance(line, ast.Amount | ast.StatChange) and value is not None:
                self.require_number(line.expr, value, f"'{line.keyword}'")

    def _other_line(self, line: Any, scope: _Scope, bind: Callable[[str, Type], None]) -> None:
        """A line of a kind this pass does not know: its expressions are typed and the lines
        nested in it walked; a name it binds (its ``name``) is ``any``."""
        if not attrs.has(type(line)):
            return
        for field in attrs.fields(type(line)):
            value = getattr(line, field.name)
            for part in value if isinstance(value, tuple) else (value,):
                if isinstance(part, ex.Expr):
                    self.infer(part, scope)
        self.walk(_nested(line), scope, bind)
        if isinstance(getattr(line, "name", None), str):
            bind(line.name, ANY)

    def _condition_values(self, line: ast.Statement, args: list[Type]) -> None:
        """`apply NAME(values)`: an amount takes a number, a parameter typed by a levels group a
        level of it (`remove` gives only the identifying ones)."""
        found = self.conditions.get(fold(line.name))
        if found is None:
            return  # an unknown condition is E0705, reported with the other mechanics
        params = [p for p in found.params if p.name not in _CONDITION_SETTINGS]
        if isinstance(line, ast.RemoveLine):
            params = [p for p in params if p.type not in (None, "number")]
        for param, given, expr in zip(params, args, line.args or ()):
            wanted = ty.NUMBER if param.type in (None, "number") else self.named_type(param.type)
            if wanted.kind in ("number", "level") and not ty.accepts(wanted, given):
                self.error("E0603", expr, name=param.name, expected=wanted, value=_text(expr),
                           help=f"'{_text(expr)}' is {given}; '{found.name}' declares '{param}'")

    def _do_values(self, line: ast.Statement, args: list[Type], named: list[tuple[str, ex.Expr, Type]]) -> None:
        """`do NAME(values)`: each value as the used procedure's typed input converts it (by
        name, then the rest in order; counts and names are checked when the use is expanded)."""
        found = self.procedures.get(fold(line.name))
        if found is None:
            return
        params = {fold(p.name): p for p in found[0].params}
        given = [(params.get(fold(name)), expr, t) for name, expr, t in named]
        rest = [p for p in found[0].params if fold(p.name) not in {fold(n) for n, _, _ in named}]
        given += list(zip(rest, line.args or (), args))
        for param, expr, t in given:
            if param is not None and param.type and not _converts(self.named_type(param.type), t):
                self.error("E0603", expr, name=param.name, expected=self.named_type(param.type), value=_text(expr),
                           help=f"'{_text(expr)}' is {t}; '{found[0].name}' declares '{param}'")

    def _choice_type(self, line: ast.Statement) -> Type:
        found: Type | None = None
        joined: set[Type] = set()  # `1 to 1000` is a thousand options of one type: joined once
        for option in line.choices:
            if option.isdigit():
                t = ty.NUMBER
            else:
                t = self.globals.get(fold(option), ty.level(line.name))
            if t in joined:
                continue
            joined.add(t)
            found = t if found is None else ty.join(found, t)
        return found or ANY

    def _check(self, block: ast.CheckDecl | ast.ProcedureDecl) -> Type:
        """A check's lines (or a procedure's without a `goto`) in order; its type is the record
        of its results."""
        scope = self._inputs_scope(block.params)
        local: dict[str, Type] = {}

        def bind(name: str, t: Type) -> None:
            local[fold(name)] = t

        self.walk(block.statements, scope.inner(local), bind)
        return _results(block, local)

    def _procedure(self, block: ast.ProcedureDecl) -> Type:
        """A procedure's lines: each name it binds has the join of all its bindings (a `goto`
        may bring a later one round), seen from its first binding on."""
        if all(isinstance(line, ast.Statement) and not isinstance(line, ast.GotoLine) for line in block.statements):
            return self._check(block)  # its lines run in order, as a check's do
        scope = self._inputs_scope(block.params)
        joined: dict[str, Type] = {}
        # Twice: quietly, then reporting, each name seen from its first line on with what the
        # pass before bound it to further down (what a `goto` back brings round).
        for reporting in (False, True):
            seen: dict[str, Type] = {}
            visible: dict[str, Type] = {}

            def gather(name: str, t: Type) -> None:
                key = fold(name)
                seen[key] = ty.join(seen[key], t) if key in seen else t
                visible[key] = ty.join(joined[key], seen[key]) if key in joined else seen[key]

            self._quiet += 0 if reporting else 1
            try:
                self.walk(block.statements, scope.inner(visible), gather)
            finally:
                self._quiet -= 0 if reporting else 1
            joined = {k: ty.join(joined[k], t) if k in joined else t for k, t in seen.items()}
        return _results(block, joined)

    def procedure_results(self, name: str) -> Type:
        """What ``do NAME(...) as LABEL`` gives LABEL: the record of the procedure's results."""
        found = self.procedures.get(fold(name))
        if found is None:
            return ANY  # reported when the game loads (E0620)
        record = self.type_of(*found)
        # A result it does not have is E0622 when the model is built (dsl.inline).
        return ty.record(record.name, record.fields, open=True) if record.kind == "record" else record

    def derived_type(self, key: str) -> Type:
        return self.type_of(*self.derived[key])

    def table_rows(self, key: str) -> Type:
        return self.type_of(*self.tables[key])

    # ---------------------------------------------------------------- diagnostics

    def error(self, code: str, node: ex.Expr | None, *, help: str | None = None, **fields: object) -> None:
        if self._quiet:
            return
        span: Span | None = getattr(node, "span", None)
        if span is not None and self.found and (self.found[-1].code, self.found[-1].span) == (code, span):
            return  # one place, one problem: `case 1-2` of a level is both '>=' and '<='
        self.found.append(Diagnostic.make(code, self.source, span, help=help, **fields))

    def hint(self, expr: ex.Expr | None, t: Type) -> str | None:
        """Help for a value of the wrong type: a name that hides one of the game's names says
        so (a stat or a `let` named like a function or a table); else how to get a number."""
        if isinstance(expr, ex.Name):
            key = _key(expr.words)
            hidden = self.globals.get(key)
            if hidden is not None and (hidden.kind, hidden.name) != (t.kind, t.name):
                nearer = "a stat of the actor" if key in self.vocabulary.stats else "a name of this declaration"
                return f"here '{expr.text}' is {nearer}, which hides {hidden}: rename one of them"
        return _hint(expr, t)

    def number(self, expr: ex.Expr, scope: _Scope, what: str) -> Type:
        t = self.infer(expr, scope)
        self.require_number(expr, t, what)
        return t

    def require_number(self, expr: ex.Expr | None, t: Type, what: str) -> None:
        if not ty.numeric(t):
            self.error("E0420", expr, what=what, expected="a number", text=_text(expr), found=t,
                       help=self.hint(expr, t))

    # ---------------------------------------------------------------- expressions

    def infer(self, expr: ex.Expr, scope: _Scope) -> Type:
        """The type of an expression; reports what is wrong in it (unless quiet)."""
        method = _DISPATCH.get(type(expr))
        if method is None:
            method = _DISPATCH[type(expr)] = getattr(_Checker, "t_" + type(expr).__name__, _Checker.t_unknown)
        found = method(self, expr, scope)
        if self.types is not None and not self._quiet:
            self.types[id(expr)] = found
        return found

    def t_unknown(self, node: ex.Expr, scope: _Scope) -> Type:
        return ANY

    def t_Number(self, node: ex.Number, scope: _Scope) -> Type:
        return ty.NUMBER

    t_Decimal = t_Number

    def t_Rating(self, node: ex.Rating, scope: _Scope) -> Type:
        return ty.RATING

    def t_String(self, node: ex.String, scope: _Scope) -> Type:
        return ty.TEXT

    def t_Name(self, node: ex.Name, scope: _Scope) -> Type:
        key = _key(node.words)
        if key in _CONSTANTS:
            return _CONSTANTS[key]  # true, false and none are the values, whatever else is declared
        found = None
        for frame in scope.frames:
            found = frame.get(key)
            if found is not None:
                break
        else:
            return _CONSTANTS.get(key, ANY)  # an unknown name: reported elsewhere
        if found.kind == "table" and found.name is not None and fold(found.name) in self.tables:
            return ty.table(found.name, self.table_rows(fold(found.name)))
        return found

    def t_Possessive(self, node: ex.Possessive, scope: _Scope) -> Type:
        owner = self.infer(node.owner, scope)
        return self._member(node, owner, node.prop.text, "'s")

    def t_Attribute(self, node: ex.Attribute, scope: _Scope) -> Type:
        owner = self.infer(node.obj, scope)
        return self._member(node, owner, node.name, f".{node.name}")

    def _member(self, node: ex.Expr, owner: Type, name: str, op: str) -> Type:
        """``owner's name`` or ``owner.name``: a record's field, a character's stat, an
        entry's line, a rating's part."""
        found: Type | None = None
        wrong: list[Type] = []
        for t in ty.members(owner):
            got = self._member_of(node, t, name)
            if got is None:
                if t.kind != "none":
                    wrong.append(t)
                continue
            found = got if found is None else ty.join(found, got)
        if found is None and wrong:
            fields = _fields(owner)
            if fields is not None:
                self.error("E0424", node, found=owner, name=name,
                           help=did_you_mean(name, fields) or ("its fields: " + ", ".join(fields) if fields
                                                                else "it has no fields"))
            else:
                self.error("E0420", node, what=f"'{op}'", expected="a record, a character or an entry",
                           text=_text(getattr(node, "owner", None) or getattr(node, "obj", None)), found=owner)
            return ANY
        return found or ANY

    def _member_of(self, node: ex.Expr, t: Type, name: str) -> Type | None:
        key = fold(name)
        if t.kind in ("any", "entry"):
            return ANY
        if t.kind == "record":
            return ANY if t.fields is None else t.field(name) or (ANY if t.open else None)
        if t.kind == "entity":
            if key == "name":
                return ty.TEXT
            if key in self.derived:
                return self.derived_type(key)
            return ty.NUMBER if key in self.vocabulary.stats else ANY
        if t.kind == "rating" and isinstance(node, ex.Attribute):
            return {"base": ty.NUMBER, "symbol": ty.TEXT, "count": ty.join(ty.NUMBER, ty.NONE)}.get(name)
        if t.kind == "table":
            return t.of or ANY  # a table answers a name as a key: `Table.row`
        return None

    def t_ListOf(self, node: ex.ListOf, scope: _Scope) -> Type:
        item: Type | None = None
        for value in node.items:
            t = self.infer(value, scope)
            item = t if item is None else ty.join(item, t)
        return ty.list_of(item or ANY)

    def t_RecordOf(self, node: ex.RecordOf, scope: _Scope) -> Type:
        return ty.record(None, [(name, self.infer(value, scope)) for name, value in node.fields])

    def t_Comprehension(self, node: ex.Comprehension, scope: _Scope) -> Type:
        items = self.infer(node.collection, scope)
        item = self._item(node.collection, items, "'for'")
        inner = scope.inner({fold(node.name): item})
        if node.condition is not None:
            self.infer(node.condition, inner)
        return ty.list_of(self.infer(node.value, inner))

    def _item(self, expr: ex.Expr, t: Type, what: str) -> Type:
        """The type of a list's items (``any`` when not known); not a list: E0420."""
        found: Type | None = None
        for m in ty.members(t):
            if m.kind == "list":
                got = m.of or ANY
            elif m.kind == "any":
                got = ANY
            else:
                continue
            found = got if found is None else ty.join(found, got)
        if found is None:
            help = self.hint(expr, t)
            if help is None and what == "'for each'" and all(m.kind == "number" for m in ty.members(t)):
                # `for each i in n`: the newcomer means n turns.
                help = f"write range({_text(expr)}) to go round {_text(expr)} times (its items are 0, 1, ...)"
            self.error("E0420", expr, what=what, expected="a list", text=_text(expr), found=t, help=help)
            return ANY
        return found

    def t_Index(self, node: ex.Index, scope: _Scope) -> Type:
        owner = self.infer(node.obj, scope)
        key = self.infer(node.key, scope)
        found: Type | None = None
        for t in ty.members(owner):
            if t.kind == "list":
                got = t.of or ANY
                if not ty.accepts(ty.NUMBER, key):
                    self.error("E0420", node.key, what="an item of a list", expected="a number (from 0)",
                               text=_text(node.key), found=key, help=self.hint(node.key, key))
            elif t.kind == "table":
                got = t.of or ANY
            elif t.kind in ("any", "entity", "entry"):
                got = ANY
            elif t.kind == "record":
                got = t.field(node.key.value) if isinstance(node.key, ex.String) and t.fields is not None else ANY
                got = got or ANY
            else:
                continue
            found = got if found is None else ty.join(found, got)
        if found is None:
            if owner.kind != "none":
                self.error("E0420", node.obj, what="'[...]'", expected="a table", text=_text(node.obj),
                           found=owner, help=self.hint(node.obj, owner))
            return ANY
        if key.kind == "record" or key.kind in ("table", "function"):
            self.error("E0420", node.key, what=f"a key of '{_text(node.obj)}'", expected="a number, a level or text",
                       text=_text(node.key), found=key, help=self.hint(node.key, key))
        elif owner.kind == "table" and owner.name is not None and fold(owner.name) in self.tables:
            self._row_key(node, self.tables[fold(owner.name)][0], key)
        return found

    def _row_key(self, node: ex.Index, table: ast.TableDecl, key: Type) -> None:
        """``Table[key]``: some row must be able to answer the key (a number the rows that are
        numbers or ranges, a level or a text the rows named by it)."""
        numeric = any(row.key.kind != "name" for row in table.rows)
        names = {fold(row.key.name or "") for row in table.rows if row.key.kind == "name"}
        literal = _literal_number(node.key)
        if literal is not None and numeric and not any(row.key.matches(literal) for row in table.rows):
            # A key written as a number: the run would stop there whatever the dice say.
            self.error("E0413", node, table=str(table.name), key=literal, help=f"rows: {_rows(table)}")
            return
        for t in ty.members(key):
            if t.kind in ("any", "none") or (numeric and (ty.numeric(t) or t.kind == "rating")):
                return
            if t.kind == "text" and names:
                return
            if t.kind == "level" and names:
                levels = self.group_levels.get(fold(t.name or ""))
                if levels is None or names & levels:
                    return
            if t.kind not in ("number", "boolean", "pool", "rating", "text", "level"):
                return  # not a key at all: reported as such, or anything
        self.error("E0425", node.key, table=str(table.name), found=key, help=f"its rows: {_rows(table)}")

    def t_Unary(self, node: ex.Unary, scope: _Scope) -> Type:
        t = self.infer(node.operand, scope)
        self.require_number(node.operand, t, f"'{node.op}'")
        return _EACH if t.kind == "pool" and t.each else ty.NUMBER

    def t_Binary(self, node: ex.Binary, scope: _Scope) -> Type:
        parts = ex.flatten_chain(node)
        if node.op == "+":
            first = self.infer(parts[0][1], scope)
            if any(m.kind == "list" for m in ty.members(first)):
                # `xs + ys`: lists joined end to end.
                joined = first
                for _, operand in parts[1:]:
                    t = self.infer(operand, scope)
                    self._item(operand, t, "'+' after a list")
                    joined = ty.join(joined, t)
                return joined
        each = False
        for op, operand in parts:
            t = self.infer(operand, scope)
            shown = op or parts[1][0]
            self.require_number(operand, t, f"'{shown}'")
            each = each or (t.kind == "pool" and t.each)
            if op in ("/", "//", "%") and _literal_number(operand) == 0:
                self.error("E0404", operand, help="the divisor is always 0 here")
        return _EACH if each else ty.NUMBER

    def t_Compare(self, node: ex.Compare, scope: _Scope) -> Type:
        left = self.infer(node.left, scope)
        right = self.infer(node.right, scope)
        pooled = (left.kind == "pool") != (right.kind == "pool")
        if node.op in ("==", "=", "!="):
            if not ty.overlaps(left, right):
                self.error("E0422", node, op=node.op, left=left, right=right,
                           help=_equal_hint(node, left, right))
            return ty.POOL if pooled else ty.BOOLEAN
        if not _order_together(left, right):
            wrong = [(e, t) for e, t in ((node.left, left), (node.right, right)) if not _orderable(t)]
            if wrong and not (_levels(left) or _levels(right)):
                expr, t = wrong[0]  # text, a table, a rating...: nothing orders it
                self.error("E0420", expr, what=f"'{node.op}'", expected="a number or a level", text=_text(expr),
                           found=t, help=self.hint(expr, t))
            else:  # each orders, not with the other: a level with a number, levels of two groups
                self.error("E0421", node, op=node.op, left=left, right=right, help=_order_hint(node, left, right))
        return ty.POOL if pooled else ty.BOOLEAN

    def t_Not(self, node: ex.Not, scope: _Scope) -> Type:
        self.infer(node.operand, scope)
        return ty.BOOLEAN

    def t_And(self, node: ex.And, scope: _Scope) -> Type:
        return ty.join(self.infer(node.left, scope), self.infer(node.right, scope))

    def t_Or(self, node: ex.Or, scope: _Scope) -> Type:
        left = self.infer(node.left, scope)
        return ty.join(ty.without_none(left), self.infer(node.right, scope))

    def t_Conditional(self, node: ex.Conditional, scope: _Scope) -> Type:
        # `a if c else b if d else e`: a chain, walked without recursion.
        found: Type | None = None
        current: ex.Expr = node
        while isinstance(current, ex.Conditional):
            self.infer(current.condition, scope)
            t = self.infer(current.then, scope)
            found = t if found is None else ty.join(found, t)
            current = current.otherwise
        t = self.infer(current, scope)
        return t if found is None else ty.join(found, t)

    def t_Dice(self, node: ex.Dice, scope: _Scope) -> Type:
        if node.count is not None:
            self.number(node.count, scope, "the number of dice")
        return ty.POOL

    # ---------------------------------------------------------------- calls

    def t_Call(self, node: ex.Call, scope: _Scope) -> Type:
        name = node.func.text
        args = [self.infer(a, scope) for a in node.args]
        if name == ITEMS:  # the list a `for each` walks (dsl.flow), named as the author wrote it
            return ty.list_of(self._item(node.args[0], args[0], "'for each'"))
        builtin = BUILTINS.get(name.casefold()) if name.casefold() not in self.hidden else None
        if builtin is not None and not builtin.host:
            return self._builtin(node, builtin, args)
        target = scope.lookup(name)
        if target is None or target.kind == "any":
            return ANY  # an unknown function is reported elsewhere (E0412)
        if target.kind != "function":
            self.error("E0420", node.func, what="a call", expected="a function", text=name, found=target,
                       help=self.hint(node.func, target))
            return ANY
        called, source = self.callables.get(fold(target.name or ""), (None, None))
        if isinstance(called, Builtin):
            return self._builtin(node, called, args)
        if isinstance(called, ast.FunctionDecl):
            assert source is not None
            if len(args) != len(called.params):
                self.error("E0406", node, name=name, expected=len(called.params), got=len(args),
                           help=f"{called.name}({', '.join(p.name for p in called.params)})")
            else:
                self._arguments(node, called, source, args)
            return self.type_of(called, source)
        if isinstance(called, ast.CheckDecl):
            params = called.params
            if len(args) > len(params):
                self.error("E0406", node, name=name, expected=f"at most {len(params)}", got=len(args),
                           help=f"{called.name}({', '.join(p.name for p in params)})")
            else:
                missing = [p.name for p in params[len(args):] if p.default is None]
                if missing:
                    self.error("E0602", node, name=missing[0], check=str(called.name),
                               help=f"{called.name}({', '.join(p.name for p in params)})")
            for index, (param, given) in enumerate(zip(params, args)):
                declared = self.declared_type(param)
                # A check called from rules takes its values as they are (no conversion).
                if declared is not None and declared.kind != "entry" and not ty.accepts(declared, given):
                    self.error("E0423", node.args[index], index=index + 1, name=name, found=given, expected=declared,
                               help=f"{called.name}({', '.join(map(str, params))})")
            assert source is not None
            return self.type_of(called, source)
        return ANY

    def _arguments(self, node: ex.Call, called: ast.FunctionDecl, source: Source, args: list[Type]) -> None:
        """A call of a function the game defines: its body typed again with the arguments'
        types (E0426 at the first argument it cannot take). A function's body alone sees
        ``any`` for its parameters, so ``half("three")`` of ``half(x) = x / 2`` would pass
        the check and stop on its first run."""
        known = [_argument_type(t) for t in args]
        if all(t.kind == "any" for t in known):
            return
        for index, t in enumerate(known):
            if t.kind == "any":
                continue
            # One argument at a time, the others as anything: the problem is this one's.
            alone = [t if i == index else ANY for i in range(len(known))]
            problem = self._instance(called, source, tuple(alone))
            if problem is not None:
                param = called.params[index].name
                self.error("E0426", node.args[index], name=str(called.name), found=t, index=index + 1,
                           param=param, problem=problem.message,
                           help=f"{problem.location()}: the line that fails; give '{called.name}' "
                                f"the kind of value it uses '{param}' as")
                return

    def _instance(self, called: ast.FunctionDecl, source: Source, args: tuple[Type, ...]) -> Diagnostic | None:
        """The first problem of ``called``'s body with its parameters of types ``args`` that its
        body with parameters of any type does not have (None: none), worked out once per types.
        Bounded: a file of many functions called with many types stops being typed again after
        ``_MOST_INSTANCE_NODES`` nodes in all (what is not followed is never an error)."""
        key = (id(called), args)
        if key in self._instances:
            return self._instances[key]
        if key in self._busy_instances or len(self._busy_instances) > _MAX_NESTED_DECLARATIONS:
            return None  # a function calling itself: its first instance is the one followed
        size = self._sizes.get(id(called))
        if size is None:
            size = self._sizes[id(called)] = sum(1 for _ in ex.nodes(called.body))
        if self._instance_nodes + size > _MOST_INSTANCE_NODES:
            return None
        self._instance_nodes += size
        generic = self._generic_problems(called, source)
        self._busy_instances.add(key)
        scope = _Scope({fold(p.name): t for p, t in zip(called.params, args)}, self.globals)
        found = self._quietly_typed(called.body, scope, source)
        self._busy_instances.discard(key)
        problem = next((d for d in found if (d.code, d.span) not in generic), None)
        self._instances[key] = problem
        return problem

    def _generic_problems(self, called: ast.FunctionDecl, source: Source) -> frozenset[tuple[str, Span | None]]:
        """(code, span) of every problem ``called``'s body has with parameters of any type
        (reported with the function itself, not at its calls)."""
        key = id(called)
        found = self._generic.get(key)
        if found is None:
            typed = self._quietly_typed(called.body, self._function_scope(called), source)
            found = self._generic[key] = frozenset((d.code, d.span) for d in typed)
        return found

    def _quietly_typed(self, expr: ex.Expr, scope: _Scope, source: Source) -> list[Diagnostic]:
        """The problems of ``expr`` in ``scope``, collected apart (reported nowhere, and no
        expression's recorded type changed)."""
        outer = (self.source, self.found, self._quiet, self.types)
        self.source, self.found, self._quiet, self.types = source, [], 0, None
        try:
            self.infer(expr, scope)
            return self.found
        except RecursionError:
            return []
        finally:
            self.source, self.found, self._quiet, self.types = outer

    def _builtin(self, node: ex.Call, builtin: Builtin, args: list[Type]) -> Type:
        fitting = [s for s in builtin.signatures if s.fits(len(args))]
        if not fitting:
            self.error("E0406", node, name=builtin.name, expected=builtin.expected(), got=len(args),
                       help=" or ".join(s.text for s in builtin.signatures))
            return ANY
        for signature in fitting:
            if signature.mismatch(args) is None:
                result = signature.result_type(args)
                return _EACH if builtin.name == "each" else result
        signature = fitting[0]
        index = signature.mismatch(args)
        assert index is not None
        param = signature.param(index)
        self.error("E0423", node.args[index], index=index + 1, name=builtin.name, found=args[index],
                   expected=param.type, help=" or ".join(s.text for s in fitting))
        return signature.result_type(args)


def _argument_type(t: Type) -> Type:
    """What a function's body is typed again with for an argument of type ``t``: ``none``
    (alone or in a union) is left as anything, since a body may test for it
    (``0 if x == none else x / 2``) where the check does not narrow types."""
    if t.kind == "none" or (t.kind == "union" and any(m.kind == "none" for m in t.members)):
        return ANY
    return t


@lru_cache(maxsize=8192)
def _key(words: tuple[str, ...]) -> str:
    """The folded name of a Name node's words."""
    return fold(" ".join(words))


#: Expression node class → the method that types it.
_DISPATCH: dict[type, Callable[[_Checker, Any, _Scope], Type]] = {}


# ---------------------------------------------------------------- helpers


def _text(expr: ex.Expr | None) -> str:
    if expr is None:
        return "?"
    text = str(expr)
    return text if len(text) <= 40 else text[:37] + "..."


def _nested(line: Any) -> list[Any]:
    """The lines nested in a line (the bodies of a kind of line this pass does not know)."""
    if isinstance(line, ast.Statement) or not attrs.has(type(line)):
        return []
    found = []
    for field in attrs.fields(type(line)):
        value = getattr(line, field.name)
        for part in value if isinstance(value, tuple) else (value,):
            if attrs.has(type(part)) and not isinstance(part, ex.Expr | Span | ast.Param):
                found.append(part)
    return found


def _all_lines(statements: Iterable[Any]) -> Iterator[Any]:
    """Every line, nested ones included."""
    stack = list(statements)[::-1]
    while stack:
        line = stack.pop()
        yield line
        stack.extend(_nested(line)[::-1])


def _results(block: ast.CheckDecl | ast.ProcedureDecl, names: dict[str, Type]) -> Type:
    """The record of a check's (or procedure's) `result` lines, with the types of their names."""
    fields = {line.name: names.get(fold(line.name), ANY) for line in _all_lines(block.statements)
              if isinstance(line, ast.ResultLine)}
    return ty.record(str(block.name), fields.items())


def _converts(declared: Type, given: Type) -> bool:
    """Whether an input of type ``declared`` takes a value of type ``given`` (a text input
    takes a name that happens to be a level: the rules layer turns it into its text)."""
    if declared.kind == "text" and all(m.kind in ("level", "text") for m in ty.members(given)):
        return True
    if declared.kind == "entry" and all(m.kind in ("level", "text", "entry") for m in ty.members(given)):
        return True  # a name finds the entry; an entry passes as it is
    return ty.accepts(declared, given)


def _literal_type(expr: ex.Expr, names: dict[str, Type]) -> Type:
    """The type of a value written in an `example` (or given with --with): a literal, or a
    name the game defines (else the name is text)."""
    if isinstance(expr, ex.Number | ex.Decimal) or (isinstance(expr, ex.Unary) and isinstance(expr.operand, ex.Number)):
        return ty.NUMBER
    if isinstance(expr, ex.Rating):
        return ty.RATING
    if isinstance(expr, ex.String):
        return ty.TEXT
    if isinstance(expr, ex.Name):
        if fold(expr.text) in _CONSTANTS:
            return _CONSTANTS[fold(expr.text)]  # true, false, none: what the rules layer makes of them
        return names.get(fold(expr.text), ty.TEXT)
    return ANY


def _fields(t: Type) -> list[str] | None:
    """The field names of a record type (of every record in a union), or None if not a record."""
    found: list[str] | None = None
    for m in ty.members(t):
        if m.kind == "record":
            found = (found or []) + [n for n, _ in m.fields or ()]
        elif m.kind == "rating":
            found = (found or []) + ["base", "symbol", "count"]
    return found


def _orderable(t: Type) -> bool:
    return any(m.kind in ("any", "none", "level") or ty.numeric(m) for m in ty.members(t))


def _order_together(a: Type, b: Type) -> bool:
    """Whether some member of ``a`` orders with some member of ``b`` (numbers with numbers,
    levels with levels of their group)."""
    for x in ty.members(a):
        for y in ty.members(b):
            if "any" in (x.kind, y.kind) or "none" in (x.kind, y.kind):
                return True
            if x.kind == "level" and y.kind == "level":
                if x.name is None or y.name is None or fold(x.name) == fold(y.name):
                    return True
            elif x.kind != "level" and y.kind != "level" and ty.numeric(x) and ty.numeric(y):
                return True
    return False


def _levels(t: Type) -> list[Type]:
    return [m for m in ty.members(t) if m.kind == "level"]


def _order_hint(node: ex.Compare, left: Type, right: Type) -> str:
    groups = _levels(left) + _levels(right)
    if len(groups) >= 2:
        return "levels compare only with levels of their own group"
    level = groups[0] if groups else None
    if level is not None:
        side = node.left if _levels(left) else node.right
        return (f"a level compares only with levels of '{level.name}'; rank({_text(side)}) is its position "
                "as a number")
    return "compare values of one kind"


def _equal_hint(node: ex.Compare, left: Type, right: Type) -> str:
    if _levels(left) and _levels(right):
        return "levels of two groups are never equal"
    if ty.TEXT in ty.members(left) + ty.members(right):
        return "text equals only text: a level is not the text of its name"
    return "compare values of one kind"


def _hint(expr: ex.Expr | None, t: Type) -> str | None:
    """How to get a number (or what was meant) from a value of type ``t``."""
    text = _text(expr)
    kinds = {m.kind for m in ty.members(t)}
    if "table" in kinds:
        return f"look a row up: {text}[...]"
    if "record" in kinds:
        fields = _fields(t) or []
        return f"read one of its results: {text}.{fields[0]}" + (
            f" (results: {', '.join(fields)})" if len(fields) > 1 else "") if fields else None
    if "level" in kinds:
        return f"rank({text}) is its position in its group; step({text}, n) moves it"
    if "rating" in kinds:
        return f"rating_value({text}, size) reads a rating as one number"
    if "function" in kinds:
        return f"call it: {text}(...)"
    return None


def _literal_number(expr: ex.Expr | None) -> int | None:
    """The whole number an expression is written as (``7``, ``-2``, ``(3)``), else None."""
    sign = 1
    while isinstance(expr, ex.Unary) and expr.op in ("-", "+"):
        sign = -sign if expr.op == "-" else sign
        expr = expr.operand
    if isinstance(expr, ex.Number) and type(expr.value) is int:
        return sign * expr.value
    return None


def _rows(table: ast.TableDecl) -> str:
    """A table's first row keys, as a help line lists them."""
    return ", ".join(str(row.key) for row in table.rows[:6]) + (", ..." if len(table.rows) > 6 else "")
