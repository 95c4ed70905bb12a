"""`runebook check` on homebrew Mezzo traits: the ruleset's own `check Trait Extras` (kind Trait,
rulesets/mezzo/vocabulary.rules) refuses extras without their prerequisites and wrong prices
(spec mezzo.md §3.19, A37)."""

from __future__ import annotations

from pathlib import Path

CASES = Path(__file__).resolve().parent / "cases" / "mezzo"


def test_a_specialty_without_two_other_extras(cli) -> None:  # type: ignore[no-untyped-def]
    out = cli("check", str(CASES / "storm_blade.rules"))
    assert out.code == 1
    assert "storm_blade.rules:4:1: E0232 Trait 'Storm Blade' is refused by its check 'Trait Extras'" in out.stderr
    assert "'Ability Extras' requires bought.specialty == 0" in out.stderr
    assert "Traceback" not in out.stderr


def test_a_wrong_price(cli) -> None:  # type: ignore[no-untyped-def]
    """Three extras, the first free: two edge slots, not one."""
    out = cli("check", str(CASES / "quick_hands.rules"))
    assert out.code == 1
    assert "E0232 Trait 'Quick Hands'" in out.stderr
    assert "price == bought.edge_slots" in out.stderr
    assert "here bought.extras = 3; price = 1; bought.edge_slots = 2" in out.stderr


def test_a_trait_that_keeps_the_rules(cli) -> None:  # type: ignore[no-untyped-def]
    out = cli("check", str(CASES / "thunder_step.rules"))
    assert out.code == 0, out.stderr


def test_the_catalogue_passes_its_own_check(cli) -> None:  # type: ignore[no-untyped-def]
    out = cli("check", "rulesets/mezzo")
    assert out.code == 0, out.stderr
