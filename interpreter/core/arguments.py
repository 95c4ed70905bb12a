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


def one_dice_source(seed: Any, dice: Any, rng: Any) -> None:
    """A ``ValueError`` when more than one of ``seed``, ``dice`` and ``rng`` is given: the
    others would be ignored without a word (``--seed`` and ``--dice`` are refused together too)."""
    given = [name for name, value in (("seed", seed), ("dice", dice), ("rng", rng)) if value is not None]
    if len(given) > 1:
        raise ValueError(f"give one of seed, dice or rng, not {' and '.join(given)}")
