"""`runebook resolve GAME CHECK` and `runebook odds GAME CHECK`: a game's checks."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from dsl.diagnostics import Diagnostic, RunebookError
from interpreter.cli.render import distribution_text, trace_text
from interpreter.core.limits import DEFAULT_LIMITS
from interpreter.core.values import format_value
from interpreter.rules import load
from interpreter.rules.procedures import PromptDriver, ScriptedDriver, load_choices

__all__ = ["add_check_inputs", "faces", "register", "run_check_odds", "run_resolve"]


def faces(text: str) -> list[int]:
    """``--dice 8,6,1``: the faces a player rolled (an argparse type)."""
    parts = [p for p in text.replace(" ", ",").split(",") if p]
    try:
        return [int(p) for p in parts]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected whole numbers separated by commas, got '{text}'") from None


def _pairs(values: list[str] | None, flag: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for item in values or []:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise RunebookError([Diagnostic.make("E0008", None, None, what=f"{flag} value", value=item,
                                                 help=f"write {flag} NAME=VALUE")])
        pairs[name.strip()] = value.strip()
    return pairs


def add_check_inputs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--with", dest="inputs", action="append", metavar="NAME=VALUE",
                        help="an input of the check, e.g. --with pool=5 or --with ability=7M")
    parser.add_argument("--option", dest="options", action="append", metavar="NAME=VALUE",
                        help="a house rule, e.g. --option enhancement_gate=meets_difficulty")
    parser.add_argument("--as", dest="actor", metavar="CHAR.yaml", action="append",
                        help="the acting character ('actor' in the check; its stats fill missing inputs); "
                        "give it again for a group ('actors' lists them all)")
    parser.add_argument("--against", dest="target", metavar="CHAR.yaml", action="append",
                        help="the character or obstacle acted upon ('target' in the check); give it again "
                        "for several ('targets')")


def _roles(rules: Any, args: argparse.Namespace) -> dict[str, Any]:
    """Entities named on the command line; all their problems reported together."""
    roles: dict[str, Any] = {}
    problems = []
    for role, keyword in (("actor", "as_"), ("target", "against")):
        paths = getattr(args, role, None) or []
        group = []
        for path in paths:
            try:
                group.extend(rules.entities(path))  # a file may list several (a party)
            except RunebookError as error:
                problems.extend(error.diagnostics)
        if group:
            roles[keyword] = group[0] if len(group) == 1 else group
    if problems:
        raise RunebookError(problems)
    return roles


def _add_dice_and_output(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--seed", type=int, metavar="N", help="seed the random generator")
    source.add_argument("--dice", type=faces, metavar="F,F,...", help="faces you rolled, in the order used")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "resolve", help="resolve a check of a game",
        description="Resolve a check once, with a seeded roll (--seed) or the dice you rolled "
                    "(--dice, consumed in the order the check rolls them: yours before the opposition's).",
    )
    parser.add_argument("game", metavar="GAME", help="a built-in game or a folder of .rules files")
    parser.add_argument("check", metavar="CHECK", help="the check's name, e.g. 'skill check'")
    add_check_inputs(parser)
    _add_dice_and_output(parser)
    parser.set_defaults(handler=run_resolve)
    register_run(sub)


def register_run(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "run", help="run a procedure (or a check) of a game",
        description="Run a procedure to its end. Choice points are answered from --choices FILE.yaml "
                    "(a list of answers in order), or asked at the terminal when stdin is one.",
    )
    parser.add_argument("game", metavar="GAME", help="a built-in game or a folder of .rules files")
    parser.add_argument("name", metavar="NAME", help="a procedure or a check")
    add_check_inputs(parser)
    parser.add_argument("--choices", metavar="FILE.yaml", help="answers to the choice points, in order")
    _add_dice_and_output(parser)
    parser.set_defaults(handler=run_procedure)


def run_procedure(args: argparse.Namespace) -> int:
    rules = _load(args)
    if args.choices:
        driver: Any = load_choices(args.choices)
    elif sys.stdin is not None and sys.stdin.isatty():
        driver = PromptDriver()
    else:
        driver = ScriptedDriver([])
    result = rules.run(args.name, options=_pairs(args.options, "--option"), seed=args.seed, dice=args.dice,
                       driver=driver, **_roles(rules, args), **_pairs(args.inputs, "--with"))
    return _show(args, result, f"{rules.name}: {result.name}")


def _load(args: argparse.Namespace) -> Any:
    return load(args.game, getattr(args, "limits", DEFAULT_LIMITS))


def run_resolve(args: argparse.Namespace) -> int:
    rules = _load(args)
    result = rules.resolve(args.check, options=_pairs(args.options, "--option"), seed=args.seed,
                           dice=args.dice, **_roles(rules, args), **_pairs(args.inputs, "--with"))
    given = ", ".join(f"{k}={format_value(v)}" for k, v in result.inputs.items())
    return _show(args, result, f"{rules.name}: {result.check}({given})")


def _show(args: argparse.Namespace, result: Any, title: str) -> int:
    """A resolution or a run: JSON, or its title, trace and results for a person."""
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
        return 0
    print(title)
    for line in trace_text(result.trace):
        print(line)
    for name, value in result.results.items():
        print(f"{name}: {format_value(value)}")
    return 0


def run_check_odds(args: argparse.Namespace, game: str, check: str) -> int:
    rules = load(game, getattr(args, "limits", DEFAULT_LIMITS))
    odds = rules.odds(check, options=_pairs(args.options, "--option"), **_roles(rules, args),
                      answers=_pairs(getattr(args, "answers", None), "--answer"), **_pairs(args.inputs, "--with"))
    if args.json:
        print(json.dumps(odds.to_dict(), indent=2, ensure_ascii=False))
        return 0
    for name, dist in odds.results.items():
        sys.stdout.write(distribution_text(f"{odds.check}: {name}", dist))
        print()
    return 0
