"""What one run of a check or procedure keeps while it runs.

A loaded ruleset (:class:`interpreter.rules.Rules`) holds only what its files say and memos
of pure computations, so one loaded ruleset can serve several threads at once. Everything
that belongs to one run lives in a :class:`RunState`, reached from the evaluation context
(``ctx.run``): the options and entities of the run, and, while exact odds are computed,
the pools of the enumeration the context is a world of.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["RunState"]


class RunState:
    """The state of one run, as the contexts evaluating it see it.

    ``options`` and ``roles`` are those of the check or procedure running (None outside
    any run: options at their defaults, no entity). ``pools`` is set on every world of an
    exact-odds enumeration and is the same dict for all of them: the pools the run declares
    (``roll`` lines), named by their place in the run (the n-th roll, its line, its spec),
    so that every world reads the same pool objects. ``rolls`` counts the rolls of this
    world so far (the n of the next name). ``memo``, while exact odds are computed: the
    computation's memo of line values (:class:`interpreter.rules.memo.LineMemo`), shared by
    its worlds.
    """

    __slots__ = ("memo", "options", "pools", "roles", "rolls")

    def __init__(self, options: Mapping[str, Any] | None = None, roles: Mapping[str, Any] | None = None,
                 pools: dict[tuple[Any, ...], Any] | None = None, memo: Any = None) -> None:
        self.options = options
        self.roles = roles
        self.pools = pools
        self.rolls = 0
        self.memo = memo
