"""The language server's handlers in process, against a workspace made here (pygls's own
`Workspace`): what a request costs and what it answers, without a client process.

The end-to-end tests (test_lsp.py) drive the real server over stdio; these reach what a
client cannot see directly — which thread checked the mechanics, what a request ran.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pygls")
from lsprotocol import types as lsp  # noqa: E402
from pygls.workspace import Workspace  # noqa: E402

from runebook.interpreter.lsp import analysis  # noqa: E402
from runebook.interpreter.lsp import server as lsp_server  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
COMBAT = REPO / "rulesets" / "mettle" / "combat.rules"


@pytest.fixture
def workspace(monkeypatch: pytest.MonkeyPatch) -> Iterator[Workspace]:
    """A fresh workspace and no analyses cached; what the server publishes is recorded."""
    space = Workspace(None)
    monkeypatch.setattr(lsp_server.server.protocol, "_workspace", space)
    monkeypatch.setattr(lsp_server.server, "analyses", {})
    monkeypatch.setattr(lsp_server.server, "symbol_cache", {})
    published: list[lsp.PublishDiagnosticsParams] = []
    monkeypatch.setattr(lsp_server.server, "text_document_publish_diagnostics", published.append)
    space.published = published  # type: ignore[attr-defined]
    yield space


def _open(space: Workspace, path: Path, text: str, version: int = 1) -> str:
    uri = path.resolve().as_uri()
    space.put_text_document(lsp.TextDocumentItem(uri=uri, language_id="runebook", version=version, text=text))
    return uri


@pytest.fixture
def models(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the threads that built a game's mechanics (dsl.model.build_model)."""
    built: list[str] = []
    real = analysis.build_model

    def recording(ruleset: Any) -> Any:
        built.append(threading.current_thread().name)
        return real(ruleset)

    monkeypatch.setattr(analysis, "build_model", recording)
    return built


def test_a_request_after_a_keystroke_does_not_wait_for_the_games_mechanics(workspace: Workspace,
                                                                          models: list[str]) -> None:
    uri = _open(workspace, COMBAT, COMBAT.read_text(encoding="utf-8") + "\n")
    items = lsp_server.complete(lsp.CompletionParams(lsp.TextDocumentIdentifier(uri), lsp.Position(0, 0)))
    assert items.items  # answered from the front end's analysis
    assert models == []
    asyncio.run(lsp_server.server.publish(uri))
    # The mechanics were checked for the diagnostics, beside the event loop's thread.
    assert models and threading.main_thread().name not in models
    (sent,) = workspace.published  # type: ignore[attr-defined]
    assert sent.uri == uri and sent.version == 1 and sent.diagnostics == []


def test_diagnostics_of_a_version_changed_during_its_check_are_not_sent(workspace: Workspace,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    text = "check Dare (bonus = 0)\n  result total = bonus + missing\n"
    path = REPO / "no-such-folder" / "dare.rules"
    uri = _open(workspace, path, text)
    real = analysis.build_model

    def typed_meanwhile(ruleset: Any) -> Any:
        workspace.put_text_document(lsp.TextDocumentItem(uri=uri, language_id="runebook", version=2, text=text + "\n"))
        return real(ruleset)

    monkeypatch.setattr(analysis, "build_model", typed_meanwhile)
    asyncio.run(lsp_server.server.publish(uri))
    assert workspace.published == []  # type: ignore[attr-defined]
    # Unchanged since, the next check sends them.
    monkeypatch.setattr(analysis, "build_model", real)
    asyncio.run(lsp_server.server.publish(uri))
    (sent,) = workspace.published  # type: ignore[attr-defined]
    assert sent.version == 2 and [d.code for d in sent.diagnostics] == ["E0207"]


def test_an_unsaved_document_is_checked_on_its_own(workspace: Workspace) -> None:
    uri = "untitled:Untitled-1"
    text = "function twice(x) = x * 2\n\ncheck Dare (bonus = 0)\n  result total = twice(bonus) + missing\n"
    workspace.put_text_document(lsp.TextDocumentItem(uri=uri, language_id="runebook", version=1, text=text))
    asyncio.run(lsp_server.server.publish(uri))
    (sent,) = workspace.published  # type: ignore[attr-defined]
    assert [(d.code, d.range.start.line) for d in sent.diagnostics] == [("E0207", 3)]
    target = lsp_server.definition(lsp.DefinitionParams(lsp.TextDocumentIdentifier(uri),
                                                        lsp.Position(3, text.split("\n")[3].index("twice"))))
    assert (target.uri, target.range.start.line, target.range.start.character) == (uri, 0, len("function "))


def test_a_crlf_document_is_analysed_once_per_version(workspace: Workspace) -> None:
    uri = _open(workspace, REPO / "no-such-folder" / "windows.rules", "function twice(x) = x * 2\r\n")
    first = lsp_server.server.analysis(uri)
    assert first is not None and lsp_server.server.analysis(uri) is first
