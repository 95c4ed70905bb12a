"""Latency of `runebook lsp`: from a change to a 2,000-line document to its diagnostics.

    python benchmarks/bench_lsp.py [--lines N] [--changes C]

Starts the real server process and speaks JSON-RPC to it over stdio, as an editor does.
The document is homebrew content for a built-in game (the generator of bench_check.py).
Each change edits one line (alternately misspelling and fixing a label, so the diagnostics
differ each time); the time is measured from sending `didChange` to receiving the
`publishDiagnostics` that follows, so it includes the server's debounce (0.1 s by default;
``--debounce`` sets it) and the protocol on both sides.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from queue import Queue
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from bench_check import generate  # noqa: E402


class Client:
    """A minimal LSP client over a subprocess' stdio."""

    def __init__(self) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        self.process = subprocess.Popen([sys.executable, "-m", "runebook", "lsp"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, env=env)
        self.messages: Queue[dict[str, Any]] = Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = 0
            while (line := stream.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not line:
                return
            self.messages.put(json.loads(stream.read(length)))

    def send(self, method: str, params: Any, request: bool = False) -> int | None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self.next_id += 1
            message["id"] = self.next_id
        body = json.dumps(message).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()
        return message.get("id")

    def wait(self, predicate: Any, timeout: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            message = self.messages.get(timeout=max(0.01, deadline - time.monotonic()))
            if predicate(message):
                return message

    def close(self) -> None:
        self.send("shutdown", None, request=True)
        self.send("exit", None)
        self.process.wait(10)


def _change(client: Client, uri: str, version: int, edits: list[Any], expected: int) -> float:
    """Send one change; the seconds until its diagnostics arrive (checked: ``expected`` of them)."""
    sent = time.perf_counter()
    client.send("textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": edits})
    reply = client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics")
    elapsed = time.perf_counter() - sent
    found = reply["params"]["diagnostics"]
    assert len(found) == expected, (version, found[:2])
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--changes", type=int, default=20)
    parser.add_argument("--debounce", type=float, default=0.1)
    args = parser.parse_args()
    text = generate(args.lines)
    lines = text.split("\n")
    target = next(i for i, line in enumerate(lines) if line.startswith("Threshold:"))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "generated.rules"
        path.write_text(text, encoding="utf-8")
        uri = path.as_uri()
        client = Client()
        started = time.perf_counter()
        request = client.send("initialize", {"processId": None, "rootUri": None, "capabilities": {},
                                             "initializationOptions": {"debounce": args.debounce}}, request=True)
        client.wait(lambda m: m.get("id") == request)
        client.send("initialized", {})
        client.send("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "runebook", "version": 1,
                                                              "text": text}})
        client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics")
        first = time.perf_counter() - started
        current = lines[target]
        results: dict[str, list[float]] = {"edit within a line": [], "insert a line": []}
        version = 1
        for change in range(args.changes):
            # Within a line: the label misspelt a new way each time (one diagnostic), or fixed.
            version += 1
            misspelt = f"Thresh{'x' * (change + 1)}old"
            line = f"{misspelt if change % 2 == 0 else 'Threshold'}: Target's Defense"
            edit = {"range": {"start": {"line": target, "character": 0},
                              "end": {"line": target, "character": len(current)}}, "text": line}
            current = line
            results["edit within a line"].append(_change(client, uri, version, [edit], 1 - change % 2))
            # A comment line above it: this block changes, every block below moves down a line.
            version += 1
            edit = {"range": {"start": {"line": target, "character": 0}, "end": {"line": target, "character": 0}},
                    "text": "# a note\n"}
            target += 1
            results["insert a line"].append(_change(client, uri, version, [edit], 1 - change % 2))
        client.close()
    print(f"runebook lsp: {len(lines):,}-line document, {args.changes} changes, debounce {args.debounce:g} s")
    print(f"start, initialize and first diagnostics: {first:.2f} s")
    for what, times in results.items():
        print(f"{what} -> diagnostics: median {statistics.median(times) * 1000:.0f} ms, "
              f"max {max(times) * 1000:.0f} ms (the debounce included: {args.debounce * 1000:.0f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
