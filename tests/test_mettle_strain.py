"""METTLE Core Afflictions, Deprivation, Fire and Visibility re-audited against spec mettle.md
(§4.7, §4.9, §4.15, §4.17, §5 A6, A7, A8, A23, A28) and the Scenes chapter
(shared/seeds/003_96f27f7ed9aa610d.txt): a named agent's dose scaled, no Strain being no harm,
Deprivation going on from the Strain on the sheet, A28's summed sources deciding the fate,
A23's fixed Burning only for what burns (in a Fire and at the end of a Round), a hotter fire,
the "+1 to +3" of poor light and a bright flash, and a Stun weapon's Strain knocking out. Given dice worked out by hand (each test says
how) and exact odds compared with enumerations written here."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest
from mettle_helpers import answers, ex, fighter, refused, run, with_extra
from runebook.interpreter.rules import load

GAME = "mettle"


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load(GAME)


def named(dist) -> dict:  # type: ignore[no-untyped-def]
    return {(v if isinstance(v, (int, tuple)) else str(v)): p for v, p in dict(dist).items() if p}


def course(bonus: int, soak: int, limit: int, gentle: bool, other: int = 0, summed: bool = False,
           stop_on_equal: bool = True, cap: int = 12) -> tuple[Counter, Counter]:
    """(Strain, fate) of an affliction by walking every sequence of Potence faces.

    The book: Roll 1d6 + bonus, less the Soak, is the Strain; roll again each interval while
    the Roll is higher than the last (A8's alternative: not lower); above Mettle is death (a
    less lethal agent knocks out, and kills above twice it). ``other`` Strain from other
    sources counts toward the fate only when sources add up (A28 ``sum_sources``); no Strain
    at all is no harm. ``cap`` is the number of intervals rolled at most."""
    strain_dist: Counter = Counter()
    fate_dist: Counter = Counter()

    def fate_of(strain: int) -> str:
        counted = strain + other if summed else strain
        if counted <= 0:
            return "unharmed"
        if counted > 2 * limit or (counted > limit and not gentle):
            return "killed"
        return "knocked_out" if counted > limit else "under_strain"

    def walk(last: int | None, strain: int, rolled: int, weight: Fraction) -> None:
        for face in range(1, 7):
            r, w = face + bonus, weight / 6
            if last is not None and (r <= last if stop_on_equal else r < last):
                strain_dist[strain] += w
                fate_dist[fate_of(strain)] += w
                continue
            now = max(0, r - soak)
            if fate_of(now) == "killed" or rolled + 1 >= cap:
                strain_dist[now] += w
                fate_dist[fate_of(now)] += w
                continue
            walk(r, now, rolled + 1, w)

    walk(None, 0, 0, Fraction(1))
    return strain_dist, fate_dist


# ---------------------------------------------------------------- §4.7: a named agent's dose


def test_a_tranquilizer_darts_dose_scaled_for_an_elephant(cli) -> None:  # type: ignore[no-untyped-def]
    """S-06 with the book's own agent: the dart at 1d6+6 (`bonus=6`) against FRAME 11: a 6
    makes 12, Strain 1; the next Roll can only be lower or equal, so the rolls stop."""
    out = run(cli, "Affliction", "--as", ex("elephant"), "--with", "agent=tranquilizer_dart", "--with", "bonus=6",
              "--dice", "6,6")
    assert out["results"] == {"rolls": [12], "strain": 1, "fate": "under_strain"}
    assert out["state"]["actor"]["conditions"] == ['Strained(1, "affliction")']


def test_exact_odds_of_a_scaled_cobra_bite(rules) -> None:  # type: ignore[no-untyped-def]
    # Cobra venom (1d6+4, FRAME, lethal) with 2 more Potence: 1d6+6 against the scout's FRAME 3.
    scout = rules.entity(ex("scout"))
    odds = rules.odds("Affliction", as_=scout, agent="cobra_venom", bonus=2)
    strain, fate = course(6, 3, 4, False)
    assert named(odds.results["strain"]) == dict(strain)
    assert named(odds.results["fate"]) == dict(fate)


def test_the_soaking_attribute_is_named_as_the_book_does(cli) -> None:  # type: ignore[no-untyped-def]
    # A misspelt attribute was read as FRAME: now it is refused, naming the rule.
    refused(cli, "Soak Attribute Named", "Affliction", "--as", ex("scout"), "--with", "soak_with=poise",
            "--dice", "1,1")


# ---------------------------------------------------------------- A6: no Strain is no harm


def test_no_strain_kills_nobody_below_zero_mettle(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Measured against current Mettle (A6's alternative), a scout at Mettle -1 (Harm 5) whose
    POISE 2 soaks a cold's 1 takes no Strain: not dead. A Strain of 1 does exceed -1: dead."""
    hurt = with_extra(tmp_path, ex("scout"), "hurt.yaml", "resources: {Harm: 5}\n")
    current = ("--option", "strain_mettle_ref=against_current")
    cold = run(cli, "Affliction", "--as", hurt, "--with", "agent=common_cold", *current, "--dice", "1,1")
    assert cold["results"]["fate"] == "unharmed" and cold["state"]["actor"]["conditions"] == []
    # A 3 is 3 - 2 = 1 Strain, above Mettle -1: the rolls end with the death.
    worse = run(cli, "Affliction", "--as", hurt, "--with", "agent=common_cold", *current, "--dice", "3")
    assert worse["results"] == {"rolls": [3], "strain": 1, "fate": "killed"}
    # A day of hunger taken easy (a step every 2 days) brings no Strain yet.
    easy = run(cli, "Deprivation", "--as", hurt, "--with", "need=hunger", "--with", "every=2", *current)
    assert easy["results"] == {"strain": [0], "fate": "unharmed"}
    assert easy["state"]["actor"]["conditions"] == []


# ---------------------------------------------------------------- §4.9: from the sheet's Strain


def test_deprivation_goes_on_from_the_strain_on_the_sheet(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    thirsty = with_extra(tmp_path, ex("scout"), "thirsty.yaml", "conditions: ['Strained(3, \"thirst\")']\n")
    # A second day without water: 3 + 3 = 6 above the scout's Mettle 4.
    out = run(cli, "Deprivation", "--as", thirsty, "--with", "need=thirst")
    assert out["results"] == {"strain": [6], "fate": "killed"}
    assert out["state"]["actor"]["conditions"] == ['Strained(6, "thirst")', "Dead"]
    # A day with water again takes off the 3 the sheet shows.
    drink = run(cli, "Deprivation", "--as", thirsty, "--with", "need=thirst", "--with", "recovering=true")
    assert drink["results"] == {"strain": [0], "fate": "unharmed"}
    assert drink["state"]["actor"]["conditions"] == []


# ---------------------------------------------------------------- A28: summed sources decide


def test_a28_summed_sources_decide_the_fate(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sick = with_extra(tmp_path, ex("scout"), "sick.yaml", "conditions: ['Strained(3, \"affliction\")']\n")
    summed = ("--option", "strain_stack=sum_sources")
    # Two days of hunger: 2. Only the highest counts (3): alive; added up, 3 + 2 = 5 > 4: dead.
    assert run(cli, "Deprivation", "--as", sick, "--with", "need=hunger", "--with", "days=2")["results"][
        "fate"] == "under_strain"
    starved = run(cli, "Deprivation", "--as", sick, "--with", "need=hunger", "--with", "days=2", *summed)
    assert starved["results"]["fate"] == "killed" and "Dead" in starved["state"]["actor"]["conditions"]
    # A day without sleep: 3 + 2 = 5 reaches Mettle: passed out, fatigue never kills.
    tired = run(cli, "Deprivation", "--as", sick, "--with", "need=fatigue", *summed)
    assert tired["results"]["fate"] == "knocked_out"
    # A cold on someone thirsty: a 4 less POISE 2 is 2; with thirst's 3 added, 5 > 4.
    thirsty = with_extra(tmp_path, ex("scout"), "thirsty.yaml", "conditions: ['Strained(3, \"thirst\")']\n")
    alone = run(cli, "Affliction", "--as", thirsty, "--with", "agent=common_cold", "--dice", "4,1")
    assert alone["results"] == {"rolls": [4], "strain": 2, "fate": "under_strain"}
    both = run(cli, "Affliction", "--as", thirsty, "--with", "agent=common_cold", *summed, "--dice", "4")
    assert both["results"] == {"rolls": [4], "strain": 2, "fate": "killed"}


def test_a28_counts_a_strain_that_names_no_source(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # A file's `Strained(2)` (source "any") sets the minimum Difficulty whether the sources are
    # added up or not.
    strained = with_extra(tmp_path, ex("scout"), "strained.yaml", "conditions: ['Strained(2)']\n")
    for stack in ("highest_source", "sum_sources"):
        out = run(cli, "Sense Task", "--as", strained, "--option", f"strain_stack={stack}")
        assert out["results"]["difficulty"] == 2


@pytest.mark.parametrize("stop", ["stop_on_equal", "stop_on_lower"])
def test_exact_odds_with_summed_strain_and_a8(rules, tmp_path: Path, stop: str) -> None:  # type: ignore[no-untyped-def]
    # Rattler venom (1d6+2, FRAME 3) on a scout already at 1 thirst, treated after 3 intervals;
    # A28's sources added up, A8 both ways.
    thirsty = with_extra(tmp_path, ex("scout"), "thirsty.yaml", "conditions: ['Strained(1, \"thirst\")']\n")
    options = {"affliction_stop_on_equal": stop, "strain_stack": "sum_sources"}
    odds = rules.odds("Affliction", as_=rules.entity(thirsty), agent="rattler_venom", intervals=3, options=options)
    strain, fate = course(2, 3, 4, False, other=1, summed=True, stop_on_equal=stop == "stop_on_equal", cap=3)
    assert sum(fate.values()) == 1
    assert named(odds.results["strain"]) == dict(strain)
    assert named(odds.results["fate"]) == dict(fate)


# ---------------------------------------------------------------- §4.15, A23: what burns the same


def test_a23_fixed_is_for_what_burns(cli) -> None:  # type: ignore[no-untyped-def]
    fixed = ("--option", "fire_burning=fixed")
    # Not flammable: a bonfire is rolled each Round whatever A23 says: 6 + 5 - 3, 2 + 2 - 3.
    plain = run(cli, "Fire", "--as", ex("scout"), "--with", "size=bonfire", "--with", "rounds=2", *fixed,
                "--dice", "6,5,2,2")
    assert plain["results"]["damage"] == [8, 1]
    # Flammable: one roll (11) burns the same every Round, and the Burning keeps it.
    burning = run(cli, "Fire", "--as", ex("scout"), "--with", "size=bonfire", "--with", "rounds=2",
                  "--with", "flammable=true", *fixed, "--dice", "6,5")
    assert burning["results"]["damage"] == [8, 8]
    assert burning["state"]["actor"]["conditions"][-1] == "Burning(2, 11)"


def test_a23_fixed_burning_at_the_end_of_a_round(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Far (FRAME 3, Mettle 3) burns for a fixed 5: 5 - 3 = 2 at the end of the Round, no die.
    far = with_extra(tmp_path, ex("bandit"), "far.yaml", "conditions: ['Burning(1, 5)']\n")
    answers = tmp_path / "a.yaml"
    answers.write_text("- Bandit\n- pass\n")
    out = run(cli, "Combat Round", "--as", far, "--choices", str(answers), "--option", "fire_burning=fixed")
    assert out["results"]["mettle"] == [1]
    # Rolled anew (the default): a die is needed, a 6 is 6 - 3 = 3.
    rolled = run(cli, "Combat Round", "--as", far, "--choices", str(answers), "--dice", "6")
    assert rolled["results"]["mettle"] == [0]


def test_exact_odds_of_a_fixed_burning_and_a_hotter_fire(rules) -> None:  # type: ignore[no-untyped-def]
    scout = rules.entity(ex("scout"))
    same = rules.odds("Fire", as_=scout, rounds=2, flammable=True, options={"fire_burning": "fixed"})
    expected: Counter = Counter()
    for face in range(1, 7):
        expected[(max(0, face - 3),) * 2] += Fraction(1, 6)
    assert named(same.results["damage"]) == dict(expected)
    # A lava flow hotter than a forge ("3d6 or more"): 4d6 less Soak 3.
    lava = rules.odds("Fire", as_=scout, size="forge", extra_dice=1)
    hotter: Counter = Counter()
    for faces in product(range(1, 7), repeat=4):
        hotter[(max(0, sum(faces) - 3),)] += Fraction(1, 1296)
    assert named(lava.results["damage"]) == dict(hotter)


# ---------------------------------------------------------------- §4.17: +1 to +3, flashes


def test_poor_light_from_1_to_3_and_a_flash(rules) -> None:  # type: ignore[no-untyped-def]
    # The summary's "+1 to +3": dim 1, gloom 2, dark 3 on a sight-reliant Difficulty 3.
    assert [rules.resolve("Visibility Difficulty", base=3, light=light).results["difficulty"]
            for light in ("lit", "dim", "gloom", "dark")] == [3, 4, 5, 6]
    # A bright flash the GM makes +2 is a sight penalty: with dim light the largest counts...
    assert rules.resolve("Visibility Difficulty", base=3, light="dim", flash=2).results["difficulty"] == 5
    # ...or they add up (A19's alternative); a check not reliant on sight ignores it.
    assert rules.resolve("Visibility Difficulty", base=3, light="dim", flash=2,
                         options={"difficulty_stacking": "sum_all"}).results["difficulty"] == 6
    assert rules.resolve("Visibility Difficulty", base=3, flash=2, sight_reliant=False).results["difficulty"] == 3


# ---------------------------------------------------------------- Stun's Strain ends in a knock-out


def test_stun_strain_above_mettle_knocks_out(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Resources, Specials: Stun weapons deal Strain instead of damage, "ending in
    Incapacitation". A stun gun (DM 6) on the Bandit (Soak 3, Mettle 3)."""
    gun = fighter(tmp_path, "Gun", weapon="Stun gun", DM=6, Stun=1)
    # [1,2,3]: Score 6, Edge 0: 6 - 3 = Strain 3, not above Mettle 3: still up.
    level = run(cli, "Attack", "--as", gun, "--against", ex("bandit"), "--dice", "1,2,3")
    assert level["state"]["target"]["conditions"] == ['Strained(3, "stun")']
    # [1,2,4]: Score 3, Edge 1: 6 + 1 - 3 = Strain 4 > 3: knocked out, not dead.
    out = run(cli, "Attack", "--as", gun, "--against", ex("bandit"), "--dice", "1,2,4")
    assert out["state"]["target"]["conditions"] == ['Strained(4, "stun")', "Stunned"]
    # Knocked out, the Bandit has no Action to strike back with.
    down = with_extra(tmp_path, ex("bandit"), "down.yaml", "conditions: ['Strained(4, \"stun\")', Stunned]\n")
    refused(cli, "Attacker Can Act", "Attack", "--as", down, "--against", gun, "--dice", "1,1,1")
    # It lasts the Scene, as the stun's Strain does.
    assert run(cli, "New Scene", "--as", down)["state"]["actor"]["conditions"] == []


# ---------------------------------------------------------------- §4.9 on the road: a crawl's hunger


def test_a_crawl_can_starve_its_party(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Travel: lacking rations inflicts Deprivation, skeletons and all. Kirin (POISE 5,
    Mettle 4) takes the coast road (1 day) and the pilgrim steps (2 days) on two days of
    rations, [3,3,3,3,3] each leg (Score 15, past any Difficulty her Strain sets) and a 1 on
    each table: one hungry day. Already at 4 hunger: 5 > 4, dead; at 3, 4 is not above 4."""
    plan = answers(tmp_path, "coast road", "pilgrim steps")
    dice = "3,3,3,3,3,1,3,3,3,3,3,1"
    for had, conditions in ((4, ['Strained(5, "hunger")', "Dead"]), (3, ['Strained(4, "hunger")'])):
        starving = with_extra(tmp_path, ex("kirin"), f"starving{had}.yaml", f"conditions: ['Strained({had}, \"hunger\")']\n")
        out = run(cli, "Coast Crawl", "--as", starving, "--with", "rations=2", "--choices", plan, "--dice", dice,
                  game=str(Path(ex("kirin")).parent.parent / "homebrew"))
        assert out["results"]["hungry_days"] == 1
        assert out["state"]["actor"]["conditions"] == conditions
