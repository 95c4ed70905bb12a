"""The ``runebook`` command: argument parsing, dispatch and exit codes.

Each subcommand lives in ``interpreter/cli/commands/`` and exposes ``register(subparsers)``,
which adds its parser and sets ``handler`` (a function ``(args) -> int``).
Diagnostics go to stderr, results to stdout; no traceback ever reaches the user.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from dsl.diagnostics import RunebookError, render_text
from interpreter import __version__
from interpreter.cli.commands import EXIT_ERRORS, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE

__all__ = ["EXIT_ERRORS", "EXIT_INTERNAL", "EXIT_OK", "EXIT_USAGE", "main"]

#: Diagnostics that mean the command line named something that is not there.
USAGE_CODES = frozenset({"E0001", "E0005", "E0006"})

#: Subcommand modules, in the order `runebook --help` lists them.
COMMANDS = (
    "interpreter.cli.commands.check",
    "interpreter.cli.commands.fmt",
    "interpreter.cli.commands.resolve",
    "interpreter.cli.commands.dice",
    "interpreter.cli.commands.parse",
    "interpreter.cli.commands.tour",
    "interpreter.cli.commands.completion",
    "interpreter.cli.commands.lsp",
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"runebook: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="runebook",
        description="Validate, roll, resolve and compute exact odds for tabletop RPG rules.",
    )
    parser.add_argument("--version", action="version", version=f"runebook {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "handler", None):
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        return int(args.handler(args))
    except SystemExit as exit_:
        return int(exit_.code) if isinstance(exit_.code, int) else EXIT_USAGE
    except RunebookError as error:
        for diagnostic in error.diagnostics:
            print(render_text(diagnostic), file=sys.stderr)
        # A file that cannot be read or a game that does not exist is a usage problem.
        if all(d.code in USAGE_CODES and d.span is None for d in error.diagnostics):
            return EXIT_USAGE
        return EXIT_ERRORS
    except KeyboardInterrupt:
        print("runebook: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as error:  # noqa: BLE001 - the last line of defence
        if os.environ.get("RUNEBOOK_DEBUG"):
            raise
        print(f"runebook: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        print("This is a bug in runebook; set RUNEBOOK_DEBUG=1 to see where it happened.", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
