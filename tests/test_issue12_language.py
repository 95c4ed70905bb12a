"""Issue 12: general language defects found while writing a game's procedures. Each test
failed before its fix; the games here are small and made up, so no game's terms are needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from runebook import interpreter


def _game(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "game"
    folder.mkdir()
    (folder / "rules.rules").write_text(text, encoding="utf-8")
    return folder


# ------------------------------------------------ 1. a hyphenated level name given with --with

HYPHENS = """\
levels Duration: lasting < One-Shot < One-Arc
check Pick (kind: Duration = lasting, kinds: list of Duration = [])
  result got = kind
  result longest = count([k for k in kinds if rank(k) == 2])
"""


def test_a_hyphenated_level_name_is_read_as_the_name(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    game = _game(tmp_path, HYPHENS)
    out = cli("resolve", str(game), "Pick", "--with", "kind=One-Shot", "--with", "kinds=One-Arc,lasting,One-Arc")
    assert out.code == 0, out.stderr
    assert "got: One-Shot" in out.stdout
    assert "longest: 2" in out.stdout


def test_a_subtraction_that_names_no_level_is_still_refused(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    game = _game(tmp_path, HYPHENS)
    out = cli("resolve", str(game), "Pick", "--with", "kind=One-Two")
    assert out.code == 1
    assert "E0008" in out.stderr or "E0603" in out.stderr


# ------------------------------------------------ 2. names that start like a die

DIE_NAMES = """\
option d6_variant: off | on = off
check Roll Votes (d6_votes: number = 1, d12_extra: number = 0)
  roll pool = d6_votes d6
  result total = sum(pool) + d6_votes + d12_extra
  result variant = d6_variant == on
"""


def test_names_starting_with_a_die_are_names(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    game = _game(tmp_path, DIE_NAMES)
    assert cli("check", str(game)).code == 0
    out = cli("resolve", str(game), "Roll Votes", "--with", "d6_votes=2", "--with", "d12_extra=1",
              "--option", "d6_variant=on", "--dice", "3,4")
    assert out.code == 0, out.stderr
    assert "total: 10" in out.stdout and "variant: true" in out.stdout


@pytest.mark.parametrize(("expression", "dice", "total"), [
    ("d6+d12", [2, 11], 13), ("2d6kh1", [2, 5], 5), ("d6x6", [6, 2], 8), ("d6 + 2", [3], 5),
])
def test_dice_are_still_dice(expression: str, dice: list[int], total: int) -> None:
    assert interpreter.roll(expression, dice=dice).total == total


# ------------------------------------------------ 3. lists on example lines

EXAMPLE_LISTS = """\
procedure Sum Up (xs: list of number = [], names: list of text = [])
  result total = sum(xs)
  result first_name = first(names)

example Sum Up (xs = [4, 5, -1], names = [ana, bo])
"""


def test_an_example_line_takes_lists(tmp_path: Path) -> None:
    rules = interpreter.load(str(_game(tmp_path, EXAMPLE_LISTS)))
    example = rules.examples[0]
    assert example.inputs == {"xs": (4, 5, -1), "names": ("ana", "bo")}
    assert rules.run("Sum Up", **example.inputs).results["total"] == 8


# ------------------------------------------------ 4. a dice pool kept in a list

POOLS = """\
procedure Pools ()
  let pools = [2d6, 1d8]
  let each = [p for p in pools]
  result faces = count(pools[0])
  result best = highest(each[0])
  result total = sum(pools[1])
  result totals = pools
"""


def test_a_pool_in_a_list_stays_a_pool(tmp_path: Path) -> None:
    rules = interpreter.load(str(_game(tmp_path, POOLS)))
    results = rules.run("Pools", dice=[3, 5, 7]).results
    assert (results["faces"], results["best"], results["total"]) == (2, 5, 7)
    assert results["totals"] == (8, 7)  # a result reads each pool as its total


# ------------------------------------------------ 5. `none` in a game that names a level none

NONE_LEVEL = """\
option spending: every_six | none = every_six
procedure Find (xs: list of number, v: number)
  roll d = d4
  let at = index(xs, v)
  result missing = at == none
  result spending_off = spending != every_six
"""


def test_none_is_the_value_where_a_level_is_named_none(tmp_path: Path) -> None:
    """An option with a level `none` made `index(xs, v) == none` compare with that level, so
    it never held; run, odds and the type check now read `none` as the value."""
    rules = interpreter.load(str(_game(tmp_path, NONE_LEVEL)))
    run = rules.run("Find", xs=[1, 2], v=3, dice=[2], options={"spending": "none"})
    assert run.results["missing"] is True and run.results["spending_off"] is True
    assert rules.run("Find", xs=[1, 2], v=2, dice=[2]).results["missing"] is False
    assert rules.odds("Find", xs=[1, 2], v=3).results["missing"] == {True: 1}


def test_a_level_named_like_a_value_is_warned_about(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = cli("check", str(_game(tmp_path, NONE_LEVEL)))
    assert out.code == 0
    assert "1:30: E0306 'none' is a value of the language: in rules it means none" in out.stderr


@pytest.mark.parametrize("declaration", ["levels Answer: no < true", "procedure Ask ()\n  choose reply: false | maybe"])
def test_true_and_false_levels_are_warned_about_too(tmp_path: Path, declaration: str) -> None:
    rules = interpreter.load(str(_game(tmp_path, declaration + "\n")))
    assert [d.code for d in rules.diagnostics if d.severity == "warning"] == ["E0306"]


# ------------------------------------------------ found on the way: a roll line's dice and options

OPTION_DICE = """\
option size: small | large = small
function die_sizes(n) = [4, 6] if size == small else [8, 10]
procedure Roll It (n: number = 2)
  roll pool = ladder(n, die_sizes(n))
  result total = sum(pool)
"""


def test_a_roll_line_reads_the_options_of_its_run(tmp_path: Path) -> None:
    """The dice of a `roll` line were worked out outside the run, so a function there read
    every option at its default."""
    rules = interpreter.load(str(_game(tmp_path, OPTION_DICE)))
    small = rules.run("Roll It", dice=[3])
    large = rules.run("Roll It", dice=[7], options={"size": "large"})
    assert [d.label for d in small.trace.dice()] == ["d6"]
    assert [d.label for d in large.trace.dice()] == ["d10"]
