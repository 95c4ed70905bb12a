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


def fighter(tmp_path: Path, name: str, **changes: object) -> str:
    """A combatant file: the bandit's numbers with some changed (stats, resources, conditions)."""
    stats = {"CONCEPT": 3, "FRAME": 3, "MOTIVE": 3, "NATURE": 3, "POISE": 3, "Armor": 0, "Hit": 0, "DM": 4,
             "Range": 0, "Parry": 0, "Zone": 1}
    extra = {k: v for k, v in changes.items() if k in ("resources", "conditions", "weapon")}
    stats.update({k: v for k, v in changes.items() if k not in extra})
    data = {"name": name, "stats": stats, "weapon": "Club", **extra}
    if changes.get("weapon") is None and "weapon" in changes:
        del data["weapon"]
    path = tmp_path / f"{name.lower()}.yaml"
    path.write_text(json.dumps(data))  # JSON is YAML
    return str(path)
