"""Content validation against a vocabulary; every problem is collected, none stops the pass.

For each entry: which kind it is (from `[Types]`, else from its keyword values), whether
every label is known, graded only where allowed, repeated only where allowed, in the
required order, present when required, and whether each value has its declared type and
names only what the vocabulary declares.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from difflib import get_close_matches
from functools import lru_cache

import attrs

from runebook.dsl import ast
from runebook.dsl import expr_ast as ex
from runebook.dsl.diagnostics import Diagnostic, DiagnosticSink, RunebookError, did_you_mean
from runebook.dsl.parser import parse_expression
from runebook.dsl.source import Source, Span
from runebook.dsl.vocabulary import KindSpec, LabelSpec, Vocabulary, fold

#: `fold` of the few label and type names that come back on every entry, remembered.
_fold = lru_cache(maxsize=4096)(fold)

__all__ = ["CheckedEntry", "check_entries", "expression_names", "relocate"]


@attrs.frozen
class CheckedEntry:
    """An entry that passed the checks, with the kind it was read as."""

    entry: ast.Entry
    kind: str | None
    source: Source = attrs.field(eq=False, repr=False)

    def __str__(self) -> str:
        return self.entry.name


def expression_names(expr: ex.Expr) -> Iterator[ex.Name | ex.Possessive]:
    """Every name an expression looks up (function names excluded; in a comprehension,
    ``[x * 2 for x in items]``, the name it binds is its own, not one looked up)."""
    stack: list[tuple[ex.Expr, frozenset[str]]] = [(expr, frozenset())]
    while stack:
        node, bound = stack.pop()
        if isinstance(node, ex.Name):
            if not bound or fold(node.text) not in bound:
                yield node
        elif isinstance(node, ex.Possessive):
            yield node
        elif isinstance(node, ex.Call):
            stack.extend((arg, bound) for arg in node.args)
        elif isinstance(node, ex.Dice):
            if node.count is not None:
                stack.append((node.count, bound))
        elif isinstance(node, ex.Comprehension):
            inner = bound | {fold(node.name)}
            stack.append((node.collection, bound))
            stack.append((node.value, inner))
            if node.condition is not None:
                stack.append((node.condition, inner))
        else:
            stack.extend((child, bound) for child in node.children())


@attrs.define
class _EntryChecker:
    vocab: Vocabulary
    source: Source
    sink: DiagnosticSink
    # Memos for one run (the vocabulary does not change while entries are checked): the
    # same few names and labels come back on almost every line.
    _known: dict[str, bool] = attrs.field(factory=dict, init=False)
    _labels: dict[tuple[int, str], tuple[KindSpec, LabelSpec | None]] = attrs.field(factory=dict, init=False)
    #: Declared keywords and type phrases by folded spelling (built on first use), and each
    #: word already looked at: a typo or not.
    _keywords: dict[str, str] | None = attrs.field(default=None, init=False)
    _typos: dict[str, str | None] = attrs.field(factory=dict, init=False)

    def knows(self, name: str) -> bool:
        """``vocab.knows(name)``, remembered."""
        hit = self._known.get(name)
        if hit is None:
            hit = self._known[name] = self.vocab.knows(name)
        return hit

    def label_spec(self, kind: KindSpec, label: str) -> LabelSpec | None:
        """``kind.label(label)``, remembered."""
        key = (id(kind), label)
        hit = self._labels.get(key)
        if hit is None:
            # The kind is kept with its answer, so its id is not reused during the run.
            hit = self._labels[key] = (kind, kind.label(label))
        return hit[1]

    def error(self, code: str, span: Span | None, *, help: str | None = None, **fields: object) -> None:
        self.sink.items.append(Diagnostic.make(code, self.source, span, help=help, **fields))

    # ---------------------------------------------------------------- names

    def check_dice(self, expr: ex.Expr) -> None:
        """Dice that can never be rolled are errors already at check time."""
        stack = [expr]
        while stack:
            node = stack.pop()
            if isinstance(node, ex.Dice):
                die = node.die
                if isinstance(die, ex.SidesDie) and isinstance(die.sides, int) and die.sides < 1:
                    self.error("E0401", die.span or node.span, help="a die has 1 side or more, as in 'd6'")
            stack.extend(node.children())

    def check_names(self, expr: ex.Expr) -> None:
        self.check_dice(expr)
        for node in expression_names(expr):
            if isinstance(node, ex.Possessive):
                if isinstance(node.owner, ex.Name | ex.Possessive):
                    self._check_name_only(node.owner)
                prop = node.prop
            else:
                prop = node
            if not self.knows(prop.text):
                self.error("E0207", prop.span, name=prop.text, help=did_you_mean(prop.text, self.vocab.known_names()))

    def _check_name_only(self, node: ex.Expr) -> None:
        if isinstance(node, ex.Possessive):
            self._check_name_only(node.owner)
            node = node.prop
        if isinstance(node, ex.Name) and not self.knows(node.text):
            self.error("E0207", node.span, name=node.text, help=did_you_mean(node.text, self.vocab.known_names()))

    def check_value_names(self, value: ast.Value | None) -> None:
        if value is None:
            return
        for bracket in value.brackets():
            self.check_names(bracket.expr)

    # ---------------------------------------------------------------- kinds

    def kind_of(self, entry: ast.Entry) -> KindSpec | None:
        header = entry.header
        if header.types is not None:
            found = self.check_types(header.types, header.types_span)
            if found:
                return self.vocab.kinds.get(fold(found[0][0]))
            return None
        # No bracket: the kind comes from a keyword in the entry's keyword values.
        for prop in entry.properties:
            for word in _keyword_words(prop.value):
                hit = self.vocab.types.get(_fold(word))
                if hit:
                    return self.vocab.kinds.get(_fold(hit[0]))
        if len(self.vocab.kinds) == 1:
            return next(iter(self.vocab.kinds.values()))
        if self.vocab.kinds:
            self.error(
                "E0306", header.span,
                message=f"cannot tell what kind of entry '{header.name}' is",
                help="give it a type, as in '"
                + header.name
                + " ["
                + next(iter(self.vocab.types.values()), ("", "Type"))[1]
                + "]', or a keyword that names one",
            )
        return None

    def check_types(self, text: str, span: Span | None) -> list[tuple[str, str]]:
        """Read a `[Types]` text; report what is unknown, suggesting whole phrases first."""
        found, unknown = self.vocab.split_types(text)
        if not unknown:
            return found
        phrases = [p for _, p in self.vocab.types.values()]
        best = get_close_matches(text.casefold(), [p.casefold() for p in phrases], n=1, cutoff=0.8)
        if best and len(text.split()) > 1:
            phrase = next(p for p in phrases if p.casefold() == best[0])
            self.error("E0201", _word_span(span, text, text), name=text, help=f"did you mean '{phrase}'?")
            return found
        for word in unknown:
            self.error("E0201", _word_span(span, text, word), name=word, help=did_you_mean(word, phrases))
        return found

    # ---------------------------------------------------------------- labels

    def check_properties(self, kind: KindSpec | None, owner: str, properties: Iterable[ast.Property],
                         header_span: Span | None, *, top: bool) -> None:
        counts: dict[str, int] = {}
        previous: LabelSpec | None = None
        for prop in properties:
            spec = self.label_spec(kind, prop.label) if kind else None
            if kind is not None and spec is None:
                self.error("E0203", prop.label_span or prop.span, label=prop.label,
                           help=did_you_mean(prop.label, _spellings(kind)))
                previous = None
                self.check_value_names(prop.value)
                self.check_items(kind, prop.items)
                continue
            if spec is not None:
                key = _fold(spec.name)
                counts[key] = counts.get(key, 0) + 1
                if counts[key] > 1 and not spec.repeatable and not spec.graded:
                    self.error("E0204", prop.label_span or prop.span, label=prop.label, kind=kind.name.lower())
                if prop.grade is not None and not spec.graded:
                    self.error("E0205", prop.label_span or prop.span, label=prop.label,
                               help=f"write '{prop.label}:' without a number")
                if spec.grades is not None and prop.grade is not None and prop.grade.isdigit() and \
                        not spec.grades[0] <= int(prop.grade) <= spec.grades[1]:
                    self.error("E0215", prop.label_span or prop.span, grade=prop.grade, label=spec.name,
                               low=spec.grades[0], high=spec.grades[1])
                if spec.graded and counts[key] > 1 and prop.grade is None and not spec.repeatable:
                    self.error("E0212", prop.label_span or prop.span, label=prop.label)
                if spec.after and (previous is None or _fold(previous.name) != _fold(spec.after)):
                    self.error("E0208", prop.label_span or prop.span, label=prop.label, after=spec.after,
                               help=f"put a '{spec.after}:' line directly above it")
                self.check_value(spec, prop)
            else:
                self.check_value_names(prop.value)
            for paragraph in prop.paragraphs + prop.after:
                if not self.looks_like_a_header(paragraph):
                    self.check_value_names(paragraph)
            self.check_items(kind, prop.items)
            previous = spec
        if kind is not None and top:
            for spec in {id(s): s for s in kind.labels.values()}.values():
                if spec.required and _fold(spec.name) not in counts:
                    self.error("E0202", header_span, kind=kind.name.lower(), entry=owner, label=spec.name,
                               help=f"add a line '{spec.name}: ...'")

    def looks_like_a_header(self, paragraph: ast.Value) -> bool:
        """A line such as `Iron Will [Edge]` under an entry's last label: the next entry, with
        the blank line before it forgotten (E0216, rather than an unknown name `Edge`)."""
        parts = paragraph.parts
        if len(parts) != 2 or not isinstance(parts[0], ast.Text) or not isinstance(parts[1], ast.Bracket):
            return False
        name, bracket = parts[0].text.strip(), parts[1]
        if not name or len(name.split()) > 6 or not isinstance(bracket.expr, ex.Name):
            return False
        found, unknown = self.vocab.split_types(bracket.expr.text)
        if not found or unknown:
            return False
        self.error("E0216", paragraph.span, text=f"{name} [{bracket.expr.text}]",
                   help="leave a blank line before it: a blank line ends an entry")
        return True

    def check_items(self, kind: KindSpec | None, items: Iterable[ast.Item]) -> None:
        for item in items:
            item_kind = kind
            if item.types is not None:
                found = self.check_types(item.types, item.types_span)
                if found:
                    item_kind = self.vocab.kinds.get(fold(found[0][0]), kind)
            self.check_value_names(item.value)
            for paragraph in item.paragraphs + item.after:
                self.check_value_names(paragraph)
            self.check_properties(item_kind, item.name or "", item.properties, item.span, top=False)
            self.check_items(item_kind, item.items)

    # ---------------------------------------------------------------- values

    def check_value(self, spec: LabelSpec, prop: ast.Property) -> None:
        value = prop.value
        kind = spec.value_type
        if value is None:
            if kind in ("expression", "dice", "rating", "number") and not prop.items:
                self.error("E0206", prop.label_span, label=prop.label, expected=_EXPECTED[kind], found="")
            return
        if kind == "keywords":
            self.check_keywords(value)
        if kind in ("text", "target", "keywords"):
            self.check_value_names(value)
            return
        expr = self.value_expression(prop.label, value, kind)
        if expr is None:
            return
        if kind == "number" and not isinstance(expr, ex.Number | ex.Decimal) and not (
            isinstance(expr, ex.Unary) and isinstance(expr.operand, ex.Number)
        ):
            self.error("E0206", value.span, label=prop.label, expected=_EXPECTED[kind], found=str(value))
            return
        if kind == "rating" and not isinstance(expr, ex.Rating | ex.Number):
            self.error("E0206", value.span, label=prop.label, expected=_EXPECTED[kind], found=str(value))
            return
        self.check_names(expr)

    def check_keywords(self, value: ast.Value) -> None:
        """A keyword one letter or two away from a declared one is a typo (`Evocaton`): the
        entry would silently not be what its author meant. Words unlike any keyword are free
        (a class name, a tag of the author's own)."""
        if self._keywords is None:
            self._keywords = {fold(w): w for kind in self.vocab.kinds.values() for w in kind.keywords}
            self._keywords.update({fold(phrase): phrase for _, phrase in self.vocab.types.values()})
        declared = self._keywords
        if not declared:
            return
        for word, span in _keyword_spans(value):
            if word not in self._typos:
                meant = None
                if fold(word) not in declared:
                    close = get_close_matches(word.casefold(), [w.casefold() for w in declared.values()], n=1,
                                              cutoff=0.85)
                    meant = next(w for w in declared.values() if w.casefold() == close[0]) if close else None
                self._typos[word] = meant
            if self._typos[word] is not None:
                self.error("E0211", span, name=word, help=f"did you mean '{self._typos[word]}'?")

    def value_expression(self, label: str, value: ast.Value, kind: str) -> ex.Expr | None:
        """A whole value read as one expression: `[Attack + Strength]` or `Target's Defense`."""
        if len(value.parts) == 1 and isinstance(value.parts[0], ast.Bracket):
            return value.parts[0].expr
        if all(isinstance(p, ast.Text) for p in value.parts):
            text = str(value)
            expr = _TEXT_EXPRESSIONS.get(text)
            if expr is None:
                try:
                    expr = parse_expression(text, Source(self.source.name, text))
                except RunebookError:
                    self.error("E0206", value.span, label=label, expected=_EXPECTED[kind], found=text)
                    return None
                if len(_TEXT_EXPRESSIONS) >= 4096:
                    _TEXT_EXPRESSIONS.clear()
                _TEXT_EXPRESSIONS[text] = expr
            return relocate(expr, value.span)
        self.error("E0206", value.span, label=label, expected=_EXPECTED[kind], found=str(value))
        return None

    def check_entry(self, entry: ast.Entry) -> KindSpec | None:
        kind = self.kind_of(entry)
        self.check_properties(kind, entry.name, entry.properties, entry.header.span, top=True)
        return kind


#: Values read as expressions, parsed once per text (a content file repeats the same few,
#: such as "Target's Defense"); the nodes are immutable and placed anew by `relocate`.
_TEXT_EXPRESSIONS: dict[str, ex.Expr] = {}

_EXPECTED = {
    "expression": "an expression",
    "dice": "dice such as '1d6+2'",
    "rating": "a rating such as '7M2' or a number",
    "number": "a number",
}


def _spellings(kind: KindSpec) -> list[str]:
    names: list[str] = []
    for spec in kind.labels.values():
        names.append(spec.name)
        names.extend(spec.aliases)
    return list(dict.fromkeys(names))


def _keyword_words(value: ast.Value | None) -> list[str]:
    if value is None:
        return []
    words: list[str] = []
    for part in value.parts:
        if isinstance(part, ast.Emphasis):
            for inner in part.parts:
                if isinstance(inner, ast.Text):
                    words.extend(inner.text.split())
    return words


def _keyword_spans(value: ast.Value) -> list[tuple[str, Span | None]]:
    """The words of a keyword value's emphasis (``*Arcane Ranged*``), each with its place."""
    found: list[tuple[str, Span | None]] = []
    for part in value.parts:
        if not isinstance(part, ast.Emphasis):
            continue
        for inner in part.parts:
            if not isinstance(inner, ast.Text):
                continue
            span = inner.span
            for match in re.finditer(r"\S+", inner.text):
                where = None
                if span is not None and span.line == span.end_line:
                    column = span.column + match.start()
                    where = Span(span.line, column, span.line, column + len(match.group()))
                found.append((match.group(), where or span))
    return found


def _word_span(span: Span | None, text: str, word: str) -> Span | None:
    if span is None:
        return None
    index = text.find(word)
    if index < 0:
        return span
    # +1 for the '[' that opens the types.
    column = span.column + 1 + index
    return Span(span.line, column, span.line, column + len(word))


def relocate(expr: ex.Expr, span: Span | None) -> ex.Expr:
    """Spans of an expression parsed from a value's text, moved to the value's place."""
    if span is None:
        return expr

    def move(node: object) -> object:
        if isinstance(node, tuple):
            return tuple(move(n) for n in node)
        if not attrs.has(type(node)):
            return node
        changes = {}
        for field in attrs.fields(type(node)):
            value = getattr(node, field.name)
            if isinstance(value, Span):
                changes[field.name] = value.shifted(span.line - 1, span.column - 1)
            elif isinstance(value, tuple) or attrs.has(type(value)):
                changes[field.name] = move(value)
        return attrs.evolve(node, **changes) if changes else node

    return move(expr)  # type: ignore[return-value]


def check_entries(
    vocab: Vocabulary, files: Iterable[tuple[Source, ast.RulesFile]], sink: DiagnosticSink
) -> list[CheckedEntry]:
    """Validate every entry of ``files``; report duplicates across all of them."""
    checked: list[CheckedEntry] = []
    seen: dict[str, tuple[Source, ast.Entry]] = {}
    for source, rules in files:
        checker = _EntryChecker(vocab, source, sink)
        for block in rules.blocks:
            if not isinstance(block, ast.Entry):
                continue
            kind = checker.check_entry(block)
            key = fold(block.name)
            if key in seen:
                first_source, first = seen[key]
                where = first.span.line if first.span else "?"
                if first_source.name != source.name:
                    where = f"{where} of {first_source.name}"
                checker.error("E0209", block.header.span, name=block.name, line=where)
            else:
                seen[key] = (source, block)
            checked.append(CheckedEntry(block, kind.name if kind else None, source))
    return checked
