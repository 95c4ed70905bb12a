"""SARIF output for `runebook check --format sarif`: the log, with this copy's version and
the address of the error reference its rules link to."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path

from runebook.dsl.diagnostics import Diagnostic, render_sarif

__all__ = ["errors_reference_uri", "sarif_log", "tool_version"]

_PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def tool_version() -> str:
    """The installed Runebook's version, or the source tree's when it is run in place."""
    try:
        return metadata.version("runebook")
    except metadata.PackageNotFoundError:
        text = _PYPROJECT.read_text(encoding="utf-8") if _PYPROJECT.is_file() else ""
        match = re.search(r'^version = "([^"]+)"', text, re.M)
        return match.group(1) if match else "unknown"


def errors_reference_uri() -> str | None:
    """Where the error reference lives: under ``RUNEBOOK_DOCS_URL`` if set, else this source
    tree's docs/errors.md; None for an installed copy, which carries no docs."""
    base = os.environ.get("RUNEBOOK_DOCS_URL")
    if base:
        return f"{base.rstrip('/')}/errors.md"
    page = _PYPROJECT.parent / "docs" / "errors.md"
    return page.as_uri() if page.is_file() else None


def sarif_log(diagnostics: Iterable[Diagnostic]) -> str:
    """The SARIF 2.1.0 log of one check."""
    return render_sarif(diagnostics, version=tool_version(), help_uri=errors_reference_uri())
