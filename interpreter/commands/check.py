"""`runebook check [--game GAME] PATH... [--format text|json|github]`."""

from __future__ import annotations

import argparse
import json
import sys

from dsl.diagnostics import as_dict, render_github, render_text
from dsl.loader import check_paths

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("check", help="validate .rules files and folders",
                            description="Validate .rules files; exit 1 if any has errors.")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a .rules file or a folder of them")
    parser.add_argument("--game", help="the game that content files extend (a built-in name or a folder)")
    parser.add_argument("--format", choices=("text", "json", "github"), default="text",
                        help="how to print diagnostics (default: text)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from interpreter.cli import EXIT_ERRORS, EXIT_OK, EXIT_USAGE

    report = check_paths(args.paths, args.game)
    errors = [d for d in report.diagnostics if d.severity == "error"]
    if args.format == "json":
        payload = {
            "files": report.files,
            "entries": report.entries,
            "errors": len(errors),
            "diagnostics": [as_dict(d) for d in report.diagnostics],
        }
        print(json.dumps(payload, indent=2, ensure_ascii=False))
    elif args.format == "github":
        for diagnostic in report.diagnostics:
            print(render_github(diagnostic))
    else:
        for diagnostic in report.diagnostics:
            print(render_text(diagnostic), file=sys.stderr)
        noun = "file" if report.files == 1 else "files"
        verdict = "no errors" if not errors else f"{len(errors)} error{'s' if len(errors) != 1 else ''}"
        print(f"checked {report.files} {noun}, {report.entries} entries: {verdict}")
    if report.io_error:
        return EXIT_USAGE
    return EXIT_ERRORS if errors else EXIT_OK
