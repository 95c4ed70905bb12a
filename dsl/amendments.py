"""Entries that change other entries (amendments), read from label flags.

An entry with a ``refers KIND`` line (``To: Ice Bolt``) selects entries
(:mod:`dsl.references`); its other lines say how they change:

- a label flagged ``adds`` (``Add: text, after To, adds``) adds its text to each selected
  entry. A text that starts with one of the selected kind's labels (``Add: Result 3: The
  target is Dizzy.``) becomes that line; any other text is kept as a line under the adding
  label's own name (``Add: ...``), shown but not read by the rules;
- a label flagged ``replaces`` (``Replace: text, replaces``), followed by the label whose
  ``after`` names it (``With: text, after Replace``), rewrites: every line of a selected entry
  whose text holds the Replace text gets the With text in its place. A Replace text that
  occurs in no line of a selected entry is a diagnostic (E0231).

:func:`patches` lists the changes an entry makes; :func:`apply_patches` gives the changed
entry (a new AST value; the original is untouched), and each changed line is re-read, so
brackets in the new text are expressions like any other.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import attrs

from runebook.dsl import ast
from runebook.dsl.checker import CheckedEntry
from runebook.dsl.diagnostics import Diagnostic, DiagnosticSink, did_you_mean
from runebook.dsl.parser import parse_rules
from runebook.dsl.references import Reference, span_of
from runebook.dsl.source import Source
from runebook.dsl.vocabulary import LabelSpec, Vocabulary, fold

__all__ = ["Patch", "apply_patches", "check_patches", "patches"]

_LEADING_LABEL = re.compile(r"^\s*([A-Z][A-Za-z'’\-]*(?: [A-Za-z][A-Za-z'’\-]*){0,3})(?: (\d+\+?))?:\s+(.*)$", re.S)


@attrs.frozen
class Patch:
    """One change: ``add`` a text, or ``replace`` a text ``old`` with ``new``."""

    by: str
    action: str
    old: str
    new: str
    prop: ast.Property = attrs.field(eq=False, repr=False)
    source: Source = attrs.field(eq=False, repr=False)
    label: str = "Add"

    def describe(self) -> str:
        if self.action == "add":
            return f"adds '{self.new}'"
        return f"replaces '{self.old}' with '{self.new}'"


def _flagged(spec: LabelSpec | None, flag: str) -> bool:
    return spec is not None and bool(getattr(spec, flag))


def patches(owner: CheckedEntry, vocab: Vocabulary) -> list[Patch]:
    """The changes ``owner`` makes to the entries it refers to, in line order."""
    kind = vocab.kinds.get(fold(owner.kind or ""))
    if kind is None:
        return []
    found: list[Patch] = []
    props = owner.entry.properties
    for index, prop in enumerate(props):
        spec = kind.label(prop.label)
        text = str(prop.value or "").strip()
        if _flagged(spec, "adds"):
            found.append(Patch(owner.entry.name, "add", "", text, prop, owner.source, prop.label))
        elif _flagged(spec, "replaces") and index + 1 < len(props):
            partner = kind.label(props[index + 1].label)
            if partner is not None and spec is not None and partner.after and fold(partner.after) == fold(spec.name):
                found.append(Patch(owner.entry.name, "replace", text, str(props[index + 1].value or "").strip(),
                                   prop, owner.source, prop.label))
    return found


def _reparse(entry: ast.Entry, label: str, text: str, source: Source) -> ast.Property | None:
    """A line read again from text (``Label N: text``) as if it were in ``entry``."""
    body = f"{entry.name}\n{label}: {text}\n"
    sink = DiagnosticSink()
    parsed = parse_rules(Source(source.name, body), sink)
    if sink.items or not parsed.blocks or not isinstance(parsed.blocks[0], ast.Entry):
        return None
    properties = parsed.blocks[0].properties
    return properties[0] if properties else None


def _replaced(text: str, old: str, new: str) -> str | None:
    if old in text:
        return text.replace(old, new)
    lowered = text.casefold().find(old.casefold())
    if lowered < 0:
        return None
    return text[:lowered] + new + text[lowered + len(old):]


def apply_patches(entry: ast.Entry, vocab: Vocabulary, kind: str | None,
                  changes: Sequence[Patch]) -> tuple[ast.Entry, list[tuple[Patch, str]]]:
    """The entry with ``changes`` made; each with the line it produced (``Label: text``)."""
    spec = vocab.kinds.get(fold(kind or ""))
    properties = list(entry.properties)
    done: list[tuple[Patch, str]] = []
    for patch in changes:
        if patch.action == "add":
            match = _LEADING_LABEL.match(patch.new)
            if match and spec is not None and spec.label(match.group(1)) is not None:
                label = match.group(1) + (f" {match.group(2)}" if match.group(2) else "")
                text = match.group(3)
            else:
                label, text = patch.label, patch.new
            prop = _reparse(entry, label, text, patch.source)
            if prop is not None:
                properties.append(attrs.evolve(prop, span=None))  # it has no place in the entry's file
                done.append((patch, f"{label}: {text}"))
            continue
        for index, prop in enumerate(properties):
            changed = _replaced(str(prop.value or ""), patch.old, patch.new)
            if changed is None:
                continue
            new = _reparse(entry, prop.heading, changed, patch.source)
            if new is not None:
                properties[index] = attrs.evolve(new, span=prop.span)
                done.append((patch, f"{prop.heading}: {changed}"))
    return attrs.evolve(entry, properties=tuple(properties)), done


def check_patches(vocab: Vocabulary, references: Sequence[Reference], entries: Sequence[CheckedEntry],
                  sink: DiagnosticSink) -> None:
    """A Replace text must occur in every entry its amending entry refers to (E0231)."""
    by_name = {fold(e.entry.name): e for e in entries}
    seen: set[int] = set()
    for reference in references:
        if id(reference.owner) in seen:
            continue
        seen.add(id(reference.owner))
        for patch in patches(reference.owner, vocab):
            if patch.action != "replace":
                continue
            for name in reference.targets:
                target = by_name.get(fold(name))
                if target is None:
                    continue
                if not any(_replaced(str(p.value or ""), patch.old, patch.new) is not None
                           for p in target.entry.properties):
                    sink.items.append(Diagnostic.make(
                        "E0231", reference.owner.source, span_of(patch.prop, patch.old, reference.owner.source),
                        text=patch.old, kind=reference.kind, name=target.entry.name,
                        help=did_you_mean(patch.old, [str(p.value).strip() for p in target.entry.properties
                                                      if p.value is not None])
                        or "copy the words exactly as the entry writes them (brackets included)"))
