"""The interpreter knows no game: no game names or game terms in the generic packages."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GENERIC = ("dsl", "interpreter", "grammar")

# Game names, and terms each game owns (the words its rules are built on).
FORBIDDEN = [
    r"mezzo", r"mestezia", r"quest ?worlds", r"mettle", r"d10.?pool", r"storypath", r"scion",
    r"\bmaster(y|ies)\b", r"\bmomentum\b", r"\bbreakthrough", r"\bsetback", r"\bhero points?\b",
    r"\bbumps?\b", r"\bconcept\b", r"\bpoise\b", r"\bmotive\b", r"\bcp\b", r"\bfp\b", r"\bjolt\b",
    r"\badversity\b", r"\bedge slot", r"\bvotes?\b", r"\btrumps?\b", r"\bbotch", r"\btwists?\b",
    r"\b10.again\b", r"\benhancement\b", r"\bresistance class", r"\baugment", r"\bupgrade", r"\bweapon", r"\bsurges?\b", r"\bbloodied\b",
    r"\bbreakout", r"\bpyrrhic\b",
]


def _sources() -> list[Path]:
    return [p for package in GENERIC for p in (REPO / package).rglob("*") if p.suffix in (".py", ".lark")]


def test_generic_packages_name_no_game_and_no_game_term() -> None:
    hits = []
    for path in _sources():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for pattern in FORBIDDEN:
                if re.search(pattern, line, re.IGNORECASE):
                    hits.append(f"{path.relative_to(REPO)}:{number}: {pattern!r}: {line.strip()}")
    assert hits == []


def test_the_check_itself_can_fail(tmp_path: Path) -> None:
    leak = tmp_path / "leak.py"
    leak.write_text("MASTERY_SYMBOL = 'M'  # QuestWorlds\n")
    line = leak.read_text()
    assert any(re.search(p, line, re.IGNORECASE) for p in FORBIDDEN)
