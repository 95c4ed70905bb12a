"""What several Mezzo test files compute independently of the ruleset: the book's dice."""

from __future__ import annotations

#: The die sizes of the step ladder, smallest first (spec §3.2).
LADDER = [4, 6, 8, 10, 12]


def book_pool(votes: int) -> list[int]:
    """§3.2: a d12 per five votes, then the die of what is left; no votes, no dice (A2)."""
    v = max(votes, 0)
    return [12] * (v // 5) + ([LADDER[v % 5 - 1]] if v % 5 else [])
