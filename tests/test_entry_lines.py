"""Game-neutral tests of the constructs that read content lines as text and that let one
entry change another: `pay`, `impose`, `lift`, `line_text`, `number_in`, `meets`,
`line(..., default)`, and the label flags `refers KIND`, `adds`, `replaces`."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.rules.entries import number_in
from runebook.interpreter.rules.listed import named
from runebook.interpreter.rules.procedures import ScriptedDriver

GAME = """\
stats Might
names Level

kind Spell
  types Spell
  keywords Frost, Flame
  Cost: text
  While: text
  Check: expression
  Result: text, graded, repeatable
  Effect: text, graded, repeatable
  Keywords: keywords, required

kind Boon
  types Boon
  On: text, refers Spell
  Plus: text, after On, adds
  Swap: text, replaces
  For: text, after Swap
  Keywords: keywords, required

resource Mana (start = 5)
resource Focus (start = 1)
condition Frozen (type = body)
condition Dizzy (type = mind)

check Roll (bonus = 0)
  roll die = 1d6
  result total = die + bonus

procedure Cast (spell: Spell, fallback = 0)
  require meets(actor, line_text(spell, "While"))
  pay line_text(spell, "Cost")
  let roll = Roll(line(spell, "Check", 0, fallback))
  let Level = roll.total
  impose line_text(spell, "Effect", Level) on target
  result dealt = number_in(line_text(spell, "Result", Level), "# * damage")

procedure Freeze And Thaw (spell: Spell)
  impose line_text(spell, "Effect") on target
  lift line_text(spell, "Effect") on target
  result done = true

Ice Bolt [Spell]
Cost: 2 Mana, 1 Focus
Check: [Might]
Result: [Might + Level] frost damage
Effect 5: The target is Frozen and Dizzy.
Keywords: *Frost*

Spark [Spell]
Cost: 1 Mana
Result: [Level] flame damage
Keywords: *Flame*

Hex [Spell]
Cost: 1 Mana
While: Dizzy
Result: 1 damage
Keywords: *Frost*

uses entry text
"""

BOONS = """\
Bitter Cold [Boon]
On: Ice Bolt
Swap: [Might + Level] frost damage
For: [Might + Level + 2] frost damage
Keywords: *Boon*

Fire Lore [Boon]
On: Flame Spells
Plus: Effect 1: The target is Dizzy.
Keywords: *Boon*
"""


@pytest.fixture
def game(tmp_path: Path) -> Path:
    folder = tmp_path / "neutral"
    folder.mkdir()
    (folder / "game.rules").write_text(GAME)
    (folder / "boons.rules").write_text(BOONS)
    (folder / "mage.yaml").write_text("name: Mage\nstats:\n  Might: 2\nspells: [Ice Bolt, Spark, Hex]\n")
    (folder / "adept.yaml").write_text(
        "name: Adept\nstats:\n  Might: 2\nspells: [Ice Bolt, Spark]\nboons: [Bitter Cold, Fire Lore]\n")
    (folder / "dummy.yaml").write_text("name: Dummy\nstats:\n  Might: 0\n")
    return folder


def _rules(game: Path):  # type: ignore[no-untyped-def]
    return interpreter.load(str(game))


def test_number_in_reads_by_pattern() -> None:
    assert number_in("12 frost damage", "# * damage") == 12
    assert number_in("7 damage", "# * damage") == 7
    assert number_in("Resist 2 damage", "resist #") == 2
    assert number_in("no number here", "# * damage") == 0
    assert number_in("deal -3 damage", "# damage") == -3


def test_named_finds_whole_words_longest_first() -> None:
    assert named("The target is Frozen and Dizzy.", ["Dizzy", "Frozen"]) == [("Frozen", None), ("Dizzy", None)]
    assert named("Protected 2 and Very Protected", ["Protected", "Very Protected"]) == [
        ("Protected", 2), ("Very Protected", None)]
    assert named("Frozenness", ["Frozen"]) == []


def test_pay_spends_every_listed_resource_and_impose_applies_named_conditions(game: Path) -> None:
    rules = _rules(game)
    mage, dummy = rules.entity(str(game / "mage.yaml")), rules.entity(str(game / "dummy.yaml"))
    run = rules.run("Ice Bolt", as_=mage, against=dummy, dice=[3])
    assert run.results["dealt"] == 2 + 5  # Might 2 + Level (3 + 2)
    assert run.state["actor"]["resources"] == {"Mana": 3, "Focus": 0}
    assert [str(c) for c in run.state["target"]["conditions"]] == ["Frozen", "Dizzy"]
    lines = [e.to_dict() for e in run.trace if e.kind == "line"]
    assert {"Ice Bolt: Cost": "2 Mana, 1 Focus", "Ice Bolt: Effect 5": "The target is Frozen and Dizzy."}.items() \
        <= {d["expr"]: d["value"] for d in lines}.items()
    low = rules.run("Ice Bolt", as_=mage, against=dummy, dice=[1])
    assert low.state["target"]["conditions"] == []  # Effect 5 needs a Level of 5
    assert mage.resources == {"Mana": 5, "Focus": 1}  # runs change copies


def test_lift_removes_the_named_conditions(game: Path) -> None:
    rules = _rules(game)
    mage, dummy = rules.entity(str(game / "mage.yaml")), rules.entity(str(game / "dummy.yaml"))
    run = rules.run("Freeze And Thaw", spell="Ice Bolt", as_=mage, against=dummy)
    states = [e.to_dict() for e in run.trace if e.kind == "state"]
    assert [s["expr"] for s in states] == ["apply Frozen (Dummy)", "apply Dizzy (Dummy)",
                                           "remove Frozen (Dummy)", "remove Dizzy (Dummy)"]
    assert run.state["target"]["conditions"] == []


def test_while_a_cost_too_high_and_a_cost_naming_no_resource(game: Path) -> None:
    rules = _rules(game)
    mage, dummy = rules.entity(str(game / "mage.yaml")), rules.entity(str(game / "dummy.yaml"))
    with pytest.raises(RunebookError) as error:
        rules.run("Hex", as_=mage, against=dummy, dice=[3])
    assert [d.code for d in error.value.diagnostics] == ["E0613"]  # While: Dizzy, and the mage is not
    assert error.value.diagnostics[0].help == "here Mage is not = Dizzy"
    poor = game / "poor.yaml"
    poor.write_text("name: Poor\nstats:\n  Might: 2\nresources:\n  Mana: 1\nspells: [Ice Bolt]\n")
    poor_mage = rules.entity(str(poor))
    with pytest.raises(RunebookError) as error:
        rules.run("Ice Bolt", as_=poor_mage, against=dummy, dice=[3])
    assert [d.code for d in error.value.diagnostics] == ["E0706"]
    assert poor_mage.resources == {"Mana": 1, "Focus": 1}


def test_unknown_resource_in_a_cost_line(game: Path) -> None:
    text = (game / "game.rules").read_text().replace("Cost: 2 Mana, 1 Focus", "Cost: 2 Manna")
    (game / "game.rules").write_text(text)
    rules = _rules(game)
    mage, dummy = rules.entity(str(game / "mage.yaml")), rules.entity(str(game / "dummy.yaml"))
    with pytest.raises(RunebookError) as error:
        rules.run("Ice Bolt", as_=mage, against=dummy, dice=[3])
    (diagnostic,) = error.value.diagnostics
    assert diagnostic.code == "E0705" and "Mana" in (diagnostic.help or "")
    assert mage.resources["Mana"] == 5


def test_line_with_a_default_for_an_entry_without_the_line(game: Path) -> None:
    rules = _rules(game)
    mage, dummy = rules.entity(str(game / "mage.yaml")), rules.entity(str(game / "dummy.yaml"))
    assert rules.run("Spark", as_=mage, against=dummy, dice=[3]).results["dealt"] == 3
    assert rules.run("Spark", as_=mage, against=dummy, dice=[3], fallback=4).results["dealt"] == 7


def test_refers_selects_by_name_and_by_keywords(game: Path, cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("check", "--format", "json", str(game))
    assert run.code == 0, run.stdout
    import json

    references = {r["entry"]: r["applies_to"] for r in json.loads(run.stdout)["references"]}
    assert references == {"Bitter Cold": ["Ice Bolt"], "Fire Lore": ["Spark"]}
    text = cli("check", str(game))
    assert "note: " in text.stdout and "Fire Lore (On: Flame Spells) applies to Spark" in text.stdout


def test_refers_naming_nothing_is_a_diagnostic_at_the_line(game: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (game / "boons.rules").write_text(BOONS.replace("On: Ice Bolt", "On: Ice Blot"))
    run = cli("check", str(game))
    assert run.code == 1 and "Traceback" not in run.stderr
    assert "E0230 'On' names no Spell 'Ice Blot'" in run.stderr
    assert "did you mean 'Ice Bolt'?" in run.stderr
    assert "boons.rules:2:5:" in run.stderr
    ran = cli("run", str(game), "Ice Bolt", "--as", str(game / "mage.yaml"), "--against", str(game / "dummy.yaml"),
              "--dice", "3")
    assert ran.code == 1 and "E0230" in ran.stderr and "Traceback" not in ran.stderr


def test_replaces_text_that_is_not_there(game: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (game / "boons.rules").write_text(BOONS.replace("Swap: [Might + Level] frost", "Swap: [Might] cold"))
    run = cli("check", str(game))
    assert run.code == 1 and "E0231 '[Might] cold damage' does not occur in Spell 'Ice Bolt'" in run.stderr


def test_refers_to_an_unknown_kind(game: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (game / "game.rules").write_text(GAME.replace("refers Spell", "refers Spel"))
    run = cli("check", str(game))
    assert run.code == 1 and "E0303 unknown kind 'Spel'" in run.stderr and "did you mean 'Spell'?" in run.stderr


def test_an_owner_of_boons_uses_the_changed_spells(game: Path) -> None:
    rules = _rules(game)
    adept, mage, dummy = (rules.entity(str(game / f)) for f in ("adept.yaml", "mage.yaml", "dummy.yaml"))
    plain = rules.run("Ice Bolt", as_=mage, against=dummy, dice=[3])
    changed = rules.run("Ice Bolt", as_=adept, against=dummy, dice=[3])
    assert changed.results["dealt"] == plain.results["dealt"] + 2
    upgrades = [e.to_dict() for e in changed.trace if e.kind == "amend"]
    assert upgrades[0]["expr"] == "Bitter Cold -> Ice Bolt"
    assert upgrades[0]["value"] == "Result: [Might + Level + 2] frost damage"
    # Fire Lore (On: Flame Spells) adds `Effect 1: The target is Dizzy.` to Spark.
    spark = rules.run("Spark", as_=adept, against=dummy, dice=[3])
    assert [str(c) for c in spark.state["target"]["conditions"]] == ["Dizzy"]
    assert rules.run("Spark", as_=mage, against=dummy, dice=[3]).state["target"]["conditions"] == []


def test_odds_of_an_upgraded_spell_match_an_enumeration(game: Path) -> None:
    rules = _rules(game)
    adept, dummy = rules.entity(str(game / "adept.yaml")), rules.entity(str(game / "dummy.yaml"))
    odds = rules.odds("Ice Bolt", as_=adept, against=dummy)
    expected: dict[int, Fraction] = {}
    for face in range(1, 7):
        level = face + 2
        dealt = 2 + level + 2
        expected[dealt] = expected.get(dealt, Fraction(0)) + Fraction(1, 6)
    assert dict(odds.results["dealt"]) == expected


def test_new_lines_print_back_the_same(game: Path) -> None:
    from runebook.dsl.parser import parse_rules
    from runebook.dsl.source import Source

    text = "procedure P (x: Spell)\n  pay line_text(x, \"Cost\") on target\n  impose \"a\"\n  lift \"b\" on actor\n"
    parsed = parse_rules(Source("p.rules", text))
    printed = str(parsed.blocks[0])
    assert "pay line_text(x, \"Cost\") on target" in printed and "lift \"b\" on actor" in printed
    kind = "kind K\n  types K\n  keywords A, B\n  To: text, refers K\n"
    assert "keywords A, B" in str(parse_rules(Source("k.rules", kind)).blocks[0])


def test_a_trigger_is_a_choice_recorded_in_the_trace(game: Path) -> None:
    text = GAME + "\nprocedure React (spell: Spell)\n  choose event: happened | not_yet\n  require event == happened\n  result ok = true\n"
    (game / "game.rules").write_text(text)
    rules = _rules(game)
    # Two procedures take a Spell: `run` uses the first (Cast); React is run by name.
    mage, dummy = rules.entity(str(game / "mage.yaml")), rules.entity(str(game / "dummy.yaml"))
    run = rules.run("React", spell="Spark", as_=mage, against=dummy, driver=ScriptedDriver(["happened"]))
    assert run.choices == (("event", "happened"),)
