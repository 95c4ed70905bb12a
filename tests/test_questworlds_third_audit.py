"""QuestWorlds, a third audit by cases derived from the spec (questworlds.md), run as a GM or a
tool runs them: the command line (in-process, ``--json``) and the Python API. Each test below
fails without its fix; expected values are worked out here from the spec's rules and tables.

Defects found and fixed:

1. §3.9 (escalating into a chained contest): `Escalate --with into=chained` gives the harm of
   the simple contest's roll, but `Chained Contest` could not start from it, so the escalated
   contest restarted unharmed (a hurt that should turn into an injury on the next defeat was
   lost). `Chained Contest` now takes `harm` and `opposition_harm` (hurt or injured; a side
   already dying has lost) with their penalties from round 2 on.
2. §3.9, §3.5 (escalating into a scored contest, T-14, T-24): an escalated complete victory
   scores 5 resolution points, which wins at once (first to 5), but `Scored Contest` silently
   cut a starting score of 5 to 4 and played on; a negative score was accepted. A start at 5
   now ends the contest before any round (T11 by the difference, T12/T13 at the climax), the
   parting shot offered first; scores outside 0 to 5 are refused (E0613).
3. §1.8, AMB-50 (a target of 0 or less): under `group_gm_roll=single`, the check `Against Roll`
   gave the forced defeat a degree by the result steps (a GM's fumble made it minor), where
   `Contest`, used under the default per-pairing roll, gives the resistance's margin over a
   failure (marginal): the same dice read differently by option.
4. §1.10, §3.7 (final action in a group extended contest, T17): "Spend 1 HP. This is a cost,
   not a bump." The final action was offered to members with no hero point, and the point it
   cost stayed in the member's pool, free to bump the final action's own roll. Now it needs
   and takes one of the member's `hero_points`.
5. §1.8 (modifiers): `Modified Contest`'s `penalties` added a positive number as a bonus
   (`penalties=3` raised the target by 3); a penalty above 0 is now refused (E0613).
6. §1.9, §3.5 (SRD 5.1.5, asymmetrical rounds): "Asymmetrical rounds (scored) ... may be used
   to make augments", "often ... an ability other than the one you've been waging the contest
   with". `Scored Contest` rolled the contest's ability in every round and an asymmetrical
   win changed nothing later. It now takes `asymmetrical_ability` and the tactic
   `augment_round`, whose win adds the augment's bonus (T2 by the round's degree; basic +3;
   quick: a fifth of the rating) to every later round, one per contest.
7. §3.6 (assists, T14): "The GM may shift the start by ±1 step": the group scored contests
   always started a teammate's assists at moderate (the `base` input moves every step alike,
   not one step of the ladder). They now take `assist_shift` (-1: low first; 1: high first),
   and under `assist_cap=forbid` the step past nearly impossible is refused one assist sooner.
8. §3.7 (extended contests, starting AP): "+ followers' relevant ability ratings". A
   follower rated with a mastery (5M: 25 AP) was refused by `Extended Contest` (`followers`
   took a plain number), and `Group Extended Contest` had no followers at all. Both now take
   ratings (a list, one per member, in the group contest).
9. §1.11, T3 (dying: "No actions allowed"; dead: gone): only `Hero Contest` refused a dying
   or dead actor; the scored, chained, extended and full extended contests, costly and
   Pyrrhic victories and mass efforts ran `--as` a dying character. They now refuse (E0613).
10. §1.11, §1.8 (states modify related abilities; "consequences ... all combine"): run `--as`
   a sheet, those procedures took the sheet's rating and ignored its states (a hurt's -3, a
   heroic bump), which only `Hero Contest` and `Final Action` read. They now add them to the
   `modifier` and `bumps` given (the starting AP of an extended contest too; in a mass effort,
   to the player's own roll).
11. §1.11 (benefits meet consequences, option `cancel`): "Heroic and dying have no numeric
   value, so they can only cancel". Under `cancel` a heroic state met a hurt (or a pumped
   state met dying) and both stayed, since only numeric states took part. Now under `cancel`
   any benefit and any consequence go together, heroic and dying included (the default
   `difference` still leaves them beside the other side's states, as the derived tests read).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.rules.procedures import CallbackDriver, ChoicePoint
from questworlds_helpers import Stop, aftermath_steps, level_name


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("questworlds")


def run_json(cli, *args: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """A command's `--json` results (the command must succeed)."""
    run = cli(*args, "--json")
    assert run.code == 0, run.show()
    return json.loads(run.stdout)["results"]


def refused(cli, *args: str) -> str:  # type: ignore[no-untyped-def]
    """A refused command's diagnostics (exit 1, nothing on stdout, no traceback)."""
    run = cli(*args)
    assert run.code == 1 and run.stdout == "" and "Traceback" not in run.stderr, run.show()
    return run.stderr


# ================================================================ 1. escalating into a chained contest

def test_an_escalated_hurt_carries_into_the_chained_contest(cli) -> None:  # type: ignore[no-untyped-def]
    """15 against 14, 16 vs 3: a failure against a success, a minor defeat: T21 hurts the player.
    Round 2 goes on hurt (15 - 3 = 12): 9 vs 10, both succeed and the higher roll wins, a
    marginal defeat; already hurt in this contest, the player is injured (-9 replaces -3). Round
    3 at 15 - 9 = 6: 1 vs 20, a critical against a fumble: the opponent is dying."""
    first = run_json(cli, "resolve", "questworlds", "escalate", "--with", "ability=15", "--with", "resistance=14",
                     "--with", "into=chained", "--dice", "16,3")
    assert (first["outcome"], first["degree"], first["harm"]) == ("defeat", "minor", "hurt")
    results = run_json(cli, "run", "questworlds", "chained contest", "--with", "ability=15", "--with", "resistance=14",
                       "--with", f"harm={first['harm']}", "--answer", "move=press_on", "--dice", "9,10,1,20")
    assert (results["winner"], results["harm"], results["penalty"]) == ("player", "injured", 9)
    assert results["opposition_harm"] == "dying"


def test_an_escalated_injury_makes_the_next_defeat_dying(cli) -> None:  # type: ignore[no-untyped-def]
    """Injured already (T21: "If already injured, Dying"): at 15 - 9 = 6, 9 vs 10 is a failure
    against a success, a minor defeat: the player is dying and the contest is over."""
    results = run_json(cli, "run", "questworlds", "chained contest", "--with", "ability=15", "--with", "resistance=14",
                       "--with", "harm=injured", "--answer", "move=press_on", "--dice", "9,10")
    assert (results["winner"], results["outcome"], results["harm"]) == ("opposition", "defeat", "dying")


def test_the_opposition_starts_hurt(rules) -> None:  # type: ignore[no-untyped-def]
    """The resistance hurt by the escalation fights at 14 - 3 = 11 (chained penalties apply to
    it by default): 5 vs 12 is a success against a failure, a minor victory, and the already
    hurt opponent is injured; then 1 vs 20 leaves it dying."""
    run = rules.run("chained contest", ability=15, resistance=14, opposition_harm="hurt", dice=[5, 12, 1, 20],
                    answers={"move": "press_on"})
    results = {k: level_name(v) for k, v in run.results.items()}
    assert (results["winner"], results["opposition_harm"], results["harm"]) == ("player", "dying", "unharmed")
    # Before round 1 the opponent's penalty is a hurt's (3); after it, an injury's (9), where a
    # fresh start would be hurt (3).
    seen: list[Any] = []

    def answer(point: ChoicePoint) -> str:
        seen.append(point.state["opposition_penalty"])
        if len(seen) == 2:
            raise Stop
        return "press_on"

    with pytest.raises(Stop):
        rules.run("chained contest", ability=15, resistance=14, opposition_harm="hurt", dice=[5, 12],
                  driver=CallbackDriver(answer))
    assert seen == [3, 9]


def test_a_dying_start_is_refused(cli) -> None:  # type: ignore[no-untyped-def]
    assert "E0613" in refused(cli, "run", "questworlds", "chained contest", "--with", "ability=15",
                              "--with", "resistance=14", "--with", "harm=dying", "--dice", "9,10")


# ================================================================ 2. escalating into a scored contest

def test_an_escalated_complete_victory_has_won_the_scored_contest(cli) -> None:  # type: ignore[no-untyped-def]
    """1 vs 20: a critical against a fumble, a complete victory: 5 resolution points (T10),
    the first side to 5 wins. Rising action, T11 row 5: a major victory, the opponent injured;
    no round is rolled (no dice given)."""
    first = run_json(cli, "resolve", "questworlds", "escalate", "--with", "ability=15", "--with", "resistance=14",
                     "--dice", "1,20")
    assert first["points"] == 5
    results = run_json(cli, "run", "questworlds", "scored contest", "--with", "ability=15", "--with", "resistance=14",
                       "--with", f"points={first['points']}", "--answer", "parting_shot=decline")
    assert (results["winner"], results["points"], results["opposition_points"]) == ("player", 5, 0)
    assert (results["degree"], results["opposition_consequence"], results["consequence"]) == ("major", "injured",
                                                                                              "unharmed")


def test_a_start_at_five_against_the_player_at_the_climax(cli) -> None:  # type: ignore[no-untyped-def]
    """At the climax the loser counts the points against them + 1 (T12): 5 + 1 = 6, injured,
    which T13 reads as a major victory for the opponent."""
    results = run_json(cli, "run", "questworlds", "scored contest", "--with", "ability=15", "--with", "resistance=14",
                       "--with", "opposition_points=5", "--with", "phase=climax")
    assert (results["winner"], results["consequence"], results["degree"]) == ("opposition", "injured", "major")


@pytest.mark.parametrize(("dice", "points", "degree", "harm"), [
    # 12 vs 3: both succeed, the higher roll wins: +1 (6), T11 row 6: major, injured.
    ("12,3", 6, "major", "injured"),
    # 3 vs 12: the shot's marginal defeat takes 1 back (4): the opponent is back in; 1 vs 20 then
    # scores 5 (9); the second shot, 9 vs 9, is a standoff: T11 row 9: complete, dead.
    ("3,12,1,20,9,9", 9, "complete", "dead"),
])
def test_the_parting_shot_after_an_escalated_knock_out(cli, dice: str, points: int, degree: str,  # type: ignore[no-untyped-def]
                                                       harm: str) -> None:
    results = run_json(cli, "run", "questworlds", "scored contest", "--with", "ability=15", "--with", "resistance=14",
                       "--with", "points=5", "--answer", "parting_shot=attempt", "--answer", "tactic=normal",
                       "--dice", dice)
    assert (results["points"], results["opposition_points"]) == (points, 0)
    assert (results["degree"], results["opposition_consequence"]) == (degree, harm)


@pytest.mark.parametrize("inputs", [["points=-1"], ["opposition_points=-2"], ["points=6"],
                                    ["points=5", "opposition_points=5"]])
def test_a_score_outside_the_race_is_refused(cli, inputs: list[str]) -> None:  # type: ignore[no-untyped-def]
    args = [arg for given in inputs for arg in ("--with", given)]
    assert "E0613" in refused(cli, "run", "questworlds", "scored contest", "--with", "ability=15",
                              "--with", "resistance=14", *args, "--dice", "9,10")


# ================================================================ 3. a forced defeat against a single GM roll

# Target 15 - 15 = 0: a defeat whatever the dice, by the resistance's steps above a failure, at
# least marginal: a fumble or a failure marginal, a success minor, a critical major.
FORCED = {20: "marginal_defeat", 17: "marginal_defeat", 5: "minor_defeat", 1: "major_defeat"}


def test_a_target_of_zero_reads_alike_under_both_gm_rolls(rules) -> None:  # type: ignore[no-untyped-def]
    for gm_face, pairing in FORCED.items():
        per_pairing = rules.run("group simple contest", abilities=[15], modifiers=[-15], resistance=14,
                                dice=[5, gm_face])
        single = rules.run("group simple contest", abilities=[15], modifiers=[-15], resistance=14,
                           dice=[gm_face, 5], options={"group_gm_roll": "single"})
        for run in (per_pairing, single):
            assert [level_name(p) for p in run.results["pairings"]] == [pairing], gm_face
            assert level_name(run.results["outcome"]) == "defeat"


def test_against_roll_forced_degree(cli) -> None:  # type: ignore[no-untyped-def]
    results = run_json(cli, "resolve", "questworlds", "against roll", "--with", "ability=15", "--with", "modifier=-15",
                       "--with", "resistance=14", "--with", "resistance_face=20", "--dice", "5")
    assert (results["outcome"], results["degree"], results["hero_degree"]) == ("defeat", "marginal", "marginal")


# ================================================================ 4. a final action costs a hero point

# Group extended contest, members 15 and 16 against 14. Round 1: member 1 stands aside, member
# 2 bids all 16 and rolls 20 vs 5, a fumble against a success: twice the bid, 16 - 32 = -16; the
# GM's exchange against member 1 is a standoff (9 vs 9). Round 2: member 2, out at -16 (not
# dying), may take a final action: 16 against 16, here 18 vs 5, a failure against a success (a
# minor defeat, which a hero point's bump would make a success: a different result).
FALL = [20, 5, 9, 9]
FINAL_ROLL = [18, 5]


def final_action_run(rules, hero_points: list[int]) -> tuple[list[str], dict[str, Any]]:  # type: ignore[no-untyped-def]
    """The choice points asked, and the state when round 3's declarations open."""
    asked: list[str] = []
    seen: dict[str, Any] = {}
    rounds = [0]

    def answer(point: ChoicePoint) -> str:
        if point.name == "group_action" and point.state["slot"] == 0:
            rounds[0] += 1
            if rounds[0] == 3:
                seen.update(point.state)
                raise Stop
        asked.append(point.name)
        chosen = {"group_action": "stand_aside" if point.state["slot"] == 0 else "exchange", "bid": "all_in",
                  "final_action": "act_finally", "opposition_target": "first_standing"}
        return chosen.get(point.name, "keep")

    with pytest.raises(Stop):
        rules.run("group extended contest", abilities=[15, 16], resistance=14, hero_points=hero_points,
                  dice=FALL + FINAL_ROLL + [9, 9], driver=CallbackDriver(answer))
    return asked, seen


def test_no_hero_point_no_final_action(rules) -> None:  # type: ignore[no-untyped-def]
    asked, seen = final_action_run(rules, [0, 0])
    assert "final_action" not in asked
    assert seen["ap"][1] == -16


def test_the_final_action_spends_the_point(rules) -> None:  # type: ignore[no-untyped-def]
    """With one point member 2 acts finally and pays it: the final action's own roll is offered
    no bump, and T17's minor defeat loses a quarter of the starting 16: -16 - 4 = -20."""
    asked, seen = final_action_run(rules, [0, 1])
    at_final = asked.index("final_action")
    assert "hero_point" not in asked[at_final:]
    assert (seen["ap"][1], seen["hero_left"][1]) == (-20, 0)


def test_a_second_point_may_bump_the_final_roll(rules) -> None:  # type: ignore[no-untyped-def]
    """With two points, one pays and the other may bump the roll (kept here): still -20, one left."""
    asked, seen = final_action_run(rules, [0, 2])
    assert "hero_point" in asked[asked.index("final_action"):]
    assert (seen["ap"][1], seen["hero_left"][1]) == (-20, 1)


# ================================================================ 5. a penalty is not a bonus

def test_a_positive_penalty_is_refused(cli) -> None:  # type: ignore[no-untyped-def]
    assert "E0613" in refused(cli, "resolve", "questworlds", "modified contest", "--with", "ability=15",
                              "--with", "resistance=14", "--with", "penalties=3", "--dice", "5,5")
    # Written negative, a hurt and an impairment (-3 - 6) lower 15 to 6.
    results = run_json(cli, "resolve", "questworlds", "modified contest", "--with", "ability=15",
                       "--with", "resistance=14", "--with", "penalties=-9", "--dice", "5,5")
    assert (results["rating"], results["target"]) == (6, 6)


def test_a_dead_start_is_refused_through_the_api(rules) -> None:  # type: ignore[no-untyped-def]
    """A refused input is a diagnostic, never a traceback (the API raises RunebookError)."""
    with pytest.raises(RunebookError, match="E0613"):
        rules.run("chained contest", ability=15, resistance=14, opposition_harm="dead", dice=[9, 10])


# ================================================================ 6. augmenting in a scored contest

def choices_file(folder: Path, answers: list[str]) -> str:
    path = folder / "choices.yaml"
    path.write_text("".join(f"- {a}\n" for a in answers), encoding="utf-8")
    return str(path)


def scored(cli, folder: Path, answers: list[str], dice: str, *extra: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """A scored contest, 15 against 14, the other ability 17, answers given as a choices file."""
    return run_json(cli, "run", "questworlds", "scored contest", "--with", "ability=15", "--with", "resistance=14",
                    "--with", "asymmetrical_ability=17", "--dice", dice, "--choices", choices_file(folder, answers),
                    *extra)


@pytest.mark.parametrize(("augment_dice", "option", "next_dice", "points", "opposition_points"), [
    # 17 rolls 1 vs 15: a critical against a failure, a major victory: +9 (T2). 15 + 9 = 24 is
    # 4M: 17 fails, the mastery bumps it to a success against 5's success, and 17 is the
    # higher roll: a marginal victory, 1 point. Then 1 vs 20: complete, 5 more: 6 to 0.
    ("1,15", [], "17,5", 6, 0),
    # 5 vs 3 with 17: both succeed, the higher roll wins: marginal, +3 (T2): 18 makes 17 a
    # success against 5, the higher roll: 1 point; then 5 more.
    ("5,3", [], "17,5", 6, 0),
    # Basic augments: any victory +3; quick augments: 17 / 5 = 3 on the win.
    ("1,15", ["--option", "augment_table=basic"], "17,5", 6, 0),
    ("1,15", ["--option", "augment_mode=quick"], "17,5", 6, 0),
    # With +3 only, 18 against 19 fails: a failure against a success, a minor defeat (2 against).
    ("5,3", [], "19,5", 5, 2),
])
def test_an_augmenting_round_raises_the_later_rounds(cli, tmp_path: Path, augment_dice: str, option: list[str],  # type: ignore[no-untyped-def]
                                                     next_dice: str, points: int, opposition_points: int) -> None:
    results = scored(cli, tmp_path, ["augment_round", "normal", "normal", "decline"], f"{augment_dice},{next_dice},1,20", *option)
    assert (results["winner"], results["points"], results["opposition_points"]) == ("player", points,
                                                                                     opposition_points)


def test_an_asymmetrical_round_rolls_the_other_ability(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """16 vs 3: with 17 a success against a success, the higher roll: the player wins the round
    and scores nothing (asymmetrical). With the contest's 15 it would be a failure against a
    success, 2 against. Then 1 vs 20: 5 to 0."""
    results = scored(cli, tmp_path, ["asymmetrical", "normal", "decline"], "16,3,1,20")
    assert (results["points"], results["opposition_points"]) == (5, 0)


def test_one_augment_per_contest(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    stderr = refused(cli, "run", "questworlds", "scored contest", "--with", "ability=15", "--with", "resistance=14",
                     "--dice", "5,3,9,10", "--choices", choices_file(tmp_path, ["augment_round", "augment_round"]))
    assert "E0613" in stderr and "augmented" in stderr


# ================================================================ 7. the GM shifts the assists' start

# Group scored contest, members 15 and 15 against 14, member 2 joining in round 2. Round 1:
# member 1 rolls 20 vs 5, a major defeat: 3 against. Round 2: member 1's standoff (9 vs 9),
# then member 2 assists member 1 (answer `1`).
ASSIST = {"abilities": [15, 15], "resistances": [14], "joins": [0, 2]}


def state_after_assists(rules, dice: list[int], answers: list[str], options: dict[str, str] | None = None,  # type: ignore[no-untyped-def]
                        procedure: str = "group scored contest", **inputs: Any) -> dict[str, Any]:
    """The group scored contest's state at the first choice past the answers given."""
    queue = list(answers)
    found: dict[str, Any] = {}

    def answer(point: ChoicePoint) -> str:
        if not queue:
            found.update(point.state)
            raise Stop
        return queue.pop(0)

    with pytest.raises(Stop):
        rules.run(procedure, dice=dice, driver=CallbackDriver(answer), options=options or {}, **ASSIST, **inputs)
    return found


@pytest.mark.parametrize(("shift", "dice", "against"), [
    # Shifted up, the first assist faces high (20): 5 vs 17, both succeed and 17 is higher, a
    # marginal defeat: no change, 3 (against moderate 14, 17 fails: a minor victory, 1).
    (1, [5, 17], 3),
    # Shifted down, it faces low (8): 5 vs 10, a success against a failure, a minor victory:
    # 3 - 2 = 1 (against 14, both succeed and 10 is higher: a marginal defeat, 3).
    (-1, [5, 10], 1),
])
@pytest.mark.parametrize("procedure", ["group scored contest", "full group scored contest"])
def test_the_assists_start_a_step_up_or_down(rules, procedure: str, shift: int, dice: list[int],  # type: ignore[no-untyped-def]
                                             against: int) -> None:
    state = state_after_assists(rules, [20, 5, 9, 9] + dice + [9, 9], ["normal", "normal", "1"], procedure=procedure,
                                assist_shift=shift)
    assert (state["against"][0], state["assists"][0]) == (against, 1)


def test_a_shifted_ladder_reaches_its_cap_sooner(rules) -> None:  # type: ignore[no-untyped-def]
    """Started at high, the fourth assist would be past nearly impossible: refused under
    assist_cap=forbid (unshifted, the fourth is nearly impossible and allowed)."""
    dice = [9, 9] + [9, 9, 9, 9] * 4 + [9, 9]
    answers = ["normal", "normal", "1"] + ["normal", "1"] * 3
    state = state_after_assists(rules, dice, answers, {"assist_cap": "forbid"})
    assert state["assists"][0] == 4
    with pytest.raises(RunebookError, match="E0613"):
        state_after_assists(rules, dice, answers, {"assist_cap": "forbid"}, assist_shift=1)


def test_a_shift_of_two_steps_is_refused(cli) -> None:  # type: ignore[no-untyped-def]
    assert "E0613" in refused(cli, "run", "questworlds", "group scored contest", "--with", "abilities=15",
                              "--with", "assist_shift=2", "--dice", "9,10")


# ================================================================ 8. followers add their AP

def first_state(rules, procedure: str, **inputs: Any) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    found: dict[str, Any] = {}

    def answer(point: ChoicePoint) -> str:
        found.update(point.state)
        raise Stop

    with pytest.raises(Stop):
        rules.run(procedure, dice=[9, 10], driver=CallbackDriver(answer), **inputs)
    return found


def test_a_mastered_follower_adds_its_number(rules) -> None:  # type: ignore[no-untyped-def]
    """15 + a follower of 5M (25): 40 AP to start with."""
    for procedure in ("extended contest", "full extended contest"):
        state = first_state(rules, procedure, ability=15, resistance=14, followers="5M")
        assert (state["ap"], state["start_ap"]) == (40, 40)


def test_group_extended_members_have_followers(rules) -> None:  # type: ignore[no-untyped-def]
    """Member 1: 15 + 1M (21) = 36; member 2 has none: 12. The starting AP (T17's base) too."""
    state = first_state(rules, "group extended contest", abilities=[15, 12], followers=["1M"], resistance=14)
    assert (list(state["ap"]), list(state["starts"])) == ([36, 12], [36, 12])


# ================================================================ 9. the dying take no actions

DYING = str(Path(__file__).resolve().parent.parent / "rulesets" / "questworlds" / "examples" / "dying_veteran.yaml")


@pytest.mark.parametrize("procedure", ["scored contest", "chained contest", "extended contest", "full extended contest",
                                       "costly automatic victory", "pyrrhic victory", "mass effort"])
def test_a_dying_actor_takes_no_action(cli, procedure: str) -> None:  # type: ignore[no-untyped-def]
    stderr = refused(cli, "run", "questworlds", procedure, "--as", DYING, "--with", "resistance=14", "--dice", "9,10")
    assert "E0613" in stderr and "not_dying_or_dead" in stderr


def test_the_dead_take_no_action(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sheet = tmp_path / "hero.yaml"
    sheet.write_text("name: Test Hero\nstats:\n  Ability: 15\nconditions: [Dead State]\n", encoding="utf-8")
    with pytest.raises(RunebookError, match="E0613"):
        rules.run("pyrrhic victory", as_=rules.entity(str(sheet)), resistance=14, dice=[9, 10])


# ================================================================ 10. a sheet's states count

def sheet_with(tmp_path: Path, rules, *conditions: str):  # type: ignore[no-untyped-def]
    sheet = tmp_path / "hero.yaml"
    sheet.write_text("name: Test Hero\nstats:\n  Ability: 15\nconditions: [" + ", ".join(conditions) + "]\n",
                     encoding="utf-8")
    return rules.entity(str(sheet))


def test_a_hurt_counts_in_a_pyrrhic_victory(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Hurt: 15 - 3 = 12 against 14. 14 fails, the Pyrrhic bump makes it a success against 10's
    success, and 14 is the higher roll: a marginal victory, dead (T6). Unhurt, 14 succeeds and
    is bumped to a critical: a minor victory, dying."""
    run = rules.run("pyrrhic victory", as_=sheet_with(tmp_path, rules, "Hurt State"), resistance=14, dice=[14, 10])
    assert (level_name(run.results["degree"]), level_name(run.results["state"])) == ("marginal", "dead")


def test_a_heroic_state_bumps_a_costly_victory(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Heroic: a bump up. 16 vs 5 at 15 against 14 is a failure against a success (a minor
    defeat: impaired); bumped, a success against a success, 16 higher: a marginal victory, no
    cost."""
    run = rules.run("costly automatic victory", as_=sheet_with(tmp_path, rules, "Heroic State"), resistance=14,
                    dice=[16, 5])
    results = {k: level_name(v) for k, v in run.results.items()}
    assert (results["contest_outcome"], results["degree"], results["state"]) == ("victory", "marginal", "unharmed")


def test_an_injury_lowers_the_starting_ap_and_the_rolls(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Injured (-9): 15 - 9 = 6 AP to start with."""
    state = first_state(rules, "extended contest", as_=sheet_with(tmp_path, rules, "Injured State"), resistance=14)
    assert (state["ap"], state["start_ap"]) == (6, 6)


def test_a_determining_mass_effort_reads_the_sheet(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Pumped (+6): 15 + 6 = 21 (1M) against 14: 17 fails, the mastery bumps it to a success
    against 5's success, 17 higher: a marginal victory (unpumped: a minor defeat)."""
    run = rules.run("mass effort", as_=sheet_with(tmp_path, rules, "Pumped State"), resistance=14, dice=[17, 5])
    assert (level_name(run.results["outcome"]), level_name(run.results["degree"])) == ("victory", "marginal")


def test_the_scored_contest_reads_the_sheet(cli) -> None:  # type: ignore[no-untyped-def]
    """The example patient is injured: 15 - 9 = 6. 9 vs 10: a failure against a success, a
    minor defeat, 2 against (unhurt, both succeed and 10 is higher: 1 against); 20 vs 5, a
    fumble against a success, a major defeat: 3 more, 5: knocked out (rising: 0 to 5,
    injured)."""
    patient = str(Path(DYING).with_name("patient.yaml"))
    results = run_json(cli, "run", "questworlds", "scored contest", "--as", patient, "--with", "resistance=14",
                       "--answer", "tactic=normal", "--dice", "9,10,20,5")
    assert (results["winner"], results["opposition_points"], results["consequence"]) == ("opposition", 5, "injured")


# ================================================================ 11. heroic and dying can cancel

def after_steps(rules, tmp_path: Path, steps: list[tuple[str, str]], option: str) -> tuple[list[str], dict[str, Any]]:  # type: ignore[no-untyped-def]
    """Aftermath after Aftermath on one character; the conditions left and the last results."""
    entity, results = aftermath_steps(rules, sheet_with(tmp_path, rules), steps, option)
    return sorted(c.name for c in entity.conditions), results


@pytest.mark.parametrize(("steps", "left"), [
    # A complete victory (heroic) then a marginal defeat (hurt): cancelled, nothing left.
    ([("victory", "complete"), ("defeat", "marginal")], []),
    # A major victory (invigorated) then a complete defeat (dying): cancelled.
    ([("victory", "major"), ("defeat", "complete")], []),
    # Heroic and invigorated, then a minor defeat (impaired): every one of them goes.
    ([("victory", "complete"), ("victory", "major"), ("defeat", "minor")], []),
])
def test_heroic_and_dying_cancel_under_cancel(rules, tmp_path: Path, steps: list[tuple[str, str]],  # type: ignore[no-untyped-def]
                                              left: list[str]) -> None:
    held, results = after_steps(rules, tmp_path, steps, "cancel")
    assert held == left
    assert (results["modifier"], results["bumps"]) == (0, 0)

