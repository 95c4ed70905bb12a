"""The grammar's analysed LALR tables, kept between runs in a file that cannot run code.

Lark's own cache unpickles the file before it checks anything, so whoever can write to the
cache folder could run code in every later command. This cache stores Lark's serialized
tables as JSON (dicts, lists, strings, numbers; integer keys written as digit strings and
turned back), which builds data and nothing else; a header carries a key (grammar
text, Lark and Python versions) and the SHA-256 of the payload, checked before the payload
is even parsed. The file is read through the bounded reader (a FIFO or device there is
ignored) and written to a temporary file that is then renamed over the old one, so a
reader never sees half a file. Any problem means: build the tables again.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from lark import Lark
from lark import __version__ as lark_version
from lark.grammar import Rule
from lark.lark import _LOAD_ALLOWED_OPTIONS
from lark.lexer import TerminalDef

from runebook.dsl.files import FileRefused, read_limited

__all__ = ["cache_file", "cache_key", "cached_parser"]

MAGIC = b"runebook-grammar-cache 1\n"
MAX_BYTES = 16 * 1024 * 1024


def _is_digits(key: str) -> bool:
    return key.lstrip("-").isdigit()


def _int_keys(pairs: list[tuple[str, Any]]) -> dict[Any, Any]:
    return {(int(k) if _is_digits(k) else k): v for k, v in pairs}


def cache_key(grammar_files: Iterable[Path]) -> str:
    """What the tables depend on: every grammar file, Lark's version and Python's."""
    digest = hashlib.sha256(MAGIC + f"{lark_version} {sys.version_info[:2]}".encode())
    for path in sorted(grammar_files):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


class _Unsuitable(Exception):
    """The tables hold something JSON cannot carry back exactly: go without a cache."""


def cache_file(base: str, key: str) -> str:
    """The file for tables of ``key``: one per grammar, so that checkouts with different
    grammars sharing one cache folder do not overwrite each other's file at every run."""
    return f"{base}-{key[:16]}.json"


def _plain(value: Any) -> Any:
    """Lark's serialized data with its ``Token`` strings made plain ``str``."""
    if isinstance(value, str):
        return str(value)
    if isinstance(value, dict):
        if any(isinstance(k, str) and _is_digits(k) for k in value):
            raise _Unsuitable  # would come back as an int key
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    return value


def _payload(parser: Lark) -> bytes:
    data, memo = parser.memo_serialize([TerminalDef, Rule])
    data["options"] = {k: v for k, v in data["options"].items() if k not in _LOAD_ALLOWED_OPTIONS}
    return json.dumps(_plain({"data": data, "memo": memo}), separators=(",", ":")).encode()


def _load(path: str, key: str, options: dict[str, Any]) -> Lark | None:
    try:
        blob = read_limited(Path(path), MAX_BYTES)
    except FileRefused:
        return None
    header_end = len(MAGIC) + 2 * (64 + 1)
    if not blob.startswith(MAGIC) or len(blob) < header_end:
        return None
    stored_key, stored_digest = blob[len(MAGIC):header_end].decode("ascii", "replace").split("\n")[:2]
    payload = blob[header_end:]
    if stored_key != key or stored_digest != hashlib.sha256(payload).hexdigest():
        return None
    try:
        tables = json.loads(payload.decode("utf-8"), object_pairs_hook=_int_keys)
        return Lark.__new__(Lark)._load(tables, **options)
    except Exception:  # noqa: BLE001 - a damaged cache is rebuilt, whatever is wrong with it
        return None


def _store(path: str, key: str, parser: Lark) -> None:
    try:
        existing = os.lstat(path)
    except FileNotFoundError:
        existing = None
    except OSError:
        return
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        return  # something else sits there (a FIFO, a symlink): leave it and go without
    try:
        payload = _payload(parser)
    except _Unsuitable:
        return
    blob = MAGIC + f"{key}\n{hashlib.sha256(payload).hexdigest()}\n".encode() + payload
    folder = os.path.dirname(path) or "."
    try:
        fd, temporary = tempfile.mkstemp(dir=folder, prefix=".grammar-", suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(blob)
        os.replace(temporary, path)
    except OSError:
        try:
            os.unlink(temporary)
        except OSError:
            pass


def cached_parser(path: str | None, grammar_files: Iterable[Path], build: Callable[[], Lark],
                  options: dict[str, Any]) -> Lark:
    """The parser from the cache at ``path`` if it is sound, else ``build()`` (stored for next time).

    ``options`` are the objects a serialized parser cannot carry (transformer, post-lexer).
    """
    if not path:
        return build()
    key = cache_key(grammar_files)
    path = cache_file(path, key)
    loaded = _load(path, key, options)
    if loaded is not None:
        return loaded
    parser = build()
    _store(path, key, parser)
    return parser
