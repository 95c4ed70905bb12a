"""What a run's ``state`` shows: the procedure's own values and the characters, never the
names a loop keeps for itself (``for each`` walks its list through ``#items3``/``#at4``,
names no author can write, which the state and ``run --json`` used to list)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from runebook import interpreter

GAME = """\
procedure Tally (xs: list of number = [1, 2, 3])
  let total = 0
  for each x in xs
    set total = total + x
  result total = total
"""


def test_a_loops_bookkeeping_is_not_part_of_the_state(tmp_path: Path) -> None:
    game = tmp_path / "tally.rules"
    game.write_text(GAME)
    run = interpreter.load(str(game)).run("Tally")
    assert run.results == {"total": 6}
    assert run.state == {"total": 6, "x": 3}


def test_run_json_shows_no_loop_bookkeeping(tmp_path: Path) -> None:
    game = tmp_path / "tally.rules"
    game.write_text(GAME)
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-m", "runebook", "run", str(game), "Tally", "--json"],
                          capture_output=True, text=True, cwd=root, check=True)
    state = json.loads(done.stdout)["state"]
    assert state["total"] == 6 and not [k for k in state if "#" in k]
