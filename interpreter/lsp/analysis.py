"""The server's one adapter over `runebook check`: a document's diagnostics from its text.

An editor holds text that is not saved yet, so this reads the document from memory and its
sibling files from disk (or from the editor, when they are open too), then runs the same
public steps `check` runs on one file: parse, read against the vocabulary of the game it
extends (or of its folder), resolve ``refers`` lines, and — once the content is clean — the
mechanics checks of the model (dsl.model). Only the document's own diagnostics are kept.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from runebook.dsl import ast
from runebook.dsl.checker import check_entries
from runebook.dsl.diagnostics import Diagnostic, DiagnosticSink
from runebook.dsl.files import FileRefused, rules_files
from runebook.dsl.loader import (Ruleset, _after_syntax, _assemble, _extends, _references, combined_entries, load_game,
                                  read_text, unknown_game)
from runebook.dsl.model import build_model
from runebook.dsl.parser import _parse_slice, _prechecks, _recover, split_blocks
from runebook.dsl.source import Source, Span, gc_paused
from runebook.dsl.vocabulary import build_vocabulary, fold
from runebook.interpreter.rules import Rules
from runebook.interpreter.rules.examples import model_examples
from runebook.interpreter.rules.kind_checks import kind_checks, refused_entries

__all__ = ["MECHANICS", "Analysis", "analyze", "mechanics_diagnostics"]

#: A line that declares mechanics. `check` builds the rules layer of a file only when one
#: is there (interpreter/cli/commands/check.py, which the server may not import: only the
#: command line imports cli/); a test keeps the two patterns equal.
MECHANICS = re.compile(r"^(?:option|levels|table|function|check|example|procedure|condition|resource|derive)[ \t]",
                       re.MULTILINE)


@attrs.define
class Analysis:
    """One document, checked: its parse, its diagnostics and the ruleset it belongs to."""

    path: Path
    source: Source
    rules_file: ast.RulesFile
    diagnostics: list[Diagnostic]
    #: The game this document is part of (its folder, or the game it extends plus itself).
    ruleset: Ruleset | None = None
    #: The game an ``extends`` line names, when there is one.
    base: Ruleset | None = None
    #: The text of the other documents open in the editor (absolute path → text).
    overlay: Mapping[str, str] = attrs.field(factory=dict)
    _rules: Any = attrs.field(default=None, init=False)
    _neighbours: tuple[tuple[Source, ast.RulesFile], ...] | None = attrs.field(default=None, init=False)

    def files(self) -> tuple[tuple[Source, ast.RulesFile], ...]:
        """Every file where a name of this document may be declared or used: its ruleset's
        and, for homebrew, the other files of its folder that extend the same game (read
        when references or a rename first ask, not at every keystroke)."""
        own = self.ruleset.files if self.ruleset else ((self.source, self.rules_file),)
        if self.base is None:
            return tuple(own)
        if self._neighbours is None:
            self._neighbours = _neighbours(self)
        return (*own, *self._neighbours)

    def rules(self) -> Any:
        """The ruleset's mechanics (:class:`interpreter.rules.Rules`), built once; None if
        the ruleset has errors that keep it from running."""
        if self._rules is None and self.ruleset is not None:
            self._rules = Rules(self.ruleset)
        return self._rules


#: Parsed blocks by (file, text of the block): a change re-parses only the blocks it touched;
#: a block that only moved to other lines is shifted. Values: (first line, blocks, diagnostics).
_BLOCKS: OrderedDict[tuple[str, str], tuple[int, list[Any], tuple[Diagnostic, ...]]] = OrderedDict()
_MAX_BLOCKS = 20_000


_FIELDS: dict[type, tuple[str, ...] | None] = {}


def _field_names(cls: type) -> tuple[str, ...] | None:
    if cls not in _FIELDS:
        _FIELDS[cls] = tuple(f.name for f in attrs.fields(cls)) if attrs.has(cls) else None
    return _FIELDS[cls]


def _shift(node: Any, lines: int) -> Any:
    """An AST node (or a tuple or list of them) with every span moved down ``lines`` lines.

    Nodes are frozen: each is copied field by field (``attrs.evolve`` would be three times
    slower, and a moved block must cost less than parsing it again).
    """
    if isinstance(node, Span):
        return Span(node.line + lines, node.column, node.end_line + lines, node.end_column)
    if isinstance(node, tuple):
        return tuple([_shift(n, lines) for n in node])
    if isinstance(node, list):
        return [_shift(n, lines) for n in node]
    cls = type(node)
    names = _field_names(cls)
    if names is None:
        return node
    copy = object.__new__(cls)
    for name in names:
        value = getattr(node, name)
        if value is not None and not isinstance(value, str | int | bool):
            value = _shift(value, lines)
        object.__setattr__(copy, name, value)
    return copy


def _parse_text(name: str, text: str) -> tuple[Source, ast.RulesFile, tuple[Diagnostic, ...]]:
    """Parse a document block by block — `parse_rules`' own way for a file with errors —
    reusing the blocks of earlier versions that did not change."""
    # As `check` reads a file (dsl.source.decode_source): no byte-order mark, LF line ends.
    source = Source(name, text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n"))
    layout = DiagnosticSink(source)
    spans = split_blocks(source.text, layout)
    found: list[Diagnostic] = list(layout.items)
    blocks: list[Any] = []
    for first, last, start, end in spans:
        key = (name, source.text[start:end])
        hit = _BLOCKS.get(key)
        if hit is None:
            sink = DiagnosticSink(source)
            parsed: list[Any] = []
            if _prechecks(source.text[start:end], first - 1, sink):
                found_blocks = _parse_slice(source, first, last, start, end, sink)
                if found_blocks is None and sink.items and sink.items[-1].span is not None:
                    # As parse_rules does: the block read again without its broken part, so
                    # that its other mistakes are reported too.
                    found_blocks = _recover(source, first, last, start, end, sink)
                parsed = found_blocks or []
            hit = _BLOCKS[key] = (first, parsed, tuple(sink.items))
            if len(_BLOCKS) > _MAX_BLOCKS:
                _BLOCKS.popitem(last=False)
        elif hit[0] != first:
            delta = first - hit[0]
            moved = tuple(attrs.evolve(d, span=d.span.shifted(delta, 0) if d.span else None, source=source)
                          for d in hit[2])
            hit = _BLOCKS[key] = (first, _shift(hit[1], delta), moved)
        _BLOCKS.move_to_end(key)
        blocks.extend(hit[1])
        found.extend(hit[2])
    return source, ast.RulesFile(tuple(blocks), path=name), tuple(found)


def _sibling(path: Path, overlay: Mapping[str, str]) -> tuple[Source, ast.RulesFile] | None:
    text = overlay.get(str(path))
    if text is None:
        # Read as `check` reads it (a byte-order mark and CRLF are fine); a file it refuses
        # is reported when that file is checked: this document is not about it.
        text = read_text(path)
        if text is None:
            return None
    source, rules, _ = _parse_text(str(path), text)
    return source, rules


#: At most this many homebrew files beside a document are read for its references.
MAX_NEIGHBOURS = 200


def _game_named(rules_file: ast.RulesFile) -> str | None:
    extends = _extends(rules_file)
    return extends.game.text.casefold() if extends is not None else None


def _saved_rules(folder: Path) -> set[Path]:
    """The .rules files saved in a document's folder and below; none when the folder is too
    large to search (a loose file in a home folder: searching it on every keystroke would
    stall the editor)."""
    try:
        return {p.resolve() for p in rules_files(folder) if p.is_file()}
    except FileRefused:
        return set()


def _neighbours(found: Analysis) -> tuple[tuple[Source, ast.RulesFile], ...]:
    """The homebrew files beside ``found`` (its folder and below, saved or open) that extend
    the game it extends."""
    folder = found.path.parent.resolve()
    paths = _saved_rules(folder)
    paths |= {Path(p) for p in found.overlay if p.endswith(".rules") and Path(p).is_relative_to(folder)}
    paths.discard(found.path.resolve())
    game = _game_named(found.rules_file)
    kept = []
    for path in sorted(paths)[:MAX_NEIGHBOURS]:
        sibling = _sibling(path, found.overlay)
        if sibling is not None and _game_named(sibling[1]) == game:
            kept.append(sibling)
    return tuple(kept)


def analyze(path: Path, text: str, overlay: Mapping[str, str] | None = None, game: str | None = None, *,
            mechanics: bool = True) -> Analysis:
    """Check one document whose current text is ``text``; ``overlay`` holds the text of
    other open documents (absolute path → text); ``game`` is the game content files extend
    when they have no ``extends`` line (like ``check --game``).

    Without ``mechanics`` only the front end runs (syntax, content, declarations): what
    completion, hover and navigation need, in a fraction of the time the mechanics of a
    whole game take; :func:`mechanics_diagnostics` adds the rest later.
    """
    with gc_paused():
        found = _analyze(path, text, dict(overlay or {}), game)
    if mechanics:
        found.diagnostics = mechanics_diagnostics(found)
    return found


def mechanics_diagnostics(found: Analysis) -> list[Diagnostic]:
    """All of the document's diagnostics: the front end's and the mechanics' (dsl.model),
    sorted by place, as `check` reports them. Reads ``found`` without changing it."""
    return _sorted(_after_syntax([*found.diagnostics, *_mechanics(found)]))


def _sorted(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    return sorted(diagnostics, key=lambda d: (d.span.line, d.span.column) if d.span else (0, 0))


def _analyze(path: Path, text: str, overlay: dict[str, str], game: str | None) -> Analysis:
    source, rules_file, syntax = _parse_text(str(path), text)
    found = Analysis(path, source, rules_file, list(syntax), overlay=overlay)
    extends = _extends(rules_file)
    base: Ruleset | None = None
    if extends is not None or game is not None:
        name = extends.game.text if extends is not None else str(game)
        loaded = load_game(name)
        if isinstance(loaded, Diagnostic):
            found.diagnostics.append(unknown_game(name, extends.game.span, source) if extends else loaded)
            return found
        base = loaded
    if base is not None:
        sink = DiagnosticSink()
        own = _assemble(path.stem, None, [(source, rules_file)], sink, base)
        found.diagnostics.extend(sink.items)
        found.base = base
        found.ruleset = attrs.evolve(base, files=base.files + ((source, rules_file),),
                                     entries=combined_entries(base.entries, own.entries))
    else:
        folder = path.parent
        # Files on disk, and documents open in the editor that are not saved there yet.
        paths = _saved_rules(folder)
        paths |= {Path(p) for p in overlay if p.endswith(".rules") and Path(p).is_relative_to(folder.resolve())}
        paths.discard(path.resolve())
        siblings = [s for s in (_sibling(p, overlay) for p in sorted(paths)) if s is not None]
        siblings = [s for s in siblings if not _extends(s[1])]
        files = siblings + [(source, rules_file)]
        sink = DiagnosticSink()
        vocab = build_vocabulary(files, sink)
        entries = check_entries(vocab, files, sink)
        mine = [e for e in entries if e.source.name == source.name]
        references = _references(vocab, entries, mine, sink)
        # Only this document's: a problem of a sibling has its place in the sibling (`check`
        # on this file does not report it either).
        found.diagnostics.extend(d for d in sink.items if d.source is None or d.source.name == source.name)
        found.ruleset = Ruleset(folder.name, folder, tuple(files), vocab, tuple(entries), tuple(sink.items),
                                tuple(references))
    found.diagnostics = _sorted(_after_syntax(found.diagnostics))
    return found


def _mechanics(found: Analysis) -> list[Diagnostic]:
    """The rules layer's problems in this document, as `check` reports them, when its content
    and syntax are clean: the model's when the document declares mechanics (with what its
    examples with lines find when they run: E0637), and E0232 for each of its entries a check
    its kind names refuses (interpreter.rules.kind_checks)."""
    if found.ruleset is None:
        return []
    declares = MECHANICS.search(found.source.text) is not None
    checks = kind_checks(found.ruleset)
    mine = [e for e in found.ruleset.entries if e.source.name == found.source.name
            and fold(e.kind or "") in checks] if checks else []
    if not declares and not mine:
        return []
    if any(d.severity == "error" and not d.code.startswith("E04") for d in found.diagnostics):
        return []
    try:
        model = build_model(found.ruleset)
        own = [d for d in model.diagnostics if d.source is not None and d.source.name == found.source.name]
        if declares:
            # The document's examples with lines run as `check` runs them, on the text as typed.
            own += model_examples(model, {found.source.name})
        return (own if declares else []) + refused_entries(model, mine)
    except Exception:  # noqa: BLE001 - a half-written document must never stop the server
        return []
