"""Where the worlds of exact odds meet again: the rest of a segment run once per values.

The worlds of a state part ways at its first roll (a check's outcome, a pool's reading),
and each runs the rest of its segment. They often meet again a few lines later: once the
value that told them apart has been read for the last time, many hold the same live values
(:attr:`dsl.flow.Flow.live`), and from there they run the same lines to the same place.
States of the whole computation meet the same way. A :class:`Meetings` (one per odds
computation, never kept on the loaded rules) remembers, at each meeting point
(:attr:`dsl.flow.Flow.meetings`), where a world went on from those values to: the next
state, or the end with its results. A later world reaching the same point with the same
values takes that outcome instead of running the lines again.

An outcome is remembered only when nothing but those values can have shaped it:

- every live value held is plain (numbers, levels, text, ratings, records and lists of
  them), and no value of the inputs' scope is or holds a pool (whose reading is the
  world's: :func:`same_in_every_world`);
- from the meeting point on, the world took no choice (no dice read, no check's outcome
  chosen) and rolled no pool;
- no entity takes part, so no state lives outside the values (the caller's condition).

A name that is not live is read on no path before being set again, so the lines from the
point on compute the same outcome from the same live values.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from runebook.dsl.vocabulary import fold
from runebook.interpreter.core.dice import PoolSource, PoolView
from runebook.interpreter.core.values import Record
from runebook.interpreter.rules.memo import SIMPLE, plain

__all__ = ["Meetings", "same_in_every_world"]

_MISSING = object()


class Meetings:
    """The outcomes worlds reached from each meeting point, by the live values held there."""

    __slots__ = ("found", "live", "outcome", "pending", "plain", "points", "selections", "tally")

    def __init__(self, live: Sequence[frozenset[str]], points: frozenset[int],
                 plainness: Callable[[Any], bool] = plain) -> None:
        self.live = live
        #: Whether a value is plain (the computation's memo knows its records' answers).
        self.plain = plainness
        #: Lines where worlds are looked for (dsl.flow.Flow.meetings).
        self.points = points
        #: (line, names, values) -> the outcome a world went on to.
        self.found: dict[tuple[Any, ...], Any] = {}
        #: Which names of an environment are live at a line: (line, names held) -> names.
        self.selections: dict[tuple[int, tuple[str, ...]], tuple[str, ...]] = {}
        #: This world's points so far and what it had chosen there: (key, choices, pools).
        self.pending: list[tuple[tuple[Any, ...], int, int]] = []
        #: The outcome of the last point met (when :meth:`meet` said True).
        self.outcome: Any = None
        #: Per point: [worlds that met one before, worlds that looked].
        self.tally: dict[int, list[int]] = {}

    def start(self) -> None:
        """A new world begins."""
        self.pending.clear()

    def meet(self, pc: int, mapping: dict[str, Any], taken: int, realized: int) -> bool:
        """Whether a world reaching line ``pc`` with ``mapping`` already went on from the same
        live values (then :attr:`outcome` is where it went). ``taken`` and ``realized``: the
        choices and pools of this world so far."""
        tally = self.tally.get(pc)
        if tally is None:
            tally = self.tally[pc] = [0, 0]
        tally[1] += 1
        if tally[1] > 64 and tally[0] * 3 < tally[1]:
            # Worlds seldom meet here: looking costs more than it saves.
            self.points = self.points - {pc}
            return False
        key = self.key(pc, mapping)
        if key is None:
            return False
        found = self.found.get(key, _MISSING)
        if found is not _MISSING:
            self.outcome = found
            tally[0] += 1
            return True
        self.pending.append((key, taken, realized))
        return False

    def key(self, pc: int, mapping: dict[str, Any]) -> tuple[Any, ...] | None:
        """What a world holding ``mapping`` at line ``pc`` is known by there: its live values
        (None when one is not plain)."""
        names = tuple(mapping)
        selection = self.selections.get((pc, names))
        if selection is None:
            live = self.live[pc]
            selection = self.selections[(pc, names)] = tuple(n for n in names if fold(n) in live)
        values = tuple([mapping[n] for n in selection])
        if not SIMPLE.issuperset(map(type, values)):
            plain_value = self.plain
            for value in values:
                if type(value) not in SIMPLE and not plain_value(value):
                    return None
        return (pc, selection, values)

    def went(self, outcome: Any, taken: int, realized: int) -> None:
        """This world ended in ``outcome`` with ``taken`` choices and ``realized`` pools: every
        point it met after its last choice leads there."""
        for key, at_taken, at_realized in self.pending:
            if at_taken == taken and at_realized == realized:
                self.found[key] = outcome
        self.pending.clear()


def same_in_every_world(value: Any) -> bool:
    """Whether a value of the inputs' scope reads the same in every world: not a pool, and
    no pool inside a list or a record (a pool's reading is the world's own)."""
    kind = type(value)
    if kind is PoolView or kind is PoolSource:
        return False
    if kind is tuple:
        return all(same_in_every_world(v) for v in value)
    if kind is Record:
        return all(same_in_every_world(v) for v in value.values())
    return True
