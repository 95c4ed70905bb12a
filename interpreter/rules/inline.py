"""What runs of a procedure that uses others (``do NAME(args) as LABEL``) need at run time:
the names an entry's lines read inside a used procedure's lines, and an argument converted
to the used procedure's typed input. The expansion itself happens when the model is built
(dsl.inline)."""

from __future__ import annotations

from typing import Any

import attrs

from runebook.dsl import ast
from runebook.dsl.diagnostics import Diagnostic, RunebookError, did_you_mean
from runebook.dsl.source import Source
from runebook.dsl.vocabulary import fold
from runebook.interpreter.core.evaluate import MapEnv
from runebook.interpreter.core.values import Level, format_value
from runebook.interpreter.rules.entities import Entity
from runebook.interpreter.rules.entries import EntryView

__all__ = ["ReadingEnv", "bind_input"]

class ReadingEnv:
    """The names an entry's lines read (``[Edge + Grade]``): those of the procedure that
    reads it. While a line a ``do`` brought in runs, ``run_segment`` sets ``env.reading`` to
    its prefix, and the used procedure's own (renamed) names come first, then the inputs,
    roles and game names of the run; otherwise this is ``env`` itself."""

    __slots__ = ("env",)

    def __init__(self, env: Any) -> None:
        self.env = env

    def lookup(self, name: str) -> Any:
        prefix = getattr(self.env, "reading", "")
        if not prefix:
            return self.env.lookup(name)
        try:
            return self.env.lookup(f"{prefix}.{name}")
        except KeyError:
            pass
        parent = getattr(self.env, "parent", None)
        if parent is None:
            raise KeyError(name)
        return parent.lookup(name)

    def names(self) -> Any:
        prefix = getattr(self.env, "reading", "")
        if not prefix:
            return self.env.names()
        start = f"{prefix}.".casefold()
        own = [n[len(start):] for n in self.env.names() if n.casefold().startswith(start) and "." not in n[len(start):]]
        parent = getattr(self.env, "parent", None)
        return own + (list(parent.names()) if parent is not None else [])


def bind_input(rules: Any, ctx: Any, statement: ast.Statement, source: Source, env: Any, value: Any) -> Any:
    """An argument of a ``do`` as the used procedure's typed input takes it, converted as a
    top-level run converts ``--with`` values (an entry's name becomes the entry)."""
    inlined = statement.inlined
    param = inlined.param if inlined is not None else None
    if param is None or param.type is None:
        return value
    if fold(param.type) == "character":
        if isinstance(value, Entity):
            return value
        raise RunebookError([Diagnostic.make(
            "E0603", source, statement.expr.span if statement.expr is not None else statement.span,
            name=param.name, expected="a character", value=format_value(ctx.result(value)),
            help=f"an input of '{inlined.procedure}': pass a character (actor, target, a member of a party)")])
    value = ctx.result(value)
    kinds = rules.ruleset.vocabulary.kinds
    if fold(param.type) in kinds:
        if isinstance(value, EntryView):
            return value
        entry = rules.ruleset.entry(str(value)) if isinstance(value, str | Level) else None
        if entry is None or fold(entry.kind or "") != fold(param.type):
            names = [e.entry.name for e in rules.ruleset.entries if fold(e.kind or "") == fold(param.type)]
            raise RunebookError([Diagnostic.make(
                "E0603", source, statement.expr.span if statement.expr is not None else statement.span,
                name=param.name, expected=f"a {param.type}", value=str(value),
                help=did_you_mean(str(value), names) or f"an input of '{inlined.procedure}'")])
        scope = MapEnv({param.name: entry})
        rules.entry_views(scope, env, ctx)
        return scope.mapping[param.name]
    if isinstance(value, str) and fold(param.type) != "text":
        problems = [Diagnostic.make("E0603", None, None, name=param.name, expected=param.type, value=value)]
    else:
        problems = []
        value = rules._convert(param, value, None, problems)
    if problems:
        raise RunebookError([attrs.evolve(p, source=source, span=statement.expr.span if statement.expr else
                                          statement.span, help=f"an input of '{inlined.procedure}'")
                             for p in problems])
    return value
