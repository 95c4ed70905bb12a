"""`runebook tour`: every built-in game, checked, with a seeded check or procedure and its exact odds."""

from __future__ import annotations

import contextlib
import io

import pytest

from interpreter.cli.main import main


@pytest.fixture(scope="module")
def tours() -> list[tuple[int, str, str]]:
    """The tour, twice with one seed (it takes a few seconds: run it once per module)."""
    found = []
    for _ in range(2):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["tour", "--seed", "7"])
        found.append((code, out.getvalue(), err.getvalue()))
    return found


def test_tour_visits_every_game(tours) -> None:  # type: ignore[no-untyped-def]
    code, stdout, stderr = tours[0]
    assert code == 0, stderr
    for game in ("d10-pool", "mestezia", "mettle", "mezzo", "questworlds"):
        assert f"== {game}:" in stdout
        assert f"$ runebook resolve {game} " in stdout or f"$ runebook run {game} " in stdout
    assert stdout.count("Exact odds of") == 5
    assert '$ runebook run questworlds "Scored Contest"' in stdout
    assert "Traceback" not in stderr


def test_tour_is_reproducible(tours) -> None:  # type: ignore[no-untyped-def]
    assert tours[0][1] == tours[1][1]
