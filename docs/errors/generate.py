"""Write docs/errors.md, the error reference, from the examples in docs/errors/examples.yaml.

    python docs/errors/generate.py           # rewrite docs/errors.md
    python docs/errors/generate.py --check   # exit 1 if docs/errors.md is out of date

Every code in ``dsl.diagnostics.MESSAGES`` has one entry in ``examples.yaml``: the files an
author would write, the command that shows the problem, the exit code, and how to fix it.
The generator runs each example in a fresh folder, in-process, and puts the diagnostic it
prints into the page, so the page shows what Runebook really says. ``tests/test_error_reference.py``
runs the same examples and fails when a code has no entry, an example stops producing its
code, or the page is stale.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import shlex
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import yaml

REPO = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(REPO))

from runebook.dsl.diagnostics import MESSAGES  # noqa: E402
from runebook.interpreter.cli.main import main  # noqa: E402

EXAMPLES = Path(__file__).resolve().parent / "examples.yaml"
PAGE = REPO / "docs" / "errors.md"

#: The code series, in the order the page lists them.
SERIES = {
    "E00": "Reading input",
    "E01": "Syntax",
    "E02": "Content against the vocabulary",
    "E03": "Declarations",
    "E04": "Expressions, dice and types",
    "E05": "Dice given by the user",
    "E06": "Rules, inputs, procedures and state",
    "E07": "Character files and entities",
    "E09": "Limits",
}


@attrs.frozen
class Example:
    """One code's entry: how to make Runebook report it, and how to fix it."""

    code: str
    fix: str
    run: str | None = None
    files: dict[str, Any] = attrs.Factory(dict)
    exit: int = 1
    reserved: str | None = None
    #: Symbolic links to make, name → target (relative to the link's folder).
    links: dict[str, str] = attrs.Factory(dict)

    def file_bytes(self, name: str) -> bytes:
        spec = self.files[name]
        if isinstance(spec, bytes):
            return spec
        if isinstance(spec, str):
            return spec.encode("utf-8")
        text = spec.get("text", "")
        data = text if isinstance(text, bytes) else text.encode("utf-8")
        return (spec.get("head", "").encode("utf-8") + data * int(spec.get("repeat", 1))
                + spec.get("tail", "").encode("utf-8"))

    def shown_files(self) -> list[tuple[str, str]]:
        """The files as the page shows them (a repeated text once, with a note; control
        characters and undecodable bytes as ``\\xNN``)."""
        shown = [(name, _visible(text)) for name, text in self._texts()]
        shown += [(name, f"(a symbolic link to {target})\n") for name, target in self.links.items()]
        return shown

    def _texts(self) -> list[tuple[str, str]]:
        shown = []
        for name, spec in self.files.items():
            if isinstance(spec, dict):
                text = spec.get("text", "")
                text = text.decode("utf-8", "backslashreplace") if isinstance(text, bytes) else text
                if int(spec.get("repeat", 1)) > 1:
                    text += f"… (the line above, {int(spec['repeat']):,} times in all)\n"
                if int(spec.get("copies", 1)) > 1:
                    text += f"… (one of {int(spec['copies']):,} such files, {{n}} from 1)\n"
                shown.append((name, spec.get("head", "") + text + spec.get("tail", "")))
            elif isinstance(spec, bytes):
                shown.append((name, spec.decode("utf-8", "backslashreplace")))
            else:
                shown.append((name, spec))
        return shown


@attrs.frozen
class Outcome:
    """What running an example printed."""

    exit: int
    stdout: str
    stderr: str

    def blocks(self, code: str) -> list[str]:
        """The diagnostics with this code, each with its source line, caret and help."""
        found: list[str] = []
        current: list[str] | None = None
        for line in (self.stderr + "\n" + self.stdout).splitlines():
            if re.search(r"(^|: )E\d{4} ", line):
                if current is not None:
                    found.append("\n".join(current))
                current = [line] if f"{code} " in line else None
            elif current is not None and re.match(r"^( +\d* \| |help: |note: )", line):
                current.append(line)
            elif current is not None:
                found.append("\n".join(current))
                current = None
        if current is not None:
            found.append("\n".join(current))
        return found


def _visible(text: str) -> str:
    return re.sub(r"[\x00-\x08\x0b-\x1f\x7f]", lambda m: f"\\x{ord(m.group()):02x}", text)


def load_examples(path: Path = EXAMPLES) -> dict[str, Example]:
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return {code: Example(code=code, **fields) for code, fields in raw.items()}


@contextlib.contextmanager
def _inside(folder: Path) -> Iterator[None]:
    before = Path.cwd()
    stdin = sys.stdin
    os.chdir(folder)
    sys.stdin = io.StringIO("")  # not a terminal: nothing waits for an answer
    try:
        yield
    finally:
        os.chdir(before)
        sys.stdin = stdin


def run_example(example: Example, folder: Path) -> Outcome:
    """Write the example's files into ``folder`` and run its command there."""
    assert example.run is not None
    for name in example.files:
        spec = example.files[name]
        copies = int(spec.get("copies", 1)) if isinstance(spec, dict) else 1
        for n in range(1, copies + 1):
            # `copies: N`: N files, `{n}` in the name numbering them.
            target = folder / (name.replace("{n}", str(n)) if copies > 1 else name)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(example.file_bytes(name))
    for name, pointed in example.links.items():
        link = folder / name
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(pointed)
    if "rulesets/" in example.run and not (folder / "rulesets").exists():
        (folder / "rulesets").symlink_to(REPO / "rulesets", target_is_directory=True)
    args = shlex.split(example.run)
    assert args[0] == "runebook", example.run
    out, err = io.StringIO(), io.StringIO()
    with _inside(folder), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args[1:])
    def relative(text: str) -> str:
        # Paths shown relative to the folder the command ran in, as a user running it would see.
        for prefix in {str(folder.resolve()), str(folder), str(REPO)}:
            text = text.replace(prefix + os.sep, "")
        return text

    return Outcome(code, relative(out.getvalue()), relative(err.getvalue()))


def run_all(examples: dict[str, Example]) -> dict[str, Outcome]:
    outcomes = {}
    for code, example in examples.items():
        if example.run is None:
            continue
        with tempfile.TemporaryDirectory() as folder:
            outcomes[code] = run_example(example, Path(folder))
    return outcomes


def _template(code: str) -> str:
    return re.sub(r"\{(\w+)(?::[^}]*)?\}", r"<\1>", MESSAGES[code])


def _fence(text: str, kind: str = "text") -> str:
    return f"```{kind}\n{text.rstrip()}\n```"


def render(examples: dict[str, Example], outcomes: dict[str, Outcome]) -> str:
    """The whole page, codes in order, grouped by series."""
    lines = [
        "# Error reference",
        "",
        "<!-- Generated by `python docs/errors/generate.py` from docs/errors/examples.yaml: edit those, not this. -->",
        "",
        "Every diagnostic Runebook reports has a stable code. Each section below gives the",
        "message (with `<fields>` for the parts that change), a small example that produces",
        "it with the output Runebook prints, and how to fix it. SARIF output (`check --format sarif`)",
        "links each code to its section here. Files named `my-...` are ones you write; the",
        "commands run in the folder that holds them.",
        "",
    ]
    for prefix, title in SERIES.items():
        codes = sorted(c for c in MESSAGES if c.startswith(prefix))
        if not codes:
            continue
        lines += [f"## {prefix}xx: {title}", ""]
        lines += [" | ".join(f"[{c}](#{c.lower()})" for c in codes), ""]
        for code in codes:
            example = examples[code]
            lines += [f"### {code}", "", f"**{_template(code)}**", ""]
            if example.reserved:
                lines += [f"*Not reported at present.* {example.reserved.strip()}", ""]
            else:
                for name, text in example.shown_files():
                    lines += [f"`{name}`:", "", _fence(text), ""]
                outcome = outcomes[code]
                shown = "\n\n".join(outcome.blocks(code)[:1])
                if example.exit == 1:
                    lines += [_fence(f"$ {example.run}\n{shown}", "console"), ""]
                else:
                    # Output in a block of its own: docs/ commands followed by a code are taken to exit 1.
                    lines += [_fence(f"$ {example.run}", "console"), "",
                              f"prints, and exits {example.exit}:", "", _fence(shown), ""]
            lines += [f"**How to fix it.** {' '.join(example.fix.split())}", ""]
    return "\n".join(lines).rstrip() + "\n"


def generate() -> str:
    examples = load_examples()
    return render(examples, run_all(examples))


def cli(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write docs/errors.md from docs/errors/examples.yaml.")
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/errors.md is out of date")
    args = parser.parse_args(argv)
    missing = sorted(set(MESSAGES) - set(load_examples()))
    if missing:
        print(f"no example in {EXAMPLES.relative_to(REPO)} for: {', '.join(missing)}", file=sys.stderr)
        return 1
    page = generate()
    if args.check:
        stale = not PAGE.is_file() or PAGE.read_text(encoding="utf-8") != page
        if stale:
            print("docs/errors.md is out of date: run python docs/errors/generate.py", file=sys.stderr)
        return 1 if stale else 0
    PAGE.write_text(page, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(REPO)} ({len(MESSAGES)} codes)")
    return 0


if __name__ == "__main__":
    sys.exit(cli())
