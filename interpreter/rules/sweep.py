"""Sweeps: the exact odds of one check or procedure at every point of a grid of inputs.

A designer balancing content asks how a power or a contest behaves across a range of stats:
``sweep(GAME, "Strike", vary={"skill": range(0, 6), "armour": [2, 3]}, inputs={...})``
computes each point exactly (the same ``Rules.odds`` a single computation runs, so every
figure equals its single computation) and spreads the points over worker processes, or,
given ``scheduler="tcp://host:8786"``, over the workers of a Dask distributed cluster (the
``dask`` extra: ``pip install 'runebook[dask]'``; each worker needs Runebook installed and
loads the game itself, so a game given as a folder must be at the same path there).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from fractions import Fraction
from itertools import islice, product
from math import prod
from typing import Any

import attrs

from runebook.dsl.diagnostics import Diagnostic, RunebookError
from runebook.dsl.folding import fold
from runebook.interpreter.core.distribution import Distribution
from runebook.interpreter.core.limits import DEFAULT_LIMITS, Limits
from runebook.interpreter.core.values import format_value
from runebook.interpreter.rules.model import load

__all__ = ["Sweep", "parse_vary", "sweep"]

#: Points of one sweep at most (each is a full exact computation).
MAX_POINTS = 10_000


@attrs.frozen
class Sweep:
    """A grid of exact results: ``axes`` name the varied inputs and their values, ``points``
    hold, for each combination of values (in the order of ``axes``), each result's
    distribution."""

    name: str
    axes: tuple[tuple[str, tuple[Any, ...]], ...]
    points: dict[tuple[Any, ...], dict[str, Distribution]]

    def rows(self) -> list[dict[str, Any]]:
        """One row per point: the varied values, then per result its mean (numbers) or the
        chance of each outcome (`result=outcome`), as exact fractions."""
        outcomes = self.outcomes()
        rows = []
        for key, results in self.points.items():
            row: dict[str, Any] = dict(zip((n for n, _ in self.axes), key))
            for result, dist in results.items():
                mean = dist.mean()
                if mean is not None:
                    row[f"{result} mean"] = mean
                else:
                    for outcome in outcomes[result]:
                        row[f"{result}={outcome}"] = sum((p for k, p in dist.items() if format_value(k) == outcome),
                                                         Fraction(0))
            rows.append(row)
        return rows

    def outcomes(self) -> dict[str, list[str]]:
        """Every outcome each result takes somewhere in the grid, in the order first seen."""
        found: dict[str, dict[str, None]] = {}
        for results in self.points.values():
            for result, dist in results.items():
                for outcome in dist:
                    found.setdefault(result, {}).setdefault(format_value(outcome), None)
        return {k: list(v) for k, v in found.items()}

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "axes": [{"input": n, "values": [format_value(v) for v in values]} for n, values in self.axes],
            "points": [{**{k: format_value(v) for k, v in row.items()}} for row in self.rows()],
        }


def parse_vary(text: str) -> tuple[str, tuple[Any, ...]]:
    """``skill=5..25`` (whole numbers, both ends in), ``skill=5..25..5`` (a step) or
    ``skill=5M,10,15W`` (values as `--with` takes them)."""
    name, sep, values = text.partition("=")
    name, values = name.strip(), values.strip()
    if not sep or not name or not values:
        raise RunebookError([Diagnostic.make("E0008", None, None, what="--vary value", value=text,
                                             help="write --vary NAME=LOW..HIGH, NAME=LOW..HIGH..STEP or NAME=A,B,C")])
    if ".." in values:
        parts = values.split("..")
        try:
            low, high, *rest = (int(p) for p in parts)
            step = rest[0] if rest else 1
        except ValueError:
            raise RunebookError([Diagnostic.make("E0008", None, None, what="--vary range", value=values,
                                                 help="whole numbers, as in 5..25 or 5..25..5")]) from None
        if step <= 0 or len(rest) > 1:
            raise RunebookError([Diagnostic.make("E0008", None, None, what="--vary step", value=values,
                                                 help="a step of at least 1, as in 5..25..5")])
        span = range(low, high + 1, step) if low <= high else range(low, high - 1, -step)
        if len(span) > MAX_POINTS:
            raise RunebookError([Diagnostic.make("E0901", None, None, what=f"a range of {len(span):,} values",
                                                 limit=f"{MAX_POINTS:,}")])
        return name, tuple(span)
    return name, tuple(v.strip() for v in values.split(",") if v.strip())


#: The rules of the sweep in progress, loaded once before the workers start (forked workers
#: inherit them; a Dask worker loads each game once, with the sweep's limits).
_LOADED: dict[tuple[str, Limits], Any] = {}

#: What the ``dask`` extra provides, and how to get it.
DASK_EXTRA = "pip install 'runebook[dask]'"

Job = tuple[str, str, dict[str, Any], dict[str, Any], Limits]
Found = dict[str, tuple[dict[Any, Fraction], Fraction]]


def _point(job: Job) -> Found:
    """One point, here or in a worker."""
    game, name, inputs, settings, limits = job
    rules = _LOADED.get((game, limits))
    if rules is None:
        rules = _LOADED[(game, limits)] = load(game, limits)
    odds = rules.odds(name, inputs, **settings)
    found = {result: (dict(dist.items()), dist.residual) for result, dist in odds.results.items()}
    # A result no run sets at this point is none here, so that every point has every column.
    found.update((result, ({None: Fraction(1)}, Fraction(0))) for result in getattr(odds, "never_set", ()))
    return found


def dask_client(scheduler: str) -> Any:
    """A client of the Dask scheduler at ``scheduler``; ImportError naming the extra when
    Dask is not installed, OSError when the scheduler cannot be reached."""
    try:
        from distributed import Client
    except ImportError as error:
        raise ImportError(f"a sweep on a Dask scheduler needs dask.distributed ({error.name} is missing); "
                          f"install it with: {DASK_EXTRA}", name=error.name) from None
    try:
        return Client(scheduler, timeout="10s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as error:
        raise OSError(f"cannot reach the Dask scheduler at {scheduler}: {error}") from None


def _on_dask(client: Any, jobs: list[Job], report: Callable[[Found], None]) -> None:
    """Every job on the cluster; ``report`` is told each result in the order of ``jobs``."""
    from distributed import as_completed

    # pure=False: two equal jobs of different sweeps are still computed (the games are
    # loaded by name, and a folder may have changed in between).
    futures = client.map(_point, jobs, pure=False)
    index = {future.key: i for i, future in enumerate(futures)}
    ready: dict[int, Found] = {}
    following = 0
    for future in as_completed(futures, loop=client.loop):
        ready[index[future.key]] = future.result()
        while following in ready:
            report(ready.pop(following))
            following += 1


def sweep(game: str, name: str, vary: Mapping[str, Iterable[Any]] | Sequence[tuple[str, Iterable[Any]]], *,
          inputs: Mapping[str, Any] | None = None, options: Mapping[str, str] | None = None,
          answers: Mapping[str, str] | None = None, as_: Any = None, against: Any = None,
          workers: int | None = None, progress: Callable[[int, int], None] | None = None,
          limits: Limits = DEFAULT_LIMITS, scheduler: str | None = None) -> Sweep:
    """Exact odds of ``name`` at every combination of the ``vary`` values (other inputs fixed
    by ``inputs``), on ``workers`` processes (default: every core; 1 runs here), or on the
    workers of the Dask scheduler at the address ``scheduler`` (then ``workers`` is not used)."""
    # Each axis is read only up to one value past the limit, and the points are counted before
    # any is made: `range(10**9)` (or an endless iterator) is refused, not held in memory.
    axes = tuple((n, tuple(islice(v, MAX_POINTS + 1))) for n, v in (vary.items() if isinstance(vary, Mapping) else vary))
    count = prod(len(values) for _, values in axes)
    if not axes or not count:
        raise RunebookError([Diagnostic.make("E0008", None, None, what="sweep", value=name,
                                             help="give at least one input to vary, with at least one value")])
    if count > MAX_POINTS:
        shown = f"{count:,}" if all(len(values) <= MAX_POINTS for _, values in axes) else f"more than {MAX_POINTS:,}"
        raise RunebookError([Diagnostic.make("E0901", None, None, what=f"a sweep of {shown} points",
                                             limit=f"{MAX_POINTS:,}")])
    keys = list(product(*(values for _, values in axes)))
    settings = {"options": dict(options or {}), "answers": dict(answers or {}), "as_": as_, "against": against}
    fixed = dict(inputs or {})
    both = next((n for n, _ in axes if fold(n) in {fold(k) for k in fixed}), None)
    if both is not None:
        # The varied values would silently replace the fixed one.
        raise RunebookError([Diagnostic.make("E0008", None, None, what="input", value=both,
                                             help=f"'{both}' is both varied and fixed: vary it (--vary) or give "
                                                  "it one value (--with), not both")])
    jobs: list[Job] = [(game, name, {**fixed, **dict(zip((n for n, _ in axes), key))}, settings, limits)
                       for key in keys]
    _LOADED.clear()
    _LOADED[(game, limits)] = load(game, limits)
    # Connected first: a missing extra or a wrong address fails before any point is computed.
    client = dask_client(scheduler) if scheduler is not None else None
    try:
        return _compute(name, axes, keys, jobs, workers, progress, client)
    finally:
        if client is not None:
            client.close()


def _compute(name: str, axes: tuple[tuple[str, tuple[Any, ...]], ...], keys: list[tuple[Any, ...]], jobs: list[Job],
             workers: int | None, progress: Callable[[int, int], None] | None, client: Any) -> Sweep:
    # The first point here: a mistake in the inputs shows once, at once, before any worker starts.
    results: list[Found] = [_point(jobs[0])]

    def report(found: Found) -> None:
        results.append(found)
        if progress is not None:
            progress(len(results), len(jobs))

    if progress is not None:
        progress(1, len(jobs))
    rest = jobs[1:]
    count = workers if workers is not None else (os.cpu_count() or 1)
    if client is not None:
        _on_dask(client, rest, report)
    elif count <= 1 or len(rest) <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        for found in map(_point, rest):
            report(found)
    else:
        # Forked workers inherit the loaded game; each point is independent of the others.
        with ProcessPoolExecutor(max_workers=count, mp_context=multiprocessing.get_context("fork")) as pool:
            for found in pool.map(_point, rest, chunksize=max(1, len(rest) // (count * 4))):
                report(found)
    # Each point's results in one order (a result no run sets at a point comes last there).
    order = list(dict.fromkeys(result for found in results for result in found))
    points = {key: {result: Distribution(*found[result]) for result in order}
              for key, found in zip(keys, results)}
    return Sweep(name, axes, points)
