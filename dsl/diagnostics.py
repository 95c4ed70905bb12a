"""Diagnostics: stable codes, one message table, one renderer per output format.

Every problem a user can cause is reported as a :class:`Diagnostic`. Texts live in
:data:`MESSAGES`, keyed by code, so a code always means the same thing and tests can
assert on it. Raising is done with :class:`RunebookError`, which carries all of them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from difflib import get_close_matches
from pathlib import PurePath, PurePosixPath, PureWindowsPath
from urllib.parse import quote

import attrs

from runebook.dsl.source import Source, Span

__all__ = [
    "MESSAGES",
    "Diagnostic",
    "DiagnosticSink",
    "RunebookError",
    "did_you_mean",
    "render_github",
    "render_json",
    "render_sarif",
    "render_text",
]

#: Every diagnostic code with its message template. Codes are stable: never reuse one.
MESSAGES: dict[str, str] = {
    # E00xx: reading input
    "E0001": "cannot read '{path}': {reason}",
    "E0002": "invalid UTF-8: byte 0x{byte:02x} cannot start or continue a character",
    "E0003": "this is not a text file (it holds NUL bytes or control characters)",
    "E0004": "file is too large ({size} bytes; the limit is {limit})",
    "E0005": "no .rules files found in '{path}'",
    "E0006": "unknown game '{name}'",
    "E0007": "this content file does not say which game it extends",
    "E0008": "invalid {what} '{value}'",
    "E0010": "{count} more errors in this file are not shown",
    "E0011": "'{path}' is {kind}, not a regular file; only regular files are read",
    "E0012": "'{path}' is a symlink to a file outside '{root}'; it is not followed",
    "E0013": "YAML {what} (the limit is {limit})",
    "E0014": "'{path}' is too large to search: more than {limit} {what}",
    "E0020": "this folder's files extend two games: '{first}' ({first_file}) and '{second}'",
    # E01xx: syntax
    "E0101": "unexpected character {found}; expected {expected}",
    "E0102": "unexpected {found}; expected {expected}",
    "E0103": "unexpected end of {where}; expected {expected}",
    "E0104": "unclosed '{open}'",
    "E0105": "unmatched '{close}'",
    "E0106": "unexpected indentation",
    "E0107": "nesting is too deep (more than {limit} levels)",
    "E0108": "an entry starts with its name, not with '{label}'",
    "E0109": "unclosed emphasis '{mark}'",
    "E0110": "expression is too long ({count} terms; the limit is {limit})",
    "E0111": "empty brackets",
    "E0112": "'{word}' is not a declaration keyword",
    "E0113": "a line outside any label",
    "E0115": "'{word}' needs {what}",
    "E0114": "sub-property '{label}' has no named item ('- **Name**') above it",
    "E0116": "'{word}' needs an indented body",
    "E0117": "'{word}' without an '{opener}' before it",
    "E0118": "only 'case' lines and one 'else' go in a 'match'",
    "E0119": "a number of {count} digits (the limit is {limit})",
    "E0120": "a tab in indentation",
    # E02xx: content against the vocabulary
    "E0201": "unknown entry type '{name}'",
    "E0202": "{kind} '{entry}' is missing required label '{label}'",
    "E0203": "unknown label '{label}'",
    "E0204": "label '{label}' may appear only once in a {kind}",
    "E0205": "label '{label}' does not take a grade",
    "E0206": "'{label}' expects {expected}, found '{found}'",
    "E0207": "unknown name '{name}'",
    "E0208": "label '{label}' must follow '{after}'",
    "E0209": "duplicate entry '{name}' (first defined at line {line})",
    "E0210": "label '{label}' is not allowed on a {kind}",
    "E0211": "unknown keyword '{name}'",
    "E0212": "label '{label}' needs a grade, as in '{label} 1:'",
    "E0213": "unknown entry '{name}'",
    "E0216": "'{text}' looks like the start of another entry",
    "E0215": "grade {grade} is beyond '{label}' (grades {low} to {high})",
    "E0214": "'{name}' is already an entry of {game} ({where})",
    "E0217": "'{name}' replaces no entry of {game}",
    "E0230": "'{label}' names no {kind} '{name}'",
    "E0231": "'{text}' does not occur in {kind} '{name}'",
    "E0232": "{kind} '{name}' is refused by its check '{check}': {reason}",
    # E03xx: declarations
    "E0301": "unknown value type '{name}'",
    "E0302": "'{name}' is already declared (at line {line})",
    "E0303": "unknown {what} '{name}'",
    "E0304": "{what} '{name}' is declared twice in one {owner}",
    "E0305": "'{name}' is not a {what}",
    "E0306": "{message}",
    "E0307": "'{name}' in table '{table}' is not one of its levels: it names something declared at {where}",
    "E0308": "'{text}' is not a range of choices: it goes from a lower to a higher whole number, at most {most} values",
    # E04xx: expressions and dice
    "E0401": "a die needs at least one face",
    "E0402": "too many dice: {count} (the limit is {limit})",
    "E0403": "{message}",
    "E0404": "division by zero",
    "E0405": "'{op}' cannot apply to {kind}",
    "E0406": "wrong number of arguments to '{name}': expected {expected}, got {got}",
    "E0407": "exploding on every face of {die} never stops",
    "E0408": "the distribution is too large ({size}; the limit is {limit})",
    "E0409": "expression nests too deeply (more than {limit} levels)",
    "E0410": "explosions went deeper than {limit}",
    "E0411": "rerolling every face of {die} never stops",
    "E0412": "unknown function '{name}'",
    "E0413": "no row of '{table}' matches {key}",
    "E0414": "{what} must be a whole number, not {value}",
    "E0415": "exact odds are not available for {what}: {why}",
    "E0416": "'{name}' depends on itself",
    "E0417": "no {die} can be {op} {value}, and a comparison with dice counts the dice that match",
    # E042x: types, found by the check stage (dsl.typecheck) before anything runs
    "E0420": "{what} needs {expected}; '{text}' is {found}",
    "E0421": "'{op}' compares {left} with {right}",
    "E0422": "'{op}' compares {left} with {right}, which are never equal",
    "E0423": "argument {index} of '{name}' is {found}; it takes {expected}",
    "E0424": "no field '{name}' in {found}",
    "E0425": "no row of '{table}' can answer {found}",
    "E0426": "'{name}' cannot take {found} as argument {index} ('{param}'): {problem}",
    "E0430": "there is no item {key} in a list of {count}",
    # E05xx: dice given by the user
    "E0501": "not enough dice given: needed a {die} for {what}",
    "E0502": "{count} dice given but only {used} used",
    "E0503": "a {die} cannot show {face}",
    # E06xx: rules, inputs and state
    "E0601": "unknown check '{name}'",
    "E0602": "missing input '{name}' for '{check}'",
    "E0603": "input '{name}' expects {expected}, got '{value}'",
    "E0604": "unknown input '{name}' for '{check}'",
    "E0605": "unknown option '{name}'",
    "E0606": "option '{name}' cannot be '{value}'; allowed: {allowed}",
    "E0607": "{message}",
    "E0608": "nothing to run called '{name}' (no procedure, check or usable entry)",
    "E0609": "no step '{name}' to go to",
    "E0610": "the choices ran out at choice '{name}' (answer {count})",
    "E0611": "'{answer}' is not offered at choice '{name}'; choose one of: {allowed}",
    "E0613": "'{check}' requires {condition}",
    "E0614": "this procedure may never end: some of its states cannot reach an end",
    "E0615": "exact odds cannot keep {what} across {where}: a state holds plain values only",
    "E0612": "the procedure ran more than {limit} lines; is a loop ('repeat', 'goto') going round forever?",
    "E0620": "unknown procedure '{name}'",
    "E0621": "procedure '{name}' uses itself: {chain}",
    "E0622": "'{label}.{name}' is not a result of '{procedure}'",
    "E0623": "'{word}' outside a loop",
    "E0624": "'{name}' may be read before it is set",
    "E0625": "nothing reaches this line: '{line}'",
    "E0626": "'match' does not cover {missing} of '{group}' and has no 'else'",
    "E0627": "nothing to choose from at choice '{name}'",
    "E0628": "'{name}' is set but nothing reads it",
    "E0629": "using procedures here expands them to more than {limit} lines in all",
    "E0630": "procedures are used inside each other more than {limit} deep",
    "E0632": "'{name}' never ends: no way through it reaches a 'stop', an 'end' or its last line",
    "E0633": "'{name}' in '{procedure}' means the game's '{name}', but where '{caller}' uses it a value of that name hides it",
    "E0634": "procedure '{name}' has {lines} lines (the limit is {limit})",
    "E0631": "'set {name}' changes a value no line makes: there is no 'let {name}' or input '{name}'",
    "E0635": "'set {name}' comes before any line makes '{name}' (line {line} makes it, and starts it again)",
    "E0636": "'{line}' cannot be used here: {why}",
    "E0637": "the example of '{check}' expects '{expect}', but {found}",
    # E07xx: entity files
    "E0701": "unknown stat '{name}'",
    "E0702": "'{name}' expects {expected}, got {found}",
    "E0703": "missing required value '{name}'",
    "E0704": "YAML error: {message}",
    "E0705": "unknown {what} '{name}'",
    "E0706": "{name} cannot pay {amount} {resource}: it has {held}",
    "E0707": "no {role} takes part: give one with {flag}",
    "E0708": "'{name}' is not a choice of {where}",
    "E0709": "'{answer}' is not an option of any choice of {where}",
    "E0710": "'{name}' holds {value} {resource}; expected {expected}",
    "E0711": "the cap of {resource} ({cap}) cannot be worked out for '{name}': {reason}",
    # E09xx: limits
    "E0901": "limit exceeded: {what} (the limit is {limit})",
    "E0902": "too many function calls: {what} (limit {name} = {limit})",
    "E0903": "number too large: {what} (limit {name} = {limit})",
    "E0904": "too much work: {what} (limit {name} = {limit})",
    "E0905": "distribution too large: {what} (limit {name} = {limit})",
}

SEVERITIES = ("error", "warning")


@attrs.frozen
class Diagnostic:
    """One problem: a stable code, a message, where it is and an optional hint."""

    code: str
    message: str
    source: Source | None = attrs.field(default=None, eq=False, repr=False)
    span: Span | None = None
    help: str | None = None
    severity: str = "error"

    @classmethod
    def make(
        cls,
        code: str,
        source: Source | None = None,
        span: Span | None = None,
        *,
        help: str | None = None,
        severity: str = "error",
        **fields: object,
    ) -> Diagnostic:
        return cls(code, MESSAGES[code].format(**fields), source, span, help, severity)

    @property
    def path(self) -> str:
        return self.source.name if self.source else "<input>"

    def location(self) -> str:
        if self.span is None:
            return self.path
        return f"{self.path}:{self.span.line}:{self.span.column}"


class RunebookError(Exception):
    """Raised when input has errors: carries every diagnostic that was found."""

    def __init__(self, diagnostics: Sequence[Diagnostic]) -> None:
        self.diagnostics = tuple(diagnostics)
        super().__init__("\n".join(render_text(d) for d in self.diagnostics))


@attrs.define
class DiagnosticSink:
    """Collects diagnostics during a pass so that a file reports all its errors."""

    source: Source | None = None
    items: list[Diagnostic] = attrs.Factory(list)

    def error(self, code: str, span: Span | None, *, help: str | None = None, **fields: object) -> None:
        self.items.append(Diagnostic.make(code, self.source, span, help=help, **fields))

    def extend(self, diagnostics: Iterable[Diagnostic]) -> None:
        self.items.extend(diagnostics)

    def __bool__(self) -> bool:
        return bool(self.items)

    def raise_if_any(self) -> None:
        if self.items:
            raise RunebookError(self.items)


def did_you_mean(word: str, candidates: Iterable[str], *, quote: bool = True,
                 key: Callable[[str], str] = str.casefold) -> str | None:
    """A "did you mean" hint for a misspelt word, or None when nothing is close. ``key``: what
    of the word and of each candidate is compared (the candidate itself is what is shown)."""
    pool = list(dict.fromkeys(candidates))
    folded = {key(c): c for c in pool}
    matches = get_close_matches(key(word), list(folded), n=3, cutoff=0.7)
    if not matches:
        return None
    names = [f"'{folded[m]}'" if quote else folded[m] for m in matches]
    if len(names) == 1:
        return f"did you mean {names[0]}?"
    return f"did you mean one of {', '.join(names)}?"


def _caret_block(diagnostic: Diagnostic) -> list[str]:
    span, source = diagnostic.span, diagnostic.source
    if span is None or source is None:
        return []
    text = source.line_text(span.line)
    if len(text) > 200:
        # Keep a long line readable: show a window around the column.
        start = max(0, span.column - 80)
        shown = text[start : start + 160]
        column = span.column - start
        prefix = "…" if start else ""
        text, column = prefix + shown, column + len(prefix)
    else:
        column = span.column
    width = span.end_column - span.column if span.end_line == span.line else len(text) - column + 1
    width = max(1, min(width, len(text) - column + 1 if len(text) >= column else 1))
    gutter = str(span.line)
    pad = " " * len(gutter)
    visible = text.expandtabs(1)
    return [
        f" {gutter} | {visible}",
        f" {pad} | {' ' * (column - 1)}{'^' * width}",
    ]


def render_text(diagnostic: Diagnostic) -> str:
    """`path:line:col: CODE message`, the source line with a caret, then `help:`."""
    lines = [f"{diagnostic.location()}: {diagnostic.code} {diagnostic.message}"]
    lines.extend(_caret_block(diagnostic))
    if diagnostic.help:
        lines.append(f"help: {diagnostic.help}")
    return "\n".join(lines)


def as_dict(diagnostic: Diagnostic) -> dict[str, object]:
    span = diagnostic.span
    return {
        "path": diagnostic.path,
        "line": span.line if span else None,
        "column": span.column if span else None,
        "end_line": span.end_line if span else None,
        "end_column": span.end_column if span else None,
        "code": diagnostic.code,
        "severity": diagnostic.severity,
        "message": diagnostic.message,
        "help": diagnostic.help,
    }


def render_json(diagnostics: Iterable[Diagnostic]) -> str:
    return json.dumps([as_dict(d) for d in diagnostics], indent=2, ensure_ascii=False)


def _github_escape(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def render_github(diagnostic: Diagnostic) -> str:
    """A GitHub Actions workflow command that annotates the file and line."""
    parts = [f"file={diagnostic.path}"]
    if diagnostic.span:
        parts += [f"line={diagnostic.span.line}", f"col={diagnostic.span.column}"]
        if diagnostic.span.end_line == diagnostic.span.line:
            parts.append(f"endColumn={diagnostic.span.end_column}")
    message = diagnostic.message + (f" ({diagnostic.help})" if diagnostic.help else "")
    return f"::{diagnostic.severity} {','.join(parts)},title={diagnostic.code}::{_github_escape(message)}"


#: The SARIF version written by :func:`render_sarif` and the schema it follows.
SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _artifact_uri(path: str) -> str:
    """A SARIF artifact URI: relative paths stay relative (with ``/``), absolute ones become file URIs."""
    if PurePosixPath(path).is_absolute() or PureWindowsPath(path).drive:
        return PurePath(path).as_uri()
    return quote(PureWindowsPath(path).as_posix() if "\\" in path else path, safe="/")


def _template_text(template: str) -> str:
    """A message template with its fields shown as ``<name>``: the rule's general description."""
    return re.sub(r"\{(\w+)(?::[^}]*)?\}", r"<\1>", template)


def _sarif_result(diagnostic: Diagnostic, rule_index: int) -> dict[str, object]:
    text = diagnostic.message + (f" ({diagnostic.help})" if diagnostic.help else "")
    result: dict[str, object] = {
        "ruleId": diagnostic.code,
        "ruleIndex": rule_index,
        "level": diagnostic.severity if diagnostic.severity in ("error", "warning") else "note",
        "message": {"text": text},
    }
    if diagnostic.source is not None:
        physical: dict[str, object] = {"artifactLocation": {"uri": _artifact_uri(diagnostic.path)}}
        span = diagnostic.span
        if span is not None:
            physical["region"] = {
                "startLine": span.line,
                "startColumn": span.column,
                "endLine": span.end_line,
                "endColumn": max(span.end_column, span.column + 1) if span.end_line == span.line
                else span.end_column,
            }
        result["locations"] = [{"physicalLocation": physical}]
    return result


def render_sarif(diagnostics: Iterable[Diagnostic], *, version: str, help_uri: str | None) -> str:
    """A SARIF 2.1.0 log of one run, for code-scanning views.

    ``help_uri`` is the address of the error reference (``docs/errors.md``); each rule
    links to its code's section there. Without one, the rules name the page in their help
    text only. Only the codes that occur are listed as rules.
    """
    found = list(diagnostics)
    codes = sorted({d.code for d in found})
    index = {code: i for i, code in enumerate(codes)}
    rules: list[dict[str, object]] = []
    for code in codes:
        rule: dict[str, object] = {"id": code, "name": code,
                                   "shortDescription": {"text": _template_text(MESSAGES[code])}}
        if help_uri:
            rule["helpUri"] = f"{help_uri}#{code.lower()}"
        where = f"{help_uri}#{code.lower()}" if help_uri else f"{code} in docs/errors.md of the Runebook repository"
        rule["help"] = {"text": f"See {where} for an example and how to fix it."}
        rules.append(rule)
    driver: dict[str, object] = {"name": "runebook", "version": version, "rules": rules}
    if help_uri:
        driver["informationUri"] = help_uri
    log = {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {"driver": driver},
                "columnKind": "unicodeCodePoints",
                "results": [_sarif_result(d, index[d.code]) for d in found],
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False)
