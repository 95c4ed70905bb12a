"""METTLE Core Twists on the Actions besides the Attack (spec mettle.md §1.3, §3): after a
failed Check with Edge the player may take a Twist (choice `action_twist`; the Travel Leg's
`travel_twist`), and then only the Edge dice are rolled again beside the Score kept; the new
result stands, success or not, and Delay (`lose_next_action`) costs the next Action. Declining
keeps the failure. Given dice; the expectations are worked out in the comments."""

from __future__ import annotations

from pathlib import Path

import pytest

from mettle_helpers import EXAMPLES, ex, fighter, run


def test_a_heal_that_fails_with_edge_may_take_a_twist(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    patient = fighter(tmp_path, "Patient", resources={"Harm": 5})  # Mettle 3 - 5 = -2
    # Kirin's MOTIVE 3 against 2: [1,4,5] Score 1, Edge 2, a failure that would kill.
    declined = run(cli, "Heal", "--as", ex("kirin"), "--against", patient, "--dice", "1,4,5",
                   "--answer", "action_twist=decline")
    assert declined["results"]["outcome"] == "failure"
    assert "Dead" in declined["state"]["target"]["conditions"]
    # The Twist (the patient disfigured) rolls the 2 Edge dice again: [1,6] makes Score 2,
    # Edge 1: the patient lives, 1 Mettle back after a day's rest.
    twisted = run(cli, "Heal", "--as", ex("kirin"), "--against", patient, "--dice", "1,4,5,1,6",
                  "--answer", "action_twist=disfigured")
    assert twisted["results"] == {"outcome": "success", "restored": 1, "after": "day", "patient_mettle": -1}
    assert "Dead" not in twisted["state"]["target"]["conditions"]
    # Delay, rerolled [4,4]: still Score 1, a failure that stands, and Kirin loses her next Action.
    delayed = run(cli, "Heal", "--as", ex("kirin"), "--against", patient, "--dice", "1,4,5,4,4",
                  "--answer", "action_twist=lose_next_action")
    assert delayed["results"]["outcome"] == "failure"
    assert delayed["state"]["actor"]["conditions"] == ["Delayed"]
    assert "Dead" in delayed["state"]["target"]["conditions"]


# Each Action: its inputs, the first dice (a failure with Edge), the book's Twist taken, the
# Edge dice rolled again, and the outcome that then stands.
CASES = [
    # Use: Viktor's MOTIVE 3 vs 4: [1,4,5] Score 1, Edge 2; again [3,3]: Score 7, success.
    ("Use", ["--as", "viktor", "--with", "difficulty=4"], "1,4,5", "break_tools", "3,3", "success"),
    # Know: MOTIVE 3 vs 3: [1,4,5] Score 1; again [2,4]: Score 3, success.
    ("Know", ["--as", "viktor"], "1,4,5", "half_truth", "2,4", "success"),
    # Parley: NATURE 5 vs the clerk's MOTIVE 4: [1,1,4,5,6] Score 2, Edge 3; again [1,1,4]: 4.
    ("Parley", ["--as", "viktor", "--against", "clerk"], "1,1,4,5,6", "lose_contact", "1,1,4", "success"),
    # Sneak: Kirin's POISE 5 vs the Bandit's MOTIVE 3: [1,1,4,5,6] Score 2; again [1,4,4]: 3.
    ("Sneak", ["--as", "kirin", "--against", "bandit"], "1,1,4,5,6", "leave_clues", "1,4,4", "success"),
    # Rattle: Kirin's NATURE 3 vs MOTIVE 3: [1,4,5] Score 1; again [6,6]: still 1, a failure.
    ("Rattle", ["--as", "kirin", "--against", "bandit"], "1,4,5", "draw_more_foes", "6,6", "failure"),
    # Move: POISE 5 past an obstacle of 4: [1,1,4,5,6] Score 2; again [2,4,4]: Score 4.
    ("Move", ["--as", "kirin", "--with", "obstacles=4"], "1,1,4,5,6", "cause_hazard", "2,4,4", "success"),
]


@pytest.mark.parametrize(("name", "args", "first", "twist", "again", "outcome"), CASES, ids=[c[0] for c in CASES])
def test_each_action_rerolls_its_edge_dice_on_a_twist(cli, name: str, args: list[str], first: str,  # type: ignore[no-untyped-def]
                                                       twist: str, again: str, outcome: str) -> None:
    files = [ex(a) if i > 0 and args[i - 1] in ("--as", "--against") else a for i, a in enumerate(args)]
    declined = run(cli, name, *files, "--dice", first, "--answer", "action_twist=decline")
    assert declined["results"]["outcome"] == "failure"
    taken = run(cli, name, *files, "--dice", f"{first},{again}", "--answer", f"action_twist={twist}")
    assert taken["results"]["outcome"] == outcome
    assert [c["choice"].split(".")[-1] for c in taken["choices"]] == ["action_twist"]


def test_no_twist_is_offered_on_a_success_or_a_failure_without_edge(cli) -> None:  # type: ignore[no-untyped-def]
    # [1,1,1] against 4: Score 3, no Edge: a failure with nothing to roll again, and no question.
    out = run(cli, "Use", "--as", ex("viktor"), "--with", "difficulty=4", "--dice", "1,1,1")
    assert out["results"]["outcome"] == "failure" and out["choices"] == []
    assert run(cli, "Use", "--as", ex("viktor"), "--dice", "3,4,5")["choices"] == []


def test_self_aid_and_a_trap_take_twists_too(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Mettle 3 - 4 = -1: MOTIVE 3 less 1 Staggered die = 2 dice against 2 x 1 = 2.
    hurt = fighter(tmp_path, "Hurt", resources={"Harm": 4})
    # [1,4]: Score 1, Edge 1; the Twist rolls the one Edge die again: [1] makes Score 2.
    aid = run(cli, "Self Aid", "--as", hurt, "--dice", "1,4,1", "--answer", "action_twist=disfigured")
    assert aid["results"] == {"outcome": "success", "mettle": -1}
    # S-11's tripwire, POISE 3 [1,2,6]: Score 3 < 4, Edge 1; the Twist's [2] makes 5: spotted.
    watcher = fighter(tmp_path, "Watcher")
    trap = run(cli, "Trap", "--as", watcher, "--with", "trap=tripwire", "--dice", "1,2,6,2",
               "--answer", "action_twist=reveal_location")
    assert (trap["results"]["spotted"], trap["results"]["alerted"], trap["results"]["score"]) == (True, False, 5)


def test_a2_the_patients_own_roll_worsens_a_step_on_a_failure(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # heal_pool = patient_motive (the later revision): the patient rolls its MOTIVE 3 against 2,
    # less its own Staggered -2D (A30's default, the third audit): [4] Score 0 fails: a
    # Staggered patient (-2) falls to Fallen (-4, below -MOTIVE), not dead.
    opt = ("--option", "heal_pool=patient_motive", "--answer", "action_twist=decline")
    staggered = fighter(tmp_path, "Staggered", resources={"Harm": 5})
    out = run(cli, "Heal", "--as", ex("kirin"), "--against", staggered, *opt, "--dice", "4")
    assert out["results"]["patient_mettle"] == -4
    assert out["state"]["target"]["conditions"] == ["Fallen"]
    # A Fallen patient (-4, Difficulty 4) who fails dies: with A30's MOTIVE floor, 3 dice
    # [1,1,4] Score 2 < 4.
    fallen = fighter(tmp_path, "Fallen", resources={"Harm": 7})
    dies = run(cli, "Heal", "--as", ex("kirin"), "--against", fallen, *opt, "--option", "stagger_penalty_floor=motive",
               "--dice", "1,1,4")
    assert "Dead" in dies["state"]["target"]["conditions"]


# ---------------------------------------------------------------- the minor Checks (Move, Use, Race, Travel, ramming)


def test_a_climb_twist_taken_declined_and_not_offered(cli) -> None:  # type: ignore[no-untyped-def]
    # Kirin's POISE 5 onto Rook's car, its listed Speed 6: [1,1,2,4,5] Score 4, Edge 2, a failure.
    args = ("Climb", "--as", ex("kirin"), "--against", ex("rook"), "--with", "vehicle=true")
    declined = run(cli, *args, "--dice", "1,1,2,4,5", "--answer", "action_twist=decline")
    assert declined["results"] == {"outcome": "failure", "edge": 2}
    # A Move's Twist (a dropped item): the 2 Edge dice again, [2,1], make Score 7: over.
    taken = run(cli, *args, "--dice", "1,1,2,4,5,2,1", "--answer", "action_twist=drop_item")
    assert taken["results"] == {"outcome": "success", "edge": 0}
    assert [c["choice"].split(".")[-1] for c in taken["choices"]] == ["action_twist"]
    # Delay, again [4,6]: Score 4 stands, a failure, and Kirin loses her next Action.
    delayed = run(cli, *args, "--dice", "1,1,2,4,5,4,6", "--answer", "action_twist=lose_next_action")
    assert delayed["results"] == {"outcome": "failure", "edge": 2}
    assert delayed["state"]["actor"]["conditions"] == ["Delayed"]
    # [1,1,1,1,1]: Score 5, no Edge: a failure with no Twist to offer, and no question.
    bare = run(cli, *args, "--dice", "1,1,1,1,1")
    assert bare["results"] == {"outcome": "failure", "edge": 0} and bare["choices"] == []


def test_the_chance_to_climb_with_a_twist_always_taken_matches_an_enumeration(tmp_path: Path) -> None:
    from fractions import Fraction
    from itertools import product

    from runebook import load

    rules = load("mettle")
    climber = rules.entity(fighter(tmp_path, "Climber", POISE=4))
    car = rules.entity(ex("rook"))
    # POISE 4 against the car's Speed 6: a success outright, or a failure with Edge e whose
    # e dice rolled again bring the Score kept to 6 or more.
    def read(faces: tuple[int, ...]) -> tuple[int, int]:
        return sum(f for f in faces if f <= 3), sum(1 for f in faces if f >= 4)

    outright = expected = Fraction(0)
    for faces in product(range(1, 7), repeat=4):
        score, edge = read(faces)
        if score >= 6:
            outright += Fraction(1, 6 ** 4)
        elif edge:
            again = sum(1 for more in product(range(1, 7), repeat=edge) if score + read(more)[0] >= 6)
            expected += Fraction(again, 6 ** (4 + edge))
    expected += outright
    taken = rules.odds("Climb", as_=climber, against=car, vehicle=True, answers={"action_twist": "cause_hazard"})
    assert {str(k): v for k, v in dict(taken.results["outcome"]).items()}["success"] == expected
    # Unanswered, odds reads the first option (decline): only the outright successes.
    plain = rules.odds("Climb", as_=climber, against=car, vehicle=True)
    assert {str(k): v for k, v in dict(plain.results["outcome"]).items()}["success"] == outright < expected


def test_boarding_and_escaping_take_a_moves_twists(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Boarding Rook's car at its current Speed 4: [1,1,4,5,6] Score 2, Edge 3; the Twist (the
    # position given away) rolls the 3 Edge dice again, [2,4,4]: Score 4, Edge 2, aboard.
    board = run(cli, "Board", "--as", ex("kirin"), "--against", ex("rook"), "--with", "current_speed=4",
                "--dice", "1,1,4,5,6,2,4,4", "--answer", "action_twist=reveal_location")
    assert board["results"] == {"outcome": "success", "edge": 2}
    # Escaping a net's hold 2 with POISE 3: [1,4,5] Score 1, Edge 2; the Twist's [1,4] makes 2: free.
    netted = fighter(tmp_path, "Netted", conditions=["Entangled(2)"])
    free = run(cli, "Escape", "--as", netted, "--dice", "1,4,5,1,4", "--answer", "action_twist=drop_item")
    assert free["results"] == {"outcome": "success", "difficulty": 2, "held": 0}
    stuck = run(cli, "Escape", "--as", netted, "--dice", "1,4,5", "--answer", "action_twist=decline")
    assert stuck["results"]["outcome"] == "failure" and stuck["state"]["actor"]["conditions"] == ["Entangled(2)"]


def test_each_runner_in_a_chase_is_asked_for_their_own_twist(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Three Zones of 2 (Difficulty 6). Kirin [1,1,4,4,4] Score 2, Edge 3: a new hazard, again
    # [1,1,2]: Score 6, through all three. The Bandit [1,1,4] Score 2, Edge 1: Delay, again [4]:
    # Score 2, one Zone, and the Bandit loses its next Action. Kirin comes first: escaped.
    plan = tmp_path / "plan.yaml"
    plan.write_text("- cause_hazard\n- lose_next_action\n")
    out = run(cli, "Chase", "--as", ex("kirin"), "--against", ex("bandit"), "--with", "obstacles=2,2,2",
              "--dice", "1,1,4,4,4,1,1,2,1,1,4,4", "--choices", str(plan))
    assert out["results"] == {"order": ["Kirin", "Bandit"], "reached": [3, 1], "escaped": True}
    assert [c["choice"].split(".")[-1] for c in out["choices"]] == ["action_twist", "action_twist"]
    assert out["state"]["actor"]["conditions"] == [] and out["state"]["target"]["conditions"] == ["Delayed"]


def test_unjamming_and_mending_take_a_uses_twists(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # The jam's 1d6 is 4; MOTIVE 3 [1,4,5] Score 1, Edge 2; broken tools, again [3,3]: Score 7, cleared.
    jammed = fighter(tmp_path, "Jammed", conditions=["Weapon Jammed"])
    cleared = run(cli, "Unjam", "--as", jammed, "--dice", "4,1,4,5,3,3", "--answer", "action_twist=break_tools")
    assert cleared["results"] == {"difficulty": 4, "outcome": "success"}
    assert cleared["state"]["actor"]["conditions"] == []
    kept = run(cli, "Unjam", "--as", jammed, "--dice", "4,1,4,5", "--answer", "action_twist=decline")
    assert kept["results"]["outcome"] == "failure" and kept["state"]["actor"]["conditions"] == ["Weapon Jammed"]
    # Mending a broken complex gun against 3: [1,4,5] Score 1; an odd flaw, again [2,6]: Score 3, mended.
    gun = fighter(tmp_path, "Gun", weapon="Pistol", Complex=1, Range=2, conditions=["Broken Weapon"])
    mended = run(cli, "Mend Weapon", "--as", gun, "--dice", "1,4,5,2,6", "--answer", "action_twist=weird_flaw")
    assert mended["results"] == {"outcome": "success", "armed": True}


def test_a_race_stretchs_delay_costs_a_speed(cli) -> None:  # type: ignore[no-untyped-def]
    # Kirin POISE 5 + Handling 1 against Speed 3 + obstacle 2: [1,1,1,1,4,5] Score 4, Edge 2.
    args = ("Race Stretch", "--as", ex("kirin"), "--with", "speed=3", "--with", "handling=1", "--with",
            "obstacles=2", "--with", "vehicle_frame=4", "--with", "seatbelt=false")
    # Delay: Speed 2; again [4,6] leaves Score 4, a crash at Speed 2: the crash die 4 + 2 - FRAME
    # 4 = 2 to the bike, 4 + 2 x 2 (no seatbelt) - Soak 3 = 5 to Kirin.
    slowed = run(cli, *args, "--dice", "1,1,1,1,4,5,4,6,4", "--answer", "race_twist=drop_speed")
    assert slowed["results"] == {"outcome": "failure", "lead": 2, "vehicle_damage": 2, "driver_damage": 5, "speed": 2}
    # Wasted fuel, again [1,2]: Score 7, control kept at Speed 3, no lead.
    kept = run(cli, *args, "--dice", "1,1,1,1,4,5,1,2", "--answer", "race_twist=waste_fuel")
    assert kept["results"] == {"outcome": "success", "lead": 0, "vehicle_damage": 0, "driver_damage": 0, "speed": 3}


def test_a_ram_takes_a_combat_twist(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Kirin rams the Bandit on foot at Speed 3: POISE 5 + Handling 1 against POISE 3, [1,1,4,4,5,6]
    # Score 2, Edge 4. Again [1,4,4,5]: Score 3, Edge 3, a hit: FRAME 5 + 3 + 3 = 11, less the
    # Bandit's Soak 3 = 8; a Glancing blow halves it to 4; back, its FRAME 3 + Speed 0 = 3.
    args = ("Ram", "--as", ex("kirin"), "--against", ex("bandit"), "--with", "speed=3", "--with", "handling=1",
            "--with", "vehicle_frame=5", "--with", "on_foot=true", "--dice", "1,1,4,4,5,6,1,4,4,5")
    glancing = run(cli, *args, "--answer", "combat_twist=glancing_blow")
    assert glancing["results"] == {"outcome": "success", "target_damage": 11, "vehicle_damage": 3}
    assert glancing["state"]["target"]["resources"]["Harm"] == 4
    provoked = run(cli, *args, "--answer", "combat_twist=provoke_foes")
    assert provoked["state"]["target"]["resources"]["Harm"] == 8
    missed = run(cli, *args[:-1], "1,1,4,4,5,6", "--answer", "combat_twist=accept_failure")
    assert missed["results"] == {"outcome": "failure", "target_damage": 0, "vehicle_damage": 0}


def test_a_journeys_legs_take_travel_twists(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Legs of 3 and 6, Kirin's POISE 5. Leg 1 [1,1,4,4,5] Score 2, Edge 3: lost, again [1,4,4]:
    # Score 3, arrived (at a neighbouring stop, the GM's to say). Leg 2 [1,1,1,4,5] Score 3,
    # Edge 2, declined: an encounter.
    plan = ("--answer", "travel_twist=lost_the_way")
    first = run(cli, "Journey", "--as", ex("kirin"), "--with", "legs=3", "--dice", "1,1,4,4,5,1,4,4", *plan)
    assert first["results"] == {"encounters": 0, "encounter_on_leg": [False], "edge": [2], "twists": ["lost_the_way"]}
    plan_file = tmp_path / "plan.yaml"
    plan_file.write_text("- lost_the_way\n- no_twist\n")
    both = run(cli, "Journey", "--as", ex("kirin"), "--with", "legs=3,6", "--dice", "1,1,4,4,5,1,4,4,1,1,1,4,5",
               "--choices", str(plan_file))
    assert both["results"] == {"encounters": 1, "encounter_on_leg": [False, True], "edge": [2, 2],
                               "twists": ["lost_the_way"]}
    assert [c["choice"].split(".")[-1] for c in both["choices"]] == ["travel_twist", "travel_twist"]


def test_moving_past_shooting_repairing_and_rival_travel_take_twists(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Move Past 2 + 3 + 4 = 9 with POISE 5: [1,2,3,6,6] Score 6, Edge 2; a new hazard, again
    # [2,1]: Score 9, all three passed.
    past = run(cli, "Move Past", "--as", ex("kirin"), "--with", "obstacles=2,3,4", "--dice", "1,2,3,6,6,2,1",
               "--answer", "action_twist=cause_hazard")
    assert past["results"] == {"outcome": "success", "passed": 3}
    # Viktor (NATURE 5 + Hit 1) at the bike's Speed 3: [1,1,4,4,5,6] Score 2, Edge 4. Again
    # [1,4,5,6]: Score 3, Edge 3, a hit: DM 3 + 3 - FRAME 4 = 2, a Glancing blow's half is 1.
    shot = ("Shoot Vehicle", "--as", ex("viktor"), "--against", str(EXAMPLES / "kirin-on-a-bike.yaml"),
            "--dice", "1,1,4,4,5,6,1,4,5,6")
    glancing = run(cli, *shot, "--answer", "combat_twist=glancing_blow")
    assert (glancing["results"]["outcome"], glancing["results"]["vehicle_damage"]) == ("success", 1)
    delayed = run(cli, *shot, "--answer", "combat_twist=delay")
    assert delayed["results"]["vehicle_damage"] == 2 and delayed["state"]["actor"]["conditions"] == ["Delayed"]
    # Repairing a car (listed Speed 6) in a garage: MOTIVE 3 + 1D [3,1,4,5] Score 4, Edge 2;
    # lowered Resources, again [2,1]: Score 7, salvaged (no Edge left to clear any damage).
    dented = tmp_path / "dented.yaml"
    dented.write_text((EXAMPLES / "rook.yaml").read_text() + "resources: {Wreckage: 5}\n")
    fixed = run(cli, "Repair Vehicle", "--as", ex("viktor"), "--against", str(dented), "--with", "garage=true",
                "--dice", "3,1,4,5,2,1", "--answer", "action_twist=lower_resources")
    assert fixed["results"] == {"outcome": "success", "cleared": 0, "vehicle_mettle": -2, "scrap": False}
    # Rivals: Kirin [3,3,1,1,1] Score 9, Edge 0; Viktor [1,4,5,6] Score 1, Edge 3, ambushed
    # later, again [1,1,4]: Score 3, Edge 1: he arrives safely, and first.
    rivals = run(cli, "Travel Rivals", "--as", ex("kirin"), "--against", ex("viktor"),
                 "--dice", "3,3,1,1,1,1,4,5,6,1,1,4", "--answer", "travel_twist=ambushed_later")
    assert rivals["results"] == {"arrival": ["Viktor", "Kirin"], "edge": [0, 1], "encounter": [False, False]}
