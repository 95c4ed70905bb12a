"""Character, NPC, party and choices files checked by `runebook check` (``--game``, or
``game:`` in the file). The .rules files of a check need only the front end (dsl.model); a
character file is read the way a run reads it, by the rules layer's entity reader, and a
choices file against the procedure it answers (interpreter.cli.choice_files)."""

from __future__ import annotations

from pathlib import Path

from runebook.dsl.diagnostics import Diagnostic, RunebookError
from runebook.dsl.loader import builtin_games, probe
from runebook.dsl.vocabulary import fold
from runebook.dsl.source import Span
from runebook.interpreter.cli.choice_files import choices_problems, is_choices_file
from runebook.interpreter.rules import load
from runebook.interpreter.rules.yamlfile import read_yaml

__all__ = ["CHARACTER_FILES", "character_problems"]

#: The endings of a character file.
CHARACTER_FILES = (".yaml", ".yml")


def character_problems(paths: list[str], game: str | None, procedure: str | None = None) -> list[Diagnostic]:
    """Character, NPC, party and choices files checked against their game (``--game``, or a
    ``game:`` line in the file): stats, resources and conditions as a run would read them;
    a choices file's answers against the procedure it names (its ``procedure:`` line, or ``procedure``)."""
    found: list[Diagnostic] = []
    for raw in paths:
        try:
            source, root, data = read_yaml(raw)
        except RunebookError as error:
            found.extend(error.diagnostics)
            continue
        named = game
        if named is None:
            named = data.get("game") if isinstance(data, dict) and isinstance(data.get("game"), str) else None
            if named is None:
                found.append(Diagnostic.make("E0007", source, Span.point(1, 1),
                                             help="give it with --game GAME, or put a line 'game: GAME' in the file"))
                continue
            named = _beside(named, Path(raw).parent)
        try:
            rules = load(named)
            if is_choices_file(data):
                found.extend(choices_problems(source, root, data, rules, procedure))
            else:
                rules.entities(raw)
        except RunebookError as error:
            found.extend(error.diagnostics)
    return found


def _beside(game: str, folder: Path) -> str:
    """A ``game:`` line's game: a built-in name as it is; a relative path from the file's own
    folder when it names something there (the file is the same wherever `check` runs from),
    else as written (from the current folder)."""
    if fold(game) in builtin_games() or Path(game).is_absolute():
        return game
    beside = folder / game
    return str(beside) if probe(beside, "exists") else game
