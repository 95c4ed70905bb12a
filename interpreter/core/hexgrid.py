"""Cells of a hexagonal grid, and the shapes an area can take on one.

Cells use **axial coordinates** ``(q, r)``; the six directions, numbered 0 to 5, are

    0: (+1, 0)   1: (+1, -1)   2: (0, -1)   3: (-1, 0)   4: (-1, +1)   5: (0, +1)

and the distance between two cells is ``(|dq| + |dr| + |dq + dr|) / 2`` (the number of
steps between them). The shapes are sets of cells measured from an origin:

- ``burst(o, n)``: every cell at distance ``n`` or less (a hexagon of ``3n(n+1) + 1`` cells);
- ``cone(o, d, n)``: the triangle between directions ``d`` and ``d + 1``,
  ``{o + a*D[d] + b*D[d+1] : a, b >= 0, a + b <= n}`` (``(n+1)(n+2)/2`` cells);
- ``ray(o, d, n)``: ``o`` and the ``n`` cells after it in direction ``d`` (in order);
- ``is_path(cells)``: whether a sequence of cells is a path: distinct cells, each adjacent to
  the next; with rule ``induced`` (the default) no two cells that are not consecutive may be
  adjacent (the path never touches itself), with ``degree2`` each cell may touch at most two
  others of the path.

The pure functions come first; :func:`register` adds them to the expression language's
builtins (``cell(q, r)``, ``hex_distance(a, b)`` ...); the evaluator calls it. Where a
builtin takes a cell it also takes a list of two whole numbers or an entity whose file
gives ``position: [q, r]``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Any

from runebook.dsl.diagnostics import Diagnostic, RunebookError
from runebook.interpreter.core.values import Level

__all__ = ["Cell", "Cells", "DIRECTIONS", "distance", "burst", "cone", "ray", "is_path", "neighbors",
           "corners", "crosses", "line_clear", "register"]

#: The six axial directions, numbered 0 to 5 counterclockwise from +q.
DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


class Cell(tuple):  # type: ignore[type-arg]
    """One grid cell ``(q, r)``: a pair of whole numbers that prints as ``(q, r)``."""

    def __new__(cls, q: int, r: int) -> Cell:
        return super().__new__(cls, (int(q), int(r)))

    @property
    def q(self) -> int:
        return int(self[0])

    @property
    def r(self) -> int:
        return int(self[1])

    def moved(self, direction: int, steps: int = 1) -> Cell:
        dq, dr = DIRECTIONS[direction % 6]
        return Cell(self.q + dq * steps, self.r + dr * steps)


class Cells(tuple):  # type: ignore[type-arg]
    """A sequence of cells: an area (kept sorted, no repeats) or a path (in its order)."""

    @classmethod
    def area(cls, cells: Iterable[Cell]) -> Cells:
        return cls(sorted(set(cells)))


def distance(a: Cell, b: Cell) -> int:
    """The number of steps between two cells."""
    dq, dr = b.q - a.q, b.r - a.r
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def neighbors(c: Cell) -> Cells:
    """The six cells next to ``c``."""
    return Cells.area(c.moved(d) for d in range(6))


def burst(origin: Cell, n: int) -> Cells:
    """Every cell at distance ``n`` or less from ``origin``."""
    return Cells.area(Cell(origin.q + dq, origin.r + dr)
                      for dq in range(-n, n + 1)
                      for dr in range(max(-n, -dq - n), min(n, -dq + n) + 1))


def cone(origin: Cell, direction: int, n: int) -> Cells:
    """The triangle of cells between ``direction`` and the next direction, ``n`` steps long."""
    (aq, ar), (bq, br) = DIRECTIONS[direction % 6], DIRECTIONS[(direction + 1) % 6]
    return Cells.area(Cell(origin.q + a * aq + b * bq, origin.r + a * ar + b * br)
                      for a in range(n + 1) for b in range(n + 1 - a))


def ray(origin: Cell, direction: int, n: int) -> Cells:
    """``origin`` and the ``n`` cells after it in a straight line, in order."""
    return Cells(origin.moved(direction, k) for k in range(n + 1))


def is_path(cells: Sequence[Cell], rule: str = "induced") -> bool:
    """Whether ``cells`` (in order) is a path: distinct, each adjacent to the next, and
    (``induced``) no other two adjacent, or (``degree2``) no cell adjacent to more than two."""
    if len(set(cells)) != len(cells) or not cells:
        return False
    if any(distance(a, b) != 1 for a, b in zip(cells, cells[1:])):
        return False
    if rule == "degree2":
        return all(sum(distance(c, o) == 1 for o in cells) <= 2 for c in cells)
    return all(distance(cells[i], cells[j]) != 1
               for i in range(len(cells)) for j in range(i + 2, len(cells)))


# ---------------------------------------------------------------- lines between cells
#
# Geometry on the plane uses coordinates (x, y) = (q + r/2, 3r/2): the hexagons' centres with
# the horizontal axis divided by sqrt(3). That affine map keeps lines straight and insides
# inside, and puts every corner on a rational point, so the tests below are exact.

#: A cell's six corners, counterclockwise, relative to its centre.
_CORNERS: tuple[tuple[Fraction, Fraction], ...] = tuple(
    (Fraction(x), Fraction(y)) for x, y in
    ((Fraction(1, 2), Fraction(1, 2)), (0, 1), (Fraction(-1, 2), Fraction(1, 2)),
     (Fraction(-1, 2), Fraction(-1, 2)), (0, -1), (Fraction(1, 2), Fraction(-1, 2))))


def _centre(c: Cell) -> tuple[Fraction, Fraction]:
    return Fraction(2 * c.q + c.r, 2), Fraction(3 * c.r, 2)


def corners(c: Cell) -> list[tuple[Fraction, Fraction]]:
    """The cell's corners on the plane (see above), counterclockwise."""
    x, y = _centre(c)
    return [(x + dx, y + dy) for dx, dy in _CORNERS]


def crosses(a: tuple[Fraction, Fraction], b: tuple[Fraction, Fraction], c: Cell, touching: bool = False) -> bool:
    """Whether the segment a-b passes through the inside of cell ``c`` (with ``touching``:
    or touches its edge or a corner)."""
    ring = corners(c)
    low, high = None, None  # the segment's parameters t with every edge test passing
    for (px, py), (qx, qy) in zip(ring, ring[1:] + ring[:1]):
        ex, ey = qx - px, qy - py
        fa = ex * (a[1] - py) - ey * (a[0] - px)
        fb = ex * (b[1] - py) - ey * (b[0] - px)
        if fa == fb:
            if fa < 0 or (fa == 0 and not touching):
                return False
            continue
        t = fa / (fa - fb)
        if fb > fa:
            low = t if low is None else max(low, t)
        else:
            high = t if high is None else min(high, t)
    lo = low if low is not None else Fraction(-1)
    hi = high if high is not None else Fraction(2)
    if touching:
        return lo <= hi and lo <= 1 and hi >= 0
    return lo < hi and lo < 1 and hi > 0


def line_clear(a: Cell, b: Cell, walls: Iterable[Cell], touching: bool = False) -> bool:
    """Whether some straight line from a corner of ``a`` to a corner of ``b`` (36 of them)
    passes through none of ``walls`` (``a`` and ``b`` themselves never block). With
    ``touching``, grazing a wall's edge or corner blocks too; by default only its inside does."""
    blocking = [w for w in set(walls) if w != a and w != b]
    return any(not any(crosses(p, q, w, touching) for w in blocking)
               for p in corners(a) for q in corners(b))


# ---------------------------------------------------------------- builtins


def register(define: Callable[..., None], kind_of: Callable[[Any], str],
             number: Callable[[Any, Any], Any]) -> None:
    """Add the grid builtins to the expression language. The evaluator, which imports this
    module, hands in its ``_register`` (``define``), how it names a value's kind in a
    diagnostic (``kind_of``) and how it reads a value as a number (``number(value, ctx)``)."""

    def fail(site: Any, op: str, value: Any, expected: str) -> RunebookError:
        return RunebookError([Diagnostic.make("E0405", site[0], site[1], op=op, kind=kind_of(value),
                                              help=f"{op}(...) takes {expected}")])

    def whole(op: str, ctx: Any, value: Any, site: Any) -> int:
        value = number(value, ctx) if type(value) not in (int, bool) else value
        if type(value) is not int:
            raise fail(site, op, value, "whole numbers where it counts steps or names a direction")
        return value

    def position_of(value: Any) -> Any:
        data = getattr(value, "data", None)
        if isinstance(data, dict) and hasattr(value, "stats"):
            return data.get("position")
        return value

    def as_cell(op: str, value: Any, site: Any) -> Cell:
        if isinstance(value, Cell):
            return value
        raw = position_of(value)
        if isinstance(raw, Cell):
            return raw
        if isinstance(raw, list | tuple) and len(raw) == 2 and all(type(v) is int for v in raw):
            return Cell(raw[0], raw[1])
        if raw is None and value is not None:
            name = getattr(value, "name", "the entity")
            raise RunebookError([Diagnostic.make(
                "E0405", site[0], site[1], op=op, kind=f"'{name}', which has no position",
                help="give the entity's file a line 'position: [q, r]'")])
        raise fail(site, op, value, "cells: cell(q, r), a list [q, r] or an entity with a position")

    def as_cells(op: str, args: list[Any], site: Any) -> list[Cell]:
        if len(args) == 1 and isinstance(args[0], Cells):
            return list(args[0])
        return [as_cell(op, a, site) for a in args]

    def rule_name(value: Any) -> str:
        return value.name if isinstance(value, Level) else str(value)

    def b_cell(ctx: Any, args: list[Any], site: Any) -> Cell:
        return Cell(whole("cell", ctx, args[0], site), whole("cell", ctx, args[1], site))

    def b_cells(ctx: Any, args: list[Any], site: Any) -> Cells:
        return Cells(as_cells("cells", args, site))

    def b_distance(ctx: Any, args: list[Any], site: Any) -> int:
        return distance(as_cell("hex_distance", args[0], site), as_cell("hex_distance", args[1], site))

    def b_position(ctx: Any, args: list[Any], site: Any) -> Any:
        raw = position_of(args[0])
        return None if raw is None else as_cell("position", args[0], site)

    def c_placed(compiler: Any, node: Any) -> Callable[[Any, Any], bool]:
        # A special form: an entity that takes no part (no --against, say) is not placed,
        # rather than a request for one.
        args = [compiler.compile(a) for a in node.args]

        def placed(ctx: Any, env: Any) -> bool:
            for arg in args:
                try:
                    value = arg(ctx, env)
                except RunebookError as error:
                    if all(d.code == "E0707" for d in error.diagnostics):
                        return False
                    raise
                if position_of(value) is None:
                    return False
            return True

        return placed

    def b_burst(ctx: Any, args: list[Any], site: Any) -> Cells:
        return burst(as_cell("burst", args[0], site), max(0, whole("burst", ctx, args[1], site)))

    def b_cone(ctx: Any, args: list[Any], site: Any) -> Cells:
        return cone(as_cell("cone", args[0], site), whole("cone", ctx, args[1], site),
                    max(0, whole("cone", ctx, args[2], site)))

    def b_ray(ctx: Any, args: list[Any], site: Any) -> Cells:
        return ray(as_cell("ray", args[0], site), whole("ray", ctx, args[1], site),
                   max(0, whole("ray", ctx, args[2], site)))

    def b_step(ctx: Any, args: list[Any], site: Any) -> Cell:
        steps = whole("hex_step", ctx, args[2], site) if len(args) > 2 else 1
        return as_cell("hex_step", args[0], site).moved(whole("hex_step", ctx, args[1], site), steps)

    def b_neighbors(ctx: Any, args: list[Any], site: Any) -> Cells:
        return neighbors(as_cell("hex_neighbors", args[0], site))

    def b_is_path(ctx: Any, args: list[Any], site: Any) -> bool:
        rule = "induced"
        if len(args) == 2 and isinstance(args[0], Cells) and not isinstance(args[1], Cell | Cells):
            rule = rule_name(args[1])
            args = args[:1]
        if rule not in ("induced", "degree2"):
            raise fail(site, "is_path", rule, "the rule \"induced\" or \"degree2\"")
        return is_path(as_cells("is_path", args, site), rule)

    def b_count(ctx: Any, args: list[Any], site: Any) -> int:
        if not isinstance(args[0], Cells):
            raise fail(site, "cell_count", args[0], "cells (burst, cone, ray, cells ...)")
        return len(args[0])

    def b_has(ctx: Any, args: list[Any], site: Any) -> bool:
        if not isinstance(args[0], Cells):
            raise fail(site, "has_cell", args[0], "cells, then a cell")
        return as_cell("has_cell", args[1], site) in args[0]

    def b_without(ctx: Any, args: list[Any], site: Any) -> Cells:
        if not isinstance(args[0], Cells):
            raise fail(site, "without_cell", args[0], "cells, then a cell")
        gone = as_cell("without_cell", args[1], site)
        return Cells(c for c in args[0] if c != gone)

    def b_line_clear(ctx: Any, args: list[Any], site: Any) -> bool:
        walls = args[2]
        if isinstance(walls, Cell) or not isinstance(walls, Cells):
            walls = Cells([as_cell("line_clear", walls, site)]) if walls is not None else Cells()
        rule = rule_name(args[3]) if len(args) > 3 else "inside"
        if rule not in ("inside", "touching"):
            raise fail(site, "line_clear", rule, "the rule \"inside\" or \"touching\"")
        return line_clear(as_cell("line_clear", args[0], site), as_cell("line_clear", args[1], site),
                          walls, rule == "touching")

    # Arity, parameter types and docs: their lines in dsl/builtins.py.
    define("line_clear", b_line_clear)
    define("cell", b_cell)
    define("cells", b_cells)
    define("hex_distance", b_distance)
    define("position", b_position)
    define("placed", c_placed, special=True)
    define("burst", b_burst)
    define("cone", b_cone)
    define("ray", b_ray)
    define("hex_step", b_step)
    define("hex_neighbors", b_neighbors)
    define("is_path", b_is_path)
    define("cell_count", b_count)
    define("has_cell", b_has)
    define("without_cell", b_without)
