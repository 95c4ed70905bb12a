"""Character, NPC and party files checked by `runebook check` (``--game``, or ``game:`` in
the file). The .rules files of a check need only the front end (dsl.model); a character file
is read the way a run reads it, by the rules layer's entity reader."""

from __future__ import annotations

from runebook.dsl.diagnostics import Diagnostic, RunebookError
from runebook.dsl.source import Span
from runebook.interpreter.rules import load
from runebook.interpreter.rules.yamlfile import read_yaml

__all__ = ["CHARACTER_FILES", "character_problems"]

#: The endings of a character file.
CHARACTER_FILES = (".yaml", ".yml")


def character_problems(paths: list[str], game: str | None) -> list[Diagnostic]:
    """Character, NPC and party files checked against their game (``--game``, or a ``game:``
    line in the file): stats, resources and conditions as a run would read them."""
    found: list[Diagnostic] = []
    for raw in paths:
        named = game
        if named is None:
            try:
                source, _, data = read_yaml(raw)
            except RunebookError as error:
                found.extend(error.diagnostics)
                continue
            named = data.get("game") if isinstance(data, dict) and isinstance(data.get("game"), str) else None
            if named is None:
                found.append(Diagnostic.make("E0007", source, Span.point(1, 1),
                                             help="give it with --game GAME, or put a line 'game: GAME' in the file"))
                continue
        try:
            load(named).entities(raw)
        except RunebookError as error:
            found.extend(error.diagnostics)
    return found
