"""Renderers: traces, results and distributions as text for people and JSON for programs.

Evaluation never formats anything; these functions read :class:`~interpreter.core.trace.Trace`
values and distributions. The command line prints what they make, and the results an embedder
holds (a roll, a resolved check, a run, odds) give the same text from their ``text()``.
A distribution is read through its public methods only (``items``, ``mean``, ``residual``,
``note``, ``to_dict``): :mod:`interpreter.core.distribution` imports this module for its own
``text()``.
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

from runebook.interpreter.core.trace import DieRoll, RollEvent, StepEvent, Trace
from runebook.interpreter.core.values import Bound, format_value

__all__ = [
    "distribution_json",
    "distribution_text",
    "odds_text",
    "result_text",
    "roll_json",
    "roll_text",
    "trace_text",
]

#: How much of a trace the text shows (``--trace``).
LEVELS = ("full", "brief", "none")

#: Marks on dice in text traces (shown in a legend when used).
LEGEND = {
    "dropped": "(n) dropped",
    "rerolled": "~n~ rerolled",
    "added": "+n added to the die it compounds",
    "exploded": "n! exploded",
    "success": "n* counted",
    "failure": "n- failure",
    "value": "n->v counts as v",
    "critical": "n^ critical success, n_ critical failure",
}


def _die_text(die: DieRoll, used: set[str]) -> str:
    text = format_value(die.face)
    # A compounding die's value is its chain's total, shown by the `+n` dice after it.
    if die.value != die.face and die.fate != "added" and (die.cause == "explosion" or not die.exploded):
        text += f"->{format_value(die.value)}"
        used.add("value")
    if die.crit is not None:
        text += "^" if die.crit == "success" else "_"
        used.add("critical")
    if die.exploded:
        text += "!"
        used.add("exploded")
    if die.counts > 0:
        text += "*" * die.counts
        used.add("success")
    elif die.counts < 0:
        text += "-"
        used.add("failure")
    if die.fate == "dropped":
        used.add("dropped")
        return f"({text})"
    if die.fate == "rerolled":
        used.add("rerolled")
        return f"~{text}~"
    if die.fate == "added":
        used.add("added")
        return f"+{text}"
    return text


def _short(text: str, width: int = 72) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


#: What ``--trace brief`` keeps besides the dice: choices, uses of procedures, changes of state.
BRIEF = frozenset({"choice", "use", "state"})


def trace_text(trace: Trace, level: str = "full") -> list[str]:
    """One line per event; dice marked as in :data:`LEGEND`, then the legend. ``brief`` keeps
    the dice rolled, the choices and the changes of state; ``none`` nothing."""
    if level not in LEVELS:
        raise ValueError(f"a trace's level is one of {', '.join(LEVELS)}, not {level!r}")
    if level == "none":
        return []
    lines = []
    used: set[str] = set()
    # A name looked up again with the same value, or a name that is its own value (a level,
    # an option's choice), adds nothing for a reader; the JSON trace keeps every event.
    known: set[tuple[str, str]] = set()
    events = list(trace)
    if level == "brief":
        events = [e for e in events if isinstance(e, RollEvent) or (isinstance(e, StepEvent) and e.kind in BRIEF)]
    for index, event in enumerate(events):
        following = events[index + 1] if index + 1 < len(events) else None
        if (isinstance(event, StepEvent) and event.kind == "op" and isinstance(following, StepEvent)
                and following.kind == "condition" and following.text == event.text):
            continue  # the condition line that follows shows the same test and its verdict
        if isinstance(event, StepEvent) and event.kind == "name":
            shown_name = format_value(event.value)
            if shown_name == event.text or (event.text, shown_name) in known:
                continue
            known.add((event.text, shown_name))
        if isinstance(event, RollEvent):
            faces = " ".join(_die_text(d, used) for d in event.dice) or "no dice"
            if event.order is not None:
                faces += " (sorted: " + " ".join(map(format_value, event.order)) + ")"
            lines.append(f"  {_short(event.text)}: {faces} = {format_value(event.value)}")
        elif isinstance(event, StepEvent) and event.kind == "step":
            lines.append(f"  -- step {event.text}")
        elif isinstance(event, StepEvent) and event.kind == "use":
            lines.append(f"  -- do {event.text}")
        elif isinstance(event, StepEvent) and event.kind == "choice":
            lines.append(f"  >> choose {event.text}: {format_value(event.value)}")
        elif isinstance(event, StepEvent):
            value = event.value
            shown = "[" + ", ".join(map(format_value, value)) + "]" if isinstance(value, tuple | list) else \
                format_value(value)
            arrow = "->" if event.kind == "condition" else "="
            lines.append(f"  {_short(event.text)} {arrow} {shown}")
    if used:
        lines.append("  " + ", ".join(LEGEND[k] for k in LEGEND if k in used))
    return lines


def roll_text(result: Any, level: str = "full") -> str:
    lines = [result.expression]
    lines.extend(trace_text(result.trace, level))
    lines.append(f"total: {format_value(result.total)}")
    return "\n".join(lines) + "\n"


def result_text(title: str, result: Any, level: str = "full") -> str:
    """A resolved check or a finished run as the command line prints it: the title, the
    trace (at ``level``), each result, then the values its ``show`` lines gave."""
    lines = [title, *trace_text(result.trace, level)]
    lines.extend(f"{name}: {format_value(value)}" for name, value in result.results.items())
    lines.extend(f"shown {name}: {format_value(value)}" for name, value in getattr(result, "shown", {}).items())
    return "\n".join(lines) + "\n"


def odds_text(title: str, results: Any, *, unicode: bool = True) -> str:
    """The exact odds of each named result (a mapping name -> distribution), one table each
    titled ``TITLE: NAME``, with a blank line after each as the command line prints them."""
    return "".join(distribution_text(f"{title}: {name}", dist, unicode=unicode) + "\n"
                   for name, dist in results.items())


def roll_json(result: Any) -> str:
    return json.dumps(result.to_dict(), indent=2, ensure_ascii=False) + "\n"


def _percent(p: Fraction | float) -> str:
    value = float(p) * 100
    if 0 < value < 0.01:
        return "<0.01%"
    if 99.99 < value < 100:
        return ">99.99%"
    return f"{value:.2f}%"


def _bar(p: Fraction, top: Fraction, width: int, unicode: bool) -> str:
    if top == 0:
        return ""
    # One correctly rounded division of whole numbers: float(p / top) without its gcds.
    cells = (p.numerator * top.denominator) / (p.denominator * top.numerator) * width
    if not unicode:
        return "#" * round(cells)
    full = int(cells)
    eighths = int((cells - full) * 8)
    partial = " ▏▎▍▌▋▊▉"[eighths] if eighths else ""
    return ("█" * full + partial).rstrip()


def _collapse_tail(items: list[tuple[Any, Fraction]], below: Fraction = Fraction(1, 20000)) -> list[tuple[Any, Fraction]]:
    """Fold the last rows, together less likely than 0.005%, into one ``n+`` row."""
    tail = Fraction(0)
    cut = len(items)
    while cut > 2 and tail + items[cut - 1][1] < below:
        cut -= 1
        tail += items[cut][1]
    if len(items) - cut < 2:
        return items
    first = items[cut][0]
    low = first.low if isinstance(first, Bound) else first
    return items[:cut] + [(Bound(low), tail)]


def distribution_text(expression: str, dist: Any, *, unicode: bool = True, width: int = 40) -> str:
    """A table people read at a glance: outcome, chance, chance of at least it, a bar."""
    items = list(dist.items())
    numeric = all(type(k) in (int, Fraction) or isinstance(k, Bound) for k, _ in items)
    collapsed = None
    if numeric:
        shown = _collapse_tail(items, Fraction(1, 1000) if len(items) > 30 else Fraction(1, 20000))
        if len(shown) < len(items):
            collapsed = format_value(shown[-1][0])
        items = shown
    # A denominator of twelve digits or more is never shown, and writing a long one in
    # decimal costs time quadratic in its length (the highest of 10000d100: 20,000 digits).
    show_exact = all(p.denominator < 10**12 for _, p in items)
    fractions = [format_value(p) for _, p in items] if show_exact else [""] * len(items)
    show_exact = show_exact and all(len(f) <= 13 for f in fractions)
    keys = [format_value(k) for k, _ in items]
    key_width = max([len("outcome")] + [len(k) for k in keys])
    exact_width = max([len("exact")] + [len(f) for f in fractions]) if show_exact else 0
    top = max((p for _, p in items), default=Fraction(0))
    header = f"{'outcome':>{key_width}}  {'chance':>8}"
    if numeric:
        header += f"  {'at least':>8}"
    if show_exact:
        header += f"  {'exact':>{exact_width}}"
    lines = [expression, header] if expression else [header]
    # The chances at least each outcome, as whole numbers over one denominator when the
    # probabilities share one: a Fraction's sum costs a gcd, quadratic in its length.
    common = max((p.denominator for _, p in items), default=1)
    if all(common % p.denominator == 0 for _, p in items):
        whole = [p.numerator * (common // p.denominator) for _, p in items]
        left = sum(whole)
        at_least: list[float | Fraction] = []
        for part in whole:
            at_least.append(left / common)  # correctly rounded, as float(Fraction(left, common))
            left -= part
    else:
        remaining = sum((p for _, p in items), Fraction(0))
        at_least = []
        for _, p in items:
            at_least.append(remaining)
            remaining -= p
    for (outcome, p), key, fraction, least in zip(items, keys, fractions, at_least):
        row = f"{key:>{key_width}}  {_percent(p):>8}"
        if numeric:
            row += f"  {_percent(least):>8}"
        if show_exact:
            row += f"  {fraction:>{exact_width}}"
        row += "  " + _bar(p, top, width, unicode)
        lines.append(row.rstrip())
    mean = dist.mean()
    if mean is not None:
        exact = "" if mean.denominator == 1 else f" (exactly {format_value(mean)})"
        lines.append(f"mean {float(mean):.4g}{exact}")
    notes = []
    if dist.residual:
        notes.append(f"not listed: {_percent(dist.residual)} ({dist.note or 'truncated'})")
    else:
        notes.append("exact")
    if collapsed:
        notes.append(f"'{collapsed}' is every result from {collapsed[:-1]} up (--json lists them)")
    elif any(isinstance(k, Bound) for k in dist):
        tail = next(format_value(k) for k in dist if isinstance(k, Bound))
        notes.append(f"'{tail}' is every result from {tail[:-1]} up")
    lines.append("; ".join(notes))
    return "\n".join(lines) + "\n"


def distribution_json(expression: str, dist: Any) -> str:
    return json.dumps({"expression": expression, **dist.to_dict()}, indent=2, ensure_ascii=False) + "\n"
