"""`runebook lsp` against a client that sends garbage: bytes that are not JSON, JSON that is
not a message, unknown methods, wrong parameters. The server answers what it can, keeps
serving, and writes no traceback anywhere (stdout is the protocol; editors show stderr)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent



def _frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_the_server_survives_a_client_sending_garbage(tmp_path: Path) -> None:
    requests = [
        b"Content-Length: 12\r\n\r\n{not json!!}",
        _frame(b"[1, 2, 3]"),
        _frame(json.dumps({"jsonrpc": "2.0", "id": 7, "method": "no/such", "params": {}}).encode()),
        _frame(json.dumps({"jsonrpc": "2.0", "id": 8, "method": "textDocument/hover", "params": "garbage"}).encode()),
        _frame(json.dumps({"jsonrpc": "2.0", "id": 9, "method": "initialize",
                           "params": {"processId": None, "rootUri": None, "capabilities": {}}}).encode()),
        _frame(json.dumps({"jsonrpc": "2.0", "method": "initialized", "params": {}}).encode()),
        _frame(json.dumps({"jsonrpc": "2.0", "id": 10, "method": "textDocument/hover", "params": {
            "textDocument": {"uri": (tmp_path / "never-opened.rules").as_uri()},
            "position": {"line": 3, "character": 1}}}).encode()),
        _frame(json.dumps({"jsonrpc": "2.0", "id": 11, "method": "shutdown"}).encode()),
        _frame(json.dumps({"jsonrpc": "2.0", "method": "exit"}).encode()),
    ]
    done = subprocess.run([sys.executable, "-m", "runebook", "lsp"], input=b"".join(requests), capture_output=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": str(REPO)})
    replies = {}
    for body in re.split(rb"Content-Length: \d+\r\n(?:[^\r\n]+\r\n)*\r\n", done.stdout)[1:]:
        message = json.loads(body)
        replies[message.get("id")] = message
    assert replies[7]["error"]["code"] == -32601
    assert "capabilities" in replies[9]["result"]
    assert replies[10]["result"] is None and replies[11]["result"] is None
    assert b"Traceback" not in done.stdout + done.stderr, done.stderr.decode()
    assert done.returncode == 0


def test_without_pygls_the_command_says_what_to_install() -> None:
    script = ("import sys; sys.modules['pygls'] = None\n"
              "from interpreter.cli.main import main\n"
              "sys.exit(main(['lsp']))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 2
    assert "pip install 'runebook[lsp]'" in done.stderr and "Traceback" not in done.stderr
