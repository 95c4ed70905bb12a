"""METTLE Core scenes outside the fight (rulesets/mettle/scenes.rules): Sneak and Surprise in
the next Round, encumbrance, a race Stretch, a travel leg, downtime vouchers (spec §3, §4.12-§4.14,
§4.18), with given dice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from interpreter.rules import load

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
    assert out["results"] == {"outcome": "success", "surprise_dm_bonus": 2}
    assert [t["conditions"] for t in out["state"]["targets"]] == [["Surprised"], ["Surprised"]]
    caught = run(cli, "Sneak", "--as", ex("kirin"), "--against", ex("bandits"), "--dice", "1,1,1,4,5")
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
              "--dice", "1,1,1,1,4,5,4")
    assert out["results"] == {"outcome": "failure", "lead": 2, "vehicle_damage": 3, "driver_damage": 7}


def test_a_travel_leg(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = run(cli, "Travel Leg", "--as", ex("kirin"), "--with", "difficulty=6", "--dice", "3,3,4,4,5")
    assert out["results"] == {"outcome": "success", "encounter": False, "lost": False, "edge": 3}
    answers = tmp_path / "a.yaml"
    answers.write_text("- get_lost\n")
    lost = run(cli, "Travel Leg", "--as", ex("kirin"), "--with", "difficulty=6", "--dice", "1,1,4,4,5",
               "--choices", str(answers))
    assert lost["results"] == {"outcome": "failure", "encounter": True, "lost": True, "edge": 3}


def test_downtime_vouchers(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert run(cli, "Grant Downtime Voucher", "--as", ex("kirin"))["results"] == {"vouchers": 1}
    holder = tmp_path / "h.yaml"
    holder.write_text(EXAMPLES.joinpath("kirin.yaml").read_text() + "resources: {Vouchers: 1}\n")
    assert run(cli, "Spend Downtime Voucher", "--as", str(holder))["results"] == {"vouchers": 0}
    before = EXAMPLES.joinpath("kirin.yaml").read_bytes()
    refused = cli("run", GAME, "Spend Downtime Voucher", "--as", ex("kirin"))
    assert refused.code == 1 and "E0706" in refused.stderr
    assert EXAMPLES.joinpath("kirin.yaml").read_bytes() == before
