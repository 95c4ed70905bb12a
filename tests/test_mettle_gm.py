"""METTLE Core as a GM meets it at the table (spec mettle.md §3 attack, §4.1): the default
Twist, Delay, costing the next Round's Action in a Fight, and a Split Attack that may not aim
at a target behind Total Cover. Given dice; the numbers are worked out in the comments."""

from __future__ import annotations

from pathlib import Path

from mettle_helpers import answers, ex, fighter, refused, run


def test_a_delay_twist_costs_the_next_rounds_action(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    chief, kirin = ex("bandit-chief"), ex("kirin")
    plan = ["Chief", "attack_foe", "Kirin", "delay", "no_surge",  # Round 1: the Chief misses, takes Delay
            "attack_foe", "Chief", "no_surge",                    # Kirin, struck with her Action, answers
            "Kirin", "attack_foe", "Chief", "no_surge"]           # Round 2: only Kirin has an Action
    # The Chief's 5 dice [1,1,4,5,6]: Score 2 < POISE 5, 3 Edge; Delay rolls them again, [4,4,4]:
    # still Score 2, a miss. Kirin's 3 dice [1,1,1]: Score 3 < POISE 3 + Parry 1, twice.
    dice = "1,1,4,5,6,4,4,4,1,1,1,1,1,1"
    out = run(cli, "Fight", "--as", chief, "--against", kirin, "--with", "rounds=2",
              "--choices", answers(tmp_path, *plan), "--dice", dice)
    assert [c["choice"].split(".")[-1] for c in out["choices"]][8:] == ["opener", "chosen_act", "victim", "surge"]
    assert out["results"]["rounds"] == 2 and out["results"]["mettle"] == [5, 4]
    assert out["state"]["actor"]["conditions"] == []  # the Delay was spent on Round 2
    # The Chief may not open Round 2: he has no Action to take.
    late = cli("run", "mettle", "Fight", "--as", chief, "--against", kirin, "--with", "rounds=2", "--choices",
               answers(tmp_path, *plan[:8], "Chief", "attack_foe", "Kirin", "no_surge"), "--dice", dice)
    assert late.code == 1 and "E0611" in late.stderr and "'Chief' is not offered" in late.stderr


def test_a_split_attack_cannot_aim_at_total_cover(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    hidden = fighter(tmp_path, "Hidden", conditions=["Covered(total)"])
    refused(cli, "Target Not In Total Cover", "Split Attack", "--as", ex("bandit-chief"), "--against", ex("bandit"),
            "--against", hidden, "--with", "first_dice=2", "--dice", "1,2,3,3,3,3")
    # Partial Cover only halves what gets through: the Chief's 4 dice split 2 + 2, each +1D
    # Hit: [1,2,4] Score 3 vs POISE 3, Edge 1: 5 + 1 - 3 = 3; [3,3,4] Edge 1: 3, halved up to 2.
    partial = fighter(tmp_path, "Crouched", conditions=["Covered(partial)"])
    out = run(cli, "Split Attack", "--as", ex("bandit-chief"), "--against", ex("bandit"), "--against", partial,
              "--with", "first_dice=2", "--dice", "1,2,4,3,3,4")
    assert out["results"]["damage"] == [3, 2]


def test_a_rattled_attacker_cannot_surge_after_that_action(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Rattled (1): "no Rally or Surge on their next Action". The Bandit's Attack is that Action:
    # no Surge is offered after it, though the Rattle then wears off. [1,2,6] Score 3 vs
    # Kirin's POISE 5 misses with 1 Edge (no Twist taken); Kirin, with her Action left, passes.
    rattled = fighter(tmp_path, "Rattled", conditions=["Rattled(1)"])
    out = run(cli, "Combat Round", "--as", rattled, "--against", ex("kirin"), "--choices",
              answers(tmp_path, "Rattled", "attack_foe", "Kirin", "accept_failure", "pass"), "--dice", "1,2,6")
    assert [c["choice"] for c in out["choices"]] == ["opener", "chosen_act", "victim", "blow.combat_twist",
                                                     "chosen_act"]
    assert out["state"]["actor"]["conditions"] == []
    # Unrattled, the same Bandit is offered its Surge after the Attack.
    calm = fighter(tmp_path, "Calm")
    again = run(cli, "Combat Round", "--as", calm, "--against", ex("kirin"), "--choices",
                answers(tmp_path, "Calm", "attack_foe", "Kirin", "accept_failure", "no_surge", "pass"), "--dice", "1,2,6")
    assert "surge" in [c["choice"] for c in again["choices"]]
