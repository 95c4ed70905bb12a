"""`runebook export GAME` (a game as JSON) and `runebook schema [export|character]` (the JSON
Schema a consumer validates it, or a character file, against)."""

from __future__ import annotations

import argparse
import json

from runebook.dsl.diagnostics import RunebookError
from runebook.dsl.export import export
from runebook.dsl.loader import load_game
from runebook.dsl.model import build_model
from runebook.dsl.schema import SCHEMAS, schema
from runebook.interpreter.cli.commands import EXIT_OK

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("export", help="a game as JSON: vocabulary, entries, tables, checks' signatures",
                            description="Print a game (a built-in name or a folder) as JSON, for tools that "
                            "consume its content; `runebook schema export` describes the shape.")
    parser.add_argument("game", metavar="GAME", help="a built-in game, a folder of .rules files or one .rules file")
    parser.add_argument("--format", choices=("json",), default="json", help="json (the only format so far)")
    parser.set_defaults(handler=run_export)
    schemas = sub.add_parser("schema", help="print a JSON Schema (export, character, roll, resolve, run, odds)",
                             description="Print the JSON Schema (draft 2020-12) of `runebook export` output "
                             "(export), of a character file's data (character), or of a command's --json output.")
    schemas.add_argument("name", nargs="?", choices=sorted(SCHEMAS), default="export", help="which schema")
    schemas.set_defaults(handler=run_schema)


def run_export(args: argparse.Namespace) -> int:
    loaded = load_game(args.game)
    if not hasattr(loaded, "files"):
        raise RunebookError([loaded])
    errors = [d for d in loaded.diagnostics if d.severity == "error"]
    model = build_model(loaded)
    errors += model.errors
    if errors:
        raise RunebookError(errors)  # an export is of a game that checks clean
    print(json.dumps(export(model), indent=2, ensure_ascii=False))
    return EXIT_OK


def run_schema(args: argparse.Namespace) -> int:
    print(json.dumps(schema(args.name), indent=2, ensure_ascii=False))
    return EXIT_OK
