"""`runebook parse FILE [--canonical]`: how runebook reads a file (a debugging aid)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from runebook.dsl.diagnostics import DiagnosticSink, RunebookError
from runebook.dsl.dump import dump
from runebook.dsl.loader import read_source
from runebook.dsl.parser import parse_rules
from runebook.interpreter.cli.commands import EXIT_USAGE

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("parse", help="show how a .rules file is read (its syntax tree)",
                            description="Print the syntax tree of a .rules file, or its canonical form: "
                                        "the same content as runebook prints it (comments are not kept).")
    parser.add_argument("path", metavar="FILE", help="a .rules file")
    parser.add_argument("--canonical", action="store_true", help="print the canonical form instead of the tree")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    sink = DiagnosticSink()
    source = read_source(Path(args.path), sink)
    if source is None:
        for diagnostic in sink.items:
            print(f"{diagnostic.location()}: {diagnostic.code} {diagnostic.message}", file=sys.stderr)
        return EXIT_USAGE if any(d.code == "E0001" for d in sink.items) else 1
    sink.source = source
    rules = parse_rules(source, sink)
    if sink.items:
        raise RunebookError(sink.items)
    if args.canonical:
        sys.stdout.write(str(rules))
    else:
        for block in rules.blocks:
            print(dump(block))
    return 0
