"""The checked model of a game's mechanics (dsl.model): built without the interpreter,
immutable, and the one source of the diagnostics both `check` and `load` report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from fractions import Fraction
from pathlib import Path

import attrs
import pytest

from runebook.dsl.diagnostics import RunebookError
from runebook.dsl.loader import load_game
from runebook.dsl.model import Check, LevelName, Model, OptionName, TableName, build_model
from runebook import interpreter
from runebook.interpreter.rules import Rules, load

REPO = Path(__file__).resolve().parent.parent
GAMES = ("mezzo", "mestezia", "d10-pool", "mettle", "questworlds")


def _model(tmp_path: Path, text: str) -> Model:
    (tmp_path / "g.rules").write_text(textwrap.dedent(text), encoding="utf-8")
    loaded = load_game(str(tmp_path))
    assert not isinstance(loaded, Exception) and hasattr(loaded, "files"), loaded
    return build_model(loaded)


def test_building_every_game_imports_no_interpreter_module() -> None:
    script = textwrap.dedent(f"""
        import sys
        from runebook.dsl.loader import load_game
        from runebook.dsl.model import build_model
        for game in {GAMES!r}:
            model = build_model(load_game(game))
            assert not model.errors, (game, model.errors[:3])
        leaked = sorted(m for m in sys.modules if m.split(".")[0] == "interpreter")
        print(leaked)
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_model_cannot_be_changed(tmp_path: Path) -> None:
    model = _model(tmp_path, """\
        option reading: strict | loose = loose

        check Roll (n: number = 1)
          roll r = 1d6 + n
          result total = r
    """)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        model.diagnostics = ()  # type: ignore[misc]
    with pytest.raises(TypeError):
        model.checks["other"] = model.checks["roll"]  # type: ignore[index]
    assert isinstance(model.checks["roll"], Check)
    assert model.options["reading"].choices == ("strict", "loose")
    assert model.options["reading"].default == 1


def test_each_name_says_what_it_stands_for(tmp_path: Path) -> None:
    model = _model(tmp_path, """\
        levels Grade: low < mid < high

        option reading: strict | loose

        table Bands
          1-3: Small
          4+: Large
    """)
    named = {name: value for name, value in model.values}
    assert named["mid"] == LevelName("Grade", "mid", 1, ("low", "mid", "high"))
    assert isinstance(named["reading"], OptionName)
    assert named["Large"] == LevelName("Bands", "Large", 1, ("Small", "Large"))
    assert isinstance(named["Bands"], TableName)
    assert [key for key, _, _ in named["Bands"].rows] == [("range", 1, 3), ("range", 4, None)]


def test_check_and_load_report_the_same_problems(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    model = _model(tmp_path, """\
        option reading: strict | loose = losse

        procedure P (n: number = 3)
          result a = b + 1
          let b = 2
    """)
    codes = sorted(d.code for d in model.diagnostics)
    assert codes == ["E0606", "E0624"]
    run = cli("check", str(tmp_path / "g.rules"))
    assert run.code == 1
    for diagnostic in model.diagnostics:
        assert f"g.rules:{diagnostic.span.line}:{diagnostic.span.column}: {diagnostic.code}" in run.stderr
    assert Rules(model).diagnostics is model.diagnostics


def test_the_interpreter_runs_the_model_it_is_given(tmp_path: Path) -> None:
    model = _model(tmp_path, """\
        levels Grade: low < mid < high

        table Bands
          1-3: low
          4+: high

        procedure P (n: number = 5)
          let grade = Bands[n]
          if grade == high
            result said = "high"
          else
            result said = "not high"
    """)
    assert not model.errors
    rules = Rules(model)
    assert rules.model is model
    assert rules.run("P", dice=[]).results["said"] == "high"
    assert rules.run("P", n=2, dice=[]).results["said"] == "not high"


def test_an_example_with_a_value_that_is_not_one(tmp_path: Path) -> None:
    model = _model(tmp_path, """\
        check Roll (n: number = 1)
          roll r = 1d6 + n
          result total = r

        example Roll (n = 1 + 2)
    """)
    assert [d.code for d in model.errors] == ["E0008"]
    assert model.errors[0].span.line == 5


def test_true_and_false_in_a_table_stay_true_and_false(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """A table whose rows are `true`/`false` used to make them levels of the table, which
    turned every `false` of the game (a boolean input's default too) into a level."""
    (tmp_path / "t.rules").write_text(
        "table Soaks\n  1: true\n  2: false\n\n"
        "check C (flag: boolean = false)\n  result r = 1 if flag else 0\n  result s = Soaks[2]\n", encoding="utf-8")
    assert cli("check", str(tmp_path / "t.rules")).code == 0
    run = cli("resolve", str(tmp_path), "C", "--json")
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout)["results"] == {"r": 0, "s": False}


def test_check_sees_a_repeated_input_and_a_value_that_reads_itself(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Both used to pass `check` and then fail (or silently misread) on the first run."""
    (tmp_path / "d.rules").write_text(
        "stats Might\n\nderive Power = Force + 1\n\nderive Force = Power * 2\n\nderive Safe = Might + 1\n\n"
        "check Roll (bonus: number = 0, bonus: number = 1)\n  result r = bonus + Might\n", encoding="utf-8")
    run = cli("check", str(tmp_path / "d.rules"))
    assert run.code == 1
    assert "d.rules:9:32: E0304 input 'bonus' is declared twice in one check" in run.stderr
    assert "d.rules:3:16: E0416 'Power' depends on itself" in run.stderr
    assert "d.rules:5:16: E0416 'Force' depends on itself" in run.stderr
    assert "'Safe'" not in run.stderr


def test_a_game_edited_on_disk_is_read_again(tmp_path: Path) -> None:
    """`load()` used to keep the first reading of a folder for the whole process: an author's
    edit (damage 4 → 24) and a new mistake went unseen until a restart."""
    path = tmp_path / "g.rules"
    path.write_text("check Hit (n: number = 0)\n  result damage = 4 + n\n", encoding="utf-8")
    assert load(str(tmp_path)).resolve("Hit", dice=[]).results["damage"] == 4
    path.write_text("check Hit (n: number = 0)\n  result damage = 24 + n\n", encoding="utf-8")
    stamp = path.stat().st_mtime_ns + 1_000_000_000
    os.utime(path, ns=(stamp, stamp))  # a new time even where the clock is coarse
    assert load(str(tmp_path)).resolve("Hit", dice=[]).results["damage"] == 24
    path.write_text("check Hit (n: number = 0)\n  result damage = 24 + nn\n", encoding="utf-8")
    os.utime(path, ns=(stamp + 10**9, stamp + 10**9))
    with pytest.raises(RunebookError):
        load(str(tmp_path))


def test_rules_from_text_in_memory() -> None:
    rules = interpreter.load_text("check Hit (n: number = 1)\n  roll d = 1d6\n  result damage = sum(d) + n\n")
    assert rules.resolve("Hit", dice=[4]).results["damage"] == 5
    assert dict(rules.odds("Hit", n=0).results["damage"]) == {k: Fraction(1, 6) for k in range(1, 7)}
    homebrew = interpreter.load_text({"frost.rules": "extends mestezia\n\nFrost Nip\nCost: 1 CP\nTarget: Enemy in 5\n"
                                                      "Keywords: *Evocation Cold Attack*\n"}, name="mine")
    assert homebrew.ruleset.entry("Frost Nip") is not None and homebrew.ruleset.entry("Sleep") is not None
    with pytest.raises(RunebookError) as error:
        interpreter.load_text("check Hit (n: number = 1)\n  result damage = nn\n")
    (problem,) = error.value.diagnostics
    assert (problem.code, problem.path, problem.span.line) == ("E0207", "<memory>/memory.rules", 2)


def test_a_ruleset_is_built_into_a_model_once(tmp_path: Path) -> None:
    """Loading an unchanged game again takes the model built the first time (both are
    immutable); each load still gets rules of its own, and a changed file a new model."""
    (tmp_path / "g.rules").write_text("check Hit (n = 1)\n  result total = 1d6 + n\n", encoding="utf-8")
    first, second = load(str(tmp_path)), load(str(tmp_path))
    assert first is not second and first.model is second.model
    assert build_model(load_game(str(tmp_path))) is first.model  # type: ignore[arg-type]
    (tmp_path / "g.rules").write_text("check Hit (n = 2)\n  result total = 1d8 + n\n", encoding="utf-8")
    os.utime(tmp_path / "g.rules", ns=(1, 1))  # a new size and time: the loader reads it again
    third = load(str(tmp_path))
    assert third.model is not first.model
    assert max(third.odds("Hit").results["total"]) == 10  # 1d8 + 2, as the file now says
