"""A process-wide cache bounded by what it holds, not only by how many entries: the caches
of compiled texts and of pools' options keep values whose size varies by a millionfold (a
`d1000000` holds a million faces), and a bot fed ever new such texts must not keep each."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["SizedCache"]

V = TypeVar("V")


class SizedCache(Generic[V]):
    """Values by key, the least recently read dropped first, at most ``entries`` of them and
    ``most`` in size all told (``size`` of each value); a value larger than ``largest`` is
    never kept. Reads take no lock (each OrderedDict call is atomic); changes do."""

    def __init__(self, entries: int, most: int, largest: int, size: Callable[[V], int]) -> None:
        self.entries, self.most, self.largest, self.size = entries, most, largest, size
        self.values: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()
        #: The size of what is held.
        self.held = 0
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> V | None:
        found = self.values.get(key)
        if found is None:
            return None
        try:
            self.values.move_to_end(key)
        except KeyError:  # another thread dropped it meanwhile
            pass
        return found[0]

    def put(self, key: Hashable, value: V) -> None:
        size = self.size(value)
        if size > self.largest:
            return
        with self._lock:
            if key in self.values:
                return
            self.values[key] = (value, size)
            self.held += size
            while self.held > self.most or len(self.values) > self.entries:
                _, (_, dropped) = self.values.popitem(last=False)
                self.held -= dropped
