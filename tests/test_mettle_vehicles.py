"""METTLE Core vehicles (rulesets/mettle/vehicles.rules): a vehicle's own Mettle and Handling
penalty, crashes, repairs, shots at a vehicle's tyres, Rally shared with the driver, and a race
over several Stretches with its Stunts and its winner (spec §1.5 vehicles, §3 race, §4.13),
with given dice, exact odds against an enumeration written here, and refusals."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from functools import lru_cache
from itertools import product
from pathlib import Path


from runebook.interpreter.rules import load
from mettle_helpers import EXAMPLES, GAME, answers, ex, refused, run, with_extra

BIKE, CAR = str(EXAMPLES / "kirin-on-a-bike.yaml"), str(EXAMPLES / "rook.yaml")


# ---------------------------------------------------------------- the race


def test_a_race_over_two_stretches_with_stunts(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Stretch 1 (no obstacle): Kirin's bike, POISE 5 + Handling 2 = 7 dice vs Speed 3:
    # [1,2,4,4,5,6,6] Score 3, Edge 5. Rook's car, POISE 2 + 2 = 4 dice vs Speed 6: [3,3,4,5]
    # Score 6, Edge 2. Kirin (the bigger lead) muds Rook's screen, swerves, muscles a point of
    # Rook's Edge away (2 -> 1), keeps 2; Rook muscles one of Kirin's (2 -> 1).
    # Stretch 2 (obstacle 1): Kirin vs 4: [1,1,1,1,6,6,6] Score 4, Edge 3. Rook vs 6 + 1 + 1
    # (the mud): [3,3,1,4] Score 7 fails with Edge 1, takes the Delay Twist: the Edge die again,
    # [1]: Score 8, a success at Speed 5. Rook, faster, wins though Kirin leads.
    plan = answers(tmp_path, "mud_splatter", "Rook", "swerve", "muscle", "Rook", "keep_lead",
                      "muscle", "Kirin", "drop_speed", "keep_lead")
    out = run(cli, "Race", "--as", BIKE, "--against", CAR, "--with", "stretches=0,1", "--choices", plan,
              "--dice", "1,2,4,4,5,6,6,3,3,4,5,1,1,1,1,6,6,6,3,3,1,4,1")
    assert out["results"] == {"winner": "Rook", "speed": [3, 5], "lead": [3, 0], "crashed": [False, False],
                              "vehicle_mettle": [4, 3], "mettle": [4, 3]}
    assert out["shown"] == {"steady_actions": [0, 0], "attack_difficulty": [3, 5]}
    # Under until_next_stretch the Speed lost to Delay would come back only in a third Stretch.
    again = run(cli, "Race", "--as", BIKE, "--against", CAR, "--with", "stretches=0,1", "--choices", plan,
                "--option", "race_delay=until_next_stretch", "--dice", "1,2,4,4,5,6,6,3,3,4,5,1,1,1,1,6,6,6,3,3,1,4,1")
    assert again["results"]["speed"] == [3, 5]


def test_steady_cleans_the_mud_and_swerve_counts_against_attacks(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Stretch 1: Kirin Edge 5 muds Rook twice, Rook (Edge 2) buys a Steady Action and swerves.
    # The Steady Action cleans the mud off (asked because both hold). Stretch 2 is run at
    # Rook's plain Speed 6: [3,3,1,1] Score 8 would fail against 6 + 2 of mud, succeeds at 6.
    plan = answers(tmp_path, "mud_splatter", "Rook", "mud_splatter", "Rook", "keep_lead",
                      "steady", "swerve", "clean_off_splatter", "keep_lead", "keep_lead")
    out = run(cli, "Race", "--as", BIKE, "--against", CAR, "--with", "stretches=0,0", "--choices", plan,
              "--dice", "1,2,4,4,5,6,6,3,3,4,5,1,1,1,4,4,5,6,3,3,1,1")
    assert out["results"]["winner"] == "Rook" and out["results"]["crashed"] == [False, False]
    # Stretch 2's attack Difficulty is the Speed alone (Swerve lasts one Stretch).
    assert out["shown"]["attack_difficulty"] == [3, 6]
    swerving = answers(tmp_path, "keep_lead", "swerve", "keep_lead")
    one = run(cli, "Race", "--as", BIKE, "--against", CAR, "--with", "stretches=0", "--choices", swerving,
              "--dice", "1,2,4,4,5,6,6,3,3,4,5")
    assert one["shown"] == {"steady_actions": [0, 0], "attack_difficulty": [3, 7]}
    # A13's other reading: Splatter is cover for those aboard against Attacks, not a driving penalty.
    mud = answers(tmp_path, "mud_splatter", "Rook", "keep_lead", "keep_lead")
    cover = run(cli, "Race", "--as", BIKE, "--against", CAR, "--with", "stretches=0", "--choices", mud,
                "--option", "splatter=defensive_cover", "--dice", "1,2,4,4,5,6,6,3,3,4,5")
    assert cover["shown"]["attack_difficulty"] == [3, 7]


def test_muscle_cancels_a_stunt_already_spent(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Kirin (Edge 5) spends all five on Swerve; Rook (Edge 2) muscles twice: each cancels one.
    plan = answers(tmp_path, *(["swerve"] * 5), "muscle", "Kirin", "muscle", "Kirin")
    out = run(cli, "Race", "--as", BIKE, "--against", CAR, "--with", "stretches=0", "--choices", plan,
              "--dice", "1,2,4,4,5,6,6,3,3,4,5")
    assert out["shown"]["attack_difficulty"] == [3 + 3, 6]
    assert out["results"]["lead"] == [0, 0]


def test_a_crash_ends_the_race_for_that_racer(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Rook [1,1,1,1]: Score 4 < 6, no Edge: a crash. 1d6 = 4 + Speed 6: the car 10 - FRAME 9 =
    # 1; Rook (belted) 10 - Soak 2 = 8, Mettle 3 -> -5, Fallen. Kirin wins alone.
    plan = answers(tmp_path, "keep_lead")
    out = run(cli, "Race", "--as", BIKE, "--against", CAR, "--with", "stretches=0", "--choices", plan,
              "--dice", "1,2,4,4,5,6,6,1,1,1,1,4")
    assert out["results"] == {"winner": "Kirin", "speed": [3, 0], "lead": [5, 0], "crashed": [False, True],
                              "vehicle_mettle": [4, 2], "mettle": [4, -5]}
    # Without seatbelts the Speed counts double for the occupants: 4 + 12 - 2 = 14.
    loose = run(cli, "Race", "--as", BIKE, "--against", CAR, "--with", "stretches=0", "--with", "seatbelts=false",
                "--choices", plan, "--dice", "1,2,4,4,5,6,6,1,1,1,1,4")
    assert loose["results"]["mettle"] == [4, -11]


def test_a_wrecked_vehicle_does_not_move(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Wreckage 5 on a Mettle-3 car: vehicle Mettle -2, a -2D on Handling: 2 + 2 - 2 = 2 dice.
    dented = with_extra(tmp_path, CAR, "dented.yaml", "resources: {Wreckage: 5}\n")
    track = run(cli, "Vehicle Track", "--as", dented)["results"]
    assert track == {"max_mettle": 3, "vehicle_mettle": -2, "handling_penalty": 2, "dice": 2, "moves": True}
    # Wreckage 9: -6, no dice left: it does not move, and drops out of a race with no Check.
    wreck = with_extra(tmp_path, CAR, "wreck.yaml", "resources: {Wreckage: 9}\n")
    assert run(cli, "Vehicle Track", "--as", wreck)["results"]["moves"] is False
    plan = answers(tmp_path, "keep_lead")
    out = run(cli, "Race", "--as", BIKE, "--against", wreck, "--with", "stretches=0", "--choices", plan,
              "--dice", "1,2,4,4,5,6,6")
    assert out["results"]["crashed"] == [False, True] and out["results"]["winner"] == "Kirin"


def test_race_refusals_name_the_rule(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # A racer on foot; Muscle with no rival who has Edge or a Stunt left.
    refused(cli, "Driver Has Vehicle", "Race", "--as", BIKE, "--against", ex("kirin"), "--with", "stretches=0",
            "--dice", "1,2,4,4,5,6,6")
    plan = answers(tmp_path, "muscle", "Rook")
    refused(cli, "Stunt Has A Mark", "Race", "--as", BIKE, "--against", CAR, "--with", "stretches=0",
            "--choices", plan, "--dice", "1,2,4,4,5,6,6,1,2,3,3")
    # Splatter on a rival with a bigger lead: Kirin (Edge 1) cannot mud Rook (Edge 4).
    splat = answers(tmp_path, "keep_lead", "mud_splatter")
    refused(cli, "Stunt Has A Mark", "Race", "--as", CAR, "--against", BIKE, "--with", "stretches=0",
            "--choices", splat, "--dice", "3,3,4,5,1,1,1,3,3,3,4")


@lru_cache(maxsize=None)
def check_odds(pool: int, difficulty: int) -> dict[tuple[bool, int], Fraction]:
    """{(success, edge): probability} of a METTLE Check, every face of every die listed."""
    out: Counter = Counter()
    for faces in product(range(1, 7), repeat=pool):
        score = sum(f for f in faces if f <= 3)
        out[(score >= difficulty, sum(1 for f in faces if f >= 4))] += Fraction(1, 6 ** pool)
    return dict(out)


def race_winner(racers: list[tuple[str, int, int]], stretches: list[int]) -> dict[str, Fraction]:
    """Who wins, every choice at its first option (no Twist, every Edge kept as lead): a
    racer goes on at Top Speed while it succeeds and stops at 0 when it fails; the highest
    Speed wins, then the highest lead. `racers`: (name, POISE + Handling, Top Speed)."""
    tops = tuple(top for _, _, top in racers)
    outcomes: list[tuple[Fraction, tuple[int, ...], tuple[int, ...]]] = [(Fraction(1), tops, (0,) * len(racers))]
    for obstacle in stretches:
        nxt = []
        for p, speeds, leads in outcomes:
            per = []
            for (_, pool, top), speed in zip(racers, speeds):
                if speed == 0:
                    per.append([(Fraction(1), 0, 0)])
                    continue
                dist = check_odds(pool, top + obstacle)
                per.append([(q, top if ok else 0, e if ok else 0) for (ok, e), q in dist.items()])
            for combo in product(*per):
                q = p
                for part in combo:
                    q *= part[0]
                nxt.append((q, tuple(c[1] for c in combo), tuple(c[2] for c in combo)))
        outcomes = nxt
    result: Counter = Counter()
    for p, speeds, leads in outcomes:
        (a, b) = [(s, l) for s, l in zip(speeds, leads)]
        result[racers[0][0] if a > b else racers[1][0] if b > a else "tie"] += p
    return dict(result)


def racer(tmp_path: Path, name: str, poise: int, handling: int, top: int) -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(json.dumps({"name": name, "vehicle": "Buggy", "stats": {
        "CONCEPT": 3, "FRAME": 2, "MOTIVE": 3, "NATURE": 3, "POISE": poise, "Armor": 0, "Hit": 0, "DM": 3,
        "Range": 0, "Parry": 0, "Zone": 1, "Handling": handling, "Top Speed": top, "Vehicle FRAME": 4}}))
    return str(path)


def test_the_odds_of_winning_a_race_match_an_enumeration(tmp_path: Path) -> None:
    # Two Stretches (the second with an obstacle) between small racers, so that the odds stay
    # quick: Ada's POISE 1 + Handling 1 at Speed 2 against Bo's POISE 1 at Speed 1. A win on
    # Speed, on lead, a tie and a crash out all have a chance.
    rules = load(GAME)
    ada, bo = racer(tmp_path, "Ada", 1, 1, 2), racer(tmp_path, "Bo", 1, 0, 1)
    odds = rules.odds("Race", as_=rules.entity(ada), against=rules.entity(bo), stretches=[0, 1])
    got = {str(k): v for k, v in dict(odds.results["winner"]).items() if v}
    expected = race_winner([("Ada", 2, 2), ("Bo", 1, 1)], [0, 1])
    assert got == expected and set(got) == {"Ada", "Bo", "tie"}
    assert sum(got.values()) == 1


# ---------------------------------------------------------------- the vehicle's Mettle


def test_a_crash_outside_a_race(cli) -> None:  # type: ignore[no-untyped-def]
    # Rook drives at Top Speed 6, Kirin rides along: 1d6 = 4: the car 10 - 9 = 1; Rook 10 - 2
    # = 8; Kirin 10 - 3 = 7 (one roll for all).
    out = run(cli, "Crash", "--as", CAR, "--as", ex("kirin"), "--dice", "4")
    assert out["results"] == {"vehicle_damage": 1, "occupant_damage": [8, 7], "vehicle_mettle": 2,
                              "mettle": [-5, -3]}
    # Each occupant rolling their own die: Rook 4, Kirin 2 (after the car's 4).
    own = run(cli, "Crash", "--as", CAR, "--as", ex("kirin"), "--with", "at_speed=3", "--option",
              "crash_roll=each_occupant", "--dice", "6,4,2")
    assert own["results"]["vehicle_damage"] == 0 and own["results"]["occupant_damage"] == [5, 2]


def test_repairing_a_vehicle(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    dented = with_extra(tmp_path, CAR, "dented.yaml", "resources: {Wreckage: 5}\n")  # vehicle Mettle -2
    # Viktor's MOTIVE 3 + 1D for the garage against the car's listed Speed 6: [3,3,4,5] Score
    # 6, Edge 2: both points of damage penalty cleared.
    fixed = run(cli, "Repair Vehicle", "--as", ex("viktor"), "--against", dented, "--with", "garage=true",
                "--dice", "3,3,4,5")
    assert fixed["results"] == {"outcome": "success", "cleared": 2, "vehicle_mettle": 0, "scrap": False}
    scrap = run(cli, "Repair Vehicle", "--as", ex("viktor"), "--against", dented, "--dice", "1,1,4",
                "--answer", "action_twist=decline")
    assert scrap["results"]["scrap"] is True and scrap["state"]["target"]["conditions"] == ["Scrapped"]
    scrapped = with_extra(tmp_path, CAR, "scrapped.yaml", "conditions: [Scrapped]\n")
    refused(cli, "Driver Has Vehicle", "Vehicle Track", "--as", scrapped)


def test_shooting_the_tyres(cli) -> None:  # type: ignore[no-untyped-def]
    # Viktor (NATURE 5 + Hit 1) at the bike's 2 tyres: Speed 3 + 2 = 5. [3,2,4,5,6,6] Score 5,
    # Edge 4: DM 3 + 4 - FRAME 4 = 3 after Soak: 2 to the bike, 1 to its Handling Difficulty.
    out = run(cli, "Shoot Vehicle", "--as", ex("viktor"), "--against", BIKE, "--with", "tyres=2",
              "--dice", "3,2,4,5,6,6")
    assert out["results"] == {"outcome": "success", "vehicle_damage": 2, "handling_difficulty": 1,
                              "vehicle_mettle": 2}
    assert out["state"]["target"]["conditions"] == ["Popped Tyres(1)"]
    # Without aiming at the tyres it all goes to the bike; Swerve 2 makes it 5 to beat.
    plain = run(cli, "Shoot Vehicle", "--as", ex("viktor"), "--against", BIKE, "--with", "swerve=2",
                "--dice", "3,2,4,5,6,6")
    assert plain["results"]["vehicle_damage"] == 3 and plain["results"]["handling_difficulty"] == 0


def test_a_driver_rallies_the_vehicle_too(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Rook: Mettle 1 (Harm 2) and the car's Mettle 1 (Wreckage 2): both double to 2.
    hurt = with_extra(tmp_path, CAR, "hurt.yaml", "resources: {Harm: 2, Wreckage: 2}\n")
    out = run(cli, "Rally", "--as", hurt)
    assert out["results"] == {"gained": 1, "mettle": 2, "vehicle_gained": 1}
    assert out["state"]["actor"]["resources"]["Wreckage"] == 1


def test_ramming_dents_both_vehicles(cli) -> None:  # type: ignore[no-untyped-def]
    # The car rams the bike (Speed 6 >= 3): 4 dice [1,1,1,4] Score 3 vs Speed 3, Edge 1: to the
    # bike FRAME 9 + 6 + 1 = 16, less its FRAME 4 = 12; back FRAME 4 + 3 = 7, less 9: none.
    out = run(cli, "Ram", "--as", CAR, "--against", BIKE, "--with", "speed=6", "--with", "handling=2",
              "--with", "vehicle_frame=9", "--with", "target_speed=3", "--with", "target_frame=4",
              "--dice", "1,1,1,4")
    assert out["results"] == {"outcome": "success", "target_damage": 16, "vehicle_damage": 7}
    assert out["state"]["target"]["resources"]["Wreckage"] == 12
    assert out["state"]["actor"]["resources"]["Wreckage"] == 0


def test_a_race_twist_other_than_delay_keeps_the_speed(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # The first test's race, with Rook taking Lost parts instead of Delay in Stretch 2: the Edge
    # die is rolled again all the same ([1]: Score 8 against 8, a success), but no Speed is lost:
    # Rook ends at 6, not 5, and still wins.
    plan = answers(tmp_path, "mud_splatter", "Rook", "swerve", "muscle", "Rook", "keep_lead",
                   "muscle", "Kirin", "lose_parts", "keep_lead")
    out = run(cli, "Race", "--as", BIKE, "--against", CAR, "--with", "stretches=0,1", "--choices", plan,
              "--dice", "1,2,4,4,5,6,6,3,3,4,5,1,1,1,1,6,6,6,3,3,1,4,1")
    assert out["results"]["speed"] == [3, 6] and out["results"]["crashed"] == [False, False]
    assert out["results"]["winner"] == "Rook"
    # Declined, the Score 7 failure stands: Rook crashes out at Speed 0 and Kirin wins.
    kept = answers(tmp_path, "mud_splatter", "Rook", "swerve", "muscle", "Rook", "keep_lead",
                   "muscle", "Kirin", "keep_failure", "keep_lead")
    crash = run(cli, "Race", "--as", BIKE, "--against", CAR, "--with", "stretches=0,1", "--choices", kept,
                "--dice", "1,2,4,4,5,6,6,3,3,4,5,1,1,1,1,6,6,6,3,3,1,4,6")
    assert crash["results"]["speed"] == [3, 0] and crash["results"]["crashed"] == [False, True]
    assert crash["results"]["winner"] == "Kirin"
