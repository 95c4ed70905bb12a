"""Exact odds for a hover, computed within a time budget.

Exact odds of a whole procedure can take seconds. A hover must not: the work runs in a
forked child process that is killed when the budget is spent, and the hover says so. The
child inherits the loaded ruleset, so nothing is read or built twice.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import yaml

from dsl.diagnostics import RunebookError
from interpreter.cli.render import distribution_text

__all__ = ["BudgetedResult", "chart", "odds_charts", "run_with_budget"]

#: Results shown in one hover at most (a procedure may have a dozen).
MAX_CHARTS = 4


class BudgetedResult(str):
    """Text computed in time, or the note saying it was not (``timed_out``)."""

    timed_out: bool = False


def _child(job: Callable[[], str], writer: Any) -> None:
    # stdout is the protocol's channel: the child must never flush the parent's buffers
    # into it, so it keeps them referenced, writes nowhere, and leaves with os._exit.
    kept = (sys.stdout, sys.stderr)
    sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - left to os._exit
    try:
        text = job()
    except RunebookError as error:
        first = error.diagnostics[0]
        text = f"no odds: {first.message}" + (f" ({first.help})" if first.help else "")
    except Exception as error:  # noqa: BLE001 - a hover shows the problem instead of failing
        text = f"no odds: {type(error).__name__}: {error}"
    try:
        writer.send(text)
    finally:
        del kept
        os._exit(0)


def run_with_budget(job: Callable[[], str], budget: float) -> BudgetedResult:
    """Run ``job`` in a forked child; its text, or a note when ``budget`` seconds passed."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return BudgetedResult(job())
    context = multiprocessing.get_context("fork")
    reader, writer = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(job, writer), daemon=True)
    started = time.monotonic()
    process.start()
    writer.close()
    try:
        if reader.poll(budget):
            return BudgetedResult(reader.recv())
        late = BudgetedResult(f"odds not shown: too large to compute within {budget:g} s "
                              "(run `runebook odds` for them)")
        late.timed_out = True
        return late
    except EOFError:
        return BudgetedResult("no odds: the computation stopped")
    finally:
        if process.is_alive():
            process.kill()
        process.join(max(0.0, 0.5 - (time.monotonic() - started)))
        reader.close()


def chart(title: str, dist: Any) -> str:
    """A small text chart of one distribution (the one `runebook odds` prints, narrower)."""
    return distribution_text(title, dist, width=20).rstrip("\n")


def odds_charts(odds: Any, only: str | None = None) -> str:
    """Charts of a check's (or procedure's) named results: those that vary, at most
    :data:`MAX_CHARTS`, ``only`` first when given."""
    results: Mapping[str, Any] = odds.results
    names = list(results)
    if only is not None and only in results:
        names.remove(only)
        names.insert(0, only)
    shown = [n for n in names if len(results[n]) > 1 or n == only][:MAX_CHARTS] or names[:1]
    return "\n\n".join(chart(f"{odds.check}: {n}", results[n]) for n in shown)


def blank_entity(rules: Any, owned: str | None, folder: Path) -> Any:
    """An entity with every stat at 0 that owns the entry ``owned``: who acts when the
    editor names no character. Written as a YAML file, the one way entities are read."""
    vocabulary = rules.ruleset.vocabulary
    data = {"name": "Anyone", "stats": {name: 0 for name in vocabulary.stats.values()}}
    if owned is not None:
        data["owned"] = [owned]
    path = folder / "anyone.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return rules.entities(str(path))[0]
