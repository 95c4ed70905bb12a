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

from runebook.dsl.diagnostics import RunebookError, render_text
from runebook.interpreter import __version__
from runebook.interpreter.cli.commands import EXIT_ERRORS, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE
from runebook.interpreter.core.limits import DEFAULT_LIMITS, Limits, parse_limit

__all__ = ["EXIT_ERRORS", "EXIT_INTERNAL", "EXIT_OK", "EXIT_USAGE", "main"]

#: Diagnostics that mean the command line named something that is not there.
USAGE_CODES = frozenset({"E0001", "E0005", "E0006", "E0014"})

#: Subcommand modules, in the order `runebook --help` lists them.
COMMANDS = (
    "runebook.interpreter.cli.commands.check",
    "runebook.interpreter.cli.commands.fmt",
    "runebook.interpreter.cli.commands.resolve",
    "runebook.interpreter.cli.commands.dice",
    "runebook.interpreter.cli.commands.parse",
    "runebook.interpreter.cli.commands.tour",
    "runebook.interpreter.cli.commands.export",
    "runebook.interpreter.cli.commands.completion",
    "runebook.interpreter.cli.commands.lsp",
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"runebook: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


#: The module of each command, so that one command's run imports only what it needs
#: (`completion` is not here: it reads every command's parser).
COMMAND_MODULES = {
    "check": "check", "fmt": "fmt", "resolve": "resolve", "run": "resolve", "roll": "dice", "odds": "dice",
    "parse": "parse", "tour": "tour", "export": "export", "schema": "export", "lsp": "lsp",
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with ``command``, only that command's module is imported
    and registered (what `runebook roll 1d20` parses with, to start fast)."""
    parser = _Parser(
        prog="runebook",
        description="Validate, roll, resolve and compute exact odds for tabletop RPG rules.",
    )
    parser.add_argument("--version", action="version", version=f"runebook {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    module = COMMAND_MODULES.get(command or "")
    # `runebook --version` answers before any command is parsed: none is imported.
    modules = () if command == "--version" else COMMANDS if module is None else (
        f"runebook.interpreter.cli.commands.{module}",)
    for name in modules:
        importlib.import_module(name).register(sub)
    for command in sub.choices.values():
        command.add_argument("--limit", dest="limits", action="append", type=_limit, default=[],
                             metavar="NAME=VALUE", help="raise or lower a limit, e.g. max_work=20000000 "
                             "(limits are listed in docs/threat-model.md)")
    return parser


def _limit(text: str) -> str:
    try:
        parse_limit(text, DEFAULT_LIMITS)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def _limits(args: argparse.Namespace) -> Limits:
    """The limits the command runs with: the defaults with each ``--limit`` applied."""
    limits = DEFAULT_LIMITS
    for text in getattr(args, "limits", None) or []:
        limits = parse_limit(text, limits)
    return limits


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv[0] if argv else None)
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "handler", None):
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        args.limits = _limits(args)
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
    except RecursionError:
        # Input nested past what Python's stack holds, somewhere no limit caught first.
        if os.environ.get("RUNEBOOK_DEBUG"):
            raise
        print("runebook: error: E0904 too much work: input nested too deeply to evaluate", file=sys.stderr)
        return EXIT_ERRORS
    except MemoryError:
        if os.environ.get("RUNEBOOK_DEBUG"):
            raise
        print("runebook: error: E0904 too much work: out of memory", file=sys.stderr)
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
