"""Homebrew content files that extend a built-in game, as authors would write them."""

from __future__ import annotations

from pathlib import Path

CASES = Path(__file__).resolve().parent / "cases" / "homebrew"


def test_mestezia_power_with_two_typos_gets_both_diagnostics(cli, snapshot) -> None:  # type: ignore[no-untyped-def]
    run = cli("check", str(CASES / "frost_lance.rules"))
    assert run.code == 1
    assert "E0203 unknown label 'Reslt'" in run.stderr
    assert "did you mean 'Result'?" in run.stderr
    assert "E0207 unknown name 'Strenght'" in run.stderr
    assert "did you mean 'Strength'?" in run.stderr
    assert run.stderr.replace(str(CASES) + "/", "") == snapshot


def test_mezzo_trait_with_misspelt_type(cli, snapshot) -> None:  # type: ignore[no-untyped-def]
    run = cli("check", str(CASES / "iron_resolve.rules"))
    assert run.code == 1
    assert "E0201 unknown entry type 'Templat'" in run.stderr or "E0201 unknown entry type 'Edge Templat'" in run.stderr
    assert "did you mean" in run.stderr
    assert run.stderr.replace(str(CASES) + "/", "") == snapshot


def test_clean_homebrew_passes(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("check", str(CASES / "clean_upgrade.rules"))
    assert run.code == 0, run.stderr
    assert "1 entries: no errors" in run.stdout


def test_game_option_replaces_the_extends_line(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    text = (CASES / "clean_upgrade.rules").read_text().replace("extends mestezia\n\n", "")
    (tmp_path / "upgrade.rules").write_text(text)
    assert cli("check", "--game", "Mestezia", str(tmp_path / "upgrade.rules")).code == 0
    without = cli("check", str(tmp_path / "upgrade.rules"))
    assert without.code == 1  # no vocabulary: the entry's kind is unknown


def test_homebrew_mechanics_are_checked_and_run_on_top_of_the_game(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    rules = tmp_path / "lucky.rules"
    rules.write_text("extends mestezia\n\ncheck Lucky Check (threshold)\n  roll dice = 3d10\n"
                     "  result grade = Grade[count(dice >= treshold)]\n")
    run = cli("check", str(rules))
    assert run.code == 1 and "E0207 unknown name 'treshold'" in run.stderr and "did you mean 'threshold'?" in run.stderr
    rules.write_text(rules.read_text().replace("treshold)", "threshold)"))
    assert cli("check", str(rules)).code == 0
    resolved = cli("resolve", str(tmp_path), "lucky check", "--with", "threshold=8", "--dice", "8,9,1", "--json")
    assert resolved.code == 0, resolved.stderr
    assert '"grade": "Medium"' in resolved.stdout  # Mestezia's Grade table, from the game it extends
