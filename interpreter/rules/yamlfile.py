"""Reading the YAML files users give (entities, answers to choice points), safely.

Files are composed with PyYAML's safe loader (node positions, for diagnostics) and loaded
with ``yaml.safe_load`` (the values); a file that cannot be read or parsed is a diagnostic.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from dsl.diagnostics import Diagnostic, RunebookError
from dsl.source import Source, Span

__all__ = ["read_yaml"]


def read_yaml(path: str | Path) -> tuple[Source, yaml.Node | None, Any]:
    """(source, root node, data) of a YAML file; raises RunebookError on any problem."""
    shown = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise RunebookError([Diagnostic.make("E0001", None, None, path=shown,
                                             reason=getattr(error, "strerror", None) or str(error))]) from None
    source = Source(shown, text)
    try:
        return source, yaml.compose(text, Loader=yaml.SafeLoader), yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        span = Span.point(mark.line + 1, mark.column + 1) if mark else None
        raise RunebookError([Diagnostic.make("E0704", source, span,
                                             message=getattr(error, "problem", None) or str(error))]) from None
