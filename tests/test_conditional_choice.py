"""`choose NAME: a | b if condition`: a choice point offered only when its condition holds;
otherwise it takes its first option without asking. Runs, replays and exact odds agree, and
the prompt shows the values the condition reads."""

from __future__ import annotations

import io
import itertools
from fractions import Fraction
from pathlib import Path

import pytest

from runebook import interpreter
from runebook.interpreter.rules.procedures import CallbackDriver, PromptDriver

# Roll a d6; a roll under 4 may be rerolled once, but only while a token is left.
GAME = """\
procedure Push (tokens = 1)
  let left = tokens
  roll first = 1d6
  let kept = first
  choose push: hold | reroll if first < 4 and left > 0
  set left = left - (1 if push == reroll else 0)
  roll second = 1d6
  set kept = second if push == reroll else first
  result score = kept
  result tokens_left = left
"""


@pytest.fixture
def rules(tmp_path: Path):  # type: ignore[no-untyped-def]
    (tmp_path / "g.rules").write_text(GAME)
    return interpreter.load(str(tmp_path))


def _play(rules, dice: list[int], answer: str, **inputs: int) -> tuple[dict, list[str]]:  # type: ignore[no-untyped-def, type-arg]
    asked: list[str] = []

    def decide(point):  # type: ignore[no-untyped-def]
        asked.append(point.name)
        return answer

    run = rules.run("push", dice=dice, driver=CallbackDriver(decide), **inputs)
    return {k: v for k, v in run.results.items()}, asked


def test_offered_only_when_the_condition_holds(rules) -> None:  # type: ignore[no-untyped-def]
    results, asked = _play(rules, [2, 5], "reroll")
    assert asked == ["push"] and results == {"score": 5, "tokens_left": 0}
    # 5 is not under 4: the driver is not asked and `push` is its first option, hold
    results, asked = _play(rules, [5, 1], "reroll")
    assert asked == [] and results == {"score": 5, "tokens_left": 1}
    # no token left: not asked either
    results, asked = _play(rules, [2, 6], "reroll", tokens=0)
    assert asked == [] and results == {"score": 2, "tokens_left": 0}


def test_a_replay_file_skips_choices_not_offered(rules, tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    answers = tmp_path / "answers.yaml"
    answers.write_text("- reroll\n")
    run = cli("run", str(tmp_path), "push", "--choices", str(answers), "--dice", "5,1", "--json")
    assert run.code == 0, run.stderr
    assert '"choices": []' in run.stdout and '"score": 5' in run.stdout


def test_odds_follow_the_condition(rules) -> None:  # type: ignore[no-untyped-def]
    odds = rules.odds("push", answers={"push": "reroll"}).results["score"]
    expected: dict[int, Fraction] = {}
    for first, second in itertools.product(range(1, 7), repeat=2):
        kept = second if first < 4 else first
        expected[kept] = expected.get(kept, Fraction(0)) + Fraction(1, 36)
    assert dict(odds.items()) == expected


def test_the_condition_is_checked_like_any_expression(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "g.rules").write_text("procedure P ()\n  choose push: hold | go if lfet > 0\n  result x = push\n")
    run = cli("check", str(tmp_path))
    assert run.code == 1 and "g.rules:2:29: E0207 unknown name 'lfet'" in run.stderr
    assert "Traceback" not in run.stderr


def test_the_prompt_shows_what_the_condition_reads(rules) -> None:  # type: ignore[no-untyped-def]
    out = io.StringIO()
    run = rules.run("push", dice=[2, 6], driver=PromptDriver(read=lambda _: "2", out=out))
    assert run.results["score"] == 6
    lines = out.getvalue().splitlines()
    assert lines[0] == "Push: first = 2; left = 1"  # the roll and the tokens, then the question
    assert lines[1].startswith("Push: choose push: [1] hold  [2] reroll")
