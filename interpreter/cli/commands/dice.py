"""`runebook roll EXPR` and `runebook odds EXPR`: dice expressions from the command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

import attrs

from runebook.interpreter.cli.commands import EXIT_USAGE
from runebook.interpreter.cli.options import add_check_inputs, add_trace_options, faces
from runebook.interpreter.core.limits import DEFAULT_LIMITS
from runebook.interpreter.core.notation import DEFAULT_DIALECT, DIALECTS
from runebook.interpreter.core.values import Rating

# The rest (the evaluator, the loader, the renderers, charts) is imported by the command that
# runs: a one-shot `runebook roll 1d20` loads neither games nor chart writers.

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    roll = sub.add_parser(
        "roll", help="roll a dice expression",
        description="Roll an expression such as '4d6kh3' or '5d10x10cs>=8'. Faces come from a "
                    "seeded generator (--seed) or from dice you rolled (--dice), consumed in the "
                    "order the trace shows. (An expression starting with '-' goes after '--'.)",
    )
    roll.add_argument("expr", metavar="EXPR", help="the expression, e.g. '4d6kh3' or '1d20+5'")
    roll.add_argument("--with", dest="inputs", action="append", metavar="NAME=VALUE",
                      help="a name the expression reads, e.g. '1d20 + dex' --with dex=3")
    source = roll.add_mutually_exclusive_group()
    source.add_argument("--seed", type=int, metavar="N", help="seed the random generator")
    source.add_argument("--dice", type=faces, metavar="F,F,...",
                        help="faces you rolled, e.g. 8,6,1 (negative faces: --dice=-1,0,1)")
    _notation_options(roll)
    add_trace_options(roll)
    roll.add_argument("--json", action="store_true", help="machine-readable output")
    roll.set_defaults(handler=run_roll)

    odds = sub.add_parser(
        "odds", help="exact probabilities of a dice expression or of a game's check",
        description="Print the exact distribution of an expression such as '4d6kh3', of several side "
                    "by side ('1d20' '2d10'), or of every result of a check: "
                    "runebook odds GAME CHECK --with NAME=VALUE ...",
    )
    odds.add_argument("expr", metavar="EXPR... | GAME CHECK", nargs="+",
                      help="one expression or several to compare, or a game (or folder) and one of its checks")
    add_check_inputs(odds)
    odds.add_argument("--answer", dest="answers", action="append", metavar="NAME=VALUE",
                      help="for a procedure: the answer to a choice point (otherwise its first option)")
    odds.add_argument("--choices", metavar="FILE.yaml",
                      help="for a procedure: answers by the choices' names (stance: bold), as run takes them")
    odds.add_argument("--of", dest="of", action="append", metavar="EXPR",
                      help="for a check or procedure: the odds of an expression over its results, e.g. "
                      "--of 'outcome == victory and degree >= major'; give it again for a joint distribution")
    _notation_options(odds)
    odds.add_argument("--format", choices=("text", "json", "csv"), default=None,
                      help="text (default), json, or csv (a row per outcome, for a spreadsheet)")
    odds.add_argument("--json", action="store_true", help="the same as --format json")
    odds.add_argument("--vary", action="append", metavar="NAME=LOW..HIGH",
                      help="for a game's check or procedure: odds at every value of an input (5..25, 5..25..5 or "
                      "A,B,C); give it again for a grid")
    odds.add_argument("--result", metavar="NAME", help="with --vary: the result the table and chart show "
                      "(default: the first)")
    odds.add_argument("--workers", type=_positive, metavar="N", help="with --vary: processes to use "
                      "(default: every core)")
    odds.add_argument("--scheduler", metavar="ADDRESS", help="with --vary: compute the points on the workers of "
                      "a Dask distributed scheduler (tcp://host:8786) instead of local processes; needs the "
                      "'dask' extra: pip install 'runebook[dask]'")
    odds.add_argument("--chart", nargs=2, metavar=("svg", "FILE"),
                      help="also write a bar chart of the distribution(s), e.g. --chart svg odds.svg")
    odds.set_defaults(handler=run_odds)


def _notation_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dialect", choices=DIALECTS, default=DEFAULT_DIALECT,
                        help="how notation the tools read differently is read (default: "
                             f"{DEFAULT_DIALECT}; see docs/expressions.md)")
    parser.add_argument("--max-dice", type=_positive, metavar="N", default=None,
                        help=f"most dice one roll may roll, explosions and rerolls included "
                             f"(default {DEFAULT_LIMITS.max_dice:,})")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1, got {value}")
    return value


def _given_names(args: argparse.Namespace) -> dict[str, Any] | None:
    """The values ``--with NAME=VALUE`` gives an expression's names: numbers (``3``, ``-1``,
    ``2.5``, ``1/2``) or ratings (``7M``); None after printing what is wrong with one."""
    from runebook.dsl.diagnostics import RunebookError
    from runebook.interpreter import api

    names: dict[str, Any] = {}
    for given in args.inputs or []:
        name, sep, text = given.partition("=")
        value: Any = None
        if sep and name.strip() and text.strip():
            try:
                value = api.roll(text, dice=[], limits=args.limits).total  # no dice: a number or a rating
            except RunebookError:
                value = None
        if type(value) not in (int, Fraction, Rating):
            print(f"runebook: error: --with {given}: give a name and a number, e.g. --with dex=3 (dice go in the "
                  "expression: '1d20 + 1d4')", file=sys.stderr)
            return None
        names[name.strip()] = value
    return names


@contextmanager
def _naming_the_flag() -> Iterator[None]:
    """An unknown name in an expression given on the command line: say how to give it."""
    from runebook.dsl.diagnostics import RunebookError

    try:
        yield
    except RunebookError as error:
        raise RunebookError([_with_flag_help(d) for d in error.diagnostics]) from None


def _with_flag_help(problem: Any) -> Any:
    """E0207 with no suggestion: the help names the flag, with the name as the expression writes it."""
    span, source = problem.span, problem.source
    if problem.code != "E0207" or problem.help is not None or span is None or source is None \
            or span.line != span.end_line:
        return problem
    name = source.line_text(span.line)[span.column - 1:span.end_column - 1]
    return attrs.evolve(problem, help=f"give it a value: --with {name}=3")


def _warn(expr: str, args: argparse.Namespace) -> None:
    from runebook.dsl.diagnostics import render_text
    from runebook.interpreter import api
    from runebook.interpreter.core.evaluate import compile_expression

    limits = api._limits(args.limits, args.max_dice)
    for warning in compile_expression(expr, limits=limits, dialect=args.dialect).warnings:
        print(render_text(warning), file=sys.stderr)


def run_roll(args: argparse.Namespace) -> int:
    from runebook.interpreter import api
    from runebook.interpreter.core.render import roll_json

    names = _given_names(args)
    if names is None:
        return EXIT_USAGE
    with _naming_the_flag():
        result = api.roll(args.expr, seed=args.seed, dice=args.dice, dialect=args.dialect, max_dice=args.max_dice,
                          limits=args.limits, env=names)
    _warn(args.expr, args)
    sys.stdout.write(roll_json(result) if args.json else result.text(args.trace))
    return 0


def _is_game(name: str) -> bool:
    from runebook.dsl.loader import names_a_game

    return names_a_game(name)


def _unicode() -> bool:
    encoding = getattr(sys.stdout, "encoding", None) or "ascii"
    try:
        "█▏▓▒░".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def run_odds(args: argparse.Namespace) -> int:
    from runebook.interpreter import api
    from runebook.interpreter.cli.charts import distributions_csv, svg_chart, write_chart
    from runebook.interpreter.cli.commands.resolve import run_check_odds, run_sweep
    from runebook.interpreter.core.render import distribution_json, distribution_text

    if args.json:
        args.format = "json"
    if len(args.expr) == 2 and _is_game(args.expr[0]) and args.vary:
        return run_sweep(args, *args.expr)
    if args.vary:
        print("runebook: error: --vary is for a game's check or procedure: runebook odds GAME NAME --vary "
              "NAME=LOW..HIGH", file=sys.stderr)
        return EXIT_USAGE
    if args.scheduler is not None:
        print("runebook: error: --scheduler is for a sweep (--vary)", file=sys.stderr)
        return EXIT_USAGE
    if len(args.expr) == 2 and _is_game(args.expr[0]):
        if args.format == "csv" or args.chart:
            print("runebook: error: --format csv and --chart are for expressions; a check's odds are text or "
                  "--format json", file=sys.stderr)
            return EXIT_USAGE
        args.json = args.format == "json"
        return run_check_odds(args, *args.expr)
    if args.options or args.of or args.answers or args.choices or args.actor or args.target:
        print("runebook: error: --option, --of, --answer, --choices, --as and --against are for a game's check: "
              "runebook odds GAME CHECK ...", file=sys.stderr)
        return EXIT_USAGE
    names = _given_names(args)
    if names is None:
        return EXIT_USAGE
    args.names = names
    if len(args.expr) > 1:
        return _compare(args)
    args.expr = args.expr[0]
    if _is_game(args.expr):
        print(f"runebook: error: '{args.expr}' is a game; name one of its checks or procedures: "
              f"runebook odds {args.expr} CHECK --with NAME=VALUE", file=sys.stderr)
        return EXIT_USAGE
    with _naming_the_flag():
        dist = api.odds(args.expr, dialect=args.dialect, max_dice=args.max_dice, limits=args.limits, env=names)
    _warn(args.expr, args)
    failed = write_chart(args.chart, lambda: svg_chart([args.expr], [dist]))
    if failed is not None:
        return failed
    if args.format == "json":
        sys.stdout.write(distribution_json(args.expr, dist))
    elif args.format == "csv":
        sys.stdout.write(distributions_csv([args.expr], [dist]))
    else:
        sys.stdout.write(distribution_text(args.expr, dist, unicode=_unicode()))
    return 0


def _compare(args: argparse.Namespace) -> int:
    """Several expressions side by side (`runebook odds 1d20 2d10`)."""
    from runebook.interpreter import api
    from runebook.interpreter.cli.charts import comparison_json, comparison_text, distributions_csv, svg_chart, write_chart

    expressions = list(args.expr)
    with _naming_the_flag():
        dists = [api.odds(e, dialect=args.dialect, max_dice=args.max_dice, limits=args.limits, env=args.names)
                 for e in expressions]
    for expression in expressions:
        _warn(expression, args)
    failed = write_chart(args.chart, lambda: svg_chart(expressions, dists))
    if failed is not None:
        return failed
    if args.format == "json":
        sys.stdout.write(comparison_json(expressions, dists))
    elif args.format == "csv":
        sys.stdout.write(distributions_csv(expressions, dists))
    else:
        sys.stdout.write(comparison_text(expressions, dists, unicode=_unicode()))
    return 0
