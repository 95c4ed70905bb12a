"""A small chat-bot back end written against Runebook's public API only.

tests/test_packaging.py type-checks it with ``mypy --strict`` against the installed wheel
and runs it: the API an embedder sees is typed (PEP 561) and does what its types say.
"""

from __future__ import annotations

import json
from fractions import Fraction

import runebook


def answer_roll(text: str, seed: int) -> str:
    """A chat reply for ``/roll TEXT``: the total, or every problem with the text."""
    try:
        result: runebook.RollResult = runebook.roll(text, seed=seed)
    except runebook.RunebookError as error:
        return "\n".join(str(d) for d in error.diagnostics)
    return f"{text} = {result.total} (dice {result.dice})"


def chance_at_least(text: str, target: int) -> Fraction:
    """The exact chance that ``text`` comes out at ``target`` or more."""
    distribution = runebook.odds(text)
    return sum((p for outcome, p in distribution.items() if outcome >= target), Fraction(0))


def skill_check(rules: runebook.Ruleset, threshold: int) -> str:
    """One Mestezia skill check from the faces a player rolled, as the bot's JSON."""
    result: runebook.CheckResult = rules.resolve("skill check", threshold=threshold, modifier=3, dice=[8, 6, 1])
    return json.dumps(result.to_dict()["results"], sort_keys=True)


def homebrew_error() -> list[str]:
    """A homebrew text with a mistake gives diagnostics with a place, never a traceback."""
    try:
        runebook.load_text("check Broken ()\n  result x = 1 +\n")
    except runebook.RunebookError as error:
        return [f"{d.code}" for d in error.diagnostics]
    return []


def main() -> None:
    rules = runebook.load("mestezia")
    print(answer_roll("4d6kh3", seed=7).split(" = ")[0])
    print(chance_at_least("2d6", 7))
    print(skill_check(rules, 11))
    print(bool(homebrew_error()))
    print(runebook.__version__)


if __name__ == "__main__":
    main()
