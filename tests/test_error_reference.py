"""The error reference (docs/errors.md) covers every code, its examples really produce
their codes, and the page is what docs/errors/generate.py writes from them today."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from runebook.dsl.diagnostics import MESSAGES

REPO = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("errors_generate", REPO / "docs" / "errors" / "generate.py")
assert _spec is not None and _spec.loader is not None
generate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(generate)

EXAMPLES = generate.load_examples()
RUNNABLE = sorted(code for code, example in EXAMPLES.items() if example.run is not None)
RESERVED = sorted(code for code, example in EXAMPLES.items() if example.reserved is not None)
#: Reserved codes whose branch exists in the code but cannot be reached from any input: the
#: contextual lexer falls back to a lexer whose terminals start on every character, so a stray
#: character is always an unexpected token (E0102), never an unexpected character.
DEFENSIVE = {"E0101": "dsl/parser.py"}


@pytest.fixture(scope="module")
def outcomes() -> dict:  # type: ignore[type-arg]
    return generate.run_all(EXAMPLES)


def test_every_code_has_exactly_one_entry_and_no_entry_is_for_an_unknown_code() -> None:
    assert sorted(set(MESSAGES) - set(EXAMPLES)) == [], "add an entry to docs/errors/examples.yaml"
    assert sorted(set(EXAMPLES) - set(MESSAGES)) == []


def test_each_entry_is_either_an_example_or_reserved_and_says_how_to_fix_it() -> None:
    for code, example in EXAMPLES.items():
        assert (example.run is None) == (example.reserved is not None), code
        assert len(example.fix.split()) >= 5, code
        if example.run is not None:
            assert example.run.startswith("runebook "), code
            assert example.exit in (0, 1, 2), code


@pytest.mark.parametrize("code", RUNNABLE)
def test_the_example_produces_its_code(code: str, outcomes) -> None:  # type: ignore[no-untyped-def]
    outcome = outcomes[code]
    assert "Traceback" not in outcome.stderr
    blocks = outcome.blocks(code)
    assert blocks, f"{code} not reported:\n{outcome.stderr}{outcome.stdout}"
    assert re.search(rf"(^|: ){code} ", blocks[0])
    assert outcome.exit == EXAMPLES[code].exit, outcome.stderr
    if EXAMPLES[code].exit == 0:  # only warnings give exit 0
        assert "warning" in EXAMPLES[code].fix.lower(), code


def _reported_in(code: str) -> list[str]:
    found = []
    for package in ("dsl", "interpreter"):
        for path in sorted((REPO / package).rglob("*.py")):
            # A place that reports the code (`Diagnostic.make("E0101", ...`, `sink.error("E0101"`),
            # not one that only looks at a code already reported.
            text = path.read_text(encoding="utf-8")
            if path.name != "diagnostics.py" and re.search(rf'(make|error)\(\s*"{code}"', text):
                found.append(str(path.relative_to(REPO)))
    return found


@pytest.mark.parametrize("code", RESERVED)
def test_a_reserved_code_is_reported_by_nothing(code: str) -> None:
    """A code marked reserved has no example because nothing reports it; once something
    does, this fails until the entry gets a real example."""
    assert _reported_in(code) == ([DEFENSIVE[code]] if code in DEFENSIVE else [])


def test_the_reserved_list_is_short() -> None:
    assert len(RESERVED) <= 6 and len(RUNNABLE) >= len(MESSAGES) - 6


def test_the_page_is_up_to_date(outcomes) -> None:  # type: ignore[no-untyped-def]
    page = generate.render(EXAMPLES, outcomes)
    assert (REPO / "docs" / "errors.md").read_text(encoding="utf-8") == page, \
        "docs/errors.md is stale: run python docs/errors/generate.py"


def test_the_page_has_a_section_for_each_code_that_sarif_links_to() -> None:
    page = (REPO / "docs" / "errors.md").read_text(encoding="utf-8")
    headings = re.findall(r"^### (E\d{4})$", page, re.M)
    assert headings == sorted(MESSAGES)
    for code in MESSAGES:  # GitHub's anchor for '### E0401' is '#e0401', as render_sarif links it
        assert f"](#{code.lower()})" in page


def test_a_stale_page_or_a_missing_entry_is_caught(tmp_path: Path, outcomes) -> None:  # type: ignore[no-untyped-def]
    """The checks above can fail: a page rendered without one example differs, and a page
    from an example that no longer produces its code lacks its output."""
    fewer = {code: example for code, example in EXAMPLES.items() if code != "E0401"}
    with pytest.raises(KeyError):
        generate.render(fewer, outcomes)
    changed = dict(outcomes)
    changed["E0401"] = generate.Outcome(1, "", "<expression>:1:2: E0999 something else\n")
    assert generate.render(EXAMPLES, changed) != generate.render(EXAMPLES, outcomes)
    assert changed["E0401"].blocks("E0401") == []
