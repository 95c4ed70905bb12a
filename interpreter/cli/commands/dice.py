"""`runebook roll EXPR` and `runebook odds EXPR`: dice expressions from the command line."""

from __future__ import annotations

import argparse
import sys

from dsl.diagnostics import render_text
from dsl.loader import builtin_games
from dsl.vocabulary import fold
from interpreter import api
from interpreter.cli.commands import EXIT_USAGE
from interpreter.cli.commands.resolve import add_check_inputs, faces, run_check_odds
from interpreter.cli.render import distribution_json, distribution_text, roll_json, roll_text
from interpreter.core.evaluate import compile_expression

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    roll = sub.add_parser(
        "roll", help="roll a dice expression",
        description="Roll an expression such as '4d6kh3' or '5d10x10cs>=8'. Faces come from a "
                    "seeded generator (--seed) or from dice you rolled (--dice), consumed in the "
                    "order the trace shows. (An expression starting with '-' goes after '--'.)",
    )
    roll.add_argument("expr", metavar="EXPR", help="the expression, e.g. '4d6kh3' or '1d20+5'")
    source = roll.add_mutually_exclusive_group()
    source.add_argument("--seed", type=int, metavar="N", help="seed the random generator")
    source.add_argument("--dice", type=faces, metavar="F,F,...",
                        help="faces you rolled, e.g. 8,6,1 (negative faces: --dice=-1,0,1)")
    roll.add_argument("--json", action="store_true", help="machine-readable output")
    roll.set_defaults(handler=run_roll)

    odds = sub.add_parser(
        "odds", help="exact probabilities of a dice expression or of a game's check",
        description="Print the exact distribution of an expression such as '4d6kh3', or of every "
                    "result of a check: runebook odds GAME CHECK --with NAME=VALUE ...",
    )
    odds.add_argument("expr", metavar="EXPR | GAME CHECK", nargs="+",
                      help="an expression, or a game and one of its checks")
    add_check_inputs(odds)
    odds.add_argument("--answer", dest="answers", action="append", metavar="NAME=VALUE",
                      help="for a procedure: the answer to a choice point (otherwise its first option)")
    odds.add_argument("--json", action="store_true", help="machine-readable output")
    odds.set_defaults(handler=run_odds)


def _warn(expr: str) -> None:
    for warning in compile_expression(expr).warnings:
        print(render_text(warning), file=sys.stderr)


def run_roll(args: argparse.Namespace) -> int:
    result = api.roll(args.expr, seed=args.seed, dice=args.dice, limits=args.limits)
    _warn(args.expr)
    sys.stdout.write(roll_json(result) if args.json else roll_text(result))
    return 0


def run_odds(args: argparse.Namespace) -> int:
    if len(args.expr) == 2:
        return run_check_odds(args, *args.expr)
    if len(args.expr) > 2 or args.inputs or args.options:
        print("runebook: error: odds takes an expression, or a game and a check (with --with/--option)",
              file=sys.stderr)
        return EXIT_USAGE
    args.expr = args.expr[0]
    if fold(args.expr) in builtin_games():
        print(f"runebook: error: '{args.expr}' is a game; name one of its checks or procedures: "
              f"runebook odds {args.expr} CHECK --with NAME=VALUE", file=sys.stderr)
        return EXIT_USAGE
    dist = api.odds(args.expr, limits=args.limits)
    _warn(args.expr)
    if args.json:
        sys.stdout.write(distribution_json(args.expr, dist))
    else:
        encoding = getattr(sys.stdout, "encoding", None) or "ascii"
        try:
            "█▏".encode(encoding)
            unicode = True
        except (UnicodeEncodeError, LookupError):
            unicode = False
        sys.stdout.write(distribution_text(args.expr, dist, unicode=unicode))
    return 0
