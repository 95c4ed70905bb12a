"""Bounds on evaluation, injected into every evaluation and distribution.

Every limit is checked before the work it bounds is done, and exceeding one is a
diagnostic (never a hang, a crash or a silently wrong answer).
"""

from __future__ import annotations

import attrs

__all__ = ["DEFAULT_LIMITS", "Limits"]


@attrs.frozen(cache_hash=True)
class Limits:
    """Configurable bounds; pass ``attrs.evolve(DEFAULT_LIMITS, ...)`` to change some."""

    #: Dice rolled by one evaluation (explosions and rerolls included), and dice in one pool.
    max_dice: int = 10_000
    #: Faces of one die (``d1000000`` is fine, ``d10000000000`` is not).
    max_sides: int = 1_000_000
    #: Explosions one die may chain. Rolling deeper is an error; exact odds truncate there
    #: and report what lies beyond as a tail (``21+``) or a residual.
    max_explosion_depth: int = 20
    #: Nesting of an expression and of calls of functions defined in rules.
    max_depth: int = 200
    #: Distinct states or outcomes a distribution may hold.
    max_support: int = 200_000
    #: Steps of the exact-odds computation: pool states combined, and worlds evaluated
    #: (a world counts as one step; a few seconds of work at most).
    max_work: int = 5_000_000
    #: Lines a procedure may run (loops included) before it is stopped.
    max_steps: int = 10_000
    #: Items of one collection: a list made by the rules, or one a `for each` walks.
    max_collection: int = 1_000
    #: States of a procedure's chain (places at a ``step`` line with the values and the
    #: entities' state there) that exact odds may explore before giving up.
    max_states: int = 5_000


DEFAULT_LIMITS = Limits()
