"""`runebook fmt`: canonical spacing and indentation, comments and blank lines kept, meaning unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from runebook.dsl.diagnostics import DiagnosticSink
from runebook.dsl.formatter import format_source
from runebook.dsl.parser import parse_rules
from runebook.dsl.source import Source

REPO = Path(__file__).resolve().parent.parent
SHIPPED = sorted((REPO / "rulesets").rglob("*.rules")) + sorted((REPO / "tests" / "cases").rglob("*.rules"))

MESSY = """\
# A small game.


levels   Outcome:  loss<tie <  win   
option reading :  strict|loose =loose



function half(x)=floor( x/2 )   # rounds down

procedure Duel (n: number=3,w:Outcome = win)
    # first the roll
    roll r = 1d6+n
    if r>4 and (w == win or n > 2)
        # a good roll
        result said = "high # not a comment"
    else
        result said="low"


Fire Bolt [Spell]
Effect: deals [1d6+2]   damage.   
"""

TIDY = """\
# A small game.

levels Outcome: loss < tie < win
option reading: strict | loose = loose

function half(x) = floor(x / 2)  # rounds down

procedure Duel (n: number = 3, w: Outcome = win)
  # first the roll
  roll r = 1d6 + n
  if r > 4 and (w == win or n > 2)
    # a good roll
    result said = "high # not a comment"
  else
    result said = "low"

Fire Bolt [Spell]
Effect: deals [1d6+2]   damage.
"""


def _parsed(text: str) -> object:
    source = Source("f.rules", text)
    sink = DiagnosticSink(source)
    tree = parse_rules(source, sink)
    assert not [d for d in sink.items if d.severity == "error"]
    return tree


def _comments(text: str) -> list[str]:
    return [line[line.index("#"):].strip() for line in text.split("\n") if "#" in line and '"' not in line]


def test_a_messy_file_comes_out_tidy() -> None:
    formatted = format_source(Source("f.rules", MESSY))
    assert formatted.refused is None
    assert formatted.changed
    assert formatted.text == TIDY
    assert _parsed(TIDY) == _parsed(MESSY)


def test_a_tidy_file_is_left_as_it_is() -> None:
    formatted = format_source(Source("f.rules", TIDY))
    assert (formatted.changed, formatted.text) == (False, TIDY)


def test_parentheses_written_for_clarity_stay() -> None:
    text = "function f(a, b, c) = a or (b and c)\n"
    assert format_source(Source("f.rules", text)).text == text
    spaced = "function f(a, b, c) =  a or (b  and c)\n"
    assert format_source(Source("f.rules", spaced)).text == text


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(REPO)))
def test_every_shipped_file_keeps_its_meaning_and_formats_once(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    once = format_source(Source(str(path), text))
    if once.refused is not None:
        assert "malformed" in path.parts  # only the files that are wrong on purpose
        assert once.text == text
        return
    assert _parsed(once.text) == _parsed(text)
    assert _comments(once.text) == _comments(text)
    twice = format_source(Source(str(path), once.text))
    assert (twice.changed, twice.text) == (False, once.text)


def test_fmt_check_diff_and_rewrite(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    messy, tidy = tmp_path / "messy.rules", tmp_path / "tidy.rules"
    messy.write_text(MESSY, encoding="utf-8")
    tidy.write_text(TIDY, encoding="utf-8")
    checked = cli("fmt", "--check", str(tmp_path))
    assert checked.code == 1
    assert f"would reformat {messy}" in checked.stdout
    assert str(tidy) not in checked.stdout
    assert "2 files: 1 would change, 1 already formatted" in checked.stderr
    diff = cli("fmt", "--diff", str(messy))
    assert diff.code == 0
    assert "-    roll r = 1d6+n\n" in diff.stdout and "+  roll r = 1d6 + n\n" in diff.stdout
    assert messy.read_text(encoding="utf-8") == MESSY  # --check and --diff change nothing
    done = cli("fmt", str(tmp_path))
    assert done.code == 0
    assert messy.read_text(encoding="utf-8") == TIDY
    assert cli("fmt", "--check", str(tmp_path)).code == 0


def test_fmt_leaves_a_file_with_errors_alone(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    broken = tmp_path / "broken.rules"
    text = "function f(x) = (x + \n"
    broken.write_text(text, encoding="utf-8")
    run = cli("fmt", str(broken))
    assert run.code == 1
    assert "left as it is: it has syntax errors" in run.stderr
    assert broken.read_text(encoding="utf-8") == text
    assert cli("fmt", str(tmp_path / "nothing-here")).code == 2
