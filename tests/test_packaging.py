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
    assert "grammar/rules.lark" in names and "grammar/expr.lark" in names
    for game in ("mezzo", "mestezia", "d10-pool", "mettle", "questworlds"):
        assert any(n.startswith(f"rulesets/{game}/") and n.endswith(".rules") for n in names), game
        assert f"rulesets/{game}/README.md" in names
    assert "rulesets/questworlds/LICENSE" in names
    assert "dsl/py.typed" in names and "interpreter/py.typed" in names  # typed for embedders (PEP 561)
    # The interpreter's sub-packages (the console script is interpreter.cli.main:main).
    for module in ("core/evaluate", "rules/model", "markov/chains", "cli/main", "cli/commands/tour"):
        assert f"interpreter/{module}.py" in names, module


def test_installed_runebook_checks_a_builtin_game_from_elsewhere(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", str(wheel)], check=True, capture_output=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = subprocess.run([str(env_dir / "bin" / "runebook"), "check", "--game", "mestezia",
                             str(REPO / "tests" / "cases" / "homebrew" / "clean_upgrade.rules")],
                            cwd=elsewhere, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    import_check = subprocess.run([str(python), "-c", "import dsl.loader as l; print(sorted(l.builtin_games()))"],
                                  cwd=elsewhere, capture_output=True, text=True)
    assert "mestezia" in import_check.stdout, import_check.stderr
    version = subprocess.run([str(env_dir / "bin" / "runebook"), "--version"], cwd=elsewhere, capture_output=True,
                             text=True)
    assert version.returncode == 0 and version.stdout.strip() == f"runebook {wheel.name.split('-')[1]}"
