"""Procedures that use other procedures: ``do NAME(args) as LABEL``.

A ``do`` line is expanded when the game loads: the used procedure's lines (themselves
already expanded) are put in its place, every name they bind (inputs, ``let``/``roll``/
``set``/``result``/``choose`` names) and every ``step`` renamed ``LABEL.name`` so that they
stay apart from the caller's, the arguments bound by ``input`` lines, ``end`` turned into a
``goto`` to a step placed after the block, and ``result`` lines into ``set`` lines whose
names the caller reads as ``LABEL.name``. The expanded procedure is an ordinary one, so a
seeded run, given dice and exact odds (interpreter.markov.chains) all run it by the one code path.

This is part of building the model (dsl.model): nothing here runs anything.

Each brought-in line keeps its own span and records (``ast.Inlined``) the procedure and
file it came from, so a diagnostic points at the used procedure's own line and names it.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from typing import Any

import attrs

from runebook.dsl import ast
from runebook.dsl import expr_ast as ex
from runebook.dsl.diagnostics import Diagnostic, DiagnosticSink, did_you_mean
from runebook.dsl.flow import Flow, expressions_of
from runebook.dsl.source import Source
from runebook.dsl.vocabulary import fold

__all__ = ["expand_procedures"]

#: Lines whose name is one of the procedure's (renamed with the rest of a used procedure's
#: names): those that bind it (``ast.Binding``), and places and jumps to them.
_NAMED = (ast.Binding, ast.StepLine, ast.GotoLine, ast.LabelLine, ast.TestLine)

_NONE = ex.Name(("none",))

#: Lines that expanding every ``do`` of a ruleset may produce together.
MAX_EXPANDED_LINES = 20_000
#: Procedures using each other in a chain (``do`` inside ``do``...).
MAX_USE_DEPTH = 32


def _rename(node: Any, mapping: Mapping[str, ex.Expr]) -> Any:
    """``node`` with every name of ``mapping`` (folded) replaced, keeping its span. Function
    names and the property of a possessive (``blade's Cost``) are not names of values."""
    if isinstance(node, ex.Name):
        new = mapping.get(fold(node.text))
        return node if new is None else attrs.evolve(new, span=node.span)
    if isinstance(node, tuple):
        return tuple(_rename(item, mapping) for item in node)
    if isinstance(node, ex.Comprehension):
        # `[v for a in xs]`: inside it, `a` is the comprehension's own, whatever the mapping says.
        inner = {k: v for k, v in mapping.items() if k != fold(node.name)}
        return attrs.evolve(node, value=_rename(node.value, inner), collection=_rename(node.collection, mapping),
                            condition=_rename(node.condition, inner) if node.condition is not None else None)
    if isinstance(node, ex.Possessive):
        return attrs.evolve(node, owner=_rename(node.owner, mapping))
    if isinstance(node, ex.Call):
        return attrs.evolve(node, args=_rename(node.args, mapping))
    if isinstance(node, ex.Expr):
        changes = {f.name: _rename(getattr(node, f.name), mapping) for f in attrs.fields(type(node))
                   if isinstance(getattr(node, f.name), ex.Expr | tuple)}
        return attrs.evolve(node, **changes) if changes else node
    return node


@attrs.frozen
class _Use:
    """A labelled ``do`` in a procedure: the prefix of its names and the results it gives."""

    prefix: str
    procedure: str
    results: dict[str, str]


class _Relabel:
    """Rewrites a caller's ``LABEL.name`` into the name the used procedure's result got."""

    def __init__(self, uses: dict[str, _Use], source: Source, sink: DiagnosticSink) -> None:
        self.uses, self.source, self.sink = uses, source, sink

    def __call__(self, node: Any) -> Any:
        if not self.uses:
            return node
        if isinstance(node, ex.Attribute) and isinstance(node.obj, ex.Name) and fold(node.obj.text) in self.uses:
            use = self.uses[fold(node.obj.text)]
            found = use.results.get(fold(node.name))
            if found is None:
                self.sink.items.append(Diagnostic.make(
                    "E0622", self.source, node.span, label=node.obj.text, name=node.name, procedure=use.procedure,
                    help=did_you_mean(node.name, list(use.results.values()))
                    or f"results of '{use.procedure}': {', '.join(use.results.values()) or 'none'}"))
                return node
            return ex.Name((f"{use.prefix}.{found}",), span=node.span)
        if isinstance(node, ex.Name) and fold(node.text) in self.uses:
            use = self.uses[fold(node.text)]
            self.sink.items.append(Diagnostic.make(
                "E0306", self.source, node.span,
                message=f"'{node.text}' names a use of '{use.procedure}', not a value",
                help=f"read one of its results, as in '{node.text}.{next(iter(use.results.values()), 'name')}'"))
            return node
        if isinstance(node, tuple):
            return tuple(self(item) for item in node)
        if isinstance(node, ex.Possessive):
            return attrs.evolve(node, owner=self(node.owner))
        if isinstance(node, ex.Call):
            return attrs.evolve(node, args=self(node.args))
        if isinstance(node, ex.Expr):
            changes = {f.name: self(getattr(node, f.name)) for f in attrs.fields(type(node))
                       if isinstance(getattr(node, f.name), ex.Expr | tuple)}
            return attrs.evolve(node, **changes) if changes else node
        return node

    def statement(self, statement: ast.Statement) -> ast.Statement:
        changes: dict[str, Any] = {}
        if statement.expr is not None:
            changes["expr"] = self(statement.expr)
        if statement.args:
            changes["args"] = self(statement.args)
        if statement.duration is not None:
            changes["duration"] = (self(statement.duration[0]), statement.duration[1])
        if statement.named:
            changes["named"] = tuple((k, self(v)) for k, v in statement.named)
        return attrs.evolve(statement, **changes) if changes else statement


def expand_procedures(procedures: Mapping[str, Any], sink: DiagnosticSink, *,
                      max_lines: int = MAX_EXPANDED_LINES, checks: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Every procedure with its ``do`` lines expanded (see the module's docstring). Unknown
    procedures (E0620; ``checks``, by folded name, to say that a check is called instead),
    uses of itself (E0621), unknown results (E0622) and wrong arguments (E0406, E0604, E0602,
    E0304) are diagnostics at the line.

    Uses are followed on an explicit stack (a chain of a thousand procedures is no deeper
    for Python than one), and the lines all expansions produce together are bounded by
    ``max_lines`` (E0629), so loading stays proportional to the ruleset's size.
    """
    done: dict[str, tuple[ast.Statement, ...]] = {}
    produced = [0]
    over = [False]

    def expand(key: str, stack: tuple[str, ...]) -> Generator[tuple[str, tuple[str, ...]], Any,
                                                              tuple[ast.Statement, ...]]:
        if key in done:
            return done[key]
        procedure = procedures[key]
        decl, source = procedure.decl, procedure.source
        if not any(isinstance(s, ast.DoLine) for s in decl.statements):
            done[key] = decl.statements
            return decl.statements
        stack = stack + (key,)
        own = {fold(p.name) for p in decl.params} | {fold(s.name) for s in decl.statements
                                                     if isinstance(s, ast.Binding)}
        # First the uses (their labels may be read anywhere, since `goto` jumps back).
        uses: dict[str, _Use] = {}
        bodies: dict[int, tuple[Any, tuple[ast.Statement, ...], str]] = {}
        prefixes: set[str] = set()
        for index, statement in enumerate(decl.statements):
            if not isinstance(statement, ast.DoLine):
                continue
            callee_key = fold(statement.name)
            callee = procedures.get(callee_key)
            if callee is None:
                check = (checks or {}).get(callee_key)
                called = f"call it in an expression, 'let {statement.label or 'r'} = {statement.name}(...)'"
                sink.items.append(Diagnostic.make(
                    "E0620", source, statement.span, name=statement.name,
                    help=f"'{statement.name}' is a check, not a procedure: {called}" if check is not None else
                    did_you_mean(statement.name, [p.name for p in procedures.values()])
                    or f"procedures: {', '.join(p.name for p in procedures.values())}"))
                continue
            if len(stack) >= MAX_USE_DEPTH:
                sink.items.append(Diagnostic.make("E0630", source, statement.span, limit=MAX_USE_DEPTH,
                                                  help="flatten the chain: fewer procedures each using the next"))
                continue
            if callee_key in stack:
                chain = [procedures[k].name for k in stack[stack.index(callee_key):]] + [callee.name]
                sink.items.append(Diagnostic.make(
                    "E0621", source, statement.span, name=procedure.name, chain=" -> ".join(chain),
                    help="a procedure cannot use itself, directly or through others; repeat with 'goto'"))
                continue
            label = statement.label
            if label is not None and (fold(label) in uses or fold(label) in own):
                sink.items.append(Diagnostic.make("E0304", source, statement.span, what="name", name=label,
                                                  owner="procedure",
                                                  help="give each use its own label, not a name the procedure uses"))
                continue
            prefix = label or callee.name
            count = 2
            while fold(prefix) in prefixes:
                prefix, count = f"{label or callee.name} {count}", count + 1
            prefixes.add(fold(prefix))
            body = yield (callee_key, stack)
            bodies[index] = (callee, body, prefix)
            if label is not None:
                results = {fold(s.name): s.name for s in body if isinstance(s, ast.ResultLine)}
                uses[fold(label)] = _Use(prefix, callee.name, results)
        relabel = _Relabel(uses, source, sink)
        set_before = Flow(decl.statements).maybe_set()
        values = _values_of(procedure)
        out: list[ast.Statement] = []
        for index, statement in enumerate(decl.statements):
            if not isinstance(statement, ast.DoLine):
                out.append(relabel.statement(statement))
            elif index in bodies:
                callee, body, prefix = bodies[index]
                if over[0]:
                    continue
                _hidden_names(procedure, values, lambda name, at=index: set_before(at, name), callee, body, sink)
                out.extend(_inline(relabel.statement(statement), procedure, callee, body, prefix, sink))
                produced[0] += len(body)
                if produced[0] > max_lines:
                    over[0] = True
                    sink.items.append(Diagnostic.make(
                        "E0629", source, statement.span, limit=f"{max_lines:,}",
                        help="uses of procedures are copied in place: share less through 'do', or use a check"))
        done[key] = tuple(out)
        return done[key]

    def run(key: str) -> tuple[ast.Statement, ...]:
        frames = [expand(key, ())]
        value: Any = None
        while True:
            try:
                callee_key, stack = frames[-1].send(value)
            except StopIteration as finished:
                frames.pop()
                if not frames:
                    return finished.value  # type: ignore[no-any-return]
                value = finished.value
                continue
            frames.append(expand(callee_key, stack))
            value = None

    expanded: dict[str, Any] = {}
    for key, procedure in procedures.items():
        statements = run(key)
        if statements is procedure.decl.statements:
            expanded[key] = procedure
        else:
            expanded[key] = attrs.evolve(procedure, decl=attrs.evolve(procedure.decl, statements=statements))
    return expanded


def _values_of(procedure: Any) -> dict[str, Any]:
    """A procedure's own names (folded): its inputs, then what its lines bind, each by the first
    declaration of it."""
    found: dict[str, Any] = {fold(p.name): p for p in procedure.decl.params}
    for statement in procedure.decl.statements:
        if isinstance(statement, ast.Binding) and not statement.name.startswith("#"):
            found.setdefault(fold(statement.name), statement)
    return found


def _hidden_names(caller: Any, values: Mapping[str, Any], set_before: Callable[[str], bool], callee: Any,
                  body: tuple[ast.Statement, ...], sink: DiagnosticSink) -> None:
    """E0633 where the used procedure reads a name of the game (a check, a function, a
    table...) that a value of the caller of the same name may hide (``values``: the caller's
    own names; an input always, a line's value when ``set_before`` says some way may have set
    it before the `do`): the used procedure's own names are renamed apart, the game's are not,
    so its line would find the caller's value at run time (`let bonus = 5` in the caller hiding
    the check `Bonus`)."""
    own = {fold(p.name) for p in callee.decl.params} | {fold(s.name) for s in body if isinstance(s, ast.Binding)}
    reported: set[str] = set()
    for statement in body:
        for expr in expressions_of(statement):
            found = list(ex.nodes(expr))
            items = {fold(n.name) for n in found if isinstance(n, ex.Comprehension)}
            # `who's Blast`: a property of the owner, not a name looked up.
            properties = {id(n.prop) for n in found if isinstance(n, ex.Possessive)}
            for node in found:
                if id(node) in properties:
                    continue
                name = node.func.text if isinstance(node, ex.Call) else node.text if isinstance(node, ex.Name) else None
                key = fold(name) if name is not None else ""
                hider = values.get(key)
                if hider is None or key in own or key in items or key in reported or "." in key \
                        or (isinstance(hider, ast.Statement) and not set_before(key)):
                    continue
                reported.add(key)
                line = f" (line {hider.span.line})" if hider.span is not None else ""
                where = statement.inlined.source if statement.inlined is not None else callee.source
                sink.items.append(Diagnostic.make(
                    "E0633", where, node.span or statement.span, name=name, procedure=callee.name,
                    caller=caller.name, help=f"'{caller.name}' has a value '{hider.name}'{line} that hides it where "
                    f"it uses '{callee.name}': rename that value"))


def _inline(use: ast.Statement, caller: Any, callee: Any, body: tuple[ast.Statement, ...], prefix: str,
            sink: DiagnosticSink) -> list[ast.Statement]:
    """The lines a ``do`` stands for: inputs bound, the used procedure's lines renamed."""
    source, params = caller.source, callee.decl.params
    names = [p.name for p in params] + [s.name for s in body if isinstance(s, ast.Binding)]
    mapping: dict[str, ex.Expr] = {fold(n): ex.Name((f"{prefix}.{n}",)) for n in names}
    # Arguments: by name, then the values without a name for the remaining inputs in order.
    given: dict[str, ex.Expr] = {}
    for name, value in use.named:
        param = callee.param(name)
        if param is None:
            sink.items.append(Diagnostic.make("E0604", source, use.span, name=name, check=callee.name,
                                              help=did_you_mean(name, [p.name for p in params])
                                              or f"inputs: {', '.join(p.name for p in params) or 'none'}"))
        elif param.name in given:
            sink.items.append(Diagnostic.make("E0304", source, use.span, what="input", name=param.name,
                                              owner="use", help="give each input once"))
        else:
            given[param.name] = value
    free = [p for p in params if p.name not in given]
    positional = list(use.args or ())
    if len(positional) > len(free):
        sink.items.append(Diagnostic.make("E0406", source, use.span, name=callee.name, expected=len(params),
                                          got=len(positional) + len(given),
                                          help=f"inputs: {', '.join(p.name for p in params) or 'none'}"))
    for param, value in zip(free, positional):
        given[param.name] = value
    substituted: set[str] = set()
    rebound = {fold(s.name) for s in body if isinstance(s, ast.Binding)}
    caller_params = {fold(p.name): p for p in caller.decl.params}
    for param in params:
        value = given.get(param.name)
        # A caller's name for an input the used procedure never changes stands in for it:
        # the same value (the caller does not run meanwhile), and an entry stays one across steps.
        same = caller_params.get(fold(value.text)) if isinstance(value, ex.Name) else None
        # A `character` input is given an entity as it is (the check stage types the argument).
        if (isinstance(value, ex.Name) and fold(param.name) not in rebound
                and (param.type is None or fold(param.type) == "character"
                     or (same is not None and fold(same.type or "") == fold(param.type)))):
            mapping[fold(param.name)] = value
            substituted.add(param.name)
    # A mark for the trace (`-- do Strike as first`), then the results as none (one the used
    # procedure does not reach reads so), then the inputs: a result may share an input's name.
    lines: list[ast.Statement] = [ast.UseLine(callee.name, label=prefix, span=use.span)]
    for name in dict.fromkeys(s.name for s in body if isinstance(s, ast.ResultLine)):
        lines.append(ast.LetLine(f"{prefix}.{name}", _NONE, span=use.span))
    for param in params:
        value = given.get(param.name)
        if param.name in substituted and param.type is not None:
            continue  # an entry (or a typed value) of the caller's: the name stands for it
        if value is not None:
            # (For a substituted input, the line only lets the entries' lines read it by name.)
            origin = use.inlined or ast.Inlined(caller.name, prefix, source)
            # The value is the caller's expression: read in the caller's names and file.
            lines.append(ast.InputLine(f"{prefix}.{param.name}", value, span=use.span,
                                       inlined=ast.Inlined(callee.name, prefix, origin.source, param=param,
                                                           scope=origin.scope)))
        elif param.default is not None:
            lines.append(ast.InputLine(f"{prefix}.{param.name}", _rename(param.default, mapping),
                                       span=param.span,
                                       inlined=ast.Inlined(callee.name, prefix, callee.source, param=param,
                                                           scope=prefix)))
        else:
            sink.items.append(Diagnostic.make("E0602", source, use.span, name=param.name, check=callee.name,
                                              help=f"give it: {param.name} = VALUE"))
    ends = False
    for statement in body:
        inlined = statement.inlined or ast.Inlined(callee.name, prefix, callee.source)
        inlined = attrs.evolve(inlined, scope=f"{prefix}.{inlined.scope}" if inlined.scope else prefix)
        changes: dict[str, Any] = {"inlined": inlined}
        if isinstance(statement, ast.ChooseLine) and inlined.choice is None:
            changes["inlined"] = attrs.evolve(inlined, choice=statement.name)
        if isinstance(statement, _NAMED):
            changes["name"] = f"{prefix}.{statement.name}"
        if isinstance(statement, ast.ResultLine):  # the used procedure's result: a value of the caller's
            statement = ast.SetLine(statement.name, statement.expr, span=statement.span, inlined=statement.inlined)
        if isinstance(statement, ast.EndLine):  # on to the end of the used procedure's lines
            ends = True
            statement = ast.GotoLine(f"{prefix}.end", statement.expr, span=statement.span, inlined=statement.inlined)
        if statement.expr is not None:
            changes["expr"] = _rename(statement.expr, mapping)
        if statement.args:
            changes["args"] = _rename(statement.args, mapping)
        if statement.duration is not None:
            changes["duration"] = (_rename(statement.duration[0], mapping), statement.duration[1])
        on = getattr(statement, "on", None)
        if on is not None and fold(on) in mapping:  # `gain Harm 2 on victim`: the used procedure's name
            changes["on"] = mapping[fold(on)].text
        lines.append(attrs.evolve(statement, **changes))
    if ends:
        lines.append(ast.StepLine(f"{prefix}.end", span=use.span))
    return lines
