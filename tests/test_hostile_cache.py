"""The grammar cache cannot run code, is written atomically and skips what is not a file (issue 15)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from lark import Lark, Transformer

from runebook.dsl import grammar_cache
from runebook.dsl.grammar_cache import MAGIC, cache_key, cached_parser

REPO = Path(__file__).resolve().parent.parent
GRAMMAR = 'start: WORD ("," WORD)*\n%import common.WORD\n%ignore " "\n'


class Words(Transformer):  # type: ignore[type-arg]
    def start(self, children: list[str]) -> list[str]:
        return [str(c) for c in children]


@pytest.fixture
def grammar_file(tmp_path: Path) -> Path:
    path = tmp_path / "g.lark"
    path.write_text(GRAMMAR)
    return path


def _file(cache: Path, grammar: Path) -> Path:
    """Where the tables for ``grammar`` go, given the cache's base name."""
    return Path(grammar_cache.cache_file(str(cache), cache_key([grammar])))


def _parser(cache: Path, grammar: Path, builds: list[int]) -> Lark:
    options = {"transformer": Words()}

    def build() -> Lark:
        builds.append(1)
        return Lark(grammar.read_text(), parser="lalr", **options)

    return cached_parser(str(cache), [grammar], build, options)


def test_second_run_loads_tables_from_the_cache(tmp_path: Path, grammar_file: Path) -> None:
    cache, builds = tmp_path / "c.cache", []
    assert _parser(cache, grammar_file, builds).parse("a, b") == ["a", "b"]
    assert _parser(cache, grammar_file, builds).parse("c , d") == ["c", "d"]
    assert len(builds) == 1 and _file(cache, grammar_file).read_bytes().startswith(MAGIC)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


class _Boom:
    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (os.system, (f"touch {self.marker}",))

    marker = ""


def test_a_planted_pickle_is_never_unpickled(tmp_path: Path, grammar_file: Path) -> None:
    marker = tmp_path / "ran"
    _Boom.marker = str(marker)
    key = cache_key([grammar_file])
    base = tmp_path / "c.cache"
    cache = _file(base, grammar_file)
    # Lark's own layout (hash line, then pickles), and ours with a pickle as the payload.
    cache.write_bytes(key.encode() + b"\n" + pickle.dumps(_Boom()) + pickle.dumps(_Boom()))
    builds: list[int] = []
    assert _parser(base, grammar_file, builds).parse("a") == ["a"]
    payload = pickle.dumps(_Boom())
    import hashlib
    cache.write_bytes(MAGIC + f"{key}\n{hashlib.sha256(payload).hexdigest()}\n".encode() + payload)
    assert _parser(base, grammar_file, builds).parse("a") == ["a"]
    assert not marker.exists() and len(builds) == 2


def test_a_damaged_cache_is_rebuilt(tmp_path: Path, grammar_file: Path) -> None:
    cache, builds = tmp_path / "c.cache", []
    _parser(cache, grammar_file, builds)
    blob = bytearray(_file(cache, grammar_file).read_bytes())
    blob[-10] ^= 0x20  # the digest no longer matches
    _file(cache, grammar_file).write_bytes(bytes(blob))
    assert _parser(cache, grammar_file, builds).parse("x") == ["x"] and len(builds) == 2
    grammar_file.write_text(GRAMMAR.replace("WORD)*", "WORD)* [\";\"]"))
    assert _parser(cache, grammar_file, builds).parse("x;") == ["x"] and len(builds) == 3


def test_a_fifo_as_the_cache_does_not_hang(tmp_path: Path, grammar_file: Path) -> None:
    cache = tmp_path / "c.cache"
    os.mkfifo(_file(cache, grammar_file))
    result: list[object] = []
    worker = threading.Thread(target=lambda: result.append(_parser(cache, grammar_file, []).parse("a")), daemon=True)
    worker.start()
    worker.join(5)
    assert result == [["a"]]
    assert _file(cache, grammar_file).is_fifo()  # left alone, not written over


def test_the_cache_is_replaced_by_rename(tmp_path: Path, grammar_file: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    cache = tmp_path / "c.cache"
    _file(cache, grammar_file).write_bytes(b"stale")
    renamed: list[tuple[str, str]] = []
    real = os.replace
    monkeypatch.setattr(grammar_cache.os, "replace", lambda a, b: (renamed.append((a, b)), real(a, b)))
    _parser(cache, grammar_file, [])
    assert len(renamed) == 1 and renamed[0][1] == str(_file(cache, grammar_file))
    assert Path(renamed[0][0]).parent == tmp_path


def test_a_planted_pickle_in_the_real_cache_folder(tmp_path: Path) -> None:
    """The command line itself, with pickles that would run planted under every name the
    cache has used (Lark's own file, and this one's)."""
    from runebook.dsl.parser import _table_cache
    from runebook.grammar import GRAMMAR_DIR

    marker = tmp_path / "ran"
    folder = tmp_path / "runebook"
    folder.mkdir(mode=0o700)
    _Boom.marker = str(marker)
    ours = Path(grammar_cache.cache_file(str(folder / Path(str(_table_cache())).name),
                                         cache_key(GRAMMAR_DIR.glob("*.lark"))))
    for path in (folder / "grammar-lark1.3.1-py3.11.cache", ours):
        path.write_bytes(b"0" * 64 + b"\n" + pickle.dumps(_Boom()) + pickle.dumps(_Boom()))
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    env.pop("RUNEBOOK_NO_CACHE", None)
    run = subprocess.run([sys.executable, "-m", "runebook", "roll", "1d6", "--seed", "1"], capture_output=True,
                         text=True, env=env, cwd=REPO, check=False, timeout=60)
    assert run.returncode == 0, run.stderr
    assert not marker.exists()
    assert ours.read_bytes().startswith(MAGIC)
