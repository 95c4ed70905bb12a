"""What several METTLE Core test files share: the example files, running the command line
for its JSON, choices files, and refusals that must name a rule and change no file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

GAME = "mettle"
EXAMPLES = Path(__file__).resolve().parent.parent / "rulesets" / "mettle" / "examples"


def ex(name: str) -> str:
    """The path of an example file: ``ex("kirin")``."""
    return str(EXAMPLES / f"{name}.yaml")


def with_extra(tmp_path: Path, source: str, name: str, extra: str) -> str:
    """A copy of ``source`` with YAML lines added (resources, conditions, data)."""
    path = tmp_path / name
    path.write_text(Path(source).read_text() + extra)
    return str(path)


def answers(tmp_path: Path, *given: str) -> str:
    """A choices file answering in the order given."""
    path = tmp_path / "answers.yaml"
    path.write_text("".join(f"- {a}\n" for a in given))
    return str(path)


def run(cli: Any, *args: str, game: str = GAME) -> dict:
    """``runebook run GAME ARGS --json``, which must succeed: its JSON payload."""
    out = cli("run", game, *args, "--json")
    assert out.code == 0, out.stderr
    return json.loads(out.stdout)


def refused(cli: Any, rule: str, *args: str, game: str = GAME) -> None:
    """``runebook run`` refuses with E0613 naming ``rule``, exit 1, and the entity files
    (after ``--as`` and ``--against``) are unchanged."""
    files = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("--as", "--against")]
    before = {f: Path(f).read_bytes() for f in files}
    out = cli("run", game, *args)
    assert out.code == 1 and "E0613" in out.stderr and f"'{rule}' requires" in out.stderr, out.stderr
    assert all(Path(f).read_bytes() == b for f, b in before.items())
