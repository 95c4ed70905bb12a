"""Exact odds for a hover, computed within a time budget.

Exact odds of a whole procedure can take seconds. A hover must not: the work runs in a
forked child process that is killed when the budget is spent, and the hover says so. The
child inherits the loaded ruleset, so nothing is read or built twice.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import time
from collections.abc import Callable, Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

import yaml

from runebook.dsl.diagnostics import RunebookError

from runebook.interpreter.core.values import format_value

__all__ = ["BudgetedResult", "Pending", "chart", "odds_charts", "run_with_budget"]

#: Results shown in one hover at most (a procedure may have a dozen).
MAX_CHARTS = 4


class BudgetedResult(str):
    """Text computed in time, or the note saying it was not (``timed_out``)."""

    timed_out: bool = False


def _run_job(job: Callable[[], str]) -> str:
    try:
        return job()
    except RunebookError as error:
        first = error.diagnostics[0]
        return f"no odds: {first.message}" + (f" ({first.help})" if first.help else "")
    except Exception as error:  # noqa: BLE001 - a hover shows the problem instead of failing
        return f"no odds: {type(error).__name__}: {error}"


class Pending:
    """A job started in a forked child; :meth:`result` waits for it at most ``budget`` s.

    A bare ``os.fork``, not ``multiprocessing``: its child closes stdin first, which waits
    forever for the lock the server's reading thread held at the fork.
    """

    def __init__(self, job: Callable[[], str]) -> None:
        self.direct: str | None = None
        if not hasattr(os, "fork"):
            self.direct = _run_job(job)
            return
        self.reader, writer = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the child
            # stdout is the protocol's channel: never flush the parent's buffers into it.
            kept = (sys.stdout, sys.stderr)
            try:
                os.close(self.reader)
                sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - left to os._exit
                data = _run_job(job).encode("utf-8")
                while data:
                    data = data[os.write(writer, data):]
            finally:
                del kept
                os._exit(0)
        os.close(writer)

    def result(self, budget: float) -> BudgetedResult:
        if self.direct is not None:
            return BudgetedResult(self.direct)
        deadline = time.monotonic() + budget
        chunks: list[bytes] = []
        try:
            while True:
                left = deadline - time.monotonic()
                ready, _, _ = select.select([self.reader], [], [], max(0.0, left))
                if not ready:
                    late = BudgetedResult(f"odds not shown: too large to compute within {budget:g} s "
                                          "(run `runebook odds` for them)")
                    late.timed_out = True
                    return late
                chunk = os.read(self.reader, 65536)
                if not chunk:
                    break
                chunks.append(chunk)
            text = b"".join(chunks).decode("utf-8", errors="replace")
            return BudgetedResult(text or "no odds: the computation stopped")
        finally:
            os.close(self.reader)
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(self.pid, 0)


def run_with_budget(job: Callable[[], str], budget: float) -> BudgetedResult:
    """Run ``job`` in a forked child; its text, or a note when ``budget`` seconds passed.

    Fork from the main thread only (a child forked from a thread may inherit a lock another
    thread held); :class:`Pending` lets the caller wait elsewhere.
    """
    return Pending(job).result(budget)


#: Rows of one chart at most; the rest are summed on one line.
MAX_ROWS = 12


def _bar(p: Fraction, top: Fraction, width: int = 16) -> str:
    cells = float(p / top) * width if top else 0.0
    full, eighths = int(cells), int((cells - int(cells)) * 8)
    return "█" * full + (" ▏▎▍▌▋▊▉"[eighths] if eighths else "")


def chart(title: str, dist: Any) -> str:
    """A small text chart of one distribution for a hover: outcome, chance, exact, a bar."""
    items = list(dist.items())
    shown, rest = items[:MAX_ROWS], items[MAX_ROWS:]
    keys = [format_value(k) for k, _ in shown]
    exact = [format_value(p) for _, p in shown]
    key_width = max([len("outcome")] + [len(k) for k in keys])
    exact_width = max([len("exact")] + [len(e) for e in exact])
    top = max((p for _, p in items), default=Fraction(0))
    lines = [title, f"{'outcome':>{key_width}}  {'chance':>7}  {'exact':>{exact_width}}"]
    for (_, p), key, fraction in zip(shown, keys, exact):
        lines.append(f"{key:>{key_width}}  {float(p) * 100:>6.2f}%  {fraction:>{exact_width}}  {_bar(p, top)}".rstrip())
    if rest:
        lines.append(f"… {len(rest)} more outcomes, together {float(sum(p for _, p in rest)) * 100:.2f}%")
    lines.append(f"not listed: {float(dist.residual) * 100:.4g}%" if dist.residual else "exact")
    return "\n".join(lines)


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
