"""`runebook check [--game GAME] PATH... [--format text|json|github|sarif]`."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

import attrs

from runebook.dsl.files import FileRefused, rules_files
from runebook.dsl.source import Source
from runebook.dsl.diagnostics import Diagnostic, DiagnosticSink, as_dict, render_github, render_text
from runebook.dsl.loader import _EXTENDS, CheckReport, _extends, _parse, check_paths, combined_entries, load_game, read_text
from runebook.dsl.model import build_model
from runebook.interpreter.cli.characters import CHARACTER_FILES, character_problems
from runebook.interpreter.rules.examples import model_examples
from runebook.interpreter.rules.kind_checks import homebrew_entries, kind_checks, refused_entries
from runebook.interpreter.cli.commands import EXIT_ERRORS, EXIT_OK, EXIT_USAGE
from runebook.interpreter.cli.sarif import sarif_log

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("check", help="validate .rules files and folders",
                            description="Validate .rules files; exit 1 if any has errors.")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a .rules file or a folder of them")
    parser.add_argument("--game", help="the game that content files extend (a built-in name or a folder)")
    parser.add_argument("--procedure", metavar="NAME",
                        help="the procedure the choices files given answer (else their 'procedure:' line)")
    parser.add_argument("--format", choices=("text", "json", "github", "sarif"), default="text",
                        help="how to print diagnostics (default: text)")
    parser.add_argument("--follow-symlinks", action="store_true",
                        help="read files that symlinks point to outside the folder being checked")
    parser.set_defaults(handler=run)


_MECHANICS = re.compile(r"^(?:option|levels|table|function|check|example|procedure|condition|resource|derive)[ \t]",
                        re.MULTILINE)


def _mechanics_problems(paths: list[str], already: list) -> list:  # type: ignore[type-arg]
    """Problems in the mechanics of each ruleset folder among ``paths`` (names in checks,
    option defaults, examples), and of homebrew files that add mechanics to a game, which
    the front end alone cannot see."""
    if any(d.severity == "error" and not d.code.startswith("E04") for d in already):
        return []  # fix the content and syntax first; mechanics need a clean ruleset
    folders: dict[Path, set[str] | None] = {}  # folder → the files to report (None: all of them)
    found = []
    for raw in paths:
        path = Path(raw)
        try:
            files = rules_files(path) if path.is_dir() else [path] if path.is_file() else []
        except FileRefused:
            continue  # reported by check_paths
        for file in files:
            text = read_text(file, path if path.is_dir() else None)
            if text is None:
                continue
            mechanics = bool(_MECHANICS.search(text))
            if not text.lstrip().startswith("extends"):
                folder = file.parent.resolve()
                if not mechanics and not path.is_dir():
                    continue
                if path.is_dir():
                    folders[folder] = None
                elif folders.get(folder, set()) is not None:
                    folders.setdefault(folder, set()).add(str(file.resolve()))
                continue
            # Content alone, for a game whose kinds name no checks, needs nothing more: its
            # game is read off the `extends` line, so the file is not parsed a second time
            # (check_paths has parsed it; a 4 MiB homebrew file takes seconds).
            named = _EXTENDS.match(text)
            if not mechanics and named is not None:
                game = load_game(named.group(1).strip())
                if isinstance(game, Diagnostic) or not kind_checks(game):
                    continue
            parsed = _parse(file, DiagnosticSink())
            extends = _extends(parsed[1]) if parsed else None
            base = load_game(extends.game.text) if extends else None
            if parsed is None or base is None or isinstance(base, Diagnostic):
                continue
            if not mechanics and not kind_checks(base):
                continue
            # The game's files and this one, read as one ruleset; report this file's problems.
            entries = homebrew_entries(base, parsed)
            combined = attrs.evolve(base, files=base.files + (parsed,), entries=combined_entries(base.entries, entries))
            model = build_model(combined)
            found.extend(d for d in model.diagnostics if d.source is not None and d.source.name == parsed[0].name)
            found.extend(refused_entries(model, entries))
            found.extend(model_examples(model, {parsed[0].name}))
    for folder, named in sorted(folders.items()):
        loaded = load_game(str(folder))
        if isinstance(loaded, Diagnostic):
            continue
        # A file given alone is checked alone: nothing of the folder's other files is reported.
        model = build_model(loaded)
        mine = [e for e in loaded.entries if named is None or str(Path(e.source.name).resolve()) in named]
        problems = [d for d in model.diagnostics + tuple(refused_entries(model, mine))
                    if named is None or (d.source is not None and str(Path(d.source.name).resolve()) in named)]
        found.extend(problems)
        files = {e.source.name for e in model.examples if e.lines and e.source is not None
                 and (named is None or str(Path(e.source.name).resolve()) in named)}
        found.extend(model_examples(model, files))
    return found


def _as_given(diagnostics: list) -> list:  # type: ignore[type-arg]
    """The mechanics' problems name their files as the game was loaded (a folder's resolved
    path): under the working directory, by their path from it, as the front end's problems
    do (a GitHub annotation places a file by its path in the repository)."""
    here = Path.cwd()
    out = []
    for diagnostic in diagnostics:
        source = diagnostic.source
        if source is not None and Path(source.name).is_absolute():
            try:
                shown = Path(source.name).relative_to(here)
            except ValueError:
                pass
            else:
                diagnostic = attrs.evolve(diagnostic, source=Source(str(shown), source.text))
        out.append(diagnostic)
    return out


def _reference_note(reference: Any) -> str:
    """``note: FILE:LINE: Entry (Label: ...) applies to A, B`` — what a `refers` line selects."""
    data = reference.to_dict()
    targets = ", ".join(data["applies_to"]) or f"no {data['kind']} yet"
    changes = "; ".join(data["changes"])
    return (f"note: {data['file']}:{data['line']}: {data['entry']} ({data['label']}: {data['value']}) applies to "
            f"{targets}" + (f": {changes}" if changes else ""))


def run(args: argparse.Namespace) -> int:
    characters = [p for p in args.paths if p.casefold().endswith(CHARACTER_FILES)]
    rules_paths = [p for p in args.paths if p not in characters]
    report = check_paths(rules_paths, args.game, follow_symlinks=args.follow_symlinks) if rules_paths else CheckReport()
    report.diagnostics.extend(_as_given(_mechanics_problems(rules_paths, report.diagnostics)))
    report.diagnostics.extend(character_problems(characters, args.game, args.procedure))
    report.files += len(characters)
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
    elif args.format == "sarif":
        print(sarif_log(report.diagnostics))
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
