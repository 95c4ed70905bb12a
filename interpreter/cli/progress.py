"""A progress line on stderr for a computation that takes a while (exact odds of a procedure).

Shown only on a terminal, only after the first second, at most five times a second, and
erased when the computation ends: a pipe, a log or a quick answer sees nothing of it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

__all__ = ["Progress", "SweepProgress"]


class Progress:
    """Called with the number of states explored; ``close()`` when done."""

    def __init__(self, stream: TextIO, label: str, *, clock: Callable[[], float] = time.monotonic,
                 after: float = 1.0, every: float = 0.2) -> None:
        self.stream, self.label, self.clock = stream, label, clock
        self.after, self.every = after, every
        self.start = clock()
        self.last = self.start
        self.width = 0
        isatty = getattr(stream, "isatty", None)
        self.active = bool(isatty and isatty())

    def __call__(self, states: int) -> None:
        self.show(lambda elapsed: f"{self.label}: {states:,} states explored, {elapsed:.1f} s")

    def show(self, line_at: Callable[[float], str]) -> None:
        """Write the line ``line_at(seconds so far)`` over the last one, when it is time to."""
        if not self.active:
            return
        now = self.clock()
        if now - self.start < self.after or (self.width and now - self.last < self.every):
            return
        self.last = now
        line = line_at(now - self.start)
        self.stream.write("\r" + line.ljust(self.width))
        self.stream.flush()
        self.width = max(self.width, len(line))

    def close(self) -> None:
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0


class SweepProgress(Progress):
    """Told (points done, points in all) as a sweep's points finish."""

    def __call__(self, done: int, total: int = 0) -> None:  # type: ignore[override]
        self.show(lambda elapsed: f"{self.label}: {done:,} of {total:,} points, {elapsed:.1f} s")
