"""Procedures: a choice point answered three ways gives the same run; bad answers are diagnostics."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.rules.procedures import CallbackDriver, PromptDriver, load_choices

GAME = Path(__file__).resolve().parent / "cases" / "procedure"
DICE = [3, 5, 4]
ANSWERS = ["bold", "careful", "bold"]


def _summary(result) -> tuple:  # type: ignore[no-untyped-def, type-arg]
    return (result.results, result.state, result.choices, [d.face for d in result.trace.dice()])


def test_three_drivers_give_the_same_run() -> None:
    rules = interpreter.load(str(GAME))
    from_file = rules.run("best of three", dice=DICE, driver=load_choices(GAME / "answers.yaml"))
    typed = iter(["1", "careful", "bold"])  # a number or a name at the prompt
    prompt_out = io.StringIO()
    at_prompt = rules.run("best of three", dice=DICE, driver=PromptDriver(read=lambda _: next(typed), out=prompt_out))
    asked = []

    def decide(point):  # type: ignore[no-untyped-def]
        asked.append((point.name, point.options, dict(point.state).get("rounds")))
        return ANSWERS[len(asked) - 1]

    by_callback = rules.run("best of three", dice=DICE, driver=CallbackDriver(decide))
    assert _summary(from_file) == _summary(at_prompt) == _summary(by_callback)
    assert from_file.results == {"won": True}
    assert from_file.state["wins"] == 3 and from_file.state["rounds"] == 3
    assert asked == [("stance", ("bold", "careful"), 0), ("stance", ("bold", "careful"), 1),
                     ("stance", ("bold", "careful"), 2)]
    assert "choose stance: [1] bold  [2] careful" in prompt_out.getvalue()


def test_cli_run_with_a_choices_file(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", str(GAME), "best of three", "--choices", str(GAME / "answers.yaml"),
              "--dice", "3,5,4", "--json")
    assert run.code == 0, run.stderr
    payload = json.loads(run.stdout)
    assert payload["results"] == {"won": True}
    assert payload["state"]["wins"] == 3
    assert [c["answer"] for c in payload["choices"]] == ANSWERS


def test_cli_run_asks_at_a_terminal(cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr("sys.stdin", Terminal("bold\ncareful\nbold\n"))
    run = cli("run", str(GAME), "best of three", "--dice", "3,5,4", "--json")
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout)["results"] == {"won": True}
    assert "choose stance" in run.stderr


@pytest.mark.parametrize(
    "answers, code",
    [(["bold"], "E0610"), (["bold", "wild", "bold"], "E0611")],
)
def test_bad_answers(answers: list[str], code: str, tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    choices = tmp_path / "choices.yaml"
    choices.write_text("".join(f"- {a}\n" for a in answers))
    run = cli("run", str(GAME), "best of three", "--choices", str(choices), "--dice", "3,5,4")
    assert run.code == 1 and code in run.stderr and "Traceback" not in run.stderr


def test_a_loop_without_end_is_refused_and_a_long_one_stopped(tmp_path: Path) -> None:
    (tmp_path / "g.rules").write_text("procedure Forever ()\n  step again\n  goto again\n")
    with pytest.raises(RunebookError) as error:
        interpreter.load(str(tmp_path))
    assert [d.code for d in error.value.diagnostics] == ["E0632"]
    (tmp_path / "g.rules").write_text("procedure Long (n = 100000)\n  step again\n  goto again if n > 0\n")
    with pytest.raises(RunebookError) as error:
        interpreter.load(str(tmp_path)).run("long")
    assert [d.code for d in error.value.diagnostics] == ["E0612"]


def test_goto_an_unknown_step_is_reported_by_check(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "g.rules").write_text("procedure Loop ()\n  step again\n  goto agian\n")
    run = cli("check", str(tmp_path))
    assert run.code == 1 and "E0609 no step 'agian' to go to" in run.stderr and "did you mean 'again'?" in run.stderr


def test_a_procedure_calls_a_check_and_reads_its_results(tmp_path: Path) -> None:
    (tmp_path / "g.rules").write_text(
        "check Hit (target = 4)\n  roll die = 1d6\n  result hit = die >= target\n\n"
        "procedure Two Swings ()\n  let first = Hit(5)\n  let second = Hit()\n"
        "  result both = first.hit and second.hit\n"
    )
    rules = interpreter.load(str(tmp_path))
    assert rules.run("two swings", dice=[5, 4]).results == {"both": True}
    assert rules.run("two swings", dice=[4, 6]).results == {"both": False}


def test_a_choice_option_taken_by_another_choice_is_reported(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "g.rules").write_text(
        "procedure A ()\n  choose stance: bold | careful\n  result x = stance == bold\n\n"
        "procedure B ()\n  choose mood: bold | calm\n  result y = mood == bold\n\n"
        "procedure C ()\n  choose stance: bold | careful\n  result z = stance == careful\n"
    )
    run = cli("check", str(tmp_path))
    assert run.code == 1
    assert "g.rules:6:10: E0306 choice option 'bold' is already the name of a level of 'stance' (line 2)" in run.stderr
    assert run.stderr.count("E0306") == 1  # the same choice name in two procedures is fine
