"""Content entries as values of the rules: a procedure reads a power's lines.

A procedure input typed by an entry kind (``procedure Use (power: Power)``) receives an
:class:`EntryView`. ``power's Cost`` reads the entry's ``Cost:`` line: its brackets are
evaluated **in the procedure's scope at the moment of reading**, so the rules can give a
context name (``Weapon``, ``Grade``) one value before reading one line and another before
the next — the way a rulebook's notation reads. A line's value is its expression when the
label is typed ``expression`` (or the whole value parses as one), else its first bracket,
else its leading number, else its text.

``line(entry, "Result", grade)`` reads the graded line (``Result 2:``) with the highest
grade not above ``grade``; an ungraded line counts as grade 0.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import attrs

from dsl import ast
from dsl import expr_ast as ex
from dsl.diagnostics import Diagnostic, RunebookError, did_you_mean
from dsl.parser import parse_expression
from dsl.source import Source
from dsl.vocabulary import KindSpec, fold
from interpreter.values import Derived

__all__ = ["EntryView", "line_value"]


def _value_expr(prop: ast.Property) -> ex.Expr | str | None:
    """The expression a line stands for (see the module docstring)."""
    value = prop.value
    if value is None:
        return None
    if len(value.parts) == 1 and isinstance(value.parts[0], ast.Bracket):
        return value.parts[0].expr
    brackets = value.brackets()
    if brackets:
        return brackets[0].expr
    text = str(value)
    try:
        return parse_expression(text)
    except RunebookError:
        pass
    head = text.split(" ", 1)[0]
    if head.lstrip("+-").isdigit():
        return ex.Number(int(head))
    return text


def _grade(prop: ast.Property) -> int:
    return int(prop.grade.rstrip("+")) if prop.grade else 0


@attrs.frozen(eq=False)
class EntryView:
    """An entry read by a running procedure; its lines evaluate in ``env``."""

    entry: ast.Entry
    kind: KindSpec | None
    env: Any
    source: Source

    @property
    def name(self) -> str:
        return self.entry.name

    def _matches(self, prop: ast.Property, label: str) -> bool:
        if self.kind is not None:
            spec = self.kind.label(label)
            if spec is not None:
                return fold(prop.label) in {fold(n) for n in (spec.name, *spec.aliases)}
        return fold(prop.label) == fold(label)

    def lines(self, label: str) -> list[ast.Property]:
        return [p for p in self.entry.properties if self._matches(p, label)]

    def value_of(self, prop: ast.Property) -> Any:
        expr = _value_expr(prop)
        if expr is None or isinstance(expr, str):
            return expr
        return Derived(f"{self.entry.name}'s {prop.heading}", expr, self.env, self.source)

    def lookup(self, label: str) -> Any:
        if fold(label) == "name":
            return self.entry.name
        found = self.lines(label)
        if not found:
            raise KeyError(label)
        ungraded = [p for p in found if p.grade is None]
        return self.value_of((ungraded or found)[0])

    def names(self) -> Iterable[str]:
        return [p.label for p in self.entry.properties]

    def __str__(self) -> str:
        return self.entry.name


def line_value(view: EntryView, label: str, grade: Any, site: Any) -> Any:
    """The line ``label`` for ``grade``: the highest graded line not above it."""
    found = [p for p in view.lines(label) if _grade(p) <= grade]
    if not found:
        if view.lines(label):
            return None
        raise RunebookError([Diagnostic.make(
            "E0607", site[0], site[1], message=f"'{view.entry.name}' has no '{label}' line",
            help=did_you_mean(label, list(view.names())))])
    return view.value_of(max(found, key=_grade))
