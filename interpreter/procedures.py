"""Procedures: explicit state machines with named choice points.

A procedure's lines run in order under a program counter. ``step NAME`` marks a place,
``goto NAME [if condition]`` jumps to it, ``end [if condition]`` stops, ``set`` changes a
value, ``choose NAME: a | b`` asks the **driver**, and checks are called like functions.
Every line run, every choice and every die is recorded in the trace; the number of lines
a run may take is bounded (``Limits.max_steps``), so a loop can never hang.

Drivers answer choice points and are interchangeable, so the same procedure gives the
same result whichever answers it:

- :class:`ScriptedDriver`: answers given in order (from a YAML file or a list);
- :class:`PromptDriver`: asks at the terminal;
- :class:`CallbackDriver`: a Python function, for embedders.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import IO, Any

import attrs

from dsl import ast
from dsl import expr_ast as ex
from dsl.diagnostics import Diagnostic, RunebookError, did_you_mean
from dsl.source import Source, Span
from dsl.vocabulary import fold
from dsl.flow import flow_of
from interpreter.evaluate import Context, MapEnv, items_of, normalize_name, truth
from interpreter.trace import StepEvent, Trace
from interpreter.values import Level, format_value, json_value
from interpreter.yamlfile import read_yaml

__all__ = [
    "CallbackDriver",
    "ChoicePoint",
    "Driver",
    "PromptDriver",
    "RunResult",
    "ScriptedDriver",
    "load_choices",
]


@attrs.frozen
class ChoicePoint:
    """A decision the procedure needs: its name, the options offered, the state so far."""

    procedure: str
    name: str
    options: tuple[str, ...]
    state: Mapping[str, Any] = attrs.field(repr=False)
    span: Span | None = None
    source: Source | None = attrs.field(default=None, repr=False)
    #: ``choose NAME: a | b if condition``: the procedure's values the condition reads (what
    #: the chooser has to go on, such as a roll's record); the prompt shows them.
    shown: Mapping[str, Any] = attrs.field(factory=dict, repr=False)


class Driver:
    """Answers choice points (override :meth:`choose`)."""

    def choose(self, point: ChoicePoint) -> str:
        raise NotImplementedError

    def finish(self) -> None:
        """Called when the procedure ends; may report unused answers."""


class ScriptedDriver(Driver):
    """Answers given up front, consumed in the order the choices come."""

    def __init__(self, answers: Sequence[str], source: Source | None = None) -> None:
        self.answers = [str(a) for a in answers]
        self.position = 0
        self.source = source

    def choose(self, point: ChoicePoint) -> str:
        if self.position >= len(self.answers):
            raise RunebookError([Diagnostic.make(
                "E0610", point.source, point.span, name=point.name, count=self.position + 1,
                help=f"add an answer ({' | '.join(ast.choice_runs(point.options))}) to the choices"
                + (f" in {self.source.name}" if self.source else ""))])
        answer = self.answers[self.position]
        self.position += 1
        return answer


class PromptDriver(Driver):
    """Asks at the terminal; accepts an option's name or its number."""

    def __init__(self, read: Callable[[str], str] | None = None, out: IO[str] | None = None) -> None:
        self.out = out or sys.stderr
        self.read = read or self._read_line

    def _read_line(self, prompt: str) -> str:
        # The prompt goes where the questions go (stderr): stdout carries only results.
        print(prompt, end="", file=self.out, flush=True)
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        return line

    def choose(self, point: ChoicePoint) -> str:
        # Options that are numbers are answered as themselves, so they are not numbered.
        numeric = any(o.isdigit() for o in point.options)
        listed = " | ".join(ast.choice_runs(point.options)) if numeric else \
            "  ".join(f"[{i}] {o}" for i, o in enumerate(point.options, 1))
        if point.shown:
            seen = "; ".join(f"{k} = {format_value(v)}" for k, v in point.shown.items())
            print(f"{point.procedure}: {seen}", file=self.out)
        while True:
            print(f"{point.procedure}: choose {point.name}: {listed}", file=self.out)
            try:
                answer = self.read("> ").strip()
            except EOFError:
                raise RunebookError([Diagnostic.make("E0610", point.source, point.span, name=point.name,
                                                     count=1, help="no answer was given at the prompt")]) from None
            if any(fold(answer) == fold(o) for o in point.options):
                return answer
            if not numeric and answer.isdigit() and 1 <= int(answer) <= len(point.options):
                return point.options[int(answer) - 1]
            hint = did_you_mean(answer, point.options)
            print(f"'{answer}' is not offered{'; ' + hint if hint else ''}", file=self.out)


class CallbackDriver(Driver):
    """Answers from a Python function ``(ChoicePoint) -> str``."""

    def __init__(self, callback: Callable[[ChoicePoint], str]) -> None:
        self.callback = callback

    def choose(self, point: ChoicePoint) -> str:
        return self.callback(point)


def choice_value(statement: ast.Statement, rank: int) -> Any:
    """A choice's answer as the rules see it: a whole number for a number option (``1 to
    50``), else a level of the choice (options compare by their order)."""
    option = statement.choices[rank]
    # A choice a `do` brought in keeps its own name as the group its options are levels of.
    group = statement.inlined.choice if statement.inlined is not None and statement.inlined.choice else statement.name
    return int(option) if option.isdigit() else Level(group, option, rank, statement.choices)


def load_choices(path: str | Path) -> ScriptedDriver:
    """A choices file: a YAML list of answers in order (``- bold``), or a mapping
    ``choices: [...]``. Read with ``yaml.safe_load``."""
    source, _root, data = read_yaml(path)
    if isinstance(data, dict) and "choices" in data:
        data = data["choices"]
    if not isinstance(data, list) or not all(isinstance(a, (str, int, float, bool)) for a in data):
        raise RunebookError([Diagnostic.make("E0702", source, Span.point(1, 1), name="choices",
                                             expected="a list of answers such as '- bold'", found="something else")])
    return ScriptedDriver([str(a) for a in data], source)


@attrs.frozen
class RunResult:
    """A finished run: its results, the state it ended in and everything that happened."""

    name: str
    results: dict[str, Any]
    state: dict[str, Any]
    trace: Trace = attrs.field(repr=False)
    choices: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "results": {k: json_value(v) for k, v in self.results.items()},
            "state": {k: json_value(v) for k, v in self.state.items()},
            "choices": [{"choice": c, "answer": a} for c, a in self.choices],
            "dice": [d.face for d in self.trace.dice()],
            "trace": self.trace.to_list(),
        }


def run_lines(rules: Any, name: str, statements: Sequence[ast.Statement], source: Source, ctx: Context,
              env: MapEnv, driver: Driver) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """Run a procedure's lines against one context; returns (results, choices made)."""
    results: dict[str, Any] = {}
    choices: list[tuple[str, str]] = []
    run_segment(rules, name, statements, source, ctx, env, driver, 0, results, choices, stop_at_step=False)
    return results, choices


def _values_read(rules: Any, ctx: Context, source: Source, expr: Any, env: MapEnv) -> dict[str, Any]:
    """The procedure's own values an expression reads by name (not functions, stats or
    tables), in order, as the trace shows them: what a conditional choice shows the chooser."""
    found: dict[str, Any] = {}

    def walk(node: Any) -> None:
        if isinstance(node, ex.Name):
            key = env.index.get(normalize_name(node.text))
            if key is not None and key not in found:
                found[key] = ctx.result(ctx.evaluate(rules.compiled(node, source), env))
        elif isinstance(node, ex.Call):
            for arg in node.args:
                walk(arg)
        elif isinstance(node, ex.Possessive):
            walk(node.owner)
        elif isinstance(node, tuple):
            for item in node:
                walk(item)
        elif attrs.has(type(node)):
            for field in attrs.fields(type(node)):
                walk(getattr(node, field.name))

    walk(expr)
    return found


#: Lines that bind or test a value, run by ``rules.run_statement`` (what ``run_segment`` runs
#: most; any kind it does not handle itself goes there too).
_VALUE_LINES = frozenset({"let", "set", "result", "roll", "require"})


@lru_cache(maxsize=1024)
def _folded(options: tuple[str, ...]) -> tuple[str, ...]:
    """A choice's options as answers match them (folded), once per list of options."""
    return tuple(fold(o) for o in options)


def _option_text(item: Any) -> str:
    """How an item of a list is offered at a choice: its name when it has one."""
    name = getattr(item, "name", None)
    if isinstance(name, str) and not isinstance(item, Level):
        return name
    if isinstance(item, Mapping) and isinstance(item.get("name"), str):
        return item["name"]
    return format_value(item)


def _choose_from(rules: Any, name: str, statement: ast.Statement, source: Source, ctx: Context, env: MapEnv,
                 driver: Driver, choices: list[tuple[str, str]]) -> None:
    """``choose NAME from LIST [if condition]``: the driver picks one of the list's items (offered
    by name); NAME is the item itself. Not offered (the condition false): the first item, unasked."""
    site = (source, statement.args[0].span or statement.span)
    items = items_of(ctx.result(ctx.evaluate(rules.compiled(statement.args[0], source), env)), "choose from",
                     site, rules.limits)
    if statement.expr is not None and not truth(ctx.evaluate(rules.compiled(statement.expr, source), env), ctx):
        env.define(statement.name, items[0] if items else None)
        return
    if not items:
        raise RunebookError([Diagnostic.make("E0627", source, statement.span, name=statement.name,
                                             help="the list it offers is empty here; guard the choice with "
                                             "'if count(...) > 0'")])
    options = tuple(_option_text(item) for item in items)
    shown = {} if statement.expr is None else _values_read(rules, ctx, source, statement.expr, env)
    point = ChoicePoint(name, statement.name, options, dict(env.mapping), statement.span, source, shown)
    answer = driver.choose(point)
    wanted = fold(str(answer))
    index = next((i for i, folded in enumerate(_folded(options)) if folded == wanted), None)
    if index is None:
        raise RunebookError([Diagnostic.make("E0611", source, statement.span, answer=answer, name=statement.name,
                                             allowed=", ".join(options), help=did_you_mean(str(answer), options))])
    env.define(statement.name, items[index])
    choices.append((statement.name, options[index]))
    if ctx.trace is not None:
        ctx.trace.append(StepEvent("choice", statement.name, options[index], statement.span, source.name))


def _internal(statement: ast.Statement) -> bool:
    """A loop's own test (dsl.flow): not something the author wrote."""
    return "#endeach" in statement.name


def run_segment(rules: Any, name: str, statements: Sequence[ast.Statement], source: Source, ctx: Context,
                env: MapEnv, driver: Driver, start: int, results: dict[str, Any],
                choices: list[tuple[str, str]], *, stop_at_step: bool) -> int | None:
    """Run lines from ``start``. With ``stop_at_step``, stop on reaching a state boundary
    (``dsl.flow.Flow.boundaries``: a `step` mark or the head of a loop) other than the first
    line run, and return its index; return None when the procedure ends."""
    flow = flow_of(statements)
    labels, boundaries = flow.labels, flow.boundaries
    pc = start
    ran = 0
    own_source = source
    count, max_steps = len(statements), rules.limits.max_steps
    while pc < count:
        statement = statements[pc]
        inlined = statement.inlined
        # A line a `do` brought in points into the used procedure's own file.
        source = own_source if inlined is None else inlined.source
        # What entries read meanwhile: a used procedure's own names (interpreter.inline.ReadingEnv).
        env.reading = "" if inlined is None else inlined.scope  # type: ignore[attr-defined]
        if stop_at_step and ran > 0 and pc in boundaries:
            return pc
        ran += 1
        if ran > max_steps:
            raise RunebookError([Diagnostic.make("E0612", source, statement.span, limit=rules.limits.max_steps)])
        pc += 1
        kind = statement.kind
        if kind in _VALUE_LINES:  # the common lines first (the last case below, unchanged)
            value = rules.run_statement(ctx, statement, source, env, index=pc - 1,
                                        owner=name if inlined is None else inlined.procedure)
            if kind == "result":
                results[statement.name] = value
            continue
        if kind == "label":
            continue
        if kind == "test":
            # An `if`, `else if` or `case`: on when the condition holds, else to its label.
            if _internal(statement):
                trace, ctx.trace = ctx.trace, None
                try:
                    holds = truth(ctx.evaluate(rules.compiled(statement.expr, source), env), ctx)
                finally:
                    ctx.trace = trace
            else:
                holds = truth(ctx.evaluate(rules.compiled(statement.expr, source), env), ctx)
            if ctx.trace is not None and not _internal(statement):
                ctx.trace.append(StepEvent("condition", str(statement.expr), holds, statement.span, source.name))
            if not holds:
                pc = labels[fold(statement.name)]
            continue
        if kind == "count":
            trace, ctx.trace = ctx.trace, None
            try:
                env.define(statement.name, ctx.evaluate(rules.compiled(statement.expr, source), env))
            finally:
                ctx.trace = trace
            continue
        if kind == "each":
            value = ctx.evaluate(rules.compiled(statement.expr, source), env)
            env.define(statement.name, value)
            if ctx.trace is not None:
                ctx.trace.append(StepEvent("each", f"for each {statement.name}", value, statement.span, source.name))
            continue
        if kind == "step":
            if ctx.trace is not None:
                ctx.trace.append(StepEvent("step", statement.name, None, statement.span, source.name))
            continue
        if kind in ("goto", "end"):
            go = statement.expr is None or bool(ctx.result(ctx.evaluate(rules.compiled(statement.expr, source), env)))
            if not go:
                continue
            if kind == "end":
                return None
            target = labels.get(fold(statement.name))
            if target is None:
                raise RunebookError([Diagnostic.make("E0609", source, statement.span, name=statement.name,
                                                     help=did_you_mean(statement.name, [s.name for s in statements
                                                                                        if s.kind == "step"]))])
            pc = target
            continue
        if kind == "choose" and statement.args:
            _choose_from(rules, name, statement, source, ctx, env, driver, choices)
            continue
        if kind == "choose" and statement.expr is not None and not bool(
                ctx.result(ctx.evaluate(rules.compiled(statement.expr, source), env))):
            # `choose NAME: a | b if condition`: not offered; the first option, unasked.
            env.define(statement.name, choice_value(statement, 0))
            continue
        if kind == "choose":
            shown = {} if statement.expr is None else _values_read(rules, ctx, source, statement.expr, env)
            point = ChoicePoint(name, statement.name, statement.choices, dict(env.mapping), statement.span, source,
                                shown)
            answer = driver.choose(point)
            wanted = fold(str(answer))
            match = [c for c, folded in zip(statement.choices, _folded(statement.choices)) if folded == wanted]
            if not match:
                raise RunebookError([Diagnostic.make("E0611", source, statement.span, answer=answer,
                                                     name=statement.name, allowed=", ".join(ast.choice_runs(statement.choices)),
                                                     help=did_you_mean(str(answer), statement.choices))])
            env.define(statement.name, choice_value(statement, statement.choices.index(match[0])))
            choices.append((statement.name, match[0]))
            if ctx.trace is not None:
                ctx.trace.append(StepEvent("choice", statement.name, match[0], statement.span, source.name))
            continue
        if kind in ("pay", "impose", "lift"):
            from interpreter.listed import run_listed

            run_listed(rules, ctx, statement, source, env)
            continue
        if kind in ("spend", "gain", "apply", "remove", "reset"):
            rules.change_state(ctx, statement, source, env)
            continue
        if kind == "use":
            # Where the lines of a used procedure (`do NAME(...) as LABEL`) start.
            if ctx.trace is not None:
                ctx.trace.append(StepEvent("use", f"{statement.name} as {statement.label}", None, statement.span,
                                           source.name))
            continue
        if kind == "input":
            from interpreter.inline import bind_input

            value = ctx.evaluate(rules.compiled(statement.expr, source), env)
            env.define(statement.name, bind_input(rules, ctx, statement, source, env, value))
            continue
        owner = name if statement.inlined is None else statement.inlined.procedure
        value = rules.run_statement(ctx, statement, source, env, index=pc - 1, owner=owner)
        if kind == "result":
            results[statement.name] = value
    return None
