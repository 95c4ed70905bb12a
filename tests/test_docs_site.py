"""The documentation site builds with `mkdocs build --strict` (the `docs` extra): the API
reference (docs/api.md) is rendered from the docstrings, and each object it names exists."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_the_site_builds_and_the_reference_shows_the_api(tmp_path: Path) -> None:
    site = tmp_path / "site"
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                         cwd=REPO, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    page = html.unescape(re.sub(r"<[^>]+>", "", (site / "api" / "index.html").read_text(encoding="utf-8")))
    # Signatures may be wrapped one parameter a line (when black or ruff is installed).
    page = re.sub(r"\(\s+", "(", re.sub(r"\s+", " ", page))
    # Signatures with their types, and the docstrings' words, come from the code.
    assert "run_async(name: str" in page and "-> RunResult" in page
    assert "for asyncio code (a chat bot waiting for its player)" in page
    assert "roll(expr: str" in page and "RollResult" in page
    assert (site / "embedding" / "index.html").is_file()
