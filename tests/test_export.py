"""`runebook export` and `runebook schema`: every shipped game exports, and the export and the
example characters validate against the schemas (jsonschema, draft 2020-12)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator

from runebook.dsl.diagnostics import RunebookError
from runebook.dsl.export import export
from runebook.dsl.loader import load_game
from runebook.dsl.model import build_model
from runebook.dsl.schema import schema
from runebook import interpreter
from runebook.interpreter.rules import load

REPO = Path(__file__).resolve().parent.parent
GAMES = ("mezzo", "mestezia", "d10-pool", "mettle", "questworlds")


@pytest.fixture(scope="module")
def exports() -> dict[str, dict]:  # type: ignore[type-arg]
    return {g: json.loads(json.dumps(export(build_model(load_game(g))))) for g in GAMES}


def test_the_schemas_are_schemas() -> None:
    for name in ("export", "character"):
        Draft202012Validator.check_schema(schema(name))


@pytest.mark.parametrize("game", GAMES)
def test_every_game_exports_and_validates(exports, game: str) -> None:  # type: ignore[no-untyped-def]
    data = exports[game]
    errors = [e.message for e in Draft202012Validator(schema("export")).iter_errors(data)]
    assert errors == []
    assert data["game"] == game and len(data["entries"]) == len(load_game(game).entries)


def test_an_entry_and_a_procedure_as_exported(exports) -> None:  # type: ignore[no-untyped-def]
    mestezia = exports["mestezia"]
    sleep = next(e for e in mestezia["entries"] if e["name"] == "Sleep")
    assert (sleep["kind"], sleep["file"], sleep["line"]) == ("Power", "powers.rules", 14)
    result = next(line for line in sleep["lines"] if line["label"] == "Result")
    assert (result["grade"], result["value"]["text"]) == (3, "12 Quietus damage")
    charge = next(e for e in mestezia["entries"] if e["name"] == "Berserker Charge")
    assert any("Weapon + Grade" in x for line in charge["lines"] if line["value"]
               for x in line["value"]["expressions"])
    contest = next(p for p in exports["questworlds"]["procedures"] if p["name"] == "Scored Contest")
    assert {"winner", "points"} <= set(contest["results"])
    assert any(c["name"] == "tactic" for c in contest["choices"])


def test_the_schema_refuses_what_is_not_an_export(exports) -> None:  # type: ignore[no-untyped-def]
    validator = Draft202012Validator(schema("export"))
    broken = copy.deepcopy(exports["mezzo"])
    broken["entries"][0]["lines"][0]["label"] = 7
    assert list(validator.iter_errors(broken))
    del broken["vocabulary"]
    assert list(validator.iter_errors(broken))


def test_every_example_character_validates() -> None:
    validator = Draft202012Validator(schema("character"))
    checked = 0
    for game in GAMES:
        rules = load(game)
        for path in sorted((REPO / "rulesets" / game).rglob("*.yaml")):
            try:
                rules.entities(str(path))
            except RunebookError:
                continue  # not a character file (answers, a tour)
            assert [e.message for e in validator.iter_errors(yaml.safe_load(path.read_text()))] == [], path
            checked += 1
    assert checked >= 30
    assert list(validator.iter_errors({"stats": {"Aim": 2}}))  # no name


def test_the_commands(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("export", "d10-pool")
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout)["game"] == "d10-pool"
    printed = json.loads(cli("schema", "character").stdout)
    assert printed == schema("character")
    assert cli("export", "no-such-game").code == 2


JSON_RUNS = {
    "roll": [("roll", "2d6+3[fire]", "--seed", "1", "--json"), ("roll", "4d6kh3", "--dice", "6,2,5,1", "--json")],
    "resolve": [("resolve", "mestezia", "skill check", "--with", "threshold=11", "--dice", "8,6,1", "--json")],
    "run": [("run", "mestezia", "Berserker Charge", "--as", "rulesets/mestezia/examples/itzel.yaml", "--against",
             "rulesets/mestezia/examples/inquisitor.yaml", "--dice", "6,7,9", "--json")],
    "odds": [("odds", "2d6", "--json"), ("odds", "1d20", "2d10", "--json"),
             ("odds", "mestezia", "skill check", "--with", "threshold=11", "--json"),
             ("odds", "questworlds", "scored contest", "--with", "ability=15", "--with", "resistance=14", "--json")],
}


@pytest.mark.parametrize("name", sorted(JSON_RUNS))
def test_json_outputs_validate(name: str, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(REPO)
    validator = Draft202012Validator(schema(name))
    Draft202012Validator.check_schema(schema(name))
    for args in JSON_RUNS[name]:
        run = cli(*args)
        assert run.code == 0, run.stderr
        assert [e.message for e in validator.iter_errors(json.loads(run.stdout))] == [], args
    assert list(validator.iter_errors({"nothing": "here"}))


def test_to_json_is_what_the_command_prints(cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(REPO)
    assert interpreter.roll("4d6kh3", dice=[6, 2, 5, 1]).to_json() + "\n" == \
        cli("roll", "4d6kh3", "--dice", "6,2,5,1", "--json").stdout
    rules = load("mestezia")
    resolved = rules.resolve("skill check", {"threshold": "11"}, dice=[8, 6, 1])
    assert resolved.to_json() + "\n" == cli("resolve", "mestezia", "skill check", "--with", "threshold=11",
                                            "--dice", "8,6,1", "--json").stdout
