"""`runebook tour`: every built-in game, checked, with a seeded check or procedure and its exact odds."""

from __future__ import annotations

import contextlib
import io

import pytest

from runebook.interpreter.cli.main import main


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


def test_the_tour_plays_a_whole_mezzo_conflict_and_challenge(tours) -> None:  # type: ignore[no-untyped-def]
    """The README's Take Median conflict (a law, eliminations, a d12 roll-off won by fight)
    and its challenge among three, with their answers and dice (issue 12)."""
    mezzo = tours[0][1].split("== mezzo:")[1].split("\n== ")[0]
    conflict = mezzo.split('$ runebook run mezzo "Conflict"')[1].split("$ runebook")[0]
    assert "=> first_tie: [parley, fight]" in conflict and "=> winner: fight" in conflict
    challenge = mezzo.split('$ runebook run mezzo "Challenge"')[1].split("$ runebook")[0]
    assert "=> left: [victory, victory, defeat]" in challenge


def test_tour_is_reproducible(tours) -> None:  # type: ignore[no-untyped-def]
    assert tours[0][1] == tours[1][1]


def test_the_tour_opens_with_a_homebrew_power(tours) -> None:  # type: ignore[no-untyped-def]
    stdout = tours[0][1]
    first = stdout.split("\n== ")[1]
    assert first.startswith("A power as the book prints it")
    assert "   | Check: [Will]" in first
    assert "$ runebook check rulesets/mestezia/homebrew/powers.rules" in first and "no errors" in first
    assert '$ runebook odds rulesets/mestezia/homebrew "Mending Touch"' in first


def _printed_commands(stdout: str) -> list[str]:
    return [line.strip()[2:] for line in stdout.splitlines() if line.strip().startswith("$ runebook ")]


def test_every_command_the_tour_prints_runs_from_the_repository_root(tours, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import shlex
    from pathlib import Path

    monkeypatch.chdir(Path(__file__).resolve().parent.parent)
    commands = _printed_commands(tours[0][1])
    assert len(commands) >= 10
    for command in commands:
        args = shlex.split(command)[1:]
        run = cli(*args)
        assert run.code == 0, f"{command}\n{run.stderr}"
