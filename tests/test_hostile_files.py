"""Hostile files: devices, FIFOs, symlinks out of the checked folder, YAML bombs (issue 15).

Each case here hung, exhausted memory, leaked an outside file into the log or crashed with
an internal error before the safe reader (dsl.files) and the YAML limits.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from runebook.dsl.diagnostics import RunebookError
from runebook.dsl.files import FileRefused, read_limited
from runebook.interpreter.rules.yamlfile import YamlLimits, read_yaml

SECRET = "SECRET-LINE-do-not-print"


@pytest.fixture
def hostile_folder(tmp_path: Path) -> Path:
    """A ruleset folder with a symlink to /dev/zero, a FIFO and a symlink to an outside file."""
    game = tmp_path / "game"
    game.mkdir()
    outside = tmp_path / "outside.rules"
    outside.write_text(f"stats: {SECRET}\n")  # an error whose caret line would show it
    (game / "zero.rules").symlink_to("/dev/zero")
    os.mkfifo(game / "pipe.rules")
    (game / "leak.rules").symlink_to(outside)
    (game / "fine.rules").write_text("# nothing yet\n")
    return game


def test_check_of_a_hostile_folder_is_quick_and_reports_each(cli, hostile_folder: Path) -> None:  # type: ignore[no-untyped-def]
    started = time.monotonic()
    run = cli("check", str(hostile_folder))
    assert time.monotonic() - started < 2
    assert run.code == 1
    lines = run.stderr.splitlines()
    assert any("zero.rules: E0012" in line for line in lines)
    assert any("leak.rules: E0012" in line for line in lines)
    assert any("pipe.rules: E0011" in line and "FIFO" in line for line in lines)
    assert SECRET not in run.stdout + run.stderr
    assert "checked 4 files" in run.stdout


def test_follow_symlinks_reads_outside_files_but_never_a_device(cli, hostile_folder: Path) -> None:  # type: ignore[no-untyped-def]
    run = cli("check", "--follow-symlinks", str(hostile_folder))
    assert "zero.rules: E0011" in run.stderr and "a device" in run.stderr
    assert "leak.rules:1:1" in run.stderr and SECRET in run.stderr  # read now: its own errors


def test_a_symlink_inside_the_folder_is_followed(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "real.rules").write_text("# nothing yet\n")
    (tmp_path / "alias.rules").symlink_to(tmp_path / "real.rules")
    run = cli("check", str(tmp_path))
    assert run.code == 0, run.stderr


def test_reading_is_bounded_by_bytes_read_not_reported_size(tmp_path: Path) -> None:
    big = tmp_path / "big.rules"
    big.write_bytes(b"x" * 2000)
    assert read_limited(big, 2000) == b"x" * 2000
    with pytest.raises(FileRefused) as refused:
        read_limited(big, 1999)
    assert refused.value.code == "E0004"
    with pytest.raises(FileRefused) as refused:
        read_limited(Path("/dev/zero"), 10)  # reports size 0
    assert refused.value.code == "E0011"


def test_a_file_named_on_the_command_line_that_is_a_fifo(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    fifo = tmp_path / "x.rules"
    os.mkfifo(fifo)
    run = cli("check", str(fifo))
    assert "E0011" in run.stderr and run.code == 1


def _yaml_error(tmp_path: Path, text: str, limits: YamlLimits | None = None) -> str:
    path = tmp_path / "x.yaml"
    path.write_text(text)
    started = time.monotonic()
    with pytest.raises(RunebookError) as error:
        read_yaml(path, limits)
    assert time.monotonic() - started < 1
    return str(error.value)


def _alias_bomb(levels: int) -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    return "powers:\n" + "\n".join("  " + line for line in lines) + "\n"


def test_yaml_alias_bomb_is_refused_with_a_position(tmp_path: Path) -> None:
    text = _alias_bomb(9)  # 9**9 values once expanded, about 600 bytes
    assert len(text) < 700
    message = _yaml_error(tmp_path, text)
    assert "x.yaml:2:" in message and "E0013" in message and "100,000 values" in message


def test_yaml_aliases_within_the_limit_load(tmp_path: Path) -> None:
    path = tmp_path / "ok.yaml"
    path.write_text(_alias_bomb(3))
    _, _, data = read_yaml(path)
    assert len(data["powers"]["a2"]) == 9 and data["powers"]["a2"][0][0] == ["x"] * 9


def test_yaml_nested_1000_deep(tmp_path: Path) -> None:
    message = _yaml_error(tmp_path, "a: " + "[" * 1000 + "]" * 1000 + "\n")
    assert "x.yaml:1:" in message and "nesting deeper than 64" in message


def test_yaml_number_of_5000_digits(tmp_path: Path) -> None:
    message = _yaml_error(tmp_path, "stats:\n  might: " + "7" * 5000 + "\n")
    assert "x.yaml:2:10" in message and "5,000 digits" in message


def test_yaml_size_limit_and_devices(tmp_path: Path) -> None:
    message = _yaml_error(tmp_path, "a: " + "b" * 200 + "\n", YamlLimits(max_bytes=100))
    assert "E0004" in message
    with pytest.raises(RunebookError, match="E0011"):
        read_yaml("/dev/zero")
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    with pytest.raises(RunebookError, match="E0011"):
        read_yaml(fifo)


def test_a_character_file_that_is_a_device_through_the_cli(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "mestezia", "Berserker Charge", "--as", "/dev/zero")
    assert run.code in (1, 2) and "E0011" in run.stderr and "internal error" not in run.stderr
