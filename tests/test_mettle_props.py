"""Properties of a METTLE Core Attack (rulesets/mettle/combat.rules) over random combatants and
dice: the damage is the book's formula worked out here, Mettle falls by exactly that much, and
the Staggered/Fallen standing follows the Mettle track."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runebook.interpreter.rules import load
from runebook.interpreter.rules.procedures import ScriptedDriver

RULES = load("mettle")
SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def combatant(tmp: Path, name: str, **stats: int) -> object:
    data = {"name": name, "weapon": "Blade", "stats": {"Range": 0, "Zone": 0, "Parry": 0, **stats}}
    path = tmp / f"{name}.yaml"
    path.write_text(json.dumps(data))
    return RULES.entity(str(path))


@st.composite
def fights(draw):  # type: ignore[no-untyped-def]
    attacker = {"CONCEPT": draw(st.integers(1, 6)), "FRAME": draw(st.integers(0, 6)), "MOTIVE": draw(st.integers(1, 6)),
                "NATURE": draw(st.integers(1, 5)), "POISE": draw(st.integers(1, 6)), "Armor": draw(st.integers(0, 2)),
                "Hit": draw(st.integers(0, 2)), "DM": draw(st.integers(0, 8))}
    defender = {"CONCEPT": draw(st.integers(1, 6)), "FRAME": draw(st.integers(0, 6)), "MOTIVE": draw(st.integers(1, 6)),
                "NATURE": 3, "POISE": draw(st.integers(0, 6)), "Armor": draw(st.integers(0, 3)), "Hit": 0, "DM": 1}
    pool = attacker["NATURE"] + attacker["Hit"]
    faces = draw(st.lists(st.integers(1, 6), min_size=pool, max_size=pool))
    return attacker, defender, faces


@SETTINGS
@given(fights())
def test_an_attack_follows_the_book(tmp_path_factory, fight) -> None:  # type: ignore[no-untyped-def]
    attacker, defender, faces = fight
    tmp = tmp_path_factory.mktemp("p")
    a, d = combatant(tmp, "A", **attacker), combatant(tmp, "D", **defender)
    run = RULES.run("Attack", as_=a, against=d, dice=faces, driver=ScriptedDriver(["accept_failure"]))
    score = sum(f for f in faces if f <= 3)
    edge = sum(1 for f in faces if f >= 4)
    hit = score >= defender["POISE"]
    damage = max(0, attacker["DM"] + edge - defender["FRAME"] - defender["Armor"]) if hit else 0
    assert run.results["hit"] is hit
    assert run.results["damage"] == damage
    mettle = defender["CONCEPT"] - damage
    assert run.results["target_mettle"] == mettle
    standing = "Fallen" if mettle < -defender["MOTIVE"] else "Staggered" if mettle <= 0 else "Steady"
    assert run.results["target_standing"] == standing
