"""The one place the grammar is loaded, and parsing of .rules files and expressions.

The AST is built while parsing (Lark's inline transformer): no parse tree is kept.
A file is parsed in one go; when that fails, it is split into blocks at blank lines
followed by a line at column 0 (the rule the post-lexer applies) and each block is
parsed on its own, so a syntax error in one block does not hide the errors of others.

Parsing runs Lark's tables through the fast driver of dsl/lalr.py; only input that driver
gives up on (a syntax error) goes through Lark's own loop, which raises the error the
diagnostic is made from.
"""

from __future__ import annotations

import os
import re
import sys
import threading
from collections.abc import Iterator
from copy import copy
from functools import lru_cache

import attrs
from lark import Lark, Token
from lark import __version__ as lark_version
from lark.utils import TextSlice
from lark.exceptions import UnexpectedCharacters, UnexpectedInput
from lark.lark import PostLex

from runebook.dsl import ast
from runebook.dsl.builder import RulesBuilder, make_builder
from runebook.dsl.diagnostics import Diagnostic, DiagnosticSink
from runebook.dsl.fast_table import read_table
from runebook.dsl.grammar_cache import cached_parser
from runebook.dsl.lalr import FastDriver
from runebook.dsl.expr_ast import Expr
from runebook.dsl.source import Source, Span
from runebook.grammar import GRAMMAR_DIR

__all__ = ["GRAMMAR_FILE", "Limits", "parse_expression", "parse_rules", "rules_parser"]

GRAMMAR_FILE = GRAMMAR_DIR / "rules.lark"


class Limits:
    """Bounds on what the parser accepts, so no input can hang or exhaust it."""

    max_nesting = 64
    max_terms = 2000
    max_line_length = 10_000
    #: Syntax errors looked for in one block after its first (each costs a parse of the block).
    max_recoveries = 8
    #: Digits of one number written in the text (longer ones are E0119, before anything converts them).
    max_digits = 1000


class LinePostLexer(PostLex):
    """Turns newline runs into _NL / _BLANK and puts INDENT before indented lines."""

    always_accept = ("NEWLINE",)

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        for token in stream:
            if token.type != "NEWLINE":
                yield token
                continue
            text = str(token)
            lines = text.split("\n")[1:]
            indent = lines[-1]
            blank = any(not line.strip() for line in lines[:-1])
            if indent:
                # The indentation token stands for the line break too; its span is the
                # indentation itself, for carets under stray indentation.
                tok = Token("INDENT", indent)
                tok.line = tok.end_line = token.end_line or token.line
                tok.column = 1
                tok.end_column = len(indent) + 1
                tok.start_pos = (token.end_pos or 0) - len(indent)
                tok.end_pos = token.end_pos
                yield tok
            else:
                yield Token.new_borrow_pos("_BLANK" if blank else "_NL", text, token)


_BUILDER = RulesBuilder()
_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def rules_parser() -> Lark:
    """The LALR parser for .rules files (start ``start``) and expressions (start ``expr``).

    It returns AST nodes directly; use :func:`parse_rules` / :func:`parse_expression`.
    """
    options = {"postlex": LinePostLexer(), "transformer": make_builder(_BUILDER)}

    def build() -> Lark:
        return Lark.open(str(GRAMMAR_FILE), parser="lalr", lexer="contextual", start=["start", "expr"],
                         maybe_placeholders=True, **options)

    return cached_parser(_table_cache() or None, GRAMMAR_DIR.glob("*.lark"), build, options)


def _table_cache() -> str | bool:
    """Where the grammar's analysed tables are kept between runs: building them is most of
    a short command's start-up. The file lives in the user's own cache folder
    (dsl.grammar_cache checks it before reading and rebuilds a stale or damaged one); no
    cache when that folder cannot be made. ``RUNEBOOK_NO_CACHE=1`` turns it off."""
    if os.environ.get("RUNEBOOK_NO_CACHE"):
        return False
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "runebook")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError:
        return False
    if not os.access(folder, os.W_OK):
        return False
    version = "%d.%d" % sys.version_info[:2]
    return os.path.join(folder, f"tables-lark{lark_version}-py{version}")


@lru_cache(maxsize=1)
def _fast_driver() -> FastDriver | None:
    try:
        return FastDriver(rules_parser())
    except Exception:  # noqa: BLE001 - a Lark whose internals differ: its own loop parses everything
        return None


def _run(text: str | TextSlice, start: str, sink: DiagnosticSink) -> object:
    """Parse with the shared builder reporting into ``sink``.

    The fast driver (dsl.lalr) runs first; on input it cannot take, Lark parses the
    same text again and raises the error the diagnostics are made from.
    """
    parser = rules_parser()
    driver = _fast_driver()
    whole, begin, end = (text.text, text.start, text.end) if isinstance(text, TextSlice) else (text, 0, len(text))
    with _LOCK:
        fast_sink = DiagnosticSink(sink.source)
        _BUILDER.sink = fast_sink
        try:
            result = driver.parse(whole, begin, end, start) if driver is not None else _FAILED
        except Exception:  # noqa: BLE001 - any problem: Lark reparses and reports it
            result = _FAILED
        finally:
            _BUILDER.sink = DiagnosticSink()
        if result is not _FAILED:
            sink.items.extend(fast_sink.items)
            return result
        _BUILDER.sink = sink
        try:
            return parser.parse(text, start=start)
        finally:
            _BUILDER.sink = DiagnosticSink()


_FAILED = object()


# ---------------------------------------------------------------- syntax errors

_TERMINALS = {
    "_NL": "end of line",
    "_BLANK": "a blank line",
    "$END": "end of input",
    "NEWLINE": "end of line",
    "INDENT": "indentation",
    "TEXT": "text",
    "LABEL": "a label ('Name:')",
    "EM_LABEL": "a label ('*Name:*')",
    "STRONG_LABEL": "a named option ('**Name:**')",
    "STRONG_NAME": "a named item ('**Name**')",
    "BULLET": "'- '",
    "EM_MARK": "'*'",
    "HEADER_NAME": "an entry name",
    "TYPES": "'[Types]'",
    "SOURCE": "'(source)'",
    "PHRASE": "a name",
    "WORD": "a name",
    "INT": "a number",
    "DECIMAL": "a number",
    "RATING": "a rating such as '7M2'",
    "STRING": "a quoted string",
    "POSSESSIVE": "'s",
    "COMPARE": "a comparison ('>=', '<', ...)",
    "ADD_OP": "'+' or '-'",
    "MUL_OP": "'*', '/', '//' or '%'",
    "DIE_SIDES": "a die such as 'd6'",
    "KEEP_DROP": "'kh', 'kl', 'dh' or 'dl'",
    "EXPLODE": "'x', '!' or '!!'",
    "REROLL": "'r' or 'ro'",
    "COUNT_OP": "'cs', 'cf' or 'df'",
    "CLAMP": "'min' or 'max'",
    "SORT": "'sa' or 'sd'",
    "UNIQUE": "'u'",
    "FAILURES": "a failure target such as 'f1'",
    "POW_OP": "'**'",
    "OPERATOR": "an operator",
    "OPERAND": "a value (a number, a name, dice or '(')",
    "RSQB": "']'",
    "RPAR": "')'",
}


def _describe(name: str) -> str:
    bare = name.split("__")[-1]
    if bare in _TERMINALS:
        return _TERMINALS[bare]
    try:
        pattern = rules_parser().get_terminal(name).pattern
    except KeyError:
        return bare.lower()
    if pattern.type == "str":
        return f"'{pattern.value}'"
    keyword = re.match(r"([a-z]+)\(\?=", pattern.value)
    if bare.startswith("_") and keyword is not None:
        return f"'{keyword.group(1)}'"  # a keyword (`_LET: /let(?=[ \t])/`): the word itself
    return bare.lower()


_OPERANDS = {"INT", "DECIMAL", "RATING", "STRING", "WORD", "DIE_SIDES", "LPAR", "LSQB", "LBRACE", "ADD_OP", "NOT", "ANON_0"}
_OPERATORS = {"ADD_OP", "MUL_OP", "POW_OP", "COMPARE", "AND", "OR", "IF", "DOT", "LSQB", "POSSESSIVE", "LPAR"}


def _expected(names: set[str] | frozenset[str]) -> str:
    bare = {n.split("__")[-1] for n in names if not n.startswith("__")}
    if len(bare) > 1:
        bare.discard("FAILURES")  # a dice notation's tail (`3d6>3f1`): not worth listing
    if {"ADD_OP", "MUL_OP"} <= bare:
        # After a complete operand every operator is possible: say so once.
        bare = (bare - _OPERATORS) | {"OPERATOR"}
    if {"INT", "WORD"} <= bare:
        # Where an operand must come, list the idea rather than every token that starts one.
        bare = (bare - _OPERANDS) | {"OPERAND"}
    words = sorted({_describe(n) for n in bare})
    if not words:
        return "something else"
    if len(words) > 6:
        return ", ".join(words[:6]) + f" or one of {len(words) - 6} more"
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]


def _accepts(error: UnexpectedInput) -> set[str]:
    """The terminals the parser would take where it failed.

    Lark's own ``accepts`` skips namespaced terminals such as ``expr__ADD_OP``; this is
    the same replay on a copy of the parser, without running the AST callbacks.
    """

    interactive = getattr(error, "interactive_parser", None)
    if interactive is None:
        return set()
    quiet = copy(interactive.parser_state.parse_conf)
    quiet.callbacks = {}
    found: set[str] = set()
    for name in interactive.choices():
        if not name.split("__")[-1].isupper():
            continue
        cursor = interactive.copy(deepcopy_values=False)
        cursor.parser_state.parse_conf = quiet
        try:
            cursor.feed_token(Token(name, ""))
        except (UnexpectedInput, Exception):  # noqa: BLE001 - a rejected terminal
            continue
        found.add(name)
    return found


def _open_brackets(line_text: str, column: int) -> list[tuple[str, int]]:
    """Brackets still open before ``column``: (character, column) pairs."""
    opens: list[tuple[str, int]] = []
    pairs = {")": "(", "]": "["}
    for index, char in enumerate(line_text[: column - 1]):
        if char in "([":
            opens.append((char, index + 1))
        elif char in ")]" and opens and opens[-1][0] == pairs[char]:
            opens.pop()
    return opens


def _unclosed(source: Source, line: int, opens: list[tuple[str, int]], *, continued: bool = False) -> Diagnostic:
    """E0104 for the last bracket left open on ``line``; ``continued``: the next line goes on
    with the expression, which a line break ends even inside brackets."""
    char, col = opens[-1]
    close = ")" if char == "(" else "]"
    help = f"add the closing '{close}'"
    if continued:
        help = f"an expression ends with its line, even inside brackets: join the next line to this one, or {help}"
    return Diagnostic.make("E0104", source, Span.point(line, col), open=char, help=help)


def _syntax_diagnostic(error: UnexpectedInput, source: Source, first_line: int, last_line: int,
                       content: bool = True) -> Diagnostic:
    """A syntax error in the block on lines first_line..last_line, as a diagnostic. ``content``:
    the block is a file's (its entries have emphasis and headers); False for one expression,
    where a '*' is multiplication."""
    text = source.text
    line = error.line if error.line and error.line > 0 else first_line
    column = error.column if error.column and error.column > 0 else 1
    line_text = source.line_text(line)
    token: Token | None = getattr(error, "token", None)
    char = text[error.pos_in_stream] if error.pos_in_stream is not None and 0 <= error.pos_in_stream < len(text) else ""
    if isinstance(error, UnexpectedCharacters) or token is None:
        expected: set[str] | frozenset[str] = error.allowed or set()  # type: ignore[attr-defined]
    else:
        expected = _accepts(error) or set(getattr(error, "expected", None) or ())
    expected = {name for name in expected if name != "NEWLINE"}
    at_end = token is not None and token.type in ("_NL", "_BLANK", "$END", "NEWLINE")
    if token is not None and token.type == "$END":
        line = last_line
        line_text = source.line_text(line)
        column = len(line_text) + 1
    elif at_end:
        column = len(line_text) + 1
    opens = _open_brackets(line_text, column)
    word = str(token).strip() if token is not None else ""
    if word in _NEEDS_MORE and not line_text[column - 1 + len(word):].strip() \
            and line_text[column - 1: column - 1 + len(word)] == word:
        # `stop if`, `for each x in`: the keyword is read as one only with something after it.
        end = column + len(word)
        return Diagnostic.make("E0103", source, Span.point(line, end), where="line",
                               expected=f"{_NEEDS_MORE[word]} after '{word}'")
    if token is not None and token.type == "INDENT" and line > first_line:
        above = source.line_text(line - 1).rstrip()
        dangling = _dangling(above)
        if dangling is not None and not _open_brackets(above, len(above) + 1):
            # `let x =` or `let y = x +` and nothing after it: the value is missing, not the
            # next line's indentation wrong.
            return Diagnostic.make("E0103", source, Span.point(line - 1, len(above) + 1), where="line",
                                   expected=f"a value after '{dangling}'",
                                   help="an expression ends with its line: finish it on this one")
    if char == "]" or (token is not None and str(token) == "]"):
        if line_text[: column - 1].rstrip().endswith("["):
            return Diagnostic.make("E0111", source, Span(line, column - 1, line, column + 1),
                                   help="put an expression inside, as in '[Grade + 1]'")
        if opens and opens[-1][0] == "(":
            return _unclosed(source, line, opens)
        if not opens:
            return Diagnostic.make("E0105", source, Span.point(line, column), close="]",
                                   help="remove it, or add the matching '[' before it")
    if opens and opens[-1][0] == "(" and line_text[column - 1 : column + 1].startswith("=") \
            and line_text[column : column + 1] != "=" and not at_end:
        # `Duel(skill = 3)`: the '(' may well be closed; the '=' is what cannot be read.
        called = re.search(r"[A-Za-z0-9_]\s*$", line_text[: opens[-1][1] - 1]) is not None
        return Diagnostic.make("E0102", source, Span.point(line, column), found="'='",
                               expected=_expected(expected),
                               help=("a check or function takes its values in order, as in 'Duel(3)'; "
                                     "values by name are for 'do' lines ('do Strike(cost = 2)'); "
                                     if called else "") + "to compare, write '=='")
    if opens and ("]" not in line_text[column - 1 :] or at_end):
        return _unclosed(source, line, opens)
    if token is not None and token.type == "INDENT":
        above = line - 1
        while above > first_line and not source.line_text(above).strip():
            above -= 1
        before = source.line_text(above) if above >= first_line else ""
        left_open = _open_brackets(before, len(before) + 1)
        if left_open and line > first_line:
            # `let r = max(3` then the next line: the bracket, not the indentation, is wrong.
            return _unclosed(source, above, left_open, continued=True)
        return Diagnostic.make("E0106", source, Span.point(line, 1, len(str(token))),
                               help="only the body of a declaration and nested bullets are indented")
    if content and not opens and (char == "*" or (at_end and line_text.count("*") % 2)):
        mark_col = line_text.rfind("*") + 1 if at_end else column
        return Diagnostic.make("E0109", source, Span.point(line, max(1, mark_col)), mark="*",
                               help="emphasis opens and closes on the same line: '*Keywords Like This*'")
    if content and (char == ":" or (token is not None and str(token).startswith(":"))) and line == first_line:
        head = line_text[: column - 1].strip()
        return Diagnostic.make(
            "E0108", source, Span(line, 1, line, len(head) + 2), label=head,
            help="an entry starts with a line holding just its name (and [Types]); "
            "add it above, or take the ':' out of the name",
        )
    if at_end and line_text.strip() == "-":
        return Diagnostic.make("E0103", source, Span.point(line, max(1, column)), where="line",
                               expected="the bullet's text after '- '")
    if isinstance(error, UnexpectedCharacters):
        shown = repr(char) if char.strip() else "whitespace"
        return Diagnostic.make("E0101", source, Span.point(line, column), found=shown,
                               expected=_expected(expected))
    assert token is not None
    if at_end:
        return Diagnostic.make("E0103", source, Span.point(line, max(1, column)),
                               where="line" if token.type != "$END" else "input", expected=_expected(expected))
    shown_token = str(token)
    if token.type.endswith("TEXT"):
        # Free text matched where an expression was expected: show its first word only.
        shown_token = shown_token.split()[0] if shown_token.split() else shown_token
    width = max(1, len(shown_token.rstrip()))
    found = f"'{shown_token[:40]}'" if shown_token.strip() else _describe(token.type)
    return Diagnostic.make("E0102", source, Span.point(line, column, width), found=found,
                           expected=_expected(expected), help=_procedure_line_hint(token.type, expected))


#: Keywords that need something after them on their line, and what.
_NEEDS_MORE = {"if": "a condition", "require": "a condition", "in": "a list", "match": "a value to match",
               "case": "what the case matches", "roll": "a name and dice", "let": "a name and a value",
               "set": "a name and a value", "result": "a name and a value"}

#: A line of code (not an entry's prose) ending in an operator that needs a value after it.
_DANGLING = re.compile(r"^\s*(?:(?:let|set|result|require|stop|end|if|else|show|roll|function|for|match|case|"
                       r"goto|each)\b|.*=).*?(==|!=|<=|>=|[-+*/%<>=]|\b(?:and|or|not)\b)$")


def _dangling(line: str) -> str | None:
    """The operator a line of code ends with (``let y = x +``: ``+``), else None."""
    found = _DANGLING.match(line)
    return found.group(1) if found is not None else None


#: The lines a check may hold; a procedure takes these and every other kind of line.
_CHECK_LINES = frozenset({"_ROLL", "_LET", "_RESULT", "_SHOW", "_REQUIRE"})


def _procedure_line_hint(found: str, expected: set[str] | frozenset[str]) -> str | None:
    """A procedure's line (`set`, `choose`, `if`...) written in a check: say where it belongs."""
    bare = {n.split("__")[-1] for n in expected}
    if not found.startswith("_") or found in _CHECK_LINES or not bare or not bare <= _CHECK_LINES:
        return None
    word = _describe(found)
    return (f"{word} is a line of a procedure: a check's lines are roll, let, result, show and require; "
            "declare it with 'procedure' to use the others")


# ---------------------------------------------------------------- pre-checks


def _nesting_problem(block: str) -> tuple[int, int] | None:
    """Where brackets (records' braces too) nest deeper than the limit, as (line, column)
    within the block."""
    if block.count("(") + block.count("[") + block.count("{") <= Limits.max_nesting:
        return None
    for number, line in enumerate(block.split("\n"), 1):
        if line.count("(") + line.count("[") + line.count("{") <= Limits.max_nesting:
            continue
        depth = 0
        for column, char in enumerate(line, 1):
            if char in "([{":
                depth += 1
                if depth > Limits.max_nesting:
                    return number, column
            elif char in ")]}":
                depth = max(0, depth - 1)
    return None


_TERM = re.compile(r"[-+*/%]")


def _too_many_terms(block: str) -> tuple[int, int, int] | None:
    for number, line in enumerate(block.split("\n"), 1):
        if len(line) > Limits.max_terms:
            count = len(_TERM.findall(line)) + 1
            if count > Limits.max_terms:
                return number, count, len(line)
    return None


# ---------------------------------------------------------------- blocks


_LONG_NUMBER = re.compile("[0-9]{%d,}" % (Limits.max_digits + 1))


def _long_number(text: str) -> tuple[int, int, int] | None:
    """(line, column, digits) of the first number written with more than ``max_digits`` digits."""
    found = _LONG_NUMBER.search(text)
    if found is None:
        return None
    line = text.count("\n", 0, found.start()) + 1
    return line, found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1, len(found.group())


def _prechecks(text: str, offset: int, sink: DiagnosticSink) -> bool:
    long = _long_number(text)
    if long:
        sink.error("E0119", Span.point(long[0] + offset, long[1], long[2]), count=f"{long[2]:,}",
                   limit=f"{Limits.max_digits:,}")
        return False
    nested = _nesting_problem(text)
    if nested:
        sink.error("E0107", Span.point(nested[0] + offset, nested[1]), limit=Limits.max_nesting)
        return False
    terms = _too_many_terms(text)
    if terms:
        sink.error("E0110", Span(terms[0] + offset, 1, terms[0] + offset, terms[2] + 1),
                   count=terms[1], limit=Limits.max_terms)
        return False
    return True


def split_blocks(text: str, sink: DiagnosticSink) -> list[tuple[int, int, int, int]]:
    """Cut a file into blocks: (first line, last line, start offset, end offset).

    Reports stray indentation where a block should start.
    """
    blocks: list[list[int]] = []
    pending_blank = False
    offset = 0
    for number, line in enumerate(text.split("\n"), 1):
        start, offset = offset, offset + len(line) + 1
        stripped = line.strip()
        if not stripped:
            pending_blank = bool(blocks)
            continue
        if stripped.startswith("#"):
            continue
        indented = line[0] in " \t"
        indent = line[:len(line) - len(line.lstrip(" \t"))]
        if "\t" in indent:
            # How wide a tab is, is anyone's guess: nesting would depend on the editor.
            sink.error("E0120", Span.point(number, indent.index("\t") + 1),
                       help="indent with spaces, two for each level")
        if not blocks or (pending_blank and not indented):
            if indented:
                sink.error("E0106", Span.point(number, 1, len(line) - len(line.lstrip())),
                           help="the first line of an entry or declaration starts at column 1")
                continue
            blocks.append([number, number, start, start + len(line)])
        else:
            blocks[-1][1] = number
            blocks[-1][3] = start + len(line)
        pending_blank = False
    return [tuple(b) for b in blocks]  # type: ignore[misc]


def _parse_slice(source: Source, first: int, last: int, start: int, end: int,
                 sink: DiagnosticSink, *, quiet: bool = False) -> list[ast.Block] | None:
    """Parse part of a file in place: positions stay those of the whole file."""
    try:
        return _run(TextSlice(source.text, start, end), "start", sink)  # type: ignore[return-value]
    except UnexpectedInput as error:
        if not quiet:
            sink.items.append(_syntax_diagnostic(error, source, first, last))
    except RecursionError:
        if not quiet:
            sink.error("E0107", Span.point(first, 1), limit=Limits.max_nesting)
    return None


#: Syntax errors inside a line's text (an operator, a bracket, emphasis): the line's other
#: lines still read as written once its broken part is left out.
_INSIDE_A_LINE = frozenset({"E0102", "E0103", "E0104", "E0105", "E0109", "E0111"})


def _recover(source: Source, first: int, last: int, start: int, end: int,
             sink: DiagnosticSink) -> list[ast.Block] | None:
    """A block with a syntax error, read again without the broken part of each bad line (the
    rest of the line from the error on, then the whole line), so that the
    block's other mistakes are reported too; what reads then is the block, minus those parts.

    The text keeps its length, so every position stays that of the file. A block whose first
    line is broken is left out: there is nothing to read it as.
    """
    text = source.text
    tried: set[tuple[int, int]] = set()
    current = sink.items[-1]
    for _ in range(Limits.max_recoveries):
        span = current.span
        if span is None or not first < span.line <= last or span.column == 1 or current.code not in _INSIDE_A_LINE:
            return None  # a line out of place: what follows would be read out of place too
        line_start = start + sum(len(line) + 1 for line in text[start:end].split("\n")[:span.line - first])
        line_end = text.find("\n", line_start, end)
        line_end = end if line_end < 0 else line_end
        column = span.column if (span.line, span.column) not in tried else 1
        tried.add((span.line, column))
        cut = min(max(line_start + column - 1, line_start), line_end)
        if cut < line_end:
            # A whole line becomes a comment line; the end of one, spaces (a `#` after a
            # label would be read as its text).
            filler = "#" + " " * (line_end - cut - 1) if cut == line_start else " " * (line_end - cut)
            text = text[:cut] + filler + text[line_end:]
        retry = DiagnosticSink(source)
        found = _parse_slice(Source(source.name, text), first, last, start, end, retry)
        if found is not None:
            return found
        if not retry.items:
            return None
        current = attrs.evolve(retry.items[-1], source=source)
        if current.code not in _INSIDE_A_LINE or current.span is None or current.span.column == 1:
            return None
        recent = sink.items[-Limits.max_recoveries - 1:]
        if not any(d.span is not None and d.span.line == current.span.line for d in recent):
            sink.items.append(current)  # a line already reported keeps its first error only
    return None


def parse_rules(source: Source, sink: DiagnosticSink | None = None,
                spans: list[tuple[int, int, int, int]] | None = None) -> ast.RulesFile:
    """Parse a whole .rules file. Syntax errors are collected in ``sink`` (or raised
    as one :class:`RunebookError` when no sink is given); blocks with errors are left out.

    The whole file is parsed in one go; only when that fails is it parsed block by block,
    so that every block's syntax error is reported.
    """
    own = sink is None
    sink = sink if sink is not None else DiagnosticSink(source)
    if sink.source is None:
        sink.source = source
    layout = DiagnosticSink(source)
    if spans is None:
        spans = split_blocks(source.text, layout)
    blocks: list[ast.Block] | None = None
    if not layout and any(last - first >= _FAST_TABLE_ROWS for first, last, _, _ in spans):
        blocks = _with_fast_tables(source, sink, spans)
    if blocks is None and spans and not layout and _prechecks(source.text[spans[0][2]:spans[-1][3]], spans[0][0] - 1, DiagnosticSink()):
        whole_sink = DiagnosticSink(source)
        first, _, start, _ = spans[0]
        _, last, _, end = spans[-1]
        blocks = _parse_slice(source, first, last, start, end, whole_sink, quiet=True)
        if blocks is not None:
            sink.extend(whole_sink.items)
    if blocks is None:
        sink.extend(layout.items)
        blocks = []
        for first, last, start, end in spans:
            if _prechecks(source.text[start:end], first - 1, sink):
                found = _parse_slice(source, first, last, start, end, sink)
                if found is None and sink.items and sink.items[-1].span is not None:
                    found = _recover(source, first, last, start, end, sink)
                blocks.extend(found or [])
    if own:
        sink.raise_if_any()
    return ast.RulesFile(tuple(blocks), path=source.name)


#: A table of at least this many rows is read by dsl.fast_table when its rows are plain.
_FAST_TABLE_ROWS = 100


def _with_fast_tables(source: Source, sink: DiagnosticSink,
                      spans: list[tuple[int, int, int, int]]) -> list[ast.Block] | None:
    """The blocks of a file with large plain tables: those read by dsl.fast_table, the
    blocks between them parsed as usual. None when no large table is plain."""
    found = {index: read_table(source.text, first, start, end) for index, (first, last, start, end) in enumerate(spans)
             if last - first >= _FAST_TABLE_ROWS}
    if not any(found.values()):
        return None
    blocks: list[ast.Block] = []
    pending: list[tuple[int, int, int, int]] = []
    for index, span in enumerate(spans):
        table = found.get(index)
        if table is None:
            pending.append(span)
            continue
        if pending:
            blocks.extend(parse_rules(source, sink, pending).blocks)
            pending = []
        blocks.append(table)
    if pending:
        blocks.extend(parse_rules(source, sink, pending).blocks)
    return blocks


def parse_expression(text: str, source: Source | None = None) -> Expr:
    """Parse one expression (``runebook roll``, a typed value). Raises RunebookError."""
    source = source or Source("<expression>", text)
    sink = DiagnosticSink(source)
    if "\n" in text.strip():
        sink.error("E0102", Span.point(1, len(text.split("\n")[0]) + 1), found="end of line",
                   expected="one expression on one line")
        sink.raise_if_any()
    long = _long_number(text)
    if long:
        sink.error("E0119", Span.point(long[0], long[1], long[2]), count=f"{long[2]:,}", limit=f"{Limits.max_digits:,}")
        sink.raise_if_any()
    nested = _nesting_problem(text)
    if nested:
        sink.error("E0409", Span.point(1, nested[1]), limit=Limits.max_nesting)
        sink.raise_if_any()
    terms = _too_many_terms(text)
    if terms:
        sink.error("E0110", Span(1, 1, 1, min(terms[2], 80) + 1), count=terms[1], limit=Limits.max_terms)
        sink.raise_if_any()
    try:
        result = _run(text, "expr", sink)
    except UnexpectedInput as error:
        sink.items.append(_syntax_diagnostic(error, source, 1, 1, content=False))
    except RecursionError:
        sink.error("E0409", Span.point(1, 1), limit=Limits.max_nesting)
    sink.raise_if_any()
    return result  # type: ignore[return-value]
