"""Mestezia upgrades: To/Add and Replace/With applied to the powers they name.

The homebrew file rulesets/mestezia/homebrew/upgrades.rules (it `extends mestezia`) is
checked, its upgrades are listed against the powers they change, and a character who
owns one uses the changed power (the trace shows the changed line). An upgrade naming
no power is a diagnostic at its To line, from `check` and from `run`.
"""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from runebook import interpreter
from runebook.rulesets import RULESETS_DIR

MESTEZIA = RULESETS_DIR / "mestezia"
HOMEBREW = MESTEZIA / "homebrew"
UPGRADES = HOMEBREW / "upgrades.rules"
HEAVY = str(HOMEBREW / "itzel-heavy-swing.yaml")
ITZEL = str(MESTEZIA / "examples" / "itzel.yaml")
INQUISITOR = str(MESTEZIA / "examples" / "inquisitor.yaml")
XOCHITL = MESTEZIA / "examples" / "xochitl.yaml"
CULTIST = str(MESTEZIA / "examples" / "cultist.yaml")


@pytest.fixture(scope="module")
def homebrew():  # type: ignore[no-untyped-def]
    return interpreter.load(str(HOMEBREW))


def test_the_homebrew_file_checks_and_lists_what_each_upgrade_changes(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("check", str(UPGRADES))
    assert run.code == 0, run.stderr
    assert "Heavy Swing (To: Berserker Charge) applies to Berserker Charge" in run.stdout
    assert "Lullaby Adept (To: Sleep) applies to Sleep" in run.stdout
    assert "Quietus Focus (To: Quietus Attacks) applies to Sleep" in run.stdout
    data = json.loads(cli("check", "--format", "json", str(UPGRADES)).stdout)
    assert {r["entry"]: r["applies_to"] for r in data["references"]} == {
        "Heavy Swing": ["Berserker Charge"], "Lullaby Adept": ["Sleep"], "Quietus Focus": ["Sleep"]}


def test_the_books_upgrade_selects_by_keywords(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Clockwork Engineer (To: Sound or Electricity Attacks) changes no core power; a
    homebrew Sound attack is one it selects, a Sound utility is not."""
    core = cli("check", str(MESTEZIA))
    assert "Clockwork Engineer (To: Sound or Electricity Attacks) applies to no Power yet" in core.stdout
    brew = tmp_path / "sonic.rules"
    brew.write_text("extends mestezia\n\nThunder Clap\nCost: 2 CP\nResult: 5 damage\nKeywords: *Evocation Sound Attack*\n\n"
                    "Hum\nResult: 1 damage\nKeywords: *Sound Utility*\n\n"
                    "Static Jab\nResult: 2 damage\nKeywords: *Electricity Strike Attack*\n\n"
                    "Tinker\nTo: Sound or Electricity Attacks\nAdd: Result 3: The target is Dazed.\nKeywords: *Techno Upgrade*\n")
    data = json.loads(cli("check", "--format", "json", str(brew)).stdout)
    assert {r["entry"]: r["applies_to"] for r in data["references"]} == {"Tinker": ["Thunder Clap", "Static Jab"]}


def test_an_upgraded_power_in_a_run_and_its_trace(cli) -> None:  # type: ignore[no-untyped-def]
    """Heavy Swing replaces `[Weapon + Grade] damage` with `[Weapon + Grade + 2] damage`:
    the book's High charge (MZ-W04, 15 damage) deals 17 for its owner."""
    run = cli("run", str(HOMEBREW), "Berserker Charge", "--as", HEAVY, "--against", INQUISITOR, "--dice", "6,7,9",
              "--json")
    assert run.code == 0, run.stderr
    payload = json.loads(run.stdout)
    assert payload["results"]["damage"] == 17 and payload["results"]["grade"] == "High"
    assert payload["state"]["actor"]["resources"]["CP"] == 2
    upgrade = [e for e in payload["trace"] if e["kind"] == "amend"]
    assert [(e["expr"], e["value"]) for e in upgrade] == [
        ("Heavy Swing -> Berserker Charge", "Result: [Weapon + Grade + 2] damage")]
    assert upgrade[0]["file"].endswith("upgrades.rules") and upgrade[0]["line"] == 9
    lines = {e["expr"]: e["value"] for e in payload["trace"] if e["kind"] == "line"}
    assert lines["Berserker Charge: Result"] == "17 damage"
    text = cli("run", str(HOMEBREW), "Berserker Charge", "--as", HEAVY, "--against", INQUISITOR, "--dice", "6,7,9")
    assert "Heavy Swing -> Berserker Charge = Result: [Weapon + Grade + 2] damage" in text.stdout


def test_a_character_without_the_upgrade_uses_the_book_power(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", str(HOMEBREW), "Berserker Charge", "--as", ITZEL, "--against", INQUISITOR, "--dice", "6,7,9",
              "--json")
    payload = json.loads(run.stdout)
    assert payload["results"]["damage"] == 15
    assert not [e for e in payload["trace"] if e["kind"] == "amend"]


def test_upgraded_odds_match_an_enumeration(homebrew) -> None:  # type: ignore[no-untyped-def]
    odds = homebrew.odds("Berserker Charge", as_=homebrew.entity(HEAVY), against=homebrew.entity(INQUISITOR))
    damage: dict[int, Fraction] = {}
    for faces in product(range(1, 11), repeat=3):
        hits = sum(f + 6 >= 12 for f in faces)
        dealt = 12 + hits + 2 if hits else 0
        damage[dealt] = damage.get(dealt, Fraction(0)) + Fraction(1, 1000)
    assert dict(odds.results["damage"]) == damage


def _owner_of(tmp_path: Path, *traits: str) -> str:
    path = tmp_path / "caster.yaml"
    path.write_text(XOCHITL.read_text() + "traits:\n" + "".join(f"  - {t}\n" for t in traits))
    return str(path)


def test_add_gives_sleep_an_effect_at_medium(homebrew, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    caster = homebrew.entity(_owner_of(tmp_path, "Lullaby Adept"))
    run = homebrew.run("Sleep", as_=caster, against=homebrew.entity(CULTIST), dice=[9, 9, 1], skills=3)
    assert str(run.results["grade"]) == "Medium"
    assert "Unconscious" in run.state["target"]["conditions"]
    assert run.results["damage"] == 0  # Result 3 still needs a High
    plain = homebrew.run("Sleep", as_=homebrew.entity(str(XOCHITL)), against=homebrew.entity(CULTIST),
                         dice=[9, 9, 1], skills=3)
    assert "Unconscious" not in plain.state["target"]["conditions"]


def test_replace_in_a_cost_line_by_keyword_selection(homebrew, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    caster = homebrew.entity(_owner_of(tmp_path, "Quietus Focus"))
    run = homebrew.run("Sleep", as_=caster, against=homebrew.entity(CULTIST), dice=[9, 10, 9], skills=3)
    assert run.state["actor"]["resources"]["CP"] == 5 - 2
    lines = {e.text: e.value for e in run.trace if e.kind == "line"}
    assert lines["Sleep: Cost"] == "2 CP, 1 Sg"


def _bad_homebrew(tmp_path: Path, to: str) -> Path:
    folder = tmp_path / "brew"
    folder.mkdir()
    (folder / "bad.rules").write_text(f"extends mestezia\n\nWild Swing\nTo: {to}\nAdd: Result 3: The target is Prone.\n"
                                      "Keywords: *Berserker Upgrade*\n")
    return folder


def test_an_upgrade_naming_no_power_from_check(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = _bad_homebrew(tmp_path, "Berserker Charg")
    run = cli("check", str(folder / "bad.rules"))
    assert run.code == 1 and "Traceback" not in run.stderr
    assert "bad.rules:4:5: E0230 'To' names no Power 'Berserker Charg'" in run.stderr
    assert " 4 | To: Berserker Charg\n   |     ^^^^^^^^^^^^^^^" in run.stderr
    assert "help: did you mean 'Berserker Charge'?" in run.stderr


def test_an_upgrade_naming_no_power_from_run(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = _bad_homebrew(tmp_path, "Sleep or Berserker Chage")
    itzel = tmp_path / "itzel.yaml"
    itzel.write_text(Path(ITZEL).read_text())
    before = itzel.read_text()
    run = cli("run", str(folder), "Berserker Charge", "--as", str(itzel), "--against", INQUISITOR, "--dice", "6,7,9")
    assert run.code == 1 and "Traceback" not in run.stderr
    assert "E0230 'To' names no Power 'Berserker Chage'" in run.stderr
    assert "did you mean 'Berserker Charge'?" in run.stderr
    assert run.stdout == "" and itzel.read_text() == before


def test_a_replace_text_the_power_does_not_have(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    brew = tmp_path / "replace.rules"
    brew.write_text("extends mestezia\n\nCheap Charge\nTo: Berserker Charge\nReplace: [Weapon + 2] CP\n"
                    "With: [Weapon] CP\nKeywords: *Berserker Upgrade*\n")
    run = cli("check", str(brew))
    assert run.code == 1
    assert "replace.rules:5:10: E0231 '[Weapon + 2] CP' does not occur in Power 'Berserker Charge'" in run.stderr


SONIC = """extends mestezia

Thunder Clap
Cost: 2 CP
Target: Enemy
Threshold: Target's Defense
Check: [Will]
Result: 5 Sound damage
Keywords: *Evocation Sound Attack*

Stone Skin
Cost: 1 CP
Target: You
Threshold: 8
Check: [Will]
Effect 1: You are Protected 2.
Keywords: *Alchemy Earth Buf Utility*
"""


def _sonic(tmp_path: Path, *traits: str) -> tuple[object, object]:
    folder = tmp_path / "sonic"
    folder.mkdir(exist_ok=True)
    (folder / "sonic.rules").write_text(SONIC)
    caster = folder / "caster.yaml"
    caster.write_text("name: Tlaloc\nstats:\n  Will: 3\nresources:\n  CP: 5\npowers: [Thunder Clap, Stone Skin]\n"
                      + (f"traits: [{', '.join(traits)}]\n" if traits else ""))
    rules = interpreter.load(str(folder))
    return rules, rules.entity(str(caster))


def test_clockwork_engineer_adds_tier_plus_one_to_a_sound_attack(tmp_path: Path) -> None:
    """The book's upgrade: its Add text is kept as an `Add` line of the selected power, and
    Use Power adds the number after "goes up by" ([Tier+1]) to a hit."""
    rules, plain = _sonic(tmp_path)
    inquisitor = rules.entity(INQUISITOR)
    assert rules.run("Thunder Clap", as_=plain, against=inquisitor, dice=[9, 9, 9]).results["damage"] == 5
    rules, engineer = _sonic(tmp_path, "Clockwork Engineer")
    run = rules.run("Thunder Clap", as_=engineer, against=inquisitor, dice=[9, 9, 9])
    assert run.results["damage"] == 5 + (1 + 1)
    assert rules.run("Thunder Clap", as_=engineer, against=inquisitor, dice=[9, 9, 9], tier=2).results["damage"] == 8
    assert rules.run("Thunder Clap", as_=engineer, against=inquisitor, dice=[1, 1, 1]).results["damage"] == 0
    changes = [(e.text, e.value) for e in run.trace if e.kind == "amend"]
    assert changes and changes[0][0] == "Clockwork Engineer -> Thunder Clap"
    assert changes[0][1].startswith("Add: Sound or Electricity damage you deal goes up by [Tier + 1].")


def test_an_effect_of_a_power_aimed_at_you_lands_on_you(tmp_path: Path) -> None:
    rules, caster = _sonic(tmp_path)
    run = rules.run("Stone Skin", as_=caster, dice=[5, 1, 1])
    assert str(run.results["grade"]) == "Low"
    assert run.state["actor"]["conditions"] == ["Protected(2)"]
    assert run.state["actor"]["resources"]["CP"] == 4


def test_check_output_snapshots(cli, monkeypatch, tmp_path: Path, snapshot) -> None:  # type: ignore[no-untyped-def]
    """What a homebrew author sees: the notes for a clean file, and the diagnostics for an
    upgrade naming no power and a Replace text the power lacks."""
    monkeypatch.chdir(RULESETS_DIR.parent)
    clean = cli("check", "rulesets/mestezia/homebrew/upgrades.rules")
    (tmp_path / "bad.rules").write_text(
        "extends mestezia\n\nWild Swing\nTo: Sleep or Berserker Chage\nAdd: Result 3: The target is Prone.\n"
        "Keywords: *Berserker Upgrade*\n\nCheap Charge\nTo: Berserker Charge\nReplace: [Weapon + 2] CP\n"
        "With: [Weapon] CP\nKeywords: *Berserker Upgrade*\n")
    monkeypatch.chdir(tmp_path)
    bad = cli("check", "bad.rules")
    assert clean.code == 0 and bad.code == 1
    assert clean.show() + bad.show() == snapshot
