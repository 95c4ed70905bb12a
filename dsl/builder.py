"""Parse tree → AST. One method per grammar rule; every node gets a span.

The expression rules arrive namespaced (``expr__binary``) because rules.lark imports
expr.lark; :func:`make_builder` merges the two transformers under that namespace.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import attrs
from lark import Token, Transformer, v_args
from lark.tree import Meta
from lark.visitors import merge_transformers

from runebook.dsl import ast
from runebook.dsl import expr_ast as ex
from runebook.dsl.blocks import Opener, nest
from runebook.dsl.diagnostics import DiagnosticSink, did_you_mean
from runebook.dsl.expr_builder import ExprBuilder, span_of, spanless, with_span
from runebook.dsl.source import Span

__all__ = ["RulesBuilder", "make_builder"]


def _word(line: object) -> str:
    if isinstance(line, Opener):
        return {"for": "for each"}.get(line.word, line.word)
    return "next" if isinstance(line, ast.NextLine) else "stop"


#: The most options a range of numbers (`choose n: 1 to 50`) may stand for.
MAX_CHOICE_RANGE = 1000


class _KeyNumber(int):
    """A table row's or a case's number while it is read, with where it is written."""

    span: Span | None = None


# Intermediate records for entry lines; assembled into nested nodes by `_assemble`.
@attrs.define
class _Line:
    kind: str  # "label" | "text" | "named" | "option" | "sub" | "plain"
    span: Span
    label: str | None = None
    grade: str | None = None
    types: str | None = None
    value: ast.Value | None = None
    label_span: Span | None = None
    indent: int = 0
    types_span: Span | None = None


@attrs.define
class _Node:
    """Mutable scaffolding for a Property or an Item while lines are attached."""

    line: _Line
    indent: int
    paragraphs: list[ast.Value] = attrs.Factory(list)
    after: list[ast.Value] = attrs.Factory(list)
    properties: list[_Node] = attrs.Factory(list)
    items: list[_Node] = attrs.Factory(list)

    def freeze(self) -> ast.Property | ast.Item:
        line = self.line
        if line.kind in ("label", "sub"):
            return ast.Property(
                line.label or "",
                line.grade,
                line.value,
                tuple(self.paragraphs),
                tuple(i.freeze() for i in self.items),  # type: ignore[misc]
                tuple(self.after),
                span=line.span,
                label_span=line.label_span,
            )
        style = {"named": "named", "option": "option", "plain": "plain"}[line.kind]
        return ast.Item(
            style,
            line.label,
            line.types,
            line.value,
            tuple(self.paragraphs),
            tuple(p.freeze() for p in self.properties),  # type: ignore[misc]
            tuple(i.freeze() for i in self.items),  # type: ignore[misc]
            tuple(self.after),
            span=line.span,
            types_span=line.types_span,
        )


def _label_span(token: Token, label: str) -> Span:
    """The span of the label's words inside a label token (no emphasis, no colon)."""
    offset = max(0, str(token).find(label))
    column = token.column + offset
    return Span(token.line, column, token.line, column + len(label))


@lru_cache(maxsize=4096)  # a file repeats the same few labels on every entry
def _split_label(text: str) -> tuple[str, str | None]:
    """`*Result 2:*` → ("Result", "2"); `**Ill Fated:**` → ("Ill Fated", None)."""
    inner = text.strip("*").rstrip(":").strip("*").rstrip(":").strip()
    head, _, last = inner.rpartition(" ")
    if head and last.rstrip("+").isdigit():
        return head.strip(), last
    return inner, None


def _with_text(part: ast.Text, text: str, span: Span | None) -> ast.Text:
    """``attrs.evolve(part, text=text, span=span)``, without its generic cost for the common class."""
    if part.__class__ is ast.Text:
        return ast.Text(text, span=span)
    return attrs.evolve(part, text=text, span=span)


def _strip_value(parts: list) -> ast.Value | None:
    """Trim the value's outer whitespace; an all-blank value is no value."""
    parts = list(parts)
    if parts and isinstance(parts[0], ast.Text):
        first = parts[0]
        text = first.text.lstrip()
        if not text:
            parts.pop(0)
        else:
            removed = len(first.text) - len(text)
            span = first.span
            if removed and span is not None and "\n" not in first.text[:removed]:
                # the value starts at its first character, not at the space after the colon
                span = Span(span.line, span.column + removed, span.end_line, span.end_column)
            parts[0] = _with_text(first, text, span)
    if parts and isinstance(parts[-1], ast.Text):
        last = parts[-1]
        text = last.text.rstrip()
        if not text:
            parts.pop()
        else:
            cut = len(last.text) - len(text)
            span = last.span
            if cut and span is not None and span.line == span.end_line:
                span = Span(span.line, span.column, span.end_line, span.end_column - cut)
            parts[-1] = _with_text(last, text, span)
    if not parts:
        return None
    head, tail = parts[0].span, parts[-1].span
    return ast.Value(tuple(parts), span=head.cover(tail) if head and tail else None)


#: Words that open a declaration block (see grammar/rules.lark).
DECLARATION_KEYWORDS = ("extends", "stats", "names", "kind", "option", "levels", "table", "function", "check", "example", "procedure",
                        "resource", "condition", "derive")


_KEYWORD_NEEDS = {
    "extends": "the name of the game this file extends",
    "stats": "a list of stat names",
    "names": "a list of names",
    "kind": "the name of the entry kind",
    "option": "a name, its choices and a default: 'option NAME: a | b = a'",
    "levels": "a name and its levels: 'levels NAME: low < high'",
    "table": "the table's name",
    "function": "a name, parameters and a body: 'function NAME(x) = x + 1'",
    "check": "a name and its inputs: 'check NAME (pool, difficulty = 1)'",
    "example": "a check and its inputs: 'example NAME (pool = 5)'",
    "procedure": "a name and its inputs: 'procedure NAME (a, b)'",
    "resource": "a name and its settings: 'resource NAME (cap = 6)'",
    "derive": "a name and a formula: 'derive NAME = Speed + Will'",
    "condition": "a name and its settings: 'condition NAME (type = mental)'",
}


def _keyword_typo(name: str) -> str | None:
    """A hint when an entry name looks like a misspelt declaration keyword."""
    first = name.split(" ", 1)[0]
    if not first.islower() or first in DECLARATION_KEYWORDS:
        return None
    return did_you_mean(first, DECLARATION_KEYWORDS)


@v_args(wrapper=with_span)
class RulesBuilder(Transformer):
    """Builds content entries and declarations (`dsl.ast`).

    It runs inside the parser; ``sink`` is set for each parse and receives the
    structural problems found while nesting lines.
    """

    def __init__(self, sink: DiagnosticSink | None = None) -> None:
        super().__init__()
        self.sink = sink or DiagnosticSink()

    # values
    @spanless
    def value(self, meta: Meta, children: list) -> list:
        return [ast.Text(str(c), span=span_of(c)) if isinstance(c, Token) else c for c in children]

    def bracket(self, meta: Meta, children: list) -> ast.Bracket:
        return ast.Bracket(children[0], span=span_of(meta))

    def emphasis(self, meta: Meta, children: list) -> ast.Emphasis:
        opening, *inner, _closing = children
        parts = tuple(ast.Text(str(c), span=span_of(c)) if isinstance(c, Token) else c for c in inner)
        return ast.Emphasis(parts, strong=str(opening) == "**", span=span_of(meta))

    # lines
    @spanless
    def header(self, meta: Meta, children: list) -> ast.Header:
        replaces, name_token, types, source = children
        name = str(name_token).strip()
        if name.startswith("**") and name.endswith("**"):
            name = name[2:-2].strip()
        return ast.Header(
            name,
            str(types)[1:-1].strip() if types is not None else None,
            str(source)[1:-1].strip().strip("*").strip() if source is not None else None,
            span=span_of(name_token),
            types_span=span_of(types) if types is not None else None,
            replaces=replaces is not None,
        )

    def label_line(self, meta: Meta, children: list) -> _Line:
        token, value = children
        label, grade = _split_label(str(token))
        return _Line("label", span_of(meta), label, grade, None, _strip_value(value or []), _label_span(token, label))

    def text_line(self, meta: Meta, children: list) -> _Line:
        return _Line("text", span_of(meta), value=_strip_value(children[0]))

    def bullet_line(self, meta: Meta, children: list) -> _Line:
        line: _Line = children[1]
        line.span = span_of(meta)
        return line

    def named_item(self, meta: Meta, children: list) -> _Line:
        token, types = children
        return _Line(
            "named", span_of(meta), str(token).strip("*").strip(), None,
            str(types)[1:-1].strip() if types is not None else None, label_span=span_of(token),
            types_span=span_of(types) if types is not None else None,
        )

    def named_option(self, meta: Meta, children: list) -> _Line:
        token, value = children
        name, _grade = _split_label(str(token))
        return _Line("option", span_of(meta), name, value=_strip_value(value or []), label_span=_label_span(token, name))

    def sub_label(self, meta: Meta, children: list) -> _Line:
        token, value = children
        label, grade = _split_label(str(token))
        return _Line("sub", span_of(meta), label, grade, None, _strip_value(value or []), _label_span(token, label))

    def plain_item(self, meta: Meta, children: list) -> _Line:
        return _Line("plain", span_of(meta), value=_strip_value(children[0]))

    @spanless
    def entry_line(self, meta: Meta, children: list) -> _Line:
        line = children[-1]
        line.indent = len(str(children[0]).expandtabs(2)) if len(children) == 2 else 0
        return line

    def entry(self, meta: Meta, children: list) -> ast.Entry:
        header, *lines = children
        if header.name in DECLARATION_KEYWORDS:
            self.sink.error("E0115", header.span, word=header.name, what=_KEYWORD_NEEDS[header.name])
            return ast.Entry(header, _assemble(lines, DiagnosticSink()), span=span_of(meta))
        hint = _keyword_typo(header.name)
        if hint:
            word = header.name.split(" ", 1)[0]
            self.sink.error("E0112", Span(header.span.line, header.span.column, header.span.line,
                                          header.span.column + len(word)), word=word, help=hint)
            # The body was written for a declaration; reading it as content only adds noise.
            return ast.Entry(header, _assemble(lines, DiagnosticSink()), span=span_of(meta))
        properties = _assemble(lines, self.sink)
        return ast.Entry(header, properties, span=span_of(meta))

    # declarations
    @spanless
    def phrase_list(self, meta: Meta, children: list) -> list[ast.Phrase]:
        return [ast.Phrase(str(c).strip(), span=span_of(c)) for c in children]

    def _names(self, children: list) -> tuple[ast.Phrase, ...]:
        return tuple(p for group in children if isinstance(group, list) for p in group)

    def extends_decl(self, meta: Meta, children: list) -> ast.ExtendsDecl:
        token = children[0]
        return ast.ExtendsDecl(ast.Phrase(str(token).strip(), span=span_of(token)), span=span_of(meta))

    def uses_decl(self, meta: Meta, children: list) -> ast.UsesDecl:
        return ast.UsesDecl(tuple(children[0]), span=span_of(meta))

    def stats_decl(self, meta: Meta, children: list) -> ast.StatsDecl:
        return ast.StatsDecl(self._names(children), span=span_of(meta))

    def names_decl(self, meta: Meta, children: list) -> ast.NamesDecl:
        return ast.NamesDecl(self._names(children), span=span_of(meta))

    @spanless
    def kind_types(self, meta: Meta, children: list) -> tuple[str, list[ast.Phrase]]:
        return ("types", children[0])

    @spanless
    def kind_keywords(self, meta: Meta, children: list) -> tuple[str, list[ast.Phrase]]:
        return ("keywords", children[0])

    @spanless
    def kind_checks(self, meta: Meta, children: list) -> tuple[str, list[ast.Phrase]]:
        return ("checks", children[0])

    @spanless
    def label_decl(self, meta: Meta, children: list) -> ast.LabelDecl:
        token, spec = children
        label, _grade = _split_label(str(token))
        return ast.LabelDecl(label, tuple(spec), span=_label_span(token, label))

    def kind_decl(self, meta: Meta, children: list) -> ast.KindDecl:
        name_token, *lines = children
        types: list[ast.Phrase] = []
        keywords: list[ast.Phrase] = []
        labels: list[ast.LabelDecl] = []
        checks: list[ast.Phrase] = []
        for line in lines:
            if isinstance(line, Token):  # an INDENT
                continue
            if isinstance(line, tuple) and line[0] == "keywords":
                keywords.extend(line[1])
            elif isinstance(line, tuple) and line[0] == "checks":
                checks.extend(line[1])
            elif isinstance(line, tuple):
                types.extend(line[1])
            else:
                labels.append(line)
        return ast.KindDecl(
            ast.Phrase(str(name_token).strip(), span=span_of(name_token)),
            tuple(types),
            tuple(labels),
            span=span_of(meta),
            keywords=tuple(keywords),
            checks=tuple(checks),
        )

    # mechanics
    name = ExprBuilder.name

    def _phrase(self, token: Token) -> ast.Phrase:
        return ast.Phrase(str(token).strip(), span=span_of(token))

    def option_decl(self, meta: Meta, children: list) -> ast.OptionDecl:
        name, *choices, default = children
        return ast.OptionDecl(self._phrase(name), tuple(self._phrase(c) for c in choices),
                              self._phrase(default) if default is not None else None, span=span_of(meta))

    def levels_decl(self, meta: Meta, children: list) -> ast.LevelsDecl:
        name, *levels = children
        return ast.LevelsDecl(self._phrase(name), tuple(self._phrase(c) for c in levels), span=span_of(meta))

    def key_number(self, meta: Meta, children: list) -> int:
        sign, number = children
        found = _KeyNumber(-int(number) if sign is not None and str(sign) == "-" else int(number))
        found.span = span_of(meta)  # so that the key's span covers its numbers, not only '+' or '-'
        return found

    def key_exact(self, meta: Meta, children: list) -> ast.RowKey:
        return ast.RowKey("exact", int(children[0]), span=span_of(meta))

    def key_open(self, meta: Meta, children: list) -> ast.RowKey:
        number, op = children
        if str(op) != "+":
            self.sink.error("E0102", span_of(op), found=f"'{op}'", expected="'+' (as in '3+') or a range ('3-4')")
        return ast.RowKey("open", int(number), span=span_of(meta))

    def key_range(self, meta: Meta, children: list) -> ast.RowKey:
        low, op, high = children
        if str(op) != "-":
            self.sink.error("E0102", span_of(op), found=f"'{op}'", expected="'-' between the ends of a range")
        return ast.RowKey("range", int(low), int(high), span=span_of(meta))

    def key_name(self, meta: Meta, children: list) -> ast.RowKey:
        return ast.RowKey("name", name=children[0].text, span=span_of(meta))

    def table_row(self, meta: Meta, children: list) -> ast.TableRow:
        return ast.TableRow(children[0], children[1], span=span_of(meta))

    def table_decl(self, meta: Meta, children: list) -> ast.TableDecl:
        name, *rows = children
        return ast.TableDecl(name, tuple(r for r in rows if isinstance(r, ast.TableRow)), span=span_of(meta))

    def param(self, meta: Meta, children: list) -> ast.Param:
        name, kind, default = children
        # A type may be a phrase (`kind: Element Kind`).
        kind = kind.text if isinstance(kind, ex.Name) else kind
        return ast.Param(str(name), str(kind) if kind is not None else None, default, span=span_of(meta))

    @spanless
    def params(self, meta: Meta, children: list) -> tuple[ast.Param, ...]:
        return tuple(children)

    def function_decl(self, meta: Meta, children: list) -> ast.FunctionDecl:
        name, params, body = children
        return ast.FunctionDecl(name, params or (), body, span=span_of(meta))

    def _statement(self, cls: type[ast.Assignment], meta: Meta, children: list) -> ast.Statement:
        return cls(str(children[0]), children[1], span=span_of(meta))

    def set_line(self, meta: Meta, children: list) -> ast.Statement:
        name, *path, value = children
        return ast.SetLine(str(name), value, path=tuple(path), span=span_of(meta))

    @spanless
    def set_index(self, meta: Meta, children: list) -> tuple[str, object]:
        return ("index", children[0])

    @spanless
    def set_field(self, meta: Meta, children: list) -> tuple[str, object]:
        return ("field", str(children[0]))

    def step_line(self, meta: Meta, children: list) -> ast.Statement:
        return ast.StepLine(str(children[0]), span=span_of(meta))

    def goto_line(self, meta: Meta, children: list) -> ast.Statement:
        return ast.GotoLine(str(children[0]), children[1], span=span_of(meta))

    def end_line(self, meta: Meta, children: list) -> ast.Statement:
        return ast.EndLine(children[0], span=span_of(meta))

    def choose_line(self, meta: Meta, children: list) -> ast.Statement:
        name, *choices, condition = children
        return ast.ChooseLine(str(name), condition, tuple(c for group in choices for c in group),
                              span=span_of(meta))

    def choose_from_line(self, meta: Meta, children: list) -> ast.Statement:
        name, items, condition = children
        return ast.ChooseLine(str(name), condition, args=(items,), span=span_of(meta))

    @spanless
    def choice_option(self, meta: Meta, children: list) -> tuple[str, ...]:
        if len(children) == 1:
            return (str(children[0]),)
        low, high = int(children[0]), int(children[1])
        if low > high or high - low >= MAX_CHOICE_RANGE:
            return (f"{low} to {high}",)  # kept as written; the rules layer reports it (E0308)
        return tuple(str(n) for n in range(low, high + 1))

    def _amount(self, cls: type[ast.Amount], meta: Meta, children: list) -> ast.Statement:
        name, amount, on = children
        return cls(str(name), amount, on=str(on) if on is not None else None, span=span_of(meta))

    def spend_line(self, meta: Meta, children: list) -> ast.Statement:
        return self._amount(ast.SpendLine, meta, children)

    def gain_line(self, meta: Meta, children: list) -> ast.Statement:
        return self._amount(ast.GainLine, meta, children)

    def apply_line(self, meta: Meta, children: list) -> ast.Statement:
        name, args, duration, on = children
        return ast.ApplyLine(name.text, on=str(on) if on is not None else None, span=span_of(meta),
                             args=args, duration=duration)

    def remove_line(self, meta: Meta, children: list) -> ast.Statement:
        name, args, on = children
        return ast.RemoveLine(name.text, on=str(on) if on is not None else None, span=span_of(meta),
                              args=args)

    def do_line(self, meta: Meta, children: list) -> ast.Statement:
        name, *given, label = children
        positional = tuple(a[1] for a in given if a is not None and a[0] is None)
        named = tuple((a[0], a[1]) for a in given if a is not None and a[0] is not None)
        return ast.DoLine(name.text, args=positional, named=named,
                          label=str(label) if label is not None else None, span=span_of(meta))

    @spanless
    def named_arg(self, meta: Meta, children: list) -> tuple[str | None, ex.Expr]:
        return (str(children[0]), children[1])

    @spanless
    def positional_arg(self, meta: Meta, children: list) -> tuple[str | None, ex.Expr]:
        return (None, children[0])

    @spanless
    def condition_args(self, meta: Meta, children: list) -> tuple:
        return tuple(c for c in children if c is not None)

    @spanless
    def duration(self, meta: Meta, children: list) -> tuple:
        count, event = children
        if isinstance(count, Token):
            count = ex.Number(int(count), span=span_of(count))
        return (count, str(event))

    @spanless
    def modifier_line(self, meta: Meta, children: list) -> ast.Statement:
        return ast.ModifierLine(children[0].text, children[1], span=children[0].span)

    @spanless
    def becomes_line(self, meta: Meta, children: list) -> ast.Statement:
        return ast.BecomesLine(children[0].text, children[1], span=children[0].span)

    @spanless
    def implies_line(self, meta: Meta, children: list) -> ast.Statement:
        return ast.ImpliesLine(children[0].text, span=children[0].span)

    def _text_line(self, cls: type[ast.Listed], meta: Meta, children: list) -> ast.Statement:
        text, on = children
        return cls(text, on=str(on) if on is not None else None, span=span_of(meta))

    def pay_line(self, meta: Meta, children: list) -> ast.Statement:
        return self._text_line(ast.PayLine, meta, children)

    def impose_line(self, meta: Meta, children: list) -> ast.Statement:
        return self._text_line(ast.ImposeLine, meta, children)

    def lift_line(self, meta: Meta, children: list) -> ast.Statement:
        return self._text_line(ast.LiftLine, meta, children)

    def require_line(self, meta: Meta, children: list) -> ast.Statement:
        return ast.RequireLine(children[0], span=span_of(meta))

    def reset_line(self, meta: Meta, children: list) -> ast.Statement:
        return ast.ResetLine(str(children[0]), span=span_of(meta))

    def derive_decl(self, meta: Meta, children: list) -> ast.DeriveDecl:
        return ast.DeriveDecl(children[0], children[1], span=span_of(meta))

    def resource_decl(self, meta: Meta, children: list) -> ast.ResourceDecl:
        name, params = children
        return ast.ResourceDecl(name, params or (), span=span_of(meta))

    def condition_decl(self, meta: Meta, children: list) -> ast.ConditionDecl:
        name, params, *rest = children
        modifiers = tuple(c for c in rest if isinstance(c, ast.Statement))
        return ast.ConditionDecl(name, params or (), modifiers, span=span_of(meta))

    def procedure_decl(self, meta: Meta, children: list) -> ast.ProcedureDecl:
        name, params, *lines = children
        paired: list[tuple[int, object, Span | None]] = []
        width, start = 0, None
        for line in lines:
            if isinstance(line, Token):  # an INDENT: the width of the line after it
                width = len(str(line).expandtabs(8))
                start = (line.line, len(str(line)) + 1)
            elif line is not None:
                if isinstance(line, Opener | ast.NextLine | ast.StopLine) and start is not None:
                    # A block's line is where its keyword is (the grammar drops keywords).
                    end = line.span if line.span is not None else None
                    line = attrs.evolve(line, span=Span(start[0], start[1], end.end_line if end else start[0],
                                                        end.end_column if end else start[1] + len(_word(line))))
                paired.append((width, line, Span.point(start[0], start[1]) if start else None))
        return ast.ProcedureDecl(name, params or (), nest(paired, self.sink), span=span_of(meta))

    def if_line(self, meta: Meta, children: list) -> Opener:
        return Opener("if", children[0], span=span_of(meta))

    def else_line(self, meta: Meta, children: list) -> Opener:
        return Opener("else", children[0], span=span_of(meta))

    def match_line(self, meta: Meta, children: list) -> Opener:
        return Opener("match", children[0], span=span_of(meta))

    def case_line(self, meta: Meta, children: list) -> Opener:
        return Opener("case", patterns=tuple(children), span=span_of(meta))

    def for_line(self, meta: Meta, children: list) -> Opener:
        return Opener("for", children[1], name=str(children[0]), span=span_of(meta))

    def repeat_line(self, meta: Meta, children: list) -> Opener:
        return Opener("repeat", span=span_of(meta))

    def next_line(self, meta: Meta, children: list) -> ast.NextLine:
        return ast.NextLine(children[0], span=span_of(meta))

    def stop_line(self, meta: Meta, children: list) -> ast.StopLine:
        return ast.StopLine(children[0], span=span_of(meta))

    def roll_line(self, meta: Meta, children: list) -> ast.Statement:
        return self._statement(ast.RollLine, meta, children)

    def let_line(self, meta: Meta, children: list) -> ast.Statement:
        return self._statement(ast.LetLine, meta, children)

    def result_line(self, meta: Meta, children: list) -> ast.Statement:
        return self._statement(ast.ResultLine, meta, children)

    def show_line(self, meta: Meta, children: list) -> ast.Statement:
        return self._statement(ast.ShowLine, meta, children)

    def check_decl(self, meta: Meta, children: list) -> ast.CheckDecl:
        name, params, *lines = children
        statements = tuple(line for line in lines if isinstance(line, ast.Statement))
        return ast.CheckDecl(name, params or (), statements, span=span_of(meta))

    def example_decl(self, meta: Meta, children: list) -> ast.ExampleDecl:
        name, params, *lines = children
        kept = tuple(line for line in lines
                     if isinstance(line, ast.ExampleDice | ast.Expectation | ast.ExpectRefusal | ast.ExampleAnswer
                                   | ast.ExampleOption | ast.ExampleSheet))
        return ast.ExampleDecl(name, params or (), kept, span=span_of(meta))

    def example_dice(self, meta: Meta, children: list) -> ast.ExampleDice:
        return ast.ExampleDice(tuple(children[1:]), span=span_of(meta))

    @spanless
    def example_face(self, meta: Meta, children: list) -> int:
        minus, value = children
        return -int(value) if minus is not None else int(value)

    def example_answer(self, meta: Meta, children: list) -> ast.ExampleAnswer:
        return ast.ExampleAnswer(str(children[1]), str(children[2]), span=span_of(meta))

    def expect_refused(self, meta: Meta, children: list) -> ast.ExpectRefusal:
        return ast.ExpectRefusal(str(children[1]) if children[1] is not None else None, span=span_of(meta))

    def example_as(self, meta: Meta, children: list) -> ast.ExampleSheet:
        return ast.ExampleSheet("as", str(children[0])[1:-1], span=span_of(meta))

    def example_against(self, meta: Meta, children: list) -> ast.ExampleSheet:
        return ast.ExampleSheet("against", str(children[0])[1:-1], span=span_of(meta))

    def example_option(self, meta: Meta, children: list) -> ast.ExampleOption:
        return ast.ExampleOption(str(children[0]), str(children[1]), span=span_of(meta))

    def expect_line(self, meta: Meta, children: list) -> ast.Expectation:
        return ast.Expectation(children[1], children[2], span=span_of(meta))

    @spanless
    def chance_fraction(self, meta: Meta, children: list) -> ast.Chance:
        top, bottom = int(children[0]), int(children[1])
        return ast.Chance(Fraction(top, bottom) if bottom else Fraction(-1), f"{top}/{bottom}")

    @spanless
    def chance_number(self, meta: Meta, children: list) -> ast.Chance:
        number, percent = str(children[0]), children[1]
        places = len(number.partition(".")[2])
        value = Fraction(number) / (100 if percent is not None else 1)
        return ast.Chance(value, number + ("%" if percent is not None else ""), places)

    @spanless
    def declarations(self, meta: Meta, children: list) -> list:
        return children

    @spanless
    def start(self, meta: Meta, children: list) -> list:
        flat: list = []
        for child in children:
            flat.extend(child if isinstance(child, list) else [child])
        return flat


def _assemble(lines: list[_Line], sink: DiagnosticSink) -> tuple[ast.Property, ...]:
    """Nest an entry's lines by shape and indentation.

    A label line at column 0 opens a property; bullets nest under the nearest line with
    smaller indentation (a property takes bullets at its own column); `*Label:*` bullets
    are sub-properties of the nearest named item; unlabelled text continues the line it
    follows.
    """
    properties: list[_Node] = []
    stack: list[_Node] = []
    for line in lines:
        if line.kind == "label" and line.indent == 0:
            node = _Node(line, -1)
            properties.append(node)
            stack = [node]
            continue
        if not stack:
            sink.error("E0113", line.span, help="an entry's lines start with 'Label: value' after its header")
            continue
        while len(stack) > 1 and stack[-1].indent >= line.indent:
            stack.pop()
        parent = stack[-1]
        if line.kind == "text":
            if line.value is not None:
                (parent.after if parent.items else parent.paragraphs).append(line.value)
            continue
        if line.kind == "label":
            # An indented `Label:` line reads as a sub-property.
            line.kind = "sub"
        node = _Node(line, line.indent)
        if line.kind == "sub":
            owner = next((n for n in reversed(stack) if n.line.kind == "named"), None)
            if owner is None:
                sink.error("E0114", line.label_span or line.span, label=line.label)
                continue
            while stack[-1] is not owner:
                stack.pop()
            owner.properties.append(node)
        else:
            parent.items.append(node)
        stack.append(node)
    return tuple(p.freeze() for p in properties)  # type: ignore[misc]


def make_builder(rules: RulesBuilder) -> Transformer:
    return merge_transformers(rules, expr=ExprBuilder())
