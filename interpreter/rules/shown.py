"""Values a ruleset marks as worth showing: ``show NAME = expression`` in a check or procedure.

A ``show`` line binds its name like ``let`` and records the value in the run's trace (an event
of kind ``shown``); ``resolve`` and ``run`` report those values beside the results (JSON:
``shown``), so a GM sees a bonus or a resistance the rules compute on the way. Exact odds run
without a trace, so a shown value costs them nothing and is not one of their results.
"""

from __future__ import annotations

from typing import Any

from runebook.dsl import ast
from runebook.dsl.source import Source
from runebook.interpreter.core.trace import StepEvent, Trace
from runebook.interpreter.core.values import json_value

__all__ = ["run_show", "shown_values"]


def run_show(rules: Any, ctx: Any, statement: ast.ShowLine, source: Source, env: Any, index: int = 0,
             owner: str = "") -> Any:
    """``show NAME = expression``: as ``let``, and the value kept for the report."""
    value = rules.run_let(ctx, statement, source, env, index, owner)
    if ctx.trace is not None:
        ctx.trace.append(StepEvent("shown", statement.name, json_value(ctx.result(value)), statement.span,
                                   source.name))
    return value


def shown_values(trace: Trace | None) -> dict[str, Any]:
    """The values ``show`` lines gave in a run, by name (the last one when a line ran again)."""
    if trace is None:
        return {}
    return {e.text: e.value for e in trace if isinstance(e, StepEvent) and e.kind == "shown"}
