"""Docs stay true: every concrete `runebook` command the READMEs and the language reference
show runs without a traceback, and exits 0 unless the text beside it says it fails
(``exit 1``, ``E0...``). Commands with placeholders (``GAME``, ``CHAR.yaml``, ``...``) are
templates, not examples, and are skipped. A ruleset README's commands run from its folder,
as it says; ``R`` there is short for ``runebook``."""

from __future__ import annotations

import io
import re
import shlex
from pathlib import Path

import pytest
from test_readme_rows import CASES as ROW_CASES
from test_rulesets import README_CHECK

REPO = Path(__file__).resolve().parent.parent
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), *sorted((REPO / "rulesets").glob("*/README.md"))]

#: Words that mark a template rather than a runnable example.
PLACEHOLDERS = re.compile(r"\b(GAME|CHECK|PROCEDURE|NAME|EXPR|PATH|ENTRY|FILE|CHAR|TARGET|F,F)\b|\.\.\.|<\w+>|my-|"
                          r"homebrew\.rules|answers\.yaml")
#: Text after a command that says it is meant to fail.
FAILS = re.compile(r"exit 1|E0\d{3}|refused|is a diagnostic")
#: Commands that take long (exact odds of large procedures) are measured in benchmarks, not here.
SLOW = re.compile(r"odds questworlds \"?group (scored|extended)|odds questworlds \"?extended contest\"? --with ability=15")


def _commands(path: Path) -> list[tuple[str, bool]]:
    """(command, expected to fail) pairs, from code blocks and from inline code."""
    text = path.read_text(encoding="utf-8")
    found: list[tuple[str, bool]] = []
    for block in re.findall(r"```[a-z]*\n(.*?)```", text, re.S):
        lines = block.replace("\\\n", " ").splitlines()
        for index, line in enumerate(lines):
            stripped = line.strip().removeprefix("$ ")
            if not re.match(r"(runebook|R) ", stripped):
                continue
            command, _, comment = stripped.partition(" #")
            after = comment + " ".join(lines[index + 1:index + 3])
            found.append((command.strip(), bool(FAILS.search(after.split("runebook")[0]))))
    for match in re.finditer(r"`((?:runebook|R) [^`]+)`([^|\n]*)", text):
        found.append((match.group(1).strip(), bool(FAILS.search(match.group(2)))))
    return found


#: Rows of the ruleset READMEs' tables that test_readme_rows runs and checks the outcome of
#: (more than the exit code checked here), and the README's check of every game, which
#: test_rulesets runs as written and holds to an empty output: run there only.
CHECKED_THERE = {(path, command) for path, command, _claim in ROW_CASES} | {(REPO / "README.md", README_CHECK)}

CASES = list(dict.fromkeys(
    (path, command, fails) for path in DOCS for command, fails in _commands(path)
    if not PLACEHOLDERS.search(command) and not SLOW.search(command) and len(shlex.split(command)) > 2
    and (path, command) not in CHECKED_THERE))


def test_the_docs_show_commands() -> None:
    assert len(CASES) > 40


@pytest.mark.parametrize(("path", "command", "fails"), CASES,
                         ids=[f"{p.relative_to(REPO)}:{c[:60]}" for p, c, _ in CASES])
def test_a_documented_command_runs(path: Path, command: str, fails: bool, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    if path.parent.parent.name == "rulesets" and "rulesets/" not in command:
        monkeypatch.chdir(path.parent)
    else:
        monkeypatch.chdir(REPO)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # not a terminal: no prompt waits for an answer
    run = cli(*shlex.split(command)[1:])
    assert "Traceback" not in run.stderr
    if fails:
        assert run.code == 1, run.stderr
    else:
        assert run.code == 0, run.stderr
