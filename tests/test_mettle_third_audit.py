"""METTLE Core, third audit: cases derived from spec mettle.md and the SRD (shared/seeds/
mettle-core-srd), run through the command line as a user would. The tests of each defect fail
without its fix; beside them, golden cases with given dice check the edges that still play.
Expected numbers are worked out in the comments from the book's rules.

Defects found and fixed (rulesets/mettle):

1. Falls (§4.10): a negative height was taken (`Fall --with metres=-30` gave a 1d6-10 fall, no
   damage); `Plummet` and the check `Fall Dice Bonus` the same, and a negative spike bonus.
2. Deprivation (§4.9): `days` of 0 or less ran nothing and reported "unharmed", a negative
   `strain` was read as 0, and `every` below 1 was read as 1.
3. Fire (§4.15): `rounds` of 0 or less ran no Round and reported no damage.
4. Afflictions (§4.7): `intervals` below 1 still rolled the exposure.
5. Attack (§3, §4.10): a negative DM `bonus` or `plummet` took damage away (the Plummet adds
   at most +2 of a fall's bonus; a Surprise adds the Sneak's Edge); the same in `Strike`,
   `Blast Attack`, `Burst Attack`.
6. `Mend Weapon` took a negative Difficulty.
7. Travel (§4.14): a negative `rations` counted extra hungry days in a crawl; `legs` below 1.
8. Obstacles (§4.12-§4.14): `Move Past`, `Race`'s `stretches` and a `Journey`'s `legs` took
   negative Difficulties that made the Check easier (`Move`, `Chase`, `Race Stretch` already
   refused them).
9. Vehicles (Resources chapter: "Current Speed acts as a Move in Zones"; §4.13 a race Check is
   "vs its current Speed", which starts at Top Speed): a driver's file filled `Race Stretch`'s
   and `Ram`'s `speed` with the driver's own foot Speed 1 instead of the vehicle's.
10. Ram (Resources chapter: "damage to rammer: target's FRAME + Speed"): the target vehicle's
    FRAME in its driver's file was ignored (0) unless given again as `target_frame`.
11. Climb (§3 move: a vehicle's zone is climbed against its max Speed): `vehicle=true` on
    someone with no vehicle climbed against a Speed of 0, a sure success.
12. Ram (Resources chapter: a vehicle, or a pedestrian's POISE): a target with no vehicle rammed
    without `on_foot` was hit against a Speed of 0 for damage that landed on no one.
13. CONCEPT substitution (§1.2, Characters chapter: a higher, better suited CONCEPT replaces the
    Attribute; §3 travel's pool_alt): `Travel Rivals`, `Move`, `Move Past`, `Climb` and `Board`
    rolled POISE only, with no way to name a fitting CONCEPT (`concept_fits` added).
14. Heal (§3 heal: a failure means the patient "succumbs"): a Dead patient could be healed (a
    success left it `Dead` and `Staggered` at once), and a dead character could aid itself
    (rule `Patient Still Alive`).
15. Sneak and Parley (§3: against the target's MOTIVE, or the highest in the group) with no
    `--against` stopped on E0405 "'max' cannot apply to an empty list", naming no rule; an
    `Area Attack` on nobody spent the Attack silently. Each now requires someone.
16. Heal under `heal_pool=patient_motive` (§5 A2, the later rules: the patient's MOTIVE each
    day): the patient rolls, yet the healer's Staggered penalty was taken off and the patient's
    own was ignored; now the patient's counts (A30: in full, or never below MOTIVE dice).
17. Sneak's Group Option (§3 sneak: "only the character with the lowest pool Checks"; §1.1: a
    pool is counted after its ±D): the lowest was picked by bare POISE, so an encumbered member
    rolling fewer dice was passed over.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mettle_helpers import ex, fighter, refused, run

COAST = str(Path(__file__).resolve().parent.parent / "rulesets" / "mettle" / "homebrew")
CAR = ex("rook")  # Rook: POISE 2, FRAME 2; sports car Handling +2D, Top Speed 6, FRAME 9
BIKE = ex("kirin-on-a-bike")  # Kirin: POISE 5, FRAME 2, Armor 1; dirt bike +2D, Speed 3, FRAME 4


def refused_check(cli, rule: str, *args: str) -> None:  # type: ignore[no-untyped-def]
    """``runebook resolve`` exits 1 with E0613 naming ``rule``."""
    out = cli("resolve", "mettle", *args)
    assert out.code == 1 and "E0613" in out.stderr and f"'{rule}' requires" in out.stderr, out.stderr


# ---------------------------------------------------------------- 1-8: inputs the rules forbid


@pytest.mark.parametrize(("proc", "args", "rule"), [
    ("Fall", ("--as", ex("scout"), "--with", "metres=-30", "--dice", "6"), "Fall"),
    ("Fall", ("--as", ex("scout"), "--with", "spikes=true", "--with", "spike_bonus=-9", "--dice", "6,6"), "Fall"),
    ("Plummet", ("--as", ex("scout"), "--against", ex("bandit"), "--with", "metres=-30", "--dice", "6,6,6,6"),
     "Plummet"),
    ("Deprivation", ("--as", ex("scout"), "--with", "days=0"), "Deprivation"),
    ("Deprivation", ("--as", ex("scout"), "--with", "strain=-5", "--with", "need=thirst"), "Deprivation"),
    ("Deprivation", ("--as", ex("scout"), "--with", "every=0", "--with", "days=2"), "Deprivation"),
    ("Fire", ("--as", ex("scout"), "--with", "rounds=0"), "Fire"),
    ("Affliction", ("--as", ex("scout"), "--with", "agent=cobra_venom", "--with", "intervals=0", "--dice", "6"),
     "Affliction"),
    ("Attack", ("--as", ex("bandit-chief"), "--against", ex("kirin"), "--with", "plummet=-9",
                "--dice", "3,3,1,5,6"), "Strike"),
    ("Attack", ("--as", ex("bandit-chief"), "--against", ex("kirin"), "--with", "bonus=-2",
                "--dice", "3,3,1,5,6"), "Strike"),
    ("Mend Weapon", ("--as", ex("scout"), "--with", "difficulty=-3", "--dice", "1,1,1"), "Mend Weapon"),
    ("Move Past", ("--as", ex("scout"), "--with", "obstacles=-2,3", "--dice", "1,1"), "Move Past"),
    ("Journey", ("--as", ex("scout"), "--with", "legs=-3,2", "--dice", "1,1,1,1"), "Journey"),
    ("Race", ("--as", BIKE, "--against", CAR, "--with", "stretches=-5", "--dice", "1,1,1,1,1,1,1,1,1,1,1"),
     "Race"),
])
def test_inputs_out_of_range_are_refused(cli, proc: str, args: tuple[str, ...], rule: str) -> None:  # type: ignore[no-untyped-def]
    """A height, a number of days, Rounds or intervals, a DM bonus, a Difficulty or an obstacle
    below what the rules allow is refused naming the procedure, and no file changes."""
    refused(cli, rule, proc, *args)


def test_fall_dice_bonus_refuses_a_negative_height(cli) -> None:  # type: ignore[no-untyped-def]
    # §4.10: +1 per 3 metres fallen; a height below 0 is no fall at all.
    refused_check(cli, "Fall Dice Bonus", "Fall Dice Bonus", "--with", "metres=-3")


def test_crawl_refuses_negative_rations(cli) -> None:  # type: ignore[no-untyped-def]
    # §4.14: rations are eaten a day at a time; -2 of them counted two more hungry days.
    refused(cli, "Point Crawl", "Coast Crawl", "--as", ex("kirin"), "--with", "rations=-2", "--dice", "1",
            game=COAST)


def test_a_fall_of_no_height_is_the_bare_die(cli) -> None:  # type: ignore[no-untyped-def]
    # The edge of what is allowed still plays: a 0 m fall (a trench) is 1d6 soaked by POISE 2:
    # die 6 -> 6 - 2 = 4 damage (S-01), the scout (CONCEPT 4) at 0.
    out = run(cli, "Fall", "--as", ex("scout"), "--with", "metres=0", "--dice", "6")
    assert out["results"]["roll"] == 6 and out["results"]["damage"] == 4 and out["results"]["mettle"] == 0


# ---------------------------------------------------------------- 9-10: vehicles read from the files


def test_race_stretch_is_at_the_vehicles_speed(cli) -> None:  # type: ignore[no-untyped-def]
    # Rook's car: POISE 2 + Handling 2 = 4 dice against its current Speed, Top Speed 6 at the
    # start. [3,3,1,5]: Score 7 >= 6, a success with Edge 1. At the foot Speed 1 the same dice
    # pass too, so the Speed shows in the result: 6.
    out = run(cli, "Race Stretch", "--as", CAR, "--dice", "3,3,1,5")
    assert out["results"]["speed"] == 6
    assert out["results"]["outcome"] == "success" and out["results"]["lead"] == 1
    # [1,1,1,4]: Score 3 < 6 fails (at Speed 1 it was a success); Edge 1, the failure kept,
    # a crash of 1d6 [2] + 6 = 8: the car's FRAME 9 soaks it all, Rook (FRAME 2) takes 6.
    crash = run(cli, "Race Stretch", "--as", CAR, "--answer", "race_twist=keep_failure", "--dice", "1,1,1,4,2")
    assert crash["results"]["outcome"] == "failure"
    assert crash["results"]["vehicle_damage"] == 0 and crash["results"]["driver_damage"] == 6


def test_a_driver_moves_at_the_vehicles_speed(cli) -> None:  # type: ignore[no-untyped-def]
    # "Current Speed acts as a Move in Zones": the bike (Speed 3) crosses 3 Zones in one Move;
    # on foot (no vehicle) the scout may not (Speed 1).
    # With no obstacle on the way there is no Check.
    out = run(cli, "Move", "--as", BIKE, "--with", "zones=3", "--with", "obstacles=0,0,0")
    assert out["results"]["zones_reached"] == 3 and out["results"]["speed"] == 3
    refused(cli, "Move Within Speed", "Move", "--as", ex("scout"), "--with", "zones=3", "--dice", "1,1")


def test_ram_reads_both_vehicles_from_the_files(cli) -> None:  # type: ignore[no-untyped-def]
    # The car rams the bike at its Speed (6, from the file) with 4 dice (POISE 2 + Handling 2)
    # against the bike's current Speed 3: [3,3,4,5] Score 6, Edge 2, a hit. To the bike: car
    # FRAME 9 + Speed 6 + Edge 2 = 17, less the bike's FRAME 4 = 13. Back to the car: the
    # bike's FRAME 4 + Speed 3 = 7, less the car's FRAME 9: no dent.
    out = run(cli, "Ram", "--as", CAR, "--against", BIKE, "--with", "target_speed=3", "--dice", "3,3,4,5")
    assert out["results"] == {"outcome": "success", "target_damage": 17, "vehicle_damage": 7}
    assert out["state"]["target"]["resources"]["Wreckage"] == 13
    assert out["state"]["actor"]["resources"]["Wreckage"] == 0


def test_ram_back_damage_dents_a_light_rammer(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # A light buggy (FRAME 2, Speed 4, Handling 0; driver POISE 3, CONCEPT 3) rams the car
    # standing at Speed 3: [3,3,1] Score 7 >= 3, Edge 0. Back: the car's FRAME 9 + 3 = 12, less
    # the buggy's FRAME 2 = 10 Wreckage on the buggy's driver (the car's FRAME read from its file).
    buggy = fighter(tmp_path, "Buggy", **{"Handling": 0, "Top Speed": 4, "Vehicle FRAME": 2})
    out = run(cli, "Ram", "--as", buggy, "--against", CAR, "--with", "target_speed=3", "--dice", "3,3,1")
    assert out["results"]["vehicle_damage"] == 12
    assert out["state"]["actor"]["resources"]["Wreckage"] == 10
    # To the car: FRAME 2 + Speed 4 + Edge 0 = 6, all soaked by its FRAME 9.
    assert out["results"]["target_damage"] == 6
    assert out["state"]["target"]["resources"].get("Wreckage", 0) == 0


# ---------------------------------------------------------------- 11-12: a vehicle that is none


def test_climbing_a_vehicle_needs_one(cli) -> None:  # type: ignore[no-untyped-def]
    # The Bandit drives nothing: climbing "his vehicle" is refused. The car (Top Speed 6) is
    # climbed with the scout's POISE 2: [3,3] Score 6 >= 6, a success; [3,2] Score 5 fails.
    refused(cli, "Driver Has Vehicle", "Climb", "--as", ex("scout"), "--against", ex("bandit"),
            "--with", "vehicle=true", "--dice", "1,1")
    up = run(cli, "Climb", "--as", ex("scout"), "--against", CAR, "--with", "vehicle=true", "--dice", "3,3")
    assert up["results"] == {"outcome": "success", "edge": 0}
    down = run(cli, "Climb", "--as", ex("scout"), "--against", CAR, "--with", "vehicle=true", "--dice", "3,2")
    assert down["results"] == {"outcome": "failure", "edge": 0}


def test_ramming_someone_on_foot_needs_on_foot(cli) -> None:  # type: ignore[no-untyped-def]
    refused(cli, "Driver Has Vehicle", "Ram", "--as", CAR, "--against", ex("bandit"), "--dice", "1,1,1,1")
    # On foot the Bandit's POISE 3 is the Difficulty: [1,1,4,5] Score 2 < 3 misses (Edge 2,
    # failure kept); [1,2,4,5] Score 3 hits: FRAME 9 + Speed 6 + Edge 2 = 17, less Soak 3 = 14.
    miss = run(cli, "Ram", "--as", CAR, "--against", ex("bandit"), "--with", "on_foot=true",
               "--answer", "combat_twist=accept_failure", "--dice", "1,1,4,5")
    assert miss["results"]["outcome"] == "failure"
    hit = run(cli, "Ram", "--as", CAR, "--against", ex("bandit"), "--with", "on_foot=true", "--dice", "1,2,4,5")
    assert hit["results"]["target_damage"] == 17
    assert hit["state"]["target"]["resources"]["Harm"] == 14


# ---------------------------------------------------------------- 13: a fitting CONCEPT


@pytest.mark.parametrize(("proc", "args"), [
    ("Move Past", ("--with", "obstacles=2,2")),
    ("Move", ("--with", "zones=1", "--with", "obstacles=4")),
    ("Climb", ("--against", ex("bandit"))),
    ("Board", ("--against", CAR, "--with", "current_speed=4")),
])
def test_a_fitting_concept_replaces_poise_on_the_move(cli, proc: str, args: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    # The scout: POISE 2, CONCEPT 4. With a fitting CONCEPT it rolls 4 dice: [1,1,1,1] Score 4
    # against 4 (obstacles 2 + 2; a 4 obstacle; the Bandit's POISE 3; the car at Speed 4): a
    # success. With POISE alone the same dice are two too many (E0502).
    out = run(cli, proc, "--as", ex("scout"), *args, "--with", "concept_fits=true", "--dice", "1,1,1,1")
    assert out["results"]["outcome"] == "success"
    plain = cli("run", "mettle", proc, "--as", ex("scout"), *args, "--answer", "action_twist=decline",
                "--dice", "1,1,1,1")
    assert plain.code == 1 and "E0502" in plain.stderr


def test_a_travel_rival_navigates_by_concept(cli) -> None:  # type: ignore[no-untyped-def]
    # §3 travel: the lead may use a navigation CONCEPT when higher. The scout's CONCEPT 4 against
    # Difficulty 5: [1,1,1,4] Score 3 < 5, a failure with Edge 1 (Twist declined), an encounter;
    # the Bandit's POISE 3: [2,2,1] Score 5, a success with no Edge. Arrival by Edge: Scout first.
    out = run(cli, "Travel Rivals", "--as", ex("scout"), "--against", ex("bandit"), "--with", "difficulty=5",
              "--with", "concept_fits=true", "--answer", "travel_twist=no_twist", "--dice", "1,1,1,4,2,2,1")
    assert out["results"] == {"arrival": ["Scout", "Bandit"], "edge": [1, 0], "encounter": [True, False]}


# ---------------------------------------------------------------- 14: past healing


def test_the_dead_are_past_healing(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Mettle 3 - 8 = -5 (CONCEPT 3, Harm 8), and Dead.
    dead = fighter(tmp_path, "Corpse", resources={"Harm": 8}, conditions=["Dead"])
    healer = ex("scout")
    refused(cli, "Patient Still Alive", "Heal", "--as", healer, "--against", dead, "--dice", "1,1,4")
    refused(cli, "Patient Still Alive", "Self Aid", "--as", dead, "--dice", "1")
    # The same wounds on a living patient: the scout's MOTIVE 3 [1,1,4] Score 2 against 5 fails
    # (Edge 1, declined): the patient dies.
    dying = fighter(tmp_path, "Dying", resources={"Harm": 8})
    out = run(cli, "Heal", "--as", healer, "--against", dying, "--answer", "action_twist=decline", "--dice", "1,1,4")
    assert out["results"]["outcome"] == "failure"
    assert "Dead" in out["state"]["target"]["conditions"]


# ---------------------------------------------------------------- 15: nobody to face


@pytest.mark.parametrize("proc", ["Sneak", "Parley", "Area Attack"])
def test_an_action_against_nobody_is_refused_by_name(cli, proc: str) -> None:  # type: ignore[no-untyped-def]
    out = cli("run", "mettle", proc, "--as", ex("scout"), "--dice", "1,1")
    assert out.code == 1 and "E0613" in out.stderr and f"'{proc}' requires" in out.stderr
    assert "count(targets) >= 1" in out.stderr and "count(targets) = 0" in out.stderr
    assert "E0405" not in out.stderr


def test_sneaking_past_a_group_faces_its_highest_motive(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Watchers of MOTIVE 2 and 4: the Difficulty is 4. The scout's POISE 2 [1,2]: Score 3 < 4,
    # seen; [2,2]: Score 4, unseen, and both watchers are Surprised.
    low = fighter(tmp_path, "Low", MOTIVE=2)
    high = fighter(tmp_path, "High", MOTIVE=4)
    seen = run(cli, "Sneak", "--as", ex("scout"), "--against", low, "--against", high, "--dice", "1,2")
    assert seen["results"]["outcome"] == "failure"
    unseen = run(cli, "Sneak", "--as", ex("scout"), "--against", low, "--against", high, "--dice", "2,2")
    assert unseen["results"]["outcome"] == "success"


# ---------------------------------------------------------------- 16: who rolls the patient's MOTIVE


def test_a_patient_rolling_its_own_motive_bears_its_own_penalty(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # The patient: MOTIVE 3, Mettle 3 - 5 = -2 (Staggered: -2D), Difficulty 2. The healer is
    # Staggered at -1 (CONCEPT 3, Harm 4). Under patient_motive the patient rolls 3 - 2 = 1 die:
    # [4] Score 0 < 2, Edge 1 (declined), a failure: Staggered, the patient falls to Fallen
    # (Mettle -MOTIVE - 1 = -4), not dead.
    patient = fighter(tmp_path, "Patient", resources={"Harm": 5})
    healer = fighter(tmp_path, "Healer", resources={"Harm": 4})
    out = run(cli, "Heal", "--as", healer, "--against", patient, "--option", "heal_pool=patient_motive",
              "--answer", "action_twist=decline", "--dice", "4")
    assert out["results"]["outcome"] == "failure" and out["results"]["patient_mettle"] == -4
    # A30's `motive` floor: the full 3 dice [1,1,4] Score 2 >= 2, Edge 1: 1 Mettle back, -1.
    floor = run(cli, "Heal", "--as", healer, "--against", patient, "--option", "heal_pool=patient_motive",
                "--option", "stagger_penalty_floor=motive", "--dice", "1,1,4")
    assert floor["results"]["outcome"] == "success" and floor["results"]["patient_mettle"] == -1
    # The book's default: the healer rolls MOTIVE 3 less its own -1D: 2 dice [1,1], Score 2.
    own = run(cli, "Heal", "--as", healer, "--against", patient, "--dice", "1,1")
    assert own["results"]["outcome"] == "success" and own["results"]["restored"] == 0


# ---------------------------------------------------------------- 17: the group's lowest pool


def test_the_group_sneaks_on_its_fewest_dice(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # The scout: POISE 2, 2 dice. A laden porter: POISE 4, FRAME 3 (Load Step 40), carrying
    # 130 kg: ceil(130 / 40) - 1 = 3 steps, -3D, 1 die. The porter's single die Checks for both
    # against the Bandit's MOTIVE 3: [3] Score 3, unseen.
    porter = fighter(tmp_path, "Porter", POISE=4, Carried=130)
    out = run(cli, "Sneak", "--as", ex("scout"), "--as", porter, "--against", ex("bandit"), "--dice", "3")
    assert out["results"]["outcome"] == "success"
    # [2] Score 2 < 3: the group is seen.
    seen = run(cli, "Sneak", "--as", ex("scout"), "--as", porter, "--against", ex("bandit"), "--dice", "2")
    assert seen["results"]["outcome"] == "failure"
