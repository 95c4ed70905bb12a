"""`runebook resolve GAME CHECK` and `runebook odds GAME CHECK`: a game's checks."""

from __future__ import annotations

import argparse
import functools
import json
import re
import sys
from collections.abc import Callable
from typing import Any

import attrs

from runebook.dsl.diagnostics import Diagnostic, RunebookError, did_you_mean
from runebook.dsl.folding import fold
from runebook.dsl.source import Source, Span
from runebook.interpreter.cli.commands import EXIT_USAGE
from runebook.interpreter.cli.charts import sweep_csv, sweep_svg, sweep_text, write_chart
from runebook.interpreter.cli.progress import Progress, SweepProgress
from runebook.interpreter.cli.options import add_check_inputs, add_trace_options, faces
from runebook.interpreter.core.render import distribution_text
from runebook.interpreter.core.limits import DEFAULT_LIMITS
from runebook.interpreter.core.values import format_value
from runebook.interpreter.rules import load
from runebook.interpreter.rules.odds_of import odds_of
from runebook.interpreter.rules.sweep import parse_vary, sweep
from runebook.interpreter.rules.procedures import (NamedDriver, PromptDriver, ScriptedDriver, load_choices,
                                                   named_answers, unknown_answers)

__all__ = ["add_check_inputs", "add_trace_options", "faces", "register", "run_check_odds", "run_resolve",
           "run_sweep"]


def _pairs(values: list[str] | None, flag: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for item in values or []:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise RunebookError([Diagnostic.make("E0008", None, None, what=f"{flag} value", value=item,
                                                 help=f"write {flag} NAME=VALUE")])
        name, value = name.strip(), value.strip()
        before = next((k for k in pairs if fold(k) == fold(name)), None)
        if before is not None and pairs[before] != value:
            # The last would silently win: a list is one value, an answer serves every time.
            raise RunebookError([Diagnostic.make(
                "E0008", Source(flag, item), Span(1, 1, 1, len(item.partition("=")[0].rstrip()) + 1),
                what=f"{flag} value", value=item,
                help=f"'{name}' is given twice ({before}={pairs[before]} and {item}): give it once"
                     + (f"; a list is one value, {flag} {name}={pairs[before]},{value}" if flag == "--with" else
                        "; an answer serves the choice every time it comes" if flag == "--answer" else ""))])
        pairs[name] = value
    return pairs


def _blame_flags(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """A run that fails on a value the user gave (`--with threshold=eleven`) says so first:
    the diagnostic's place is the rule that could not use it, its help names the flag."""

    @functools.wraps(run)
    def wrapped(args: argparse.Namespace) -> int:
        try:
            return run(args)
        except _GameErrors:
            raise  # the game's own errors, where its files have them
        except RunebookError as error:
            # (flag, "name=value", name, value) for every value given on the command line.
            given = []
            for flag, values in (("--with", getattr(args, "inputs", None)), ("--option", getattr(args, "options", None)),
                                 ("--answer", getattr(args, "answers", None))):
                for item in values or []:
                    name, _, value = (part.strip() for part in item.partition("="))
                    if value:
                        given.append((flag, f"{name}={value}", name, value))
            blamed = []
            for diagnostic in error.diagnostics:
                if diagnostic.source is None:
                    # A diagnostic of no place (an unknown input, option or choice): the flag
                    # that names it, with a caret under the name.
                    diagnostic = _at_flag_name(diagnostic, given)
                culprit = next(((flag, text, value) for flag, text, _, value in given
                                if f"'{value}'" in diagnostic.message), None)
                if culprit is not None and diagnostic.source is not None and diagnostic.source.name != culprit[0]:
                    flag, text, value = culprit
                    start = len(text) - len(value) + 1
                    used = f"the rule that uses it: {diagnostic.location()}"
                    diagnostic = attrs.evolve(diagnostic, source=Source(flag, text),
                                              span=Span(1, start, 1, start + len(value)),
                                              help=f"{used}; {diagnostic.help}" if diagnostic.help else used)
                blamed.append(diagnostic)
            raise RunebookError(blamed) from None

    return wrapped


def _at_flag_name(diagnostic: Diagnostic, given: list[tuple[str, str, str, str]]) -> Diagnostic:
    """``diagnostic`` placed on the ``--with``/``--option``/``--answer`` item (``given``:
    flag, text, name, value) whose name it quotes (`<input>: E0604 unknown input 'abilty'`
    becomes `--with:1:1: ...`), the caret under the value when the diagnostic is about it
    (`expects a number, got 'lots'`)."""
    for flag, text, name, value in given:
        if f"'{name}'" in diagnostic.message:
            shown, start = (value, len(name) + 2) if f"'{value}'" in diagnostic.message else (name, 1)
            item = _ITEM.search(diagnostic.message)
            if item is not None and not value.startswith("[") and int(item.group(1)) <= value.count(",") + 1:
                # `--with xs=1,x`: the caret under the item that is wrong.
                before = value.split(",")[: int(item.group(1)) - 1]
                part = value.split(",")[int(item.group(1)) - 1]
                offset = sum(len(p) + 1 for p in before) + len(part) - len(part.lstrip())
                shown, start = part.strip() or part, len(text) - len(value) + 1 + offset
            return attrs.evolve(diagnostic, source=Source(flag, text), span=Span(1, start, 1, start + len(shown)))
    return diagnostic


#: "(item 2 of 'xs')" in a diagnostic about one item of a list given on the command line.
_ITEM = re.compile(r"\(item (\d+) of '")


def _answers(args: argparse.Namespace) -> dict[str, str]:
    """Answers by choice name for exact odds: a ``--choices`` file's, then each ``--answer``."""
    answers = named_answers(args.choices) if getattr(args, "choices", None) else {}
    answers.update(_pairs(getattr(args, "answers", None), "--answer"))
    return answers


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
    add_trace_options(parser)
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "resolve", help="resolve a check of a game",
        description="Resolve a check once, with a seeded roll (--seed) or the dice you rolled "
                    "(--dice, consumed in the order the check rolls them: yours before the opposition's).",
    )
    parser.add_argument("game", metavar="GAME", help="a built-in game, a folder of .rules files or one .rules file")
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
    parser.add_argument("game", metavar="GAME", help="a built-in game, a folder of .rules files or one .rules file")
    parser.add_argument("name", metavar="NAME", help="a procedure or a check")
    add_check_inputs(parser)
    parser.add_argument("--choices", metavar="FILE.yaml", help="answers to the choice points, in order")
    parser.add_argument("--answer", dest="answers", action="append", metavar="NAME=VALUE",
                        help="the answer to a choice point by its name, each time it comes (as odds takes it)")
    _add_dice_and_output(parser)
    parser.set_defaults(handler=run_procedure)


@_blame_flags
def run_procedure(args: argparse.Namespace) -> int:
    rules = _load(args)
    fallback: Any = PromptDriver() if sys.stdin is not None and sys.stdin.isatty() else ScriptedDriver([], asker="flags")
    driver: Any = load_choices(args.choices, fallback) if args.choices else fallback
    if args.answers:
        answers = _pairs(args.answers, "--answer")
        procedure = rules.procedure(args.name)
        if procedure is not None:
            # (placed on the flag by _blame_flags, as any mistake in a flag)
            problems = unknown_answers(procedure.name, procedure.decl.statements, answers)
            if problems:
                raise RunebookError(problems)
        driver = NamedDriver(answers, driver)
    result = rules.run(args.name, _pairs(args.inputs, "--with"), options=_pairs(args.options, "--option"),
                       seed=args.seed, dice=args.dice, driver=driver, **_roles(rules, args))
    return _show(args, result, f"{rules.name}: {_named(rules, args.name, result.name)}")


def _named(rules: Any, asked: str, ran: str) -> str:
    """What was run, as the table calls it: an entry run through the procedure that uses it
    is named first (`Berserker Charge (Use Power)`), not hidden behind that procedure."""
    if rules.procedure(asked) is None and fold(asked) not in rules.checks:
        entry = rules.ruleset.entry(asked)
        if entry is not None and fold(entry.entry.name) != fold(ran):
            return f"{entry.entry.name} ({ran})"
    return ran


class _GameErrors(RunebookError):
    """The game's own files have errors: nothing a flag gave is to blame for them."""


def _load_game(game: str, limits: Any) -> Any:
    try:
        return load(game, limits)
    except RunebookError as error:
        raise _GameErrors(list(error.diagnostics)) from None


def _load(args: argparse.Namespace) -> Any:
    return _load_game(args.game, getattr(args, "limits", DEFAULT_LIMITS))


@_blame_flags
def run_resolve(args: argparse.Namespace) -> int:
    rules = _load(args)
    result = rules.resolve(args.check, _pairs(args.inputs, "--with"), options=_pairs(args.options, "--option"),
                           seed=args.seed, dice=args.dice, **_roles(rules, args))
    given = ", ".join(f"{k}={format_value(v)}" for k, v in result.inputs.items())
    return _show(args, result, f"{rules.name}: {result.check}({given})")


def _show(args: argparse.Namespace, result: Any, title: str) -> int:
    """A resolution or a run: JSON, or its title, trace and results for a person."""
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
        return 0
    sys.stdout.write(result.text(getattr(args, "trace", "full"), title))
    return 0


def run_check_odds(args: argparse.Namespace, game: str, check: str) -> int:
    return _blame_flags(lambda a: _check_odds(a, game, check))(args)


def _check_odds(args: argparse.Namespace, game: str, check: str) -> int:
    rules = _load_game(game, getattr(args, "limits", DEFAULT_LIMITS))
    progress = Progress(sys.stderr, f"odds of {check}")
    try:
        odds = rules.odds(check, _pairs(args.inputs, "--with"), options=_pairs(args.options, "--option"),
                          answers=_answers(args), progress=progress, **_roles(rules, args))
    finally:
        progress.close()
    if getattr(args, "of", None):
        found = odds_of(rules, odds, args.of, rules.option_values(_pairs(args.options, "--option")))
        if args.json:
            print(json.dumps({**odds.to_dict(), **found.to_dict()}, indent=2, ensure_ascii=False))
        else:
            named = _named(rules, check, odds.check)
            sys.stdout.write(distribution_text(named + found.title[len(odds.check):]
                                               if found.title.startswith(odds.check) else found.title,
                                               found.distribution))
            print()
        return 0
    if args.json:
        print(json.dumps(odds.to_dict(), indent=2, ensure_ascii=False))
        return 0
    sys.stdout.write(odds.text(_named(rules, check, odds.check)))
    return 0


def run_sweep(args: argparse.Namespace, game: str, name: str) -> int:
    """`odds GAME NAME --vary NAME=LOW..HIGH ...`: a grid of exact results."""
    if args.scheduler is not None and args.workers is not None:
        print("runebook: error: --workers is for local processes; with --scheduler the cluster's workers "
              "compute the points", file=sys.stderr)
        return EXIT_USAGE
    try:
        return _blame_flags(lambda a: _sweep(a, game, name))(args)
    except (ImportError, OSError) as error:  # the dask extra missing, or its scheduler unreachable
        if args.scheduler is None:
            raise
        print(f"runebook: error: {error}", file=sys.stderr)
        return EXIT_USAGE


def _sweep(args: argparse.Namespace, game: str, name: str) -> int:
    limits = getattr(args, "limits", DEFAULT_LIMITS)
    rules = _load_game(game, limits)
    axes = [parse_vary(v) for v in args.vary]
    progress = SweepProgress(sys.stderr, f"sweep of {name}")
    try:
        found = sweep(game, name, axes, inputs=_pairs(args.inputs, "--with"),
                      options=_pairs(args.options, "--option"), answers=_answers(args), workers=args.workers,
                      progress=progress, limits=limits, scheduler=args.scheduler, **_roles(rules, args))
    finally:
        progress.close()
    if args.result is not None and args.result not in found.outcomes():
        raise RunebookError([Diagnostic.make("E0008", None, None, what="--result", value=args.result,
                                             help=did_you_mean(args.result, list(found.outcomes()))
                                             or f"results: {', '.join(found.outcomes())}")])
    failed = write_chart(args.chart, lambda: sweep_svg(found, args.result))
    if failed is not None:
        return failed
    if args.format == "json":
        print(json.dumps(found.to_dict(), indent=2, ensure_ascii=False))
    elif args.format == "csv":
        sys.stdout.write(sweep_csv(found))
    else:
        sys.stdout.write(sweep_text(found, args.result))
    return 0
