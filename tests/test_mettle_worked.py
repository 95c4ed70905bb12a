"""Every worked example of spec mettle.md §6 that the Check tests (test_checks_mettle.py: P-01
to P-04, S-11's Check) do not already cover, each with its given dice, from
rulesets/mettle (hazards.rules, combat.rules). Numbers are the book's; each test says where
its expectation comes from."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from runebook.interpreter.rules import load

GAME = "mettle"
EXAMPLES = Path(__file__).resolve().parent.parent / "rulesets" / "mettle" / "examples"


def ex(name: str) -> str:
    return str(EXAMPLES / f"{name}.yaml")


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load(GAME)


def plain(results: dict[str, Any]) -> dict[str, Any]:
    return {k: v if isinstance(v, (int, bool, Fraction, tuple)) or v is None else str(v) for k, v in results.items()}


def run(cli, *args: str) -> dict:  # type: ignore[no-untyped-def]
    out = cli("run", GAME, *args, "--json")
    assert out.code == 0, out.stderr
    return json.loads(out.stdout)["results"]


# ---------------------------------------------------------------- S-01 to S-04: falls


@pytest.mark.parametrize(("metres", "bonus"), [(0, 0), (2, 0), (6, 2), (12, 4), (60, 20), (300, 20)])
def test_s01_to_s04_fall_dice(rules, metres: int, bonus: int) -> None:  # type: ignore[no-untyped-def]
    """Trench 1d6; second storey 1d6+2; several floors 1d6+4; skydiving 1d6+20 at most."""
    assert rules.resolve("Fall Dice Bonus", metres=metres).results["bonus"] == bonus


def test_fall_surfaces_and_the_stacking_rule(rules) -> None:  # type: ignore[no-untyped-def]
    assert rules.resolve("Fall Dice Bonus", metres=6, surface="hard_ground").results["bonus"] == 3
    # Water (-2) and a purposeful jump (-2): only the largest penalty counts (A19)...
    assert rules.resolve("Fall Dice Bonus", metres=6, surface="water", jumped=True).results["bonus"] == 0
    # ...or both, when modifiers add up.
    summed = rules.resolve("Fall Dice Bonus", metres=6, surface="water", jumped=True, options={"dice_stacking": "sum"})
    assert summed.results["bonus"] == -2


def test_a_fall_is_soaked_by_poise(cli) -> None:  # type: ignore[no-untyped-def]
    # 12 m: 1d6+4, die 3 = 7, less the scout's POISE 2 = 5; Mettle 4 -> -1, Staggered.
    assert run(cli, "Fall", "--as", ex("scout"), "--with", "metres=12", "--dice", "3") == {
        "roll": 7, "damage": 5, "mettle": -1, "standing": "Staggered"}
    # Into water from a trench: 1 - 2 is floored at 0.
    assert run(cli, "Fall", "--as", ex("scout"), "--with", "surface=water", "--dice", "1")["roll"] == 0


# ---------------------------------------------------------------- S-05, S-06: dosage


@pytest.mark.parametrize("face", range(1, 7))
def test_s05_a_plain_tranquilizer_cannot_touch_an_elephant(cli, face: int) -> None:  # type: ignore[no-untyped-def]
    """Potence 1d6 against FRAME 11: Strain 0 whatever the die (and so every later Roll)."""
    # The first Roll, then one lower or equal ends it (a 1 after it; a 6 is followed by any die).
    out = run(cli, "Affliction", "--as", ex("elephant"), "--with", "less_lethal=true", "--dice", f"{face},1")
    assert out["strain"] == 0 and out["fate"] == "unharmed"


def test_s06_a_dose_of_1d6_plus_6_slightly_affects_it(cli) -> None:  # type: ignore[no-untyped-def]
    """1d6+6: a 6 makes 12, Strain 1 (12 - 11); the next Roll can only be lower or equal."""
    out = run(cli, "Affliction", "--as", ex("elephant"), "--with", "bonus=6", "--with", "less_lethal=true",
              "--dice", "6,6")
    assert out == {"rolls": [12], "strain": 1, "fate": "under_strain"}
    for face in range(1, 6):  # 7-11 is no Strain at exposure
        first = run(cli, "Affliction", "--as", ex("elephant"), "--with", "bonus=6", "--with", "intervals=1",
                     "--dice", str(face))
        assert first["strain"] == 0


# ---------------------------------------------------------------- S-07: deprivation recovery


def test_s07_a_drowning_victim_regains_air(cli) -> None:  # type: ignore[no-untyped-def]
    assert run(cli, "Deprivation", "--as", ex("scout"), "--with", "need=suffocation", "--with", "strain=3",
               "--with", "recovering=true", "--with", "days=3") == {"strain": [2, 1, 0], "fate": "unharmed"}


def test_deprivation_kills_when_strain_passes_mettle(cli) -> None:  # type: ignore[no-untyped-def]
    # Thirst, 3 a day, against the scout's Mettle 4: 3 then 6 > 4.
    assert run(cli, "Deprivation", "--as", ex("scout"), "--with", "need=thirst", "--with", "days=2") == {
        "strain": [3, 6], "fate": "killed"}
    # Fatigue only knocks out at Strain = Mettle, unless sleep is prevented entirely.
    assert run(cli, "Deprivation", "--as", ex("scout"), "--with", "need=fatigue", "--with", "days=2")["fate"] == \
        "knocked_out"
    assert run(cli, "Deprivation", "--as", ex("scout"), "--with", "need=fatigue", "--with", "days=3",
               "--with", "no_sleep_at_all=true")["fate"] == "killed"


@pytest.mark.parametrize(("need", "mode", "faces", "steps"), [
    ("hunger", "rolled_ranges", [1, 2, 3, 4, 5, 6], [0, 0, 0, 1, 1, 1]),
    ("thirst", "rolled_ranges", [1, 2, 3, 4, 5, 6], [1, 1, 2, 2, 3, 3]),
    ("fatigue", "rolled_ranges", [1, 2, 3, 4, 5, 6], [1, 1, 1, 2, 2, 2]),
    ("hunger", "formula_literal", [1, 2, 3, 4, 5, 6], [2, 2, 2, 3, 3, 3]),
])
def test_a12_rolled_deprivation_rates(cli, need: str, mode: str, faces: list[int],  # type: ignore[no-untyped-def]
                                      steps: list[int]) -> None:
    for face, step in zip(faces, steps):
        out = run(cli, "Deprivation", "--as", ex("elephant"), "--with", f"need={need}", "--option",
                  f"deprivation_rolls={mode}", "--dice", str(face))
        assert out["strain"] == [step]


# ---------------------------------------------------------------- S-08 to S-11: traps


def test_s08_flooding_room(cli) -> None:  # type: ignore[no-untyped-def]
    # POISE 2 against Difficulty 8 cannot succeed (6 at most): the room floods in 5 Rounds.
    out = run(cli, "Trap", "--as", ex("scout"), "--with", "trap=flooding_room", "--dice", "3,3")
    assert out["spotted"] is False and out["floods_in_rounds"] == 5


def test_s09_pitfall(cli) -> None:  # type: ignore[no-untyped-def]
    # Detection [1,1] Score 2 < 4; the fall die 3 + 2 = 5, less POISE 2 = 3.
    out = run(cli, "Trap", "--as", ex("scout"), "--with", "trap=pitfall", "--dice", "1,1,3")
    assert (out["spotted"], out["roll"], out["damage"]) == (False, 5, 3)


def test_s10_scything_blade(cli) -> None:  # type: ignore[no-untyped-def]
    # Detection fails; 2d6 = [4,5] = 9, less FRAME 3 (no armour) = 6.
    out = run(cli, "Trap", "--as", ex("scout"), "--with", "trap=scything_blade", "--dice", "1,1,4,5")
    assert (out["spotted"], out["roll"], out["damage"]) == (False, 9, 6)


def test_s11_tripwire_alerts_the_bandits(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    watcher = tmp_path / "w.yaml"
    watcher.write_text(EXAMPLES.joinpath("scout.yaml").read_text().replace("POISE: 2", "POISE: 3"))
    # POISE 3, [1,2,6]: Score 3 < 4, Edge 1 (a Twist could be called): the bandits are alerted.
    out = run(cli, "Trap", "--as", str(watcher), "--with", "trap=tripwire", "--dice", "1,2,6",
              "--answer", "action_twist=decline")
    assert (out["score"], out["edge"], out["twist_allowed"], out["alerted"]) == (3, 1, True, True)
    spotted = run(cli, "Trap", "--as", str(watcher), "--with", "trap=tripwire", "--dice", "1,3,6")
    assert spotted["spotted"] is True and spotted["alerted"] is False


# ---------------------------------------------------------------- S-12 to S-16


@pytest.mark.parametrize(("edge", "penalty"), [(1, 1), (3, 3), (5, 3)])
def test_s12_splatter_is_capped_at_3(rules, edge: int, penalty: int) -> None:  # type: ignore[no-untyped-def]
    assert rules.resolve("Splatter Stunt", edge=edge).results["penalty"] == penalty


@pytest.mark.parametrize("face", range(1, 7))
def test_s13_a_jam_takes_a_use_check_against_1d6(cli, face: int) -> None:  # type: ignore[no-untyped-def]
    out = run(cli, "Unjam", "--as", ex("scout"), "--dice", f"{face},1,1,1")
    assert out["difficulty"] == face
    assert out["outcome"] == ("success" if 3 >= face else "failure")


def test_s14_s15_visibility_and_blindness(rules) -> None:  # type: ignore[no-untyped-def]
    assert rules.resolve("Visibility Difficulty", base=3, light="dim").results["difficulty"] == 4
    assert rules.resolve("Visibility Difficulty", base=3, light="dark").results["difficulty"] == 6
    blind = rules.resolve("Visibility Difficulty", base=2, blinded=True, sight_reliant=False)
    assert plain(blind.results) == {"possible": True, "difficulty": 5}
    assert rules.resolve("Visibility Difficulty", base=2, blinded=True).results["possible"] is False


def test_s16_rally_is_best_at_half_mettle(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    gains = []
    for current in range(1, 7):
        who = tmp_path / f"r{current}.yaml"
        who.write_text(EXAMPLES.joinpath("viktor.yaml").read_text() + f"resources: {{Harm: {6 - current}}}\n")
        gains.append(run(cli, "Rally", "--as", str(who))["gained"])
    assert gains == [1, 2, 3, 2, 1, 0]


# ---------------------------------------------------------------- P-05 to P-09


def test_p05_viktor_has_6_mettle(cli) -> None:  # type: ignore[no-untyped-def]
    assert run(cli, "Mettle Track", "--as", ex("viktor"))["max_mettle"] == 6


def test_p06_motive_3_track(cli) -> None:  # type: ignore[no-untyped-def]
    out = run(cli, "Mettle Track", "--as", ex("bandit"))
    assert (out["staggered_from"], out["staggered_to"], out["fallen_below"]) == (0, -3, -3)


def test_p07_tyre_popping(rules) -> None:  # type: ignore[no-untyped-def]
    assert plain(rules.resolve("Tyre Popping", after_soak=5).results) == {"vehicle_damage": 3, "handling": 2}


def test_p08_a_roll_never_drops_below_zero(rules) -> None:  # type: ignore[no-untyped-def]
    assert rules.resolve("Roll", count=2, modifier=-4, dice=[1, 2]).results["total"] == 0


@pytest.mark.parametrize(("divisor", "expected"), [(3, [1, 1, 1, 2, 2, 2]), (2, [1, 1, 2, 2, 3, 3])])
def test_p09_fractional_rolls(rules, divisor: int, expected: list[int]) -> None:  # type: ignore[no-untyped-def]
    assert [rules.resolve("Fractional Roll", divisor=divisor, dice=[f]).results["total"] for f in range(1, 7)] == \
        expected


def test_a19_sight_penalties_do_not_add_up(rules) -> None:  # type: ignore[no-untyped-def]
    # Darkness (+3) and 2 points of Splatter: the larger counts, or both.
    assert rules.resolve("Visibility Difficulty", base=3, light="dark", splatter=2).results["difficulty"] == 6
    assert rules.resolve("Visibility Difficulty", base=3, light="dim", splatter=2).results["difficulty"] == 5
    summed = rules.resolve("Visibility Difficulty", base=3, light="dark", splatter=2,
                           options={"difficulty_stacking": "sum_all"})
    assert summed.results["difficulty"] == 8
