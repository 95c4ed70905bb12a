"""Conditions that stack (`stacks = N`) and `holds(entity, NAME)`: a game-neutral game in a
temporary folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from runebook import interpreter

GAME = """stats Defense

condition Bruised (lasts = scene, stacks = 3)
  modifier Defense = -1

condition Braced (lasts = scene)
  modifier Defense = 2

procedure Brawl (hits: number = 1, misses: number = 0)
  let left = hits
  step hit
  goto miss if left <= 0
  apply Bruised
  apply Braced
  set left = left - 1
  goto hit
  step miss
  let healed = misses
  step heal
  goto done if healed <= 0
  remove Bruised
  set healed = healed - 1
  goto heal
  step done
  result bruises = holds(actor, Bruised)
  result braced = holds(actor, Braced)
  result defense = Defense + modifier(actor, "Defense")
  reset scene
  result after_scene = holds(actor, Bruised)
"""


@pytest.fixture
def rules(tmp_path: Path):  # type: ignore[no-untyped-def]
    (tmp_path / "game.rules").write_text(GAME, encoding="utf-8")
    (tmp_path / "a.yaml").write_text("name: A\nstats:\n  Defense: 10\n", encoding="utf-8")
    return interpreter.load(str(tmp_path))


@pytest.mark.parametrize(("hits", "misses", "bruises"), [(1, 0, 1), (2, 0, 2), (3, 0, 3), (5, 0, 3),
                                                         (3, 1, 2), (2, 5, 0), (0, 0, 0)])
def test_a_stacking_condition_is_held_up_to_its_limit(rules, tmp_path: Path, hits: int, misses: int,
                                                      bruises: int) -> None:  # type: ignore[no-untyped-def]
    run = rules.run("brawl", as_=rules.entity(str(tmp_path / "a.yaml")), hits=hits, misses=misses)
    braced = 1 if hits else 0  # a condition without `stacks` is held once
    assert run.results == {"bruises": bruises, "braced": braced, "defense": 10 - bruises + 2 * braced,
                           "after_scene": 0}
    assert run.state["actor"]["conditions"] == []
