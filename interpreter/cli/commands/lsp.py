"""`runebook lsp`: the language server for editors, over stdin and stdout."""

from __future__ import annotations

import argparse
import sys

from runebook.interpreter.cli.commands import EXIT_USAGE

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("lsp", help="run the language server for editors (stdio)",
                            description="Speak the Language Server Protocol over stdin and stdout: "
                            "diagnostics, completion, hover with exact odds, go to definition, "
                            "references, rename. Needs the 'lsp' extra: pip install 'runebook[lsp]'.")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:  # noqa: ARG001
    try:
        from runebook.interpreter.lsp.server import main
    except ImportError as error:
        print(f"runebook: error: the language server needs pygls ({error.name} is missing); "
              "install it with: pip install 'runebook[lsp]'", file=sys.stderr)
        return EXIT_USAGE
    return main()
