"""One node class per statement, dispatched through one table.

A statement is a class of ``dsl.ast`` (a subclass of ``ast.Statement``): no ``kind`` field
or attribute says what it is, and no code in dsl/ or interpreter/ tests a ``kind`` string
to find out. A procedure's lines run through ``interpreter.rules.procedures.HANDLERS`` and a
check's through ``interpreter.rules.model.VALUE_LINES``, looked up by the line's class.
"""

from __future__ import annotations

import ast as pyast
from pathlib import Path

import attrs

from runebook.dsl import ast
from runebook.dsl.parser import parse_rules
from runebook.dsl.source import Source
from runebook.interpreter.rules.model import VALUE_LINES
from runebook.interpreter.rules.procedures import HANDLERS

REPO = Path(__file__).resolve().parent.parent

#: The words statements were once told apart by (``statement.kind == "let"``).
STATEMENT_WORDS = frozenset({
    "roll", "let", "result", "set", "require", "step", "goto", "end", "choose", "spend", "gain", "apply",
    "remove", "reset", "pay", "impose", "lift", "do", "modifier", "becomes", "implies", "label", "test",
    "each", "count", "input", "use"})

#: ``.kind`` tests against one of those words that are about something else: (file, the
#: object whose kind is tested). Entry lines of book notation (``label``/``sub``/``text``)
#: and trace events (``step``, ``use``...) have kinds of their own.
NOT_STATEMENTS = {
    ("dsl/builder.py", "line"),  # an entry's line as written (_Line): label, sub, text...
    ("interpreter/core/render.py", "event"),  # a trace event (StepEvent)
    ("interpreter/core/render.py", "following"),
    ("interpreter/lsp/server.py", "local"),  # a name the declaration at the cursor binds (lsp.scope.Local)
}


def _statement_classes() -> list[type]:
    found, stack = [], [ast.Statement]
    while stack:
        cls = stack.pop()
        found.append(cls)
        # attrs makes a slotted class anew; the class it replaced stays a subclass until the
        # garbage collector frees it, so only the classes the module names are the nodes.
        stack.extend(c for c in cls.__subclasses__() if getattr(ast, c.__name__, None) is c)
    return found


def _concrete() -> list[type]:
    """The classes a line is built as (the others are bases sharing behaviour)."""
    classes = _statement_classes()
    return [c for c in classes if c is not ast.Statement and not any(o is not c and issubclass(o, c) for o in classes)]


def test_no_statement_class_has_a_kind() -> None:
    classes = _statement_classes()
    assert len(_concrete()) >= 27
    for cls in classes:
        assert not hasattr(cls, "kind"), f"{cls.__name__} has a 'kind'"
        assert "kind" not in attrs.fields_dict(cls), cls.__name__


def test_every_statement_class_is_exported_and_an_attrs_class() -> None:
    for cls in _statement_classes():
        assert cls.__name__ in ast.__all__, cls.__name__
        assert attrs.has(cls), cls.__name__


def test_every_line_a_run_meets_has_a_handler() -> None:
    """A procedure runs every concrete line class but `do` (expanded before a run) and a
    condition's lines; a check runs its value lines through VALUE_LINES."""
    not_run = {ast.DoLine, ast.ModifierLine, ast.BecomesLine, ast.ImpliesLine}
    for cls in _concrete():
        if cls not in not_run:
            assert cls in HANDLERS, f"no handler for {cls.__name__} in interpreter.rules.procedures.HANDLERS"
    assert set(VALUE_LINES) == {ast.RollLine, ast.LetLine, ast.SetLine, ast.ResultLine, ast.ShowLine, ast.RequireLine}


def test_the_builder_builds_one_class_per_statement() -> None:
    text = """condition Dazed(amount = 1)
  modifier Edge = -amount
  becomes Speed = 0
  implies Slowed

procedure Everything(x)
  step top
  roll r = 2d6
  let a = x + 1
  set a = a + 1
  require a > 0
  choose how: bold | careful
  choose one from [1, 2]
  spend Luck 1
  gain Luck 1 on target
  apply Dazed(2) for 2 rounds
  remove Dazed
  reset round
  pay "1 Luck"
  impose "Dazed"
  lift "Dazed"
  do Other(a) as other
  goto top if a > 100
  end if a > 50
  result total = a
"""
    declarations = parse_rules(Source("everything.rules", text)).blocks
    condition = next(d for d in declarations if isinstance(d, ast.ConditionDecl))
    procedure = next(d for d in declarations if isinstance(d, ast.ProcedureDecl))
    assert [type(m) for m in condition.modifiers] == [ast.ModifierLine, ast.BecomesLine, ast.ImpliesLine]
    assert [type(s) for s in procedure.statements] == [
        ast.StepLine, ast.RollLine, ast.LetLine, ast.SetLine, ast.RequireLine, ast.ChooseLine, ast.ChooseLine,
        ast.SpendLine, ast.GainLine, ast.ApplyLine, ast.RemoveLine, ast.ResetLine, ast.PayLine, ast.ImposeLine,
        ast.LiftLine, ast.DoLine, ast.GotoLine, ast.EndLine, ast.ResultLine]
    for line in procedure.statements:
        assert f"  {line}" in text, str(line)  # each prints back as written


def _strings(node: pyast.AST) -> set[str]:
    if isinstance(node, pyast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, pyast.Tuple | pyast.List | pyast.Set):
        return {s for element in node.elts for s in _strings(element)}
    return set()


def _kind_of(node: pyast.AST) -> pyast.AST | None:
    """The object whose kind ``node`` reads (``X.kind``, ``getattr(X, "kind", ...)``), if it does."""
    if isinstance(node, pyast.Attribute) and node.attr == "kind":
        return node.value
    if (isinstance(node, pyast.Call) and isinstance(node.func, pyast.Name) and node.func.id == "getattr"
            and len(node.args) >= 2 and _strings(node.args[1]) == {"kind"}):
        return node.args[0]
    return None


def test_no_code_tests_a_statement_kind() -> None:
    found = []
    for package in ("dsl", "interpreter"):
        for path in sorted((REPO / package).rglob("*.py")):
            relative = path.relative_to(REPO).as_posix()
            for node in pyast.walk(pyast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, pyast.Compare):
                    continue
                sides = [node.left, *node.comparators]
                if not any(_strings(side) & STATEMENT_WORDS for side in sides):
                    continue
                for side in sides:
                    owner = _kind_of(side)
                    if owner is not None and (relative, pyast.unparse(owner)) not in NOT_STATEMENTS:
                        found.append(f"{relative}:{node.lineno}: {pyast.unparse(node)}")
    assert not found, "test the statement's class instead:\n" + "\n".join(found)
