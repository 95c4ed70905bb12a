"""`runebook check --format sarif`: a SARIF 2.1.0 log that validates against the schema and
says the same as the text output (codes, lines, columns, levels)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from runebook.dsl.diagnostics import MESSAGES, Diagnostic, render_sarif
from runebook.dsl.source import Source, Span

SCHEMA = json.loads((Path(__file__).parent / "schemas" / "sarif-2.1.0-subset.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft7Validator(SCHEMA, format_checker=jsonschema.FormatChecker())

#: A homebrew file with three mistakes on lines 5, 6 and 9 (a misspelt stat, an unknown
#: label, an unclosed bracket).
HOMEBREW = """\
extends mestezia

Quick Jab [Attack]
Cost: 2 CP
Check: [Attak + 2]
Rezult: [Weapon] damage

Slow Jab [Attack]
Check: [Attack + 2
"""


def _sarif(cli, *paths: str) -> dict:  # type: ignore[no-untyped-def, type-arg]
    run = cli("check", "--format", "sarif", *paths)
    assert "Traceback" not in run.stderr
    return {"code": run.code, "log": json.loads(run.stdout)}


def _text_locations(cli, *paths: str) -> list[tuple[str, int, int]]:  # type: ignore[no-untyped-def]
    run = cli("check", *paths)
    return [(m[2], int(m[0]), int(m[1])) for m in re.findall(r"^\S+?:(\d+):(\d+): (E\d{4}) ", run.stderr, re.M)]


def test_a_file_with_mistakes_gives_a_valid_log_that_matches_the_text_output(cli, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    Path("powers.rules").write_text(HOMEBREW, encoding="utf-8")
    out = _sarif(cli, "powers.rules")
    assert out["code"] == 1
    log = out["log"]
    VALIDATOR.validate(log)
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "runebook" and driver["version"]
    results = run["results"]
    found = [(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"],
              r["locations"][0]["physicalLocation"]["region"]["startColumn"]) for r in results]
    assert found == _text_locations(cli, "powers.rules")
    assert {line for _, line, _ in found} >= {5, 6, 9}
    for result in results:
        rule = driver["rules"][result["ruleIndex"]]
        assert rule["id"] == result["ruleId"]
        assert rule["helpUri"].endswith("errors.md#" + result["ruleId"].lower())
        assert result["level"] == "error"
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == "powers.rules"
        region = location["region"]
        assert (region["endLine"], region["endColumn"]) > (region["startLine"], region["startColumn"])
    # The misspelt stat is underlined exactly: 'Attak' is columns 9-13, end exclusive.
    attak = next(r for r in results if "Attak" in r["message"]["text"])
    assert attak["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 5, "startColumn": 9, "endLine": 5, "endColumn": 14}


def test_a_clean_check_gives_a_valid_log_with_no_results(cli) -> None:  # type: ignore[no-untyped-def]
    out = _sarif(cli, "rulesets/mezzo")
    assert out["code"] == 0
    VALIDATOR.validate(out["log"])
    assert out["log"]["runs"][0]["results"] == []
    assert out["log"]["runs"][0]["tool"]["driver"]["rules"] == []


def test_a_file_that_cannot_be_read_is_still_a_valid_log(cli, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    Path("bad.rules").write_bytes(b"Jab\x00\nCost: 1\n")
    Path("my dir").mkdir()
    Path("my dir", "ünïcode.rules").write_text("extends mestezia\n\nJab [Attack]\nCheck: [Nope]\n", encoding="utf-8")
    for path in ("bad.rules", "my dir"):
        out = _sarif(cli, path)
        assert out["code"] != 0
        VALIDATOR.validate(out["log"])
        assert out["log"]["runs"][0]["results"]
    uri = out["log"]["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "my%20dir/%C3%BCn%C3%AFcode.rules"


def test_every_code_can_be_described_as_a_rule() -> None:
    source = Source("a.rules", "x\n")
    diagnostics = [Diagnostic(code, "m", source, Span(1, 1, 1, 2)) for code in MESSAGES]
    log = json.loads(render_sarif(diagnostics, version="1", help_uri="https://example.org/errors.md"))
    VALIDATOR.validate(log)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == sorted(MESSAGES)
    assert all("{" not in r["shortDescription"]["text"] for r in rules)


@pytest.mark.parametrize("broken", [
    lambda log: log.update(version="2.0.0"),
    lambda log: log["runs"][0]["results"][0].update(level="fatal"),
    lambda log: log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"].update(startLine=0),
    lambda log: log["runs"][0]["results"][0].pop("message"),
    lambda log: log["runs"][0]["tool"]["driver"].pop("name"),
    lambda log: log["runs"][0]["results"][0].update(rule_id="E0001"),
])
def test_the_schema_rejects_a_broken_log(broken) -> None:  # type: ignore[no-untyped-def]
    source = Source("a.rules", "x\n")
    log = json.loads(render_sarif([Diagnostic("E0207", "unknown name 'x'", source, Span(1, 1, 1, 2))],
                                  version="1", help_uri="https://example.org/errors.md"))
    VALIDATOR.validate(log)
    broken(log)
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate(log)


def test_rules_link_to_the_reference_given_by_runebook_docs_url(cli, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("RUNEBOOK_DOCS_URL", "https://docs.example.org/runebook/")
    monkeypatch.chdir(tmp_path)
    Path("powers.rules").write_text(HOMEBREW, encoding="utf-8")
    log = _sarif(cli, "powers.rules")["log"]
    VALIDATOR.validate(log)
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == "https://docs.example.org/runebook/errors.md"
    assert {r["helpUri"] for r in driver["rules"]} >= {"https://docs.example.org/runebook/errors.md#e0207"}


def test_without_a_reference_the_rules_still_name_the_page() -> None:
    source = Source("a.rules", "x\n")
    log = json.loads(render_sarif([Diagnostic("E0207", "unknown name 'x'", source, Span(1, 1, 1, 2))],
                                  version="1", help_uri=None))
    VALIDATOR.validate(log)
    (rule,) = log["runs"][0]["tool"]["driver"]["rules"]
    assert "helpUri" not in rule and "E0207 in docs/errors.md" in rule["help"]["text"]
