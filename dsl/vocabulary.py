"""The vocabulary a ruleset declares: stats, names, entry kinds and their labels.

Built from declaration blocks with every problem collected; content validation
(`dsl.checker`) is driven entirely by this model.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import attrs

from runebook.dsl import ast
from runebook.dsl.diagnostics import Diagnostic, DiagnosticSink, did_you_mean
from runebook.dsl.source import Source

__all__ = ["VALUE_TYPES", "KindSpec", "LabelSpec", "Vocabulary", "build_vocabulary", "fold"]

#: The types a label's value may have.
VALUE_TYPES = ("text", "expression", "dice", "rating", "number", "target", "keywords")
#: ``graded 1 to 4`` (or ``graded 1-4``): the grades a graded label allows.
_GRADES = re.compile(r"(\d{1,3})\s*(?:to|-)\s*(\d{1,3})")

FLAGS = ("required", "repeatable", "graded", "after", "alias", "refers", "adds", "replaces")


def fold(name: str) -> str:
    """Names match case-insensitively, ignoring spaces, hyphens, underscores and quotes."""
    found = _FOLDED.get(name)
    if found is None:
        if len(_FOLDED) >= _FOLDED_MOST:
            _FOLDED.clear()
        found = _FOLDED[name] = name.casefold().translate(_UNFOLDED)
    return found


#: Names folded so far: the same few come back again and again (a large table's levels are
#: folded by every stage that reads them). Cleared when full, so it stays bounded.
_FOLDED: dict[str, str] = {}
_FOLDED_MOST = 1 << 18


_UNFOLDED = str.maketrans("", "", " -_'’")


@attrs.frozen
class LabelSpec:
    """What a kind allows for one label."""

    name: str
    value_type: str = "text"
    required: bool = False
    repeatable: bool = False
    graded: bool = False
    after: str | None = None
    aliases: tuple[str, ...] = ()
    #: ``refers KIND``: the value names entries of that kind (by name, or by keywords).
    refers: str | None = None
    #: ``adds`` / ``replaces``: the line changes the entries its entry refers to (dsl.amendments).
    adds: bool = False
    replaces: bool = False
    #: ``graded 1 to 4``: the grades a line may carry (None: any).
    grades: tuple[int, int] | None = None


@attrs.frozen
class KindSpec:
    """An entry kind: the type words that select it and its labels by folded name."""

    name: str
    types: tuple[str, ...]
    labels: dict[str, LabelSpec]
    #: Declared keywords (``keywords A, B``) besides the types.
    keywords: tuple[str, ...] = ()

    def label(self, name: str) -> LabelSpec | None:
        return self.labels.get(fold(name))


@attrs.frozen
class Vocabulary:
    """Everything content may refer to."""

    stats: dict[str, str] = attrs.Factory(dict)
    names: dict[str, str] = attrs.Factory(dict)
    kinds: dict[str, KindSpec] = attrs.Factory(dict)
    #: folded type phrase → (kind name, the phrase as declared)
    types: dict[str, tuple[str, str]] = attrs.Factory(dict)

    def knows(self, name: str) -> bool:
        key = fold(name)
        return key in self.stats or key in self.names

    def known_names(self) -> list[str]:
        return list(self.stats.values()) + list(self.names.values())

    def split_types(self, text: str) -> tuple[list[tuple[str, str]], list[str]]:
        """Split a `[Types]` text into declared phrases, longest first.

        Returns (kind, phrase) pairs and the words that match nothing.
        """
        words = text.replace(",", " ").split()
        found: list[tuple[str, str]] = []
        unknown: list[str] = []
        index = 0
        while index < len(words):
            for end in range(len(words), index, -1):
                phrase = " ".join(words[index:end])
                hit = self.types.get(fold(phrase))
                if hit:
                    found.append(hit)
                    index = end
                    break
            else:
                unknown.append(words[index])
                index += 1
        return found, unknown


def _check_duplicate(
    seen: dict[str, ast.Phrase], phrase: ast.Phrase, sink: DiagnosticSink, sources: dict[int, Source], source: Source
) -> bool:
    key = fold(phrase.text)
    if key in seen:
        first = seen[key]
        sink.items.append(
            _diag("E0302", source, phrase, name=phrase.text, line=first.span.line if first.span else "?")
        )
        return True
    seen[key] = phrase
    return False


def _diag(code: str, source: Source, node: object, *, help: str | None = None, **fields: object):  # type: ignore[no-untyped-def]
    return Diagnostic.make(code, source, getattr(node, "span", None), help=help, **fields)


def _label_spec(decl: ast.LabelDecl, source: Source, sink: DiagnosticSink) -> LabelSpec | None:
    if not decl.spec:
        return LabelSpec(decl.label)
    type_phrase, *flags = decl.spec
    value_type = type_phrase.text
    if value_type not in VALUE_TYPES:
        sink.items.append(
            _diag("E0301", source, type_phrase, name=value_type,
                  help=did_you_mean(value_type, VALUE_TYPES) or f"value types are: {', '.join(VALUE_TYPES)}")
        )
        value_type = "text"
    fields: dict[str, object] = {"value_type": value_type}
    aliases: list[str] = []
    for flag in flags:
        word, _, rest = flag.text.partition(" ")
        rest = rest.strip()
        if word in ("required", "repeatable", "graded", "adds", "replaces") and not rest:
            fields[word] = True
        elif word == "graded" and _GRADES.fullmatch(rest):
            low, high = (int(n) for n in _GRADES.fullmatch(rest).groups())  # type: ignore[union-attr]
            fields["graded"] = True
            fields["grades"] = (min(low, high), max(low, high))
        elif word == "after" and rest:
            fields["after"] = rest
        elif word == "alias" and rest:
            aliases.append(rest)
        elif word == "refers" and rest:
            fields["refers"] = rest
        else:
            sink.items.append(
                _diag("E0303", source, flag, what="label flag", name=flag.text,
                      help=did_you_mean(word, FLAGS)
                      or "flags are: required, repeatable, graded, graded LOW to HIGH, after LABEL, alias SPELLING, "
                      "refers KIND, "
                      "adds, replaces")
            )
    return LabelSpec(decl.label, aliases=tuple(aliases), **fields)  # type: ignore[arg-type]


def build_vocabulary(files: Iterable[tuple[Source, ast.RulesFile]], sink: DiagnosticSink,
                     base: Vocabulary | None = None) -> Vocabulary:
    """Collect the declarations of a ruleset's files (on top of ``base``, for homebrew)."""
    vocab = Vocabulary(
        dict(base.stats) if base else {},
        dict(base.names) if base else {},
        dict(base.kinds) if base else {},
        dict(base.types) if base else {},
    )
    seen_names: dict[str, ast.Phrase] = {}
    seen_kinds: dict[str, ast.Phrase] = {}
    references: list[tuple[Source, ast.LabelDecl, str]] = []
    for source, rules in files:
        for block in rules.blocks:
            if isinstance(block, ast.DeriveDecl):
                # A derived value reads like a stat wherever content names one.
                phrase = ast.Phrase(str(block.name), span=block.name.span)
                if not _check_duplicate(seen_names, phrase, sink, {}, source):
                    vocab.stats[fold(phrase.text)] = phrase.text
            elif isinstance(block, (ast.StatsDecl, ast.NamesDecl)):
                target = vocab.stats if isinstance(block, ast.StatsDecl) else vocab.names
                for phrase in block.names:
                    if not _check_duplicate(seen_names, phrase, sink, {}, source):
                        target[fold(phrase.text)] = phrase.text
            elif isinstance(block, ast.KindDecl):
                if _check_duplicate(seen_kinds, block.name, sink, {}, source):
                    continue
                labels: dict[str, LabelSpec] = {}
                declared: dict[str, ast.LabelDecl] = {}
                for decl in block.labels:
                    spec = _label_spec(decl, source, sink)
                    if spec is None:
                        continue
                    for spelling in (spec.name, *spec.aliases):
                        key = fold(spelling)
                        if key in labels:
                            sink.items.append(_diag("E0304", source, decl, what="label", name=spelling, owner="kind"))
                        labels[key] = spec
                    declared[fold(spec.name)] = decl
                    if spec.refers:
                        references.append((source, decl, spec.refers))
                for key, decl in declared.items():
                    after = labels[key].after
                    if after and fold(after) not in labels:
                        sink.items.append(
                            _diag("E0303", source, decl, what="label", name=after,
                                  help=did_you_mean(after, [s.name for s in labels.values()]))
                        )
                kind = KindSpec(block.name.text, tuple(p.text for p in block.types), labels,
                                tuple(p.text for p in getattr(block, "keywords", ())))
                vocab.kinds[fold(kind.name)] = kind
                for phrase in block.types:
                    key = fold(phrase.text)
                    other = vocab.types.get(key)
                    if other and fold(other[0]) != fold(kind.name):
                        sink.items.append(
                            _diag("E0306", source, phrase,
                                  message=f"type '{phrase.text}' already selects kind '{other[0]}'")
                        )
                    vocab.types[key] = (kind.name, phrase.text)
    for source, decl, refers in references:
        if fold(refers) not in vocab.kinds:
            sink.items.append(_diag("E0303", source, decl, what="kind", name=refers,
                                    help=did_you_mean(refers, [k.name for k in vocab.kinds.values()])))
    return vocab
