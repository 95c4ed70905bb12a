"""The text trace is for a reader at the table: a name looked up again with the same value,
a name that is its own value, and a test repeated by the condition line after it are left
out — the JSON trace keeps every event."""

from __future__ import annotations

from runebook.interpreter.core.render import trace_text
from runebook.interpreter.core.trace import StepEvent, Trace
from runebook.interpreter.core.values import Level


def test_repeated_lookups_and_self_named_levels_are_left_out() -> None:
    high = Level("Grade", "High", 3)
    trace = Trace([
        StepEvent("name", "actor", "Ada"),
        StepEvent("name", "pool", 3),
        StepEvent("name", "actor", "Ada"),      # same value again: left out
        StepEvent("name", "High", high),        # a level named by itself: left out
        StepEvent("name", "pool", 4),           # a new value: shown
        StepEvent("op", "pool >= 4", True),     # the condition below repeats it: left out
        StepEvent("condition", "pool >= 4", True),
        StepEvent("op", "pool + 1", 5),
    ])
    assert trace_text(trace) == [
        "  actor = Ada",
        "  pool = 3",
        "  pool = 4",
        "  pool >= 4 -> true",
        "  pool + 1 = 5",
    ]
    assert len(trace.to_list()) == 8
