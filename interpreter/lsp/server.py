"""The language server: LSP requests answered from the checked documents.

Documents are checked by :func:`interpreter.lsp.analysis.analyze` (the steps of `runebook
check`) a short while after the last change (debounced), one document at a time. Every
handler catches its own failures: a broken document or a strange request gives an empty
answer and a one-line log message, never a traceback to the client.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from runebook import interpreter
from runebook.dsl import ast
from runebook.dsl.builtins import BUILTINS, Builtin, hidden_builtins
from runebook.dsl.diagnostics import Diagnostic
from runebook.dsl.loader import builtin_games
from runebook.dsl.formatter import format_source
from runebook.dsl.source import Source, Span
from runebook.dsl.vocabulary import fold
from runebook.interpreter.lsp import completion
from runebook.interpreter.lsp.analysis import Analysis, analyze, mechanics_diagnostics
from runebook.interpreter.lsp.odds import Pending, blank_entity, chart, odds_charts
from runebook.interpreter.lsp.scope import Local, Scope, call_at, params, scope_at, word_at
from runebook.interpreter.lsp.symbols import (Symbol, code_regions, collect_symbols, name_pattern, occurrences,
                                              symbol_at)

__all__ = ["RunebookServer", "main", "server"]

log = logging.getLogger("runebook.lsp")

#: Value types of labels whose values are code (names may be renamed there).
CODE_TYPES = frozenset({"expression", "number", "rating"})
_DID_YOU_MEAN = re.compile(r"did you mean (?:one of )?(.*)\?")
#: The folder unsaved documents are placed in; it is never made, so they have no siblings.
UNSAVED = Path(tempfile.gettempdir()) / "runebook-lsp-unsaved-documents"


def plain_text(text: str) -> str:
    """A document's text as `check` reads a file: no byte-order mark, LF line ends."""
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


class RunebookServer(LanguageServer):
    """The `runebook lsp` server: its settings, the open documents' analyses, pending checks."""

    def __init__(self) -> None:
        super().__init__("runebook", "0.1.0")
        #: Seconds to wait after a change before checking (typing does not queue checks).
        self.debounce = 0.1
        #: Seconds a hover may spend on exact odds.
        self.odds_budget = 1.0
        self.game: str | None = None
        self.actor: str | None = None
        self.target: str | None = None
        self.analyses: dict[str, tuple[int | None, Analysis]] = {}
        self.symbol_cache: dict[int, list[Symbol]] = {}
        self.pending: dict[str, asyncio.Task[None]] = {}
        #: The made-up paths of documents not saved yet → their URIs.
        self.unsaved: dict[str, str] = {}
        #: One mechanics check at a time: checks queued behind it for an older version of a
        #: document are skipped, not run.
        self.checker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="runebook-check")

    def report_server_error(self, error: Exception, source: Any) -> None:  # noqa: ARG002
        log.error("runebook lsp: %s: %s", type(error).__name__, error)

    # ---------------------------------------------------------------- documents

    def overlay(self) -> dict[str, str]:
        texts: dict[str, str] = {}
        for uri, document in list(self.workspace.text_documents.items()):
            path = to_fs_path(uri)
            if path:
                texts[str(Path(path).resolve())] = document.source
        return texts

    def analysis(self, uri: str) -> Analysis | None:
        """The document's analysis for its current text (checked now if it is stale): the
        front end's, which requests need; the mechanics' diagnostics come with :meth:`publish`."""
        try:
            document = self.workspace.get_text_document(uri)
        except Exception:  # noqa: BLE001
            return None
        path = self.document_path(uri)
        cached = self.analyses.get(uri)
        if (cached is not None and cached[0] == document.version
                and cached[1].source.text == plain_text(document.source)):
            return cached[1]
        found = analyze(path, document.source, self.overlay(), self.game, mechanics=False)
        self.analyses[uri] = (document.version, found)
        return found

    def stale(self, uri: str, version: int | None) -> bool:
        """Whether the document was closed or changed since ``version``."""
        document = self.workspace.text_documents.get(uri)
        return document is None or document.version != version

    def symbols(self, found: Analysis) -> list[Symbol]:
        key = id(found)
        if key not in self.symbol_cache:
            if len(self.symbol_cache) > 32:
                self.symbol_cache.clear()
            kinds = {id(e.entry): e.kind or "" for e in (found.ruleset.entries if found.ruleset else ())}
            self.symbol_cache[key] = collect_symbols(found.files(), kinds)
        return self.symbol_cache[key]

    async def publish(self, uri: str) -> None:
        """Send the document's diagnostics. The mechanics of a whole game take up to a second
        to check: that runs beside the event loop, so requests are answered meanwhile, and
        its answer is dropped if the document changed in between (a newer check is due)."""
        found = self.analysis(uri)
        if found is None:
            return
        version = self.analyses[uri][0]

        def check() -> list[Diagnostic] | None:
            return None if self.stale(uri, version) else mechanics_diagnostics(found)

        diagnostics = await asyncio.get_running_loop().run_in_executor(self.checker, check)
        if diagnostics is None or self.stale(uri, version):
            return
        items = [to_lsp_diagnostic(d) for d in diagnostics]
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=items, version=version))

    def document_path(self, uri: str) -> Path:
        """Where the document is, or for one not saved yet (``untitled:``) a place in a folder
        that does not exist: it is read alone, as a file of its own."""
        path = to_fs_path(uri)
        if path:
            return Path(path).resolve()
        name = re.sub(r"[^\w.-]+", "-", uri.rsplit("/", 1)[-1].rsplit(":", 1)[-1]) or "untitled"
        virtual = UNSAVED / (name if name.endswith(".rules") else f"{name}.rules")
        self.unsaved[str(virtual)] = uri
        return virtual

    def uri_of(self, path: str) -> str:
        """The URI of a file named in an analysis (an unsaved document's own)."""
        return self.unsaved.get(path) or from_fs_path(path) or path

    def dependents(self, uri: str) -> list[str]:
        """The other open documents whose check reads the document at ``uri``: those of a
        game (not homebrew) whose folder holds it, in the document's folder or above it."""
        changed = to_fs_path(uri)
        if not changed:
            return []
        where = Path(changed).resolve()
        found = []
        for other in list(self.workspace.text_documents):
            path = to_fs_path(other) if other != uri else None
            cached = self.analyses.get(other)
            if path and where.is_relative_to(Path(path).resolve().parent) and (cached is None or cached[1].base is None):
                found.append(other)
        return found

    def recheck(self, uri: str) -> None:
        """Check ``uri`` and the open documents that read it (their analyses are stale now)."""
        self.schedule(uri)
        for other in self.dependents(uri):
            self.analyses.pop(other, None)
            self.schedule(other)

    def schedule(self, uri: str) -> None:
        """Check ``uri`` after :attr:`debounce` seconds, replacing a check already waiting."""
        waiting = self.pending.pop(uri, None)
        if waiting is not None:
            waiting.cancel()

        async def later() -> None:
            await asyncio.sleep(self.debounce)
            self.pending.pop(uri, None)
            try:
                await self.publish(uri)
            except Exception as error:  # noqa: BLE001
                log.error("runebook lsp: checking %s failed: %s: %s", uri, type(error).__name__, error)

        self.pending[uri] = asyncio.get_running_loop().create_task(later())


server = RunebookServer()


def _safe(default: Any = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Answer ``default`` when a handler fails, with a one-line log instead of a traceback."""

    def wrap(handler: Callable[..., Any]) -> Callable[..., Any]:
        if asyncio.iscoroutinefunction(handler):
            @functools.wraps(handler)
            async def run_async(*args: Any) -> Any:
                try:
                    return await handler(*args)
                except Exception as error:  # noqa: BLE001
                    log.error("runebook lsp: %s failed: %s: %s", handler.__name__, type(error).__name__, error)
                    return default
            return run_async

        @functools.wraps(handler)
        def run(*args: Any) -> Any:
            try:
                return handler(*args)
            except Exception as error:  # noqa: BLE001
                log.error("runebook lsp: %s failed: %s: %s", handler.__name__, type(error).__name__, error)
                return default
        return run

    return wrap


# -------------------------------------------------------------------- conversions


def units(text: str, column: int) -> int:
    """The LSP character (UTF-16 code units) of 1-based ``column`` on a line ``text``."""
    head = text[:column - 1]
    return column - 1 + (0 if head.isascii() else sum(1 for c in head if ord(c) > 0xFFFF))


def index(text: str, character: int) -> int:
    """The 0-based index in a line ``text`` of an LSP character (UTF-16 code units)."""
    if text.isascii():
        return character
    count = 0
    for at, c in enumerate(text):
        if count >= character:
            return at
        count += 2 if ord(c) > 0xFFFF else 1
    return len(text)


def _position(lines: Callable[[int], str], line: int, column: int) -> lsp.Position:
    """A 1-based line and column as an LSP position (0-based, UTF-16)."""
    return lsp.Position(line - 1, units(lines(line), column))


def to_range(span: Span | None, source: Source | None = None) -> lsp.Range:
    if span is None:
        return lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0))
    lines = source.line_text if source is not None else (lambda _: "")
    return lsp.Range(_position(lines, span.line, span.column), _position(lines, span.end_line, span.end_column))


def to_lsp_diagnostic(diagnostic: Diagnostic) -> lsp.Diagnostic:
    """The same code, range, message and help as `check` prints."""
    severity = lsp.DiagnosticSeverity.Error if diagnostic.severity == "error" else lsp.DiagnosticSeverity.Warning
    message = diagnostic.message + (f"\nhelp: {diagnostic.help}" if diagnostic.help else "")
    return lsp.Diagnostic(range=to_range(diagnostic.span, diagnostic.source), message=message, severity=severity,
                          code=diagnostic.code, source="runebook",
                          data={"help": diagnostic.help} if diagnostic.help else None)


def _texts(found: Analysis) -> dict[str, Source]:
    """The sources of the document's files by name: the text positions are counted in."""
    return {source.name: source for source, _ in found.files()}


def _range(found: Analysis, path: str, line: int, column: int, end_column: int) -> lsp.Range:
    source = _texts(found).get(path)
    return to_range(Span(line, column, line, end_column), source)


def _location(found: Analysis, path: str, line: int, column: int, end_column: int) -> lsp.Location:
    return lsp.Location(server.uri_of(path), _range(found, path, line, column, end_column))


def _line(found: Analysis, line: int) -> str:
    return found.source.line_text(line + 1)


def _code_label(found: Analysis) -> Callable[[Any, str], bool]:
    kinds = {id(e.entry): e.kind for e in (found.ruleset.entries if found.ruleset else ())}
    vocab = found.ruleset.vocabulary if found.ruleset else None

    def is_code(entry: Any, label: str) -> bool:
        if vocab is None or entry is None:
            return False
        kind = vocab.kinds.get(fold(kinds.get(id(entry)) or ""))
        spec = kind.label(label) if kind else None
        return spec is not None and (spec.value_type in CODE_TYPES or spec.refers is not None)

    return is_code


def _at(found: Analysis, position: lsp.Position) -> tuple[Symbol, int, int] | None:
    text = _line(found, position.line)
    return symbol_at(text, index(text, position.character) + 1, server.symbols(found))


def _local_at(found: Analysis, position: lsp.Position) -> tuple[Scope, Local, int, int] | None:
    """The name under the cursor when the declaration around it binds it (an input, a
    ``let``...): that name, not the game's of the same spelling, is the one meant there."""
    text = _line(found, position.line)
    word = word_at(text, index(text, position.character))
    if word is None or text.lstrip().startswith("#"):
        return None
    scope = scope_at(found.source.text.split("\n"), position.line)
    local = scope.find(word[0]) if scope is not None else None
    if scope is None or local is None:
        return None
    return scope, local, word[1], word[2]


def _scope_uses(found: Analysis, scope: Scope, name: str) -> list[tuple[int, int, int]]:
    """Where ``name`` is written as code in the declaration's lines: (line, start, end), 1-based."""
    pattern = re.compile(r"(?<![\w'.])" + re.escape(name) + r"(?!\w)")
    places = []
    for number in range(scope.first, scope.last + 1):
        text = found.source.line_text(number)
        for start, end in code_regions(text):
            places += [(number, m.start() + 1, m.end() + 1) for m in pattern.finditer(text, start, end)]
    return places


# -------------------------------------------------------------------- lifecycle


@server.feature(lsp.INITIALIZE)
@_safe()
def initialize(params: lsp.InitializeParams) -> None:
    options = params.initialization_options or {}
    if isinstance(options, dict):
        server.game = options.get("game") or None
        server.actor = options.get("actor") or None
        server.target = options.get("target") or None
        if isinstance(options.get("oddsBudget"), int | float):
            server.odds_budget = float(options["oddsBudget"])
        if isinstance(options.get("debounce"), int | float):
            server.debounce = float(options["debounce"])


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
@_safe()
async def did_open(params: lsp.DidOpenTextDocumentParams) -> None:
    await server.publish(params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
@_safe()
def did_change(params: lsp.DidChangeTextDocumentParams) -> None:
    server.recheck(params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
@_safe()
def did_save(params: lsp.DidSaveTextDocumentParams) -> None:
    server.recheck(params.text_document.uri)


@server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
@_safe()
def did_change_watched_files(params: lsp.DidChangeWatchedFilesParams) -> None:
    """A .rules file changed on disk (a checkout, another program): the open documents that
    read it are checked again."""
    stale = {other for change in params.changes for other in server.dependents(change.uri)}
    for uri in stale:
        server.analyses.pop(uri, None)
        server.schedule(uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
@_safe()
def did_close(params: lsp.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    server.analyses.pop(uri, None)
    waiting = server.pending.pop(uri, None)
    if waiting is not None:
        waiting.cancel()
    server.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
    # Its saved text, not the editor's, is what the others read now.
    for other in server.dependents(uri):
        server.analyses.pop(other, None)
        server.schedule(other)


# -------------------------------------------------------------------- completion


def _names(found: Analysis) -> list[lsp.CompletionItem]:
    """Names an expression may use: stats, names, derived values, tables, functions..."""
    vocab = found.ruleset.vocabulary if found.ruleset else None
    items = [_item(n, lsp.CompletionItemKind.Variable, "stat") for n in (vocab.stats.values() if vocab else ())]
    items += [_item(n, lsp.CompletionItemKind.Variable, "name") for n in (vocab.names.values() if vocab else ())]
    items += [_symbol_item(s, lsp.CompletionItemKind.Variable) for s in server.symbols(found)
              if s.kind in ("derive", "table", "function", "levels", "level", "resource", "condition", "option")]
    return items


def _item(label: str, kind: lsp.CompletionItemKind, detail: str, insert: str | None = None,
          doc: str | None = None, sort: str | None = None) -> lsp.CompletionItem:
    documentation = lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=doc) if doc else None
    return lsp.CompletionItem(label=label, kind=kind, detail=detail, insert_text=insert,
                              documentation=documentation, sort_text=sort)


def _symbol_item(symbol: Symbol, kind: lsp.CompletionItemKind) -> lsp.CompletionItem:
    """A declared name, shown with its declaration's first line and the comment above it."""
    detail = symbol.signature if symbol.signature and symbol.kind not in ("stat", "name") else symbol.kind
    return _item(symbol.name, kind, detail, doc=symbol.doc or None)


def _local_item(local: Local) -> lsp.CompletionItem:
    # Sorted before the game's names: in a declaration its own names are the likely ones.
    return _item(local.name, lsp.CompletionItemKind.Variable, f"{local.kind}: {local.text}", sort=f"0{local.name}")


def _builtins(found: Analysis) -> list[Builtin]:
    """The builtins the document's rules may call: the groups its ruleset ``uses`` and the
    ones every ruleset has."""
    used = [str(group) for _, rules in found.files() for block in rules.blocks
            if isinstance(block, ast.UsesDecl) for group in block.groups]
    hidden = hidden_builtins(used)
    return [b for key, b in BUILTINS.items() if key not in hidden]


def _builtin_doc(builtin: Builtin) -> str:
    signatures = "\n".join(s.text for s in builtin.signatures)
    return f"```runebook\n{signatures}\n```\n\n{builtin.doc}" if builtin.doc else f"```runebook\n{signatures}\n```"


def _builtin_items(found: Analysis) -> list[lsp.CompletionItem]:
    return [_item(b.name, lsp.CompletionItemKind.Function, b.signatures[0].text, doc=_builtin_doc(b),
                  sort=f"2{b.name}") for b in _builtins(found)]


def _code_items(found: Analysis, scope: Scope | None, line: int) -> list[lsp.CompletionItem]:
    """What an expression at 0-based ``line`` may name: the declaration's own names bound
    above it, the game's names, and the builtins."""
    bound = scope.names if scope else ()
    own = [_local_item(local) for local in bound if local.line <= line or local.kind == "input"]
    return own + _names(found) + _builtin_items(found)


@server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=["["]))
@_safe(default=lsp.CompletionList(is_incomplete=False, items=[]))
def complete(params: lsp.CompletionParams) -> lsp.CompletionList:
    found = server.analysis(params.text_document.uri)
    if found is None:
        return lsp.CompletionList(is_incomplete=False, items=[])
    lines = found.source.text.split("\n")
    line_text = lines[params.position.line] if params.position.line < len(lines) else ""
    place = completion.place_at(lines, params.position.line, index(line_text, params.position.character))
    items: list[lsp.CompletionItem] = []
    vocab = found.ruleset.vocabulary if found.ruleset else None
    if place.what == "label" and vocab is not None:
        paragraph_end = params.position.line
        values = "\n".join(lines[place.header + 1:paragraph_end + 1])
        kind = completion.entry_kind(vocab, lines[place.header], place.labels_above, values)
        if kind is not None:
            for name in completion.allowed_labels(kind, place.labels_above):
                spec = kind.labels[fold(name)] if fold(name) in kind.labels else kind.label(name)
                detail = f"{kind.name} label: {spec.value_type}" if spec else kind.name
                items.append(_item(name, lsp.CompletionItemKind.Property, detail, f"{name}: "))
    elif place.what == "game":
        items += [_item(folder.name, lsp.CompletionItemKind.Module, "game") for folder in builtin_games().values()]
    elif place.what in ("bracket", "value"):
        items += _code_items(found, scope_at(lines, params.position.line), params.position.line)
        if place.what == "value" and vocab is not None:
            items += [_item(e.entry.name, lsp.CompletionItemKind.Reference, e.kind or "entry")
                      for e in (found.ruleset.entries if found.ruleset else ())]
            for kind in vocab.kinds.values():
                items += [_item(w, lsp.CompletionItemKind.EnumMember, f"{kind.name} keyword")
                          for w in (*kind.keywords, *kind.types)]
    elif place.what == "body":
        items += [_item(w, lsp.CompletionItemKind.Keyword, "statement") for w in completion.STATEMENT_KEYWORDS]
        items += [_symbol_item(s, lsp.CompletionItemKind.Function) for s in server.symbols(found)
                  if s.kind in ("check", "procedure", "condition", "resource", "option", "table")]
        items += _code_items(found, scope_at(lines, params.position.line), params.position.line)
    else:
        items += [_item(w, lsp.CompletionItemKind.Keyword, "declaration") for w in completion.DECLARATION_KEYWORDS]
    unique: dict[tuple[str, Any], lsp.CompletionItem] = {}
    for item in items:  # the first is kept: a declaration's own name shadows the game's
        unique.setdefault((item.label, item.kind), item)
    return lsp.CompletionList(is_incomplete=False, items=list(unique.values()))


# -------------------------------------------------------------------- hover


_CALLABLE = re.compile(r"^(check|procedure)\s+(.+?)\s*(?:\(|$)")


def _odds_job(found: Analysis, name: str, entity: bool) -> Callable[[], str]:
    rules = found.rules()
    actor_path, target_path = server.actor, server.target

    def job() -> str:
        roles: dict[str, Any] = {}
        if entity:
            with tempfile.TemporaryDirectory() as folder:
                blank = blank_entity(rules, name, Path(folder))
                roles["as_"] = rules.entities(actor_path)[0] if actor_path else blank
                roles["against"] = rules.entities(target_path)[0] if target_path else blank
        return odds_charts(rules.odds(name, **roles))

    return job


def _odds_note(entity: bool) -> str:
    if not entity:
        return "exact odds, inputs at their defaults"
    who = []
    who.append(f"acting: {Path(server.actor).name}" if server.actor else "acting: anyone (every stat 0)")
    who.append(f"against: {Path(server.target).name}" if server.target else "against: anyone (every stat 0)")
    return "exact odds, " + "; ".join(who)


def _fenced(text: str) -> str:
    return f"```text\n{text}\n```"


def _symbol_hover(symbol: Symbol) -> str:
    head = f"**{symbol.name}** — {symbol.kind}" + (f" ({symbol.detail})" if symbol.detail else "")
    parts = [head]
    if symbol.signature:
        parts.append(f"```runebook\n{symbol.signature}\n```")
    if symbol.doc:
        parts.append(symbol.doc)
    parts.append(f"{Path(symbol.path).name}:{symbol.line}")
    return "\n\n".join(parts)


def _entry_at(found: Analysis, line: int) -> Any:
    for checked in (found.ruleset.entries if found.ruleset else ()):
        span = checked.entry.span
        if checked.source.name == found.source.name and span is not None and span.line <= line + 1 <= span.end_line:
            return checked
    return None


async def _hover_text(found: Analysis, position: lsp.Position) -> str | None:
    text = _line(found, position.line)
    character = index(text, position.character)
    callable_ = _CALLABLE.match(text)
    if callable_ and found.ruleset is not None:
        name = callable_.group(2)
        result = await _budgeted(_odds_job(found, name, False))
        hit = next((s for s in server.symbols(found) if fold(s.name) == fold(name)), None)
        head = _symbol_hover(hit) if hit else f"**{name}**"
        return f"{head}\n\n{_odds_note(False)}:\n\n{_fenced(result)}"
    checked = _entry_at(found, position.line)
    label = completion.LABEL_LINE.match(text)
    if checked is not None and label is not None and character <= label.end():
        kind = found.ruleset.vocabulary.kinds.get(fold(checked.kind or "")) if found.ruleset else None
        spec = kind.label(label.group(1).strip()) if kind else None
        if spec is not None:
            flags = [f for f, on in (("required", spec.required), ("repeatable", spec.repeatable),
                                     ("graded", spec.graded)) if on]
            lines = [f"**{spec.name}**: {spec.value_type}" + (f" ({', '.join(flags)})" if flags else ""),
                     f"a label of {kind.name}"]  # type: ignore[union-attr]
            if spec.value_type == "expression" and found.rules() is not None:
                if found.rules()._user_of(checked.entry.name) is not None:
                    result = await _budgeted(_odds_job(found, checked.entry.name, True))
                    lines.append(f"{_odds_note(True)}:\n\n{_fenced(result)}")
            return "\n\n".join(lines)
    local = _local_at(found, position)
    if local is not None:
        scope, name = local[0], local[1]
        return (f"**{name.name}** — {name.kind} in {scope.header.split('(')[0].strip()}\n\n"
                f"```runebook\n{name.text}\n```")
    hit = _at(found, position)
    if hit is not None:
        return _symbol_hover(hit[0])
    builtin = _builtin_at(found, text, character)
    if builtin is not None:
        return f"**{builtin.name}** — builtin\n\n{_builtin_doc(builtin)}"
    for match in re.finditer(r"\[([^\[\]]+)\]", text):
        if match.start() <= character < match.end():
            return await _expression_hover(match.group(1))
    return None


def _builtin_at(found: Analysis, text: str, character: int) -> Builtin | None:
    """The builtin called on ``text`` at 0-based ``character`` (a name followed by '(')."""
    word = word_at(text, character)
    if word is None or not text[word[2] - 1:].lstrip().startswith("("):
        return None
    return next((b for b in _builtins(found) if b.name.casefold() == word[0].casefold()), None)


async def _budgeted(job: Callable[[], str]) -> str:
    """Start ``job`` in a child (forked here, on the event loop's thread) and wait for it
    beside the loop, which keeps serving meanwhile."""
    pending = Pending(job)
    return await asyncio.get_running_loop().run_in_executor(None, pending.result, server.odds_budget)


async def _expression_hover(expr: str) -> str | None:
    def job() -> str:
        return chart(f"[{expr}]", interpreter.odds(expr))

    result = await _budgeted(job)
    if result.startswith("no odds"):
        return None
    return _fenced(result)


@server.feature(lsp.TEXT_DOCUMENT_HOVER)
@_safe()
async def hover(params: lsp.HoverParams) -> lsp.Hover | None:
    found = server.analysis(params.text_document.uri)
    if found is None:
        return None
    text = await _hover_text(found, params.position)
    if text is None:
        return None
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text))


# -------------------------------------------------------------------- navigation


@server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
@_safe()
def definition(params: lsp.DefinitionParams) -> lsp.Location | None:
    found = server.analysis(params.text_document.uri)
    local = _local_at(found, params.position) if found else None
    if found is not None and local is not None:
        name = local[1]
        return _location(found, found.source.name, name.line, name.column, name.end_column)
    hit = _at(found, params.position) if found else None
    if hit is None:
        return None
    symbol = hit[0]
    return _location(found, symbol.path, symbol.line, symbol.column, symbol.end_column)


def _uses(found: Analysis, symbol: Symbol) -> list[Any]:
    """Where the game's ``symbol`` is used: not where a declaration's own name of that
    spelling (an input, a ``let``) stands for something else."""
    places = occurrences(symbol.name, found.files(), _code_label(found))
    texts = {name: source.text.split("\n") for name, source in _texts(found).items()
             if any(p.path == name for p in places)}
    kept = []
    for place in places:
        lines = texts.get(place.path)
        if lines is not None and (place.path, place.line) != (symbol.path, symbol.line):
            scope = scope_at(lines, place.line - 1)
            written = lines[place.line - 1][place.column - 1:place.end_column - 1]
            if scope is not None and scope.find(written) is not None:
                continue
        kept.append(place)
    return kept


@server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
@_safe(default=[])
def references(params: lsp.ReferenceParams) -> list[lsp.Location]:
    found = server.analysis(params.text_document.uri)
    local = _local_at(found, params.position) if found else None
    if found is not None and local is not None:
        scope, name = local[0], local[1]
        spots = _scope_uses(found, scope, name.name)
        if not params.context.include_declaration:
            spots = [p for p in spots if (p[0], p[1]) != (name.line, name.column)]
        return [_location(found, found.source.name, *spot) for spot in spots]
    hit = _at(found, params.position) if found else None
    if found is None or hit is None:
        return []
    symbol = hit[0]
    places = _uses(found, symbol)
    if not params.context.include_declaration:
        places = [p for p in places if (p.path, p.line, p.column) != (symbol.path, symbol.line, symbol.column)]
    return [_location(found, p.path, p.line, p.column, p.end_column) for p in places]


def _in_comment(found: Analysis, position: lsp.Position) -> bool:
    return _line(found, position.line).lstrip().startswith("#")


def _renamable(found: Analysis, symbol: Symbol) -> bool:
    """A homebrew file may not rename what the game it extends declares (that would edit
    the game); in the game's own files everything is renamable."""
    if found.base is None:
        return True
    return all(source.name != symbol.path for source, _ in found.base.files)


@server.feature(lsp.TEXT_DOCUMENT_PREPARE_RENAME)
@_safe()
def prepare_rename(params: lsp.PrepareRenameParams) -> lsp.Range | None:
    found = server.analysis(params.text_document.uri)
    if found is None or _in_comment(found, params.position):
        return None  # a rename changes code, never comments: from one, nothing would change here
    local = _local_at(found, params.position)
    if local is not None:
        return _range(found, found.source.name, params.position.line + 1, local[2], local[3])
    hit = _at(found, params.position) if found else None
    if found is None or hit is None or not _renamable(found, hit[0]):
        return None
    return _range(found, found.source.name, params.position.line + 1, hit[1], hit[2])


_NEW_NAME = re.compile(r"^[A-Za-z][\w' -]*$")
#: A declaration's own names are single words (an input, a `let`).
_NEW_LOCAL = re.compile(r"^[A-Za-z_]\w*$")


@server.feature(lsp.TEXT_DOCUMENT_RENAME)
@_safe()
def rename(params: lsp.RenameParams) -> lsp.WorkspaceEdit | None:
    found = server.analysis(params.text_document.uri)
    if found is None or _in_comment(found, params.position):
        return None
    new = params.new_name.strip()
    local = _local_at(found, params.position)
    if found is not None and local is not None:
        if not _NEW_LOCAL.match(new):
            return None
        edits = [lsp.TextEdit(range=_range(found, found.source.name, *place), new_text=new)
                 for place in _scope_uses(found, local[0], local[1].name)]
        return lsp.WorkspaceEdit(changes={params.text_document.uri: edits})
    hit = _at(found, params.position) if found else None
    if found is None or hit is None or not _NEW_NAME.match(params.new_name.strip()) or not _renamable(found, hit[0]):
        return None
    changes: dict[str, list[lsp.TextEdit]] = {}
    for place in _uses(found, hit[0]):
        uri = server.uri_of(place.path)
        edit_range = _range(found, place.path, place.line, place.column, place.end_column)
        changes.setdefault(uri, []).append(lsp.TextEdit(range=edit_range, new_text=new))
    return lsp.WorkspaceEdit(changes=changes)


def _signature(label: str, names: list[str], doc: str) -> lsp.SignatureInformation:
    """A signature whose parameters are found, in order, in its label (as offsets)."""
    places: list[lsp.ParameterInformation] = []
    at = label.find("(") + 1
    for name in names:
        start = label.find(name, at)
        if start < 0:
            break
        places.append(lsp.ParameterInformation(label=(start, start + len(name))))
        at = start + len(name)
    documentation = lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=doc) if doc else None
    return lsp.SignatureInformation(label=label, parameters=places, documentation=documentation)


def _callee_signatures(found: Analysis, callee: str) -> list[lsp.SignatureInformation]:
    """The signatures of what ``callee`` (the text before a '(') ends by naming: a game's
    function, check or procedure (the longest name that fits), or a builtin."""
    own = [s for s in server.symbols(found) if s.kind in ("function", "check", "procedure", "condition")
           and s.signature and re.search(name_pattern([s.name]).pattern + r"\s*$", callee, re.IGNORECASE)]
    for symbol in sorted(own, key=lambda s: len(s.name), reverse=True)[:1]:
        header = symbol.signature
        close = header.find(")")
        label = header[:close + 1] if close >= 0 else header
        return [_signature(label, [p.name for p in params(label)], symbol.doc)]
    word = re.search(r"[A-Za-z_]\w*$", callee.rstrip())
    builtin = next((b for b in _builtins(found) if word and b.name.casefold() == word.group(0).casefold()), None)
    if builtin is None:
        return []
    return [_signature(s.text, [p.name for p in s.params], builtin.doc) for s in builtin.signatures]


@server.feature(lsp.TEXT_DOCUMENT_SIGNATURE_HELP, lsp.SignatureHelpOptions(trigger_characters=["(", ","]))
@_safe()
def signature_help(params: lsp.SignatureHelpParams) -> lsp.SignatureHelp | None:
    """The signature of the function, check or builtin whose parentheses hold the cursor,
    with the argument being written."""
    found = server.analysis(params.text_document.uri)
    if found is None:
        return None
    text = _line(found, params.position.line)
    call = call_at(text[:index(text, params.position.character)])
    if call is None:
        return None
    signatures = _callee_signatures(found, call[0])
    if not signatures:
        return None
    fits = [i for i, s in enumerate(signatures) if s.parameters and len(s.parameters) > call[1]]
    return lsp.SignatureHelp(signatures=signatures, active_signature=fits[0] if fits else 0,
                             active_parameter=call[1])


_SYMBOL_KINDS = {
    "entry": lsp.SymbolKind.Object, "kind": lsp.SymbolKind.Class, "stat": lsp.SymbolKind.Field,
    "name": lsp.SymbolKind.Variable, "option": lsp.SymbolKind.Enum, "levels": lsp.SymbolKind.Enum,
    "check": lsp.SymbolKind.Function, "procedure": lsp.SymbolKind.Method, "table": lsp.SymbolKind.Struct,
    "function": lsp.SymbolKind.Function, "derive": lsp.SymbolKind.Constant, "resource": lsp.SymbolKind.Property,
    "condition": lsp.SymbolKind.Event,
}


@server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
@_safe(default=[])
def document_symbols(params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
    found = server.analysis(params.text_document.uri)
    if found is None:
        return []
    result = []
    for symbol in server.symbols(found):
        if symbol.path != found.source.name or symbol.kind == "level":
            continue  # a level is a part of its levels or option line, which the outline shows
        end_line = max(symbol.end_line, symbol.line)
        whole = to_range(Span(symbol.line, 1, end_line, len(found.source.line_text(end_line)) + 1), found.source)
        name_range = to_range(Span(symbol.line, symbol.column, symbol.line, symbol.end_column), found.source)
        result.append(lsp.DocumentSymbol(name=symbol.name, kind=_SYMBOL_KINDS.get(symbol.kind, lsp.SymbolKind.Key),
                                         range=whole, selection_range=name_range,
                                         detail=symbol.detail or symbol.kind))
    return result


@server.feature(lsp.WORKSPACE_SYMBOL)
@_safe(default=[])
def workspace_symbols(params: lsp.WorkspaceSymbolParams) -> list[lsp.WorkspaceSymbol]:
    """The declarations of the games of the open documents whose names hold the query (as
    the language matches names: case, spaces, hyphens and underscores aside)."""
    wanted = fold(params.query)
    seen: set[tuple[str, int, str]] = set()
    found = []
    for uri in list(server.workspace.text_documents):
        analysis = server.analysis(uri)
        if analysis is None:
            continue
        for symbol in server.symbols(analysis):
            key = (symbol.path, symbol.line, symbol.name)
            if key in seen or symbol.kind == "level" or wanted not in fold(symbol.name):
                continue
            seen.add(key)
            where = _location(analysis, symbol.path, symbol.line, symbol.column, symbol.end_column)
            found.append(lsp.WorkspaceSymbol(name=symbol.name, kind=_SYMBOL_KINDS.get(symbol.kind, lsp.SymbolKind.Key),
                                             location=where, container_name=symbol.detail or symbol.kind))
    return found


@server.feature(lsp.TEXT_DOCUMENT_FORMATTING)
@_safe(default=None)
def formatting(params: lsp.DocumentFormattingParams) -> list[lsp.TextEdit] | None:
    """`runebook fmt` on the open text: one edit replacing the whole document, or none when
    it is formatted already or does not read cleanly (then its diagnostics say why)."""
    try:
        document = server.workspace.get_text_document(params.text_document.uri)
    except Exception:  # noqa: BLE001
        return None
    text = document.source
    # Read as `fmt` reads a file (no byte-order mark, LF); the edit keeps the document's
    # line ends, which `fmt --check` accepts either way.
    plain = plain_text(text)
    formatted = format_source(Source(to_fs_path(params.text_document.uri) or "<document>", plain))
    if formatted.refused is not None or not formatted.changed:
        return []
    new_text = formatted.text.replace("\n", "\r\n") if "\r\n" in text else formatted.text
    lines = document.lines
    last = lines[-1] if lines else ""
    end = lsp.Position(len(lines), 0) if last.endswith(("\n", "\r")) else lsp.Position(
        max(len(lines) - 1, 0), len(last.encode("utf-16-le")) // 2)
    return [lsp.TextEdit(range=lsp.Range(lsp.Position(0, 0), end), new_text=new_text)]


@server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION,
                lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix]))
@_safe(default=[])
def code_actions(params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    actions = []
    for diagnostic in params.context.diagnostics:
        data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
        help_text = data.get("help") or diagnostic.message.partition("\nhelp: ")[2]
        match = _DID_YOU_MEAN.search(help_text or "")
        if not match:
            continue
        for word in re.findall(r"'([^']+)'", match.group(1)):
            edit = lsp.TextEdit(range=diagnostic.range, new_text=word)
            actions.append(lsp.CodeAction(title=f"Change to '{word}'", kind=lsp.CodeActionKind.QuickFix,
                                          diagnostics=[diagnostic],
                                          edit=lsp.WorkspaceEdit(changes={params.text_document.uri: [edit]})))
    return actions


class _Brief(logging.Formatter):
    """One line per problem on stderr (which editors show to users): no tracebacks."""

    def format(self, record: logging.LogRecord) -> str:
        first = record.getMessage().split("\n", 1)[0]
        return first if first.startswith("runebook lsp: ") else f"runebook lsp: {first}"


def main() -> int:
    """Serve over stdin and stdout until the client exits."""
    handler = logging.StreamHandler()
    handler.setFormatter(_Brief())
    logging.basicConfig(level=logging.WARNING, handlers=[handler], force=True)
    server.start_io()
    return 0
