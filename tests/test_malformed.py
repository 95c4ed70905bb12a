"""Malformed input: every case gives its documented diagnostic, exit 1, no traceback.

The cases are files in tests/cases/malformed/ plus a few generated here (binary data,
huge files, deep nesting). Each runs alone in a fresh folder; the exact output is a
snapshot. Timing and memory of these cases are measured in benchmarks/bench_malformed.py.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

CASES = Path(__file__).resolve().parent / "cases"

FILES = sorted((CASES / "malformed").glob("*.rules"))


def _generated() -> dict[str, bytes]:
    rng = random.Random(20261121)
    header = b"extends mestezia\n\nShadow Step\n"
    return {
        "invalid_utf8": header + b"Cost: 1 CP\nResult: caf\xe9 damage\nKeywords: *Shadow Melee Strike*\n",
        "random_bytes": bytes(rng.randrange(256) for _ in range(4096)),
        "five_megabytes": header + b"Details: " + b"the same long line of prose " * 190_000 + b"\n",
        "five_megabytes_of_lines": (b"Entry\nNo label here\n\n" * 260_000),
        "nested_parentheses": header + b"Cost: [" + b"(" * 5000 + b"1" + b")" * 5000 + b"] CP\n",
        "twenty_thousand_terms": header + b"Cost: [" + b" + ".join([b"1"] * 20_000) + b"] CP\n",
        "lone_carriage_returns": b"extends mestezia\r\rShadow Step\rCost: [Weapon + ] CP\r",
        "nul_in_text": header + b"Cost: 1\x00 CP\n",
    }


GENERATED = _generated()


def _tidy(text: str) -> str:
    # Long generated lines make unreadable snapshots: keep their start and end.
    return re.sub(r"[^\n]{300,}", lambda m: m.group(0)[:120] + " … " + m.group(0)[-60:], text)


def _assert_clean_failure(run) -> None:  # type: ignore[no-untyped-def]
    assert run.code == 1, run.show()
    assert "Traceback" not in run.stderr and "Traceback" not in run.stdout
    assert re.search(r":\d+:\d+: E\d{4} ", run.stderr) or re.search(r"^\S+: E\d{4} ", run.stderr, re.M), run.stderr


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_malformed_file(path: Path, cli, isolated, snapshot) -> None:  # type: ignore[no-untyped-def]
    name = isolated(path)
    run = cli("check", name)
    _assert_clean_failure(run)
    assert _tidy(run.show()) == snapshot


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_generated_malformed_input(name: str, cli, isolated, snapshot) -> None:  # type: ignore[no-untyped-def]
    file = isolated(name=f"{name}.rules", data=GENERATED[name])
    run = cli("check", file)
    _assert_clean_failure(run)
    assert _tidy(run.show()) == snapshot


def test_there_are_at_least_forty_cases() -> None:
    assert len(FILES) + len(GENERATED) >= 40


def test_every_file_reports_all_its_errors(cli, isolated) -> None:  # type: ignore[no-untyped-def]
    """One file, five problems in two entries: all five are reported in one run."""
    run = cli("check", isolated(CASES / "malformed" / "several_errors.rules"))
    codes = re.findall(r": (E\d{4}) ", run.stderr)
    assert sorted(codes) == ["E0109", "E0203", "E0205", "E0207", "E0207"], run.stderr
