"""`runebook tour`: every built-in game, checked, with a seeded check and its exact odds."""

from __future__ import annotations


def test_tour_visits_every_game(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("tour")
    assert run.code == 0, run.stderr
    for game in ("d10-pool", "mestezia", "mettle", "mezzo", "questworlds"):
        assert f"== {game}:" in run.stdout
        assert f"$ runebook resolve {game} " in run.stdout
    assert run.stdout.count("Exact odds of") == 5
    assert "Traceback" not in run.stderr


def test_tour_is_reproducible(cli) -> None:  # type: ignore[no-untyped-def]
    assert cli("tour", "--seed", "7").stdout == cli("tour", "--seed", "7").stdout
