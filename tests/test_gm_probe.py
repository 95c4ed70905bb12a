"""Frictions a game master met running each game from the command line, for the first time."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MESTEZIA = ROOT / "rulesets" / "mestezia" / "examples"


@pytest.mark.parametrize(("key", "meant"), [("resource", "resources"), ("stat", "stats"), ("Stats", "stats")])
def test_a_misspelt_key_of_a_character_file_is_named_not_silently_kept(cli, tmp_path, key, meant):
    # `resource:` for `resources:` was kept as data: the cost was paid from the game's default CP.
    text = (MESTEZIA / "itzel.yaml").read_text().replace(f"\n{meant}:", f"\n{key}:")
    hero = tmp_path / "itzel.yaml"
    hero.write_text(text)
    run = cli("run", "mestezia", "Berserker Charge", "--as", str(hero),
              "--against", str(MESTEZIA / "inquisitor.yaml"), "--dice", "6,7,9")
    assert run.code == 1
    assert f"E0705 unknown key '{key}'" in run.stderr
    assert f"did you mean '{meant}'?" in run.stderr


def test_keys_of_their_own_are_still_kept_as_data(cli, tmp_path):
    hero = tmp_path / "hero.yaml"
    hero.write_text((MESTEZIA / "itzel.yaml").read_text() + "traits: [Brave]\nstate: calm\n")
    run = cli("run", "mestezia", "Berserker Charge", "--as", str(hero),
              "--against", str(MESTEZIA / "inquisitor.yaml"), "--dice", "6,7,9", "-q")
    assert run.code == 0, run.stderr
    assert "grade: High" in run.stdout


def test_a_power_run_or_weighed_is_named_in_the_header_not_only_its_procedure(cli):
    # The header said only `mestezia: Use Power`: which power was used was not in sight.
    run = cli("run", "mestezia", "berserker charge", "--as", str(MESTEZIA / "itzel.yaml"),
              "--against", str(MESTEZIA / "inquisitor.yaml"), "--dice", "6,7,9", "-q")
    assert run.code == 0, run.stderr
    assert run.stdout.splitlines()[0] == "mestezia: Berserker Charge (Use Power)"
    odds = cli("odds", "mestezia", "Berserker Charge", "--as", str(MESTEZIA / "itzel.yaml"),
               "--against", str(MESTEZIA / "inquisitor.yaml"), "--of", "damage >= 14")
    assert odds.code == 0, odds.stderr
    assert odds.stdout.splitlines()[0] == "Berserker Charge (Use Power): damage >= 14"


def test_a_procedure_or_check_run_by_its_own_name_keeps_its_header(cli):
    run = cli("run", "mestezia", "skill check", "--with", "threshold=11", "--dice", "8,6,1", "-q")
    assert run.stdout.splitlines()[0] == "mestezia: Skill Check"


D10 = ROOT / "rulesets" / "d10-pool" / "examples"


def test_a_misspelt_stat_of_a_character_suggests_the_one_meant(cli):
    # `--with defender_skill=Survivl` said only "Night Hunter has no such stat".
    run = cli("run", "d10-pool", "Contest", "--as", str(D10 / "ayla.yaml"), "--against", str(D10 / "hunter.yaml"),
              "--with", "attribute=Dexterity", "--with", "skill=Athletics", "--with", "defender_attribute=Cunning",
              "--with", "defender_skill=Survivl", "--dice", "8,9,2,3,4,5,6,9,8,1,1,1,2")
    assert run.code == 1
    assert "E0701 unknown stat 'Survivl'" in run.stderr
    assert "did you mean 'Survival'?" in run.stderr
    lacking = cli("run", "d10-pool", "Contest", "--as", str(D10 / "ayla.yaml"), "--against", str(D10 / "hunter.yaml"),
                  "--with", "attribute=Dexterity", "--with", "skill=Athletics", "--with", "defender_attribute=Cunning",
                  "--with", "defender_skill=Occult", "--dice", "8,9,2,3,4,5,6,9,8,1,1,1,2")
    assert "Night Hunter has no such stat" in lacking.stderr
    assert "did you mean 'Occult'" not in lacking.stderr


def test_the_help_of_trace_brief_says_what_it_keeps(cli):
    # It said "the dice, choices and tests": a brief trace shows no test, and does show the
    # procedures used and the changes of state (a CP spent).
    shown = " ".join(cli("run", "--help").stdout.split())
    assert "choices, procedures used and changes of state (brief)" in shown
    brief = cli("run", "mestezia", "Berserker Charge", "--as", str(MESTEZIA / "itzel.yaml"),
                "--against", str(MESTEZIA / "inquisitor.yaml"), "--dice", "6,7,9", "--trace", "brief")
    assert "  spend CP 4 (Itzel) = 2" in brief.stdout
    assert "  dice: 6 7 9 = 22" in brief.stdout
    assert "->" not in brief.stdout  # no test and its verdict


METTLE = ROOT / "rulesets" / "mettle" / "examples"


def test_a_combat_rounds_lists_say_whose_each_number_is(cli):
    # `mettle: [6, 0, 3, 2]` named no one: the GM had to know the fighters' order.
    run = cli("run", "mettle", "Combat Round", "--as", str(METTLE / "heroes.yaml"),
              "--against", str(METTLE / "bandits.yaml"), "--choices", str(METTLE / "round-choices.yaml"),
              "--dice", "1,2,3,4,5,6,3,3,1,5,6,2,2,6,1,4,5", "-q")
    assert run.code == 0, run.stderr
    lines = run.stdout.splitlines()
    assert "combatants: [Viktor, Kirin, Chief, Bandit]" in lines
    assert lines.index("combatants: [Viktor, Kirin, Chief, Bandit]") < lines.index("mettle: [6, 0, 3, 2]")


QUESTWORLDS = ROOT / "rulesets" / "questworlds" / "examples"


def test_an_input_given_as_the_name_of_the_actors_stat_says_to_give_its_value(cli):
    # `--with ability=Haughty` said only that a rating was expected.
    run = cli("resolve", "questworlds", "contest", "--as", str(QUESTWORLDS / "haughty_priestess.yaml"),
              "--with", "ability=Haughty", "--with", "resistance=14", "--dice", "10,3")
    assert run.code == 1
    assert "E0603 input 'ability' expects a rating" in run.stderr
    assert "'Haughty' is a stat of Ilsabet of the Seventh Gate, Haughty Priestess: give its value, " \
           "--with ability=19" in run.stderr
