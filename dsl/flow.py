"""A procedure's structured body as a flat program, and what can be known of its flow.

:func:`lower` turns blocks (``if``, ``match``, ``for each``, ``repeat``) into a flat run of
lines with internal jump targets, the form every semantics runs (a seeded run, given
dice, and exact odds, which cuts the program into states at its boundaries). Internal
names start with ``#``, which no name written in a file can: they never meet an
author's. The flat lines:

- ``label NAME``: a place to jump to; does nothing;
- ``test NAME`` with a condition: goes on when it holds, else jumps to ``NAME``;
- ``each NAME = item``: binds a loop's name to its next item (shown in the trace);
- ``count NAME = value``: a loop's own counter (as ``let``, left out of the trace);
- ``goto NAME [if C]``, ``step NAME`` and every other line, as written.

A ``for each X in C`` is ``let #items = items(C)`` (the collection, bounded by the limit),
a counter, and a head that binds ``X`` to the next item or leaves; ``repeat`` is a head
and a jump back to it; ``next``/``stop`` jump to the innermost loop's head/exit.

:class:`Flow` answers questions about a flat program: where labels are, which lines are
**state boundaries** for exact odds (author ``step`` marks, the heads of loops and the
places loops are left: where runs may meet again), which names are **live** at a line (read later before
being set again: only those are part of a state, so states that differ only in dead
values merge), which names may be read **before being set**, and which lines nothing
reaches.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cached_property
from typing import Any

import attrs

from runebook.dsl import ast
from runebook.dsl import expr_ast as ex
from runebook.dsl.checker import expression_names
from runebook.dsl.diagnostics import Diagnostic, DiagnosticSink
from runebook.dsl.source import Span
from runebook.dsl.vocabulary import fold

__all__ = ["Flow", "ITEMS", "LiveSets", "expressions_of", "flow_of", "lower", "reads_of"]

#: The internal builtin a ``for each`` reads its collection through (bounded, checked).
ITEMS = "#items"
#: Internal builtins of ``set xs[i].field = value``: a list with one item replaced, a record
#: with one field replaced.
REPLACE, WITH = "#replace", "#with"

@attrs.define
class _Loop:
    head: str
    exit: str


class _Lowering:
    def __init__(self, sink: DiagnosticSink | None) -> None:
        self.sink = sink
        self.out: list[ast.Statement] = []
        self.count = 0
        self.loops: list[_Loop] = []

    def fresh(self, what: str) -> str:
        self.count += 1
        return f"#{what}{self.count}"

    def emit(self, line: ast.Statement) -> None:
        self.out.append(line)

    def body(self, statements: Iterable[Any]) -> None:
        for statement in statements:
            self.statement(statement)

    def statement(self, statement: Any) -> None:
        if isinstance(statement, ast.IfBlock):
            self.if_block(statement)
        elif isinstance(statement, ast.MatchBlock):
            self.match_block(statement)
        elif isinstance(statement, ast.ForEachBlock):
            self.for_each(statement)
        elif isinstance(statement, ast.RepeatBlock):
            self.repeat(statement)
        elif isinstance(statement, ast.NextLine | ast.StopLine):
            self.jump(statement)
        elif isinstance(statement, ast.SetLine) and statement.path:
            self.out.append(_set_in_place(statement))
        else:
            self.out.append(statement)

    def if_block(self, block: ast.IfBlock) -> None:
        done = self.fresh("endif")
        for index, (condition, body) in enumerate(block.branches):
            last = index == len(block.branches) - 1 and block.otherwise is None
            otherwise = done if last else self.fresh("else")
            self.emit(ast.TestLine(otherwise, condition, span=condition.span or block.span))
            self.body(body)
            if not last:
                self.emit(ast.GotoLine(done, span=block.span))
                self.emit(ast.LabelLine(otherwise))
        if block.otherwise is not None:
            self.body(block.otherwise)
        self.emit(ast.LabelLine(done))

    def match_block(self, block: ast.MatchBlock) -> None:
        done = self.fresh("endmatch")
        held: ex.Expr = block.subject
        if not _plain(block.subject):
            # A subject that rolls or calls is worked out once; a plain one is tested as written
            # (and shows so in the trace).
            subject = self.fresh("match")
            self.emit(ast.LetLine(subject, block.subject, span=block.subject.span or block.span))
            held = ex.Name((subject,), span=block.subject.span)
        for case in block.cases:
            following = self.fresh("case")
            self.emit(ast.TestLine(following, _matches(held, case.patterns, case.span), span=case.span))
            self.body(case.body)
            self.emit(ast.GotoLine(done, span=case.span))
            self.emit(ast.LabelLine(following))
        if block.otherwise is not None:
            self.body(block.otherwise)
        self.emit(ast.LabelLine(done))

    def for_each(self, block: ast.ForEachBlock) -> None:
        items, at = self.fresh("items"), self.fresh("at")
        head, done = self.fresh("each"), self.fresh("endeach")
        span = block.span
        self.emit(ast.LetLine(items, ex.Call(ex.Name((ITEMS,)), (block.collection,), span=block.collection.span),
                              span=span))
        self.emit(ast.CountLine(at, ex.Number(0), span=span))
        self.emit(ast.LabelLine(head, span=span))
        counter = ex.Name((at,), span=span)
        self.emit(ast.TestLine(done, ex.Compare("<", counter, ex.Call(ex.Name(("count",)), (ex.Name((items,)),)),
                                                span=span), span=span))
        self.emit(ast.EachLine(block.name, ex.Index(ex.Name((items,)), counter, span=span), span=span))
        self.emit(ast.CountLine(at, ex.Binary("+", counter, ex.Number(1)), span=span))
        self.loops.append(_Loop(head, done))
        self.body(block.body)
        self.loops.pop()
        self.emit(ast.GotoLine(head, span=span))
        self.emit(ast.LabelLine(done))

    def repeat(self, block: ast.RepeatBlock) -> None:
        head, done = self.fresh("repeat"), self.fresh("endrepeat")
        self.emit(ast.LabelLine(head, span=block.span))
        self.loops.append(_Loop(head, done))
        self.body(block.body)
        self.loops.pop()
        self.emit(ast.GotoLine(head, span=block.span))
        self.emit(ast.LabelLine(done))

    def jump(self, line: ast.NextLine | ast.StopLine) -> None:
        word = "next" if isinstance(line, ast.NextLine) else "stop"
        if not self.loops:
            if self.sink is not None:
                self.sink.error("E0623", line.span, word=word,
                                help="it belongs inside a 'for each' or a 'repeat'; 'end' ends the procedure")
            return
        loop = self.loops[-1]
        self.emit(ast.GotoLine(loop.head if word == "next" else loop.exit, line.condition, span=line.span))


def _set_in_place(statement: ast.SetLine) -> ast.SetLine:
    """``set xs[i].f = v`` as ``set xs = #replace(xs, i, #with(xs[i], "f", v))``."""
    span = statement.span

    def rebuilt(current: ex.Expr, steps: tuple[tuple[str, Any], ...]) -> ex.Expr:
        if not steps:
            return statement.expr  # type: ignore[return-value]
        (kind, key), rest = steps[0], steps[1:]
        if kind == "index":
            inner = rebuilt(ex.Index(current, key, span=key.span), rest)
            return ex.Call(ex.Name((REPLACE,)), (current, key, inner), span=span)
        inner = rebuilt(ex.Attribute(current, key, span=span), rest)
        return ex.Call(ex.Name((WITH,)), (current, ex.String(key), inner), span=span)

    target = ex.Name(tuple(statement.name.split()), span=span)
    return attrs.evolve(statement, expr=rebuilt(target, statement.path), path=())


def _plain(expr: ex.Expr) -> bool:
    """No dice and no calls: evaluating it again gives the same value, rolling nothing."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ex.Dice | ex.Call | ex.Comprehension):
            return False
        stack.extend(node.children())
    return True


def _matches(subject: ex.Expr, patterns: Sequence[ast.RowKey], span: Span | None) -> ex.Expr:
    """The condition a ``case`` stands for: the subject matches any of its patterns."""
    tests: list[ex.Expr] = []
    for key in patterns:
        if key.kind == "name":
            tests.append(ex.Compare("==", subject, ex.Name(tuple((key.name or "").split()), span=key.span),
                                    span=key.span))
        elif key.kind == "exact":
            tests.append(ex.Compare("==", subject, _number(key.low), span=key.span))
        elif key.kind == "open":
            tests.append(ex.Compare(">=", subject, _number(key.low), span=key.span))
        else:
            tests.append(ex.And(ex.Compare(">=", subject, _number(key.low), span=key.span),
                                ex.Compare("<=", subject, _number(key.high), span=key.span), span=key.span))
    condition = tests[0]
    for test in tests[1:]:
        condition = ex.Or(condition, test, span=span)
    return condition


def _number(value: int | None) -> ex.Expr:
    value = value or 0
    return ex.Number(value) if value >= 0 else ex.Unary("-", ex.Number(-value))


def lower(statements: Sequence[Any], sink: DiagnosticSink | None = None) -> tuple[ast.Statement, ...]:
    """A structured body as flat lines (see the module's docstring). Already-flat bodies
    come back as they are."""
    if not any(isinstance(s, ast.BLOCKS + (ast.NextLine, ast.StopLine)) or getattr(s, "path", ())
               for s in statements):
        return tuple(statements)
    lowering = _Lowering(sink)
    lowering.body(statements)
    return tuple(lowering.out)


# ---------------------------------------------------------------- analysis


#: Lines jumps go to, and lines that jump (to ``name``).
_PLACES = (ast.StepLine, ast.LabelLine)
_JUMPS = (ast.GotoLine, ast.TestLine)


def expressions_of(statement: ast.Statement) -> list[ex.Expr]:
    """The expressions a line evaluates: its value, its arguments (positional and named) and
    a duration (`apply X for N rounds`)."""
    exprs: list[ex.Expr] = []
    if statement.expr is not None:
        exprs.append(statement.expr)
    exprs.extend(statement.args or ())
    exprs.extend(v for _, v in statement.named)
    if statement.duration is not None:
        exprs.append(statement.duration[0])
    return exprs


def reads_of(statement: ast.Statement, calls: bool = False) -> set[str]:
    """The names (folded) a line reads. ``calls``: the names of the functions it calls too
    (a local holding a function is read where it is called; a game's or builtin's name read
    before a local takes it is not a local read before it is set)."""
    found: set[str] = set()
    for expr in expressions_of(statement):
        for node in expression_names(expr):
            while isinstance(node, ex.Possessive):
                node = node.owner  # type: ignore[assignment]
            if isinstance(node, ex.Name):
                found.add(fold(node.text))
        # A call reads its function's name: a local holding a function (`let f = twice`,
        # then `f(x)`) is read where it is called.
        if calls:
            found.update(fold(node.func.text) for node in _calls(expr))
    if statement.on is not None:
        # `gain Harm 1 on victim`: the name holding who the line changes is read too.
        found.add(fold(statement.on))
    return found


def _calls(expr: ex.Expr) -> Iterator[ex.Call]:
    """Every call in an expression, nested ones too."""
    stack: list[ex.Expr] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ex.Call):
            yield node
        stack.extend(node.children())


class Flow:
    """What is known of a flat program's flow (see the module's docstring)."""

    def __init__(self, statements: Sequence[ast.Statement]) -> None:
        self.statements = tuple(statements)
        count = len(self.statements)
        self.labels: dict[str, int] = {}
        for index, statement in enumerate(self.statements):
            if isinstance(statement, _PLACES):
                self.labels.setdefault(fold(statement.name), index)
        self.successors: list[tuple[int, ...]] = []
        for index, statement in enumerate(self.statements):
            following = (index + 1,) if index + 1 < count else (count,)
            if isinstance(statement, _JUMPS):
                target = self.labels.get(fold(statement.name), count)
                if isinstance(statement, ast.GotoLine) and statement.expr is None:
                    self.successors.append((target,))
                else:
                    self.successors.append(following + (target,))
            elif isinstance(statement, ast.EndLine):
                self.successors.append((count,) if statement.expr is None else following + (count,))
            else:
                self.successors.append(following)
        self.results = frozenset(fold(s.name) for s in self.statements if isinstance(s, ast.ResultLine))
        heads = {target for index, targets in enumerate(self.successors) for target in targets
                 if target <= index and target < count}
        #: Where a loop is left: runs that went round different numbers of times meet there.
        self.exits = frozenset(i for i, s in enumerate(self.statements)
                               if isinstance(s, ast.LabelLine) and ("#endrepeat" in s.name or "#endeach" in s.name))
        #: Lines where a state of exact odds begins: `step` marks, the heads of loops and the
        #: places loops are left.
        self.boundaries = frozenset(heads | self.exits
                                    | {i for i, s in enumerate(self.statements) if isinstance(s, ast.StepLine)})

    def roll_kept(self, index: int, name: str, source: Any, severity: str = "error") -> Diagnostic:
        """E0615 at the boundary ``index``: the roll ``name`` (as written; a used procedure's
        ``label.`` prefix left off) is read after it, and a state of exact odds holds plain
        values only (its dice are each run's own). ``source``: the file of the procedure
        (a line a `do` brought in names its own)."""
        line = self.statements[index]
        shown = name.rpartition(".")[2]
        # `check` warns ahead of the odds that refuse.
        ahead = "exact odds refuse here: " if severity == "warning" else ""
        return Diagnostic.make(
            "E0615", source if line.inlined is None else line.inlined.source, line.span, severity=severity,
            what=f"the roll '{shown}'", where=self._boundary(index), help=f"{ahead}read what the rest of the run needs from it "
            f"before (let total = sum({shown})), or roll it where it is read; a seeded run or given dice are not "
            "affected")

    def value_kept(self, index: int, name: str, kind: str, source: Any) -> Diagnostic:
        """E0615 at the boundary ``index``: the value ``name`` (of the kind ``kind``: neither
        plain, an entity taking part, nor one of the game's own values) is read after it, and a
        state of exact odds cannot hold it."""
        line = self.statements[index]
        shown = name.rpartition(".")[2]
        return Diagnostic.make(
            "E0615", source if line.inlined is None else line.inlined.source, line.span,
            what=f"'{shown}' ({kind})", where=self._boundary(index), help="keep what the rest of the run needs from it (a number, a level, "
            "text, or a list or record of them) in its place; a seeded run or given dice are not affected")

    def _boundary(self, index: int) -> str:
        """How a state boundary reads in a message: a `step`, or a loop's head or end."""
        line = self.statements[index]
        if isinstance(line, ast.StepLine):
            return f"the step '{line.name}'"
        return "the end of a loop" if index in self.exits else "the head of a loop"

    def maybe_set(self, sets: bool = True) -> Callable[[int, str], bool]:
        """A test of whether some way from the start may have bound a name (folded) before a
        line (a union over the ways in: a loop's later lines count at its head); each test
        looks up one bit, however long the procedure. ``sets=False``: only lines that make a
        value count (a `set` line does not)."""
        names = _BitNames(self.statements)
        binds = names.binds if sets else [0 if isinstance(s, ast.SetLine) else bit
                                          for s, bit in zip(self.statements, names.binds, strict=True)]
        count = len(self.statements)
        before = [0] * (count + 1)
        changed = True
        while changed:
            changed = False
            for index in range(count):
                after = before[index] | binds[index]
                for target in self.successors[index]:
                    if after & ~before[target]:
                        before[target] |= after
                        changed = True
        return lambda index, name: bool(before[index] & names.bit.get(name, 0))

    def ends(self) -> bool:
        """Whether some way from the first line reaches the end (a `stop`, an `end` or the
        last line): if none does, every run goes round until the line budget refuses it."""
        count = len(self.statements)
        seen: set[int] = set()
        stack = [0]
        while stack:
            index = stack.pop()
            if index >= count:
                return True
            if index in seen:
                continue
            seen.add(index)
            stack.extend(self.successors[index])
        return False

    def reachable(self) -> list[bool]:
        seen = [False] * len(self.statements)
        stack = [0] if self.statements else []
        while stack:
            index = stack.pop()
            if index >= len(self.statements) or seen[index]:
                continue
            seen[index] = True
            stack.extend(self.successors[index])
        return seen

    @cached_property
    def live(self) -> LiveSets:
        """The names (folded) each line may need from before it: read on some path from it
        before being set. The end reads every result."""
        return _liveness(self)

    @cached_property
    def meetings(self) -> frozenset[int]:
        """Lines where runs that took different ways may meet again: some name read on the way
        in is not live any more (a value that told them apart may be gone). Exact odds look
        there for worlds that already went on from the same values (interpreter.markov.meet)."""
        live = self.live
        bits, kills = live.bits, live.kills
        found: set[int] = set()
        for index in range(len(self.statements)):
            before = bits[index] & ~kills[index]
            for target in self.successors[index]:
                if target < len(bits) and target not in self.boundaries and before & ~bits[target]:
                    found.add(target)
        return frozenset(found)

    def unset_reads(self, known: frozenset[str]) -> list[tuple[int, str]]:
        """(line, name) for names of the procedure's own (bound by one of its lines, not in
        ``known``) read where some path from the start has not set them yet."""
        names = _BitNames(self.statements, known)
        count = len(self.statements)
        # Definitely set on entry to each line: intersection over predecessors (a bit per
        # name: sets of names per line would grow with the procedure, squared in all).
        setin: list[int | None] = [None] * (count + 1)
        setin[0] = 0
        changed = True
        while changed:
            changed = False
            for index in range(count):
                before = setin[index]
                if before is None:
                    continue
                after = before | names.binds[index]
                for target in self.successors[index]:
                    current = setin[target]
                    merged = after if current is None else current & after
                    if merged != current:
                        setin[target] = merged
                        changed = True
        found: list[tuple[int, str]] = []
        for index, statement in enumerate(self.statements):
            before = setin[index]
            if before is None:
                continue
            for name in sorted(reads_of(statement)):
                bit = names.bit.get(name, 0)
                if bit and not before & bit:
                    found.append((index, name))
        return found


class _BitNames:
    """The names a program's lines bind, a bit each (less ``known``), and the bit each line
    binds: sets of names as whole numbers, for analyses over long procedures."""

    def __init__(self, statements: Sequence[ast.Statement], known: frozenset[str] = frozenset()) -> None:
        bound = [fold(s.name) if isinstance(s, ast.Binding) else None for s in statements]
        self.order = sorted({n for n in bound if n is not None} - known)
        self.bit = {name: 1 << i for i, name in enumerate(self.order)}
        self.binds = [self.bit.get(n, 0) if n is not None else 0 for n in bound]


def _names_of(bits: int, order: Sequence[str]) -> frozenset[str]:
    """The names whose bits are set (bit i names ``order[i]``), lowest bit first."""
    names = []
    while bits:
        low = bits & -bits
        names.append(order[low.bit_length() - 1])
        bits ^= low
    return frozenset(names)


class LiveSets(Sequence[frozenset[str]]):
    """The live names of each line (:attr:`Flow.live`), held as a whole number a line (a bit
    per name) and made a set only for the lines asked about: a long procedure's sets of
    names per line would take memory squared in its length."""

    def __init__(self, bits: list[int], kills: list[int], order: list[str]) -> None:
        #: Each line's live names, a bit each (``order`` names the bits).
        self.bits = bits
        #: The bit of the name each line binds (0 for none).
        self.kills = kills
        self.order = order
        self._made: dict[int, frozenset[str]] = {}

    def __len__(self) -> int:
        return len(self.bits)

    def __getitem__(self, index: int) -> frozenset[str]:  # type: ignore[override]
        found = self._made.get(index)
        if found is None:
            found = self._made[index] = _names_of(self.bits[index], self.order)
        return found


def _liveness(flow: Flow) -> LiveSets:
    count = len(flow.statements)
    read_names = [reads_of(s, calls=True) for s in flow.statements]
    order = sorted(set().union(*read_names, flow.results,
                               (fold(s.name) for s in flow.statements if isinstance(s, ast.Binding))))
    bit = {name: 1 << i for i, name in enumerate(order)}
    reads = [sum(bit[n] for n in names) for names in read_names]
    kills = [bit[fold(s.name)] if isinstance(s, ast.Binding) else 0 for s in flow.statements]
    results = sum(bit[n] for n in flow.results)
    live = [0] * (count + 1)
    live[count] = results
    changed = True
    while changed:
        changed = False
        for index in range(count - 1, -1, -1):
            out = 0
            for target in flow.successors[index]:
                out |= live[target]
            if isinstance(flow.statements[index], ast.EndLine):
                out |= results
            new = reads[index] | (out & ~kills[index])
            if new != live[index]:
                live[index] = new
                changed = True
    return LiveSets(live[:count], kills, order)


_FLOWS: dict[int, tuple[tuple[ast.Statement, ...], Flow]] = {}


def flow_of(statements: tuple[ast.Statement, ...]) -> Flow:
    """The flow of a flat program, computed once per program (by identity: exact odds ask
    for it once per state, and hashing a whole program each time would cost more than
    the answer)."""
    found = _FLOWS.get(id(statements))
    if found is not None and found[0] is statements:
        return found[1]
    flow = Flow(statements)
    if len(_FLOWS) > 1024:
        _FLOWS.clear()
    _FLOWS[id(statements)] = (statements, flow)
    return flow
