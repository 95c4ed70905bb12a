"""`runebook check [--game GAME] PATH... [--format text|json|github]`."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

import attrs

from dsl import ast
from dsl.diagnostics import Diagnostic, DiagnosticSink, RunebookError, as_dict, render_github, render_text
from dsl.checker import check_entries
from dsl.loader import _extends, _parse, check_paths, load_game
from dsl.vocabulary import fold
from interpreter.cli.commands import EXIT_ERRORS, EXIT_OK, EXIT_USAGE
from interpreter.rules import Rules

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("check", help="validate .rules files and folders",
                            description="Validate .rules files; exit 1 if any has errors.")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a .rules file or a folder of them")
    parser.add_argument("--game", help="the game that content files extend (a built-in name or a folder)")
    parser.add_argument("--format", choices=("text", "json", "github"), default="text",
                        help="how to print diagnostics (default: text)")
    parser.set_defaults(handler=run)


_MECHANICS = re.compile(r"^(?:option|levels|table|function|check|example|procedure|condition|resource|derive)[ \t]",
                        re.MULTILINE)


def _mechanics_problems(paths: list[str], already: list) -> list:  # type: ignore[type-arg]
    """Problems in the mechanics of each ruleset folder among ``paths`` (names in checks,
    option defaults, examples), and of homebrew files that add mechanics to a game, which
    the front end alone cannot see."""
    if any(d.severity == "error" and not d.code.startswith("E04") for d in already):
        return []  # fix the content and syntax first; mechanics need a clean ruleset
    folders: set[Path] = set()
    found = []
    for raw in paths:
        path = Path(raw)
        files = sorted(path.rglob("*.rules")) if path.is_dir() else [path] if path.is_file() else []
        for file in files:
            try:
                text = file.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            mechanics = bool(_MECHANICS.search(text))
            if not text.lstrip().startswith("extends"):
                if mechanics:
                    folders.add(file.parent.resolve())
                continue
            parsed = _parse(file, DiagnosticSink())
            extends = _extends(parsed[1]) if parsed else None
            base = load_game(extends.game.text) if extends else None
            if parsed is None or base is None or isinstance(base, Diagnostic):
                continue
            if not mechanics and not _kind_checks(base):
                continue
            # The game's files and this one, read as one ruleset; report this file's problems.
            entries = _homebrew_entries(base, parsed)
            combined = attrs.evolve(base, files=base.files + (parsed,), entries=base.entries + tuple(entries))
            rules = Rules(combined)
            found.extend(d for d in rules.diagnostics if d.source is not None and d.source.name == parsed[0].name)
            if not any(d.severity == "error" for d in rules.diagnostics):
                found.extend(_entries_refused(rules, entries))
    for folder in sorted(folders):
        loaded = load_game(str(folder))
        if not isinstance(loaded, Diagnostic):
            rules = Rules(loaded)
            found.extend(rules.diagnostics)
            if not any(d.severity == "error" for d in rules.diagnostics):
                found.extend(_entries_refused(rules, list(loaded.entries)))
    return found


def _kind_checks(ruleset: Any) -> dict[str, list[ast.Phrase]]:
    """The checks each kind names in a `check NAME, ...` line, by the kind's folded name."""
    return {fold(block.name.text): list(block.checks) for _source, parsed in ruleset.files
            for block in parsed.blocks if isinstance(block, ast.KindDecl) and block.checks}


def _homebrew_entries(base: Any, parsed: tuple) -> list:  # type: ignore[type-arg]
    """The entries of one homebrew file, read with its game's vocabulary (the front end has
    already reported their own problems)."""
    return check_entries(base.vocabulary, [parsed], DiagnosticSink())


def _entries_refused(rules: Rules, entries: list) -> list[Diagnostic]:  # type: ignore[type-arg]
    """E0232: an entry of a kind with `check NAME` lines that one of those checks refuses (a
    `require` that fails, or any other error the check meets with that entry)."""
    checks = _kind_checks(rules.ruleset)
    found: list[Diagnostic] = []
    for entry in entries:
        for phrase in checks.get(fold(entry.kind or ""), []):
            target = rules.procedure(phrase.text) or rules.checks.get(fold(phrase.text))
            if target is None:
                found.append(Diagnostic.make("E0303", None, None, what="check", name=phrase.text))
                continue
            param = next((p.name for p in target.decl.params if p.type and fold(p.type) == fold(entry.kind)), None)
            if param is None:
                continue
            try:
                rules.run(phrase.text, seed=0, **{param: entry})
            except RunebookError as error:
                cause = error.diagnostics[0]
                found.append(Diagnostic.make("E0232", entry.source, entry.entry.header.span, kind=entry.kind,
                                             name=entry.entry.name, check=phrase.text, reason=cause.message,
                                             help=cause.help or None))
    return found


def _reference_note(reference: Any) -> str:
    """``note: FILE:LINE: Entry (Label: ...) applies to A, B`` — what a `refers` line selects."""
    data = reference.to_dict()
    targets = ", ".join(data["applies_to"]) or f"no {data['kind']} yet"
    changes = "; ".join(data["changes"])
    return (f"note: {data['file']}:{data['line']}: {data['entry']} ({data['label']}: {data['value']}) applies to "
            f"{targets}" + (f": {changes}" if changes else ""))


def run(args: argparse.Namespace) -> int:
    report = check_paths(args.paths, args.game)
    report.diagnostics.extend(_mechanics_problems(args.paths, report.diagnostics))
    errors = [d for d in report.diagnostics if d.severity == "error"]
    if args.format == "json":
        payload = {
            "files": report.files,
            "entries": report.entries,
            "errors": len(errors),
            "diagnostics": [as_dict(d) for d in report.diagnostics],
            "references": [r.to_dict() for r in report.references],
        }
        print(json.dumps(payload, indent=2, ensure_ascii=False))
    elif args.format == "github":
        for diagnostic in report.diagnostics:
            print(render_github(diagnostic))
    else:
        for diagnostic in report.diagnostics:
            print(render_text(diagnostic), file=sys.stderr)
        for reference in report.references:
            print(_reference_note(reference))
        noun = "file" if report.files == 1 else "files"
        verdict = "no errors" if not errors else f"{len(errors)} error{'s' if len(errors) != 1 else ''}"
        print(f"checked {report.files} {noun}, {report.entries} entries: {verdict}")
    if report.io_error:
        return EXIT_USAGE
    return EXIT_ERRORS if errors else EXIT_OK
