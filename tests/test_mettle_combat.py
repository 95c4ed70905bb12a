"""METTLE Core combat (rulesets/mettle/combat.rules, initiative.rules): the Attack with Soak,
cover and its sub-options, the Mettle track, Rally, Surge, Rattle, Heal, popcorn Initiative
among four combatants, and exact odds compared with an enumeration written here.

The reading of the rules is spec mettle.md §3 (attack), §4.1-§4.8 and §4.16, defaults of §5.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from runebook.interpreter.rules import load
from mettle_helpers import fighter

GAME = "mettle"
EXAMPLES = Path(__file__).resolve().parent.parent / "rulesets" / "mettle" / "examples"


def ex(name: str) -> str:
    return str(EXAMPLES / f"{name}.yaml")


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load(GAME)


def run_json(cli, *args: str) -> dict:  # type: ignore[no-untyped-def]
    run = cli("run", GAME, *args, "--json")
    assert run.code == 0, run.stderr
    return json.loads(run.stdout)


# ---------------------------------------------------------------- an independent model


def check(faces: tuple[int, ...]) -> tuple[int, int]:
    """Score (the 1-3 faces added) and Edge (how many 4-6)."""
    return sum(f for f in faces if f <= 3), sum(1 for f in faces if f >= 4)


def ceil_half(x: int) -> int:
    return -(-x // 2)


def attack_outcomes(pool: int, difficulty: int, dm: int, soak: int, partial_cover: bool = False) -> dict:
    """{(hit, damage): probability} of one Attack, every face of every die listed."""
    out: dict[tuple[bool, int], Fraction] = defaultdict(Fraction)
    for faces in product(range(1, 7), repeat=max(pool, 0)):
        score, edge = check(faces)
        hit = score >= difficulty
        damage = max(0, dm + edge - soak) if hit else 0
        if partial_cover:
            damage = ceil_half(damage)
        out[(hit, damage)] += Fraction(1, 6 ** max(pool, 0))
    return dict(out)


def marginal(joint: dict, index: int) -> dict:
    out: Counter = Counter()
    for key, p in joint.items():
        out[key[index]] += p
    return {k: v for k, v in out.items() if v}


def as_plain(dist) -> dict:  # type: ignore[no-untyped-def]
    return {(v if isinstance(v, (bool, int)) else str(v)): p for v, p in dict(dist).items() if p}


# ---------------------------------------------------------------- the Attack


def test_an_attack_with_given_dice_deals_dm_plus_edge_less_soak(cli) -> None:  # type: ignore[no-untyped-def]
    # The Chief: NATURE 4 + Hit 1 = 5 dice against Kirin's POISE 5. [3,3,1,5,6]: Score 7,
    # Edge 2; DM 5 + 2 - Soak (FRAME 2 + Armor 1) = 4; Kirin's Mettle 4 -> 0, Staggered.
    out = run_json(cli, "Attack", "--as", ex("bandit-chief"), "--against", ex("kirin"), "--dice", "3,3,1,5,6")
    assert out["results"]["hit"] is True and out["results"]["damage"] == 4
    assert out["results"]["target_mettle"] == 0 and out["results"]["target_standing"] == "Staggered"
    assert out["state"]["target"]["resources"]["Harm"] == 4
    assert out["state"]["target"]["conditions"] == ["Staggered"]


def test_a_miss_deals_nothing(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # [1,1,1,2,4]: Score 5 = POISE 5, a success under the default (A1: at least)...
    hit = run_json(cli, "Attack", "--as", ex("bandit-chief"), "--against", ex("kirin"), "--dice", "1,1,1,2,4")
    assert hit["results"]["hit"] is True and hit["results"]["damage"] == 3
    # ...and a miss when the Score must beat the Difficulty.
    answers = tmp_path / "a.yaml"
    answers.write_text("- accept_failure\n")  # the failure has Edge: a Twist is offered, and declined
    miss = run_json(cli, "Attack", "--as", ex("bandit-chief"), "--against", ex("kirin"), "--dice", "1,1,1,2,4",
                    "--option", "success_comparison=beats", "--choices", str(answers))
    assert miss["results"]["hit"] is False and miss["results"]["damage"] == 0


def test_partial_cover_halves_after_soak_rounding_up(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    covered = fighter(tmp_path, "Covered", conditions=["Covered(partial)"])
    # Chief 5 dice vs POISE 3: [1,2,4,5,6] Score 3, Edge 3: DM 5 + 3 - 3 = 5 -> half, up: 3.
    out = run_json(cli, "Attack", "--as", ex("bandit-chief"), "--against", covered, "--dice", "1,2,4,5,6")
    assert out["results"]["damage"] == 3
    down = run_json(cli, "Attack", "--as", ex("bandit-chief"), "--against", covered, "--dice", "1,2,4,5,6",
                    "--option", "halving=down")
    assert down["results"]["damage"] == 2
    before = run_json(cli, "Attack", "--as", ex("bandit-chief"), "--against", covered, "--dice", "1,2,4,5,6",
                      "--option", "cover_halve_order=before_soak")
    assert before["results"]["damage"] == 1  # half of 8 is 4, less Soak 3
    # A11 alternative: cover adds 2 to the POISE Difficulty instead (Score 3 < 5: a miss).
    answers = tmp_path / "a.yaml"
    answers.write_text("- accept_failure\n")
    bonus = run_json(cli, "Attack", "--as", ex("bandit-chief"), "--against", covered, "--dice", "1,2,4,5,6",
                     "--option", "cover_model=poise_bonus", "--choices", str(answers))
    assert bonus["results"]["hit"] is False


def test_subdual_disarm_and_grapple(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    chief, bandit = ex("bandit-chief"), ex("bandit")
    dice = "1,2,4,5,6"  # Score 3 vs POISE 3, Edge 3
    assert run_json(cli, "Attack", "--as", chief, "--against", bandit, "--dice", dice,
                    "--with", "mode=subdual")["results"]["damage"] == 2  # Edge ignored: 5 - 3
    assert run_json(cli, "Attack", "--as", chief, "--against", bandit, "--dice", dice,
                    "--with", "mode=subdual_reversed")["results"]["damage"] == 0  # 5 - 3 - 3
    # Disarm: 5 + 3 - 3 = 5 would take the Bandit's 3 Mettle to -2: the club drops, no damage.
    disarm = run_json(cli, "Attack", "--as", chief, "--against", bandit, "--dice", dice, "--with", "mode=disarm")
    assert disarm["results"]["disarmed"] is True and disarm["results"]["damage"] == 0
    assert disarm["state"]["target"]["conditions"] == ["Disarmed"]
    # A blow too weak to reach 0 deals its damage (A15), or nothing under the alternative.
    tough = fighter(tmp_path, "Tough", CONCEPT=9)
    weak = run_json(cli, "Attack", "--as", chief, "--against", tough, "--dice", dice, "--with", "mode=disarm")
    assert weak["results"]["disarmed"] is False and weak["results"]["damage"] == 5
    none = run_json(cli, "Attack", "--as", chief, "--against", tough, "--dice", dice, "--with", "mode=disarm",
                    "--option", "disarm_on_insufficient=no_effect")
    assert none["results"]["damage"] == 0
    # Grapple: the sword's Hit does not count (most weapons count for neither side), so 4 dice:
    # [3,4,5,6] Score 3 vs POISE 3, Edge 3: FRAME 3 + Edge 3 - FRAME 3 = +3 Difficulty on the
    # target's Checks, no damage.
    grip = run_json(cli, "Attack", "--as", chief, "--against", bandit, "--dice", "3,4,5,6", "--with", "mode=grapple")
    assert grip["results"]["hold"] == 3 and grip["results"]["damage"] == 0
    assert grip["state"]["target"]["conditions"] == ["Grappled(3) for 2 rounds"]


def test_combat_twists_after_a_failure_with_edge(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    chief, kirin = ex("bandit-chief"), ex("kirin")
    # [1,1,4,5,6]: Score 2 < 5, Edge 3: a Twist may be called; the 3 Edge dice are rolled again.
    answers = tmp_path / "a.yaml"
    answers.write_text("- glancing_blow\n")
    # Reroll [3,3,4]: Score 2 + 6 = 8 >= 5, Edge 1: DM 5 + 1 - 3 = 3, halved (up) = 2.
    glance = run_json(cli, "Attack", "--as", chief, "--against", kirin, "--dice", "1,1,4,5,6,3,3,4",
                      "--choices", str(answers))
    assert glance["results"]["hit"] is True and glance["results"]["damage"] == 2
    answers.write_text("- counter\n")
    # Reroll [1,4,6]: Score 3 < 5 still, Edge 2: Kirin counters with DM 3 + 2 - Soak (FRAME 3 + Armor 1) = 1.
    counter = run_json(cli, "Attack", "--as", chief, "--against", kirin, "--dice", "1,1,4,5,6,1,4,6",
                       "--choices", str(answers))
    assert counter["results"]["hit"] is False and counter["results"]["countered"] == 1
    assert counter["state"]["actor"]["resources"]["Harm"] == 1
    answers.write_text("- delay\n")
    delay = run_json(cli, "Attack", "--as", chief, "--against", kirin, "--dice", "1,1,4,5,6,1,4,6",
                     "--choices", str(answers))
    assert delay["state"]["actor"]["conditions"] == ["Delayed"]


def test_exact_odds_of_an_attack_match_an_enumeration(rules) -> None:  # type: ignore[no-untyped-def]
    chief, kirin = rules.entity(ex("bandit-chief")), rules.entity(ex("kirin"))
    odds = rules.odds("Attack", as_=chief, against=kirin)
    # Independent: 5 dice (NATURE 4 + Hit 1) vs POISE 5; DM 5, Soak 3.
    joint = attack_outcomes(5, 5, 5, 3)
    assert as_plain(odds.results["hit"]) == marginal(joint, 0)
    assert as_plain(odds.results["damage"]) == marginal(joint, 1)


def test_exact_odds_of_an_attack_into_partial_cover(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    covered = rules.entity(fighter(tmp_path, "Covered", Armor=1, conditions=["Covered(partial)"]))
    kirin = rules.entity(ex("kirin"))
    odds = rules.odds("Attack", as_=kirin, against=covered)
    joint = attack_outcomes(3, 3, 3, 4, partial_cover=True)
    assert as_plain(odds.results["damage"]) == marginal(joint, 1)


# ---------------------------------------------------------------- the Mettle track


@pytest.mark.parametrize(("harm", "standing"), [(0, "Steady"), (2, "Steady"), (3, "Staggered"), (6, "Staggered"),
                                                (7, "Fallen")])
def test_the_mettle_track(cli, tmp_path: Path, harm: int, standing: str) -> None:  # type: ignore[no-untyped-def]
    """P-06: MOTIVE 3 is Staggered from Mettle 0 down to -3 and Fallen from -4 (Mettle 3 here)."""
    target = fighter(tmp_path, "Target", resources={"Harm": harm})
    out = run_json(cli, "Attack", "--as", ex("kirin"), "--against", target, "--dice", "1,1,1")
    assert out["results"]["target_mettle"] == 3 - harm
    assert out["results"]["target_standing"] == standing


def test_staggered_costs_dice_and_fallen_loses_poise(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Mettle -2: two dice fewer. NATURE 3 + Hit 0 - 2 = 1 die.
    hurt = fighter(tmp_path, "Hurt", resources={"Harm": 5})
    one = cli("run", GAME, "Attack", "--as", hurt, "--against", ex("kirin"), "--dice", "3")
    assert one.code == 0, one.stderr
    two = cli("run", GAME, "Attack", "--as", hurt, "--against", ex("kirin"), "--dice", "3,3")
    assert two.code == 1 and "E0502" in two.stderr
    # A Fallen defender has POISE 0: even a Score of 0 hits.
    down = fighter(tmp_path, "Down", resources={"Harm": 7})
    out = run_json(cli, "Attack", "--as", ex("kirin"), "--against", down, "--dice", "4,5,6")
    assert out["results"]["hit"] is True and out["results"]["damage"] == 3  # DM 3 + 3 - 3


def test_rally_doubles_mettle_up_to_the_maximum(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # S-16: most effective at half Mettle. Max 6: current 1..5 gains 1, 2, 3, 2, 1.
    for current, gain in [(1, 1), (2, 2), (3, 3), (4, 2), (5, 1), (6, 0)]:
        who = fighter(tmp_path, f"R{current}", CONCEPT=6, resources={"Harm": 6 - current})
        out = run_json(cli, "Rally", "--as", who)
        assert out["results"] == {"gained": gain, "mettle": min(6, 2 * current), "vehicle_gained": 0}


def test_surge_halves_mettle_rounding_up(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    who = fighter(tmp_path, "S", CONCEPT=5)
    assert run_json(cli, "Surge", "--as", who)["results"] == {"lost": 2, "mettle": 3}


def test_rattle_blocks_rally_for_one_action_per_edge(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # NATURE 3 vs MOTIVE 3: [1,2,4] Score 3, Edge 1: Rattled for 2 Actions (1 + Edge).
    out = run_json(cli, "Rattle", "--as", ex("kirin"), "--against", ex("bandit"), "--dice", "1,2,4")
    assert out["results"]["rattled_for"] == 2
    single = run_json(cli, "Rattle", "--as", ex("kirin"), "--against", ex("bandit"), "--dice", "1,2,4",
                      "--option", "rattle_edge_mode=single")
    assert single["results"]["rattled_for"] == 2
    rattled = fighter(tmp_path, "Rattled", conditions=["Rattled(1)"], resources={"Harm": 1})
    refused = cli("run", GAME, "Rally", "--as", rattled)
    assert refused.code == 1 and "'Rally Allowed' requires" in refused.stderr


def test_heal_uses_the_negative_mettle_as_difficulty(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    patient = fighter(tmp_path, "Patient", resources={"Harm": 5})  # Mettle -2
    # Kirin's MOTIVE 3 vs 2: [1,1,5] Score 2, Edge 1: stable, 1 Mettle back after a day.
    out = run_json(cli, "Heal", "--as", ex("kirin"), "--against", patient, "--dice", "1,1,5")
    assert out["results"] == {"outcome": "success", "restored": 1, "after": "day", "patient_mettle": -1}
    dies = run_json(cli, "Heal", "--as", ex("kirin"), "--against", patient, "--dice", "1,4,5",
                    "--answer", "action_twist=decline")
    assert dies["results"]["outcome"] == "failure" and "Dead" in dies["state"]["target"]["conditions"]
    well = cli("run", GAME, "Heal", "--as", ex("kirin"), "--against", ex("bandit"), "--dice", "1,1,5")
    assert well.code == 1 and "'Patient Below Zero' requires" in well.stderr


# ---------------------------------------------------------------- refusals


@pytest.mark.parametrize(("who", "whom", "rule"), [
    ("fallen", "bandit", "'Attacker Can Act' requires can_act("),
    ("bystander", "bandit", "'Attacker Has Weapon' requires has_weapon("),
    ("kirin", "viktor", "'Target In Reach' requires zone_gap("),
    ("kirin", "negative", "'Soak Is Not Negative' requires"),
])
def test_an_attack_the_rules_forbid_is_refused(cli, tmp_path: Path, who: str, whom: str,  # type: ignore[no-untyped-def]
                                               rule: str) -> None:
    made = {"fallen": fighter(tmp_path, "Fallen", resources={"Harm": 9}),
            "negative": fighter(tmp_path, "Negative", Armor=-1)}
    paths = [made.get(n) or ex(n) for n in (who, whom)]
    before = [Path(p).read_bytes() for p in paths]
    run = cli("run", GAME, "Attack", "--as", paths[0], "--against", paths[1], "--dice", "1,1,1")
    assert run.code == 1
    assert "E0613" in run.stderr and rule in run.stderr and "Traceback" not in run.stderr
    assert [Path(p).read_bytes() for p in paths] == before


# ---------------------------------------------------------------- Initiative among four


def test_a_round_among_four_from_the_command_line(cli) -> None:  # type: ignore[no-untyped-def]
    heroes, bandits = ex("heroes"), ex("bandits")
    before = [Path(p).read_bytes() for p in (heroes, bandits)]
    out = run_json(cli, "Combat Round", "--as", heroes, "--against", bandits,
                   "--choices", ex("round-choices"), "--dice", "1,2,3,4,5,6,3,3,1,5,6,2,2,6,1,4,5")
    # Viktor waits, then interrupts: 6 dice vs the Chief's POISE 3 (a shot from the next Zone:
    # no Parry): [1,2,3,4,5,6]
    # Score 6, Edge 3: 3 + 3 - 4 = 2. The Chief (5 dice) hits Kirin [3,3,1,5,6]: 5 + 2 - 3 = 4.
    # Kirin, struck with her Action left, answers: [2,2,6] Score 4 vs 3, 3 + 1 - 3 = 1 to the
    # Bandit, who answers with a Rattle: [1,4,5] Score 1 < MOTIVE 3, no effect.
    assert [a["did"] for a in out["results"]["actions"]] == ["wait", "held attack", "attack", "attack", "rattle"]
    assert out["results"]["mettle"] == [6, 0, 3, 2]
    assert out["results"]["standing"] == ["Steady", "Staggered", "Steady", "Steady"]
    assert [c["choice"] for c in out["choices"]][:4] == ["opener", "chosen_act", "next_holder", "interruption"]
    assert [Path(p).read_bytes() for p in (heroes, bandits)] == before


def test_initiative_passes_to_the_foe_attacked(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    answers = tmp_path / "a.yaml"
    # Kirin opens on the Bandit; the Bandit (struck, Action left) must go next: no next_holder asked.
    answers.write_text("- Kirin\n- attack_foe\n- Bandit\n- no_surge\n- attack_foe\n- Kirin\n- no_surge\n")
    out = run_json(cli, "Combat Round", "--as", ex("kirin"), "--against", ex("bandit"),
                   "--choices", str(answers), "--dice", "1,2,4,1,1,1")
    assert [c["choice"] for c in out["choices"]] == ["opener", "chosen_act", "victim", "surge", "chosen_act",
                                                     "victim", "surge"]
    assert out["results"]["mettle"] == [4, 2]


def test_surge_gives_back_an_attack_only(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    answers = tmp_path / "a.yaml"
    bandit = fighter(tmp_path, "Bandit", Zone=0)
    # Viktor shoots the Bandit and Surges (Mettle 6 -> 3); the Bandit answers; Viktor, back in
    # the order, must attack again.
    answers.write_text("- Viktor\n- attack_foe\n- Bandit\n- surge_now\n- attack_foe\n- Viktor\n- no_surge\n"
                       "- attack_foe\n- Bandit\n- no_surge\n")
    out = run_json(cli, "Combat Round", "--as", ex("viktor"), "--against", bandit,
                   "--choices", str(answers), "--dice", "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1")
    assert out["results"]["mettle"][0] == 3
    assert [a["did"] for a in out["results"]["actions"]] == ["attack", "attack", "attack"]
    answers.write_text("- Viktor\n- attack_foe\n- Bandit\n- surge_now\n- attack_foe\n- Viktor\n- no_surge\n"
                       "- rally_self\n")
    refused = cli("run", GAME, "Combat Round", "--as", ex("viktor"), "--against", bandit,
                  "--choices", str(answers), "--dice", "1,1,1,1,1,1,1,1,1")
    assert refused.code == 1 and "'Surged Action Is An Attack' requires" in refused.stderr


def fight_by_enumeration(rounds: int = 2) -> Fraction:
    """Chief (NATURE 4, Hit 1, DM 5, POISE 3 + Parry 1, FRAME 3 + Armor 1, CONCEPT 5, MOTIVE 4)
    against the Bandit (3D+3: NATURE, POISE, Mettle, MOTIVE 3, FRAME 3, DM 4), every choice at
    its first option: the Chief opens on the Bandit, the Bandit answers while it can act.
    The chance that the Bandit is Fallen (Mettle below -3) after `rounds` Rounds."""
    def attack(pool: int, difficulty: int, dm: int, soak: int) -> dict[int, Fraction]:
        out: Counter = Counter()
        for faces in product(range(1, 7), repeat=max(pool, 0)):
            score, edge = check(faces)
            out[max(0, dm + edge - soak) if score >= difficulty else 0] += Fraction(1, 6 ** max(pool, 0))
        return out

    states: Counter = Counter({(0, 0): Fraction(1)})  # (Chief's harm, Bandit's harm)
    for _ in range(rounds):
        after: Counter = Counter()
        for (chief, bandit), p in states.items():
            if 3 - bandit < -3:
                after[(chief, bandit)] += p  # the fight is over
                continue
            stagger = max(0, -(5 - chief))
            pool = 4 + max(1, 0) - stagger
            defence = 0 if 3 - bandit < -3 else 3
            for dealt, q in attack(pool, defence, 5, 3).items():
                b = bandit + dealt
                if 3 - b < -3:
                    after[(chief, b)] += p * q
                    continue
                bandit_pool = 3 - max(0, -(3 - b))
                for back, r in attack(bandit_pool, 4, 4, 4).items():
                    after[(chief + back, b)] += p * q * r
        states = after
    return sum((p for (_, b), p in states.items() if 3 - b < -3), Fraction(0))


def test_the_tour_shows_a_round_among_four_and_the_fight_odds(capsys) -> None:  # type: ignore[no-untyped-def]
    """The tour's odds are `odds mettle Fight --with rounds=2` for the Chief on the Bandit:
    the exact chance it prints must be the enumeration's (the one place these odds are
    computed, as they take a second)."""
    from runebook.interpreter.cli.commands.tour import _shown_odds, _shown_runs

    folder = EXAMPLES.parent
    _shown_runs(folder, "mettle")
    _shown_odds(folder, "mettle")
    out = capsys.readouterr().out
    assert ('$ runebook run mettle "Combat Round" --as rulesets/mettle/examples/heroes.yaml '
            '--against rulesets/mettle/examples/bandits.yaml') in out
    assert "=> mettle: [6, 0, 3, 2]" in out
    chance = fight_by_enumeration(2)
    assert Fraction(0) < chance < Fraction(1)
    assert f"{chance.numerator}/{chance.denominator}" in out


def test_aim_and_burning_in_a_round(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Viktor (Zone 0, Range 2) aims at a Bandit three Zones away: Range doubled to 4.
    far = fighter(tmp_path, "Far", Zone=3, conditions=["Burning(1)"])
    answers = tmp_path / "a.yaml"
    answers.write_text("- Viktor\n- aim_and_attack\n- Far\n- no_surge\n- put_out_fire\n")
    # Viktor: 6 dice [1,1,1,1,1,1] Score 6 vs 3: DM 3 - 3 = 0. Far puts the fire out: no burn.
    out = run_json(cli, "Combat Round", "--as", ex("viktor"), "--against", far, "--choices", str(answers),
                   "--dice", "1,1,1,1,1,1")
    assert [a["did"] for a in out["results"]["actions"]] == ["attack", "put out fire"]
    # The Aim is still on Viktor (until his next turn); the fire is out.
    assert out["state"]["actor"]["conditions"] == ["Aiming"]
    assert out["state"]["target"]["conditions"] == []
    # Left burning, Far takes 1d6 - Soak 3 at the end of the Round: a 5 is 2.
    answers.write_text("- Viktor\n- aim_and_attack\n- Far\n- no_surge\n- pass\n")
    burnt = run_json(cli, "Combat Round", "--as", ex("viktor"), "--against", far, "--choices", str(answers),
                     "--dice", "1,1,1,1,1,1,5")
    assert burnt["results"]["mettle"] == [6, 1]
    # Without the Aim he cannot reach: the rule is named.
    answers.write_text("- Viktor\n- attack_foe\n- Far\n")
    refused = cli("run", GAME, "Combat Round", "--as", ex("viktor"), "--against", far, "--choices", str(answers),
                  "--dice", "1,1,1,1,1,1")
    assert refused.code == 1 and "'Target In Reach' requires" in refused.stderr


def test_moving_into_reach_and_a_hold_that_lapses(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    foe = fighter(tmp_path, "Foe", Zone=0)
    answers = tmp_path / "a.yaml"
    # Round 1: Kirin (Zone 1) moves to Zone 0; the Foe passes. Round 2: Kirin grapples the Foe:
    # [3,4,5] Score 3 vs POISE 3, Edge 2: FRAME 2 + 2 - FRAME 3 = +1 Difficulty; the Foe passes.
    plan = "- Kirin\n- move_zone\n- to_lower_zone\n- Foe\n- pass\n- Kirin\n- grapple_foe\n- Foe\n- pass\n"
    answers.write_text(plan)
    two = run_json(cli, "Fight", "--as", ex("kirin"), "--against", foe, "--with", "rounds=2",
                   "--choices", str(answers), "--dice", "3,4,5")
    assert two["state"]["actor"]["conditions"] == ["Moved(-1)"]
    assert two["state"]["target"]["conditions"] == ["Grappled(1) for 1 round"]
    # Round 3: Kirin does not grapple again, and the hold lapses.
    answers.write_text(plan + "- Foe\n- pass\n- Kirin\n- pass\n")
    three = run_json(cli, "Fight", "--as", ex("kirin"), "--against", foe, "--with", "rounds=3",
                     "--choices", str(answers), "--dice", "3,4,5")
    assert three["state"]["target"]["conditions"] == []
    # Without the Move, the grapple is out of reach.
    answers.write_text("- Kirin\n- grapple_foe\n- Foe\n")
    refused = cli("run", GAME, "Fight", "--as", ex("kirin"), "--against", foe, "--choices", str(answers),
                  "--dice", "3,4,5")
    assert refused.code == 1 and "'Target In Reach' requires" in refused.stderr


def test_a_held_attack_kept_into_the_next_round(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    answers = tmp_path / "a.yaml"
    # Round 1: Kirin waits, the Bandit goes on and passes. Round 2: Kirin keeps waiting, so only
    # the Bandit opens; Kirin's held Attack interrupts him first ([1,2,4]: 3 + 1 - 3 = 1).
    answers.write_text("- Kirin\n- wait_to_attack\n- Bandit\n- carry_on\n- pass\n"
                       "- keep_waiting\n- Bandit\n- interrupt\n- Kirin\n- Bandit\n- pass\n")
    out = run_json(cli, "Fight", "--as", ex("kirin"), "--against", ex("bandit"), "--with", "rounds=2",
                   "--choices", str(answers), "--dice", "1,2,4")
    assert out["results"]["mettle"] == [4, 2]
    assert out["state"]["actor"]["conditions"] == []
    assert [c["choice"] for c in out["choices"]][5:8] == ["fought.rejoin", "fought.opener", "fought.interruption"]


def test_strain_sets_a_minimum_difficulty(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Strained 5 (the highest source counts): the attacker's Check against POISE 3 needs 5.
    strained = fighter(tmp_path, "Strained", conditions=["Strained(5, poison)", "Strained(2, thirst)"])
    answers = tmp_path / "a.yaml"
    answers.write_text("- accept_failure\n")
    # [1,3,4]: Score 4 beats POISE 3 but not the Strain's 5.
    out = run_json(cli, "Attack", "--as", strained, "--against", ex("bandit"), "--dice", "1,3,4",
                   "--choices", str(answers))
    assert out["results"]["hit"] is False
    plain = run_json(cli, "Attack", "--as", ex("kirin"), "--against", ex("bandit"), "--dice", "1,3,4")
    assert plain["results"]["hit"] is True


def test_attacking_from_total_cover_leaves_partial_cover(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    hidden = fighter(tmp_path, "Hidden", conditions=["Covered(total)"])
    out = run_json(cli, "Attack", "--as", hidden, "--against", ex("bandit"), "--dice", "1,1,1")
    assert out["state"]["actor"]["conditions"] == ["Covered(partial, all_sides)"]
    # And nobody can target someone in Total Cover.
    refused = cli("run", GAME, "Attack", "--as", ex("bandit"), "--against", hidden, "--dice", "1,1,1")
    assert refused.code == 1 and "'Target Not In Total Cover' requires" in refused.stderr


def test_an_area_attack_in_a_round_passes_to_a_surviving_target(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    answers = tmp_path / "a.yaml"
    # The Chief blasts Kirin's Zone (1): Kirin 2 + 5 - 3 = 4, and his own Bandit there too,
    # 3 + 5 - 3 = 5; Viktor in Zone 0 is spared. Initiative goes to a surviving target (Kirin).
    answers.write_text("- Chief\n- blast_zone\n- Kirin\n- Kirin\n- pass\n- Bandit\n- pass\n- Viktor\n- pass\n")
    out = run_json(cli, "Combat Round", "--as", ex("heroes"), "--against", ex("bandits"),
                   "--choices", str(answers), "--dice", "2,3")
    assert out["results"]["mettle"] == [6, 0, 5, -2]
    assert [c["choice"] for c in out["choices"]][:4] == ["opener", "chosen_act", "blast_at", "next_from_blast"]


def test_a_round_offers_only_the_foes_in_reach(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    foes = tmp_path / "foes.yaml"
    foes.write_text(EXAMPLES.joinpath("bandits.yaml").read_text().replace("Hit: 1, DM: 5, Range: 0, Parry: 1, Zone: 1",
                                                                          "Hit: 1, DM: 5, Range: 0, Parry: 1, Zone: 3"))
    answers = tmp_path / "a.yaml"
    answers.write_text("- Kirin\n- attack_foe\n- Chief\n")  # the Chief stands three Zones away
    run = cli("run", GAME, "Combat Round", "--as", ex("kirin"), "--against", str(foes), "--choices", str(answers),
              "--dice", "1,1,1")
    assert run.code == 1 and "E0611 'Chief' is not offered" in run.stderr and "Bandit" in run.stderr


def test_the_round_among_four_as_a_whole(cli, snapshot) -> None:  # type: ignore[no-untyped-def]
    """The whole outcome of the README's Round (results, every combatant's state, the answers
    taken), kept as a snapshot: a change to any rule it touches shows here."""
    out = run_json(cli, "Combat Round", "--as", ex("heroes"), "--against", ex("bandits"),
                   "--choices", ex("round-choices"), "--dice", "1,2,3,4,5,6,3,3,1,5,6,2,2,6,1,4,5")
    kept = {"results": out["results"], "choices": out["choices"],
            "sides": [[(c["name"], c["resources"], c["conditions"]) for c in out["state"][side]]
                      for side in ("actors", "targets")]}
    assert kept == snapshot


def test_a_refusal_reads_as_a_diagnostic(cli, tmp_path: Path, snapshot) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", GAME, "Attack", "--as", ex("kirin"), "--against", ex("viktor"), "--dice", "1,1,1")
    assert run.code == 1
    assert run.stderr.replace(str(EXAMPLES.parent.parent.parent) + "/", "") == snapshot


def test_twists_that_stay_with_the_weapon(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    answers = tmp_path / "a.yaml"
    chief, kirin = ex("bandit-chief"), ex("kirin")
    # [1,1,4,5,6] fails with 3 Edge; the reroll [1,1,1] still misses.
    for twist, condition in [("jammed", "Weapon Jammed"), ("out_of_ammo", "Ammo Spent"), ("broken", "Broken Weapon")]:
        answers.write_text(f"- {twist}\n")
        out = run_json(cli, "Attack", "--as", chief, "--against", kirin, "--dice", "1,1,4,5,6,1,1,1",
                       "--choices", str(answers))
        assert out["state"]["actor"]["conditions"] == [condition]
    jammed = fighter(tmp_path, "Jammed", conditions=["Weapon Jammed"])
    refused = cli("run", GAME, "Attack", "--as", jammed, "--against", ex("bandit"), "--dice", "1,1,1")
    assert refused.code == 1 and "'Attacker Has Weapon' requires" in refused.stderr
    # Clearing it: Difficulty 1d6 = 2, MOTIVE 3 [1,1,4] Score 2: cleared.
    cleared = run_json(cli, "Unjam", "--as", jammed, "--dice", "2,1,1,4")
    assert cleared["results"] == {"difficulty": 2, "outcome": "success"} and cleared["state"]["actor"]["conditions"] == []
    spent = fighter(tmp_path, "Spent", conditions=["Ammo Spent"])
    assert run_json(cli, "Reload", "--as", spent)["results"] == {"loaded": True}
    # A broken weapon halves (up) every later blow: 4 + 1 - 3 = 2 -> 1.
    broken = fighter(tmp_path, "Broken", conditions=["Broken Weapon"])
    assert run_json(cli, "Attack", "--as", broken, "--against", ex("bandit"), "--dice", "1,2,4")["results"][
        "damage"] == 1


def test_a28_strain_sources_add_up_under_the_option(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    strained = fighter(tmp_path, "Strained", conditions=['Strained(3, "hunger")', 'Strained(2, "thirst")'])
    answers = tmp_path / "a.yaml"
    answers.write_text("- accept_failure\n")
    # [1,3,4]: Score 4 meets the highest Strain (3) and POISE 3, but not 3 + 2 = 5.
    hit = run_json(cli, "Attack", "--as", strained, "--against", ex("bandit"), "--dice", "1,3,4")
    assert hit["results"]["hit"] is True
    summed = run_json(cli, "Attack", "--as", strained, "--against", ex("bandit"), "--dice", "1,3,4",
                      "--option", "strain_stack=sum_sources", "--choices", str(answers))
    assert summed["results"]["hit"] is False
