"""Content mistakes `check` used to pass: keyword typos, grades beyond the vocabulary's, tabs
in indentation; and carets that start on a value's first character."""

from __future__ import annotations

from pathlib import Path

POWER = """\
extends mestezia

Frost Bite
Cost: 2 CP
Target: Enemy in 5
Threshold: Target's Defense
Check: [Aim + Strength]
Result 2: [Grade + 3] Cold damage
Keywords: *Arcane Ranged Evocation Cold Strike*
"""


def _check(tmp_path: Path, cli, text: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "power.rules"
    path.write_text(text, encoding="utf-8")
    return cli("check", str(path))


def test_the_power_as_written_is_fine(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    run = _check(tmp_path, cli, POWER)
    assert run.code == 0, run.stderr


def test_a_keyword_typo(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    run = _check(tmp_path, cli, POWER.replace("Evocation", "Evocaton"))
    assert run.code == 1
    assert "power.rules:9:26: E0211 unknown keyword 'Evocaton'" in run.stderr
    assert "help: did you mean 'Evocation'?" in run.stderr
    # A word like no keyword is the author's own tag, not a typo.
    assert _check(tmp_path, cli, POWER.replace("Arcane", "Frostborn")).code == 0


def test_a_grade_beyond_the_vocabulary(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    run = _check(tmp_path, cli, POWER.replace("Result 2:", "Result 5:"))
    assert run.code == 1
    assert "power.rules:8:1: E0215 grade 5 is beyond 'Result' (grades 1 to 4)" in run.stderr
    assert _check(tmp_path, cli, POWER.replace("Result 2:", "Result 4:")).code == 0


def test_tabs_in_indentation(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "p.rules"
    path.write_text("procedure P (n: number = 1)\n\tlet a = n\n  \tresult r = a\n", encoding="utf-8")
    run = cli("check", str(path))
    assert run.code == 1
    assert "p.rules:2:1: E0120 a tab in indentation" in run.stderr
    assert "p.rules:3:3: E0120 a tab in indentation" in run.stderr
    assert "help: indent with spaces, two for each level" in run.stderr


def test_the_caret_of_a_typed_value_starts_on_it(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    run = _check(tmp_path, cli, POWER.replace("Check: [Aim + Strength]\n", "Invest: two\n"))
    assert run.code == 1
    assert "power.rules:7:9: E0206 'Invest' expects a number, found 'two'" in run.stderr
    assert " 7 | Invest: two\n   |         ^^^\n" in run.stderr


def test_one_broken_bracket_hides_nothing_else(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    text = (POWER.replace("Threshold: Target's Defense", "Threshold: [Target's Defense")
            .replace("Strength]", "Strenght]").replace("Result 2:", "Reslt 2:")
            .replace("Evocation", "Evocaton") + "Invest: two\n")
    run = _check(tmp_path, cli, text)
    assert run.code == 1
    found = [line.split(": ", 1)[1].split(" ", 1)[0] for line in run.stderr.splitlines()
             if line.startswith(str(tmp_path))]
    assert found == ["E0104", "E0207", "E0203", "E0211", "E0206"], run.stderr
    assert "power.rules:6:12: E0104 unclosed '['" in run.stderr
    assert "power.rules:7:15: E0207 unknown name 'Strenght'" in run.stderr


def test_a_forgotten_blank_line_between_entries(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    second = POWER.split("\n\n", 1)[1].replace("Frost Bite", "Frost Nip [Attack]")
    run = _check(tmp_path, cli, POWER + second)
    assert "power.rules:10:1: E0216 'Frost Nip [Attack]' looks like the start of another entry" in run.stderr
    assert "help: leave a blank line before it: a blank line ends an entry" in run.stderr
    assert "unknown name 'Attack'" not in run.stderr


def test_character_files_are_checked_against_their_game(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    repo = Path(__file__).resolve().parent.parent
    itzel = repo / "rulesets" / "mestezia" / "examples" / "itzel.yaml"
    assert cli("check", "--game", "mestezia", str(itzel)).code == 0
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: mestezia\nname: Bad\nstats:\n  Aimm: 2\n  Strength: two\n", encoding="utf-8")
    before = bad.read_bytes()
    run = cli("check", str(bad))
    assert run.code == 1
    assert "bad.yaml:4:3: E0701 unknown stat 'Aimm'" in run.stderr and "did you mean 'Aim'?" in run.stderr
    assert "bad.yaml:5:13: E0702 'Strength' expects a number or a rating" in run.stderr
    assert bad.read_bytes() == before
    lost = tmp_path / "lost.yaml"
    lost.write_text("name: Nobody\n", encoding="utf-8")
    run = cli("check", str(lost))
    assert run.code == 1 and "lost.yaml:1:1: E0007" in run.stderr and "--game GAME" in run.stderr
