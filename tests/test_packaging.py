"""The wheel carries grammar/ and rulesets/: an installed runebook works from any folder."""

from __future__ import annotations

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from runebook.interpreter import __version__

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(REPO)],
                   check=True, capture_output=True)
    return next(out.glob("runebook-*.whl"))


def test_the_wheel_is_named_for_the_version_the_command_reports(wheel: Path, cli) -> None:  # type: ignore[no-untyped-def]
    assert wheel.name.startswith(f"runebook-{__version__}-")
    shown = cli("--version")
    assert (shown.code, shown.stdout) == (0, f"runebook {__version__}\n")


def test_wheel_contains_grammar_and_rulesets(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "runebook/grammar/rules.lark" in names and "runebook/grammar/expr.lark" in names
    for game in ("mezzo", "mestezia", "d10-pool", "mettle", "questworlds"):
        assert any(n.startswith(f"runebook/rulesets/{game}/") and n.endswith(".rules") for n in names), game
        assert f"runebook/rulesets/{game}/README.md" in names
    assert "runebook/rulesets/questworlds/LICENSE" in names
    for typed in ("runebook/py.typed", "runebook/dsl/py.typed", "runebook/interpreter/py.typed"):
        assert typed in names  # typed for embedders (PEP 561)
    # The interpreter's sub-packages (the console script is runebook.interpreter.cli.main:main).
    for module in ("core/evaluate", "rules/model", "markov/chains", "cli/main", "cli/commands/tour"):
        assert f"runebook/interpreter/{module}.py" in names, module


def test_the_wheel_installs_one_top_level_name(wheel: Path) -> None:
    """An embedder's environment gains `runebook` and nothing else that can collide."""
    archive = zipfile.ZipFile(wheel)
    tops = {name.split("/")[0] for name in archive.namelist() if not name.split("/")[0].endswith(".dist-info")}
    assert tops == {"runebook"}
    top_level = next(n for n in archive.namelist() if n.endswith(".dist-info/top_level.txt"))
    assert archive.read(top_level).decode().split() == ["runebook"]


def test_every_package_of_the_tree_is_in_the_wheel(wheel: Path) -> None:
    """pyproject.toml lists the packages by hand (each folder maps under `runebook.`): a new
    sub-package left off the list would be missing from every installed copy."""
    names = set(zipfile.ZipFile(wheel).namelist())
    for top in ("dsl", "interpreter", "grammar", "rulesets"):
        for init in (REPO / top).rglob("__init__.py"):
            inside = init.relative_to(REPO).as_posix()
            assert f"runebook/{inside}" in names, inside


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the wheel installed: its folder."""
    env_dir = tmp_path_factory.mktemp("installed") / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    subprocess.run([str(env_dir / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)],
                   check=True, capture_output=True)
    return env_dir


def test_installed_runebook_checks_a_builtin_game_from_elsewhere(installed: Path, wheel: Path, tmp_path: Path) -> None:
    env_dir = installed
    python = env_dir / "bin" / "python"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = subprocess.run([str(env_dir / "bin" / "runebook"), "check", "--game", "mestezia",
                             str(REPO / "tests" / "cases" / "homebrew" / "clean_upgrade.rules")],
                            cwd=elsewhere, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    import_check = subprocess.run([str(python), "-c", "import runebook.dsl.loader as l; print(sorted(l.builtin_games()))"],
                                  cwd=elsewhere, capture_output=True, text=True)
    assert "mestezia" in import_check.stdout, import_check.stderr
    version = subprocess.run([str(env_dir / "bin" / "runebook"), "--version"], cwd=elsewhere, capture_output=True,
                             text=True)
    assert version.returncode == 0 and version.stdout.strip() == f"runebook {wheel.name.split('-')[1]}"

    public = subprocess.run([str(python), "-c", "import runebook; print(runebook.roll('4d6kh3', dice=[6, 2, 5, 1]).total)"],
                            cwd=elsewhere, capture_output=True, text=True)
    assert public.stdout.strip() == "13", public.stderr
    for name in ("interpreter", "dsl", "grammar", "rulesets"):
        gone = subprocess.run([str(python), "-c", f"import {name}"], cwd=elsewhere, capture_output=True, text=True)
        assert gone.returncode != 0 and "ModuleNotFoundError" in gone.stderr, name


def test_a_client_of_the_public_api_passes_mypy_strict(installed: Path, tmp_path: Path) -> None:
    """An embedder's script, type-checked against the installed wheel (its py.typed), runs."""
    client = REPO / "tests" / "cases" / "client" / "bot.py"
    checked = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                              "--python-executable", str(installed / "bin" / "python"), str(client)],
                             cwd=tmp_path, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    ran = subprocess.run([str(installed / "bin" / "python"), str(client)], cwd=tmp_path, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines()[1:4] == ["7/12", '{"grade": "Low", "successes": 1}', "True"]
