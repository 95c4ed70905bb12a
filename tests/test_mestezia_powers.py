"""Using a Mestezia power end to end: cost, check, threshold, graded results, state.

Worked examples MZ-W04 (Berserker Charge), MZ-W09 (Sleep) and MZ-W11 (Bastion of Defense)
from the spec, with given dice; odds against an independent enumeration; options A5, A6,
A7; Sustain and Halt; and the refusals (a power not owned, a cost not paid, a trigger
that did not happen)."""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.rulesets import RULESETS_DIR

EXAMPLES = RULESETS_DIR / "mestezia" / "examples"
ITZEL, INQUISITOR = str(EXAMPLES / "itzel.yaml"), str(EXAMPLES / "inquisitor.yaml")
XOCHITL, CULTIST = str(EXAMPLES / "xochitl.yaml"), str(EXAMPLES / "cultist.yaml")


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return interpreter.load("mestezia")


def test_berserker_charge_from_the_book(cli) -> None:  # type: ignore[no-untyped-def]
    """MZ-W04: weapon cost 3, damage 12, +6 against Defense 12; 6, 7, 9 are all hits: High,
    12 + 3 = 15 damage, and [Weapon + 1] = 4 CP paid."""
    run = cli("run", "mestezia", "Berserker Charge", "--as", ITZEL, "--against", INQUISITOR,
              "--dice", "6,7,9", "--json")
    assert run.code == 0, run.stderr
    payload = json.loads(run.stdout)
    assert {k: payload["results"][k] for k in ("damage", "grade")} == {"damage": 15, "grade": "High"}
    assert payload["state"]["actor"]["resources"]["CP"] == 6 - 4
    assert payload["dice"] == [6, 7, 9]


def test_berserker_charge_odds_match_an_enumeration(rules) -> None:  # type: ignore[no-untyped-def]
    odds = rules.odds("Berserker Charge", as_=rules.entity(ITZEL), against=rules.entity(INQUISITOR))
    grades, damage = {}, {}
    for faces in product(range(1, 11), repeat=3):
        hits = sum(f + 6 >= 12 for f in faces)
        name = ["Fail", "Low", "Medium", "High"][min(hits, 3)]
        grades[name] = grades.get(name, Fraction(0)) + Fraction(1, 1000)
        dealt = 12 + min(hits, 3) if hits else 0
        damage[dealt] = damage.get(dealt, Fraction(0)) + Fraction(1, 1000)
    assert {str(k): v for k, v in odds.results["grade"].items()} == grades
    assert dict(odds.results["damage"]) == damage
    assert odds.residual == 0


def test_a_cost_that_cannot_be_paid(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    poor = tmp_path / "poor.yaml"
    poor.write_text(Path(ITZEL).read_text().replace("CP: 6", "CP: 3"))
    itzel = rules.entity(str(poor))
    with pytest.raises(RunebookError) as error:
        rules.run("Berserker Charge", as_=itzel, against=rules.entity(INQUISITOR), dice=[6, 7, 9])
    assert [d.code for d in error.value.diagnostics] == ["E0706"]
    assert itzel.resources["CP"] == 3  # unchanged


def test_a_power_the_character_does_not_have(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    novice = tmp_path / "novice.yaml"
    novice.write_text("name: Novice\nstats:\n  Attack: 1\n  Weapon Cost: 1\n  Weapon Damage: 4\n")
    with pytest.raises(RunebookError) as error:
        rules.run("Berserker Charge", as_=rules.entity(str(novice)), against=rules.entity(INQUISITOR), dice=[6, 7, 9])
    assert [d.code for d in error.value.diagnostics] == ["E0613"]
    assert error.value.diagnostics[0].help == "here Novice's file lists = nothing"


def test_an_unknown_power_has_a_suggestion(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "mestezia", "Berserker Charg", "--as", ITZEL, "--against", INQUISITOR, "--dice", "6,7,9")
    assert run.code == 1 and "Traceback" not in run.stderr
    assert "did you mean" in run.stderr and "Berserker Charge" in run.stderr


def _grade_name(hits: int) -> str:
    return ["Fail", "Low", "Medium", "High"][min(hits, 3)]


def test_sleep_from_the_book(cli) -> None:  # type: ignore[no-untyped-def]
    """MZ-W09: 6 CP at the reset, 1 spent on a move (Xochitl's file holds 5), Sleep costs
    3 CP and a surge: 2 CP and no surge left. Against Will 12 the grade is High: 12 Quietus
    damage and the target Unconscious (Effect 3)."""
    run = cli("run", "mestezia", "Sleep", "--as", XOCHITL, "--against", CULTIST, "--with", "skills=3",
              "--dice", "9,10,9", "--json")
    assert run.code == 0, run.stderr
    payload = json.loads(run.stdout)
    assert payload["results"]["grade"] == "High"
    assert payload["results"]["damage"] == 12
    assert payload["results"]["threshold"] == 12
    assert payload["state"]["actor"]["resources"]["CP"] == 2
    assert payload["state"]["actor"]["resources"]["Sg"] == 0
    assert "Unconscious" in payload["state"]["target"]["conditions"]
    lines = {e["expr"]: e["value"] for e in payload["trace"] if e["kind"] == "line"}
    assert lines["Sleep: Cost"] == "3 CP, 1 Sg"
    assert lines["Sleep: Effect 3"] == "The target is Unconscious."


def test_sleep_at_medium_deals_nothing_and_imposes_nothing(rules) -> None:  # type: ignore[no-untyped-def]
    run = rules.run("Sleep", as_=rules.entity(XOCHITL), against=rules.entity(CULTIST), dice=[9, 9, 1], skills=3)
    assert str(run.results["grade"]) == "Medium"
    assert run.results["damage"] == 0
    assert "Unconscious" not in run.state["target"]["conditions"]
    assert run.state["actor"]["resources"]["CP"] == 2  # paid all the same


def test_sleep_without_a_surge_is_refused_and_changes_nothing(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    spent = tmp_path / "spent.yaml"
    spent.write_text(Path(XOCHITL).read_text().replace("Sg: 1", "Sg: 0"))
    caster, target = rules.entity(str(spent)), rules.entity(CULTIST)
    with pytest.raises(RunebookError) as error:
        rules.run("Sleep", as_=caster, against=target, dice=[9, 10, 9], skills=3)
    assert [d.code for d in error.value.diagnostics] == ["E0706"]
    assert "Sg" in error.value.diagnostics[0].message
    assert caster.resources["CP"] == 5 and caster.resources["Sg"] == 0
    assert "Unconscious" not in [str(c) for c in target.conditions]


def test_sleep_odds_match_an_enumeration(rules) -> None:  # type: ignore[no-untyped-def]
    odds = rules.odds("Sleep", as_=rules.entity(XOCHITL), against=rules.entity(CULTIST), skills=3)
    damage: dict[int, Fraction] = {}
    for faces in product(range(1, 11), repeat=3):
        hits = sum(f + 3 >= 12 for f in faces)
        dealt = 12 if hits >= 3 else 0
        damage[dealt] = damage.get(dealt, Fraction(0)) + Fraction(1, 1000)
    assert dict(odds.results["damage"]) == damage


def test_sustain_repeats_the_check_against_the_original_threshold(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Sustain (spec §2.5): the power's check against the threshold it had (12). One success
    keeps Sleep going (A6 default); none ends it and Unconscious leaves the target."""
    asleep = tmp_path / "asleep.yaml"
    asleep.write_text(Path(CULTIST).read_text() + "conditions: [Unconscious]\n")
    common = ("run", "mestezia", "Sustain Effect", "--as", XOCHITL, "--against", str(asleep), "--with", "power=Sleep",
              "--with", "threshold=12", "--with", "skills=3", "--json")
    kept = json.loads(cli(*common, "--dice", "9,1,1").stdout)
    assert kept["results"]["sustained"] is True
    assert "Unconscious" in kept["state"]["target"]["conditions"]
    lost = json.loads(cli(*common, "--dice", "8,1,1").stdout)
    assert lost["results"]["sustained"] is False
    assert "Unconscious" not in lost["state"]["target"]["conditions"]
    stricter = json.loads(cli(*common, "--dice", "9,1,1", "--option", "halt_sustain_min_grade=keep_on_medium").stdout)
    assert stricter["results"]["sustained"] is False


def test_halt_ends_a_bad_effect_on_the_one_who_rolls(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # An Unconscious creature makes no checks (§2.11; test_mestezia_conditions_on_checks.py):
    # here the option that lets it try to halt.
    asleep = tmp_path / "asleep.yaml"
    asleep.write_text(Path(CULTIST).read_text() + "conditions: [Unconscious]\n")
    allowed = {"unconscious_checks": "sustain_and_halt"}
    run = rules.run("Halt Effect", power="Sleep", threshold=12, skills=3, as_=rules.entity(str(asleep)), dice=[9, 9, 1],
                    options=allowed)
    assert run.results["halted"] is True
    assert "Unconscious" not in run.state["actor"]["conditions"]
    held = rules.run("Halt Effect", power="Sleep", threshold=12, skills=3, as_=rules.entity(str(asleep)), dice=[1, 1, 1],
                     options=allowed)
    assert held.results["halted"] is False and "Unconscious" in held.state["actor"]["conditions"]


def _answers(*answers: str):  # type: ignore[no-untyped-def]
    from runebook.interpreter.rules.procedures import ScriptedDriver

    return ScriptedDriver(list(answers))


def test_bastion_of_defense_from_the_book(rules) -> None:  # type: ignore[no-untyped-def]
    """MZ-W11: the Evasion replaces the defense check (Defense+Health against the attack's
    threshold 10); totals 16, 10, 12 are High: resist 2, so an incoming 1 damage is 0."""
    caster = rules.entity(XOCHITL)
    run = rules.run("Bastion of Defense", as_=caster, dice=[10, 4, 6], skills=6, threshold=10, incoming=1,
                    driver=_answers("happened"))
    assert str(run.results["grade"]) == "High"
    assert run.results["resist"] == 2 and run.results["damage"] == 0
    assert run.results["taken"] == 0
    assert run.state["actor"]["resources"]["CP"] == 5 - 1
    assert run.choices == (("trigger_event", "happened"),)
    lines = {e.text: e.value for e in run.trace if e.kind == "line"}
    assert lines["Bastion of Defense: Trigger"] == "An enemy attacks you."
    bigger = rules.run("Bastion of Defense", as_=caster, dice=[10, 4, 6], skills=6, threshold=10, incoming=5,
                       driver=_answers("happened"))
    assert bigger.results["taken"] == 3


def test_a_reaction_whose_trigger_did_not_happen_is_refused(rules, cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    caster = rules.entity(XOCHITL)
    with pytest.raises(RunebookError) as error:
        rules.run("Bastion of Defense", as_=caster, dice=[10, 4, 6], skills=6, threshold=10,
                  driver=_answers("not_happened"))
    assert [d.code for d in error.value.diagnostics] == ["E0613"]
    assert caster.resources["CP"] == 5
    run = cli("run", "mestezia", "Bastion of Defense", "--as", XOCHITL, "--with", "skills=6", "--with", "threshold=10",
              "--dice", "10,4,6")
    assert run.code == 1 and "E0610" in run.stderr and "happened | not_happened" in run.stderr
    assert "Traceback" not in run.stderr
    answers = tmp_path / "answers.yaml"
    answers.write_text("- happened\n")
    ok = cli("run", "mestezia", "Bastion of Defense", "--as", XOCHITL, "--with", "skills=6", "--with", "threshold=10",
             "--dice", "10,4,6", "--choices", str(answers))
    assert ok.code == 0, ok.stderr
    assert ">> choose trigger_event: happened" in ok.stdout and "resist: 2" in ok.stdout


def test_a_power_without_a_threshold_needs_one(rules) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunebookError) as error:
        rules.run("Bastion of Defense", as_=rules.entity(XOCHITL), dice=[10, 4, 6], driver=_answers("happened"))
    assert [d.code for d in error.value.diagnostics] == ["E0613"]
    assert "power_threshold != none" in error.value.diagnostics[0].message


def test_option_ungraded_min_grade(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A5: Berserker Charge's Result line is ungraded; on a Fail it deals nothing by
    default, and [Weapon + Grade] = 12 + 0 with `ungraded_min_grade=from_fail`."""
    itzel, inquisitor = rules.entity(ITZEL), rules.entity(INQUISITOR)
    miss = rules.run("Berserker Charge", as_=itzel, against=inquisitor, dice=[1, 2, 3])
    assert str(miss.results["grade"]) == "Fail" and miss.results["damage"] == 0
    graze = rules.run("Berserker Charge", as_=itzel, against=inquisitor, dice=[1, 2, 3],
                      options={"ungraded_min_grade": "from_fail"})
    assert graze.results["damage"] == 12


def test_option_grade_cap_with_a_fourth_die(rules) -> None:  # type: ignore[no-untyped-def]
    """A7: with four dice all hitting, [Grade] is 4 (uncapped, the default) or 3."""
    itzel, inquisitor = rules.entity(ITZEL), rules.entity(INQUISITOR)
    four = rules.run("Berserker Charge", as_=itzel, against=inquisitor, dice=[6, 7, 9, 10], pool=4)
    assert str(four.results["grade"]) == "High" and four.results["damage"] == 12 + 4
    capped = rules.run("Berserker Charge", as_=itzel, against=inquisitor, dice=[6, 7, 9, 10], pool=4,
                       options={"grade_cap": "capped_at_3"})
    assert capped.results["damage"] == 12 + 3


def test_berserker_charge_trace_shows_each_line_in_the_books_order(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "mestezia", "Berserker Charge", "--as", ITZEL, "--against", INQUISITOR, "--dice", "6,7,9", "--json")
    lines = [(e["expr"], e["value"]) for e in json.loads(run.stdout)["trace"] if e["kind"] == "line"]
    # The Keywords (is it an Attack?) and the Threshold (which of the target's stats?) are read
    # before the roll: they say which conditions count on it (§2.1, A3).
    assert lines == [("Berserker Charge: Cost", "4 CP"), ("Berserker Charge: Before", "Walk up to 3 hexes"),
                     ("Berserker Charge: Target", "Enemy in 1"),
                     ("Berserker Charge: Keywords", "Berserker Melee Charge"),  # no weapon keywords in her file
                     ("Berserker Charge: Threshold", "Target's Defense"), ("Berserker Charge: Result", "15 damage")]


def test_sustain_without_a_threshold_reads_the_power_again(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    asleep = tmp_path / "asleep.yaml"
    asleep.write_text(Path(CULTIST).read_text() + "conditions: [Unconscious]\n")
    caster, target = rules.entity(XOCHITL), rules.entity(str(asleep))
    kept = rules.run("Sustain Effect", power="Sleep", skills=3, as_=caster, against=target, dice=[9, 1, 1])
    assert kept.results["sustained"] is True  # 9 + 3 reaches the cultist's Will of 12
    lost = rules.run("Sustain Effect", power="Sleep", skills=3, as_=caster, against=target, dice=[8, 1, 1])
    assert lost.results["sustained"] is False and "Unconscious" not in lost.state["target"]["conditions"]
    assert "Unconscious" in [str(c) for c in target.conditions]  # the file's entity is untouched
