"""How names match: :func:`fold` (a module of its own, so that what needs only this, such as
the builtins' types, need not import the vocabulary and the whole AST)."""

from __future__ import annotations

__all__ = ["fold"]


def fold(name: str) -> str:
    """Names match case-insensitively, ignoring spaces, hyphens, underscores and quotes."""
    found = _FOLDED.get(name)
    if found is None:
        if len(_FOLDED) >= _FOLDED_MOST:
            _FOLDED.clear()
        found = _FOLDED[name] = name.casefold().translate(_UNFOLDED)
    return found


#: Names folded so far: the same few come back again and again (a large table's levels are
#: folded by every stage that reads them). Cleared when full, so it stays bounded; a lost
#: entry between threads only means folding a name again.
_FOLDED: dict[str, str] = {}
_FOLDED_MOST = 1 << 18


_UNFOLDED = str.maketrans("", "", " -_'’")
