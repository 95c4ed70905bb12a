"""`runebook fmt [--check] [--diff] PATH...`: rewrite .rules files in canonical form (dsl.formatter)."""

from __future__ import annotations

import argparse
import difflib
import os
import sys
import tempfile
from pathlib import Path

from runebook.dsl.diagnostics import DiagnosticSink, render_text
from runebook.dsl.files import FileRefused, rules_files, similar_path
from runebook.dsl.formatter import format_source
from runebook.dsl.loader import _refusal, read_source
from runebook.interpreter.cli.commands import EXIT_ERRORS, EXIT_OK, EXIT_USAGE

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("fmt", help="format .rules files (comments and blank lines kept)",
                            description="Rewrite .rules files in canonical form. The meaning never changes: "
                            "a file whose formatted text would not read back the same is left alone.")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a .rules file or a folder of them")
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 and list the files that would change (for CI)")
    parser.add_argument("--diff", action="store_true", help="change nothing; print what would change as a diff")
    parser.set_defaults(handler=run)


def _files(paths: list[str]) -> tuple[list[Path], list[str]]:
    """The files to format, and what cannot be: each path named that does not exist, and
    each folder too large to search (its diagnostic, printed)."""
    found: list[Path] = []
    missing: list[str] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            try:
                found.extend(rules_files(path))
            except FileRefused as refused:
                missing.append(render_text(_refusal(refused, raw)))
        elif path.is_file():
            found.append(path)
        else:
            near = similar_path(raw)
            missing.append(f"runebook fmt: no such file or folder: {raw}" + (f" ({near})" if near else ""))
    return found, missing


def _write(path: Path, text: str) -> None:
    """Replace the file whole (a temporary file beside it, then a rename), keeping its mode."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
        os.chmod(temporary, path.stat().st_mode & 0o7777)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def run(args: argparse.Namespace) -> int:
    files, missing = _files(args.paths)
    for problem in missing:
        print(problem, file=sys.stderr)
    if missing:
        return EXIT_USAGE
    changed: list[Path] = []
    refused = 0
    for path in files:
        sink = DiagnosticSink()
        source = read_source(path, sink)
        if source is None:
            for diagnostic in sink.items:
                print(render_text(diagnostic), file=sys.stderr)
            refused += 1
            continue
        formatted = format_source(source)
        if formatted.refused is not None:
            print(f"{path}: left as it is: {formatted.refused}", file=sys.stderr)
            refused += 1
            continue
        if not formatted.changed:
            continue
        changed.append(path)
        if args.diff:
            sys.stdout.writelines(difflib.unified_diff(
                source.text.splitlines(keepends=True), formatted.text.splitlines(keepends=True),
                fromfile=str(path), tofile=f"{path} (formatted)"))
        elif args.check:
            print(f"would reformat {path}")
        else:
            _write(path, formatted.text)
            print(f"reformatted {path}")
    noun = "file" if len(files) == 1 else "files"
    verb = "would change" if args.check or args.diff else "changed"
    print(f"{len(files)} {noun}: {len(changed)} {verb}, {len(files) - len(changed) - refused} already formatted"
          + (f", {refused} left as they are" if refused else ""), file=sys.stderr)
    if refused or (args.check and changed):
        return EXIT_ERRORS
    return EXIT_OK
