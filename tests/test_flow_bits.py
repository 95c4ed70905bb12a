"""The flow analyses hold their sets of names as bits (a long procedure's sets per line took
memory squared in its length: a 10,000-line procedure asked for 2.4 GB before its odds were
refused). Here each is compared with a plain set-based reading of the same definition, over
every procedure of the five games, and a procedure too long to analyse is refused (E0634)."""

from __future__ import annotations

from pathlib import Path

import pytest

import runebook
from runebook.dsl import ast
from runebook.dsl.flow import Flow, reads_of
from runebook.dsl.vocabulary import fold

GAMES = ("mezzo", "mestezia", "mettle", "d10-pool", "questworlds")


def _procedures() -> list[tuple[str, tuple[ast.Statement, ...]]]:
    found = []
    for game in GAMES:
        for procedure in runebook.load(game).procedures.values():
            found.append((f"{game}:{procedure.name}", procedure.decl.statements))
    return found


PROCEDURES = _procedures()


def _live(flow: Flow) -> list[frozenset[str]]:
    """Live names by sets: read on some way from a line before being bound; the end reads
    every result."""
    statements = flow.statements
    count = len(statements)
    live: list[frozenset[str]] = [frozenset()] * (count + 1)
    live[count] = flow.results
    changed = True
    while changed:
        changed = False
        for index in range(count - 1, -1, -1):
            out: set[str] = set()
            for target in flow.successors[index]:
                out |= live[target]
            if isinstance(statements[index], ast.EndLine):
                out |= flow.results
            if isinstance(statements[index], ast.Binding):
                out.discard(fold(statements[index].name))
            new = frozenset(reads_of(statements[index], calls=True) | out)
            if new != live[index]:
                live[index], changed = new, True
    return live[:count]


def _unset(flow: Flow, known: frozenset[str]) -> list[tuple[int, str]]:
    """Reads of the procedure's own names some way from the start reaches before a binding."""
    statements = flow.statements
    own = {fold(s.name) for s in statements if isinstance(s, ast.Binding)} - known
    setin: list[set[str] | None] = [None] * (len(statements) + 1)
    setin[0] = set()
    changed = True
    while changed:
        changed = False
        for index, statement in enumerate(statements):
            if setin[index] is None:
                continue
            after = setin[index] | ({fold(statement.name)} if isinstance(statement, ast.Binding) else set())
            for target in flow.successors[index]:
                merged = set(after) if setin[target] is None else setin[target] & after
                if merged != setin[target]:
                    setin[target], changed = merged, True
    return [(index, name) for index, statement in enumerate(statements) if setin[index] is not None
            for name in sorted(reads_of(statement) & own - setin[index])]


@pytest.mark.parametrize(("name", "statements"), PROCEDURES, ids=[n for n, _ in PROCEDURES])
def test_bits_agree_with_sets(name: str, statements: tuple[ast.Statement, ...]) -> None:
    flow = Flow(statements)
    assert list(flow.live) == _live(flow)
    # The names a procedure's inputs give are known; the reads of the rest.
    assert flow.unset_reads(frozenset()) == _unset(flow, frozenset())


def test_the_games_have_meeting_points_where_liveness_drops() -> None:
    # Not a vacuous comparison: the games' procedures have live names and meetings.
    assert sum(len(Flow(s).meetings) for _, s in PROCEDURES) > 50
    assert any(Flow(s).live[0] for _, s in PROCEDURES)


def test_a_procedure_too_long_to_analyse_is_refused(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    lines = ["procedure Long ()", "  let x0 = 0"] + [f"  let x{i} = x{i - 1} + 1" for i in range(1, 10_001)]
    (tmp_path / "long.rules").write_text("\n".join(lines + ["  result t = x10000", ""]), encoding="utf-8")
    run = cli("check", str(tmp_path / "long.rules"))
    assert run.code == 1
    assert "long.rules:1:11: E0634 procedure 'Long' has 10,002 lines (the limit is 10,000)" in run.stderr
    assert "help: split it into procedures that use each other with 'do NAME(...) as LABEL'" in run.stderr
