"""Functions other languages and dice tools have (`len`, `sqrt`, `mean`, `random`...): an
unknown-function error says what to write instead, where "did you mean" would mislead
(`sqrt` suggested `sort`, `len` nothing). The advice is the same in `roll` and in `check`, and
each spelling it gives runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from runebook import interpreter
from runebook.dsl.builtins import BUILTINS, FOREIGN
from runebook.dsl.diagnostics import RunebookError

#: What each piece of advice says to write, run here.
WRITTEN = {
    "count(xs)": ("count([4, 5, 6])", 3),
    "a ** b": ("2 ** 3", 8),
    "floor(x)": ("floor(7 / 2)", 3),
    "x * x <= n": ("3 * 3 <= 10", True),
    "sum(xs) / count(xs)": ("sum([1, 2, 6]) / count([1, 2, 6])", 3),
    "sort(xs)[count(xs) // 2]": ("sort([9, 1, 5])[count([9, 1, 5]) // 2]", 5),
    "1d6": ("1d6 >= 1", True),
}


def _refusal(text: str) -> tuple[str, str | None]:
    with pytest.raises(RunebookError) as refused:
        interpreter.roll(text, seed=1)
    problem = refused.value.diagnostics[0]
    return problem.code, problem.help


@pytest.mark.parametrize("name", sorted(FOREIGN))
def test_an_unknown_function_of_another_language_says_what_to_write(name: str) -> None:
    assert name not in BUILTINS
    assert _refusal(f"{name}(4)") == ("E0412", FOREIGN[name])


def test_check_gives_the_same_advice(tmp_path: Path) -> None:
    game = tmp_path / "game.rules"
    game.write_text("check A (n: number = 1)\n  result a = SQRT(16)\n")
    with pytest.raises(RunebookError) as refused:
        interpreter.load(str(game))
    (problem,) = refused.value.diagnostics
    assert (problem.code, problem.help) == ("E0412", FOREIGN["sqrt"])


def test_a_near_spelling_still_gets_did_you_mean() -> None:
    assert _refusal("sortt([2, 1])") == ("E0412", "did you mean 'sort'?")


@pytest.mark.parametrize("spelling", sorted(WRITTEN))
def test_the_advice_runs(spelling: str) -> None:
    assert any(spelling in advice for advice in FOREIGN.values())
    text, expected = WRITTEN[spelling]
    assert interpreter.roll(text, seed=1).total == expected
