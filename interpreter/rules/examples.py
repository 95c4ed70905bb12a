"""Examples as tests: what ``runebook check`` does with an ``example`` that has lines.

``example Skill (threshold = 11, modifier = 3)`` followed by

- ``dice 8, 6, 1``: the check is resolved from those faces, as ``runebook resolve --dice``
  resolves it, and each ``expect EXPR`` must be true for its results;
- no ``dice`` line: the exact odds of the check (or the procedure) are computed, and each
  ``expect EXPR`` must hold in every outcome (its chance is 1, and no outcome is unknown),
  while ``expect EXPR with chance P`` must have the chance P, to the places P is written
  with (``5/8`` exactly, ``62.5%`` to a tenth of a percent); ``answer NAME = VALUE``
  answers a procedure's choice every time it comes (as ``--answer``), and ``option NAME =
  VALUE`` sets one of the game's options (as ``--option``); ``as "FILE"`` and ``against
  "FILE"`` name character files in the game's folder (as ``--as`` and ``--against``).

An expectation reads the results by name, then the example's inputs, then the game's names
(levels, tables, functions, options at their defaults). An expectation that fails is E0637 at
its line, saying what was found (the values it read, its exact chance, the likeliest outcome
where it is false); a run that stops (a mistake in the rules that only these inputs reach,
dice that do not fit, a limit) is E0637 at the example, its help saying where it stopped,
unless the example says ``expect refused`` (with the code it must stop with, if any).
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from pathlib import Path
from typing import Any

import attrs

from runebook.dsl import ast
from runebook.dsl import expr_ast as ex
from runebook.dsl.checker import expression_names
from runebook.dsl.diagnostics import Diagnostic, RunebookError
from runebook.dsl.vocabulary import fold
from runebook.interpreter.core.distribution import Distribution
from runebook.interpreter.core.limits import DEFAULT_LIMITS
from runebook.interpreter.core.values import format_value
from runebook.interpreter.rules.model import Rules
from runebook.interpreter.rules.odds_of import distribution_of

__all__ = ["EXAMPLE_LIMITS", "MOST_EXAMPLES", "model_examples", "verify_examples"]

#: At most this many examples run in one check of a ruleset (a pull request from a stranger
#: adding ten thousand of them is refused after these), each with :data:`EXAMPLE_LIMITS`.
MOST_EXAMPLES = 500
#: The budget of one example's run: a tenth of the defaults' states, runs of segments and
#: steps, so that each comes to an answer or a refusal within about a tenth of a second.
EXAMPLE_LIMITS = attrs.evolve(DEFAULT_LIMITS, max_work=DEFAULT_LIMITS.max_work // 10,
                              max_states=DEFAULT_LIMITS.max_states // 10, max_worlds=DEFAULT_LIMITS.max_worlds // 10)

#: What given dice that do not fit the check's rolls stop it with: not enough, too many, a
#: face the die does not have.
_DICE_CODES = frozenset({"E0501", "E0502", "E0503"})


@attrs.frozen
class _Resolved:
    """One resolution seen as odds: its results are the only outcome (for distribution_of)."""

    results: tuple[str, ...]
    joint: Distribution
    inputs: dict[str, Any]


def verify_examples(rules: Any, files: Iterable[str] | None = None) -> list[Diagnostic]:
    """The problems of every example of ``rules`` that has lines (of the files named
    ``files`` only, when given), in the order of the files' lines."""
    wanted = set(files) if files is not None else None
    found: list[Diagnostic] = []
    run = 0
    for example in rules.examples:
        if not example.lines or (wanted is not None and (example.source is None or example.source.name not in wanted)):
            continue
        if run == MOST_EXAMPLES:
            found.append(Diagnostic.make("E0636", example.source, example.span, line="example",
                                         why=f"a check runs at most {MOST_EXAMPLES} examples with lines, and this is "
                                         "the first one past them", help="split the game, or test the rest with pytest"))
            break
        run += 1
        found.extend(_verify(rules, example))
    return found


def model_examples(model: Any, files: set[str]) -> list[Diagnostic]:
    """:func:`verify_examples` of the files named ``files`` in a checked model (a homebrew
    file read with its game): nothing when the model has errors or those files no example
    with lines."""
    if model.errors or not any(e.lines and e.source is not None and e.source.name in files for e in model.examples):
        return []
    return verify_examples(Rules(model, EXAMPLE_LIMITS), files)


def _verify(rules: Any, example: Any) -> list[Diagnostic]:
    expectations = [line for line in example.lines if isinstance(line, ast.Expectation)]
    dice = next((line for line in example.lines if isinstance(line, ast.ExampleDice)), None)
    refusal = next((line for line in example.lines if isinstance(line, ast.ExpectRefusal)), None)
    options = {line.name: line.value for line in example.lines if isinstance(line, ast.ExampleOption)} or None
    try:
        sheets = {line.role: _sheet(example, line) for line in example.lines if isinstance(line, ast.ExampleSheet)}
        taking_part = {"as_": sheets.get("as"), "against": sheets.get("against")}
        if dice is not None:
            resolved = rules.resolve(example.check, dict(example.inputs), dice=list(dice.faces), options=options,
                                     **taking_part)
            names = tuple(resolved.results)
            odds: Any = _Resolved(names, Distribution({tuple(resolved.results.values()): Fraction(1)}),
                                  dict(resolved.inputs))
        else:
            answers = {line.name: line.value for line in example.lines if isinstance(line, ast.ExampleAnswer)}
            odds = rules.odds(example.check, dict(example.inputs), answers=answers or None, options=options,
                              **taking_part)
        settings = rules.option_values(options)
    except RunebookError as error:
        stop = error.diagnostics[0]
        if stop.code == "E0636":
            return [stop]  # a character file the example may not read
        if refusal is not None and refusal.code in (None, stop.code):
            return []
        return [_stopped(example, dice, stop)]
    if refusal is not None:
        return [Diagnostic.make("E0637", example.source, refusal.span, check=example.check,
                                expect=str(refusal).removeprefix("expect "), found="it runs to its end",
                                help="the inputs, options and answers of the example pass every 'require' line")]
    return [problem for line in expectations
            if (problem := _expectation(rules, example, odds, line, dice is not None, settings)) is not None]


def _sheet(example: Any, line: ast.ExampleSheet) -> str:
    """The path of an example's character file: from the folder of its ``.rules`` file, and
    inside it (a path that leads out of it, through a link, is refused: a ruleset checked in
    CI names no file of the machine)."""
    folder = Path(example.source.name).parent if example.source is not None else None
    if folder is None or not folder.is_dir():
        raise RunebookError([Diagnostic.make("E0636", example.source, line.span, line=str(line),
                                             why="these rules were not read from a folder",
                                             help="load the game from its folder to run its examples' files")])
    path = (folder / line.path).resolve()
    if not path.is_relative_to(folder.resolve()):
        raise RunebookError([Diagnostic.make("E0636", example.source, line.span, line=str(line),
                                             why="the file it names is outside the game's folder",
                                             help="keep the examples' character files in the game's folder")])
    return str(path)


def _expectation(rules: Any, example: Any, odds: Any, line: ast.Expectation, given: bool,
                 settings: Any) -> Diagnostic | None:
    """E0637 for one ``expect`` line that does not hold (None when it does)."""
    shown = _names_shown(line.expr, odds)
    compiled = [rules.compiled(node, example.source) for node in (line.expr, *shown)]
    spread = distribution_of(rules, odds, compiled, settings)
    # One expression's values come alone, several as a tuple: always a tuple here.
    values = spread if len(compiled) > 1 else Distribution({(k,): p for k, p in spread.items()}, spread.residual)
    holds = sum((p for key, p in values.items() if bool(key[0])), Fraction(0))
    unknown = values.residual
    if line.chance is not None:
        low, high = holds, holds + unknown
        tolerance = line.chance.tolerance()
        if abs(low - line.chance.value) <= tolerance and abs(high - line.chance.value) <= tolerance:
            return None
        found = f"its chance is {_chance(holds, line.chance.places)}" + (
            f" (to {_chance(high, line.chance.places)} with the outcomes cut off)" if unknown else "")
        return _failed(example, line, found, f"exactly {holds}" if not unknown else None)
    if holds == 1 and not unknown:
        return None
    failing = [(p, key) for key, p in values.items() if not bool(key[0])]
    if given:
        found = "it is false for these dice" + _reading(shown, failing[0][1][1:] if failing else ())
        return _failed(example, line, found, None)
    if not failing:
        found = f"{_chance(unknown, None)} of the outcomes are cut off, where it is not known"
        return _failed(example, line, found, "an exploding die is cut at its depth: raise it with a limit")
    p, key = max(failing, key=lambda item: item[0])
    chance = _chance(1 - holds - unknown, None)
    found = f"it is false with chance {chance}" + (f" (most likely when{_reading(shown, key[1:])[1:]})" if shown else "")
    return _failed(example, line, found, f"exactly {1 - holds - unknown}")


def _names_shown(expr: ex.Expr, odds: Any) -> list[ex.Name]:
    """The names an expectation reads that are results or inputs (each once): what a failure
    shows the values of."""
    own = {fold(n) for n in odds.results} | {fold(n) for n in odds.inputs}
    seen: dict[str, ex.Name] = {}
    for node in expression_names(expr):
        if isinstance(node, ex.Name) and fold(node.text) in own:
            seen.setdefault(fold(node.text), node)
    return list(seen.values())


def _reading(names: list[ex.Name], values: tuple[Any, ...]) -> str:
    """``: grade = low, best = 9`` (nothing when no result or input is read)."""
    if not names:
        return ""
    return ": " + ", ".join(f"{name.text} = {format_value(value)}" for name, value in zip(names, values))


def _chance(p: Fraction, places: int | None) -> str:
    """A chance as a percentage, to at least two places more than the expectation wrote."""
    digits = max(2, (places or 0) + 2)
    if 0 < p * 100 < Fraction(1, 10**digits):
        return f"less than {1 / 10**digits:.{digits}f}%"
    return f"{float(p * 100):.{digits}f}%"


def _failed(example: Any, line: ast.Expectation, found: str, help: str | None) -> Diagnostic:
    expect = str(line.expr) + (f" with chance {line.chance}" if line.chance is not None else "")
    return Diagnostic.make("E0637", example.source, line.span, check=example.check, expect=expect, found=found,
                           help=help)


def _stopped(example: Any, dice: ast.ExampleDice | None, stop: Diagnostic) -> Diagnostic:
    """E0637 at the example for a run that stopped; dice that do not fit point at its dice."""
    expectations = [line for line in example.lines if isinstance(line, ast.Expectation | ast.ExpectRefusal)]
    first = expectations[0] if expectations else None
    expect = str(first.expr) if isinstance(first, ast.Expectation) else \
        str(first).removeprefix("expect ") if first is not None else "its dice to fit"
    if dice is not None and (stop.code in _DICE_CODES or (stop.source is not None and stop.source.name == "--dice")):
        return Diagnostic.make("E0637", example.source, dice.span, check=example.check, expect=expect,
                               found=f"its dice do not fit: {stop.message}", help=stop.help)
    where = f"{stop.location()}: " if stop.source is not None else ""
    return Diagnostic.make("E0637", example.source, example.span, check=example.check, expect=expect,
                           found=f"running it stops: {stop.code} {stop.message}",
                           help=f"{where}where it stops" + (f"; {stop.help}" if stop.help else ""))
