"""METTLE Core rules of the Scenes chapter played since the first pass (rulesets/mettle): Know
against a person, sticky beliefs, the Sneak Group Option, Rattle's bonus dice, chases,
climbing and boarding, a new Scene and a day of rest, spikes, a soft Plummet, stretched
deprivation, cover called in a Round, and the options of spec §5 A21, A25, A26 and A27; with
given dice, odds against an enumeration and refusals."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from functools import lru_cache
from itertools import product
from pathlib import Path

from runebook.interpreter.rules import load
from mettle_helpers import GAME, answers, ex, refused, run, with_extra


# ---------------------------------------------------------------- Know, Parley, Sneak, Rattle


def test_know_about_a_person_faces_their_motive(cli) -> None:  # type: ignore[no-untyped-def]
    # Viktor's MOTIVE 3 [1,1,1]: Score 3 beats the default Difficulty 3 but not the clerk's
    # MOTIVE 4 (an insight into the clerk).
    out = run(cli, "Know", "--as", ex("viktor"), "--against", ex("clerk"), "--dice", "1,1,1")
    assert out["results"] == {"outcome": "failure", "extra_answers": 0,
                              "told": "what their CONCEPT should know outright"}
    bare = run(cli, "Know", "--as", ex("viktor"), "--against", ex("clerk"), "--option", "know_failure=nothing_told",
               "--dice", "1,1,1")
    assert bare["results"]["told"] == "nothing"
    assert run(cli, "Know", "--as", ex("viktor"), "--dice", "1,1,1")["results"]["outcome"] == "success"


def test_a_sticky_belief_stays_and_resists(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # P-03 with a topic: Score 7, Edge 3 leaves a belief of 3 on the clerk.
    out = run(cli, "Parley", "--as", ex("viktor"), "--against", ex("clerk"), "--with", "leverage_dice=1",
              "--with", 'topic="the room"', "--dice", "3,2,2,4,4,6")
    assert out["state"]["target"]["conditions"] == ['Sticky Belief(3, "the room")']
    # Arguing the opposite: MOTIVE 4 + 3 = 7. [3,3,1,4,4] Score 7 sways him, [3,3,4,4,4] Score 6 does not.
    convinced = with_extra(tmp_path, ex("clerk"), "clerk.yaml", 'conditions: ["Sticky Belief(3, \\"the room\\")"]\n')
    args = ("Parley", "--as", ex("viktor"), "--against", convinced, "--with", 'topic="the room"',
            "--with", "against_belief=true")
    assert run(cli, *args, "--dice", "3,3,1,4,4")["results"]["outcome"] == "success"
    assert run(cli, *args, "--dice", "3,3,4,4,4", "--answer", "action_twist=decline")["results"]["outcome"] == "failure"
    # Another topic meets no belief: Score 4 is enough.
    other = run(cli, "Parley", "--as", ex("viktor"), "--against", convinced, "--with", 'topic="the safe"',
                "--with", "against_belief=true", "--dice", "3,1,4,4,4")
    assert other["results"]["outcome"] == "success"


def test_the_sneak_group_option(cli) -> None:  # type: ignore[no-untyped-def]
    # Kirin (POISE 5) and Viktor (POISE 4) sneak past the Bandit (MOTIVE 3): only Viktor, the
    # lower pool, Checks: [1,2,4,5] Score 3, Edge 2: a success, and a theft takes 3 items.
    out = run(cli, "Sneak", "--as", ex("kirin"), "--as", ex("viktor"), "--against", ex("bandit"), "--dice", "1,2,4,5")
    assert out["results"] == {"outcome": "success", "surprise_dm_bonus": 2, "items": 3}
    # Each Checking: Kirin [1,2,4,4,4] Edge 3, Viktor [1,1,1,4] Edge 1: the smaller Edge counts;
    # and one failure gives the group away.
    each = ("--option", "sneak_group=each_checks")
    both = run(cli, "Sneak", "--as", ex("kirin"), "--as", ex("viktor"), "--against", ex("bandit"), *each,
               "--dice", "1,2,4,4,4,1,1,1,4")
    assert both["results"] == {"outcome": "success", "surprise_dm_bonus": 1, "items": 2}
    seen = run(cli, "Sneak", "--as", ex("kirin"), "--as", ex("viktor"), "--against", ex("bandit"), *each,
               "--dice", "1,2,4,4,4,1,1,4,4", "--answer", "action_twist=decline")
    assert seen["results"]["outcome"] == "failure" and seen["state"]["target"]["conditions"] == []


def test_rattle_with_a_fitting_concept_and_dirt(cli) -> None:  # type: ignore[no-untyped-def]
    # Viktor's CONCEPT 6 (a silver tongue) + 1D of dirt = 7 dice against MOTIVE 3:
    # [1,1,1,4,4,4,4] Score 3, Edge 4: Rattled for 5 Actions.
    out = run(cli, "Rattle", "--as", ex("viktor"), "--against", ex("bandit"), "--with", "concept_fits=true",
              "--with", "bonus_dice=1", "--dice", "1,1,1,4,4,4,4")
    assert out["results"] == {"outcome": "success", "rattled_for": 5}


# ---------------------------------------------------------------- chases, climbing, boarding


def test_a_chase(cli) -> None:  # type: ignore[no-untyped-def]
    # Kirin flees the Bandit over three Zones of Difficulty 2. Kirin [1,1,4,4,4] Score 2 fails
    # after the first Zone; the Bandit [3,3,1] Score 7 clears all three: caught.
    caught = run(cli, "Chase", "--as", ex("kirin"), "--against", ex("bandit"), "--with", "obstacles=2,2,2",
                 "--dice", "1,1,4,4,4,3,3,1", "--answer", "action_twist=decline")
    assert caught["results"] == {"order": ["Bandit", "Kirin"], "reached": [1, 3], "escaped": False}
    # Both get through; equal Edge is no escape, more Edge is.
    tie = run(cli, "Chase", "--as", ex("kirin"), "--against", ex("bandit"), "--with", "obstacles=2,2,2",
              "--dice", "3,3,1,1,4,3,3,4")
    assert tie["results"]["escaped"] is False
    away = run(cli, "Chase", "--as", ex("kirin"), "--against", ex("bandit"), "--with", "obstacles=2,2,2",
               "--dice", "3,3,1,4,4,3,3,4")
    assert away["results"] == {"order": ["Kirin", "Bandit"], "reached": [3, 3], "escaped": True}


@lru_cache(maxsize=None)
def run_odds(pool: int, obstacles: tuple[int, ...]) -> dict[tuple[int, int], Fraction]:
    """{(Zones reached, Edge): probability} of one runner's Move Check over the obstacles."""
    out: Counter = Counter()
    for faces in product(range(1, 7), repeat=pool):
        score, edge = sum(f for f in faces if f <= 3), sum(1 for f in faces if f >= 4)
        reached, running = 0, 0
        for d in obstacles:
            running += d
            if running <= score:
                reached += 1
        out[(reached, edge)] += Fraction(1, 6 ** pool)
    return dict(out)


def test_the_chance_to_escape_matches_an_enumeration() -> None:
    rules = load(GAME)
    odds = rules.odds("Chase", as_=rules.entity(ex("kirin")), against=rules.entity(ex("bandit")), obstacles=[2, 3])
    quarry, pursuer = run_odds(5, (2, 3)), run_odds(3, (2, 3))
    escape = sum(p * q for (a, p), (b, q) in product(quarry.items(), pursuer.items()) if a > b)
    assert dict(odds.results["escaped"])[True] == escape


def test_climbing_and_boarding(cli) -> None:  # type: ignore[no-untyped-def]
    # Onto the elephant: its POISE 3; onto Rook's car: its listed Speed 6.
    assert run(cli, "Climb", "--as", ex("kirin"), "--against", ex("elephant"), "--dice", "1,1,1,4,5")[
        "results"] == {"outcome": "success", "edge": 2}
    assert run(cli, "Climb", "--as", ex("kirin"), "--against", ex("rook"), "--with", "vehicle=true",
               "--dice", "1,1,1,4,5", "--answer", "action_twist=decline")["results"]["outcome"] == "failure"
    # Boarding a vehicle with a bigger lead takes a grapnel; its current Speed 4 is the Difficulty.
    refused(cli, "Boarding Target Not Ahead", "Board", "--as", ex("kirin"), "--against", ex("rook"),
            "--with", "lead=1", "--with", "target_lead=2", "--dice", "1")
    out = run(cli, "Board", "--as", ex("kirin"), "--against", ex("rook"), "--with", "lead=1", "--with",
              "target_lead=2", "--with", "grapnel=true", "--with", "current_speed=4", "--dice", "2,2,4,5,6")
    assert out["results"] == {"outcome": "success", "edge": 3}
    refused(cli, "Driver Has Vehicle", "Board", "--as", ex("kirin"), "--against", ex("bandit"), "--dice", "1")


# ---------------------------------------------------------------- a new Scene, a day of rest


def test_a_new_scene_refills_mettle_above_zero(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    tired = with_extra(tmp_path, ex("kirin"), "tired.yaml", "resources: {Harm: 2}\nconditions: [Surprised, Aiming]\n")
    beaten = with_extra(tmp_path, ex("bandit"), "beaten.yaml", "resources: {Harm: 5}\nconditions: [Staggered]\n")
    dented = with_extra(tmp_path, ex("rook"), "dented.yaml", "resources: {Wreckage: 1}\n")
    out = run(cli, "New Scene", "--as", tired, "--as", dented, "--against", beaten)
    assert out["results"]["mettle"] == [4, 3, -2]
    assert out["results"]["vehicle_mettle"] == [4, 3, 3]
    assert out["state"]["actors"][0]["conditions"] == []
    assert out["state"]["target"]["conditions"] == ["Staggered"]


def test_a_day_of_rest_ends_an_affliction(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sleeper = with_extra(tmp_path, ex("elephant"), "sleeper.yaml",
                         'conditions: ["Strained(3, \\"affliction\\")", "Strained(2, \\"thirst\\")", Incapacitated]\n')
    out = run(cli, "Rest A Day", "--as", sleeper)
    assert out["results"] == {"strain": 2}
    assert out["state"]["actor"]["conditions"] == ['Strained(2, "thirst")']


# ---------------------------------------------------------------- falls, deprivation


def test_spikes_and_a_soft_landing(cli) -> None:  # type: ignore[no-untyped-def]
    # The scout (POISE 2, FRAME 3) drops into a spiked pit: the fall 3 - 2 = 1, the spikes
    # 5 + 2 - 3 = 4.
    out = run(cli, "Fall", "--as", ex("scout"), "--with", "spikes=true", "--with", "spike_bonus=2", "--dice", "3,5")
    assert out["results"]["damage"] == 5
    # A Plummet onto someone incredibly soft: no fall for the diver (and no die for it).
    soft = run(cli, "Plummet", "--as", ex("kirin"), "--against", ex("bandit"), "--with", "metres=9",
               "--with", "soft_victim=true", "--dice", "1,2,4")
    assert soft["results"] == {"hit": True, "damage": 3, "own_damage": 0}


def test_deprivation_stretched_by_taking_it_easy(cli) -> None:  # type: ignore[no-untyped-def]
    out = run(cli, "Deprivation", "--as", ex("kirin"), "--with", "need=hunger", "--with", "days=4",
              "--with", "every=2")
    assert out["results"]["strain"] == [0, 1, 1, 2]


# ---------------------------------------------------------------- cover in a Round, A21, A25, A26


def test_cover_is_called_at_the_start_of_an_action(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    walled = with_extra(tmp_path, ex("kirin"), "walled.yaml", "cover: stone wall facing_lower\n")
    out = run(cli, "Combat Round", "--as", walled, "--against", ex("bandit"),
              "--choices", answers(tmp_path, "Kirin", "total_cover", "pass", "Bandit", "pass"))
    assert out["state"]["actor"]["conditions"] == ["Covered(total, facing_lower)"]
    fence = with_extra(tmp_path, ex("kirin"), "fence.yaml", "cover: flimsy fence\n")
    refused(cli, "Cover Holds", "Combat Round", "--as", fence, "--against", ex("bandit"),
            "--choices", answers(tmp_path, "Kirin", "total_cover"))
    partial = run(cli, "Combat Round", "--as", fence, "--against", ex("bandit"),
                  "--choices", answers(tmp_path, "Kirin", "partial_cover", "pass", "Bandit", "pass"))
    assert partial["state"]["actor"]["conditions"] == ["Covered(partial, all_sides)"]


def test_a21_an_interruption_may_pass_initiative(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    waiting = with_extra(tmp_path, ex("viktor"), "waiting.yaml", "conditions: [Waiting]\n")
    # Viktor holds an Attack; the Chief opens; Viktor interrupts and shoots the Bandit
    # ([1,1,1,1,1,1]: a hit, 3 - 3 = no damage).
    plan = ("keep_waiting", "Chief", "interrupt", "Viktor", "Bandit")
    kept = run(cli, "Combat Round", "--as", waiting, "--against", ex("bandits"), "--dice", "1,1,1,1,1,1",
               "--choices", answers(tmp_path, *plan, "pass", "Bandit", "pass"))
    assert [a["who"] for a in kept["results"]["actions"]] == ["Viktor", "Chief", "Bandit"]
    passed = run(cli, "Combat Round", "--as", waiting, "--against", ex("bandits"), "--dice", "1,1,1,1,1,1",
                 "--option", "interrupt_initiative=passes_on", "--choices", answers(tmp_path, *plan, "pass", "Chief",
                                                                                  "pass"))
    assert [a["who"] for a in passed["results"]["actions"]] == ["Viktor", "Bandit", "Chief"]


def test_a25_a_fighting_concept_replaces_nature(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # A bandit with a fighting CONCEPT of 5 rolls 5 dice, not NATURE's 3: [1,1,1,1,4] Score 4.
    master = with_extra(tmp_path, ex("bandit"), "master.yaml", "fighting concept: Club master\n")
    Path(master).write_text(Path(master).read_text().replace("CONCEPT: 3", "CONCEPT: 5"))
    assert run(cli, "Attack", "--as", master, "--against", ex("bandit"), "--dice", "1,1,1,1,4")["results"]["edge"] == 1
    strict = cli("run", GAME, "Attack", "--as", master, "--against", ex("bandit"), "--option",
                 "attack_concept=nature_only", "--dice", "1,1,1,1,4")
    assert strict.code == 1 and "E0502" in strict.stderr  # only 3 dice are rolled


def test_a26_spotting_a_trap_by_concept_alone(cli) -> None:  # type: ignore[no-untyped-def]
    # The scout: POISE 2, CONCEPT 4. By the Move section's wording the CONCEPT's 4 dice roll.
    out = run(cli, "Trap", "--as", ex("scout"), "--with", "trap=pitfall", "--option", "trap_detect_pool=trap_concept",
              "--dice", "1,1,1,1")
    assert out["results"]["spotted"] is True
