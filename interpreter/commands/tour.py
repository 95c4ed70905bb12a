"""`runebook tour`: a guided run through every built-in game."""

from __future__ import annotations

import argparse
from collections import Counter

from dsl.loader import builtin_games, load_game
from dsl.diagnostics import Diagnostic

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("tour", help="a guided run through every built-in game")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from interpreter.cli import EXIT_ERRORS, EXIT_OK

    failed = False
    games = builtin_games()
    print(f"Runebook ships {len(games)} games as data. Each is checked, then summarised.\n")
    for folder in games.values():
        ruleset = load_game(str(folder))
        if isinstance(ruleset, Diagnostic):
            failed = True
            continue
        errors = [d for d in ruleset.diagnostics if d.severity == "error"]
        failed |= bool(errors)
        print(f"== {folder.name} ({len(ruleset.files)} files) " + ("ok" if not errors else f"{len(errors)} errors"))
        vocab = ruleset.vocabulary
        print(f"   {len(vocab.stats)} stats, {len(vocab.names)} other names, {len(vocab.kinds)} entry kinds")
        kinds = Counter(e.kind or "?" for e in ruleset.entries)
        for kind, count in kinds.most_common():
            examples = [e.entry.name for e in ruleset.entries if (e.kind or "?") == kind][:3]
            print(f"   {count:4d} {kind}: {', '.join(examples)}{', ...' if count > 3 else ''}")
        print()
    return EXIT_ERRORS if failed else EXIT_OK
