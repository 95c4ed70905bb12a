"""Mestezia, complete (issue 5): the loose ends of the powers, combat and encounter rules.

[Target's Jolt] in a Heal power; weapon keywords spliced into a weapon power; While lines
naming a health status; powers against several targets; the terrain conditions with checks;
the example encounter replayed from given dice and choices. Expected numbers come from the
spec's wording, computed here in plain Python, never copied from the rules' output.
"""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product
from math import floor
from pathlib import Path

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.rulesets import RULESETS_DIR

MESTEZIA = RULESETS_DIR / "mestezia"
EXAMPLES = MESTEZIA / "examples"
HOMEBREW = MESTEZIA / "homebrew"
MENDER, WOUNDED = str(HOMEBREW / "mender.yaml"), str(HOMEBREW / "wounded.yaml")


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("mestezia")


@pytest.fixture(scope="module")
def homebrew():  # type: ignore[no-untyped-def]
    return interpreter.load(str(HOMEBREW))


# ---------------------------------------------------------------- [Target's Jolt] (§2.6, L202)


def _jolt(max_hp: int, sturdiness: int) -> int:
    return floor(Fraction(max_hp, 4)) + sturdiness


@pytest.mark.parametrize("dice, grade, regained", [
    ([6, 2, 1], 1, _jolt(20, 2)),          # one die of 6 + Will 3 reaches 8: a Low heals one Jolt
    ([5, 7, 1], 2, _jolt(20, 2)),          # a Medium reads the same Result 1 line
    ([6, 7, 9], 3, _jolt(20, 2) + 3),      # a High: Jolt + Grade
    ([1, 2, 4], 0, 0)])                    # nothing reaches 8: no heal
def test_mending_touch_heals_the_targets_jolt(homebrew, dice, grade: int, regained: int) -> None:  # type: ignore[no-untyped-def]
    run = homebrew.run("Mending Touch", as_=homebrew.entity(MENDER), against=homebrew.entity(WOUNDED), dice=dice)
    assert str(run.results["grade"]) == ["Fail", "Low", "Medium", "High"][grade]
    assert run.results["healed"] == regained
    assert run.state["target"]["resources"]["HP"] == min(20, 4 + regained)
    assert run.state["actor"]["resources"]["CP"] == 6 - 2


def test_the_jolt_line_shows_the_targets_number_in_the_trace(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", str(HOMEBREW), "Mending Touch", "--as", MENDER, "--against", WOUNDED, "--dice", "6,2,1")
    assert run.code == 0, run.stderr
    assert "Target's Jolt = 7" in run.stdout
    assert "Mending Touch: Result 1 = The target regains 7 HP." in run.stdout


@pytest.mark.parametrize("rounding, jolt", [("quarter_down", 5 + 2), ("quarter_up", 6 + 2)])
def test_the_jolt_follows_its_rounding_option(homebrew, tmp_path: Path, rounding: str, jolt: int) -> None:  # type: ignore[no-untyped-def]
    odd = tmp_path / "odd.yaml"
    odd.write_text(Path(WOUNDED).read_text().replace("Max HP: 20", "Max HP: 22"))
    run = homebrew.run("Mending Touch", as_=homebrew.entity(MENDER), against=homebrew.entity(str(odd)),
                       dice=[6, 2, 1], options={"jolt_rounding": rounding})
    assert run.results["healed"] == jolt


# ---------------------------------------------------------------- weapon keywords (§1.4, L343)

BRUTE = """\
name: Brute
stats:
  Attack: 4
  Strength: 2
  Speed: 2
  Weapon Cost: 3
  Weapon Damage: 12
weapon keywords: [Fire, Heavy]
resources:
  CP: 6
powers: [Berserker Charge]
"""


def test_the_weapons_keywords_join_the_powers(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    brute = tmp_path / "brute.yaml"
    brute.write_text(BRUTE)
    run = rules.run("Berserker Charge", as_=rules.entity(str(brute)),
                    against=rules.entity(str(EXAMPLES / "inquisitor.yaml")), dice=[6, 7, 9])
    assert run.results["keywords"] == "Berserker Melee Fire Heavy Charge"
    assert str(run.results["damage_type"]) == "Fire"
    plain = rules.run("Berserker Charge", as_=rules.entity(str(EXAMPLES / "itzel.yaml")),
                      against=rules.entity(str(EXAMPLES / "inquisitor.yaml")), dice=[6, 7, 9])
    assert (plain.results["keywords"], str(plain.results["damage_type"])) == ("Berserker Melee Charge", "untyped")


@pytest.mark.parametrize("weapon, taken", [
    ("[Fire]", 15 - 3),       # the wisp resists fire 3
    ("[Cold]", 15 + 2),       # and is vulnerable to cold 2
    ("[Heavy]", 15)])         # a keyword that is no damage type: untyped damage
def test_the_weapons_damage_type_meets_resistances(rules, tmp_path: Path, weapon: str, taken: int) -> None:  # type: ignore[no-untyped-def]
    brute = tmp_path / "brute.yaml"
    brute.write_text(BRUTE.replace("[Fire, Heavy]", weapon))
    wisp = rules.entity(str(EXAMPLES / "ember-wisp.yaml"))  # 13 of 16 HP, Defense 12
    run = rules.run("Berserker Charge", as_=rules.entity(str(brute)), against=wisp, dice=[6, 7, 9])
    assert run.results["damage"] == 12 + 3 and run.results["target_taken"] == taken
    hp = max(0, 13 - taken)
    assert run.state["target"]["resources"]["HP"] == hp
    assert ("Dying" in run.state["target"]["conditions"]) == (hp == 0)
    assert wisp.resources["HP"] == 13  # the run worked on a copy


# ---------------------------------------------------------------- While: a health status (§2.10)

STANDER = """\
name: Stander
stats:
  Will: 2
  Max HP: 20
resources:
  HP: {hp}
  CP: 3
powers: [Last Stand]
"""


@pytest.mark.parametrize("hp, allowed", [(20, False), (11, False), (10, True), (3, True)])
def test_a_while_line_naming_bloodied(homebrew, tmp_path: Path, hp: int, allowed: bool) -> None:  # type: ignore[no-untyped-def]
    """Bloodied is HP at most half of Max HP (2 * HP <= Max HP): 10 of 20 is, 11 is not."""
    path = tmp_path / "stander.yaml"
    path.write_text(STANDER.format(hp=hp))
    stander = homebrew.entity(str(path))
    assert (2 * hp <= 20) == allowed
    if allowed:
        run = homebrew.run("Last Stand", as_=stander, dice=[5, 1, 1])  # 5 + Will 2 reaches 6: Low
        assert run.state["actor"]["conditions"] == ["Protected(2)"] and run.state["actor"]["resources"]["CP"] == 2
        return
    with pytest.raises(RunebookError) as error:
        homebrew.run("Last Stand", as_=stander, dice=[5, 1, 1])
    assert [d.code for d in error.value.diagnostics] == ["E0613"]
    assert "Stander is not = bloodied" in str(error.value)
    assert stander.resources["CP"] == 3 and stander.conditions == []


def test_a_refused_while_from_the_command_line(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "stander.yaml"
    path.write_text(STANDER.format(hp=18))
    before = path.read_text()
    run = cli("run", str(HOMEBREW), "Last Stand", "--as", str(path), "--dice", "5,1,1")
    assert run.code == 1 and "Traceback" not in run.stderr
    assert "E0613" in run.stderr and "^^^" in run.stderr and "help: here Stander is not = bloodied" in run.stderr
    assert path.read_text() == before


# ---------------------------------------------------------------- several targets (§2.5, L512)

ITZEL, INQUISITOR = str(EXAMPLES / "itzel.yaml"), str(EXAMPLES / "inquisitor.yaml")
GRADES = ["Fail", "Low", "Medium", "High"]


def test_one_roll_a_grade_per_target(rules) -> None:  # type: ignore[no-untyped-def]
    """6, 8, 10 with +6 are 12, 14, 16: three hits against Defense 12, two against 14, one
    against 16; Berserker Charge deals [Weapon + Grade] = 12 + grade to each."""
    run = rules.run("Use Power On Several", power="Berserker Charge", as_=rules.entity(ITZEL),
                    against=rules.entity(INQUISITOR), second=14, third=16, dice=[6, 8, 10])
    got = {k: (str(v) if k.startswith("grade") else v) for k, v in run.results.items() if not k.startswith("effect")}
    assert got == {"grade": "High", "damage": 15, "grade_2": "Medium", "damage_2": 14, "grade_3": "Low", "damage_3": 13}
    assert run.state["actor"]["resources"]["CP"] == 6 - 4  # paid once


def test_several_targets_odds_match_an_enumeration(rules) -> None:  # type: ignore[no-untyped-def]
    odds = rules.odds("Use Power On Several", power="Berserker Charge", as_=rules.entity(ITZEL),
                      against=rules.entity(INQUISITOR), second=14)
    for name, threshold in (("", 12), ("_2", 14)):
        grades: dict[str, Fraction] = {}
        damage: dict[int, Fraction] = {}
        for faces in product(range(1, 11), repeat=3):
            hits = sum(f + 6 >= threshold for f in faces)
            grades[GRADES[min(hits, 3)]] = grades.get(GRADES[min(hits, 3)], Fraction(0)) + Fraction(1, 1000)
            dealt = 12 + hits if hits else 0
            damage[dealt] = damage.get(dealt, Fraction(0)) + Fraction(1, 1000)
        assert {str(k): v for k, v in odds.results["grade" + name].items()} == grades
        assert dict(odds.results["damage" + name]) == damage


def test_several_targets_need_the_second_threshold(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "mestezia", "Use Power On Several", "--with", "power=Berserker Charge",
              "--as", ITZEL, "--against", INQUISITOR, "--dice", "6,8,10")
    assert run.code == 1 and "E0602" in run.stderr and "--with second=" in run.stderr


# ---------------------------------------------------------------- terrain with checks (§2.12, A16)


def _creature(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"name: {name}\nstats:\n  Max HP: 12\n  Will: 1\n{body}")
    return str(path)


@pytest.mark.parametrize("setting, gm, dice, prone", [
    ("difficulty", 10, [3, 4, 6], True),     # + 1 against N = 8: 4, 5, 7 miss
    ("difficulty", 10, [3, 4, 7], False),    # 8 keeps the footing
    ("handicap", 10, [10, 10, 10], True),    # + 1 - 8 = 3 against the GM's 10
    ("handicap", 3, [10, 1, 1], False)])     # 3 against the GM's 3
def test_slippery_ground_check_or_prone(rules, tmp_path: Path, setting: str, gm: int, dice: list[int], prone: bool) -> None:  # type: ignore[no-untyped-def]
    mover = rules.entity(_creature(tmp_path, "Mover", ""))
    run = rules.run("Move On Slippery", as_=mover, N=8, modifier=1, gm_threshold=gm, dice=dice,
                    options={"slippery_n": setting})
    assert run.results["prone"] is prone
    held = run.state["actor"]["conditions"]
    assert "Slippery Ground(8)" in held and ("Prone" in held) == prone


def test_slippery_odds_match_an_enumeration(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """N read from the Slippery Ground the creature stands on; N = 9 as the threshold, +2."""
    mover = rules.entity(_creature(tmp_path, "Mover", "conditions: [\"Slippery Ground(9)\"]\n"))
    odds = rules.odds("Move On Slippery", as_=mover, modifier=2)
    falls = sum(Fraction(1, 1000) for faces in product(range(1, 11), repeat=3) if all(f + 2 < 9 for f in faces))
    assert dict(odds.results["prone"]) == {True: falls, False: 1 - falls}


def test_slippery_without_an_n_is_refused(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as error:
        rules.run("Move On Slippery", as_=rules.entity(_creature(tmp_path, "Mover", "")), dice=[5, 5, 5])
    assert [d.code for d in error.value.diagnostics] == ["E0613"]


@pytest.mark.parametrize("dice, answer, held", [
    ([3, 4, 6], "treat_as_rough", ["Eerie(2)", "Rough(2)"]),   # Will 1: 4, 5, 7 miss 9
    ([3, 4, 6], "move_to_edge", ["Eerie(2)"]),
    ([3, 4, 8], None, ["Eerie(2)"])])                          # 9 passes: no choice asked
def test_eerie_terrain_asks_for_will(rules, tmp_path: Path, dice, answer, held) -> None:  # type: ignore[no-untyped-def]
    from runebook.interpreter.rules.procedures import ScriptedDriver

    walker = rules.entity(_creature(tmp_path, "Walker", ""))
    run = rules.run("Enter Eerie", as_=walker, N=2, threshold=9, dice=dice,
                    driver=ScriptedDriver([answer] if answer else []))
    assert run.results["failed"] is (answer is not None)
    assert run.state["actor"]["conditions"] == held


@pytest.mark.parametrize("dice, entangled", [([2, 3, 4], True), ([2, 3, 9], False)])
def test_entangling_terrain(rules, tmp_path: Path, dice: list[int], entangled: bool) -> None:  # type: ignore[no-untyped-def]
    walker = rules.entity(_creature(tmp_path, "Walker", ""))
    run = rules.run("Enter Entangling", as_=walker, threshold=10, modifier=1, dice=dice)
    assert run.results["entangled"] is entangled
    assert run.state["actor"]["conditions"] == ["Entangling"] + (["Entangled"] if entangled else [])


@pytest.mark.parametrize("kind, terrain, gained", [
    ("Primal", "Empowering(primal)", 1), ("Construct", "Empowering(primal)", 0),
    ("Construct", "Empowering", 1), ("Primal", "Windy", 0)])
def test_empowering_terrain_gives_a_cp_to_its_type(rules, tmp_path: Path, kind: str, terrain: str, gained: int) -> None:  # type: ignore[no-untyped-def]
    body = f"creature type: {kind}\nresources:\n  CP: 6\nconditions: [\"{terrain}\"]\n"
    run = rules.run("End On Empowering", as_=rules.entity(_creature(tmp_path, "Beast", body)))
    assert run.results["cp"] == 6 + gained  # above 6: CP have no maximum


# ---------------------------------------------------------------- the example encounter (examples/skirmish/)

SKIRMISH = EXAMPLES / "skirmish"
RAIDER, GUARD = str(SKIRMISH / "raider.yaml"), str(SKIRMISH / "guard.yaml")


def _guard_after(order: str, grade_hits: int) -> int:
    """The guard's HP after the round, from the files' numbers: 24 Max HP, Resistant 2
    Piercing, Ongoing 2 Fire; the raider's charge deals 12 + grade Piercing on a hit."""
    hp = 24
    hit = max(0, 12 + grade_hits - 2) if grade_hits else 0
    for turn in ("pc", "npc") if order == "actor_first" else ("npc", "pc"):
        hp = max(0, hp - (hit if turn == "pc" else 2))
    return hp


@pytest.mark.parametrize("order_die, order", [(6, "actor_first"), (3, "target_first")])
def test_the_skirmish_round_replays_from_dice_and_choices(cli, order_die: int, order: str) -> None:  # type: ignore[no-untyped-def]
    """Raider (Initiative 2) against the guard in segment 7: 6 + 2 = 8 acts first, 3 + 2 = 5
    after the guard's start phase. Then 6, 7, 9 with +6 against Defense 12: High."""
    run = cli("run", "mestezia", "Skirmish Round", "--as", RAIDER, "--against", GUARD,
              "--with", "power=Berserker Charge", "--with", "target_segment=7",
              "--dice", f"{order_die},6,7,9", "--choices", str(SKIRMISH / "round-choices.yaml"), "--json")
    assert run.code == 0, run.stderr
    payload = json.loads(run.stdout)
    results = payload["results"]
    assert results["segment"] == min(order_die + 2, 10) and results["first"] == order
    assert (results["grade"], results["damage"], results["damage_kind"]) == ("High", 12 + 3, "Piercing")
    assert results["taken"] == 12 + 3 - 2 and results["ongoing"] == 2
    hp = _guard_after(order, 3)
    assert results["target_hp"] == hp == 9
    assert results["target_status"] == ("Bloodied" if 2 * hp <= 24 else "Injured")
    assert payload["state"]["actor"]["resources"]["CP"] == 6 - (3 + 1)
    assert payload["state"]["target"]["resources"]["HP"] == hp


def test_the_skirmish_round_odds_match_an_enumeration(rules) -> None:  # type: ignore[no-untyped-def]
    odds = rules.odds("Skirmish Round", power="Berserker Charge", as_=rules.entity(RAIDER),
                      against=rules.entity(GUARD), target_segment=7, answers={"act": "use_the_power"})
    expected: dict[int, Fraction] = {}
    for order_die, *faces in product(range(1, 11), repeat=4):
        total = order_die + 2
        if total == 7:
            continue  # a tie: the table decides (the first answer, actor_first, by default)
        hits = sum(f + 6 >= 12 for f in faces)
        hp = _guard_after("actor_first" if total > 7 else "target_first", hits)
        expected[hp] = expected.get(hp, Fraction(0)) + Fraction(1, 10 ** 4)
    tie = Fraction(1, 10)  # order die 5: the choice's first option, the raider first
    for faces in product(range(1, 11), repeat=3):
        hits = sum(f + 6 >= 12 for f in faces)
        hp = _guard_after("actor_first", hits)
        expected[hp] = expected.get(hp, Fraction(0)) + tie / 1000
    assert dict(odds.results["target_hp"]) == expected


def test_passing_leaves_the_guard_to_its_fire(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    answers = tmp_path / "pass.yaml"
    answers.write_text("- pass\n")
    run = cli("run", "mestezia", "Skirmish Round", "--as", RAIDER, "--against", GUARD,
              "--with", "power=Berserker Charge", "--dice", "6", "--choices", str(answers), "--json")
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout)["results"]["target_hp"] == 24 - 2


SECOND_WIND = """\
extends mestezia

Second Wind
Cost: 1 CP
Target: You
Threshold: 5
Check: [Will]
Result 1: You regain 4 HP.
Keywords: *Heal Recovery*
"""


@pytest.mark.parametrize("body, hp", [
    ("  Max HP: 10\nresources:\n  HP: 3\n", 3 + 4),
    ("  Max HP: 10\nresources:\n  HP: 8\n", 10),                        # Max HP caps it
    ("", None)])                                                         # no Max HP: nothing to heal
def test_a_heal_on_oneself(tmp_path: Path, body: str, hp: int | None) -> None:
    (tmp_path / "wind.rules").write_text(SECOND_WIND)
    (tmp_path / "h.yaml").write_text(f"name: H\npowers: [Second Wind]\nstats:\n  Will: 2\n{body}")
    rules = interpreter.load(str(tmp_path))
    run = rules.run("Second Wind", as_=rules.entity(str(tmp_path / "h.yaml")), dice=[5, 1, 1])
    assert run.results["healed"] == 4
    assert run.state["actor"]["resources"].get("HP") == hp
    assert "Dying" not in run.state["actor"]["conditions"]


def test_mending_touch_odds_match_an_enumeration(homebrew) -> None:  # type: ignore[no-untyped-def]
    odds = homebrew.odds("Mending Touch", as_=homebrew.entity(MENDER), against=homebrew.entity(WOUNDED))
    expected: dict[int, Fraction] = {}
    for faces in product(range(1, 11), repeat=3):
        hits = sum(f + 3 >= 8 for f in faces)
        healed = 0 if hits == 0 else _jolt(20, 2) + (hits if hits >= 3 else 0)
        expected[healed] = expected.get(healed, Fraction(0)) + Fraction(1, 1000)
    assert dict(odds.results["healed"]) == expected
