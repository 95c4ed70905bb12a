"""Issue 14, part 5: defects found by trying the games as a GM would. Each test failed
before its fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError

REPO = Path(__file__).resolve().parent.parent
QW = REPO / "rulesets" / "questworlds"
MESTEZIA = REPO / "rulesets" / "mestezia"
SCORED_DICE = "3,10,17,2,2,18,9,9,20,5,1,20,4,12"


# ------------------------------------------------------- a condition listed several times


def _hero(tmp_path: Path, conditions: str) -> Path:
    path = tmp_path / "hero.yaml"
    path.write_text(f"name: Worn Hero\nstats:\n  Ability: 15\nconditions: [{conditions}]\n", encoding="utf-8")
    return path


def test_a_stacking_state_listed_twice_is_held_twice(tmp_path: Path) -> None:
    rules = interpreter.load("questworlds")
    hero = rules.entity(str(_hero(tmp_path, "Hurt State, Hurt State, Impaired State")))
    assert [str(c) for c in hero.conditions] == ["Hurt State", "Hurt State", "Impaired State"]


def test_listed_states_change_the_contest_by_the_book(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Two Hurts (-3 each) and an Impaired (-6) take 12 off 15: a target of 3, so a 9 fails;
    with one Hurt kept (the old reading) the target would have been 6."""
    path = _hero(tmp_path, "Hurt State, Hurt State, Impaired State")
    choices = tmp_path / "keep.yaml"
    choices.write_text("- keep\n", encoding="utf-8")
    run = cli("run", "questworlds", "hero contest", "--as", str(path), "--with", "resistance=14",
              "--dice", "9,9", "--choices", str(choices), "--json")
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout)["results"]["target"] == 15 - 3 - 3 - 6


def test_a_condition_that_does_not_stack_is_held_once(tmp_path: Path) -> None:
    rules = interpreter.load("questworlds")
    hero = rules.entity(str(_hero(tmp_path, "Heroic State, Heroic State")))
    assert [str(c) for c in hero.conditions] == ["Heroic State"]


# ------------------------------------------------------- `do NAME(...)` from a homebrew file


def _duel(tmp_path: Path) -> Path:
    folder = tmp_path / "duel"
    folder.mkdir()
    (folder / "duel.rules").write_text(
        "extends questworlds\n\n"
        "procedure Duel Of Wits (ability: rating = 15, resistance: rating = 14)\n"
        "  do Scored Contest(ability, resistance) as fight\n"
        "  result outcome = fight.outcome\n"
        "  result points = fight.points\n"
        "  result opposition_points = fight.opposition_points\n", encoding="utf-8")
    return folder


def test_a_homebrew_procedure_uses_a_games_scored_contest(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The same dice and answers give the same contest, used by `do` or run directly (the
    README's replay): inputs left at their defaults are bound, not left as nothing."""
    choices = str(QW / "examples" / "scored_choices.yaml")
    direct = cli("run", "questworlds", "scored contest", "--with", "ability=15", "--with", "resistance=14",
                 "--dice", SCORED_DICE, "--choices", choices, "--json")
    used = cli("run", str(_duel(tmp_path)), "Duel Of Wits", "--dice", SCORED_DICE, "--choices", choices, "--json")
    assert direct.code == 0 and used.code == 0, used.stderr
    mine, theirs = json.loads(used.stdout)["results"], json.loads(direct.stdout)["results"]
    assert "E0405" not in used.stderr
    assert (mine["outcome"], mine["points"], mine["opposition_points"]) == (
        theirs["outcome"], theirs["points"], theirs["opposition_points"])


# ------------------------------------------------------- errors name what caused them


def test_an_entry_line_error_points_at_the_entry_line(tmp_path: Path) -> None:
    """A name an entry's line reads that nothing gives is reported at that line, not 1:1."""
    folder = tmp_path / "brew"
    folder.mkdir()
    (folder / "powers.rules").write_text(
        "extends mestezia\n\nOdd Dare\nCheck: [Chosen Skills]\nThreshold: N + 10\n"
        "Result 2: The party gains one Breakthrough.\nKeywords: *Task Mastery*\n", encoding="utf-8")
    actor = tmp_path / "ana.yaml"
    actor.write_text("name: Ana\npowers: [Odd Dare]\n", encoding="utf-8")
    rules = interpreter.load(str(folder))
    with pytest.raises(RunebookError) as raised:
        rules.run("Odd Dare", as_=rules.entity(str(actor)), dice=[5, 5, 5], skills=2)
    first = raised.value.diagnostics[0]
    assert first.source.name.endswith("powers.rules") and first.span.line == 5, first


def test_a_creature_lacking_a_stat_is_named(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    door = tmp_path / "door.yaml"
    door.write_text("name: Stone Door\nstats:\n  Defense: 10\n", encoding="utf-8")
    run = cli("run", str(MESTEZIA / "homebrew"), "Mending Touch", "--as", str(MESTEZIA / "homebrew" / "mender.yaml"),
              "--against", str(door), "--dice", "9,9,9")
    assert run.code == 1 and "Traceback" not in run.stderr
    assert "'Stone Door' has no 'Max HP'" in run.stderr and "unknown name" not in run.stderr
    # the help names the user's file, and the homebrew line that read the stat
    assert f"{door} gives no 'Max HP'" in run.stderr
    assert "homebrew/powers.rules:13:" in run.stderr


# ------------------------------------------------------- Accept the Challenge


def _challenger(tmp_path: Path) -> str:
    path = tmp_path / "ana.yaml"
    path.write_text("name: Ana\nstats:\n  Perception: 2\npowers: [Accept the Challenge, Build Momentum]\n",
                    encoding="utf-8")
    return str(path)


def test_accept_the_challenge_runs(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The challenge example: Discipline plus Perception (4) against 12; 8 and 9 succeed, a
    Medium (Result 2: a Breakthrough)."""
    run = cli("run", "mestezia", "Accept the Challenge", "--as", _challenger(tmp_path), "--with", "threshold=12",
              "--with", "skills=4", "--dice", "8,9,3", "--json")
    assert run.code == 0, run.stderr
    results = json.loads(run.stdout)["results"]
    assert results["grade"] == "Medium" and results["threshold"] == 12


def test_accept_the_challenge_without_a_threshold_says_what_is_missing(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "mestezia", "Accept the Challenge", "--as", _challenger(tmp_path), "--dice", "8,9,3")
    assert run.code == 1 and "Challenge Threshold" not in run.stderr.split("\n")[0]
    assert "unknown name" not in run.stderr and "powers.rules:1:1" not in run.stderr


def test_an_actor_lacking_a_stat_a_power_reads_is_named(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A bare stat in a power's bracket ([Speed + 1]) is the actor's: a file without it is
    named, as a target's is, rather than "unknown name 'Speed'"."""
    itzel = (MESTEZIA / "examples" / "itzel.yaml").read_text(encoding="utf-8")
    slow = tmp_path / "itzel.yaml"
    slow.write_text("\n".join(line for line in itzel.splitlines() if "Speed" not in line) + "\n", encoding="utf-8")
    run = cli("run", "mestezia", "Berserker Charge", "--as", str(slow),
              "--against", str(MESTEZIA / "examples" / "inquisitor.yaml"), "--seed", "2")
    assert run.code == 1 and "Traceback" not in run.stderr
    assert "E0607 'Itzel' has no 'Speed'" in run.stderr and "unknown name" not in run.stderr
    assert f"{slow} gives no 'Speed'" in run.stderr
