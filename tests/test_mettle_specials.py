"""METTLE Core weapon specials (rulesets/mettle/combat.rules; spec mettle.md, Weapons [PUB-RES]):
Block (+POISE defence beside Parry), Burn (a hit sets the target Burning), Stun (Strain
instead of damage), Wrap (Parry and Block ignored) and Burst (extra hits for Edge and Ammo),
with given dice, exact odds against an enumeration written here, the
readings made options, and the refusal of impossible specials.
"""

from __future__ import annotations

import json
from collections import defaultdict
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from runebook.interpreter.rules import load
from mettle_helpers import fighter, refused

GAME = "mettle"
EXAMPLES = Path(__file__).resolve().parent.parent / "rulesets" / "mettle" / "examples"
BANDIT = str(EXAMPLES / "bandit.yaml")  # POISE 3, FRAME 3, Armor 0, Mettle 3


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load(GAME)


def armed(tmp_path: Path, name: str, **stats: int) -> str:
    """A 3D+3 Extra (NATURE 3, DM 4, Soak 3) wielding a weapon named ``name``, with the given
    stats (weapon specials) changed."""
    return fighter(tmp_path, name, weapon=name, **stats)


def attack(cli, *args: str) -> dict:  # type: ignore[no-untyped-def]
    run = cli("run", GAME, "Attack", *args, "--json")
    assert run.code == 0, run.stderr
    return json.loads(run.stdout)


def outcomes(pool: int, difficulty: int, dm: int, soak: int) -> dict[tuple[bool, int], Fraction]:
    """{(hit, damage before it is turned into Strain): probability}, every face listed."""
    out: dict[tuple[bool, int], Fraction] = defaultdict(Fraction)
    for faces in product(range(1, 7), repeat=pool):
        score = sum(f for f in faces if f <= 3)
        edge = sum(1 for f in faces if f >= 4)
        hit = score >= difficulty
        out[(hit, max(0, dm + edge - soak) if hit else 0)] += Fraction(1, 6 ** pool)
    return dict(out)


def marginal(joint: dict, index: int) -> dict:
    out: dict = defaultdict(Fraction)
    for key, p in joint.items():
        out[key[index]] += p
    return {k: v for k, v in out.items() if v}


def plain(dist) -> dict:  # type: ignore[no-untyped-def]
    return {v: p for v, p in dict(dist).items() if p}


# ---------------------------------------------------------------- Stun


def test_a_stun_weapon_deals_strain_instead_of_damage(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sap = armed(tmp_path, "Sap", Stun=1)
    # 3 dice [1,2,4]: Score 3 vs POISE 3, Edge 1: DM 4 + 1 - Soak 3 = 2, taken as Strain 2.
    out = attack(cli, "--as", sap, "--against", BANDIT, "--dice", "1,2,4")
    assert out["results"]["hit"] is True
    assert out["results"]["damage"] == 0 and out["results"]["strain"] == 2
    assert out["results"]["target_mettle"] == 3
    assert "Harm" not in out["state"]["target"].get("resources", {}) or out["state"]["target"]["resources"]["Harm"] == 0
    assert out["state"]["target"]["conditions"] == ['Strained(2, "stun")']
    # The option: Strain as well as the damage.
    both = attack(cli, "--as", sap, "--against", BANDIT, "--dice", "1,2,4", "--option", "stun_effect=strain_and_damage")
    assert both["results"]["damage"] == 2 and both["results"]["strain"] == 2
    assert both["results"]["target_mettle"] == 1


def test_stun_strain_sets_the_stunned_ones_minimum_difficulty(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Stunned with Strain 4, the Bandit's Attack on POISE 2 faces Difficulty 4, not 2:
    # [1,2,5] Score 3 < 4 misses (Edge 1 offers a Twist, declined).
    stunned = tmp_path / "stunned.yaml"
    stunned.write_text(Path(BANDIT).read_text() + 'conditions: [\'Strained(4, "stun")\']\n')
    soft = armed(tmp_path, "Soft", POISE=2)
    answers = tmp_path / "a.yaml"
    answers.write_text("- accept_failure\n")
    out = attack(cli, "--as", str(stunned), "--against", soft, "--dice", "1,2,5", "--choices", str(answers))
    assert out["results"]["hit"] is False
    fresh = attack(cli, "--as", BANDIT, "--against", soft, "--dice", "1,2,5")
    assert fresh["results"]["hit"] is True


def test_exact_odds_of_stun_strain_match_an_enumeration(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sap = rules.entity(armed(tmp_path, "Sap", Stun=1))
    bandit = rules.entity(BANDIT)
    odds = rules.odds("Attack", as_=sap, against=bandit)
    joint = outcomes(3, 3, 4, 3)
    assert plain(odds.results["strain"]) == marginal(joint, 1)
    assert plain(odds.results["damage"]) == {0: Fraction(1)}
    plain_club = rules.odds("Attack", as_=rules.entity(armed(tmp_path, "Club")), against=bandit)
    # Stun moves the whole damage distribution onto Strain, unchanged.
    assert plain(plain_club.results["damage"]) == marginal(joint, 1)


# ---------------------------------------------------------------- Burn


def test_a_burn_weapon_sets_the_target_burning(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    torch = armed(tmp_path, "Torch", Burn=1)
    out = attack(cli, "--as", torch, "--against", BANDIT, "--dice", "1,2,4")
    assert out["results"]["damage"] == 2 and out["results"]["burning"] == 1
    assert out["state"]["target"]["conditions"] == ["Burning(1)"]
    # A hit that does not get through Soak (DM 3 + Edge 0 - 3 = 0) still catches, unless the
    # option asks for damage through.
    weak = armed(tmp_path, "Ember", Burn=2, DM=3)
    caught = attack(cli, "--as", weak, "--against", BANDIT, "--dice", "1,1,1")
    assert caught["results"]["damage"] == 0 and caught["state"]["target"]["conditions"] == ["Burning(2)"]
    spared = attack(cli, "--as", weak, "--against", BANDIT, "--dice", "1,1,1", "--option", "burn_on=damage_through")
    assert spared["results"]["burning"] == 0 and spared["state"]["target"]["conditions"] == []
    # A miss sets nothing alight: [1,1,4] Score 2 < 3 (a Twist offered, declined).
    answers = tmp_path / "a.yaml"
    answers.write_text("- accept_failure\n")
    missed = attack(cli, "--as", torch, "--against", BANDIT, "--dice", "1,1,4", "--choices", str(answers))
    assert missed["results"]["hit"] is False and missed["state"]["target"]["conditions"] == []


def test_exact_odds_of_catching_fire(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    torch = rules.entity(armed(tmp_path, "Torch", Burn=1))
    odds = rules.odds("Attack", as_=torch, against=rules.entity(BANDIT))
    hit = marginal(outcomes(3, 3, 4, 3), 0)
    assert plain(odds.results["burning"]) == {1: hit[True], 0: hit[False]}


# ---------------------------------------------------------------- Block


def test_block_adds_to_the_poise_defence_beside_parry(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    shield = armed(tmp_path, "Shield", Parry=1, Block=2)
    # [1,2,2]: Score 5, Edge 0 against POISE 3 + the larger of Parry 1 and Block 2 = 5: a hit.
    out = attack(cli, "--as", BANDIT, "--against", shield, "--dice", "1,2,2")
    assert out["results"]["hit"] is True and out["results"]["damage"] == 1
    # When both add up, 3 + 1 + 2 = 6: a miss (no Edge, so no Twist).
    both = attack(cli, "--as", BANDIT, "--against", shield, "--dice", "1,2,2", "--option", "block_stacking=both")
    assert both["results"]["hit"] is False and both["results"]["damage"] == 0


@pytest.mark.parametrize(("stacking", "difficulty"), [("larger_only", 5), ("both", 6)])
def test_exact_odds_against_a_blocker(rules, tmp_path: Path, stacking: str, difficulty: int) -> None:  # type: ignore[no-untyped-def]
    shield = rules.entity(armed(tmp_path, "Shield", Parry=1, Block=2))
    odds = rules.odds("Attack", as_=rules.entity(BANDIT), against=shield, options={"block_stacking": stacking})
    joint = outcomes(3, difficulty, 4, 3)
    assert plain(odds.results["hit"]) == marginal(joint, 0)
    assert plain(odds.results["damage"]) == marginal(joint, 1)


# ---------------------------------------------------------------- refusals


@pytest.mark.parametrize(("side", "special"), [("as", {"Stun": 2}), ("as", {"Burn": -1}), ("against", {"Block": -1}), ("as", {"Entangle": -1}), ("as", {"Ammo": -2})])
def test_an_impossible_special_is_refused(cli, tmp_path: Path, side: str, special: dict) -> None:  # type: ignore[no-untyped-def]
    odd = armed(tmp_path, "Odd", **special)
    other = armed(tmp_path, "Other")
    who, whom = (odd, other) if side == "as" else (other, odd)
    before = [Path(p).read_bytes() for p in (who, whom)]
    run = cli("run", GAME, "Attack", "--as", who, "--against", whom, "--dice", "1,2,4")
    assert run.code == 1
    assert "'Weapon Specials Valid' requires" in run.stderr and "Traceback" not in run.stderr
    assert [Path(p).read_bytes() for p in (who, whom)] == before


def test_stun_strain_ends_with_the_scene(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # A reading of ours: the Strain of a Stun weapon lasts the Scene; an affliction's stays.
    stunned = tmp_path / "stunned.yaml"
    stunned.write_text(Path(BANDIT).read_text() + "conditions: ['Strained(4, \"stun\")', 'Strained(2, \"affliction\")']\n")
    run = cli("run", GAME, "New Scene", "--as", str(stunned), "--json")
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout)["state"]["actor"]["conditions"] == ['Strained(2, "affliction")']


# ---------------------------------------------------------------- Entangle


def test_an_entangling_hit_holds_the_target(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    net = armed(tmp_path, "Net", Entangle=2)
    # [1,2,4]: a hit with Edge 1: DM 4 + 1 - 3 = 2 damage, and a hold of +2 Difficulty.
    out = attack(cli, "--as", net, "--against", BANDIT, "--dice", "1,2,4")
    assert out["results"]["damage"] == 2 and out["results"]["entangled"] == 2
    # The hold needs no Action to keep (Resources, Specials: Entangle): it stays until an Escape.
    assert out["state"]["target"]["conditions"] == ["Entangled(2)"]
    only = attack(cli, "--as", net, "--against", BANDIT, "--dice", "1,2,4", "--option", "entangle_effect=hold_only")
    assert only["results"]["damage"] == 0 and only["results"]["entangled"] == 2
    assert only["results"]["target_mettle"] == 3


def test_an_entangled_target_attacks_at_a_higher_difficulty(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Held at +2, the Bandit's [1,2,2] (Score 5, no Edge) misses POISE 4 + 2 but hits POISE 4.
    held = tmp_path / "held.yaml"
    held.write_text(Path(BANDIT).read_text() + "conditions: ['Grappled(2)']\n")
    tough = armed(tmp_path, "Tough", POISE=4)
    assert attack(cli, "--as", str(held), "--against", tough, "--dice", "1,2,2")["results"]["hit"] is False
    assert attack(cli, "--as", BANDIT, "--against", tough, "--dice", "1,2,2")["results"]["hit"] is True


# ---------------------------------------------------------------- Ammo


def test_ammo_runs_out_and_a_reload_starts_the_count_again(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pistol = Path(armed(tmp_path, "Pistol", Ammo=2))
    data = json.loads(pistol.read_text())
    first = attack(cli, "--as", str(pistol), "--against", BANDIT, "--dice", "1,2,4")
    assert first["results"]["shots_left"] == 1 and first["state"]["actor"]["conditions"] == ["Shots Fired(1)"]
    pistol.write_text(json.dumps({**data, "conditions": ["Shots Fired(1)"]}))
    second = attack(cli, "--as", str(pistol), "--against", BANDIT, "--dice", "1,2,4")
    assert second["results"]["shots_left"] == 0
    assert second["state"]["actor"]["conditions"] == ["Shots Fired(2)", "Ammo Spent"]
    # Spent: a third Attack is refused, naming the rule, and changes no file.
    pistol.write_text(json.dumps({**data, "conditions": ["Shots Fired(2)", "Ammo Spent"]}))
    before = pistol.read_bytes()
    refused = cli("run", GAME, "Attack", "--as", str(pistol), "--against", BANDIT, "--dice", "1,2,4")
    assert refused.code == 1 and "'Attacker Has Weapon' requires" in refused.stderr
    assert pistol.read_bytes() == before
    reload = cli("run", GAME, "Reload", "--as", str(pistol), "--json")
    assert reload.code == 0, reload.stderr
    state = json.loads(reload.stdout)["state"]["actor"]
    assert state["conditions"] == []


# ---------------------------------------------------------------- Wrap and Burst


def test_a_wrap_weapon_ignores_parry_and_block(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    shield = armed(tmp_path, "Shield", Parry=1, Block=2)
    whip = armed(tmp_path, "Whip", Wrap=1)
    # [1,1,2]: Score 4, Edge 0. Against POISE 3 + the larger of Parry 1 and Block 2 = 5: a miss;
    # a Wrap weapon faces the POISE alone, 3: a hit for DM 4 less Soak 3.
    plain_blow = attack(cli, "--as", BANDIT, "--against", shield, "--dice", "1,1,2")
    assert plain_blow["results"]["hit"] is False
    wrapped = attack(cli, "--as", whip, "--against", shield, "--dice", "1,1,2")
    assert wrapped["results"]["hit"] is True and wrapped["results"]["damage"] == 1


def test_burst_spends_edge_and_ammo_on_extra_hits(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    smg = armed(tmp_path, "SMG", Burst=1, Ammo=30)
    # [3,5,6]: Score 3 against POISE 3, a hit with Edge 2. Two extra hits spend both Edge and
    # 10 Ammo: each hit deals DM 4 + 2 - 2 = 4 less Soak 3, so 1, three times.
    out = attack(cli, "--as", smg, "--against", BANDIT, "--dice", "3,5,6", "--answer", "burst_hits=2")
    assert (out["results"]["hits"], out["results"]["damage"], out["results"]["shots_left"]) == (3, 3, 19)
    single = attack(cli, "--as", smg, "--against", BANDIT, "--dice", "3,5,6", "--answer", "burst_hits=0")
    assert (single["results"]["hits"], single["results"]["damage"], single["results"]["shots_left"]) == (1, 3, 29)
    # More extra hits than the Edge: refused, naming the rule, no file changed.
    before = Path(smg).read_bytes()
    refused = cli("run", GAME, "Attack", "--as", smg, "--against", BANDIT, "--dice", "3,5,6", "--answer", "burst_hits=3")
    assert refused.code == 1 and "E0613 'Strike' requires blow.burst_hits <= blow.edge" in refused.stderr
    assert Path(smg).read_bytes() == before


def test_a_weapon_without_burst_is_never_asked(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = attack(cli, "--as", BANDIT, "--against", BANDIT, "--dice", "3,5,6")
    assert out["results"]["hits"] == 1 and out["choices"] == []


def test_exact_odds_of_a_burst_match_an_enumeration(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    smg = rules.entity(armed(tmp_path, "SMG", Burst=1, Ammo=30))
    odds = rules.odds("Attack", as_=smg, against=rules.entity(BANDIT), answers={"burst_hits": "1"})
    damage: dict[int, Fraction] = defaultdict(Fraction)
    hits: dict[int, Fraction] = defaultdict(Fraction)
    for faces in product(range(1, 7), repeat=3):
        score = sum(f for f in faces if f <= 3)
        edge = sum(1 for f in faces if f >= 4)
        hit = score >= 3
        extra = 1 if hit and edge > 0 else 0  # asked only when there is Edge to spend
        damage[max(0, 4 + edge - extra - 3) * (1 + extra) if hit else 0] += Fraction(1, 216)
        hits[1 + extra if hit else 0] += Fraction(1, 216)
    assert plain(odds.results["damage"]) == {k: v for k, v in damage.items() if v}
    assert plain(odds.results["hits"]) == {k: v for k, v in hits.items() if v}


def burst(cli, *args: str) -> dict:  # type: ignore[no-untyped-def]
    run = cli("run", GAME, "Burst Attack", *args, "--json")
    assert run.code == 0, run.stderr
    return json.loads(run.stdout)


def test_a_burst_spread_hits_each_target_the_score_would_hit(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    smg = armed(tmp_path, "SMG", Burst=1, Ammo=30, Range=3)
    near, guarded, open_ = (armed(tmp_path, n, POISE=p) for n, p in (("Near", 3), ("Guarded", 4), ("Open", 2)))
    # [3,5,6]: Score 3, Edge 2, a hit on the first (POISE 3). An extra hit is asked of each
    # target while Edge is left: the first takes one; the Score 3 does not reach POISE 4; the
    # third (POISE 2) takes the other. Each hit: DM 4 + Edge 2 - 2 spent = 4, less Soak 3.
    out = burst(cli, "--as", smg, "--against", near, "--against", guarded, "--against", open_,
                "--dice", "3,5,6", "--answer", "burst_on=1")
    results = out["results"]
    assert (results["hits"], results["damage"], results["shots_left"]) == ([2, 0, 1], [2, 0, 1], 19)
    assert results["mettle"] == [1, 3, 2]
    assert [c["choice"] for c in out["choices"]] == ["burst_on", "burst_on"]  # not asked for the one missed
    # The same dice with no extra hit: the first target only, DM 4 + 2 - 0 less Soak 3.
    single = burst(cli, "--as", smg, "--against", near, "--against", open_, "--dice", "3,5,6",
                   "--answer", "burst_on=0")["results"]
    assert (single["hits"], single["damage"], single["shots_left"]) == ([1, 0], [3, 0], 29)
    # A miss on the first ([1,1,4]: Score 2 against 3): no hit on anyone, nothing asked.
    missed = burst(cli, "--as", smg, "--against", near, "--against", open_, "--dice", "1,1,4")
    assert (missed["results"]["hits"], missed["choices"]) == ([0, 0], [])


def test_a_burst_beyond_the_edge_or_without_the_special_is_refused(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    smg = armed(tmp_path, "SMG", Burst=1, Ammo=30, Range=3)
    near, other = armed(tmp_path, "Near"), armed(tmp_path, "Other")
    refused(cli, "Burst Attack", "Burst Attack", "--as", smg, "--against", near, "--against", other,
            "--dice", "3,5,6", "--answer", "burst_on=3")
    club = armed(tmp_path, "Club")
    refused(cli, "Burst Attack", "Burst Attack", "--as", club, "--against", near, "--dice", "3,5,6")


def test_exact_odds_of_a_burst_spread_match_an_enumeration(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    smg = rules.entity(armed(tmp_path, "SMG", Burst=1, Ammo=30, Range=3))
    foes = [rules.entity(armed(tmp_path, n, POISE=p)) for n, p in (("Near", 3), ("Far", 4))]
    odds = rules.odds("Burst Attack", as_=smg, against=foes, answers={"burst_on": "1"})
    hits: dict[tuple[int, ...], Fraction] = defaultdict(Fraction)
    damage: dict[tuple[int, ...], Fraction] = defaultdict(Fraction)
    for faces in product(range(1, 7), repeat=3):
        score = sum(f for f in faces if f <= 3)
        edge = sum(1 for f in faces if f >= 4)
        spread, spent = [], 0
        for i, poise in enumerate((3, 4)):
            reached = score >= 3 and score >= poise
            extra = 1 if reached and edge > spent else 0
            spent += extra
            spread.append(((1 if i == 0 else 0) + extra) if reached else 0)
        each = max(0, 4 + edge - spent - 3)
        hits[tuple(spread)] += Fraction(1, 216)
        damage[tuple(each * n for n in spread)] += Fraction(1, 216)
    assert plain(odds.results["hits"]) == {k: v for k, v in hits.items() if v}
    assert plain(odds.results["damage"]) == {k: v for k, v in damage.items() if v}


# ---------------------------------------------------------------- Reach (in a Combat Round)


def _round(cli, tmp_path: Path, spear: str, sword: str, answers: list[str], dice: str, *extra: str) -> dict:  # type: ignore[no-untyped-def]
    chosen = tmp_path / "answers.yaml"
    chosen.write_text("".join(f"- {a}\n" for a in answers))
    run = cli("run", GAME, "Combat Round", "--as", sword, "--against", spear, "--choices", str(chosen),
              "--dice", dice, "--json", *extra)
    assert run.code == 0, run.stderr
    return json.loads(run.stdout)


def test_a_reach_weapon_strikes_first_at_a_melee_attacker(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    spear = armed(tmp_path, "Spear", Reach=1)
    sword = armed(tmp_path, "Sword")
    # The Sword attacks the Spear, who has yet to act: the Spear strikes first ([1,2,4]: Score
    # 3 against POISE 3, Edge 1: 4 + 1 - 3 = 2), then the Sword ([2,2,5]: 4 + 1 - 3 = 2). The
    # Spear's strike was its Action: Initiative does not pass to it, and the Round ends.
    out = _round(cli, tmp_path, spear, sword, ["Sword", "attack_foe", "Spear", "no_surge"], "1,2,4,2,2,5")
    assert [(a["who"], a["did"]) for a in out["results"]["actions"]] == [("Spear", "reach strike"),
                                                                       ("Sword", "attack")]
    assert out["results"]["mettle"] == [1, 1]
    # Without Reach in play (option reach_pre_empts), the Sword strikes and the Spear answers.
    plain_round = _round(cli, tmp_path, spear, sword, ["Sword", "attack_foe", "Spear", "no_surge", "attack_foe",
                                                       "Sword", "no_surge"], "2,2,5,1,2,4",
                         "--option", "reach_pre_empts=reach_ignored")
    assert [(a["who"], a["did"]) for a in plain_round["results"]["actions"]] == [("Sword", "attack"),
                                                                               ("Spear", "attack")]


def test_an_attacker_the_reach_strike_drops_strikes_no_more(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    spear = armed(tmp_path, "Spear", Reach=1, DM=9)
    sword = armed(tmp_path, "Sword")
    # [1,2,4]: 9 + 1 - 3 = 7 against the Sword's Mettle 3: Fallen, no blow of its own.
    out = _round(cli, tmp_path, spear, sword, ["Sword", "attack_foe", "Spear"], "1,2,4")
    assert [(a["who"], a["did"]) for a in out["results"]["actions"]] == [("Spear", "reach strike")]
    assert out["results"]["standing"][0] != "Steady"


def test_reach_gives_nothing_against_a_ranged_or_reach_attacker(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    spear = armed(tmp_path, "Spear", Reach=1)
    for name, stats in (("Bow", {"Range": 2}), ("Pike", {"Reach": 1})):
        attacker = armed(tmp_path, name, **stats)
        out = _round(cli, tmp_path, spear, attacker, [name, "attack_foe", "Spear", "no_surge", "attack_foe", name,
                                                      "no_surge"], "2,2,5,1,2,4")
        assert [a["did"] for a in out["results"]["actions"]] == ["attack", "attack"]


def test_a_reach_weapon_meets_a_charge_first(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    spear = armed(tmp_path, "Spear", Reach=1)
    sword = armed(tmp_path, "Sword", Zone=0)
    # The Sword charges a Zone into the Spear's; the Spear, yet to act, strikes as it comes.
    out = _round(cli, tmp_path, spear, sword, ["Sword", "charge_and_attack", "Spear", "no_surge"], "1,2,4,2,2,5")
    assert [(a["who"], a["did"]) for a in out["results"]["actions"]] == [("Spear", "reach strike"),
                                                                       ("Sword", "charge")]
    assert out["results"]["mettle"] == [1, 1]
