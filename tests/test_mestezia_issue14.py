"""Mestezia, issue 14: rulebook defaults a user should not type (a thrown reach of 5 hexes),
movement along a path through Rough terrain, and effect lifetimes. Expected values follow the
book's wording as the spec quotes it (§1.11 L653-654, §2.12 Rough N, §2.7 Invest)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "rulesets" / "mestezia" / "examples"


def _fighter(tmp_path: Path, keywords: str, reach: int | None = None) -> Path:
    path = tmp_path / "fighter.yaml"
    stats = "  Attack: 4\n  Strength: 2\n  Speed: 2\n  Defense: 11\n  Weapon Cost: 1\n  Weapon Damage: 6\n"
    if reach is not None:
        stats += f"  Weapon Reach: {reach}\n"
    path.write_text(f"name: Fighter\nposition: [0, 0]\nstats:\n{stats}weapon keywords: [{keywords}]\n"
                    "resources:\n  CP: 6\npowers: [Berserker Charge]\n", encoding="utf-8")
    return path


def _foe(tmp_path: Path, q: int) -> Path:
    path = tmp_path / "foe.yaml"
    path.write_text(f"name: Foe\nposition: [{q}, 0]\nstats:\n  Defense: 10\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("keywords", "reach", "distance", "allowed"), [
    ("Thrown", None, 5, True),     # a thrown weapon: 5 hexes by default (L654)
    ("Thrown", None, 6, False),
    ("Sword", None, 1, True),      # melee: 1 hex (L653)
    ("Sword", None, 2, False),
    ("Thrown", 3, 4, False),       # a reach the file gives wins
    ("Thrown", 3, 3, True),
])
def test_thrown_reach_default(cli, tmp_path: Path, keywords: str, reach: int | None, distance: int,
                              allowed: bool) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "mestezia", "Berserker Charge", "--as", str(_fighter(tmp_path, keywords, reach)),
              "--against", str(_foe(tmp_path, distance)), "--dice", "6,7,9")
    assert (run.code == 0) is allowed, run.stderr
    if not allowed:
        assert "E0613" in run.stderr and "Traceback" not in run.stderr


def _walker(tmp_path: Path, conditions: str = "") -> Path:
    path = tmp_path / "walker.yaml"
    path.write_text(f"name: Walker\nposition: [0, 0]\nstats:\n  Speed: 4\n{conditions}", encoding="utf-8")
    return path


def _cost(path: list[tuple[int, int]], rough: set[tuple[int, int]], n: int, phasing: bool = False) -> int:
    """Each hex entered costs 1, a Rough N one N (Phasing ignores it)."""
    return sum(1 if phasing or c not in rough else n for c in path)


@pytest.mark.parametrize(("rough", "n"), [(set(), 2), ({(2, 0)}, 2), ({(1, 0), (2, 0)}, 2), ({(2, -1)}, 3)])
def test_moving_along_a_path_pays_rough_hexes(cli, tmp_path: Path, rough: set[tuple[int, int]], n: int) -> None:  # type: ignore[no-untyped-def]
    path = [(1, 0), (2, 0), (2, -1)]
    flat = ",".join(f"{q},{r}" for q, r in path)
    args = ["run", "mestezia", "move along", "--as", str(_walker(tmp_path)), "--with", f"path={flat}",
            "--with", f"rough_n={n}", "--json"]
    if rough:
        args += ["--with", "rough=" + ",".join(f"{q},{r}" for q, r in sorted(rough))]
    run = cli(*args)
    cost = _cost(path, rough, n)
    if cost <= 4:
        assert run.code == 0, run.stderr
        results = json.loads(run.stdout)["results"]
        assert (results["spent"], results["left"]) == (cost, 4 - cost)
    else:  # a hex cannot be entered without enough movement left
        assert run.code == 1 and "E0613" in run.stderr


def test_phasing_ignores_rough_terrain(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "mestezia", "move along", "--as", str(_walker(tmp_path, "conditions: [Phasing]\n")),
              "--with", "path=1,0,2,0,3,0", "--with", "rough=1,0,2,0,3,0", "--with", "rough_n=3", "--json")
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout)["results"]["spent"] == 3


def test_a_path_must_be_connected(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "mestezia", "move along", "--as", str(_walker(tmp_path)), "--with", "path=1,0,3,0")
    assert run.code == 1 and "hex_distance(here, c) == 1" in run.stderr


# ------------------------------------------------------------------ effect lifetimes

HOMEBREW = REPO / "rulesets" / "mestezia" / "homebrew"


def _warden(tmp_path: Path, conditions: list[str]) -> Path:
    path = tmp_path / "warden.yaml"
    held = "".join(f"  - {c}\n" for c in conditions)
    path.write_text("name: Warden\nstats:\n  Attack: 3\n  Defense: 11\nresources:\n  CP: 6\n"
                    "traits: [Iron Guard, Storm Footing, Witchcraft Kit]\npowers: [Slow Fuse]\n"
                    + (f"conditions:\n{held}" if held else ""), encoding="utf-8")
    return path


def _run(cli, *args: str) -> dict:  # type: ignore[no-untyped-def]
    run = cli("run", str(HOMEBREW), *args, "--json")
    assert run.code == 0, run.stderr
    return json.loads(run.stdout)


def test_adopting_a_stance(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    payload = _run(cli, "adopt stance", "--as", str(_warden(tmp_path, [])), "--with", "trait=Iron Guard")
    actor = payload["state"]["actor"]
    assert payload["results"] == {"stance": "Iron Guard", "replaced": False, "ended": ""}
    assert actor["conditions"] == ['In Stance("Iron Guard")', "Protected(2)"] and actor["resources"]["CP"] == 5


def test_a_new_stance_replaces_the_old(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    warden = _warden(tmp_path, ['In Stance("Iron Guard")'])
    payload = _run(cli, "adopt stance", "--as", str(warden), "--with", "trait=Storm Footing")
    held = payload["state"]["actor"]["conditions"]
    assert payload["results"]["replaced"] is True
    assert held.count('In Stance("Storm Footing")') == 1 and not any("Iron Guard" in c for c in held)


@pytest.mark.parametrize(("held", "adopted", "after", "cp"), [
    # Iron Guard's Protected 2 ends with it; Storm Footing's Hasted begins (§1.8: one stance).
    (['In Stance("Iron Guard")', "Protected(2)"], "Storm Footing", ['In Stance("Storm Footing")', "Hasted"], 5),
    (['In Stance("Storm Footing")', "Hasted"], "Iron Guard", ['In Stance("Iron Guard")', "Protected(2)"], 5),
    # Adopting the stance held again: it ends and begins anew, its cost paid again.
    (['In Stance("Iron Guard")', "Protected(2)"], "Iron Guard", ['In Stance("Iron Guard")', "Protected(2)"], 5),
    # Conditions that are not the old stance's stay.
    (['In Stance("Iron Guard")', "Protected(2)", "Dazed"], "Storm Footing", ["Dazed", 'In Stance("Storm Footing")', "Hasted"], 5),
])
def test_adopting_a_stance_ends_the_old_stance_effects(cli, tmp_path: Path, held: list[str], adopted: str,  # type: ignore[no-untyped-def]
                                                      after: list[str], cp: int) -> None:
    payload = _run(cli, "adopt stance", "--as", str(_warden(tmp_path, held)), "--with", f"trait={adopted}")
    old = held[0].split('"')[1]
    assert payload["results"] == {"stance": adopted, "replaced": True, "ended": old}
    assert payload["state"]["actor"]["conditions"] == after
    assert payload["state"]["actor"]["resources"]["CP"] == cp


def test_a_stance_held_that_is_no_trait_is_refused_unchanged(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A file naming a stance the game does not have: E0603 at the line that ends it, and
    nothing changes (the run works on copies)."""
    warden = _warden(tmp_path, ['In Stance("Iron Gaurd")', "Protected(2)"])
    before = warden.read_text(encoding="utf-8")
    run = cli("run", str(HOMEBREW), "adopt stance", "--as", str(warden), "--with", "trait=Storm Footing")
    assert run.code == 1 and "E0603" in run.stderr and "Iron Gaurd" in run.stderr and "Traceback" not in run.stderr
    assert "Iron Guard" in run.stderr  # did you mean
    assert warden.read_text(encoding="utf-8") == before


def test_only_a_stance_is_adopted_and_not_while_unconscious(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    item = cli("run", str(HOMEBREW), "adopt stance", "--as", str(_warden(tmp_path, [])), "--with", "trait=Witchcraft Kit")
    assert item.code == 1 and "E0613" in item.stderr
    out = cli("run", str(HOMEBREW), "adopt stance", "--as", str(_warden(tmp_path, ["Unconscious"])),
              "--with", "trait=Iron Guard")
    assert out.code == 1 and "not has(actor, Unconscious)" in out.stderr


@pytest.mark.parametrize("unconscious", [False, True])
def test_a_stance_ends_when_its_owner_is_unconscious(cli, tmp_path: Path, unconscious: bool) -> None:  # type: ignore[no-untyped-def]
    held = ['In Stance("Iron Guard")', "Protected(2)"] + (["Unconscious"] if unconscious else [])
    payload = _run(cli, "sustain stance", "--as", str(_warden(tmp_path, held)), "--with", "trait=Iron Guard")
    after = payload["state"]["actor"]["conditions"]
    assert payload["results"]["sustained"] is (not unconscious)
    assert ("Protected(2)" in after) is (not unconscious)


def test_ending_a_stance_lifts_its_effects(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    warden = _warden(tmp_path, ['In Stance("Iron Guard")', "Protected(2)"])
    assert _run(cli, "end stance", "--as", str(warden), "--with", "trait=Iron Guard")["state"]["actor"]["conditions"] == []


@pytest.mark.parametrize("segment", [1, 2, 3, 4, 7, 10])
def test_invest_schedules_the_result(cli, tmp_path: Path, segment: int) -> None:  # type: ignore[no-untyped-def]
    """Invest 3 used in segment s: segment s - 3 (counting down), or s - 3 + 10 next round."""
    payload = _run(cli, "Slow Fuse", "--as", str(_warden(tmp_path, [])), "--against", str(EXAMPLES / "inquisitor.yaml"),
                   "--with", f"segment={segment}", "--dice", "9,9,9")
    expected = segment - 3 if segment - 3 >= 1 else segment - 3 + 10
    assert payload["shown"]["resolves_segment"] == expected
    assert payload["shown"]["resolves_next_round"] is (segment - 3 < 1)
    assert payload["shown"]["resolves_round"] == (2 if segment - 3 < 1 else 1)


def _target(tmp_path: Path, hp: int = 20, conditions: tuple[str, ...] = ()) -> Path:
    path = tmp_path / "target.yaml"
    held = "".join(f"  - {c}\n" for c in conditions)
    path.write_text(f"name: Target\nstats:\n  Defense: 12\n  Max HP: 20\nresources:\n  HP: {hp}\n"
                    + (f"conditions:\n{held}" if held else ""), encoding="utf-8")
    return path


@pytest.mark.parametrize(("dice", "grade", "damage"), [("9,9,9", "High", 7), ("9,1,1", "Low", 5), ("1,1,1", "Fail", 0)])
def test_an_invested_result_waits(cli, tmp_path: Path, dice: str, grade: str, damage: int) -> None:  # type: ignore[no-untyped-def]
    """Slow Fuse (Invest 3, `Result 1: [Grade + 4] Fire damage`, Attack 3 against Defense 12),
    used in round 1, segment 2: the roll is made now (9 + 3 = 12 is a success), the damage
    waits, due at tick 10 x 1 - 2 + 3 = 11 (round 2, segment 9); the target's HP is untouched."""
    payload = _run(cli, "Slow Fuse", "--as", str(_warden(tmp_path, [])), "--against", str(_target(tmp_path)),
                   "--with", "segment=2", "--dice", dice)
    assert (payload["results"]["grade"], payload["results"]["damage"], payload["results"]["target_taken"]) == (grade, damage, 0)
    target = payload["state"]["target"]
    assert target["resources"]["HP"] == 20
    assert target["conditions"] == [f'Invested(11, {damage}, 0, "Slow Fuse", Fire, "")']
    assert payload["state"]["actor"]["resources"]["CP"] == 5  # the cost is paid when used


def test_without_a_segment_an_invest_resolves_at_once(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    payload = _run(cli, "Slow Fuse", "--as", str(_warden(tmp_path, [])), "--against", str(_target(tmp_path)),
                   "--dice", "9,9,9")
    assert payload["results"]["target_taken"] == 7 and payload["state"]["target"]["resources"]["HP"] == 13
    assert payload["state"]["target"]["conditions"] == []


@pytest.mark.parametrize(("round_", "segment", "resolved"), [
    (1, 3, False), (1, 1, False), (2, 10, False),   # before round 2, segment 9 (segments count down)
    (2, 9, True), (2, 4, True), (3, 10, True),      # at its segment (after that turn), or later
])
def test_an_invested_result_takes_hold_when_its_time_comes(cli, tmp_path: Path, round_: int, segment: int,  # type: ignore[no-untyped-def]
                                                            resolved: bool) -> None:
    """7 Fire damage due at tick 11 on a target Resistant 2 to Fire and Vulnerable 1 to
    it: 7 + 1 - 2 = 6 taken, from 20 HP; the Effect (Slowed) applies; the waiting ends."""
    held = ('Invested(11, 7, 0, "Slow Fuse", Fire, "The target is Slowed.")', "Resistant(2, Fire)", "Vulnerable(1, Fire)")
    payload = _run(cli, "invest resolves", "--as", str(_target(tmp_path, conditions=held)), "--with", "power=Slow Fuse",
                   "--with", f"round={round_}", "--with", f"segment={segment}")
    assert payload["results"]["resolved"] is resolved
    assert (payload["shown"]["resolves_round"], payload["shown"]["resolves_segment"]) == (2, 9)
    actor = payload["state"]["actor"]
    if resolved:
        assert payload["results"]["taken"] == 6 and actor["resources"]["HP"] == 14
        assert actor["conditions"] == ["Resistant(2, Fire)", "Vulnerable(1, Fire)", "Slowed"]
    else:
        assert actor["resources"]["HP"] == 20 and actor["conditions"] == list(held)


def test_a_use_then_its_resolution_end_to_end(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Used in round 1, segment 7: Invest 3 resolves in segment 4 of the same round."""
    used = _run(cli, "Slow Fuse", "--as", str(_warden(tmp_path, [])), "--against", str(_target(tmp_path)),
                "--with", "segment=7", "--dice", "9,9,1")
    (waiting,) = used["state"]["target"]["conditions"]
    assert waiting == 'Invested(6, 6, 0, "Slow Fuse", Fire, "")'  # Medium: [2 + 4] Fire damage
    target = _target(tmp_path, conditions=(waiting,))
    early = _run(cli, "invest resolves", "--as", str(target), "--with", "power=Slow Fuse", "--with", "segment=5")
    assert early["results"] == {"resolved": False} and early["shown"]["resolves_segment"] == 4
    done = _run(cli, "invest resolves", "--as", str(target), "--with", "power=Slow Fuse", "--with", "segment=4")
    assert done["results"]["taken"] == 6 and done["state"]["actor"]["resources"]["HP"] == 14


@pytest.mark.parametrize(("args", "needs"), [
    (["--with", "segment=11"], "segment <= 10"),          # a round has 10 segments
    (["--with", "segment=0"], "segment >= 1"),
    (["--with", "segment=3", "--with", "round=0"], "round >= 1"),
])
def test_an_invest_resolution_at_no_time_of_a_round_is_refused(cli, tmp_path: Path, args: list[str], needs: str) -> None:  # type: ignore[no-untyped-def]
    target = _target(tmp_path, conditions=('Invested(11, 7, 0, "Slow Fuse", Fire, "")',))
    run = cli("run", str(HOMEBREW), "invest resolves", "--as", str(target), "--with", "power=Slow Fuse", *args)
    assert run.code == 1 and "E0613" in run.stderr and needs in run.stderr


def test_nothing_waits_is_refused(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", str(HOMEBREW), "invest resolves", "--as", str(_target(tmp_path)), "--with", "power=Slow Fuse",
              "--with", "segment=3")
    assert run.code == 1 and "has(actor, Invested, power's name)" in run.stderr


def test_using_an_invest_power_out_of_the_round_is_refused(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", str(HOMEBREW), "Slow Fuse", "--as", str(_warden(tmp_path, [])), "--against", str(_target(tmp_path)),
              "--with", "segment=12", "--dice", "9,9,9")
    assert run.code == 1 and "E0613" in run.stderr and "segment <= 10" in run.stderr


@pytest.mark.parametrize(("hp", "kept"), [(15, False), (10, True), (8, True)])
def test_a_feature_is_lost_with_its_prerequisite(cli, tmp_path: Path, hp: int, kept: bool) -> None:  # type: ignore[no-untyped-def]
    """Blood Rage needs its holder Bloodied (HP at most half of Max HP, 20 here); healed above
    that, the stance is lost and ends, its Hasted lifted."""
    rager = tmp_path / "rager.yaml"
    rager.write_text(f"name: Rager\nstats:\n  Max HP: 20\nresources:\n  CP: 4\n  HP: {hp}\ntraits: [Blood Rage]\n"
                     "conditions:\n  - In Stance(\"Blood Rage\")\n  - Hasted\n", encoding="utf-8")
    payload = _run(cli, "review feature", "--as", str(rager), "--with", "feature=Blood Rage")
    assert payload["results"] == {"kept": kept}
    held = payload["state"]["actor"]["conditions"]
    assert held == (['In Stance("Blood Rage")', "Hasted"] if kept else [])


@pytest.mark.parametrize(("power", "fallen", "lifted"), [
    ("Cinder Field", "knocked_out", None),        # a zone outlives an Unconscious creator
    ("Cinder Field", "slain", "Slowed"),          # "If a zone's creator is slain, the zone ends"
    ("Glimmer Veil", "knocked_out", "Protected(1)"),  # "If the aura's creator falls unconscious, the aura disappears"
    ("Glimmer Veil", "slain", "Protected(1)"),
    ("Spark Bind", "knocked_out", None),
    ("Spark Bind", "slain", "Immobilized"),       # "Evocations end immediately if the evoker dies"
])
def test_effects_end_with_their_creator(cli, tmp_path: Path, power: str, fallen: str, lifted: str | None) -> None:  # type: ignore[no-untyped-def]
    held = ["Slowed", "Protected(1)", "Immobilized"]
    victim = tmp_path / "victim.yaml"
    victim.write_text("name: Victim\nstats:\n  Defense: 9\nconditions:\n" + "".join(f"  - {c}\n" for c in held),
                      encoding="utf-8")
    payload = _run(cli, "creator falls", "--as", str(HOMEBREW / "warden.yaml"), "--against", str(victim),
                   "--with", f"power={power}", "--with", f"fallen={fallen}")
    assert payload["results"]["ended"] is (lifted is not None)
    assert payload["state"]["target"]["conditions"] == [c for c in held if c != lifted]


# ------------------------------------------------------------------ terrain where the attacker stands

def _placed(tmp_path: Path, name: str, q: int, conditions: tuple[str, ...] = (), attacker: bool = False) -> Path:
    path = tmp_path / f"{name.lower()}.yaml"
    stats = "  Attack: 4\n  Strength: 2\n  Speed: 2\n  Defense: 11\n  Weapon Cost: 3\n  Weapon Damage: 12\n" if attacker else "  Defense: 12\n"
    held = f"conditions: [{', '.join(conditions)}]\n" if conditions else ""
    extra = "resources:\n  CP: 6\npowers: [Berserker Charge]\n" if attacker else ""
    path.write_text(f"name: {name}\nposition: [{q}, 0]\nstats:\n{stats}{extra}{held}", encoding="utf-8")
    return path


@pytest.mark.parametrize(("mine", "theirs", "grade", "damage"), [
    ((), (), "Medium", 14),                           # 5, 6, 9 + 6 against 12: two successes
    (("High Ground",), (), "High", 15),               # on High terrain over one not: +1, three
    ((), ("High Ground",), "Medium", 14),             # the target's high ground gives the attacker nothing
    (("High Ground",), ("High Ground",), "Medium", 14),  # both high: no advantage
])
def test_high_ground_counts_where_the_attacker_stands(cli, tmp_path: Path, mine: tuple[str, ...],  # type: ignore[no-untyped-def]
                                                      theirs: tuple[str, ...], grade: str, damage: int) -> None:
    run = cli("run", "mestezia", "Berserker Charge", "--as", str(_placed(tmp_path, "Itzel", 0, mine, attacker=True)),
              "--against", str(_placed(tmp_path, "Foe", 1, theirs)), "--dice", "5,6,9", "--json")
    assert run.code == 0, run.stderr
    payload = json.loads(run.stdout)
    assert (payload["results"]["grade"], payload["results"]["damage"]) == (grade, damage)
    assert payload["shown"]["terrain_bonus"] == (1 if grade == "High" else 0)


@pytest.mark.parametrize(("high", "grade"), [
    ("0,0", "High"),        # the attacker's hex is High terrain, the target's is not
    ("1,0", "Medium"),      # only the target's
    ("0,0,1,0", "Medium"),  # both
    ("2,0,3,-1", "Medium"), # neither
])
def test_high_hexes_of_the_map(cli, tmp_path: Path, high: str, grade: str) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "mestezia", "Berserker Charge", "--as", str(_placed(tmp_path, "Itzel", 0, attacker=True)),
              "--against", str(_placed(tmp_path, "Foe", 1)), "--with", f"high={high}", "--dice", "5,6,9", "--json")
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout)["results"]["grade"] == grade


@pytest.mark.parametrize(("mine", "terrain", "shown"), [
    (("High Ground", "Advantage"), 1, 0),  # combat advantage counts once: in the check, not shown again
    (("Advantage",), 0, 1),                # held Advantage alone: shown for the GM, not in the check
])
def test_combat_advantage_from_high_ground_is_not_counted_twice(cli, tmp_path: Path, mine: tuple[str, ...],  # type: ignore[no-untyped-def]
                                                                terrain: int, shown: int) -> None:
    run = cli("run", "mestezia", "Berserker Charge", "--as", str(_placed(tmp_path, "Itzel", 0, mine, attacker=True)),
              "--against", str(_placed(tmp_path, "Foe", 1)), "--dice", "5,6,9", "--json")
    payload = json.loads(run.stdout)
    assert (payload["shown"]["terrain_bonus"], payload["shown"]["attack_bonus"]) == (terrain, shown)


def test_high_hexes_must_be_pairs(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    itzel = _placed(tmp_path, "Itzel", 0, attacker=True)
    before = itzel.read_text(encoding="utf-8")
    run = cli("run", "mestezia", "Berserker Charge", "--as", str(itzel), "--against", str(_placed(tmp_path, "Foe", 1)),
              "--with", "high=0,0,1", "--dice", "5,6,9")
    assert run.code == 1 and "E0613" in run.stderr and "count(high) % 2 == 0" in run.stderr
    assert itzel.read_text(encoding="utf-8") == before


@pytest.mark.parametrize(("mine", "high", "below", "grades"), [
    ((), "", (), ("Medium", "Medium", "Low")),                       # 5, 6, 9 + 6: against 12, 12 and 13
    (("High Ground",), "", (), ("High", "Medium", "Low")),           # above the first only (its file says so)
    ((), "0,0", (), ("High", "Medium", "Low")),                      # the map's High hex under the attacker
    ((), "", ("second_below",), ("Medium", "High", "Low")),          # above the second (no file: said)
    ((), "", ("second_below", "third_below"), ("Medium", "High", "Medium")),
])
def test_high_ground_is_each_targets_own_with_several(cli, tmp_path: Path, mine: tuple[str, ...], high: str,  # type: ignore[no-untyped-def]
                                                      below: tuple[str, ...], grades: tuple[str, ...]) -> None:
    extra = ["--with", f"high={high}"] if high else []
    for flag in below:
        extra += ["--with", f"{flag}=true"]
    run = cli("run", "mestezia", "Use Power On Several", "--as", str(_placed(tmp_path, "Itzel", 0, mine, attacker=True)),
              "--against", str(_placed(tmp_path, "Foe", 1)), "--with", "power=Berserker Charge",
              "--with", "second=12", "--with", "third=13", *extra, "--dice", "5,6,9", "--json")
    assert run.code == 0, run.stderr
    results = json.loads(run.stdout)["results"]
    assert (results["grade"], results["grade_2"], results["grade_3"]) == grades
