"""A third audit of the d10 pool ruleset against spec d10pool.md, by cases derived from its
mechanics and played as a user would (after test_d10pool_audit.py, test_d10pool_derived.py,
test_d10pool_options_audit.py, test_d10pool_procedures.py, test_checks_d10pool.py and
test_has_stat.py).

Defects found and fixed (rulesets/d10-pool/group.rules, complex.rules):

- XB.5-6, A5 (`enhancement_cap=drawback_required`, the default): an Enhancement above 3 with
  no Drawback was taken whole by `Mixed Action`, `Mixed Roll`, `Contest`, `Complex Action` and
  `Opposed Complex Action` (they had no `drawback` input at all), and `Teamwork` and
  `Team Roll` only flagged it even when the roller's own Enhancement, known before any die,
  was above 3; `Team Roll` did not report `over_soft_cap`. Each now takes `drawback` and
  refuses the roll without one (the help of `Teamwork`'s dice is still only flagged); the
  Drawback "antagonists get a free Enhancement" gives the target of a `Contest` Enhancement 1,
  as in `Contested Roll`.
- XB.15 (W04): a troupe sheet with `Players: 0` or below was taken: its capacity was 2 × Players,
  so a gain of 2 Momentum *lowered* a troupe of -1 player to -2 (`Gain Momentum`, and the
  consolation of a `Roll`); and a sheet holding more Momentum than its capacity (9 for 2
  players) was spent from as is (`Activate Knack` left 8 in a pool of 4). Every procedure that
  finds the troupe now refuses both.
- CO.5 with A15: a complex action's failed intervals give the troupe Momentum, "+1 if the roll
  used a Specialty", but `Complex Action` and `Opposed Complex Action` took no `specialty`
  (E0604 unknown input), so a failed interval always gave 1 and a Botch 3. They take
  `specialty=true` now, and with the troupe's sheet given report its pool as `momentum` (the
  book's resource was nowhere in their results).
- A14 (`momentum_overflow=refuse_gain`): "the gain is refused" refused the whole `Roll` or
  `Contested Roll` whose consolation would pass the capacity, after the dice were rolled: a
  Botch with a full pool could not be played, and `odds` of such a roll was an error. The roll
  now stands and its Momentum is not gained (`momentum_gained: 0`); the complex actions,
  which ignored the option (the gain was cut at the capacity), refuse such a gain the same way.
- CO.4, A24: an owed Enhancement (Unlooked-for Advantage's `Advantage Owed`, the Enhancement
  Stunt's `Stunt Advantage`) served only `Roll` and `Contested Roll`: `Mixed Roll` and
  `Team Roll`, rolls from the same sheet, ignored it and left it owed. They take `challenge`
  and use it (+1, then gone) on a different challenge.
- XB.12 with XB.14: `Team Roll` took every --as after the main roller for a helper, so giving
  the troupe's sheet as every other procedure asks (`--as hero --as helper --as troupe`)
  failed with "The Troupe has no such stat" (E0701). The troupe's sheet (it gives `Players`)
  is no helper now; with no helper sheet at all the refusal says so.
- DB.3, DB.6, XB.15: counts took fractions: `difficulty=1.5` was a Difficulty one success
  could not meet and two could, `Gain Momentum --with points=1.5` left the troupe at 9/2
  Momentum, `Rating --with rating=2.5` failed with a table-row error (E0413). Difficulties,
  target numbers, Enhancement, Scale, complications, Momentum points, Knack costs, milestones,
  interval limits and ratings must be whole numbers (E0613, the value in the help).
- Momentum dice or a calling-keyword Feat without the troupe's sheet: `Roll` and
  `Contested Roll` refused with "requires has_troupe", which names no sheet; they now say
  `troupe_sheet_given`, as `Gain Momentum` and `Activate Knack` do.

Expected values are worked out by hand from the notes (each case says how).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from runebook import interpreter
from d10pool_helpers import EXAMPLES, plain, refused, sheets


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("d10-pool")


# ---------------------------------------------------------------- XB.5-6 / A5: a Drawback above 3


def test_mixed_action_above_three_needs_a_drawback(rules) -> None:  # type: ignore[no-untyped-def]
    """Pools 2 and 2, Difficulties 5 and 1, Enhancement 4: refused without a Drawback. With
    one, one rolled success (8, 2) + 4 = 5 meets both: threshold 0 and 4."""
    inputs = {"pools": [2, 2], "difficulties": [5, 1], "enhancement": 4, "dice": [8, 2]}
    assert refused(lambda: rules.run("Mixed Action", **inputs)) == ["E0613"]
    run = rules.run("Mixed Action", drawback="raise_difficulty", **inputs)
    assert plain((run.results["outcomes"], run.results["threshold_successes"])) == [["success", "success"], [0, 4]]
    # Held at 3 instead (hard_three): 1 + 3 = 4 misses Difficulty 5, meets 1 by 3.
    capped = rules.run("Mixed Action", options={"enhancement_cap": "hard_three"}, **inputs)
    assert plain(capped.results["outcomes"]) == ["failure", "success"]


def test_mixed_roll_above_three_needs_a_drawback(rules) -> None:  # type: ignore[no-untyped-def]
    """Ayla's six dice (the smaller pool, Cunning 3 + Subterfuge 3): Enhancement 5 refused
    without a Drawback; with one, 1 success + 5 = 6 against Difficulty 2: threshold 4."""
    inputs = {"as_": sheets(rules, "ayla")[0], "attributes": ["Dexterity", "Cunning"], "skills": ["Athletics", "Subterfuge"],
                  "difficulties": [2, 2], "enhancement": 5, "dice": [8, 2, 2, 2, 2, 2]}
    assert refused(lambda: rules.run("Mixed Roll", **inputs)) == ["E0613"]
    run = rules.run("Mixed Roll", drawback="add_complication", **inputs)
    assert plain(run.results["threshold_successes"]) == [4, 4]


def test_teamwork_own_enhancement_above_three_is_refused(rules) -> None:  # type: ignore[no-untyped-def]
    """The roller's own Enhancement 4 is known before the dice: no Drawback, refused. With a
    Drawback: the helper's 8, 2 gives 1, the roller's 8, 2, 2 one success; 1 + 4 + 1 = 6
    against Difficulty 2, and nothing to flag."""
    inputs = {"pool": 3, "helpers": [2], "difficulty": 2, "enhancement": 4, "dice": [8, 2, 8, 2, 2]}
    assert refused(lambda: rules.run("Teamwork", **inputs)) == ["E0613"]
    run = rules.run("Teamwork", drawback="raise_difficulty", **inputs)
    assert plain(run.results) == {"help": 1, "successes": 1, "total_successes": 6, "outcome": "success",
                                  "threshold_successes": 4, "degree": "Divine", "over_soft_cap": False}


def test_team_roll_flags_help_above_three(rules) -> None:  # type: ignore[no-untyped-def]
    """Bram (Dexterity 2 + Athletics 2) helps Ayla (7 dice) with Enhancement 3: his 8, 2, 2, 2
    is one success, her 8 and six 2s one; 3 + 1 = 4 counts above 3 (A7 teamwork_cap=counts):
    flagged, not refused; total 1 + 3 + 1 = 5."""
    run = rules.run("Team Roll", as_=sheets(rules, "ayla", "bram"), attribute="Dexterity", skill="Athletics",
                    enhancement=3, dice=[8, 2, 2, 2, 8, 2, 2, 2, 2, 2, 2])
    assert (run.results["total_successes"], run.results["over_soft_cap"]) == (5, True)
    assert refused(lambda: rules.run("Team Roll", as_=sheets(rules, "ayla", "bram"), attribute="Dexterity",
                                     skill="Athletics", enhancement=4, dice=[2] * 11)) == ["E0613"]


def test_contest_above_three_needs_a_drawback(rules, cli) -> None:  # type: ignore[no-untyped-def]
    """Ayla (7 dice) against the Night Hunter (Dexterity 3 + Athletics 2: 5 dice), Enhancement 4.
    No Drawback: refused. With "antagonists get a free Enhancement": her one success + 4 = 5,
    his one success + 1 = 2; margin 3."""
    args = ["run", "d10-pool", "Contest", "--as", str(EXAMPLES / "ayla.yaml"), "--against",
            str(EXAMPLES / "hunter.yaml"), "--with", "attribute=Dexterity", "--with", "skill=Athletics",
            "--with", "defender_attribute=Dexterity", "--with", "defender_skill=Athletics", "--with", "enhancement=4",
            "--dice", "8,2,2,2,2,2,2,8,2,2,2,2", "--trace", "none"]
    bare = cli(*args)
    assert bare.code != 0 and "E0613" in bare.stderr and "Traceback" not in bare.stderr
    run = cli(*args, "--with", "drawback=antagonist_enhancement", "--json")
    results = json.loads(run.stdout)["results"]
    assert (results["total"], results["defender_total"], results["outcome"], results["margin"]) == (5, 2, "success", 3)


@pytest.mark.parametrize("procedure", ["Complex Action", "Opposed Complex Action"])
def test_complex_actions_above_three_need_a_drawback(rules, procedure: str) -> None:  # type: ignore[no-untyped-def]
    """An interval rolled with Enhancement 4: refused without a Drawback. With one, a single
    die showing 8 makes 1 + 4 = 5 against Difficulty 5: the one milestone needed (the
    defender's 2 misses)."""
    inputs: dict[str, Any] = {"pool": 1, "difficulty": 5, "milestones": 1, "enhancement": 4, "dice": [8]}
    if procedure == "Opposed Complex Action":
        inputs.update(defender_pool=1, dice=[8, 2])
    assert refused(lambda: rules.run(procedure, **inputs)) == ["E0613"]
    run = rules.run(procedure, drawback="add_complication", **inputs)
    assert (plain(run.results["outcome"]), run.results["milestones"]) == ("success", 1)


# ---------------------------------------------------------------- XB.15: the troupe's sheet


def troupe(tmp_path: Path, rules, players: int, momentum: int):  # type: ignore[no-untyped-def]
    path = tmp_path / f"troupe-{players}-{momentum}.yaml"
    path.write_text(f"name: Test Troupe\nstats:\n  Players: {players}\nresources:\n  Momentum: {momentum}\n")
    return rules.entity(str(path))


def test_w04_capacity_of_one_player(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """W04: 1 player, capacity 2: 5 Momentum gained from 0 holds 2 (the rest lost, A14)."""
    run = rules.run("Gain Momentum", as_=troupe(tmp_path, rules, 1, 0), points=5)
    assert (run.results["momentum"], run.results["capacity"]) == (2, 2)


def test_a_troupe_of_fewer_than_no_players_is_refused_as_read(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """-1 players make a capacity of -2: even the 0 Momentum the sheet gives is above it (E0710)."""
    assert refused(lambda: troupe(tmp_path, rules, -1, 0)) == ["E0710"]


@pytest.mark.parametrize("players", [0])
def test_a_troupe_of_no_players_is_refused(rules, tmp_path: Path, players: int) -> None:  # type: ignore[no-untyped-def]
    """XB.15: capacity twice the players; a troupe has at least one. Gaining 2 must never
    lower the pool, nor a failed roll's consolation (Ayla: one success, 8 then six faces
    below 8, against Difficulty 9)."""
    sheet = troupe(tmp_path, rules, players, 0)
    assert refused(lambda: rules.run("Gain Momentum", as_=sheet, points=2)) == ["E0613"]
    assert refused(lambda: rules.run("Roll", as_=[sheets(rules, "ayla")[0], sheet], attribute="Dexterity",
                                     skill="Athletics", difficulty=9, dice=[8, 2, 3, 4, 5, 6, 7],
                                     answers={"consolation": "take_momentum"})) == ["E0613"]


@pytest.mark.parametrize(("procedure", "inputs"), [
    ("Activate Knack", {"cost": 1}),
    ("Gain Momentum", {"points": 0}),
    ("Complex Action", {"pool": 1, "milestones": 1, "dice": [8]}),
])
def test_a_pool_above_its_capacity_is_refused(rules, tmp_path: Path, procedure: str,
                                              inputs: dict) -> None:  # type: ignore[no-untyped-def]
    """XB.15: 2 players hold at most 4 Momentum; a sheet with 9 is refused as it is read
    (E0710, above the cap), with 4 it plays (a Knack of 1 leaves 3)."""
    assert refused(lambda: rules.run(procedure, as_=troupe(tmp_path, rules, 2, 9), **inputs)) == ["E0710"]
    run = rules.run(procedure, as_=troupe(tmp_path, rules, 2, 4), **inputs)
    if procedure == "Activate Knack":
        assert run.results["momentum"] == 3


def test_troupe_refusal_from_the_command_line(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The refusal a user sees names the value: Players -1, with a help line, no traceback."""
    path = tmp_path / "bad.yaml"
    path.write_text("name: Bad Troupe\nstats:\n  Players: -1\n")
    run = cli("run", "d10-pool", "Gain Momentum", "--as", str(path), "--with", "points=2")
    assert run.code != 0 and "E0613" in run.stderr and "troupe_players = -1" in run.stderr
    assert "Traceback" not in run.stderr


# ---------------------------------------------------------------- CO.5 in a complex action


def test_complex_action_specialty_momentum(rules) -> None:  # type: ignore[no-untyped-def]
    """Troupe: 4 players (capacity 8), 3 Momentum. Limit 2, a Specialty, 1 milestone needed:
    interval 1 (2, 3, 4) fails, 1 + 1 = 2 (5); interval 2 (1, 1, 1) botches, 1 + 1 + 2 = 4
    (9, held at 8). The troupe gives up at the limit: failure, 8 Momentum."""
    run = rules.run("Complex Action", as_=sheets(rules, "troupe")[0], pool=3, milestones=1, interval_limit=2,
                    specialty=True, dice=[2, 3, 4, 1, 1, 1], answers={"extend": "give_up"})
    assert plain(run.results) == {"outcome": "failure", "milestones": 0, "intervals": 2, "momentum": 8}
    plain_run = rules.run("Complex Action", as_=sheets(rules, "troupe")[0], pool=3, milestones=1, interval_limit=1,
                          dice=[2, 3, 4], answers={"extend": "give_up"})
    assert plain_run.results["momentum"] == 3 + 1


def test_opposed_complex_action_specialty_botch(rules, cli) -> None:  # type: ignore[no-untyped-def]
    """Race to 1 within 1 interval, a Specialty: the actor botches (1), 1 + 1 + 2 = 4 Momentum
    (3 -> 7); the defender's 8 reaches the one milestone first: the defender wins."""
    run = cli("run", "d10-pool", "Opposed Complex Action", "--as", str(EXAMPLES / "troupe.yaml"), "--with", "pool=1",
              "--with", "defender_pool=1", "--with", "milestones=1", "--with", "interval_limit=1", "--with",
              "specialty=true", "--dice", "1,8", "--json")
    results = json.loads(run.stdout)["results"]
    assert results == {"outcome": "failure", "milestones": 0, "defender_milestones": 1, "momentum": 7}


# ---------------------------------------------------------------- A14: refuse_gain refuses the gain, not the roll

REFUSE = {"momentum_overflow": "refuse_gain"}


def test_refused_gain_leaves_the_roll_standing(rules, tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """2 players, 4 Momentum (full). Ayla botches (1 and six faces below 8, no success): 3
    Momentum would pass 4. Refused: nothing gained, the Botch stands; lost (the default): still
    4, 3 gained and cut at the capacity."""
    full = troupe(tmp_path, rules, 2, 4)
    inputs = {"as_": [sheets(rules, "ayla")[0], full], "attribute": "Dexterity", "skill": "Athletics", "difficulty": 2,
                  "dice": [1, 2, 3, 4, 5, 6, 7]}
    refused_gain = plain(rules.run("Roll", options=REFUSE, **inputs).results)
    assert (refused_gain["outcome"], refused_gain["momentum_gained"], refused_gain["momentum"]) == ("botch", 0, 4)
    lost = plain(rules.run("Roll", **inputs).results)
    assert (lost["outcome"], lost["momentum_gained"], lost["momentum"]) == ("botch", 3, 4)
    # A gain that fits is made: 2 of capacity 4, a plain failure (8 and six faces below 8
    # against Difficulty 9) gives 1.
    room = plain(rules.run("Roll", as_=[sheets(rules, "ayla")[0], troupe(tmp_path, rules, 2, 2)],
                           attribute="Dexterity", skill="Athletics", difficulty=9, dice=[8, 2, 3, 4, 5, 6, 7],
                           answers={"consolation": "take_momentum"}, options=REFUSE).results)
    assert (room["momentum_gained"], room["momentum"]) == (1, 3)


def test_refused_gain_in_a_contested_roll(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Ayla (7 dice: 1 and six 2s, a Botch) loses to the Hunter (5 dice, one 8): 3 Momentum
    would pass the full pool of 4: the loss stands, nothing gained."""
    run = rules.run("Contested Roll", as_=[sheets(rules, "ayla")[0], troupe(tmp_path, rules, 2, 4)],
                    against=sheets(rules, "hunter")[0], attribute="Dexterity", skill="Athletics",
                    defender_attribute="Dexterity", defender_skill="Athletics",
                    dice=[1, 2, 2, 2, 2, 2, 2, 8, 2, 2, 2, 2], options=REFUSE)
    results = plain(run.results)
    assert (results["outcome"], results["momentum_gained"], results["momentum"]) == ("botch", 0, 4)


def test_refused_gain_odds_are_exact(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Odds of a roll from a full pool under refuse_gain: nothing is ever gained, so the
    troupe holds 4 with certainty (before the fix: E0613)."""
    odds = rules.odds("Roll", as_=[sheets(rules, "ayla")[0], troupe(tmp_path, rules, 2, 4)], attribute="Dexterity",
                      skill="Athletics", difficulty=3, options={**REFUSE, "ten_again": "off"})
    assert dict(odds.results["momentum_gained"]) == {0: 1}
    assert dict(odds.results["momentum"]) == {4: 1}


def test_refused_gain_in_a_complex_action(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """2 players, 3 Momentum; one interval botches (1): 3 more would pass 4. Refused: the
    troupe keeps 3; lost: 4. Then the limit: no extra interval asked for (give_up)."""
    for options, expected in ((REFUSE, 3), ({}, 4)):
        run = rules.run("Complex Action", as_=troupe(tmp_path, rules, 2, 3), pool=1, milestones=1, interval_limit=1,
                        dice=[1], answers={"extend": "give_up"}, options=options)
        assert (plain(run.results["outcome"]), run.results["momentum"]) == ("failure", expected), options


# ---------------------------------------------------------------- CO.4 / A24: an owed Enhancement in any roll from the sheet


def owing(tmp_path: Path, rules):  # type: ignore[no-untyped-def]
    path = tmp_path / "ayla-owed.yaml"
    path.write_text("name: Ayla Reyes\nstats:\n  Dexterity: 4\n  Athletics: 3\n  Cunning: 3\n  Subterfuge: 3\n"
                    "conditions:\n- Advantage Owed(\"the rooftops\")\n")
    return rules.entity(str(path))


def test_owed_advantage_serves_a_mixed_roll(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Six dice (the smaller pool), one success (8): + Enhancement 1 owed = 2, meets
    Difficulty 2, not 3; the advantage is gone. On the same challenge it waits: 1 meets
    neither."""
    inputs = {"attributes": ["Dexterity", "Cunning"], "skills": ["Athletics", "Subterfuge"], "difficulties": [2, 3],
                  "dice": [8, 2, 2, 2, 2, 2], "answers": {"consolation": "fateful_encounter"}}
    used = rules.run("Mixed Roll", as_=owing(tmp_path, rules), challenge="the alley", **inputs)
    assert plain(used.results["outcomes"]) == ["success", "failure"] and used.state["actor"]["conditions"] == []
    kept = rules.run("Mixed Roll", as_=owing(tmp_path, rules), challenge="the rooftops", **inputs)
    assert plain(kept.results["outcomes"]) == ["failure", "failure"]
    assert kept.state["actor"]["conditions"] == ['Advantage Owed("the rooftops")']


def test_owed_advantage_serves_a_team_roll(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Bram's four dice (8, 2, 2, 2) give 1; Ayla's seven one success: 1 + 1 owed + 1 help = 3
    meets Difficulty 3, and the advantage is gone."""
    run = rules.run("Team Roll", as_=[owing(tmp_path, rules), sheets(rules, "bram")[0]], attribute="Dexterity",
                    skill="Athletics", difficulty=3, challenge="the alley", dice=[8, 2, 2, 2, 8, 2, 2, 2, 2, 2, 2])
    assert (run.results["total_successes"], plain(run.results["outcome"])) == (3, "success")
    assert run.state["actor"]["conditions"] == []


# ---------------------------------------------------------------- XB.12: the troupe's sheet is no helper


def test_team_roll_with_the_troupe_sheet(rules, cli) -> None:  # type: ignore[no-untyped-def]
    """Ayla, Bram and the troupe: Bram alone helps (4 dice: 8, 2, 2, 2, one success); Ayla's
    seven dice one success: 1 + 1 = 2 against Difficulty 1, threshold 1: Competent."""
    run = cli("run", "d10-pool", "Team Roll", *[a for n in ("ayla", "bram", "troupe") for a in ("--as", str(EXAMPLES / f"{n}.yaml"))],
              "--with", "attribute=Dexterity", "--with", "skill=Athletics", "--dice", "8,2,2,2,8,2,2,2,2,2,2", "--json")
    assert run.code == 0, run.stderr
    results = json.loads(run.stdout)["results"]
    assert (results["helper_pools"], results["total_successes"], results["degree"]) == ([4], 2, "Competent")
    alone = cli("run", "d10-pool", "Team Roll", "--as", str(EXAMPLES / "ayla.yaml"), "--as", str(EXAMPLES / "troupe.yaml"),
                "--with", "attribute=Dexterity", "--with", "skill=Athletics", "--dice", "8")
    assert alone.code != 0 and "E0613" in alone.stderr and "helper_sheets" in alone.stderr


# ---------------------------------------------------------------- whole numbers


@pytest.mark.parametrize(("kind", "name", "inputs"), [
    ("check", "action", {"pool": 2, "difficulty": Fraction(3, 2)}),
    ("check", "action", {"pool": 2, "enhancement": Fraction(1, 2)}),
    ("check", "action", {"pool": 2, "target_number": Fraction(15, 2)}),
    ("check", "Contested Action", {"pool": 1, "defender_pool": 1, "defender_enhancement": Fraction(1, 2)}),
    ("check", "Rating", {"rating": Fraction(5, 2)}),
    ("run", "Mixed Action", {"pools": [2], "difficulties": [Fraction(3, 2)]}),
    ("run", "Complex Action", {"pool": 2, "milestones": Fraction(3, 2)}),
    ("run", "Gain Momentum", {"points": Fraction(3, 2)}),
    ("run", "Activate Knack", {"cost": Fraction(1, 2)}),
])
def test_counts_are_whole_numbers(rules, kind: str, name: str, inputs: dict) -> None:  # type: ignore[no-untyped-def]
    call = rules.resolve if kind == "check" else rules.run
    extra = {"as_": sheets(rules, "troupe")[0]} if name in ("Gain Momentum", "Activate Knack") else {}
    assert refused(lambda: call(name, dice=[8, 8], **extra, **inputs)) == ["E0613"]


def test_half_a_difficulty_from_the_command_line(cli) -> None:  # type: ignore[no-untyped-def]
    """DB.6: the number of successes needed; 1.5 is no such number."""
    run = cli("resolve", "d10-pool", "action", "--with", "pool=2", "--with", "difficulty=1.5", "--dice", "8,2")
    assert run.code != 0 and "E0613" in run.stderr and "difficulty = 3/2" in run.stderr
    assert "Traceback" not in run.stderr


def test_momentum_without_the_troupe_names_its_sheet(cli) -> None:  # type: ignore[no-untyped-def]
    """XB.18: Momentum dice come from the troupe's pool; without its sheet the refusal says so."""
    run = cli("run", "d10-pool", "Contested Roll", "--as", str(EXAMPLES / "ayla.yaml"), "--against",
              str(EXAMPLES / "hunter.yaml"), "--with", "attribute=Dexterity", "--with", "skill=Athletics", "--with",
              "defender_attribute=Dexterity", "--with", "defender_skill=Athletics", "--with", "momentum_dice=1",
              "--dice", ",".join(["8"] * 13))
    assert run.code != 0 and "E0613" in run.stderr and "troupe_sheet_given" in run.stderr
