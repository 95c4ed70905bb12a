"""Content entries as values of the rules: a procedure reads an entry's lines.

A procedure input typed by an entry kind (``procedure Cast (spell: Spell)``) receives an
:class:`EntryView`. ``spell's Cost`` reads the entry's ``Cost:`` line: its brackets are
evaluated **in the procedure's scope at the moment of reading**, so the rules can give a
context name (``Focus``, ``Level``) one value before reading one line and another before
the next — the way a rulebook's notation reads. A line's value is its expression when the
label is typed ``expression`` (or the whole value parses as one), else its first bracket,
else its leading number, else its text.

``line(entry, "Result", grade)`` reads the graded line (``Result 2:``) with the highest
grade not above ``grade``; an ungraded line counts as grade 0. ``line_text`` gives the same
line as text, every bracket replaced by its value (``15 damage``), and ``number_in`` reads a
number out of such a text by a small pattern (``"# * damage"``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import attrs

from runebook.dsl import ast
from runebook.dsl import expr_ast as ex
from runebook.dsl.checker import relocate
from runebook.dsl.diagnostics import Diagnostic, RunebookError, did_you_mean
from runebook.dsl.parser import parse_expression
from runebook.dsl.source import Source
from runebook.dsl.vocabulary import KindSpec, fold
from runebook.interpreter.core.evaluate import resolve_value
from runebook.interpreter.core.trace import StepEvent
from runebook.interpreter.core.values import Derived, format_value

__all__ = ["EntryView", "line_text", "line_value", "number_in", "render_value"]


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
        return relocate(parse_expression(text), value.span)  # a diagnostic points at the line
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


_MISSING = object()


def line_value(view: EntryView, label: str, grade: Any, site: Any, default: Any = _MISSING) -> Any:
    """The line ``label`` for ``grade``: the highest graded line not above it. An entry
    without any such line gives ``default`` when one is given, else is a diagnostic."""
    found = [p for p in view.lines(label) if _grade(p) <= grade]
    if not found:
        if view.lines(label):
            return None
        if default is not _MISSING:
            return default
        raise RunebookError([Diagnostic.make(
            "E0607", site[0], site[1], message=f"'{view.entry.name}' has no '{label}' line",
            help=did_you_mean(label, list(view.names())))])
    return view.value_of(max(found, key=_grade))


def render_value(view: EntryView, value: ast.Value | None, ctx: Any, site: Any) -> str:
    """A line's text with every bracket replaced by its value, evaluated in the view's scope."""
    if value is None:
        return ""
    out: list[str] = []
    for part in value.parts:
        if isinstance(part, ast.Bracket):
            derived = Derived(f"{view.entry.name}'s [{part.expr}]", part.expr, view.env, view.source)
            out.append(format_value(ctx.result(resolve_value(derived, "line_text", ctx, site))))
        elif isinstance(part, ast.Emphasis):
            out.append(render_value(view, ast.Value(part.parts), ctx, site))
        else:
            out.append(str(part))
    return " ".join("".join(out).split())


def line_text(view: EntryView, label: str, grade: Any, ctx: Any, site: Any) -> str:
    """``line_text(entry, "Label")``: the line as text (several lines of the label are
    joined); with a grade, the line ``line`` would pick. An absent line is empty text."""
    found = view.lines(label)
    rank = getattr(grade, "rank", None)
    grade = rank if rank is not None and not isinstance(grade, int) else grade
    if grade is not None:
        found = [p for p in found if _grade(p) <= grade]
        found = [max(found, key=_grade)] if found else []
    texts = []
    for prop in found:
        text = render_value(view, prop.value, ctx, site)
        texts.append(text)
        if getattr(ctx, "trace", None) is not None:
            ctx.trace.append(StepEvent("line", f"{view.entry.name}: {prop.heading}", text, prop.span,
                                       view.source.name))
    return " ".join(texts).strip()


def number_in(text: str, pattern: str) -> int:
    """The number a text holds where ``pattern`` says: ``#`` is the number, ``*`` any
    words (or none), other words match as written (any case). 0 when nothing matches:
    ``number_in("12 frost damage", "# * damage")`` is 12, ``number_in("Resist 2",
    "resist #")`` is 2."""
    parts: list[str] = []
    for word in pattern.split():
        if word == "#":
            parts.append(r"([+-]?\d+)")
        elif word == "*":
            parts.append(r"(?:[^\s.,;:]+\s+)*?")
        else:
            parts.append(re.escape(word))
    regex = _join(parts)
    match = re.search(r"(?<![\w+-])" + regex + r"(?!\w)", str(text), re.IGNORECASE)
    return int(match.group(1)) if match and match.groups() else 0


def _join(parts: list[str]) -> str:
    """Pattern pieces separated by whitespace; a ``*`` piece carries its own spaces."""
    regex = ""
    for i, part in enumerate(parts):
        if i and not parts[i - 1].endswith("*?"):
            regex += r"\s+"
        regex += part
    return regex
