"""Every row of the Mestezia and QuestWorlds README tables still holds: each command a row
shows runs (tests/test_docs_commands.py), and here, what the row says it gives does: every
number and every grade or outcome word written after the command (after `→`, or in the
parentheses that follow it) is in what the command prints. The rows' own tests check the
same values more closely; this catches a row whose text drifted from what the game does."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
#: Words whose presence a claim asserts (grades, outcomes, statuses).
WORDS = re.compile(r"\b(Fail|Low|Medium|High|Healthy|Injured|Bloodied|Maimed|Dying|Unconscious|Prone|Hasted|"
                   r"victory|defeat|critical|marginal|minor|major|complete|resolved|replaced|Piercing|Fire)\b")
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?%?(?![\w])")
#: Claims that describe the input rather than what is printed (the file's HP before the run,
#: why a result is what it is): the numbers and words named here are not looked for.
CONTEXT = {"HP 15 of 20": "rager.yaml's HP and Max HP, the reason kept is false",
           "a major defeat's": "why the depletion is -6 (the printed value)",
           "unless Unconscious": "a condition the row names, not a result"}


def _claims(path: Path) -> list[tuple[str, str]]:
    """(command, what the row says it gives) for each table cell command followed by a claim."""
    found = []
    for row in path.read_text(encoding="utf-8").splitlines():
        if not row.startswith("|"):
            continue
        for match in re.finditer(r"`(R [^`]+)`\s*(→\s*([^;|`]+)|\((`?[^)]*)\))", row):
            claim = match.group(3) if match.group(3) is not None else match.group(4)
            command = match.group(1)
            if "..." in command or "CHAR" in command or "exit 1" in claim or "E0" in claim:
                continue
            found.append((command, claim.strip()))
    return found


CASES = [(path, command, claim) for path in (REPO / "rulesets" / "mestezia" / "README.md",
                                            REPO / "rulesets" / "questworlds" / "README.md")
         for command, claim in _claims(path)]


def test_the_tables_make_claims() -> None:
    assert len(CASES) > 25


@pytest.mark.parametrize(("path", "command", "claim"), CASES,
                         ids=[f"{p.parent.name}:{c[:50]}" for p, c, _ in CASES])
def test_a_row_gives_what_it_says(path: Path, command: str, claim: str, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(path.parent)
    args = shlex.split(command)[1:]
    run = cli(*args)
    assert run.code == 0, run.stderr
    printed = run.stdout + run.stderr
    numbers = set(NUMBER.findall(printed.replace(",", "")))
    claim = re.sub(r"-?\d+\s*→\s*", "", claim.replace("−", "-"))  # "CP 6 → 2": the value after
    for context in CONTEXT:
        claim = claim.replace(context, "")
    for number in NUMBER.findall(claim):
        assert number.lstrip("-") in {n.lstrip("-") for n in numbers}, f"{number} of '{claim}' not in:\n{printed[-1500:]}"
    for word in WORDS.findall(claim):
        assert re.search(rf"\b{word}\b", printed, re.IGNORECASE), f"'{word}' of '{claim}' not in:\n{printed[-1500:]}"
