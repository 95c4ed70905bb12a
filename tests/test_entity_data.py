"""Game-neutral tests of `data_of(entity, "key"[, default])` (what an entity file gives
under a key that is not a stat) and `level_in(text, level)` (the level of a group a text
names first)."""

from __future__ import annotations

from pathlib import Path

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError

GAME = """\
stats Might

levels Element: plain < frost < flame < storm

procedure Inspect (key = "gear tags")
  result value = data_of(actor, key, "none")
  result element = level_in(data_of(actor, key), plain)
  result plain_text = level_in("nothing here", plain)
  result later = level_in("Storm then frost", frost)

uses entry text
"""

HERO = """\
name: Hero
stats:
  Might: 2
gear tags: [Sharp, Flame, Frost]
motto: Onward
rank: 4
"""


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("data-game")
    (folder / "game.rules").write_text(GAME)
    (folder / "hero.yaml").write_text(HERO)
    rules = interpreter.load(str(folder))
    return rules, rules.entity(str(folder / "hero.yaml"))


@pytest.mark.parametrize("key, value, element", [
    ("gear tags", "Sharp Flame Frost", "flame"),   # a list reads as its items, spaced; first named wins
    ("GEAR TAGS", "Sharp Flame Frost", "flame"),   # keys match like names
    ("motto", "Onward", "plain"),                  # a text names no element: the default
    ("rank", 4, "plain"),
    ("missing", "none", "plain")])                 # the default; without one, ""
def test_data_of_and_level_in(game, key: str, value: object, element: str) -> None:  # type: ignore[no-untyped-def]
    rules, hero = game
    run = rules.run("Inspect", as_=hero, key=key)
    assert run.results["value"] == value
    assert str(run.results["element"]) == element
    assert str(run.results["plain_text"]) == "plain"
    assert str(run.results["later"]) == "storm"   # the first named in the text, not the group's order


def test_level_in_needs_a_level(tmp_path: Path) -> None:
    """A number where level_in takes a level: the type check refuses the game when it loads."""
    (tmp_path / "game.rules").write_text(GAME + '\nprocedure Bad ()\n  result oops = level_in("frost", 3)\n')
    with pytest.raises(RunebookError) as error:
        interpreter.load(str(tmp_path))
    assert [(d.code, d.message) for d in error.value.diagnostics] == [
        ("E0423", "argument 2 of 'level_in' is a number; it takes a level")]


PREDICATES = """\
stats Vigor
resource Breath (start = 3)
condition Braced ()

function is_winded(e) = resource(e, Breath) <= 1
function is_two_things(a, b) = true

procedure Gate (which = 1)
  require meets(actor, "While: you are Winded" if which == 1 else "winded and Braced" if which == 2 else "two things")
  result ok = true

uses entry text
"""


@pytest.mark.parametrize("breath, which, ok", [
    (1, 1, True), (3, 1, False),                   # "While: you are Winded"
    (1, 2, False),                                 # "winded and Braced": the condition must be held too
    (3, 3, True)])                                 # "two things": only one-parameter is_ functions are states
def test_meets_reads_is_predicates(tmp_path: Path, breath: int, which: int, ok: bool) -> None:
    (tmp_path / "game.rules").write_text(PREDICATES)
    (tmp_path / "e.yaml").write_text(f"name: E\nstats:\n  Vigor: 1\nresources:\n  Breath: {breath}\n")
    rules = interpreter.load(str(tmp_path))
    entity = rules.entity(str(tmp_path / "e.yaml"))
    if ok:
        assert rules.run("Gate", as_=entity, which=which).results == {"ok": True}
    else:
        with pytest.raises(RunebookError) as error:
            rules.run("Gate", as_=entity, which=which)
        assert [d.code for d in error.value.diagnostics] == ["E0613"]


def test_a_condition_and_a_predicate_of_the_same_name(tmp_path: Path) -> None:
    """`Spent` is a condition and `is_spent` a predicate: either one satisfies the text."""
    game = PREDICATES + "condition Spent ()\nfunction is_spent(e) = resource(e, Breath) == 0\n"
    (tmp_path / "game.rules").write_text(game.replace('else "two things")', 'else "two things" if which == 3 else "Spent")'))
    rules = interpreter.load(str(tmp_path))
    for n, (breath, conditions, ok) in enumerate(((0, "", True), (2, "conditions: [Spent]\n", True), (2, "", False))):
        path = tmp_path / f"e{n}.yaml"
        path.write_text(f"name: E\nstats:\n  Vigor: 1\nresources:\n  Breath: {breath}\n{conditions}")
        entity = rules.entity(str(path))
        if ok:
            assert rules.run("Gate", as_=entity, which=4).results == {"ok": True}
        else:
            with pytest.raises(RunebookError):
                rules.run("Gate", as_=entity, which=4)
