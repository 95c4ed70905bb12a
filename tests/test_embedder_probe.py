"""What an embedder (a chat bot, a virtual tabletop) tripped on, feeding the API what
strangers type: each refusal a RunebookError with a code, fast, the loaded game unchanged."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import runebook
from runebook import RunebookError
from runebook.interpreter.rules.sweep import MAX_POINTS


def _codes(error: pytest.ExceptionInfo[RunebookError]) -> list[str]:
    return [d.code for d in error.value.diagnostics]


def test_a_sweep_over_an_endless_axis_is_refused_before_it_is_read_whole() -> None:
    drawn = 0

    def endless() -> Iterator[int]:
        nonlocal drawn
        while True:
            drawn += 1
            assert drawn <= MAX_POINTS + 1, "the whole axis was read"
            yield drawn

    with pytest.raises(RunebookError) as error:
        runebook.sweep("mestezia", "skill check", vary={"threshold": endless()})
    assert _codes(error) == ["E0901"]
    assert "10,000" in error.value.diagnostics[0].message


def test_a_sweep_whose_grid_is_too_large_is_refused_before_its_points_are_made() -> None:
    with pytest.raises(RunebookError) as error:
        runebook.sweep("mestezia", "skill check", vary={"threshold": range(1000), "modifier": range(1000)})
    assert _codes(error) == ["E0901"] and "1,000,000 points" in error.value.diagnostics[0].message


@pytest.fixture(scope="module")
def mestezia() -> runebook.Ruleset:
    return runebook.load("mestezia")


def test_an_input_of_thousands_of_digits_from_python_is_refused_naming_max_digits(mestezia: runebook.Ruleset) -> None:
    before = mestezia.resolve("skill check", threshold=11, modifier=3, seed=5).to_dict()
    with pytest.raises(RunebookError) as error:
        mestezia.resolve("skill check", threshold=10**5000, seed=1)
    problem = error.value.diagnostics[0]
    assert problem.code == "E0903" and "max_digits" in problem.message and "'threshold'" in (problem.help or "")
    with pytest.raises(RunebookError) as error:
        mestezia.odds("skill check", threshold=11, modifier=-(10**1200))
    assert _codes(error) == ["E0903"]
    assert mestezia.resolve("skill check", threshold=11, modifier=3, seed=5).to_dict() == before


@pytest.mark.parametrize(("value", "expected", "hint"), [
    (None, "a value", "no default"),
    (11.5, "an exact fraction", "Fraction"),
    (11.0, "an exact fraction", "Fraction"),
])
def test_a_none_or_a_float_given_as_an_input_is_e0603_naming_the_input(
        mestezia: runebook.Ruleset, value: object, expected: str, hint: str) -> None:
    with pytest.raises(RunebookError) as error:
        mestezia.resolve("skill check", threshold=value, seed=1)
    problem = error.value.diagnostics[0]
    assert problem.code == "E0603" and "'threshold'" in problem.message and expected in problem.message
    assert hint in (problem.help or "")


def test_an_input_given_as_none_with_a_default_says_to_leave_it_out(mestezia: runebook.Ruleset) -> None:
    with pytest.raises(RunebookError) as error:
        mestezia.odds("skill check", threshold=11, modifier=None)
    assert _codes(error) == ["E0603"] and "leave the input out" in (error.value.diagnostics[0].help or "")


def test_the_odds_of_an_expression_serialise_to_json_as_the_command_prints_them() -> None:
    import json

    from runebook.interpreter.core.render import distribution_json

    chance = runebook.odds("1d6!")  # a tail '126+' and no mean
    data = json.loads(chance.to_json())
    assert data == chance.to_dict() and data["distribution"]["126+"] == "1/21936950640377856"
    assert data["distribution"]["7"] == "1/36" and data["residual"] == "0" and data["mean"] is None
    assert json.loads(distribution_json("1d6!", chance)) == {"expression": "1d6!", **data}


@pytest.mark.parametrize("face", ["10", True, 2.0])
def test_a_face_given_by_hand_that_is_not_an_int_is_e0503_saying_so(mestezia: runebook.Ruleset, face: object) -> None:
    for call in (lambda: mestezia.resolve("skill check", threshold=5, dice=[face, 2, 3]),  # type: ignore[list-item]
                 lambda: runebook.roll("1d10", dice=[face])):  # type: ignore[list-item]
        with pytest.raises(RunebookError) as error:
            call()
        problem = error.value.diagnostics[0]
        assert problem.code == "E0503" and repr(face) in problem.message
        assert type(face).__name__ in (problem.help or "") and "int" in (problem.help or "")


@pytest.mark.parametrize("call", [
    lambda rules: runebook.roll(None),  # type: ignore[arg-type]
    lambda rules: runebook.odds(5),  # type: ignore[arg-type]
    lambda rules: runebook.roll("x + 1", env=[1]),
    lambda rules: runebook.load(None),  # type: ignore[arg-type]
    lambda rules: runebook.load_text(None),  # type: ignore[arg-type]
    lambda rules: runebook.load_text(b"check C ()"),  # type: ignore[arg-type]
    lambda rules: runebook.load_text({"a.rules": 5}),  # type: ignore[dict-item]
    lambda rules: rules.resolve(None, threshold=11),
    lambda rules: rules.odds(3, threshold=11),
    lambda rules: rules.run(None),
    lambda rules: rules.check(None),
    lambda rules: rules.procedure(None),
    lambda rules: rules.resolve("skill check", threshold=11, options="fast"),
], ids=["roll", "odds", "env", "load", "load_text", "load_text bytes", "load_text map", "resolve", "rules.odds",
        "run", "check", "procedure", "options"])
def test_a_wrong_python_type_is_a_type_error_naming_what_the_argument_takes(
        mestezia: runebook.Ruleset, call: object) -> None:
    with pytest.raises(TypeError, match=r"takes (text|a mapping)"):
        call(mestezia)  # type: ignore[operator]


def test_load_takes_a_path_object_too() -> None:
    from pathlib import Path

    assert runebook.load(Path("rulesets/mestezia")).name == "mestezia"


@pytest.mark.parametrize("sources", [{"seed": 1, "dice": [1, 2, 3]}, {"rng": __import__("random").Random(1), "seed": 1},
                                     {"rng": __import__("random").Random(1), "dice": [1, 2, 3]}])
def test_two_sources_of_dice_are_refused_by_resolve_run_and_roll_alike(
        mestezia: runebook.Ruleset, sources: dict[str, object]) -> None:
    for call in (lambda: mestezia.resolve("skill check", threshold=11, **sources),  # type: ignore[arg-type]
                 lambda: mestezia.run("skill check", threshold=11, **sources),  # type: ignore[arg-type]
                 lambda: runebook.roll("3d10", **sources)):  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="give one of seed, dice or rng"):
            call()


def test_an_unknown_option_far_from_any_lists_the_game_s_options(mestezia: runebook.Ruleset) -> None:
    with pytest.raises(RunebookError) as error:
        mestezia.resolve("skill check", threshold=11, options={"zzzz": "x"})
    problem = error.value.diagnostics[0]
    assert problem.code == "E0605" and problem.help is not None
    assert problem.help.startswith("options of mestezia: ") and "jolt_rounding" in problem.help.replace(" ", "_").lower()
    with pytest.raises(RunebookError) as error:
        runebook.load_text("check C ()\n  result r = 1\n").resolve("C", options={"fast": "yes"})
    assert error.value.diagnostics[0].help == "memory declares no options"


def test_the_types_a_choice_callback_and_a_character_have_are_public_names() -> None:
    from runebook.interpreter.rules.entities import Entity
    from runebook.interpreter.rules.procedures import ChoicePoint

    assert runebook.ChoicePoint is ChoicePoint and runebook.Entity is Entity
    seen: list[runebook.ChoicePoint] = []
    rules = runebook.load_text("procedure P\n  choose side: left | right\n  result went = side\n")
    run = rules.run("P", choose=lambda point: seen.append(point) or point.options[1])
    assert run.results["went"].name == "right" and isinstance(seen[0], runebook.ChoicePoint)


@pytest.mark.parametrize(("text", "found"), [("", "got nothing"), ("just words\n", "got the text 'just words'"),
                                             ("name: X\nstats: 3\n", "got the text '3'")])
def test_a_character_file_of_the_wrong_shape_says_what_it_got(
        mestezia: runebook.Ruleset, tmp_path: Path, text: str, found: str) -> None:
    path = tmp_path / "upload.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RunebookError) as error:
        mestezia.entity(str(path))
    assert _codes(error) == ["E0702"] and error.value.diagnostics[0].message.endswith(found)


def test_a_choice_nobody_answers_in_a_call_from_python_names_choose_and_answers() -> None:
    rules = runebook.load_text("procedure P\n  choose side: left | right\n  result went = side\n")
    for call in (lambda: rules.run("P"), lambda: rules.run("P", seed=1, answers={})):
        with pytest.raises(RunebookError) as error:
            call()
        problem = error.value.diagnostics[0]
        assert problem.code == "E0610"
        assert problem.help == "answer it with choose= (a function of the ChoicePoint) or answers={'side': OPTION} " \
                               "(left | right)"


def test_the_work_of_keeping_from_exploding_dice_is_counted_over_every_die() -> None:
    import attrs

    # Each die's step stayed under max_work, so a thousand of them ran on for minutes.
    small = attrs.evolve(runebook.DEFAULT_LIMITS, max_work=100_000)
    with pytest.raises(RunebookError) as error:
        runebook.odds("300d6!kh3", limits=small)
    assert _codes(error) == ["E0415"] and "max_work = 100,000" in error.value.diagnostics[0].message
    assert runebook.odds("4d6!kh3")[18] > 0  # a few dice are still exact


def test_keeping_from_compounding_dice_is_refused_within_a_second_or_so_of_cpu() -> None:
    import time

    # Their weights run to thousands of bits; each step was charged as if they were small.
    start = time.process_time()
    with pytest.raises(RunebookError) as error:
        runebook.odds("200d10!!kh50")
    assert _codes(error) == ["E0415"] and "max_work" in error.value.diagnostics[0].message
    assert time.process_time() - start < 1.5


def test_unique_dice_are_refused_before_their_sets_of_faces_are_walked() -> None:
    import time

    start = time.process_time()
    with pytest.raises(RunebookError) as error:
        runebook.odds("10d100u")
    assert _codes(error) == ["E0415"] and "max_work = 2,000,000" in error.value.diagnostics[0].message
    assert time.process_time() - start < 0.5
    assert runebook.odds("4d6ukh3")[15] > 0 and runebook.odds("6d6u")[21] == 1
