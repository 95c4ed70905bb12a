"""The grammar's analysed tables are cached in the user's own cache folder, and a run that
cannot write there simply builds them (a check of its own, in a fresh process)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from runebook.dsl.parser import _table_cache

REPO = Path(__file__).resolve().parent.parent


def test_the_cache_lives_in_the_user_cache_folder(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("RUNEBOOK_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    where = _table_cache()
    assert isinstance(where, str) and Path(where).parent == tmp_path / "runebook"
    assert (tmp_path / "runebook").stat().st_mode & 0o077 == 0
    monkeypatch.setenv("RUNEBOOK_NO_CACHE", "1")
    assert _table_cache() is False


def test_an_unwritable_cache_folder_means_no_cache(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("RUNEBOOK_NO_CACHE", raising=False)
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    assert _table_cache() is False


def test_a_fresh_process_checks_with_a_cold_and_a_warm_cache(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    env.pop("RUNEBOOK_NO_CACHE", None)
    bad = REPO / "tests" / "cases" / "homebrew" / "frost_lance.rules"
    runs = [subprocess.run([sys.executable, "-m", "runebook", "check", str(bad)], capture_output=True,
                           text=True, env=env, cwd=REPO, check=False) for _ in range(2)]
    assert any((tmp_path / "runebook").iterdir())
    assert runs[0].returncode == runs[1].returncode == 1
    assert runs[0].stderr == runs[1].stderr and "Traceback" not in runs[1].stderr
