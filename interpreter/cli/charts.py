"""Distributions side by side, as text, CSV and an SVG bar chart (`runebook odds A B ...`).

Several expressions compared the way calculator users compare them: one row per outcome
any of them can give, one column of chances per expression, one bar per expression drawn
to one scale; for two of them, the chance that the first beats, ties or loses to the second.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from runebook.interpreter.cli.commands import EXIT_USAGE
from runebook.interpreter.core.distribution import Distribution
from runebook.interpreter.core.values import Bound, format_value, outcome_sort_key

__all__ = ["comparison_json", "comparison_text", "distributions_csv", "svg_chart", "sweep_csv", "sweep_svg",
           "sweep_text", "write_chart"]

#: How each expression's bar is drawn in text, in order (then again).
_MARKS = ("█", "▓", "▒", "░")
_ASCII_MARKS = ("#", "=", "+", ":")
#: Bar colours of the SVG chart, in order (then again).
_COLOURS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1")


def write_chart(chart: Sequence[str] | None, draw: Callable[[], str]) -> int | None:
    """``--chart svg FILE``: write what ``draw`` makes; a usage error's exit code when the
    format is not svg or the file cannot be written (said on stderr)."""
    if not chart:
        return None
    kind, path = chart
    if kind.casefold() != "svg":
        print(f"runebook: error: --chart makes svg charts, not {kind!r}: --chart svg FILE", file=sys.stderr)
        return EXIT_USAGE
    try:
        Path(path).write_text(draw(), encoding="utf-8")
    except OSError as error:
        print(f"runebook: error: cannot write '{path}': {error.strerror or error}", file=sys.stderr)
        return EXIT_USAGE
    return None


def _outcomes(dists: Sequence[Distribution]) -> list[Any]:
    seen: dict[Any, None] = {}
    for dist in dists:
        for outcome in dist:
            seen.setdefault(outcome, None)
    return sorted(seen, key=outcome_sort_key)


def _percent(p: Fraction) -> str:
    value = float(p) * 100
    if 0 < value < 0.01:
        return "<0.01%"
    return f"{value:.2f}%"


def _numeric(value: Any) -> bool:
    return type(value) in (int, Fraction) or isinstance(value, Bound)


def versus(first: Distribution, second: Distribution) -> tuple[Fraction, Fraction, Fraction] | None:
    """P(first > second), P(first == second), P(first < second) for independent numeric
    results; None when either has outcomes that do not order as numbers."""
    if not all(_numeric(k) and not isinstance(k, Bound) for d in (first, second) for k in d):
        return None
    wins = ties = losses = Fraction(0)
    for a, p in first.items():
        for b, q in second.items():
            if a > b:
                wins += p * q
            elif a == b:
                ties += p * q
            else:
                losses += p * q
    return wins, ties, losses


def comparison_text(expressions: Sequence[str], dists: Sequence[Distribution], *, unicode: bool = True,
                    width: int = 30) -> str:
    marks = _MARKS if unicode else _ASCII_MARKS
    outcomes = _outcomes(dists)
    keys = [format_value(o) for o in outcomes]
    key_width = max([len("outcome")] + [len(k) for k in keys])
    columns = [max(8, len(e)) for e in expressions]
    top = max((d.get(o, Fraction(0)) for d in dists for o in outcomes), default=Fraction(0))
    lines = ["  ".join(f"{marks[i % len(marks)]} {e}" for i, e in enumerate(expressions))]
    lines.append(f"{'outcome':>{key_width}}  " + "  ".join(f"{e:>{w}}" for e, w in zip(expressions, columns)))
    for outcome, key in zip(outcomes, keys):
        chances = [d.get(outcome, Fraction(0)) for d in dists]
        row = f"{key:>{key_width}}  " + "  ".join(f"{_percent(p):>{w}}" for p, w in zip(chances, columns))
        bars = []
        for index, p in enumerate(chances):
            cells = round(float(p / top) * width) if top else 0
            bars.append(marks[index % len(marks)] * cells)
        # Each expression's bar in a column of its own, so the bars of a row line up to compare.
        lines.append((row + "  " + " ".join(b.ljust(width) for b in bars)).rstrip())
    means = []
    for expression, dist in zip(expressions, dists):
        mean = dist.mean()
        if mean is not None:
            means.append(f"{expression} {float(mean):.4g}")
    if means:
        lines.append("mean: " + ", ".join(means))
    if len(dists) == 2:
        odds = versus(dists[0], dists[1])
        if odds is not None:
            wins, ties, losses = odds
            lines.append(f"{expressions[0]} > {expressions[1]}: {_percent(wins)} ({format_value(wins)}); "
                         f"equal: {_percent(ties)}; less: {_percent(losses)}")
    if any(d.residual for d in dists):
        lines.append("not every outcome is listed (see --format json for what is left out)")
    return "\n".join(lines) + "\n"


def comparison_json(expressions: Sequence[str], dists: Sequence[Distribution]) -> str:
    data: dict[str, Any] = {"expressions": []}
    for expression, dist in zip(expressions, dists):
        mean = dist.mean()
        data["expressions"].append({
            "expression": expression,
            "distribution": {format_value(k): format_value(p) for k, p in dist.items()},
            "residual": format_value(dist.residual),
            "mean": None if mean is None else format_value(mean),
        })
    if len(dists) == 2:
        odds = versus(dists[0], dists[1])
        if odds is not None:
            data["first_greater"], data["equal"], data["first_less"] = (format_value(p) for p in odds)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def distributions_csv(expressions: Sequence[str], dists: Sequence[Distribution]) -> str:
    """One row per outcome: the outcome, then each expression's exact chance (a fraction) and
    its chance as a decimal — what a spreadsheet plots."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    header = ["outcome"]
    for expression in expressions:
        header += [f"{expression} exact", f"{expression} chance"]
    writer.writerow(header)
    for outcome in _outcomes(dists):
        row = [format_value(outcome)]
        for dist in dists:
            p = dist.get(outcome, Fraction(0))
            row += [format_value(p), f"{float(p):.10g}"]
        writer.writerow(row)
    return out.getvalue()


def svg_chart(expressions: Sequence[str], dists: Sequence[Distribution], *, title: str | None = None) -> str:
    """A grouped bar chart: one group per outcome, one bar per expression, chance on the y axis."""
    outcomes = _outcomes(dists)
    top = max((d.get(o, Fraction(0)) for d in dists for o in outcomes), default=Fraction(1)) or Fraction(1)
    n = max(len(dists), 1)
    bar, gap = 12, 8
    group = n * bar + gap
    left, right, upper, lower, height = 56, 16, 56 + 18 * n, 40, 240
    width = left + right + max(len(outcomes), 1) * group
    total_height = upper + height + lower
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{total_height}" '
             f'viewBox="0 0 {width} {total_height}" font-family="sans-serif" font-size="11">',
             f'<rect width="{width}" height="{total_height}" fill="white"/>']
    heading = title or " vs ".join(expressions)
    parts.append(f'<text x="{left}" y="20" font-size="14">{escape(heading)}</text>')
    for index, expression in enumerate(expressions):
        y = 38 + 18 * index
        colour = _COLOURS[index % len(_COLOURS)]
        parts.append(f'<rect x="{left}" y="{y - 10}" width="12" height="12" fill="{colour}"/>')
        parts.append(f'<text x="{left + 18}" y="{y}">{escape(expression)}</text>')
    base = upper + height
    for step in range(5):
        share = top * step / 4
        y = base - height * step / 4
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{width - right}" y2="{y:.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{float(share) * 100:.0f}%</text>')
    for slot, outcome in enumerate(outcomes):
        x0 = left + slot * group + gap / 2
        for index, dist in enumerate(dists):
            p = dist.get(outcome, Fraction(0))
            h = height * float(p / top)
            colour = _COLOURS[index % len(_COLOURS)]
            parts.append(f'<rect x="{x0 + index * bar:.1f}" y="{base - h:.1f}" width="{bar - 1}" height="{h:.1f}" '
                         f'fill="{colour}"><title>{escape(expressions[index])}: {escape(format_value(outcome))} '
                         f'{_percent(p)} ({format_value(p)})</title></rect>')
        parts.append(f'<text x="{x0 + n * bar / 2:.1f}" y="{base + 14}" text-anchor="middle">'
                     f'{escape(format_value(outcome))}</text>')
    parts.append(f'<line x1="{left}" y1="{base}" x2="{width - right}" y2="{base}" stroke="#333"/>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


# ---------------------------------------------------------------- sweeps


def _columns(sweep: Any, result: str | None) -> list[str]:
    """The columns of one result (the first, unless named) of a sweep's rows."""
    rows = sweep.rows()
    varied = {n for n, _ in sweep.axes}
    names = [c for c in rows[0] if c not in varied]
    chosen = result if result is not None else next(iter(next(iter(sweep.points.values()))))
    return [c for c in names if c == f"{chosen} mean" or c.startswith(f"{chosen}=")]


def _cell(value: Any, column: str) -> str:
    if column.endswith(" mean"):
        return f"{float(value):.3f}"
    return _percent(value)


def sweep_text(sweep: Any, result: str | None = None) -> str:
    """A table: one row per point, the varied inputs then the chosen result's columns."""
    columns = _columns(sweep, result)
    varied = [n for n, _ in sweep.axes]
    header = varied + columns
    rows = [[format_value(row[n]) for n in varied] + [_cell(row[c], c) for c in columns] for row in sweep.rows()]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    lines = [f"{sweep.name}: " + ", ".join(f"{n} {format_value(v[0])}..{format_value(v[-1])}" for n, v in sweep.axes)]
    lines.append("  ".join(h.rjust(w) for h, w in zip(header, widths)))
    lines.extend("  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in rows)
    return "\n".join(lines) + "\n"


def sweep_csv(sweep: Any) -> str:
    """Every column of every point, exact (fractions), for a spreadsheet."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    rows = sweep.rows()
    writer.writerow(list(rows[0]))
    for row in rows:
        writer.writerow([format_value(v) for v in row.values()])
    return out.getvalue()


def sweep_svg(sweep: Any, result: str | None = None) -> str:
    """One varied input: a line per column of the chosen result. Two or more: a heat map of
    its first column over the first two inputs (the others at their first value)."""
    columns = _columns(sweep, result)
    rows = sweep.rows()
    (first, xs), *rest = sweep.axes
    if not rest:
        return _line_chart(sweep.name, first, xs, columns, rows)
    second, ys = rest[0]
    others = {n: v[0] for n, v in rest[1:]}
    column = columns[0]
    grid = {(row[first], row[second]): row[column] for row in rows
            if all(row[n] == v for n, v in others.items())}
    return _heat_map(f"{sweep.name}: {column}", first, xs, second, ys, grid, column)


def _scale(values: list[float]) -> tuple[float, float]:
    low, high = min(values), max(values)
    return (low, high) if high > low else (low - 1, high + 1)


def _line_chart(title: str, axis: str, xs: Sequence[Any], columns: list[str], rows: list[dict[str, Any]]) -> str:
    left, top, width, height = 64, 40 + 16 * len(columns), 480, 240
    total_w, total_h = left + width + 24, top + height + 48
    values = [float(row[c]) for row in rows for c in columns]
    low, high = _scale(values) if any(c.endswith(" mean") for c in columns) else (0.0, 1.0)
    step = width / max(len(xs) - 1, 1)

    def y_of(v: float) -> float:
        return top + height - (v - low) / (high - low) * height

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w}" height="{total_h}" font-family="sans-serif" '
             f'font-size="11">', f'<rect width="{total_w}" height="{total_h}" fill="white"/>',
             f'<text x="{left}" y="20" font-size="14">{escape(title)} by {escape(axis)}</text>']
    for i, column in enumerate(columns):
        colour = _COLOURS[i % len(_COLOURS)]
        parts.append(f'<rect x="{left}" y="{28 + 16 * i}" width="10" height="10" fill="{colour}"/>')
        parts.append(f'<text x="{left + 16}" y="{37 + 16 * i}">{escape(column)}</text>')
        points = " ".join(f"{left + j * step:.1f},{y_of(float(row[column])):.1f}" for j, row in enumerate(rows))
        parts.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"/>')
    for j, x in enumerate(xs):
        if len(xs) <= 25 or j % max(1, len(xs) // 20) == 0:
            parts.append(f'<text x="{left + j * step:.1f}" y="{top + height + 16}" text-anchor="middle">'
                         f'{escape(format_value(x))}</text>')
    for k in range(5):
        v = low + (high - low) * k / 4
        label = f"{v:.2f}" if high - low < 10 else f"{v:.0f}"
        if low == 0.0 and high == 1.0:
            label = f"{v * 100:.0f}%"
        parts.append(f'<text x="{left - 6}" y="{y_of(v) + 4:.1f}" text-anchor="end">{label}</text>')
        parts.append(f'<line x1="{left}" y1="{y_of(v):.1f}" x2="{left + width}" y2="{y_of(v):.1f}" stroke="#eee"/>')
    parts.append(f'<text x="{left + width / 2}" y="{top + height + 36}" text-anchor="middle">{escape(axis)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _heat_map(title: str, x_axis: str, xs: Sequence[Any], y_axis: str, ys: Sequence[Any],
              grid: Mapping[tuple[Any, Any], Any], column: str) -> str:
    cell, left, top = 28, 72, 48
    total_w, total_h = left + cell * len(xs) + 24, top + cell * len(ys) + 48
    values = [float(v) for v in grid.values()]
    low, high = _scale(values) if column.endswith(" mean") else (0.0, 1.0)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w}" height="{total_h}" font-family="sans-serif" '
             f'font-size="10">', f'<rect width="{total_w}" height="{total_h}" fill="white"/>',
             f'<text x="{left}" y="20" font-size="14">{escape(title)}</text>']
    for j, y in enumerate(ys):
        parts.append(f'<text x="{left - 6}" y="{top + j * cell + cell / 2 + 4}" text-anchor="end">'
                     f'{escape(format_value(y))}</text>')
        for i, x in enumerate(xs):
            value = grid.get((x, y))
            if value is None:
                continue
            share = (float(value) - low) / (high - low)
            shade = int(255 - share * 200)
            shown = _cell(value, column)
            parts.append(f'<rect x="{left + i * cell}" y="{top + j * cell}" width="{cell - 1}" height="{cell - 1}" '
                         f'fill="rgb({shade},{shade},255)"><title>{escape(x_axis)} {escape(format_value(x))}, '
                         f'{escape(y_axis)} {escape(format_value(y))}: {shown}</title></rect>')
    for i, x in enumerate(xs):
        parts.append(f'<text x="{left + i * cell + cell / 2}" y="{top + cell * len(ys) + 14}" text-anchor="middle">'
                     f'{escape(format_value(x))}</text>')
    parts.append(f'<text x="{left + cell * len(xs) / 2}" y="{top + cell * len(ys) + 32}" text-anchor="middle">'
                 f'{escape(x_axis)} (rows: {escape(y_axis)})</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
