"""A character file's resources against their caps: a value above the cap (worked out from
the file's own stats and derived values) or below 0 is E0710 at the value; a cap the file's
stats cannot give is E0711. `runebook check` reports every one of a file; `--as` refuses
before anything runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.rules import load
from runebook.rulesets import RULESETS_DIR

# Mestezia (combat.rules): `resource HP (cap = Max HP, start = Max HP)` and
# `resource Exchanges (cap = 1, start = 1)`.
SHEET = """\
name: Tezca
stats:
  Max HP: 30
  Sturdiness: 1
  Speed: 3
  Defense: 11
resources:
{resources}"""


def _write(tmp_path: Path, text: str, name: str = "tezca.yaml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _where(text: str, line_text: str, value: str) -> tuple[int, int]:
    """Line and column (from 1) of ``value`` on the line that reads ``line_text``."""
    lines = text.splitlines()
    index = next(i for i, line in enumerate(lines) if line.strip() == line_text)
    return index + 1, lines[index].index(value, lines[index].index(":")) + 1


def _check(cli, path: str) -> tuple[int, list[dict]]:  # type: ignore[no-untyped-def]
    run = cli("check", "--format", "json", "--game", "mestezia", path)
    assert "Traceback" not in run.stderr
    return run.code, json.loads(run.stdout)["diagnostics"]


def test_hp_above_max_hp_is_reported_at_the_value(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    text = SHEET.format(resources="  HP: 40\n")
    path = _write(tmp_path, text)
    code, found = _check(cli, path)
    assert code == 1
    assert [(d["code"], d["line"], d["column"]) for d in found] == [("E0710", *_where(text, "HP: 40", "40"))]
    assert "expected at most 30 (the cap of HP: Max HP)" in found[0]["message"]
    assert found[0]["help"]
    shown = cli("check", "--game", "mestezia", path)
    line, column = _where(text, "HP: 40", "40")
    assert f"{path}:{line}:{column}: E0710" in shown.stderr
    rendered = shown.stderr.splitlines()
    at = next(i for i, text_line in enumerate(rendered) if text_line.endswith("HP: 40"))
    caret = rendered[at + 1]  # under the value: as many carets as it has characters
    assert (caret.index("^"), caret.count("^")) == (rendered[at].rindex("40"), 2)
    assert "help: " in shown.stderr


@pytest.mark.parametrize("command", [
    ("run", "mestezia", "Heal", "--with", "amount=5"),
    ("resolve", "mestezia", "skill check", "--with", "threshold=11", "--dice", "8,6,1"),
    ("odds", "mestezia", "skill check", "--with", "threshold=11"),
])
def test_as_refuses_the_file_before_running(cli, tmp_path: Path, command: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    text = SHEET.format(resources="  HP: 40\n")
    path = _write(tmp_path, text)
    run = cli(*command, "--as", path)
    assert run.code == 1
    assert "Traceback" not in run.stderr
    line, column = _where(text, "HP: 40", "40")
    assert f"{path}:{line}:{column}: E0710" in run.stderr
    assert run.stdout == ""  # nothing ran: no trace, no result


def test_at_the_cap_is_accepted(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = _write(tmp_path, SHEET.format(resources="  HP: 30\n  Exchanges: 1\n  FP: 0\n"))
    assert _check(cli, path) == (0, [])
    # At full HP, a heal of 5 heals nothing (HP stays at Max HP, 30).
    run = cli("run", "mestezia", "Heal", "--as", path, "--with", "amount=5", "--json")
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout)["results"]["healed"] == 0


def test_a_constant_cap(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    text = SHEET.format(resources="  Exchanges: 2\n")
    code, found = _check(cli, _write(tmp_path, text))
    assert code == 1
    assert [(d["code"], d["line"], d["column"]) for d in found] == [("E0710", *_where(text, "Exchanges: 2", "2"))]
    assert "expected at most 1 (the cap of Exchanges: 1)" in found[0]["message"]


def test_below_zero_is_refused(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    text = SHEET.format(resources="  FP: -1\n")  # FP has no cap, but no resource goes below 0
    code, found = _check(cli, _write(tmp_path, text))
    assert code == 1
    assert [(d["code"], d["line"], d["column"]) for d in found] == [("E0710", *_where(text, "FP: -1", "-1"))]
    assert "expected at least 0" in found[0]["message"]


def test_every_error_of_a_file_is_reported(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    text = SHEET.format(resources="  HP: 31\n  Exchanges: 5\n  FP: -2\n")
    code, found = _check(cli, _write(tmp_path, text))
    assert code == 1
    assert sorted((d["code"], d["line"], d["column"]) for d in found) == sorted([
        ("E0710", *_where(text, "HP: 31", "31")),
        ("E0710", *_where(text, "Exchanges: 5", "5")),
        ("E0710", *_where(text, "FP: -2", "-2")),
    ])


def _party(first_hp: int, second_hp: int) -> str:
    return (f"- name: Ana\n  stats:\n    Max HP: 20\n    Speed: 3\n  resources:\n    HP: {first_hp}\n"
            f"- name: Bo\n  stats:\n    Max HP: 12\n    Speed: 3\n  resources:\n    HP: {second_hp}\n")


def _party_where(text: str, hp: int, nth: int) -> tuple[int, int]:
    """Line and column of the ``nth`` (from 0) ``HP: hp`` line's value."""
    lines = text.splitlines()
    index = [i for i, line in enumerate(lines) if line.strip() == f"HP: {hp}"][nth]
    return index + 1, lines[index].index(str(hp)) + 1


def test_a_list_file_with_the_second_entity_wrong(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    text = _party(20, 13)  # Ana at her cap (20), Bo one above his (12)
    code, found = _check(cli, _write(tmp_path, text, "party.yaml"))
    assert code == 1
    assert [(d["code"], d["line"], d["column"]) for d in found] == [("E0710", *_party_where(text, 13, 0))]
    assert "'Bo' holds 13 HP; expected at most 12" in found[0]["message"]


def test_a_list_file_with_both_wrong(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    text = _party(25, 25)  # each above his own cap: 20 and 12
    code, found = _check(cli, _write(tmp_path, text, "party.yaml"))
    assert code == 1
    assert [(d["line"], d["column"]) for d in found] == [_party_where(text, 25, 0), _party_where(text, 25, 1)]
    assert ["at most 20" in found[0]["message"], "at most 12" in found[1]["message"]] == [True, True]


def test_a_cap_the_stats_cannot_give(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    text = "name: Stone Door\nstats:\n  Defense: 14\nresources:\n  HP: 8\n"  # no Max HP
    path = _write(tmp_path, text, "door.yaml")
    code, found = _check(cli, path)
    assert code == 1
    assert [(d["code"], d["line"], d["column"]) for d in found] == [("E0711", *_where(text, "HP: 8", "8"))]
    assert "cap of HP (Max HP) cannot be worked out for 'Stone Door'" in found[0]["message"]
    assert "has no 'Max HP'" in found[0]["message"]
    run = cli("run", "mestezia", "Heal", "--as", path, "--with", "amount=5")
    assert run.code == 1 and "E0711" in run.stderr and "Traceback" not in run.stderr


def test_a_cap_read_from_a_derived_value(tmp_path: Path) -> None:
    game = tmp_path / "game.rules"
    game.write_text("stats Will\n\nderive Limit = Will + 3\n\nresource Points (cap = Limit, start = Limit)\n\n"
                    "procedure Rest ()\n  gain Points 1\n  result left = resource(actor, Points)\n")
    rules = load(str(game))
    ok = _write(tmp_path, "name: Ada\nstats:\n  Will: 2\nresources:\n  Points: 5\n", "ok.yaml")
    assert rules.entity(ok).resources["Points"] == 5  # Will 2 + 3
    over = _write(tmp_path, "name: Ada\nstats:\n  Will: 2\nresources:\n  Points: 6\n", "over.yaml")
    with pytest.raises(RunebookError) as error:
        rules.entity(over)
    [diagnostic] = error.value.diagnostics
    assert (diagnostic.code, diagnostic.span.line, diagnostic.span.column) == ("E0710", 5, 11)
    assert "at most 5 (the cap of Points: Limit)" in diagnostic.message


def test_a_gain_is_capped_by_a_derived_value(tmp_path: Path) -> None:
    """`gain` works its cap out as the file check does: Will 2 + 3 caps Points at 5, so 4
    points and a gain of 1, then of 1 again, end at 5 (a cap reading a derived value stopped
    the run with E0207 before)."""
    game = tmp_path / "game.rules"
    game.write_text("stats Will\n\nderive Limit = Will + 3\n\nresource Points (cap = Limit, start = Limit)\n\n"
                    "procedure Rest ()\n  gain Points 1\n  let once = resource(actor, Points)\n  gain Points 1\n"
                    "  result once = once\n  result twice = resource(actor, Points)\n")
    rules = load(str(game))
    sheet = _write(tmp_path, "name: Ada\nstats:\n  Will: 2\nresources:\n  Points: 4\n", "ada.yaml")
    run = rules.run("Rest", as_=sheet, seed=1)
    assert (run.results["once"], run.results["twice"]) == (5, 5)


def _character_files() -> list[tuple[str, Path]]:
    """Every shipped example file that holds a character or a list of them."""
    found = []
    for path in sorted(RULESETS_DIR.glob("*/examples/**/*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        items = data if isinstance(data, list) else [data]
        if all(isinstance(item, dict) and "name" in item and {"stats", "resources", "conditions"} & set(item)
               for item in items):
            found.append((path.relative_to(RULESETS_DIR).parts[0], path))
    return found


def test_the_shipped_examples_pass(cli) -> None:  # type: ignore[no-untyped-def]
    files = _character_files()
    assert len(files) >= 45, len(files)  # the games ship dozens of character files
    for game, path in files:
        run = cli("check", "--game", game, str(path))
        assert run.code == 0, run.stderr


def test_a_saved_state_at_the_start_is_read_back(tmp_path: Path) -> None:
    """d10-pool: `resource Momentum (cap = 2 * Players, start = 0)`. A hero's sheet gives no
    Players, so the engine starts it at 0 Momentum; its saved state reads back, but 1
    Momentum (above that start, under a cap the sheet cannot give) is E0711."""
    rules = load("d10-pool")
    hero = rules.entity(str(RULESETS_DIR / "d10-pool" / "examples" / "ayla.yaml"))
    state = hero.state()
    saved = _write(tmp_path, yaml.safe_dump({k: state[k] for k in ("name", "stats", "resources")}), "saved.yaml")
    assert rules.entity(saved).resources["Momentum"] == 0
    state["resources"]["Momentum"] = 1
    more = _write(tmp_path, yaml.safe_dump({k: state[k] for k in ("name", "stats", "resources")}), "more.yaml")
    with pytest.raises(RunebookError) as error:
        rules.entity(more)
    [diagnostic] = error.value.diagnostics
    assert diagnostic.code == "E0711" and "'Ayla Reyes' has no 'Players'" in diagnostic.message
    assert "at most 0 (its start)" in (diagnostic.help or "")


@pytest.mark.parametrize("line, other", [("gain Points n", "spend"), ("spend Points n", "gain")])
def test_a_negative_gain_or_spend_is_refused(tmp_path: Path, line: str, other: str) -> None:
    """`gain Points -3` took points below 0 and `spend Points -3` added them past the cap."""
    game = tmp_path / "game.rules"
    game.write_text(f"stats Will\n\nresource Points (cap = 5, start = 2)\n\nprocedure Change (n = 1)\n  {line}\n"
                    "  result left = resource(actor, Points)\n")
    rules = load(str(game))
    sheet = _write(tmp_path, "name: Ada\nstats:\n  Will: 2\n", "ada.yaml")
    assert rules.run("Change", as_=sheet, n=1, seed=1).results["left"] == (3 if other == "spend" else 1)
    with pytest.raises(RunebookError) as error:
        rules.run("Change", as_=sheet, n=-3, seed=1)
    [diagnostic] = error.value.diagnostics
    assert diagnostic.code == "E0603" and "an amount of 0 or more" in diagnostic.message
    assert f"write '{other} Points ...'" in (diagnostic.help or "")
