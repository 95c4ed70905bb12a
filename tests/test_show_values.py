"""`show NAME = expression`: values a ruleset marks as worth showing, reported by `resolve` and
`run` beside the results and left out of `odds`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runebook import interpreter
from runebook.dsl import ast
from runebook.dsl.parser import parse_rules
from runebook.dsl.source import Source

REPO = Path(__file__).resolve().parent.parent
MESTEZIA = REPO / "rulesets" / "mestezia"

GAME = """\
function bonus_of(skill) = skill // 2

check Strike (skill: number = 4)
  roll die = 1d6
  show bonus = bonus_of(skill)
  result total = sum(die) + bonus

procedure Bout (skill: number = 4)
  let first = Strike(skill)
  show guard = skill + 1
  result total = first.total
"""


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("show")
    (folder / "game.rules").write_text(GAME, encoding="utf-8")
    return folder


def test_a_show_line_parses_and_prints_back() -> None:
    rules = parse_rules(Source("g.rules", GAME))
    check = next(b for b in rules.blocks if isinstance(b, ast.CheckDecl))
    line = next(s for s in check.statements if isinstance(s, ast.ShowLine))
    assert (line.name, str(line)) == ("bonus", "show bonus = bonus_of(skill)")


@pytest.mark.parametrize("skill", [1, 4, 7])
def test_resolve_reports_the_value_and_uses_it(game: Path, skill: int) -> None:
    rules = interpreter.load(str(game))
    resolved = rules.resolve("strike", skill=skill, dice=[3])
    assert resolved.shown == {"bonus": skill // 2}
    assert resolved.results == {"total": 3 + skill // 2}  # a shown value is no result
    assert resolved.to_dict()["shown"] == {"bonus": skill // 2}


def test_run_reports_its_own_and_its_checks_values(cli, game: Path) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", str(game), "bout", "--with", "skill=5", "--dice", "3", "--json")
    assert run.code == 0, run.stderr
    payload = json.loads(run.stdout)
    assert payload["shown"] == {"bonus": 2, "guard": 6} and payload["results"] == {"total": 5}
    text = cli("run", str(game), "bout", "--with", "skill=5", "--dice", "3")
    assert text.stdout.rstrip().endswith("total: 5\nshown bonus: 2\nshown guard: 6")


def test_odds_leave_shown_values_out(game: Path) -> None:
    rules = interpreter.load(str(game))
    assert set(rules.odds("bout", skill=4).results) == {"total"}
    assert set(rules.odds("strike", skill=4).results) == {"total"}


def test_no_unused_warning_for_a_shown_value(cli, game: Path) -> None:  # type: ignore[no-untyped-def]
    run = cli("check", str(game))
    assert run.code == 0 and "E0628" not in run.stderr


def test_mestezia_shows_the_attack_and_defense_bonus(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Itzel is Lucky (+1 on every check, §2.11) and her target Unconscious, which grants her
    Advantage (+1): +2 on her attack. The target's defense: Unconscious -5, Concealed 2 from
    everyone +2 against a Directed attack: -3."""
    itzel = (MESTEZIA / "examples" / "itzel.yaml").read_text(encoding="utf-8") + "conditions: [Lucky]\n"
    (tmp_path / "itzel.yaml").write_text(itzel, encoding="utf-8")
    foe = (MESTEZIA / "examples" / "inquisitor.yaml").read_text(encoding="utf-8")
    (tmp_path / "foe.yaml").write_text(foe + "conditions: [Unconscious, \"Concealed(2)\"]\n", encoding="utf-8")
    run = cli("run", "mestezia", "Berserker Charge", "--as", str(tmp_path / "itzel.yaml"),
              "--against", str(tmp_path / "foe.yaml"), "--dice", "6,7,9", "--json")
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout)["shown"] == {"terrain_bonus": 0, "attack_bonus": 2, "defense_bonus": -3}
