"""One .rules file named by its path is a game: what an author with a single file types first
(`runebook resolve hit.rules Hit`), for `resolve`, `run`, `odds`, `export` and `load`."""

from __future__ import annotations

import json
import os
from fractions import Fraction
from pathlib import Path

import pytest

import runebook
from runebook.dsl.diagnostics import RunebookError

REPO = Path(__file__).resolve().parent.parent
HOMEBREW = REPO / "rulesets" / "mestezia" / "homebrew"

HIT = """\
check Hit (bonus: number = 0)
  roll d = 1d6
  result total = d + bonus
  result hit = total >= 5

procedure Twice (bonus: number = 0)
  let first = Hit(bonus)
  let second = Hit(bonus)
  result hits = (1 if first.hit else 0) + (1 if second.hit else 0)
"""


@pytest.fixture
def hit(tmp_path: Path) -> Path:
    path = tmp_path / "hit.rules"
    path.write_text(HIT, encoding="utf-8")
    return path


def test_resolve_a_check_of_one_file_with_given_dice(cli, hit: Path) -> None:  # type: ignore[no-untyped-def]
    run = cli("resolve", str(hit), "Hit", "--with", "bonus=1", "--dice", "4", "--json")
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout)["results"] == {"total": 5, "hit": True}


def test_odds_of_one_file_takes_inputs(cli, hit: Path) -> None:  # type: ignore[no-untyped-def]
    # Before, `odds FILE CHECK --with ...` read FILE as a dice expression and refused --with.
    run = cli("odds", str(hit), "Hit", "--with", "bonus=2", "--json")
    assert run.code == 0, run.stderr
    total = json.loads(run.stdout)["results"]["total"]
    assert total == {str(n): "1/6" for n in range(3, 9)}


def test_run_a_procedure_of_one_file_and_its_exact_odds(cli, hit: Path) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", str(hit), "Twice", "--dice", "5,2", "--json")
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout)["results"] == {"hits": 1}
    # Two rolls, each a hit on 5 or 6 (1/3): 0, 1 or 2 hits with 4/9, 4/9, 1/9.
    odds = runebook.load(str(hit)).odds("Twice")
    assert dict(odds.results["hits"].items()) == {0: Fraction(4, 9), 1: Fraction(4, 9), 2: Fraction(1, 9)}


def test_a_relative_path_from_the_working_directory(cli, hit: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(hit.parent)
    run = cli("resolve", "hit.rules", "Hit", "--dice", "6")
    assert run.code == 0, run.stderr
    assert "total: 6" in run.stdout


def test_one_homebrew_file_is_read_on_top_of_the_game_it_extends(cli) -> None:  # type: ignore[no-untyped-def]
    # The tour's homebrew heal, named by its file rather than its folder: the same result
    # (2, 6 and 6 against Threshold 8 is a Medium: the target's Jolt, 7 HP).
    args = ["--as", str(HOMEBREW / "mender.yaml"), "--against", str(HOMEBREW / "wounded.yaml"), "--dice", "2,6,6",
            "--json"]
    by_file = cli("run", str(HOMEBREW / "powers.rules"), "Mending Touch", *args)
    by_folder = cli("run", str(HOMEBREW), "Mending Touch", *args)
    assert by_file.code == 0, by_file.stderr
    assert json.loads(by_file.stdout)["results"]["healed"] == 7
    assert json.loads(by_file.stdout)["results"] == json.loads(by_folder.stdout)["results"]


def test_a_file_saved_again_is_read_again(hit: Path) -> None:
    assert runebook.load(str(hit)).resolve("Hit", dice=[3]).results["total"] == 3
    hit.write_text(HIT.replace("d + bonus", "d + bonus + 10"), encoding="utf-8")
    stat = hit.stat()
    os.utime(hit, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert runebook.load(str(hit)).resolve("Hit", dice=[3]).results["total"] == 13


def test_the_errors_of_one_file_point_into_it(tmp_path: Path) -> None:
    bad = tmp_path / "bad.rules"
    bad.write_text("check Hit ()\n  roll d = 1d6\n  result total = d + bonsu\n", encoding="utf-8")
    with pytest.raises(RunebookError) as raised:
        runebook.load(str(bad))
    (diagnostic,) = raised.value.diagnostics
    assert diagnostic.code == "E0207" and diagnostic.span.line == 3
    assert diagnostic.source.name.endswith("bad.rules")


def test_a_path_that_is_not_there_says_so(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run = cli("resolve", str(tmp_path / "missing.rules"), "Hit")
    assert run.code == 2
    assert "E0006 unknown game" in run.stderr
    assert "no such file or folder" in run.stderr and "one .rules file" in run.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    run = cli("odds", str(empty), "Hit")
    # A folder without .rules files is no game: read as a dice expression it is refused too.
    assert run.code != 0


def test_a_built_in_name_still_suggests_the_closest(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("resolve", "mezo", "Action")
    assert run.code == 2 and "did you mean 'mezzo'?" in run.stderr


def test_a_file_of_a_folder_game_read_alone_says_so(cli) -> None:  # type: ignore[no-untyped-def]
    # actions.rules reads levels and checks its sibling files declare: alone, names are
    # unknown, and the first error says the file was read alone and names its folder.
    run = cli("run", str(REPO / "rulesets" / "mezzo" / "actions.rules"), "Action")
    assert run.code != 0
    assert "actions.rules was read alone: if it is one file of the game in its folder, give the folder (mezzo/)" \
        in run.stderr
    assert run.stderr.count("was read alone") == 1


def test_a_file_alone_in_its_folder_gets_no_such_note(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = tmp_path / "bad.rules"
    bad.write_text("check Hit ()\n  result total = bonsu\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for name in (str(bad), "bad.rules"):  # named relatively too: the file is not its own sibling
        with pytest.raises(RunebookError) as raised:
            runebook.load(name)
        assert all("read alone" not in (d.help or "") for d in raised.value.diagnostics)


def test_an_error_no_sibling_could_mend_gets_no_such_note(tmp_path: Path) -> None:
    (tmp_path / "other.rules").write_text("check Other ()\n  result one = 1\n", encoding="utf-8")
    twice = tmp_path / "twice.rules"
    twice.write_text("check Hit (bonus: number = 0, bonus: number = 1)\n  result total = bonus\n", encoding="utf-8")
    with pytest.raises(RunebookError) as raised:
        runebook.load(str(twice))
    assert [d.code for d in raised.value.diagnostics] == ["E0304"]
    assert "read alone" not in (raised.value.diagnostics[0].help or "")


def test_odds_of_a_file_without_a_check_asks_for_one(cli, hit: Path) -> None:  # type: ignore[no-untyped-def]
    # Before, the path was read as a dice expression ("unexpected '/tmp/...'").
    run = cli("odds", str(hit))
    assert run.code == 2
    assert f"'{hit}' is a game; name one of its checks or procedures" in run.stderr


@pytest.mark.parametrize("command", ["resolve", "run", "odds", "export"])
def test_a_name_the_system_refuses_is_an_unknown_game_not_a_crash(cli, command: str) -> None:  # type: ignore[no-untyped-def]
    # A name longer than any file name (ENAMETOOLONG) or holding a NUL byte (ValueError):
    # probing it as a path must not escape as an internal error.
    for name in ("a" * 5000 + ".rules", "bad\0name.rules"):
        args = [command, name] if command == "export" else [command, name, "Hit"]
        run = cli(*args)
        assert run.code in (1, 2), run.stderr
        assert "internal error" not in run.stderr and "Traceback" not in run.stderr
