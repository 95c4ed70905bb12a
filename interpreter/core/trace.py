"""What happened during an evaluation, as data.

A :class:`Trace` is a list of events in evaluation order:

- :class:`RollEvent`: a dice term was rolled. It lists every physical die in the order
  its face was needed (the order ``--dice`` faces are consumed), each a :class:`DieRoll`
  with its face and fate.
- :class:`StepEvent`: an operation, a call, a name looked up, a table lookup or a
  condition decided, with the text it came from and the value it produced.

Text for people is made in :mod:`interpreter.core.render` (which reads these events);
nothing here formats output beyond ``to_dict``.
"""

from __future__ import annotations

from typing import Any

from runebook.dsl.source import Span
from runebook.interpreter.core.values import json_value

__all__ = ["DieRoll", "RollEvent", "StepEvent", "Trace"]

#: Fates of a die: it stays in the pool, is dropped by keep/drop, was replaced by a
#: reroll, or is a compounding roll added into an earlier die of the pool.
FATES = ("kept", "dropped", "rerolled", "added")


class DieRoll:
    """One physical die: its face and fate.

    ``value`` is what the die counts for in the pool (the face, or for a compounding die
    the sum of its chain). ``origin`` is the number (1-based, within its roll) of the die
    this one explodes from, rerolls or adds to; ``cause`` says which (``"explosion"``,
    ``"reroll"``, ``"compound"``) and is ``None`` for the pool's own dice. ``counts`` is
    +1 for a die counted as a success, -1 for a failure deducted, 0 otherwise.
    """

    __slots__ = ("cause", "counts", "crit", "exploded", "face", "fate", "label", "origin", "value")

    def __init__(self, label: str, face: Any, cause: str | None = None, origin: int | None = None) -> None:
        self.label = label
        self.face = face
        self.value = face
        self.fate = "kept"
        self.exploded = False
        self.counts = 0
        self.crit: str | None = None  # "success" or "failure": a critical mark (Roll20 cs/cf)
        self.cause = cause
        self.origin = origin

    def tags(self) -> list[str]:
        tags = []
        if self.exploded:
            tags.append("exploded")
        if self.counts > 0:
            tags.append("success" if self.counts == 1 else f"success x{self.counts}")
        elif self.counts < 0:
            tags.append("failure")
        if self.crit is not None:
            tags.append(f"critical {self.crit}")
        return tags

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"die": self.label, "face": self.face, "fate": self.fate}
        if self.value != self.face:
            data["value"] = json_value(self.value)
        if self.cause:
            data["cause"] = self.cause
            data["of"] = self.origin
        tags = self.tags()
        if tags:
            data["tags"] = tags
        return data

    def __repr__(self) -> str:
        return f"DieRoll({self.label}={self.face}, {self.fate}{', ' + ','.join(self.tags()) if self.tags() else ''})"


class RollEvent:
    """A dice term rolled: ``text`` as written, every die, and the pool's value."""

    __slots__ = ("dice", "order", "span", "text", "value")

    kind = "roll"

    def __init__(self, text: str, span: Span | None, dice: list[DieRoll], value: Any) -> None:
        self.text = text
        self.span = span
        self.dice = dice
        self.value = value
        self.order: list[Any] | None = None  # the values sorted, for a sorted pool (`sa`/`sd`)

    def to_dict(self) -> dict[str, Any]:
        out = {
            "kind": "roll",
            "expr": self.text,
            "dice": [d.to_dict() for d in self.dice],
            "value": json_value(self.value),
        }
        if self.order is not None:
            out["sorted"] = [json_value(v) for v in self.order]
        return out


class StepEvent:
    """An operation (``op``), builtin or function ``call``, ``name`` lookup, table
    ``lookup`` or ``condition``: the text it came from and its value."""

    __slots__ = ("file", "kind", "span", "text", "value")

    def __init__(self, kind: str, text: str, value: Any, span: Span | None = None, file: str | None = None) -> None:
        self.kind = kind
        self.text = text
        self.value = value
        self.span = span
        self.file = file  # the rules file of a line a check or procedure ran

    def to_dict(self) -> dict[str, Any]:
        out = {"kind": self.kind, "expr": self.text, "value": json_value(self.value)}
        if self.span is not None:
            out["line"], out["column"] = self.span.line, self.span.column
        if self.file is not None:
            out["file"] = self.file
        return out


class Trace(list):  # type: ignore[type-arg]
    """The events of one evaluation, in order (a list of RollEvent and StepEvent)."""

    def dice(self) -> list[DieRoll]:
        """Every physical die, in the order faces were consumed."""
        return [d for e in self if isinstance(e, RollEvent) for d in e.dice]

    def to_list(self) -> list[dict[str, Any]]:
        return [e.to_dict() for e in self]
