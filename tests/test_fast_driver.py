"""The fast LALR driver (dsl/lalr.py) gives exactly what Lark's own parse loop gives.

Every file is parsed twice: once as `runebook check` does (fast driver, Lark only as a
fallback) and once with the fast driver switched off, so Lark's loop, lexer, post-lexer
and callback chain build everything. The ASTs are compared field by field INCLUDING every
span (AST equality alone ignores spans), and so are the diagnostics.
"""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

import runebook.dsl.parser as parser_module
from runebook.dsl.diagnostics import DiagnosticSink, RunebookError
from runebook.dsl.lalr import Fallback, FastDriver
from runebook.dsl.source import Source

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted((ROOT / "rulesets").rglob("*.rules")) + sorted((ROOT / "tests" / "cases").rglob("*.rules"))


def _deep(node: object) -> object:
    """A node as nested tuples, spans and every other field included."""
    if attrs.has(type(node)):
        return (type(node).__name__,) + tuple(
            (f.name, _deep(getattr(node, f.name))) for f in attrs.fields(type(node)) if f.name != "source"
        )
    if isinstance(node, list | tuple):
        return tuple(_deep(x) for x in node)
    return repr(node)


class _Off:
    """Stands in for the fast driver: takes nothing, so Lark parses everything."""

    def parse(self, *args: object) -> object:
        raise Fallback


def _parse_both(monkeypatch: pytest.MonkeyPatch, text: str) -> tuple[object, object]:
    source = Source("sample.rules", text)
    fast_sink = DiagnosticSink(source)
    fast = parser_module.parse_rules(source, fast_sink)
    with monkeypatch.context() as patch:
        patch.setattr(parser_module, "_fast_driver", lambda: _Off())
        lark_sink = DiagnosticSink(source)
        slow = parser_module.parse_rules(source, lark_sink)
    return (_deep(fast), [_deep(d) for d in fast_sink.items]), (_deep(slow), [_deep(d) for d in lark_sink.items])


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_same_ast_and_diagnostics_as_lark(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="replace").replace("\r\n", "\n")
    fast, slow = _parse_both(monkeypatch, text)
    assert fast == slow


# Valid and invalid snippets, game-neutral: the invalid ones make the fast driver give up
# at different points (unknown character, unexpected token, end of input).
SNIPPETS = [
    "Thing [Sort]\nCost: [Power + 2] points\nEffect: push *Heavy [Power]* foes\n  - **Sub:** more [a's b]\n",
    "stats Power, Speed\n\nfunction half(x) = floor(x / 2)\n\ntable Grade\n  0: Fail\n  3+: High\n",
    "check Test (pool = 3, modifier = 0)\n  roll dice = pool d10x10cs>=8\n  result hits = dice + modifier\n",
    "Thing\nCost: [Power + ] points\n",
    "Thing\nCost: [Power + 2 points\n\nOther\nEffect: ] stray\n",
    "Thing\n   Cost: 1\n",
    "Thing\nCost: 1 \u00a7 [x ^ 2]\n",
    "procedure P (a)\n  step top\n  goto top if a >\n",
    "",
    "# only a comment\n",
]


@pytest.mark.parametrize("text", SNIPPETS)
def test_snippets_same_as_lark(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    fast, slow = _parse_both(monkeypatch, text)
    assert fast == slow


EXPRESSIONS = ["3d6+2", "4d6kh3", "d{1,1,-2}", "(pool)d10!>=9 + 2", "x if a and not b or c else y",
               "Target's Defense", "f(1, 2).b[0]", "1.5 * -2 // 3 % 4", "2 +", "(", "3 ^ 4"]


@pytest.mark.parametrize("text", EXPRESSIONS)
def test_expressions_same_as_lark(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    def run() -> object:
        try:
            return _deep(parser_module.parse_expression(text))
        except RunebookError as error:
            return ("error", str(error))

    fast = run()
    with monkeypatch.context() as patch:
        patch.setattr(parser_module, "_fast_driver", lambda: _Off())
        slow = run()
    assert fast == slow


def test_valid_files_never_fall_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """The built-in rulesets are parsed by the fast driver alone (Lark's loop never runs)."""
    lark = parser_module.rules_parser()

    def refuse(*args: object, **kwargs: object) -> object:
        raise AssertionError("fell back to Lark on valid input")

    monkeypatch.setattr(lark, "parse", refuse)
    for path in sorted((ROOT / "rulesets").rglob("*.rules")):
        source = Source(str(path), path.read_text(encoding="utf-8"))
        parser_module.parse_rules(source, DiagnosticSink(source))


def test_single_child_rules_skip_their_callback() -> None:
    """`?rule: child` reductions are marked to pass their child through (callback None),
    and rules with a method keep one."""
    driver = FastDriver(parser_module.rules_parser())
    through = {a[2] for row in driver.actions.values() for a in row.values() if isinstance(a, tuple) and a[1] is None}
    called = {a[2] for row in driver.actions.values() for a in row.values() if isinstance(a, tuple) and a[1] is not None}
    assert "expr__sum" in through and "expr__atom" in through
    assert "expr__sum" in called  # `sum ADD_OP product` still builds a Binary
    assert "bracket" not in through and "entry" not in through
