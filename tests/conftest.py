"""Shared fixtures: running the command line in-process and isolating input files."""

from __future__ import annotations

import shutil
from pathlib import Path

import attrs
import pytest

from runebook.interpreter.cli.main import main

REPO = Path(__file__).resolve().parent.parent
CASES = Path(__file__).resolve().parent / "cases"


@attrs.frozen
class Run:
    """One command-line run: what a terminal would see."""

    args: tuple[str, ...]
    code: int
    stdout: str
    stderr: str

    def show(self) -> str:
        return (
            f"$ runebook {' '.join(self.args)}\nexit: {self.code}\n"
            f"--- stdout\n{self.stdout}--- stderr\n{self.stderr}"
        )


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]):
    """``cli("check", "x.rules")`` runs runebook in-process and captures its output."""

    def run(*args: str) -> Run:
        capsys.readouterr()
        code = main(list(args))
        out, err = capsys.readouterr()
        return Run(tuple(args), code, out, err)

    return run


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Copy an input file alone into a fresh folder and make that the working directory."""

    def place(source: Path | None = None, *, name: str | None = None, data: bytes | None = None) -> str:
        target = tmp_path / (name or source.name)  # type: ignore[union-attr]
        if data is not None:
            target.write_bytes(data)
        else:
            shutil.copyfile(source, target)  # type: ignore[arg-type]
        monkeypatch.chdir(tmp_path)
        return target.name

    return place
