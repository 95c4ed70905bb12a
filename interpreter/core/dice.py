"""Dice: what a dice term means, how it is rolled, and pools as values.

A dice term (``4d6kh3``, ``5d10x10cs>=8``, ``pool d10``, ``d{1,1,2,3}``) describes a
:class:`PoolSpec`: groups of identical dice (:class:`DieSpec`: faces, rerolls,
explosions), a keep/drop rule and success counting. Rolling a spec with a
:class:`DiceOracle` gives a :class:`RolledPool`; the distribution engine
(:mod:`interpreter.core.distribution`) reads the same spec without rolling.

Rolling order (the order ``--dice`` faces are consumed and the trace lists dice): all
dice of the pool, group by group; then rerolls of those dice, in order (``r`` repeats the
pass until no die matches); then one new die for each die that exploded, in order; then
rerolls and explosions of those, round after round.

A pool is a value: :class:`PoolView` wraps a rolled pool (or, while computing odds, a
:class:`LazyPool`) with per-die transforms. Readers turn a view into a number: the sum of
its kept dice, their count, the highest, and so on. A reader is a pair
``(transforms, aggregate)``; transforms are ``("map", op, operand, swapped)``,
``("neg",)``, ``("filter", op, operand)``, ``("select", op, operand)`` (a filter whose
kept dice still read as their sum: d20's ``k3``) and ``("score", rules)``; aggregates are
``sum``, ``count``, ``max``, ``min``, ``any`` and ``all``.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import attrs

from runebook.dsl.diagnostics import Diagnostic, RunebookError
from runebook.dsl.source import Source, Span
from runebook.interpreter.core.limits import Limits
from runebook.interpreter.core.trace import DieRoll, RollEvent
from runebook.interpreter.core.values import UNKNOWN, Undetermined, equal, normalize

__all__ = [
    "ARITH",
    "COMPARE",
    "MAX_DICE_HELP",
    "FLIPPED",
    "DiceOracle",
    "DieSpec",
    "GivenOracle",
    "LazyPool",
    "PoolSource",
    "PoolSpec",
    "PoolView",
    "RandomOracle",
    "Reader",
    "RolledPool",
    "aggregate",
    "apply_transforms",
    "contribution",
    "number_reader",
    "roll_pool",
    "score_of",
]

Reader = tuple[tuple[tuple[Any, ...], ...], str]

#: The help of E0402 (too many dice): where the limit is set.
MAX_DICE_HELP = "the most dice one roll may roll is a setting: --max-dice N, or max_dice=N in roll() and odds()"
Site = tuple[Source | None, Span | None]


def _eq(a: Any, b: Any) -> bool:
    return equal(a, b)


def _ne(a: Any, b: Any) -> bool:
    return not equal(a, b)


#: Comparison operators of the language (``==``) and of dice modifiers (``=``).
COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "=": _eq,
    "==": _eq,
    "!=": _ne,
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
    # Foundry's 'even'/'odd' counting rules (`6d6even`): the second operand is unused.
    "even": lambda a, _b: a % 2 == 0,
    "odd": lambda a, _b: a % 2 != 0,
}

FLIPPED = {"=": "=", "==": "==", "!=": "!=", ">=": "<=", "<=": ">=", ">": "<", "<": ">"}


def _truediv(a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int:
        return normalize(Fraction(a, b))
    return normalize(a / b)


def _power(a: Any, b: Any) -> Any:
    if type(b) is int and b < 0:
        return normalize(Fraction(a) ** b)
    return normalize(a**b)


#: Arithmetic operators of the language.
ARITH: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": _truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": _power,
}


@attrs.frozen(cache_hash=True)
class DieSpec:
    """One kind of die: its faces (repeats allowed) and what happens after it is rolled.

    ``reroll``: faces that are rolled again (until they stop showing, or only once when
    ``reroll_once``). ``explode``: faces that add another die to the pool, or with
    ``compound`` add another roll into the same die; ``penetrate``: each added die counts
    one less than its face (it still explodes on its face); ``explode_once``: the added
    dice do not explode. ``low``/``high``: each die's value is clamped into that range
    (the face is still what was rolled).
    """

    label: str
    faces: tuple[int, ...]
    reroll: frozenset[int] = frozenset()
    reroll_once: bool = False
    explode: frozenset[int] = frozenset()
    compound: bool = False
    penetrate: bool = False
    explode_once: bool = False
    low: int | None = None
    high: int | None = None

    @property
    def plain(self) -> bool:
        return not self.reroll and not self.explode and self.low is None and self.high is None

    def clamp(self, value: Any) -> Any:
        if self.low is not None and value < self.low:
            return self.low
        if self.high is not None and value > self.high:
            return self.high
        return value

    def can_show(self, face: Any) -> bool:
        return face in self.faces


@attrs.frozen(cache_hash=True)
class PoolSpec:
    """A pool: groups of ``(count, die)``, a keep rule, success counting.

    ``keep`` is ``("kh"|"kl"|"dh"|"dl", n)`` or None. ``score`` lists counting rules
    ``(weight, op, value)``: ``cs>=8`` is ``(1, ">=", 8)``, ``df=1`` is ``(-1, "=", 1)``;
    ``counting`` is ``"successes"`` or ``"failures"`` (for ``cf``) when there are rules.
    ``crits``: faces marked in the trace as critical (``("success"|"failure", op, value)``,
    Roll20's ``cs``/``cf``), without changing the value. ``order``: ``"sa"``/``"sd"`` lists
    the pool's dice sorted in the trace (the order faces are consumed does not change).
    ``unique``: a die showing a face an earlier die shows is rolled again until it does not
    (one group of plain dice with distinct faces).
    """

    groups: tuple[tuple[int, DieSpec], ...]
    keep: tuple[str, int] | None = None
    score: tuple[tuple[int, str, int], ...] = ()
    counting: str | None = None
    text: str = attrs.field(default="", eq=False)
    crits: tuple[tuple[str, str, int], ...] = ()
    order: str | None = None
    unique: bool = False

    @property
    def size(self) -> int:
        return sum(n for n, _ in self.groups)


def score_of(value: Any, rules: tuple[tuple[int, str, int], ...]) -> Any:
    total = 0
    for weight, op, target in rules:
        if COMPARE[op](value, target):
            total += weight
    return total


def apply_transforms(value: Any, transforms: tuple[tuple[Any, ...], ...]) -> tuple[bool, Any]:
    """(passes every filter, mapped value) for one die."""
    for t in transforms:
        kind = t[0]
        if kind == "filter" or kind == "select":
            if not COMPARE[t[1]](value, t[2]):
                return False, value
        elif kind == "map":
            value = ARITH[t[1]](t[2], value) if t[3] else ARITH[t[1]](value, t[2])
        elif kind == "neg":
            value = -value
        elif kind == "score":
            value = score_of(value, t[1])
    return True, value


def aggregate(values: Sequence[Any], reader: Reader) -> Any:
    """Read kept die values through a reader (the rolled-pool side of the engine)."""
    transforms, agg = reader
    if not transforms:
        passing = list(values)
        excluded = False
    else:
        passing = []
        excluded = False
        for v in values:
            ok, mapped = apply_transforms(v, transforms)
            if ok:
                passing.append(mapped)
            else:
                excluded = True
    if agg == "sum":
        return normalize(sum(passing)) if passing else 0
    if agg == "count":
        return len(passing)
    if agg == "max":
        return max(passing) if passing else None
    if agg == "min":
        return min(passing) if passing else None
    if agg == "any":
        return bool(passing)
    if agg == "all":
        return not excluded
    raise ValueError(agg)


def number_reader(view: PoolView) -> Reader:
    """How a pool reads as a number: a selection counts its dice; a pool with success
    counting (``cs``/``cf``/``df``) counts successes; any other pool sums its dice."""
    transforms = view.transforms
    for t in transforms:
        if t[0] == "filter":
            return (transforms, "count")
    score = view.source.spec.score
    if score and not transforms:
        return ((("score", score),), "sum")
    return (transforms, "sum")


# ---------------------------------------------------------------- oracles


class DiceOracle:
    """Where faces come from. ``faces`` returns ``count`` faces of ``die``; ``why(i)``
    describes the i-th of them for messages ("die 2 of 4d6kh3")."""

    def faces(self, die: DieSpec, count: int, why: Callable[[int], str], site: Site) -> list[Any]:
        raise NotImplementedError

    def finish(self) -> None:
        """Called after a whole evaluation; may report unused faces."""


class RandomOracle(DiceOracle):
    """Faces from a ``random.Random`` (seeded for reproducible rolls)."""

    __slots__ = ("rng",)

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng if rng is not None else random.Random()

    def faces(self, die: DieSpec, count: int, why: Callable[[int], str], site: Site) -> list[Any]:
        return self.rng.choices(die.faces, k=count)


class GivenOracle(DiceOracle):
    """Faces given by the user (``--dice 8,6,1``), consumed in trace order."""

    def __init__(self, faces: Sequence[int], source: Source | None = None) -> None:
        self.given = list(faces)
        self.position = 0
        self.source = source

    def faces(self, die: DieSpec, count: int, why: Callable[[int], str], site: Site) -> list[Any]:
        source, span = site
        self.source = self.source or source
        start = self.position
        if start + count > len(self.given):
            missing = len(self.given) - start
            raise RunebookError([Diagnostic.make(
                "E0501", source, span, die=die.label, what=why(max(missing, 0)),
                help=(f"the {len(self.given)} faces given were used up" if len(self.given) != 1
                      else "the 1 face given was used up") + "; add the missing ones at the end",
            )])
        taken = self.given[start : start + count]
        for i, face in enumerate(taken):
            if type(face) is not int:
                # '10' (text from a web form) or True would otherwise read as "cannot show 10" or as a 1.
                raise RunebookError([Diagnostic.make(
                    "E0503", source, span, die=die.label, face=repr(face),
                    help=f"face {start + i + 1} of the dice given is {type(face).__name__}, not a whole number: "
                         "give each face as an int (10, not '10')",
                )])
            if not die.can_show(face):
                shown = ", ".join(map(str, sorted(set(die.faces)))) if len(set(die.faces)) <= 12 else \
                    f"{min(die.faces)} to {max(die.faces)}"
                raise RunebookError([Diagnostic.make(
                    "E0503", source, span, die=die.label, face=face,
                    help=f"face {start + i + 1} of --dice was for {why(i)}; a {die.label} shows {shown}",
                )])
        self.position = start + count
        return taken

    def finish(self) -> None:
        if self.position < len(self.given):
            span = Span.point(1, 1, len(self.source.text)) if self.source else None
            raise RunebookError([Diagnostic.make(
                "E0502", self.source, span, count=len(self.given), used=self.position,
                help="unused faces: " + ", ".join(map(str, self.given[self.position :])),
            )])


# ---------------------------------------------------------------- pools as values


class RolledPool:
    """A rolled pool: every physical die (``dice``, consumption order) and the members of
    the pool (``members``: dice not rerolled away or compounded into another die)."""

    __slots__ = ("dice", "event", "kept_values", "members", "sorted", "spec", "total")

    def __init__(self, spec: PoolSpec, dice: list[DieRoll], members: list[DieRoll],
                 kept_values: list[Any] | None = None) -> None:
        self.spec = spec
        self.dice = dice
        self.members = members
        self.kept_values = kept_values if kept_values is not None else [d.value for d in members if d.fate == "kept"]
        self.event: RollEvent | None = None
        self.total: Any = None  # the pool's number, once read
        self.sorted = False  # members listed sorted (``sa``/``sd``)


class LazyPool:
    """A pool not rolled: while computing odds, readers of it become choices over its
    exact distribution (see :mod:`interpreter.core.distribution`)."""

    __slots__ = ("key", "spec")

    def __init__(self, spec: PoolSpec, key: Any) -> None:
        self.spec = spec
        self.key = key


class PoolView:
    """A pool as a value: its source (rolled or lazy) seen through per-die transforms.

    ``per_die`` is set by ``each(...)``: arithmetic then applies to every die instead of
    to the pool's total. Comparing a pool with a number always selects dice.
    """

    __slots__ = ("per_die", "source", "transforms")

    def __init__(self, source: RolledPool | LazyPool, transforms: tuple[tuple[Any, ...], ...] = (),
                 per_die: bool = False) -> None:
        self.source = source
        self.transforms = transforms
        self.per_die = per_die

    def derive(self, transform: tuple[Any, ...], per_die: bool | None = None) -> PoolView:
        return PoolView(self.source, self.transforms + (transform,), self.per_die if per_die is None else per_die)

    def with_per_die(self) -> PoolView:
        return PoolView(self.source, self.transforms, True)

    def __repr__(self) -> str:
        return f"PoolView({self.source.spec.text!r}, {self.transforms!r})"


@attrs.frozen(eq=False)
class PoolSource:
    """A pool declared once and read many times (a check's ``roll dice = pool d10``).

    Bind it to a name in the environment: every read of that name in one evaluation (or
    in one world of a joint distribution) sees the same dice. Rolled on first use unless
    the caller rolls it first with ``Context.realize``.
    """

    spec: PoolSpec
    name: str = ""
    span: Span | None = None
    source: Source | None = None


# ---------------------------------------------------------------- rolling


def _why(spec: PoolSpec, cause: str | None, origin: int | None, index: int) -> str:
    text = spec.text or "the pool"
    if cause is None:
        return f"die {index} of {text}" if spec.size > 1 else text
    word = {"explosion": "the explosion of", "reroll": "a reroll of", "compound": "the compounding roll of"}[cause]
    return f"{word} die {origin} of {text}"


def roll_pool(spec: PoolSpec, oracle: DiceOracle, limits: Limits, counter: list[int],
              span: Span | None = None, source: Source | None = None) -> RolledPool:
    """Roll a pool with faces from ``oracle``; ``counter[0]`` counts dice this evaluation."""
    total = spec.size
    counter[0] += total
    if counter[0] > limits.max_dice:
        raise RunebookError([Diagnostic.make("E0402", source, span, count=counter[0],
                                             limit=limits.max_dice, help=MAX_DICE_HELP)])
    if len(spec.groups) == 1 and not spec.groups[0][1].reroll and not spec.groups[0][1].explode:
        # The common case: one kind of die, no rerolls, no explosions.
        die = spec.groups[0][1]
        faces = oracle.faces(die, total, lambda i: _why(spec, None, None, i + 1), (source, span))
        label = die.label
        dice = [DieRoll(label, f) for f in faces]
        values = faces
        if die.low is not None or die.high is not None:
            for d in dice:
                d.value = die.clamp(d.face)
            values = [d.value for d in dice]
        if spec.keep is None and not spec.score and not spec.crits and spec.order is None and not spec.unique:
            return RolledPool(spec, dice, dice, values)
        members = list(dice)
        if spec.unique:
            _make_unique(spec, die, oracle, limits, counter, dice, members, (source, span))
    else:
        dice, members = _roll_rounds(spec, oracle, limits, counter, span, source)
        for d in members:
            die = _die_of(spec, d.label)
            if die is not None and (die.low is not None or die.high is not None):
                d.value = die.clamp(d.value)
    if spec.keep is not None:
        _apply_keep(spec.keep, members)
    if spec.score:
        rules = spec.score
        for d in members:
            if d.fate == "kept":
                d.counts = score_of(d.value, rules)
    if spec.crits:
        for d in members:
            for kind, op, target in spec.crits:
                if COMPARE[op](d.face, target):
                    d.crit = kind
    if spec.order is not None:
        # Sorted for reading; `dice` (the order faces were consumed) is kept for the trace.
        members = sorted(members, key=lambda d: d.value, reverse=spec.order == "sd")
        pool = RolledPool(spec, dice, members)
        pool.sorted = True
        return pool
    return RolledPool(spec, dice, members)


def _make_unique(spec: PoolSpec, die: DieSpec, oracle: DiceOracle, limits: Limits, counter: list[int],
                 dice: list[DieRoll], members: list[DieRoll], site: Site) -> None:
    """Reroll, in order, each die showing a face an earlier die shows, until it does not."""
    seen: set[Any] = set()
    for i in range(len(members)):
        d = members[i]
        number = i + 1
        while d.value in seen:
            counter[0] += 1
            if counter[0] > limits.max_dice:
                raise RunebookError([Diagnostic.make("E0402", site[0], site[1], count=counter[0],
                                                     limit=limits.max_dice, help=MAX_DICE_HELP)])
            d.fate = "rerolled"
            face = oracle.faces(die, 1, lambda _k, n=number: _why(spec, "reroll", n, 0), site)[0]
            d = DieRoll(die.label, face, "reroll", number)
            dice.append(d)
            members[i] = d
        seen.add(d.value)


def _die_of(spec: PoolSpec, label: str) -> DieSpec | None:
    for _n, die in spec.groups:
        if die.label == label:
            return die
    return None


def _roll_rounds(spec: PoolSpec, oracle: DiceOracle, limits: Limits, counter: list[int],
                 span: Span | None, source: Source | None) -> tuple[list[DieRoll], list[DieRoll]]:
    dice: list[DieRoll] = []
    members: list[DieRoll] = []
    # pending: (die, cause, origin number, compound target)
    pending: list[tuple[DieSpec, str | None, int | None, DieRoll | None]] = []
    for n, die in spec.groups:
        pending.extend((die, None, None, None) for _ in range(n))
    depth = 0
    while pending:
        rolled = _roll_batch(spec, oracle, pending, dice, (source, span))
        rolled = _rerolls(spec, oracle, limits, counter, rolled, dice, span, source)
        next_pending: list[tuple[DieSpec, str | None, int | None, DieRoll | None]] = []
        for rec, number, (die, cause, origin, target) in rolled:
            if cause == "compound":
                assert target is not None
                target.value += rec.face
                rec.fate = "added"
            else:
                if cause == "explosion" and die.penetrate:
                    rec.value = rec.face - 1
                members.append(rec)
            if rec.face in die.explode and not (die.explode_once and cause == "explosion"):
                rec.exploded = True
                if die.compound:
                    primary = target if cause == "compound" else rec
                    next_pending.append((die, "compound", dice.index(primary) + 1, primary))
                else:
                    next_pending.append((die, "explosion", number, None))
        if next_pending:
            depth += 1
            if depth > limits.max_explosion_depth:
                raise RunebookError([Diagnostic.make("E0410", source, span, limit=limits.max_explosion_depth)])
            counter[0] += len(next_pending)
            if counter[0] > limits.max_dice:
                raise RunebookError([Diagnostic.make("E0402", source, span, count=counter[0],
                                                     limit=limits.max_dice, help=MAX_DICE_HELP)])
        pending = next_pending
    return dice, members


def _roll_batch(spec: PoolSpec, oracle: DiceOracle, pending: list[Any], dice: list[DieRoll],
                site: Site) -> list[tuple[DieRoll, int, Any]]:
    out = []
    i = 0
    while i < len(pending):
        die = pending[i][0]
        j = i
        while j < len(pending) and pending[j][0] is die:
            j += 1
        run = pending[i:j]
        base = len(dice)
        counted = sum(1 for d in dice if d.cause is None)

        def why(k: int, run: list[Any] = run, counted: int = counted) -> str:
            _, cause, origin, _t = run[min(k, len(run) - 1)]
            return _why(spec, cause, origin, counted + k + 1)

        faces = oracle.faces(die, len(run), why, site)
        for k, (item, face) in enumerate(zip(run, faces)):
            rec = DieRoll(die.label, face, item[1], item[2])
            dice.append(rec)
            out.append((rec, base + k + 1, item))
        i = j
    return out


def _rerolls(spec: PoolSpec, oracle: DiceOracle, limits: Limits, counter: list[int],
             rolled: list[tuple[DieRoll, int, Any]], dice: list[DieRoll], span: Span | None,
             source: Source | None) -> list[tuple[DieRoll, int, Any]]:
    passes = 0
    while True:
        todo = [i for i, (rec, _n, item) in enumerate(rolled)
                if item[0].reroll and rec.face in item[0].reroll and (not item[0].reroll_once or passes == 0)]
        if not todo:
            return rolled
        passes += 1
        counter[0] += len(todo)
        if counter[0] > limits.max_dice or passes > limits.max_dice:
            raise RunebookError([Diagnostic.make("E0402", source, span, count=counter[0],
                                             limit=limits.max_dice, help=MAX_DICE_HELP)])
        for i in todo:
            rec, number, item = rolled[i]
            die = item[0]
            rec.fate = "rerolled"
            face = oracle.faces(die, 1, lambda _k, n=number: _why(spec, "reroll", n, 0), (source, span))[0]
            new = DieRoll(die.label, face, "reroll", number)
            dice.append(new)
            rolled[i] = (new, len(dice), item)
        if passes and all(rolled[i][2][0].reroll_once for i in todo):
            return rolled


def _apply_keep(keep: tuple[str, int], members: list[DieRoll]) -> None:
    mode, n = keep
    order = sorted(range(len(members)), key=lambda i: (-members[i].value, i) if mode in ("kh", "dl")
                   else (members[i].value, i))
    total = len(members)
    keep_count = n if mode in ("kh", "kl") else total - n
    for rank, i in enumerate(order):
        if rank >= keep_count:
            members[i].fate = "dropped"


# ---------------------------------------------------------------- bounds while computing odds


def contribution(value: Any, transforms: tuple[tuple[Any, ...], ...]) -> tuple[Any, Any]:
    """(passes, mapped value) like :func:`apply_transforms`, but a decision that depends
    on an unknown value gives ``UNKNOWN`` instead of raising."""
    try:
        return apply_transforms(value, transforms)
    except Undetermined:
        return UNKNOWN, UNKNOWN

