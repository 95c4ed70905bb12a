"""Lines that name other entries: a label declared ``refers KIND`` (``On: text, refers Spell``).

A value selects entries of that kind by name (``To: Ice Bolt``) or by keywords
(``To: Frost or Flame Spells``: every Spell whose keywords include Frost and
Spell, or Flame and Spell). Alternatives are separated by commas, "or" and "and";
words after the last alternative's first word are shared by all (``Frost or Flame Spells``
is Frost Spells or Flame Spells) when that reading names something; plurals match singular keywords. A
word is a keyword when the kind declares it (``types``, ``keywords``) or an entry of the
kind carries it. An alternative that is neither an entry's name nor known keywords is a
diagnostic (E0230) with a suggestion, at the line that names it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import attrs

from runebook.dsl import ast
from runebook.dsl.checker import CheckedEntry
from runebook.dsl.diagnostics import Diagnostic, DiagnosticSink, did_you_mean
from runebook.dsl.source import Source, Span
from runebook.dsl.vocabulary import Vocabulary, fold

__all__ = ["Reference", "check_references", "entry_keywords", "find_references", "span_of"]


@attrs.frozen
class Reference:
    """One ``refers`` line of an entry and the entries it selects (by name, in order)."""

    owner: CheckedEntry
    prop: ast.Property
    kind: str
    targets: tuple[str, ...]
    #: What the entry does to them, in words (dsl.amendments.Patch.describe), when known.
    changes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        span = self.prop.span
        return {"entry": self.owner.entry.name, "label": self.prop.label, "value": str(self.prop.value or ""),
                "kind": self.kind, "applies_to": list(self.targets), "changes": list(self.changes),
                "file": self.owner.source.name, "line": span.line if span else None}


def entry_keywords(entry: CheckedEntry, vocab: Vocabulary) -> set[str]:
    """The folded keywords of an entry: its header types and the words of its keyword lists."""
    words: set[str] = set()
    if entry.entry.header.types:
        words.update(fold(w) for w in entry.entry.header.types.replace(",", " ").split())
    kind = vocab.kinds.get(fold(entry.kind or ""))
    for prop in entry.entry.properties:
        spec = kind.label(prop.label) if kind else None
        if prop.value is None or (spec is not None and spec.value_type != "keywords"):
            continue
        for part in prop.value.parts:
            if isinstance(part, ast.Emphasis):
                words.update(fold(w) for p in part.parts if isinstance(p, ast.Text) for w in p.text.split())
    return words


def _singular(word: str, known: set[str]) -> str:
    key = fold(word)
    for cut in ("", "s", "es"):
        if cut and key.endswith(cut) and key[: -len(cut)] in known:
            return key[: -len(cut)]
    return key


def _alternatives(text: str) -> list[str]:
    parts = [p.strip() for p in re.split(r",|\bor\b|\band\b", text) if p.strip()]
    return [p.rstrip(".") for p in parts]


@attrs.define
class _Resolver:
    vocab: Vocabulary
    entries: Sequence[CheckedEntry]

    def of_kind(self, kind: str) -> list[CheckedEntry]:
        return [e for e in self.entries if fold(e.kind or "") == fold(kind)]

    def known(self, kind: str) -> set[str]:
        spec = self.vocab.kinds.get(fold(kind))
        words = {fold(w) for w in (*spec.types, *spec.keywords)} if spec else set()
        for entry in self.of_kind(kind):
            words |= entry_keywords(entry, self.vocab)
        return words

    def resolve(self, text: str, kind: str) -> tuple[list[str], list[str]]:
        """(names of the selected entries, alternatives that name nothing)."""
        candidates = self.of_kind(kind)
        by_name = {fold(e.entry.name): e for e in candidates}
        if fold(text.rstrip(".")) in by_name:
            return [by_name[fold(text.rstrip("."))].entry.name], []
        alternatives = _alternatives(text)
        last = alternatives[-1].split()
        if len(alternatives) > 1 and len(last) > 1 and all(len(a.split()) == 1 for a in alternatives[:-1]):
            # `Frost or Flame Spells`: the last words are shared, when that reads.
            shared, missing = self._select(alternatives[:-1] + [last[0]], last[1:], kind)
            if not missing:
                return shared, []
        return self._select(alternatives, [], kind)

    def _select(self, alternatives: list[str], tail: list[str], kind: str) -> tuple[list[str], list[str]]:
        candidates = self.of_kind(kind)
        by_name = {fold(e.entry.name): e for e in candidates}
        known = self.known(kind)
        selected: list[str] = []
        unknown: list[str] = []
        for alternative in alternatives:
            if fold(alternative) in by_name:
                selected.append(by_name[fold(alternative)].entry.name)
                continue
            words = {_singular(w, known) for w in alternative.split() + tail}
            if not words <= known:
                unknown.append(alternative)
                continue
            selected.extend(e.entry.name for e in candidates if words <= entry_keywords(e, self.vocab))
        return list(dict.fromkeys(selected)), unknown


def find_references(vocab: Vocabulary, entries: Sequence[CheckedEntry],
                    owners: Iterable[CheckedEntry] | None = None) -> list[tuple[Reference, list[str]]]:
    """Every ``refers`` line of ``owners`` (default: all entries), resolved against
    ``entries``; each with the alternatives that name nothing."""
    resolver = _Resolver(vocab, entries)
    found: list[tuple[Reference, list[str]]] = []
    for owner in entries if owners is None else owners:
        kind = vocab.kinds.get(fold(owner.kind or ""))
        if kind is None:
            continue
        for prop in owner.entry.properties:
            spec = kind.label(prop.label)
            if spec is None or not spec.refers or prop.value is None:
                continue
            targets, unknown = resolver.resolve(str(prop.value).strip(), spec.refers)
            found.append((Reference(owner, prop, spec.refers, tuple(targets)), unknown))
    return found


def span_of(prop: ast.Property, word: str, source: Source) -> Span | None:
    """Where ``word`` stands in the line's value (the whole value if it cannot be found)."""
    value = prop.value
    span = value.span if value is not None else prop.span
    if span is None:
        return None
    lines = source.text.splitlines()
    text = lines[span.line - 1] if 0 < span.line <= len(lines) else ""
    index = text.find(word, text.find(":") + 1)
    if index < 0:
        return span
    return Span(span.line, index + 1, span.line, index + 1 + len(word))


def check_references(vocab: Vocabulary, entries: Sequence[CheckedEntry], sink: DiagnosticSink,
                     owners: Iterable[CheckedEntry] | None = None) -> list[Reference]:
    """Resolve the ``refers`` lines of ``owners``; report each alternative naming nothing."""
    references: list[Reference] = []
    for reference, unknown in find_references(vocab, entries, owners):
        references.append(reference)
        names = [e.entry.name for e in entries if fold(e.kind or "") == fold(reference.kind)]
        for alternative in unknown:
            span = span_of(reference.prop, alternative, reference.owner.source)
            sink.items.append(Diagnostic.make(
                "E0230", reference.owner.source, span, label=reference.prop.label,
                kind=reference.kind, name=alternative,
                help=did_you_mean(alternative, names)
                or f"name a {reference.kind} or its keywords ({', '.join(names[:5])}{', ...' if len(names) > 5 else ''})"))
    return references
