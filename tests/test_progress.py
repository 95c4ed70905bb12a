"""The progress line of long exact odds: told every state, shown only on a terminal, after a
second, and erased at the end."""

from __future__ import annotations

import io
from pathlib import Path

from runebook.interpreter.cli.progress import Progress
from runebook.interpreter.rules import load

REPO = Path(__file__).resolve().parent.parent


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_exact_odds_report_each_state_explored() -> None:
    seen: list[int] = []
    rules = load("questworlds")
    odds = rules.odds("scored contest", ability="15", resistance="14", progress=seen.append)
    assert seen == list(range(odds.states))


def test_the_line_waits_a_second_and_is_erased() -> None:
    now = [0.0]
    stream = _Terminal()
    progress = Progress(stream, "odds of X", clock=lambda: now[0])
    progress(10)
    assert stream.getvalue() == ""  # under a second: nothing
    now[0] = 1.5
    progress(300)
    assert stream.getvalue() == "\rodds of X: 300 states explored, 1.5 s"
    now[0] = 1.6
    progress(320)  # within a fifth of a second of the last line: not again
    assert stream.getvalue().count("\r") == 1
    progress.close()
    assert stream.getvalue().endswith("\r" + " " * len("odds of X: 300 states explored, 1.5 s") + "\r")


def test_nothing_when_stderr_is_not_a_terminal() -> None:
    now = [5.0]
    stream = io.StringIO()
    progress = Progress(stream, "odds", clock=lambda: now[0])
    now[0] = 60.0
    progress(1_000)
    progress.close()
    assert stream.getvalue() == ""
