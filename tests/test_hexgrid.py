"""The hex grid builtins (interpreter/core/hexgrid.py) against independent definitions.

The shapes are checked against brute force written here in cube coordinates (x + y + z = 0,
distance = the largest coordinate difference) and, for cones, against the 60-degree sector
they span on the plane; paths against an enumeration of every walk and a direct reading of
"never touches itself" / "touches at most two others".
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import product

import pytest

from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter import roll
from runebook.interpreter.core import hexgrid as hg

#: Axial steps in the order the module documents (0: +q, then counterclockwise).
STEPS = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]


def cube_distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    ax, az = a
    bx, bz = b
    ay, by = -ax - az, -bx - bz
    return max(abs(ax - bx), abs(ay - by), abs(az - bz))


def box(n: int, around: tuple[int, int] = (0, 0)) -> list[tuple[int, int]]:
    return [(around[0] + q, around[1] + r) for q in range(-n - 1, n + 2) for r in range(-n - 1, n + 2)]


def value(expr: str):  # type: ignore[no-untyped-def]
    return roll(expr, seed=0).total


# ---------------------------------------------------------------- distance


def test_distance_agrees_with_cube_distance() -> None:
    for a, b in product(box(3), [(0, 0), (2, -1), (-3, 1)]):
        assert hg.distance(hg.Cell(*a), hg.Cell(*b)) == cube_distance(a, b)


def test_distance_in_the_language() -> None:
    assert value("hex_distance(cell(0, 0), cell(2, -1))") == 2
    assert value("hex_distance(cell(-2, 0), cell(2, 1))") == cube_distance((-2, 0), (2, 1)) == 5
    assert value("hex_distance(cell(1, 1), cell(1, 1))") == 0


def test_the_six_neighbours_are_the_cells_at_distance_one() -> None:
    origin = hg.Cell(2, -3)
    expected = {c for c in box(1, origin) if cube_distance(c, origin) == 1}
    assert set(hg.neighbors(origin)) == expected and len(expected) == 6
    assert value("cell_count(hex_neighbors(cell(2, -3)))") == 6


# ---------------------------------------------------------------- burst, cone, ray


@pytest.mark.parametrize("n,count", [(0, 1), (1, 7), (2, 19), (3, 37)])
def test_burst_is_every_cell_within_n(n: int, count: int) -> None:
    origin = hg.Cell(1, -2)
    expected = {c for c in box(n, origin) if cube_distance(c, origin) <= n}
    assert set(hg.burst(origin, n)) == expected
    assert len(expected) == count == 3 * n * (n + 1) + 1
    assert value(f"cell_count(burst(cell(1, -2), {n}))") == count


def pixel(c: tuple[int, int]) -> tuple[float, float]:
    """The centre of an axial cell on the plane (pointy-top hexes)."""
    q, r = c
    return math.sqrt(3) * (q + r / 2), -1.5 * r


def in_sector(c: tuple[int, int], direction: int) -> bool:
    """Whether the cell's centre lies in the 60-degree wedge from ``direction`` to the next."""
    x, y = pixel(c)
    if x == 0 and y == 0:
        return True
    start = math.atan2(*reversed(pixel(STEPS[direction])))
    angle = (math.atan2(y, x) - start) % (2 * math.pi)
    return angle <= math.pi / 3 + 1e-9 or angle >= 2 * math.pi - 1e-9


@pytest.mark.parametrize("direction", range(6))
@pytest.mark.parametrize("n,count", [(1, 3), (2, 6), (3, 10)])
def test_cone_is_the_burst_in_a_sixty_degree_sector(direction: int, n: int, count: int) -> None:
    expected = {c for c in box(n) if cube_distance(c, (0, 0)) <= n and in_sector(c, direction)}
    cone = hg.cone(hg.Cell(0, 0), direction, n)
    assert set(cone) == expected
    assert len(cone) == count == (n + 1) * (n + 2) // 2
    assert value(f"cell_count(cone(cell(0, 0), {direction}, {n}))") == count


@pytest.mark.parametrize("direction", range(6))
@pytest.mark.parametrize("n", [1, 2, 3])
def test_ray_is_n_plus_one_cells_in_a_line(direction: int, n: int) -> None:
    dq, dr = STEPS[direction]
    cells = hg.ray(hg.Cell(3, 3), direction, n)
    assert list(cells) == [(3 + k * dq, 3 + k * dr) for k in range(n + 1)]
    assert value(f"cell_count(ray(cell(3, 3), {direction}, {n}))") == n + 1
    assert value(f"is_path(ray(cell(3, 3), {direction}, {n}))") is True


def test_a_melee_area_leaves_its_origin_out() -> None:
    assert value("cell_count(without_cell(burst(cell(0, 0), 1), cell(0, 0)))") == 6
    assert value("has_cell(burst(cell(0, 0), 2), cell(2, -2))") is True
    assert value("has_cell(burst(cell(0, 0), 2), cell(2, 1))") is False


# ---------------------------------------------------------------- paths


def walks(n: int) -> list[list[tuple[int, int]]]:
    """Every walk of n steps from the origin (cells may repeat)."""
    out: list[list[tuple[int, int]]] = []
    for steps in product(STEPS, repeat=n):
        cells = [(0, 0)]
        for dq, dr in steps:
            cells.append((cells[-1][0] + dq, cells[-1][1] + dr))
        out.append(cells)
    return out


def touches_itself(cells: list[tuple[int, int]]) -> bool:
    return any(cube_distance(cells[i], cells[j]) <= 1
               for i in range(len(cells)) for j in range(i + 2, len(cells)))


def touches_more_than_two(cells: list[tuple[int, int]]) -> bool:
    return len(set(cells)) != len(cells) or any(
        sum(cube_distance(c, o) == 1 for o in cells) > 2 for c in cells)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_induced_paths_match_a_brute_force(n: int) -> None:
    for cells in walks(n):
        as_cells = [hg.Cell(*c) for c in cells]
        assert hg.is_path(as_cells) == (not touches_itself(cells)), cells
        assert hg.is_path(as_cells, "degree2") == (not touches_more_than_two(cells)), cells


def test_the_triangle_is_a_path_only_by_the_degree_rule() -> None:
    """A18: three mutually adjacent cells: each touches two others, but the path touches itself."""
    triangle = "cells(cell(0, 0), cell(1, 0), cell(1, -1))"
    assert value(f"is_path({triangle})") is False
    assert value(f'is_path({triangle}, "degree2")') is True
    assert value("is_path(cell(0, 0), cell(1, 0), cell(2, 0))") is True
    assert value("is_path(cell(0, 0), cell(2, 0))") is False


def test_counts_of_induced_paths() -> None:
    """Paths of 2 steps from a cell: 6 x 5 walks without going back, minus the 12 that
    turn sharply (the third cell touches the first), 18 in all."""
    assert sum(hg.is_path([hg.Cell(*c) for c in w]) for w in walks(2)) == 18


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize("expr,fragment", [
    ("hex_distance(cell(0, 0), 3)", "takes cells"),
    ("burst(cell(0, 0), 1 / 2)", "whole numbers"),
    ('is_path(cells(cell(0, 0)), "loose")', "induced"),
    ("cell_count(3)", "takes cells"),
])
def test_misuse_is_a_diagnostic(expr: str, fragment: str) -> None:
    with pytest.raises(RunebookError) as caught:
        roll(expr, seed=0)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.code == "E0405"
    assert fragment in str(caught.value)


def test_wrong_argument_count_is_reported_before_running() -> None:
    with pytest.raises(RunebookError) as caught:
        roll("cone(cell(0, 0), 1)", seed=0)
    assert caught.value.diagnostics[0].code == "E0406"


# ---------------------------------------------------------------- entities on the grid


def test_number_or() -> None:
    assert value('number_or("Enemy", 1)') == 1
    assert value("number_or(4, 1)") == 4
    assert value("number_or(none, 2)") == 2


GRID_GAME = """stats Speed, Guard

check Gap ()
  result steps = hex_distance(actor, target)
  result seen = position(target)

procedure Strike (reach = 1)
  require not placed(actor, target) or hex_distance(actor, target) <= reach
  result placed = placed(actor, target)

uses grid
"""


@pytest.fixture
def grid_game(tmp_path):  # type: ignore[no-untyped-def]
    from runebook import interpreter

    (tmp_path / "game").mkdir()
    (tmp_path / "game" / "grid.rules").write_text(GRID_GAME)
    for name, position in (("a", [0, 0]), ("b", [2, -1]), ("c", None)):
        body = f"name: {name.upper()}\nstats:\n  Speed: 2\n" + (f"position: {position}\n" if position else "")
        (tmp_path / f"{name}.yaml").write_text(body)
    rules = interpreter.load(str(tmp_path / "game"))
    return rules, {n: rules.entity(str(tmp_path / f"{n}.yaml")) for n in "abc"}


def test_entities_with_positions(grid_game) -> None:  # type: ignore[no-untyped-def]
    rules, e = grid_game
    result = rules.resolve("gap", as_=e["a"], against=e["b"]).results
    assert result["steps"] == 2 and tuple(result["seen"]) == (2, -1)
    with pytest.raises(RunebookError) as caught:
        rules.resolve("gap", as_=e["a"], against=e["c"])
    assert "has no position" in str(caught.value)


def test_placed_is_false_without_positions_or_without_a_target(grid_game) -> None:  # type: ignore[no-untyped-def]
    rules, e = grid_game
    assert rules.run("strike", as_=e["a"], against=e["b"], reach=2).results == {"placed": True}
    assert rules.run("strike", as_=e["a"], against=e["c"]).results == {"placed": False}
    assert rules.run("strike", as_=e["a"]).results == {"placed": False}


def test_a_failed_require_shows_what_it_computed(grid_game) -> None:  # type: ignore[no-untyped-def]
    rules, e = grid_game
    with pytest.raises(RunebookError) as caught:
        rules.run("strike", as_=e["a"], against=e["b"], reach=1)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.code == "E0613"
    assert "here hex_distance(actor, target) = 2" in str(caught.value)


# ---------------------------------------------------------------- line to target


def strictly_inside(x: Fraction, y: Fraction, cell: tuple[int, int]) -> bool:
    """On the plane (q + r/2, 3r/2) a hexagon is |dx| < 1/2 and |dx| + |dy| < 1 inside."""
    dx, dy = x - Fraction(2 * cell[0] + cell[1], 2), y - Fraction(3 * cell[1], 2)
    return abs(dx) < Fraction(1, 2) and abs(dx) + abs(dy) < 1


def test_a_straight_wall_blocks_only_what_it_covers() -> None:
    row = "cells(cell(1, 0), cell(0, 1), cell(1, -1))"
    assert value("line_clear(cell(0, 0), cell(2, 0), cells(cell(1, 0)))") is True  # along the corners
    assert value('line_clear(cell(0, 0), cell(2, 0), cells(cell(1, 0)), "touching")') is False  # A17
    assert value(f"line_clear(cell(0, 0), cell(2, 0), {row})") is False
    assert value("line_clear(cell(0, 0), cell(4, 0), cells(cell(2, 0)))") is True
    assert value("line_clear(cell(0, 0), cell(2, 0), cell(1, 0))") is True  # one wall cell
    assert value("line_clear(cell(0, 0), cell(0, 0), burst(cell(0, 0), 1))") is True


def test_crossing_agrees_with_sampled_points() -> None:
    """Random corner-to-corner segments and walls: the exact test agrees with 49 points along
    the segment tested against the hexagon's own inequalities."""
    import random

    rng = random.Random(11)
    crossings = 0
    for _ in range(250):
        a, b = hg.Cell(rng.randint(-3, 3), rng.randint(-3, 3)), hg.Cell(rng.randint(-3, 3), rng.randint(-3, 3))
        wall = (rng.randint(-3, 3), rng.randint(-3, 3))
        p, q = rng.choice(hg.corners(a)), rng.choice(hg.corners(b))
        sampled = any(strictly_inside(p[0] + (q[0] - p[0]) * Fraction(k, 48), p[1] + (q[1] - p[1]) * Fraction(k, 48),
                                      wall) for k in range(49))
        exact = hg.crosses(p, q, hg.Cell(*wall))
        assert exact == sampled, (p, q, wall)  # (no thin slivers between samples at this seed)
        assert hg.crosses(p, q, hg.Cell(*wall), touching=True) or not exact
        crossings += exact
    assert crossings >= 10


def test_line_to_target_option(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Mestezia's A17 option picks the rule (the game reads its option; the builtin is generic)."""
    from runebook import interpreter

    (tmp_path / "los.rules").write_text(
        "extends mestezia\n\ncheck Sight ()\n"
        "  result seen = line_to_target(cell(0, 0), cell(2, 0), cells(cell(1, 0)))\n")
    rules = interpreter.load(str(tmp_path))
    assert rules.resolve("sight").results == {"seen": True}
    assert rules.resolve("sight", options={"los_grazing": "blocks"}).results == {"seen": False}
