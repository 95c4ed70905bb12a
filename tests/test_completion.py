"""`runebook completion`: the bash script run by bash completes commands, options, games and a
game's checks; the zsh and fish scripts carry the same words."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def shell_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A PATH whose `runebook` is this checkout's (the script calls it for a game's names)."""
    bin_dir = tmp_path_factory.mktemp("bin")
    wrapper = bin_dir / "runebook"
    wrapper.write_text(f'#!/bin/sh\ncd "{REPO}" && exec "{sys.executable}" -m runebook "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}


def _complete(cli, env: dict[str, str], *words: str) -> list[str]:  # type: ignore[no-untyped-def]
    script = cli("completion", "bash").stdout
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    program = (f"{script}\nCOMP_WORDS=(runebook {quoted}); COMP_CWORD={len(words)}; _runebook; "
               "printf '%s\\n' \"${COMPREPLY[@]}\"")
    done = subprocess.run(["bash", "-c", program], capture_output=True, text=True, env=env, cwd=REPO, timeout=60)
    assert done.returncode == 0, done.stderr
    return [line for line in done.stdout.splitlines() if line]


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_completes_commands_options_games_and_checks(cli, shell_env) -> None:  # type: ignore[no-untyped-def]
    assert _complete(cli, shell_env, "re") == ["resolve"]
    assert set(_complete(cli, shell_env, "odds", "--f")) == {"--format"}
    assert "--trace" in _complete(cli, shell_env, "run", "--t")
    assert "questworlds" in _complete(cli, shell_env, "run", "quest")
    assert "Scored\\ Contest" in _complete(cli, shell_env, "odds", "questworlds", "Scored")


def test_names_of_a_game_and_of_nothing(cli) -> None:  # type: ignore[no-untyped-def]
    names = cli("completion", "--names", "questworlds").stdout.splitlines()
    assert "Scored Contest" in names and "Contest" in names
    nothing = cli("completion", "--names", "no-such-game")
    assert (nothing.code, nothing.stdout, nothing.stderr) == (0, "", "")


def test_zsh_and_fish_scripts_carry_the_same_words(cli) -> None:  # type: ignore[no-untyped-def]
    zsh, fish = cli("completion", "zsh").stdout, cli("completion", "fish").stdout
    for word in ("check", "fmt", "odds", "mestezia", "completion --names"):
        assert word in zsh and word in fish, word
    assert "--trace" in zsh and "-l trace" in fish
    assert cli("completion").code == 2
