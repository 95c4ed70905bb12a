"""Bounds on evaluation, injected into every evaluation and distribution.

Every limit is checked before the work it bounds is done, and exceeding one is a
diagnostic (never a hang, a crash or a silently wrong answer).
"""

from __future__ import annotations

from typing import Any

import attrs

from runebook.dsl.diagnostics import Diagnostic, RunebookError

__all__ = ["DEFAULT_LIMITS", "LIMIT_CODES", "Limits", "WorldForecast", "check_digits", "limit_error", "parse_limit"]


#: The largest value a limit takes (``--limit`` reads at most twelve digits).
MOST = 999_999_999_999
#: The limits that may be 0 (no explosion at all); every other is at least 1.
_MAY_BE_ZERO = frozenset({"max_explosion_depth"})


def _least(name: str) -> int:
    return 0 if name in _MAY_BE_ZERO else 1


def _bound(instance: Any, attribute: Any, value: Any) -> None:
    """A limit is a whole number from 1 (0 for an explosion's depth) to :data:`MOST`: an
    embedder's ``Limits(max_states=-1)`` or ``max_work="5"`` is refused where it is made, not
    by a comparison deep in a computation."""
    least = _least(attribute.name)
    if type(value) is not int or not least <= value <= MOST:
        raise ValueError(f"limit {attribute.name} needs a whole number (an int) from {least} to {MOST:,}, "
                         f"not {value!r}")


@attrs.frozen(cache_hash=True, field_transformer=lambda cls, fields: [f.evolve(validator=_bound) for f in fields])
class Limits:
    """Configurable bounds; pass ``attrs.evolve(DEFAULT_LIMITS, ...)`` to change some (each a
    whole number from 1 (``max_explosion_depth``: 0) to 999,999,999,999, else ``ValueError``)."""

    #: Dice rolled by one evaluation (explosions and rerolls included), and dice in one pool.
    max_dice: int = 10_000
    #: Faces of one die (``d1000000`` is fine, ``d10000000000`` is not).
    max_sides: int = 1_000_000
    #: Explosions one die may chain. Rolling deeper is an error; exact odds truncate there
    #: and report what lies beyond as a tail (``21+``) or a residual.
    max_explosion_depth: int = 20
    #: Nesting of an expression and of calls of functions defined in rules.
    max_depth: int = 200
    #: Distinct states or outcomes a distribution may hold.
    max_support: int = 200_000
    #: Steps of the exact-odds computation: pool states combined (a step on weights of
    #: thousands of bits counts more), and worlds evaluated (a world counts its making, a
    #: step per outcome, 20 per choice it makes again and one per node of each list item
    #: and function body it evaluates). Each counts at least what it costs, at two steps a
    #: µs, so a refusal comes within about a second (tests/test_hostile_odds_limits.py).
    max_work: int = 2_000_000
    #: Lines a procedure may run (loops included) before it is stopped.
    max_steps: int = 10_000
    #: Items of one collection: a list made by the rules, or one a `for each` walks.
    max_collection: int = 1_000
    #: States of a procedure's chain (places at a ``step`` line with the values and the
    #: entities' state there) that exact odds may explore before giving up: 400 to 700 a
    #: second with their segments run (benchmarks/bench_procedures.py), so about 10 s of work.
    #: Counted as states are found (every one found is explored), a state counting one more
    #: for every 4 items of the new lists and records it holds (a list of every round's damage
    #: is new in each state; interpreter/markov/chains.py).
    max_states: int = 10_000
    #: Runs of a procedure's segments that exact odds may make (one per state and outcome of
    #: its dice): 5,000 to 20,000 a second.
    max_worlds: int = 100_000
    #: Calls of functions defined in rules during one evaluation (``fib(25)`` makes 250,000).
    max_calls: int = 20_000
    #: Digits of a number a computation makes (a product, a quotient's parts).
    max_digits: int = 1_000
    #: Items the lists made with ``for`` (``[x * 2 for x in xs]``) walk in one evaluation, the
    #: items of a list made in another's items all counted (about 10 µs each).
    max_iterations: int = 100_000


DEFAULT_LIMITS = Limits()

#: The diagnostic code that names each limit when it is exceeded.
LIMIT_CODES = {"max_worlds": "E0904", "max_calls": "E0902", "max_digits": "E0903", "max_work": "E0904", "max_support": "E0905",
               "max_iterations": "E0904"}


def limit_error(name: str, limits: Limits, site: Any, what: str) -> RunebookError:
    """The refusal for exceeding limit ``name``: its own code, the limit's name and value."""
    source, span = site if site is not None else (None, None)
    value = getattr(limits, name)
    return RunebookError([Diagnostic.make(LIMIT_CODES[name], source, span, what=what, name=name, limit=f"{value:,}",
                                          help=f"raise it with --limit {name}=N if this is intended")])


def check_digits(value: Any, limits: Limits, site: Any) -> Any:
    """``value`` itself, or a refusal when an int (or a fraction's part) has too many digits.

    Measured in bits (3.33 bits a digit), so no decimal conversion is ever made.
    """
    most = limits.max_digits * 3322 // 1000 + 1
    if type(value) is int:
        if value.bit_length() > most:
            raise limit_error("max_digits", limits, site, f"a number of more than {limits.max_digits:,} digits")
    elif hasattr(value, "denominator") and hasattr(value, "numerator"):
        if value.numerator.bit_length() > most or value.denominator.bit_length() > most:
            raise limit_error("max_digits", limits, site, f"a fraction of more than {limits.max_digits:,} digits")
    return value


def parse_limit(text: str, limits: Limits) -> Limits:
    """``limits`` with one ``NAME=VALUE`` (``--limit max_work=10000000``) applied; ValueError if bad."""
    name, sep, raw = text.partition("=")
    name = name.strip().replace("-", "_")
    if not name.startswith("max_"):
        name = "max_" + name
    fields = {f.name for f in attrs.fields(Limits)}
    if not sep or name not in fields:
        raise ValueError(f"unknown limit '{text.partition('=')[0]}'; limits: {', '.join(sorted(fields))}")
    raw = raw.strip().replace("_", "").replace(",", "")
    if not raw.isdigit() or len(raw) > 12 or not _least(name) <= int(raw) <= MOST:
        raise ValueError(f"limit {name} needs a whole number from {_least(name)} to {MOST:,}, "
                         f"not '{text.partition('=')[2]}'")
    return attrs.evolve(limits, **{name: int(raw)})


class WorldForecast:
    """Foresees the segment runs a procedure's exact odds still need, so that a chain whose
    states multiply (a loop summing `1d1000` twenty times) is refused after a few thousand
    runs, not after ``max_worlds`` of them (seconds of work).

    Each state waiting to be explored is counted at the fewest runs a segment starting at
    the same place (the line it stands at) has taken, once ``SAMPLES`` such segments have
    run (1 before): states at one place differ (a loop's count, what is left to roll), so
    one segment alone says too little; with fewer, a shipped procedure well within the limit
    was foreseen past it. It refuses when the runs made plus that estimate pass ``MARGIN`` times
    the limit; under that the limit itself is checked as the runs are made.
    """

    __slots__ = ("fewest", "limits", "pending", "seen", "site", "waiting")

    #: How far past ``max_worlds`` the estimate must go before it refuses.
    MARGIN = 2
    #: Segments run at a place before their fewest runs stand for the states waiting there.
    SAMPLES = 8

    def __init__(self, limits: Limits, site: Any) -> None:
        self.limits = limits
        self.site = site
        self.fewest: dict[Any, int] = {}
        self.seen: dict[Any, int] = {}
        self.waiting: dict[Any, int] = {}
        self.pending: set[Any] = set()

    def queued(self, state: Any, place: Any) -> None:
        """A state found, to be explored later (counted once however often it is found)."""
        if state not in self.pending:
            self.pending.add(state)
            self.waiting[place] = self.waiting.get(place, 0) + 1

    def explored(self, state: Any, place: Any, runs: int, done: int) -> None:
        """A state's segment took ``runs`` runs, ``done`` in all so far: refuse if the states
        still waiting would take the computation far past ``max_worlds``."""
        if state in self.pending:
            self.pending.discard(state)
            self.waiting[place] -= 1
        known = self.fewest.get(place)
        self.fewest[place] = runs if known is None else min(known, runs)
        self.seen[place] = self.seen.get(place, 0) + 1
        foreseen = done + sum(n * (self.fewest[p] if self.seen.get(p, 0) >= self.SAMPLES else 1)
                              for p, n in self.waiting.items())
        if foreseen > self.MARGIN * self.limits.max_worlds:
            raise limit_error("max_worlds", self.limits, self.site,
                              f"about {foreseen:,} runs of a segment foreseen ({len(self.pending):,} states waiting)")
