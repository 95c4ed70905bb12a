"""METTLE Core scenes outside the fight (rulesets/mettle/scenes.rules): Sneak and Surprise in
the next Round, encumbrance, a race Stretch, a travel leg, downtime vouchers (spec §3, §4.12-§4.14,
§4.18), with given dice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runebook.interpreter.rules import load

GAME = "mettle"
EXAMPLES = Path(__file__).resolve().parent.parent / "rulesets" / "mettle" / "examples"


def ex(name: str) -> str:
    return str(EXAMPLES / f"{name}.yaml")


def run(cli, *args: str) -> dict:  # type: ignore[no-untyped-def]
    out = cli("run", GAME, *args, "--json")
    assert out.code == 0, out.stderr
    return json.loads(out.stdout)


def test_sneak_surprises_the_watchers(cli) -> None:  # type: ignore[no-untyped-def]
    # Kirin's POISE 5 against the highest MOTIVE (the Chief's 4): [1,2,3,4,5] Score 6, Edge 2.
    out = run(cli, "Sneak", "--as", ex("kirin"), "--against", ex("bandits"), "--dice", "1,2,3,4,5")
    assert out["results"] == {"outcome": "success", "surprise_dm_bonus": 2, "items": 3}
    assert [t["conditions"] for t in out["state"]["targets"]] == [["Surprised"], ["Surprised"]]
    caught = run(cli, "Sneak", "--as", ex("kirin"), "--against", ex("bandits"), "--dice", "1,1,1,4,5",
                 "--answer", "action_twist=decline")
    assert caught["results"]["outcome"] == "failure"


def test_the_surprised_have_no_action_in_the_first_round(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    surprised = tmp_path / "s.yaml"
    surprised.write_text(EXAMPLES.joinpath("bandit.yaml").read_text() + "conditions: [Surprised]\n")
    answers = tmp_path / "a.yaml"
    # Kirin stabs the surprised Bandit, who cannot answer: the Round ends (no next_holder asked).
    answers.write_text("- Kirin\n- attack_foe\n- Bandit\n- no_surge\n")
    out = run(cli, "Combat Round", "--as", ex("kirin"), "--against", str(surprised), "--choices", str(answers),
              "--dice", "1,2,4")
    assert [c["choice"] for c in out["choices"]] == ["opener", "chosen_act", "victim", "surge"]
    # In Round 2 the Bandit acts again (A9 default: one Round).
    answers.write_text("- Bandit\n- pass\n- Kirin\n- pass\n")
    later = run(cli, "Combat Round", "--as", ex("kirin"), "--against", str(surprised), "--with", "round=2",
                "--choices", str(answers))
    assert [a["who"] for a in later["results"]["actions"]] == ["Bandit", "Kirin"]


@pytest.mark.parametrize(("weight", "frame", "poise", "penalty", "out"), [
    (40, 3, 3, 0, False), (41, 3, 3, 1, False), (100, 3, 3, 2, False), (121, 3, 3, 3, True), (360, 10, 1, 0, False)])
def test_encumbrance_by_load_step(weight: int, frame: int, poise: int, penalty: int, out: bool) -> None:
    result = load(GAME).resolve("Encumbrance", weight=weight, frame=frame, poise=poise).results
    assert result["penalty"] == penalty and result["incapacitated"] is out


def test_a_race_stretch_and_a_crash(cli) -> None:  # type: ignore[no-untyped-def]
    # Kirin POISE 5 + Handling 1 = 6 dice vs Speed 3 + obstacle 2: [1,1,1,1,4,5] Score 4 < 5.
    # Crash 1d6 = 4 + Speed 3: vehicle 7 - FRAME 4 = 3; Kirin (no seatbelt) 4 + 6 - 3 = 7.
    out = run(cli, "Race Stretch", "--as", ex("kirin"), "--with", "speed=3", "--with", "handling=1",
              "--with", "obstacles=2", "--with", "vehicle_frame=4", "--with", "seatbelt=false",
              "--dice", "1,1,1,1,4,5,4", "--answer", "race_twist=keep_failure")
    assert out["results"] == {"outcome": "failure", "lead": 2, "vehicle_damage": 3, "driver_damage": 7, "speed": 3}


def test_a_travel_leg(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = run(cli, "Travel Leg", "--as", ex("kirin"), "--with", "difficulty=6", "--dice", "3,3,4,4,5")
    assert out["results"] == {"outcome": "success", "encounter": False, "lost": False, "edge": 3}
    answers = tmp_path / "a.yaml"
    answers.write_text("- lost_the_way\n")
    # [1,1,4,4,5] Score 2 < 6 with 3 Edge: the Twist (lost) rolls the 3 Edge dice again,
    # [1,4,4]: Score 3, still short, Edge 2.
    lost = run(cli, "Travel Leg", "--as", ex("kirin"), "--with", "difficulty=6", "--dice", "1,1,4,4,5,1,4,4",
               "--choices", str(answers))
    assert lost["results"] == {"outcome": "failure", "encounter": True, "lost": True, "edge": 2}


def test_downtime_vouchers(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert run(cli, "Grant Downtime Voucher", "--as", ex("kirin"))["results"] == {"vouchers": 1}
    holder = tmp_path / "h.yaml"
    holder.write_text(EXAMPLES.joinpath("kirin.yaml").read_text() + "resources: {Vouchers: 1}\n")
    assert run(cli, "Spend Downtime Voucher", "--as", str(holder), "--with", 'what="bought a speedboat"')[
        "results"] == {"vouchers": 0, "declared": "bought a speedboat"}
    before = EXAMPLES.joinpath("kirin.yaml").read_bytes()
    refused = cli("run", GAME, "Spend Downtime Voucher", "--as", ex("kirin"))
    assert refused.code == 1 and "E0706" in refused.stderr
    assert EXAMPLES.joinpath("kirin.yaml").read_bytes() == before


def test_p03_viktor_parleys_with_the_clerk(cli) -> None:  # type: ignore[no-untyped-def]
    """NATURE 5 + 1D (the wallet) = 6 dice [3,2,2,4,4,6] vs MOTIVE 4: Score 7, Edge 3, success."""
    out = run(cli, "Parley", "--as", ex("viktor"), "--against", ex("clerk"), "--with", "leverage_dice=1",
              "--dice", "3,2,2,4,4,6")
    assert out["results"] == {"outcome": "success", "sticky_belief": 3}


def test_know_and_use_pools(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Viktor: MOTIVE 3, CONCEPT 6. Know by MOTIVE rolls 3 dice; with a fitting CONCEPT, 6;
    # as the Check line prints (A4 alternative), CONCEPT always.
    assert run(cli, "Know", "--as", ex("viktor"), "--dice", "1,1,1")["results"]["outcome"] == "success"
    assert run(cli, "Know", "--as", ex("viktor"), "--with", "concept_fits=true", "--dice", "1,1,1,4,4,4")[
        "results"] == {"outcome": "success", "extra_answers": 3, "told": "the answer"}
    assert run(cli, "Know", "--as", ex("viktor"), "--option", "know_pool=concept_line", "--dice", "1,1,1,4,4,4")[
        "results"]["extra_answers"] == 3
    assert run(cli, "Use", "--as", ex("viktor"), "--with", "difficulty=4", "--with", "bonus_dice=1",
               "--dice", "1,1,1,1")["results"] == {"outcome": "success", "edge": 0}


def test_a20_a_surprise_attack_may_hit_automatically(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    surprised = tmp_path / "s.yaml"
    surprised.write_text(EXAMPLES.joinpath("bandit.yaml").read_text() + "conditions: [Surprised]\n")
    # Kirin [1,1,4]: Score 2 < 3 with Edge 1; by default a miss (the Twist declined)...
    answers = tmp_path / "a.yaml"
    answers.write_text("- accept_failure\n")
    miss = run(cli, "Attack", "--as", ex("kirin"), "--against", str(surprised), "--with", "bonus=2",
               "--dice", "1,1,4", "--choices", str(answers))
    assert miss["results"]["hit"] is False
    # ...under the later reading it lands: DM 3 + Edge 1 + Sneak Edge 2 - Soak 3 = 3.
    hit = run(cli, "Attack", "--as", ex("kirin"), "--against", str(surprised), "--with", "bonus=2",
              "--dice", "1,1,4", "--option", "surprise_attack=automatic")
    assert hit["results"]["hit"] is True and hit["results"]["damage"] == 3


def test_a13_splatter_readings() -> None:
    rules = load(GAME)
    assert rules.resolve("Splatter Stunt", edge=2).results["applies_to"] == "sight-reliant Checks of those aboard"
    other = rules.resolve("Splatter Stunt", edge=2, options={"splatter": "defensive_cover"}).results
    assert other["applies_to"] == "Attacks made on those aboard" and other["penalty"] == 2


def test_moving_past_obstacles_stops_where_the_score_runs_out(cli) -> None:  # type: ignore[no-untyped-def]
    # POISE 5 against 2 + 3 + 4 = 9: [1,2,3,6,6] Score 6 fails, but clears 2 and 3 (5 <= 6).
    out = run(cli, "Move Past", "--as", ex("kirin"), "--with", "obstacles=2,3,4", "--dice", "1,2,3,6,6",
              "--answer", "action_twist=decline")
    assert out["results"] == {"outcome": "failure", "passed": 2}
    clear = run(cli, "Move Past", "--as", ex("kirin"), "--with", "obstacles=2,3,4", "--dice", "3,3,3,1,6")
    assert clear["results"] == {"outcome": "success", "passed": 3}


def test_plummet_adds_at_most_2_to_the_dm(cli) -> None:  # type: ignore[no-untyped-def]
    # 9 m is +3, capped at +2: [1,2,4] hits, DM 3 + Edge 1 + 2 - Soak 3 = 3; the diver's own
    # fall 5 + 3 - POISE 5 = 3.
    out = run(cli, "Plummet", "--as", ex("kirin"), "--against", ex("bandit"), "--with", "metres=9",
              "--dice", "1,2,4,5")
    assert out["results"] == {"hit": True, "damage": 3, "own_damage": 3}


def test_ramming(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # POISE 5 + Handling 1 = 6 dice [1,1,4,4,5,6]: Score 2 against the target's Speed 2, Edge 4.
    # To the target: FRAME 5 + Speed 3 + Edge 4 = 12; back: its FRAME 4 + Speed 2 = 6.
    out = run(cli, "Ram", "--as", ex("kirin"), "--with", "speed=3", "--with", "handling=1", "--with",
              "vehicle_frame=5", "--with", "target_speed=2", "--with", "target_frame=4", "--dice", "1,1,4,4,5,6")
    assert out["results"] == {"outcome": "success", "target_damage": 12, "vehicle_damage": 6}
    head_on = run(cli, "Ram", "--as", ex("kirin"), "--with", "speed=3", "--with", "handling=1", "--with",
                  "vehicle_frame=5", "--with", "target_speed=2", "--with", "target_frame=4", "--with", "head_on=true",
                  "--dice", "1,1,4,4,5,6")
    assert head_on["results"]["target_damage"] == 14 and head_on["results"]["vehicle_damage"] == 9
    slower = cli("run", GAME, "Ram", "--as", ex("kirin"), "--with", "speed=1", "--with", "target_speed=2",
                 "--dice", "1")
    assert slower.code == 1 and "'Rammer Not Slower' requires" in slower.stderr


def test_self_aid_at_double_difficulty(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    hurt = tmp_path / "h.yaml"
    hurt.write_text(EXAMPLES.joinpath("viktor.yaml").read_text() + "resources: {Harm: 7}\n")  # Mettle -1
    # MOTIVE 3 less 1 die (Staggered at -1) = 2 dice against 2 x 1: [1,1] is Score 2.
    out = run(cli, "Self Aid", "--as", str(hurt), "--dice", "1,1")
    assert out["results"] == {"outcome": "success", "mettle": -1}
    # A30's alternative keeps the MOTIVE pool: 3 dice.
    floor = run(cli, "Self Aid", "--as", str(hurt), "--option", "stagger_penalty_floor=motive", "--dice", "1,1,4")
    assert floor["results"] == {"outcome": "success", "mettle": 0}
    fallen = tmp_path / "f.yaml"
    fallen.write_text(EXAMPLES.joinpath("viktor.yaml").read_text() + "resources: {Harm: 10}\n")  # Mettle -4
    refused = cli("run", GAME, "Self Aid", "--as", str(fallen), "--option", "self_aid_when_fallen=fallen_may_not",
                  "--dice", "1")
    assert refused.code == 1 and "E0613" in refused.stderr


def test_heal_readings(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    patient = tmp_path / "p.yaml"
    patient.write_text(EXAMPLES.joinpath("bandit.yaml").read_text() + "resources: {Harm: 3}\n")  # Mettle 0
    # A3: at exactly 0 the Difficulty is 0, an automatic success (Viktor's MOTIVE 3: any dice).
    assert run(cli, "Heal", "--as", ex("viktor"), "--against", str(patient), "--dice", "4,4,4")["results"][
        "outcome"] == "success"
    refused = cli("run", GAME, "Heal", "--as", ex("viktor"), "--against", str(patient), "--option",
                  "heal_at_zero=zero_refused", "--dice", "4,4,4")
    assert refused.code == 1 and "'Patient Below Zero' requires" in refused.stderr
    # A2: the Check line's CONCEPT (Viktor's 6) rolls 6 dice.
    six = run(cli, "Heal", "--as", ex("viktor"), "--against", str(patient), "--option", "heal_pool=concept_only",
              "--dice", "4,4,4,4,4,4")
    assert six["results"]["restored"] == 3  # 6 Edge, but only 3 Harm to take back


def test_a_journeys_encounters_match_an_enumeration() -> None:
    from collections import Counter
    from fractions import Fraction
    from itertools import product

    rules = load(GAME)
    kirin = rules.entity(ex("kirin"))  # POISE 5
    odds = rules.odds("Journey", as_=kirin, legs=[3, 6])
    miss = {d: sum(Fraction(1, 6 ** 5) for faces in product(range(1, 7), repeat=5)
                   if sum(f for f in faces if f <= 3) < d) for d in (3, 6)}
    expected = Counter()
    for a, b in product([False, True], repeat=2):
        expected[int(a) + int(b)] += (miss[3] if a else 1 - miss[3]) * (miss[6] if b else 1 - miss[6])
    assert {k: v for k, v in dict(odds.results["encounters"]).items() if v} == dict(expected)
