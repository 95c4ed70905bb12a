"""`runebook tour`: a guided run through every built-in game.

It opens with what Runebook is for: a homebrew power written in the book's notation,
checked, used by one character on another, and its exact odds. Then, for each game: what
its content holds, one of its checks (the first `example` the ruleset declares) resolved with
a seeded roll, and the exact odds of its results. Every command it prints runs as printed
from the repository's root folder.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import Any

from runebook.dsl.diagnostics import Diagnostic, RunebookError, render_text
from runebook.dsl.loader import builtin_games, check_paths, load_game
from runebook.interpreter.cli.commands import EXIT_ERRORS, EXIT_OK
from runebook.interpreter.core.render import distribution_text, trace_text
from runebook.interpreter.core.trace import RollEvent, Trace
from runebook.interpreter.core.values import format_value
from runebook.interpreter.markov.chains import FixedDriver
from runebook.interpreter.rules import load
from runebook.interpreter.rules.procedures import load_choices
from runebook.interpreter.rules.yamlfile import read_yaml
from runebook.rulesets import RULESETS_DIR

__all__ = ["register", "run"]

SEED = 2026


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("tour", help="a guided run through every built-in game")
    parser.add_argument("--seed", type=int, default=SEED, help=f"seed for the example rolls (default {SEED})")
    parser.set_defaults(handler=run)


def _content(folder_name: str, ruleset) -> None:  # type: ignore[no-untyped-def]
    vocab = ruleset.vocabulary
    print(f"   content: {len(ruleset.entries)} entries; {len(vocab.stats)} stats, "
          f"{len(vocab.names)} other names, {len(vocab.kinds)} entry kinds")
    kinds = Counter(e.kind or "?" for e in ruleset.entries)
    for kind, count in kinds.most_common():
        examples = [e.entry.name for e in ruleset.entries if (e.kind or "?") == kind][:3]
        print(f"   {count:5d} {kind}: {', '.join(examples)}{', ...' if count > 3 else ''}")


def _mechanics(game: str, seed: int) -> None:
    rules = load(game)
    checks = ", ".join(c.name for c in rules.checks.values()) or "none yet"
    options = ", ".join(f"{o.name}={o.default.name}" for o in rules.options.values()) or "none"
    print(f"   checks: {checks}")
    print(f"   options (defaults): {options}")
    if not rules.examples:
        return
    example = rules.examples[0]
    given = ", ".join(f"{k}={format_value(v)}" for k, v in example.inputs.items())
    verb = "run" if rules.procedure(example.check) is not None else "resolve"
    procedure = rules.procedure(example.check)
    if procedure is not None:
        # Choice points take their first option in the tour; the command says so by name.
        result = rules.run(example.check, seed=seed, driver=FixedDriver(), **example.inputs)
    else:
        result = rules.resolve(example.check, seed=seed, **example.inputs)
    answers = _answers(getattr(result, "choices", ()))
    print(f"\n   $ runebook {verb} {game} \"{example.check}\" "
          + " ".join(f"--with {k}={format_value(v)}" for k, v in example.inputs.items()) + f" --seed {seed}"
          + "".join(f" --answer {k}={v}" for k, v in answers.items()))
    # The tour shows the dice and the results; `resolve` prints every step.
    brief = Trace(e for e in result.trace if isinstance(e, RollEvent))
    for line in trace_text(brief):
        print(f"   {line}")
    for name, value in result.results.items():
        print(f"   => {name}: {format_value(value)}")
    odds = rules.odds(example.check, **example.inputs)
    print(f"\n   Exact odds of {example.check}({given}):")
    for name, dist in odds.results.items():
        if len(dist) == 1 and not dist.residual:
            continue  # fixed by the inputs: nothing to chart
        for line in distribution_text(name, dist).rstrip("\n").splitlines():
            print(f"   {line}")


def _shown_odds(folder, game: str) -> None:  # type: ignore[no-untyped-def]
    """The odds a game's ``examples/tour.yaml`` asks for: an entry (or procedure) used by one
    example character against another, e.g. ``odds: [{entry: NAME, as: a.yaml, against: b.yaml}]``,
    or a procedure with inputs and answers (``with: {heroes: [2, 1]}``, ``answers: {stance: bold}``)."""
    path = folder / "examples" / "tour.yaml"
    if not path.is_file():
        return
    _source, _root, data = read_yaml(path)
    rules = load(game)
    for item in (data or {}).get("odds", []) if isinstance(data, dict) else []:
        roles = {k: item[k] for k in ("as", "against") if isinstance(item.get(k), str)}
        inputs, answers = item.get("with") or {}, item.get("answers") or {}
        flags = " ".join([f"--{k} {_shown(folder / 'examples' / v)}" for k, v in roles.items()]
                         + _input_flags(inputs) + [f"--answer {k}={v}" for k, v in answers.items()])
        print(f"\n   $ runebook odds {game} \"{item['entry']}\" {flags}")
        odds = rules.odds(str(item["entry"]), answers=answers or None, **_sides(rules, folder, roles), **inputs)
        for name in item.get("results") or list(odds.results):
            for line in distribution_text(name, odds.results[name]).rstrip("\n").splitlines():
                print(f"   {line}")


def _sides(rules, folder, roles: dict[str, str]) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """``as_``/``against`` from example files; a file holding a YAML list gives the whole side."""
    sides: dict[str, object] = {}
    for key, value in roles.items():
        found = rules.entities(str(folder / "examples" / value))
        sides["as_" if key == "as" else key] = found[0] if len(found) == 1 else found
    return sides


def _shown_runs(folder, game: str) -> None:  # type: ignore[no-untyped-def]
    """The runs a game's ``examples/tour.yaml`` asks for: a procedure with example files on
    each side, its inputs, answers and dice, e.g. ``runs: [{procedure: NAME, as: a.yaml,
    against: b.yaml, with: {heroes: [2, 1]}, choices: answers.yaml, dice: "1,2,3"}]``; it
    prints the command and the results."""
    path = folder / "examples" / "tour.yaml"
    if not path.is_file():
        return
    _source, _root, data = read_yaml(path)
    rules = load(game)
    for item in (data or {}).get("runs", []) if isinstance(data, dict) else []:
        roles = {k: item[k] for k in ("as", "against") if isinstance(item.get(k), str)}
        inputs = item.get("with") or {}
        flags = " ".join([f"--{k} {_shown(folder / 'examples' / v)}" for k, v in roles.items()]
                         + _input_flags(inputs))
        choices, dice = item.get("choices"), str(item.get("dice", ""))
        extra = (f" --choices {_shown(folder / 'examples' / choices)}" if choices else "") + (f" --dice {dice}" if dice else "")
        print(f"\n   $ runebook run {game} \"{item['procedure']}\" {flags}{extra}")
        driver = load_choices(folder / "examples" / choices) if choices else FixedDriver()
        faces = [int(f) for f in dice.split(",")] if dice else None
        result = rules.run(str(item["procedure"]), dict(inputs), dice=faces, driver=driver, **_sides(rules, folder, roles))
        for name, value in result.results.items():
            print(f"   => {name}: {format_value(value)}")


def _input_flags(inputs: dict[str, Any]) -> list[str]:
    """``--with NAME=VALUE`` for each input, a list written as the command line takes it."""
    return [f"--with {k}={','.join(map(str, v)) if isinstance(v, list) else v}" for k, v in inputs.items()]


def _answers(choices: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """The answers a run gave, by choice name, for a command that gives them again."""
    found: dict[str, str] = {}
    for name, answer in choices:
        found.setdefault(name.rpartition(".")[2], answer)
    return found


def _shown(path: Path) -> str:
    """A file as a command run from the repository's root names it (``rulesets/...``)."""
    return str(Path("rulesets") / path.relative_to(RULESETS_DIR))


def _signature(seed: int) -> None:
    """A homebrew power in the book's own notation: checked, used, and its exact odds (the
    first game whose ``examples/tour.yaml`` has a ``signature`` names it)."""
    for game in builtin_games().values():
        path = game / "examples" / "tour.yaml"
        data = read_yaml(path)[2] if path.is_file() else None
        if isinstance(data, dict) and isinstance(data.get("signature"), dict):
            _show_signature(game, data["signature"], seed)
            return


def _show_signature(game: Path, spec: dict[str, Any], seed: int) -> None:
    folder = game / str(spec["folder"])
    path = folder / str(spec["file"])
    power = str(spec["power"])
    actor, target = game / str(spec["as"]), game / str(spec["against"])
    shown_results = [str(r) for r in spec.get("results") or []]
    lines = path.read_text(encoding="utf-8").split("\n")
    start = next(i for i, line in enumerate(lines) if line.strip() == power)
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    print(f"== A power as the book prints it ({_shown(path)}, a homebrew file that extends {game.name})")
    for line in lines[start:end]:
        print(f"   | {line}")
    report = check_paths([str(path)])
    errors = [d for d in report.diagnostics if d.severity == "error"]
    print(f"\n   $ runebook check {_shown(path)}")
    print(f"   => {len(errors)} errors" if errors else f"   => checked {report.entries} entries: no errors")
    rules = load(str(folder))
    sides = {"as_": rules.entity(str(actor)), "against": rules.entity(str(target))}
    roles = f"--as {_shown(actor)} --against {_shown(target)}"
    result = rules.run(power, seed=seed, driver=FixedDriver(), **sides)
    answers = "".join(f" --answer {k}={v}" for k, v in _answers(result.choices).items())
    print(f"\n   $ runebook run {_shown(folder)} \"{power}\" {roles} --seed {seed} --trace brief{answers}")
    for line in trace_text(result.trace, "brief"):
        print(f"   {line}")
    for name in shown_results or list(result.results):
        print(f"   => {name}: {format_value(result.results[name])}")
    print(f"\n   $ runebook odds {_shown(folder)} \"{power}\" {roles}")
    odds = rules.odds(power, **sides)
    for name in shown_results or list(odds.results):
        for line in distribution_text(name, odds.results[name]).rstrip("\n").splitlines():
            print(f"   {line}")
    print()


def run(args: argparse.Namespace) -> int:
    failed = False
    games = builtin_games()
    print(f"Runebook ships {len(games)} games as data; one generic interpreter runs them all.\n")
    try:
        _signature(args.seed)
    except RunebookError as error:
        failed = True
        for diagnostic in error.diagnostics:
            print(render_text(diagnostic))
    for folder in games.values():
        ruleset = load_game(str(folder))
        if isinstance(ruleset, Diagnostic):
            failed = True
            continue
        errors = [d for d in ruleset.diagnostics if d.severity == "error"]
        print(f"== {folder.name}: {len(ruleset.files)} files, " + ("checks clean" if not errors
                                                                   else f"{len(errors)} errors"))
        if errors:
            failed = True
            continue
        _content(folder.name, ruleset)
        try:
            _mechanics(folder.name, args.seed)
            _shown_runs(folder, folder.name)
            _shown_odds(folder, folder.name)
        except RunebookError as error:
            failed = True
            for diagnostic in error.diagnostics:
                print(render_text(diagnostic))
        print()
    print("Next: runebook check PATH | runebook roll EXPR | runebook odds GAME CHECK --with NAME=VALUE")
    return EXIT_ERRORS if failed else EXIT_OK
