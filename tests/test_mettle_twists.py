"""METTLE Core Twists on the Actions besides the Attack (spec mettle.md §1.3, §3): after a
failed Check with Edge the player may take a Twist (choice `action_twist`; the Travel Leg's
`travel_twist`), and then only the Edge dice are rolled again beside the Score kept; the new
result stands, success or not, and Delay (`lose_next_action`) costs the next Action. Declining
keeps the failure. Given dice; the expectations are worked out in the comments."""

from __future__ import annotations

from pathlib import Path

import pytest

from mettle_helpers import ex, fighter, run


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
    # heal_pool = patient_motive (the later revision): the patient's MOTIVE 3 against 2; [1,4,5]
    # Score 1 fails: a Staggered patient (-2) falls to Fallen (-4, below -MOTIVE), not dead.
    opt = ("--option", "heal_pool=patient_motive", "--answer", "action_twist=decline")
    staggered = fighter(tmp_path, "Staggered", resources={"Harm": 5})
    out = run(cli, "Heal", "--as", ex("kirin"), "--against", staggered, *opt, "--dice", "1,4,5")
    assert out["results"]["patient_mettle"] == -4
    assert out["state"]["target"]["conditions"] == ["Fallen"]
    # A Fallen patient (-4, Difficulty 4) who fails, [1,1,4], dies.
    fallen = fighter(tmp_path, "Fallen", resources={"Harm": 7})
    dies = run(cli, "Heal", "--as", ex("kirin"), "--against", fallen, *opt, "--dice", "1,1,4")
    assert "Dead" in dies["state"]["target"]["conditions"]
