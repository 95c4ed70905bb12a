"""How names match: :func:`fold` (a module of its own, so that what needs only this, such as
the builtins' types, need not import the vocabulary and the whole AST)."""

from __future__ import annotations

__all__ = ["fold"]


def fold(name: str) -> str:
    """Names match case-insensitively, ignoring spaces, hyphens, underscores and quotes."""
    return name.casefold().translate(_UNFOLDED)


_UNFOLDED = str.maketrans("", "", " -_'’")
