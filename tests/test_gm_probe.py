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
