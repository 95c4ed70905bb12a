"""Checks of the Python types an embedder passes: a wrong type is a ``TypeError`` that names
what the argument takes (as Python's own functions do), not an ``AttributeError`` from deep
inside. What a user typed (an expression, a name, an input) is checked later, as a
``RunebookError`` with a code."""

from __future__ import annotations

from typing import Any


def require_text(value: Any, what: str) -> str:
    """``value`` when it is a ``str``; otherwise a ``TypeError`` saying ``what`` takes text."""
    if not isinstance(value, str):
        raise TypeError(f"{what} takes text (a str), not {type(value).__name__}")
    return value
