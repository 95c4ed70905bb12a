"""An answer by name that no choice takes is a mistake the run would hide: `run` asked the
choice at the prompt (or ran out of answers) and exact odds silently took the first option.
Both now refuse it (E0708) with the closest choice's name, and a flag's mistake points at the
flag (`--with:1:1`, `--answer:1:1`) rather than at `<input>`."""

from __future__ import annotations

import pytest

import runebook
from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.rules.procedures import choice_names, unknown_answers

CONTEST = ["questworlds", "scored contest", "--with", "ability=15", "--with", "resistance=14"]


@pytest.mark.parametrize("command", ["run", "odds"])
def test_a_misspelt_answer_is_refused_with_the_choice_meant(cli, command: str) -> None:  # type: ignore[no-untyped-def]
    run = cli(command, *CONTEST, "--answer", "tactc=risky_gambit", *(["--seed", "1"] if command == "run" else []))
    assert run.code == 1
    assert "--answer:1:1: E0708 'tactc' is not a choice of 'Scored Contest'" in run.stderr
    assert "help: did you mean 'tactic'?" in run.stderr


def test_answers_to_real_choices_still_work(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("odds", *CONTEST, "--answer", "tactic=risky_gambit", "--answer", "parting_shot=decline", "--json")
    assert run.code == 0, run.stderr


def test_a_choice_brought_in_by_do_is_answered_by_its_bare_name() -> None:
    # METTLE's Attack uses Strike as `blow`: its choices are `blow.NAME`, answered as `NAME` too.
    rules = runebook.load("mettle")
    attack = rules.procedure("Attack")
    names = choice_names(attack.decl.statements)
    dotted = [n for n in names if "." in n]
    assert dotted, names
    bare = dotted[0].rpartition(".")[2]
    assert unknown_answers("Attack", attack.decl.statements, {bare: "x", dotted[0]: "y"}) == []


def test_the_api_refuses_an_unknown_answer_for_odds() -> None:
    rules = runebook.load("questworlds")
    with pytest.raises(RunebookError) as raised:
        rules.odds("scored contest", ability=15, resistance=14, answers={"tactc": "normal"})
    (diagnostic,) = raised.value.diagnostics
    assert diagnostic.code == "E0708" and diagnostic.help == "did you mean 'tactic'?"
    with pytest.raises(RunebookError) as raised:
        rules.odds("contest", ability=15, resistance=14, answers={"tactic": "normal"})
    assert raised.value.diagnostics[0].help == "'Contest' has no choices"


def test_flag_mistakes_point_at_the_flag(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("resolve", "d10-pool", "action", "--with", "pool=many")
    assert "--with:1:6: E0603 input 'pool' expects a number, got 'many'" in run.stderr
    assert " 1 | pool=many" in run.stderr
    run = cli("odds", *CONTEST, "--option", "tied_result=same_result")
    assert "--option:1:1: E0605 unknown option 'tied_result'" in run.stderr
    assert "did you mean 'tied_results'?" in run.stderr


def test_a_run_given_no_answers_says_which_flag_answers_the_choice(cli) -> None:  # type: ignore[no-untyped-def]
    """Without a terminal to ask at and no answers given, the first choice stops the run: the
    help names `--answer` with the choice's own name, and following it runs the procedure."""
    run = cli("run", *CONTEST, "--seed", "1", "--quiet")
    assert run.code == 1
    assert "E0610" in run.stderr
    assert "help: answer it with --answer tactic=OPTION (normal | risky_gambit" in run.stderr
    assert "--choices FILE.yaml" in run.stderr
    answered = cli("run", *CONTEST, "--seed", "1", "--quiet", "--answer", "tactic=normal",
                   "--answer", "parting_shot=decline")
    assert answered.code == 0, answered.stderr


def test_a_choices_file_that_runs_out_still_names_the_file(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    answers = tmp_path / "answers.yaml"
    answers.write_text("- normal\n")
    run = cli("run", *CONTEST, "--dice", "10,10,10,10", "--choices", str(answers))
    assert run.code == 1
    assert "to the choices in " in run.stderr and "answers.yaml" in run.stderr
