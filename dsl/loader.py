"""Reading .rules files and assembling rulesets: a folder of files is one game.

A content file that starts with ``extends GAME`` (or is checked with ``--game``) is read
against that game's vocabulary plus its own declarations.
"""

from __future__ import annotations

import multiprocessing
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import attrs

from runebook.dsl import ast
from runebook.dsl.amendments import check_patches, patches
from runebook.dsl.checker import CheckedEntry, check_entries
from runebook.dsl.diagnostics import Diagnostic, DiagnosticSink, did_you_mean
from runebook.dsl.files import FileRefused, read_limited, rules_files, similar_path
from runebook.dsl.parser import parse_rules, split_blocks
from runebook.dsl.references import check_references
from runebook.dsl.source import Source, Span, decode_source, gc_paused
from runebook.dsl.vocabulary import Vocabulary, build_vocabulary, fold
from runebook.rulesets import RULESETS_DIR

__all__ = [
    "CheckReport",
    "Ruleset",
    "builtin_games",
    "check_paths",
    "load_game",
    "load_texts",
    "read_source",
    "read_text",
    "resolve_game",
]

@attrs.define
class FileLimits:
    """Bounds on input files, so that no file can make `check` slow or exhaust memory."""

    max_bytes: int = 4 * 1024 * 1024
    max_diagnostics: int = 200
    #: Read files that symlinks point to outside the folder being checked (``--follow-symlinks``).
    follow_symlinks: bool = False
    #: Files with more lines than this are checked on all cores (when the system can fork).
    parallel_lines: int = 20_000


LIMITS = FileLimits()
IO_CODES = {"E0001", "E0005", "E0006", "E0014"}


@attrs.frozen
class Ruleset:
    """A checked game: its files, vocabulary and entries."""

    name: str
    root: Path | None
    files: tuple[tuple[Source, ast.RulesFile], ...]
    vocabulary: Vocabulary
    entries: tuple[CheckedEntry, ...]
    diagnostics: tuple[Diagnostic, ...]
    #: Lines that name other entries (``refers``), resolved: which entry applies to what.
    references: tuple[Any, ...] = ()

    def entry(self, name: str) -> CheckedEntry | None:
        key = fold(name)
        return next((e for e in self.entries if fold(e.entry.name) == key), None)


def read_source(path: Path, sink: DiagnosticSink, *, root: Path | None = None,
                follow_symlinks: bool = False) -> Source | None:
    """Read and decode one file; problems become diagnostics, never exceptions.

    Only a regular file is read, at most ``LIMITS.max_bytes`` of it (dsl.files); a path
    resolving outside ``root`` (default: the folder holding it) is refused unless
    ``follow_symlinks``.
    """
    shown = str(path)
    try:
        data = read_limited(path, LIMITS.max_bytes, root=path.parent if root is None else root,
                            follow_symlinks=follow_symlinks or LIMITS.follow_symlinks)
    except FileRefused as refused:
        sink.items.append(_refusal(refused, shown))
        return None
    if b"\x00" in data:
        sink.items.append(Diagnostic.make("E0003", Source(shown, ""), None,
                                          help="runebook reads UTF-8 text files"))
        return None
    source, bad = decode_source(shown, data)
    if source is None:
        assert bad is not None
        line, column, byte = bad
        text = data.decode("utf-8", errors="replace").replace("\r\n", "\n")
        sink.items.append(Diagnostic.make("E0002", Source(shown, text), Span.point(line, column), byte=byte,
                                          help="save the file as UTF-8"))
        return None
    return source


def _refusal(refused: FileRefused, shown: str) -> Diagnostic:
    fields = dict(refused.fields)
    if refused.code == "E0001":
        return Diagnostic.make("E0001", None, None, **fields)
    if refused.code == "E0014":
        return Diagnostic.make("E0014", None, None, help="give the game's own folder (hidden folders such as "
                                                         ".git are not searched)", **fields)
    helps = {"E0004": "split the content into several files",
             "E0011": "replace it with a text file",
             "E0012": "copy the file into the folder, or pass --follow-symlinks if you trust it"}
    return Diagnostic.make(refused.code, Source(shown, ""), None, help=helps[refused.code], **fields)


def read_text(path: Path, root: Path | None = None) -> str | None:
    """The text of a file read as :func:`read_source` reads it, or None if it cannot be."""
    source = read_source(path, DiagnosticSink(), root=root)
    return None if source is None else source.text


def _rules_files(folder: Path) -> list[Path]:
    # Anything named *.rules but a folder: a FIFO or device among them is reported, not skipped.
    # FileRefused (E0014) for a folder too large to search.
    return rules_files(folder)


def _holds_rules(folder: Path) -> bool:
    """Whether a folder holds .rules files (one too large to search does: loading it says so)."""
    try:
        return bool(_rules_files(folder))
    except FileRefused:
        return True


def probe(path: Path, test: str) -> bool:
    """``path.is_dir()``, ``is_file()`` or ``exists()`` for a name someone typed: False when
    the system refuses the name itself (too long, a NUL byte) rather than an error."""
    try:
        return bool(getattr(path, test)())
    except (OSError, ValueError):
        return False


def _is_rules_file(path: Path) -> bool:
    """A single .rules file named as a game (`runebook resolve my.rules Hit`)."""
    return path.suffix == ".rules" and probe(path, "is_file")


def names_a_game(name: str) -> bool:
    """Whether ``name`` is meant as a game: a built-in one, a folder or a .rules file (a
    quick test, no folder is searched)."""
    path = Path(name)
    return fold(name) in builtin_games() or probe(path, "is_dir") or _is_rules_file(path)


def _game_files(path: Path) -> list[Path]:
    """The .rules files of a game given as a folder, or the one file given."""
    return [path] if _is_rules_file(path) else _rules_files(path)


def builtin_games() -> dict[str, Path]:
    """Folded game name → folder, for every built-in ruleset."""
    games: dict[str, Path] = {}
    if RULESETS_DIR.is_dir():
        for child in sorted(RULESETS_DIR.iterdir()):
            if child.is_dir() and any(child.glob("*.rules")):
                games[fold(child.name)] = child
    return games


def resolve_game(name: str) -> Path | None:
    """A built-in game by name (any case, spaces/hyphens ignored), a folder path, or the path
    of one .rules file (a game of its own, or a homebrew with `extends GAME`)."""
    games = builtin_games()
    hit = games.get(fold(name))
    if hit:
        return hit
    path = Path(name)
    if (probe(path, "is_dir") and _holds_rules(path)) or _is_rules_file(path):
        return path
    return None


def unknown_game(name: str, span: Span | None = None, source: Source | None = None) -> Diagnostic:
    names = [p.name for p in builtin_games().values()]
    path = Path(name)
    if path.suffix == ".rules" or len(path.parts) > 1 or "/" in name or "\\" in name:
        # Meant as a path: say what is there (nothing, or a folder without .rules files).
        if probe(path, "is_dir"):
            found = "a folder with no .rules files"
        else:
            found = "not a .rules file" if probe(path, "exists") else "no such file or folder"
        near = similar_path(name) if found == "no such file or folder" else None
        return Diagnostic.make("E0006", source, span, name=name,
                               help=f"{found}; {near}" if near else f"{found}; a game is a built-in name "
                               f"({', '.join(names)}), a folder of .rules files or one .rules file")
    # A bare name may be a folder here, misspelt.
    return Diagnostic.make("E0006", source, span, name=name,
                           help=did_you_mean(name, names) or similar_path(name)
                           or f"built-in games: {', '.join(names)}")


#: Recent parses by (name, text): `check` reads a folder's files for the content checks and
#: again, as a game, for the mechanics; the second read of an unchanged file reuses the first.
#: Bounded by the text it holds, so a run over many large files keeps only the latest, each
#: file counted at least _PARSED_FLOOR characters: a tree takes far more memory than its
#: text, and a process loading many small files (a bot, a fuzzer) kept 80,000 of them.
_PARSED: OrderedDict[tuple[str, str], tuple[Source, ast.RulesFile, list[Diagnostic]]] = OrderedDict()
_PARSED_CHARS = 8 * 1024 * 1024
_PARSED_FLOOR = 4096
_PARSED_LOCK = threading.Lock()


def _parse(path: Path, sink: DiagnosticSink, root: Path | None = None) -> tuple[Source, ast.RulesFile] | None:
    file_sink = DiagnosticSink()
    source = read_source(path, file_sink, root=root)
    if source is None:
        sink.extend(file_sink.items)
        return None
    key = (source.name, source.text)
    with _PARSED_LOCK:
        hit = _PARSED.get(key)
        if hit is not None:
            _PARSED.move_to_end(key)
    if hit is None:
        file_sink.source = source
        rules = parse_rules(source, file_sink)
        hit = (source, rules, list(file_sink.items))
        with _PARSED_LOCK:
            _PARSED[key] = hit
            held = sum(max(len(text), _PARSED_FLOOR) for _, text in _PARSED)
            while held > _PARSED_CHARS and len(_PARSED) > 1:
                (_, text), _ = _PARSED.popitem(last=False)
                held -= max(len(text), _PARSED_FLOOR)
    sink.extend(hit[2])
    return hit[0], hit[1]


def _extends(rules: ast.RulesFile) -> ast.ExtendsDecl | None:
    return next((b for b in rules.blocks if isinstance(b, ast.ExtendsDecl)), None)


def _assemble(name: str, root: Path | None, files: Sequence[tuple[Source, ast.RulesFile]],
              sink: DiagnosticSink, base: Ruleset | None = None) -> Ruleset:
    vocab = build_vocabulary(files, sink, base.vocabulary if base else None)
    entries = check_entries(vocab, files, sink)
    _shadowing(entries, base, sink)
    references = _references(vocab, list(combined_entries(base.entries if base else (), entries)), entries, sink)
    return Ruleset(name, root, tuple(files), vocab, tuple(entries), tuple(sink.items), tuple(references))


def combined_entries(base: Sequence[CheckedEntry], added: Sequence[CheckedEntry]) -> tuple[CheckedEntry, ...]:
    """A game's entries with a homebrew's: an entry marked ``replaces`` takes the place of the
    game's entry of its name (where it stood); every other one comes after the game's."""
    replacing = {fold(e.entry.name): e for e in added if e.entry.header.replaces}
    kept = tuple(replacing.pop(fold(e.entry.name), e) for e in base)
    placed = {id(e) for e in kept}
    return kept + tuple(e for e in added if id(e) not in placed)


def _shadowing(entries: Sequence[CheckedEntry], base: Ruleset | None, sink: DiagnosticSink) -> None:
    """A homebrew entry with the name of one of the game's: a run would find the game's,
    unless the entry says it ``replaces`` it; one that says so must have one to replace."""
    known = {fold(e.entry.name): e for e in base.entries} if base is not None else {}
    for checked in entries:
        first = known.get(fold(checked.entry.name))
        if checked.entry.header.replaces:
            if first is None:
                names = [e.entry.name for e in base.entries] if base is not None else []
                hint = did_you_mean(checked.entry.name, names) if base is not None else \
                    "only a file that says 'extends GAME' replaces the game's entries"
                sink.items.append(Diagnostic.make(
                    "E0217", checked.source, checked.entry.header.span, name=checked.entry.name,
                    game=base.name if base is not None else "the game this file extends (it extends none)",
                    help=hint or "remove 'replaces': the entry adds to the game"))
            continue
        if first is None:
            continue
        line = first.entry.span.line if first.entry.span else "?"
        sink.items.append(Diagnostic.make(
            "E0214", checked.source, checked.entry.header.span, name=checked.entry.name, game=base.name,
            where=f"{Path(first.source.name).name}:{line}",
            help=f"give it a name of its own; to change the game's '{first.entry.name}', amend it with a line "
            f"that refers to it, or write 'replaces {checked.entry.name}' on the header line to put yours in its place"))


def _mixed_games(parsed: Sequence[tuple[Source, ast.RulesFile]]) -> Diagnostic | None:
    """A folder is one ruleset: its files may extend one game at most."""
    first: tuple[str, Source] | None = None
    for source, rules in parsed:
        extends = _extends(rules)
        if extends is None:
            continue
        if first is None:
            first = (extends.game.text, source)
        elif fold(extends.game.text) != fold(first[0]):
            return Diagnostic.make("E0020", source, extends.game.span, first=first[0],
                                   first_file=Path(first[1].name).name, second=extends.game.text,
                                   help="keep each game's homebrew in a folder of its own")
    return None


def _references(vocab: Vocabulary, known: list[CheckedEntry], owners: list[CheckedEntry],
                sink: DiagnosticSink) -> list[Any]:
    """Resolve the ``refers`` lines of ``owners`` against ``known`` and check their patches."""
    references = check_references(vocab, known, sink, owners)
    check_patches(vocab, references, known, sink)
    return [attrs.evolve(r, changes=tuple(p.describe() for p in patches(r.owner, vocab))) for r in references]


@lru_cache(maxsize=16)
def _load_folder(folder: Path, fingerprint: tuple[tuple[str, int, int], ...]) -> Ruleset:
    """A folder's ruleset, cached by what its files are now (``fingerprint``): a file an
    author saves again is read again, one left alone is not."""
    with gc_paused():
        return _load_folder_now(folder)


def _fingerprint(folder: Path) -> tuple[tuple[str, int, int], ...]:
    """Each .rules file of a folder (or the one file) with its modification time and size."""
    found = []
    for path in _game_files(folder):
        try:
            status = path.stat()
        except OSError:
            continue
        found.append((str(path), status.st_mtime_ns, status.st_size))
    return tuple(found)


def _load_folder_now(folder: Path) -> Ruleset:
    sink = DiagnosticSink()
    if _is_rules_file(folder):
        # One file: a game named after it, read with its folder as the root (as a folder's files are).
        parsed = [p for p in (_parse(folder, sink, folder.parent),) if p is not None]
        return _ruleset_of(folder.stem, folder, parsed, sink)
    try:
        files = _rules_files(folder)
    except FileRefused as refused:  # grown since its fingerprint was taken
        sink.items.append(_refusal(refused, str(folder)))
        files = []
    parsed = [p for p in (_parse(path, sink, folder) for path in files) if p is not None]
    # A homebrew file kept in a subfolder of a game (`GAME/homebrew/x.rules` extending it)
    # is not part of the game.
    parsed = [p for p in parsed if not (_extends(p[1]) and Path(p[0].name).parent.resolve() != folder.resolve())]
    return _ruleset_of(folder.name, folder, parsed, sink)


def _ruleset_of(name: str, root: Path | None, parsed: list[tuple[Source, ast.RulesFile]],
                sink: DiagnosticSink) -> Ruleset:
    """The ruleset of some parsed files: a game of its own, or what they add to the one game
    they extend."""
    extended = {fold(e.game.text): e for e in (_extends(rules) for _, rules in parsed) if e is not None}
    mixed = _mixed_games(parsed)
    if mixed is not None:
        sink.items.append(mixed)
    if len(extended) == 1:
        # A homebrew folder: its files add to the game they extend.
        (declaration,) = extended.values()
        base = load_game(declaration.game.text)
        if isinstance(base, Diagnostic):
            sink.items.append(unknown_game(declaration.game.text, declaration.game.span,
                                           next(s for s, r in parsed if _extends(r) is declaration)))
        elif base.root != root:
            ruleset = _assemble(name, root, parsed, sink, base)
            return attrs.evolve(ruleset, files=base.files + ruleset.files,
                                entries=combined_entries(base.entries, ruleset.entries))
    return _assemble(name, root, parsed, sink)


def load_texts(files: Mapping[str, str] | str, name: str = "memory") -> Ruleset:
    """A ruleset from text in memory: one string, or file names mapped to their text (a
    file that says `extends GAME` adds to that game). Nothing is read from disk but the game
    extended; the limits on a file's size hold as for files."""
    texts = {f"{name}.rules": files} if isinstance(files, str) else dict(files)
    sink = DiagnosticSink()
    parsed = []
    for file_name, text in texts.items():
        source = Source(f"<{name}>/{file_name}", text.replace("\r\n", "\n"))
        if len(text.encode("utf-8")) > LIMITS.max_bytes:
            sink.items.append(Diagnostic.make("E0004", source, None, size=f"{len(text.encode('utf-8')):,}",
                                              limit=f"{LIMITS.max_bytes:,}", help="split the content into several files"))
            continue
        file_sink = DiagnosticSink(source)
        parsed.append((source, parse_rules(source, file_sink)))
        sink.extend(file_sink.items)
    return _ruleset_of(name, None, parsed, sink)


def load_game(name: str) -> Ruleset | Diagnostic:
    """Load a built-in game, a folder of .rules files or one .rules file (cached per folder or file)."""
    folder = resolve_game(name)
    if folder is None:
        return unknown_game(name)
    folder = folder.resolve()
    try:
        fingerprint = _fingerprint(folder)
    except FileRefused as refused:
        return _refusal(refused, name)
    return _load_folder(folder, fingerprint)


@attrs.define
class CheckReport:
    """What `runebook check` found."""

    diagnostics: list[Diagnostic] = attrs.Factory(list)
    files: int = 0
    entries: int = 0
    #: Resolved ``refers`` lines (dsl.references.Reference) of the checked files.
    references: list[Any] = attrs.Factory(list)
    #: The folders named on the command line (each one ruleset).
    folders: list[Path] = attrs.Factory(list)

    @property
    def io_error(self) -> bool:
        """A file that cannot be read or a game that does not exist (not a place in a file)."""
        return any(d.code in IO_CODES and d.span is None for d in self.diagnostics)


def _collect(paths: Iterable[str], report: CheckReport, roots: dict[Path, Path]) -> list[Path]:
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            try:
                files = _rules_files(path)
            except FileRefused as refused:
                report.diagnostics.append(_refusal(refused, raw))
                continue
            roots.update((file, path) for file in files)
            if not files:
                report.diagnostics.append(Diagnostic.make("E0005", None, None, path=raw))
            found.extend(files)
            report.folders.append(path)
        elif path.exists():
            found.append(path)
        else:
            report.diagnostics.append(Diagnostic.make("E0001", None, None, path=raw,
                                                      reason="no such file or directory", help=similar_path(raw)))
    return list(dict.fromkeys(found))


def check_paths(paths: Sequence[str], game: str | None = None, *, follow_symlinks: bool = False) -> CheckReport:
    """Check files and folders: each folder is a ruleset, each `extends` file a homebrew.

    Symlinks that resolve outside the folder being checked are reported, not read, unless
    ``follow_symlinks``.
    """
    saved = LIMITS.follow_symlinks
    LIMITS.follow_symlinks = follow_symlinks
    try:
        with gc_paused():
            return _check_paths(paths, game)
    finally:
        LIMITS.follow_symlinks = saved


_EXTENDS = re.compile(r"\A(?:[ \t]*(?:#[^\n]*)?\n)*extends[ \t]+([^\n#]+)")

# State a forked worker inherits: (source, vocabulary, the game extended). Set only in the
# parent, just before forking.
_WORKER: tuple[Source, Vocabulary, Ruleset] | None = None


def _check_chunk(spans: list[tuple[int, int, int, int]]) -> tuple[list[Diagnostic], list[tuple[str, int]], int]:
    """In a worker: parse and check some blocks of the shared source; return plain data."""
    assert _WORKER is not None
    source, vocab, base = _WORKER
    with gc_paused():
        sink = DiagnosticSink(source)
        rules = parse_rules(source, sink, spans)
        entries = check_entries(vocab, [(source, rules)], sink)
        _shadowing(entries, base, sink)
    names = [(e.entry.name, e.entry.span.line if e.entry.span else 0) for e in entries]
    # Sources stay behind: the parent has the text already.
    return [attrs.evolve(d, source=None) for d in sink.items], names, len(entries)


def _has_references(text: str, vocab: Vocabulary) -> bool:
    """Whether any line starts with a label that names other entries (``refers KIND``)."""
    labels = {name for kind in vocab.kinds.values() for spec in kind.labels.values() if spec.refers
              for name in (spec.name, *spec.aliases)}
    if not labels:
        return False
    pattern = re.compile(r"^[ \t*]*(?:" + "|".join(re.escape(n) for n in sorted(labels)) + r")[ \t\d+*]*:",
                         re.IGNORECASE | re.MULTILINE)
    return pattern.search(text) is not None


def _check_large(source: Source, base: Ruleset, report: CheckReport) -> bool:
    """Check a large homebrew file on every core. False when that is not possible here."""
    global _WORKER
    workers = min(os.cpu_count() or 1, 8)
    if workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return False
    layout = DiagnosticSink(source)
    spans = split_blocks(source.text, layout)
    if layout or len(spans) < workers * 2:
        return False
    # The file's own declarations (the `extends` line, maybe stats or kinds) come first.
    head = parse_rules(source, DiagnosticSink(source), spans[:1])
    sink = DiagnosticSink(source)
    vocab = build_vocabulary([(source, head)], sink, base.vocabulary)
    if _has_references(source.text, vocab):
        return False  # lines naming other entries are resolved across the whole file: one process
    # A few chunks per worker: one that finishes early takes the next (blocks differ in cost).
    size = max(1, (len(spans) + workers * 4 - 1) // (workers * 4))
    chunks = [spans[i : i + size] for i in range(0, len(spans), size)]
    _WORKER = (source, vocab, base)
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            results = pool.map(_check_chunk, chunks, chunksize=1)
    finally:
        _WORKER = None
    seen: dict[str, int] = {}
    for diagnostics, names, count in results:
        report.diagnostics.extend(attrs.evolve(d, source=source) for d in diagnostics)
        report.entries += count
        for name, line in names:
            key = fold(name)
            if key in seen and seen[key] != line:
                if not any(d.code == "E0209" and d.span and d.span.line == line for d in diagnostics):
                    report.diagnostics.append(Diagnostic.make("E0209", source, Span.point(line, 1, len(name)),
                                                              name=name, line=seen[key]))
            else:
                seen.setdefault(key, line)
    report.diagnostics.extend(sink.items)
    return True


def _check_paths(paths: Sequence[str], game: str | None) -> CheckReport:
    report = CheckReport()
    roots: dict[Path, Path] = {}
    files = _collect(paths, report, roots)
    base: Ruleset | None = None
    if game is not None:
        loaded = load_game(game)
        if isinstance(loaded, Diagnostic):
            report.diagnostics.append(loaded)
            return report
        base = loaded
    by_folder: dict[Path, list[tuple[Source, ast.RulesFile]]] = {}
    for path in files:
        sink = DiagnosticSink()
        if _large_homebrew(path, base, report, roots.get(path)):
            report.files += 1
            continue
        parsed = _parse(path, sink, roots.get(path))
        report.diagnostics.extend(sink.items)
        report.files += 1
        if parsed is None:
            continue
        source, rules = parsed
        extends = _extends(rules)
        file_base = base
        if extends is not None:
            loaded = load_game(extends.game.text)
            if isinstance(loaded, Diagnostic):
                report.diagnostics.append(unknown_game(extends.game.text, extends.game.span, source))
                continue
            file_base = loaded
        if file_base is not None:
            sink = DiagnosticSink()
            ruleset = _assemble(path.stem, None, [(source, rules)], sink, file_base)
            report.diagnostics.extend(sink.items)
            report.entries += len(ruleset.entries)
            report.references.extend(ruleset.references)
            continue
        by_folder.setdefault(path.parent.resolve(), []).append((source, rules))
    report.diagnostics.extend(_mixed_folders(report.folders, files))
    for folder, requested in by_folder.items():
        # The other files of a file's own folder (not its subfolders) supply declarations
        # (a game's vocabulary); only what the requested files say is reported.
        names = {s.name for s, _ in requested}
        siblings: list[tuple[Source, ast.RulesFile]] = []
        sibling_sink = DiagnosticSink()
        for other in sorted(p for p in folder.glob("*.rules") if p.is_file()):
            if str(other) in names or any(Path(n).resolve() == other.resolve() for n in names):
                continue
            parsed = _parse(other, sibling_sink, folder)
            if parsed is not None and not _extends(parsed[1]):
                siblings.append(parsed)
        sink = DiagnosticSink()
        vocab = build_vocabulary(siblings + requested, sink)
        entries = check_entries(vocab, siblings + requested, sink)
        mine = [e for e in entries if e.source.name in names]
        _shadowing(mine, None, sink)  # a game of its own has nothing to replace
        report.references.extend(_references(vocab, entries, mine, sink))
        report.diagnostics.extend(d for d in sink.items if d.source is None or d.source.name in names)
        report.entries += sum(1 for e in entries if e.source.name in names)
    report.diagnostics = _cap(sorted(_after_syntax(report.diagnostics), key=_position))
    return report


def _after_syntax(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """A line with a syntax error reports only that: what the rest of the file says about the
    line (read without its broken part, dsl.parser) would be about text the author did not write."""
    broken = {(d.path, d.span.line) for d in diagnostics if d.code.startswith("E01") and d.span is not None}
    kept = []
    for d in diagnostics:
        if d.code.startswith("E01") or d.span is None:
            kept.append(d)
        elif (d.path, d.span.line) in broken:
            continue
        elif d.code in _WHOLE_ENTRY and d.source is not None and any(
                (d.path, line) in broken for line in _entry_lines(d.source.text, d.span.line)):
            continue  # a required label or a keyword may be on the line that did not read
        else:
            kept.append(d)
    return kept


#: Diagnostics about an entry as a whole, reported at its first line.
_WHOLE_ENTRY = frozenset({"E0202", "E0306"})


def _entry_lines(text: str, header: int) -> range:
    """The lines of the entry starting at line ``header``: up to the next blank line."""
    lines = text.split("\n")
    end = header
    while end < len(lines) and lines[end].strip():
        end += 1
    return range(header + 1, end + 1)


def _position(diagnostic: Diagnostic) -> tuple[str, int, int]:
    span = diagnostic.span
    return (diagnostic.path, span.line if span else 0, span.column if span else 0)


def _cap(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """At most `max_diagnostics` per file, then one line saying how many more there were."""
    per_file: dict[str, int] = {}
    kept: list[Diagnostic] = []
    for diagnostic in diagnostics:
        count = per_file[diagnostic.path] = per_file.get(diagnostic.path, 0) + 1
        if count <= LIMITS.max_diagnostics:
            kept.append(diagnostic)
    for path, count in per_file.items():
        if count > LIMITS.max_diagnostics:
            kept.append(Diagnostic.make("E0010", Source(path, ""), None, count=f"{count - LIMITS.max_diagnostics:,}"))
    return kept


def _large_homebrew(path: Path, base: Ruleset | None, report: CheckReport, root: Path | None = None) -> bool:
    """Take the parallel path for a big file that extends a game; True if it was checked."""
    try:
        if path.stat().st_size < LIMITS.parallel_lines * 20:
            return False
    except OSError:
        return False
    sink = DiagnosticSink()
    source = read_source(path, sink, root=root)
    if source is None or source.text.count("\n") < LIMITS.parallel_lines:
        return False
    if base is None:
        match = _EXTENDS.match(source.text)
        loaded = load_game(match.group(1).strip()) if match else None
        if not isinstance(loaded, Ruleset):
            return False
        base = loaded
    return _check_large(source, base, report)


def _mixed_folders(folders: list[Path], files: list[Path]) -> list[Diagnostic]:
    """E0020 for each folder named on the command line whose files extend two games."""
    found = []
    for folder in folders:
        inside = [f for f in files if f.resolve().parent == folder.resolve()]
        parsed = [p for p in (_parse(f, DiagnosticSink()) for f in inside) if p is not None]
        mixed = _mixed_games(parsed)
        if mixed is not None:
            found.append(mixed)
    return found
