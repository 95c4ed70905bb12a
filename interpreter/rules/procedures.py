"""Procedures: explicit state machines with named choice points.

A procedure's lines run in order under a program counter. ``step NAME`` marks a place,
``goto NAME [if condition]`` jumps to it, ``end [if condition]`` stops, ``set`` changes a
value, ``choose NAME: a | b`` asks the **driver**, and checks are called like functions.
Every line run, every choice and every die is recorded in the trace; the number of lines
a run may take is bounded (``Limits.max_steps``), so a loop can never hang. The lines are
compiled once per loaded rules into one closure each (:class:`Program`), which every
semantics runs: a seeded run, given dice, and the worlds of exact odds (which also remember
line values per computation: :mod:`interpreter.rules.memo`).

Drivers answer choice points and are interchangeable, so the same procedure gives the
same result whichever answers it:

- :class:`ScriptedDriver`: answers given in order (from a YAML file or a list);
- :class:`PromptDriver`: asks at the terminal;
- :class:`CallbackDriver`: a Python function or coroutine function, for embedders.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import IO, Any

import attrs

from runebook.dsl import ast
from runebook.dsl import expr_ast as ex
from runebook.dsl.diagnostics import Diagnostic, RunebookError, did_you_mean
from runebook.dsl.source import Source, Span
from runebook.dsl.vocabulary import fold
from runebook.dsl.flow import flow_of
from runebook.interpreter.core.evaluate import Context, MapEnv, as_env, items_of, normalize_name, truth
from runebook.interpreter.core.render import result_text
from runebook.interpreter.core.trace import StepEvent, Trace
from runebook.interpreter.core.values import Level, format_value, json_value
from runebook.interpreter.rules.inline import bind_input
from runebook.interpreter.rules.listed import run_listed
from runebook.interpreter.rules.memo import LineMemo, names_read, worth_remembering
from runebook.interpreter.rules.results import JsonResult
from runebook.interpreter.rules.shown import run_show, shown_values
from runebook.interpreter.rules.yamlfile import read_yaml

__all__ = [
    "CallbackDriver",
    "ChoicePoint",
    "Chooser",
    "Driver",
    "PromptDriver",
    "RunResult",
    "ScriptedDriver",
    "answer_names",
    "load_choices",
    "choice_names",
    "named_answers",
    "unknown_answers",
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

    #: Whether :meth:`choose` looks at a choice point's ``state`` and ``shown`` values (a
    #: driver answering by the choice's name alone says False, and they are not gathered).
    reads_state = True

    def choose(self, point: ChoicePoint) -> str:
        """The answer to ``point``: one of its options (a name, or a whole number)."""
        raise NotImplementedError

    def finish(self) -> None:
        """Called when the procedure ends; may report unused answers."""


class ScriptedDriver(Driver):
    """Answers given up front, consumed in the order the choices come."""

    def __init__(self, answers: Sequence[str], source: Source | None = None, *, asker: str = "choices") -> None:
        self.answers = [str(a) for a in answers]
        self.position = 0
        self.source = source
        #: Who gave the answers, for the help when they run out: a choices file or list
        #: (``choices``), a command line that gave none (``flags``), a call from Python (``python``).
        self.asker = asker

    def choose(self, point: ChoicePoint) -> str:
        if self.position >= len(self.answers):
            options = " | ".join(ast.choice_runs(point.options))
            asker = self.asker if self.source is None else "choices"
            if asker == "flags":
                help = (f"answer it with --answer {point.name}=OPTION ({options}), or give --choices FILE.yaml; "
                        "at a terminal the run asks")
            elif asker == "python":
                help = (f"answer it with choose= (a function of the ChoicePoint) or answers={{'{point.name}': "
                        f"OPTION}} ({options})")
            else:
                help = f"add an answer ({options}) to the choices" + (f" in {self.source.name}" if self.source else "")
            raise RunebookError([Diagnostic.make("E0610", point.source, point.span, name=point.name,
                                                 count=self.position + 1, help=help)])
        answer = self.answers[self.position]
        self.position += 1
        return answer


def answer_named(answers: Mapping[str, str], name: str) -> str | None:
    """The answer for the choice ``name`` among answers by (folded) name: its own, else, for
    a choice a `do` brought in (``blow.burst_hits``), the answer for its bare name."""
    found = answers.get(fold(name))
    if found is None and "." in name:
        found = answers.get(fold(name.rpartition(".")[2]))
    return found


class NamedDriver(Driver):
    """Answers by the choice's name (``--answer stance=bold``): a choice the answers name gets
    that answer every time it comes; any other is asked of ``otherwise``."""

    def __init__(self, answers: Mapping[str, str], otherwise: Driver) -> None:
        self.answers = {fold(k): str(v) for k, v in answers.items()}
        self.otherwise = otherwise

    def choose(self, point: ChoicePoint) -> str:
        given = answer_named(self.answers, point.name)
        return given if given is not None else self.otherwise.choose(point)

    def finish(self) -> None:
        self.otherwise.finish()


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


#: What answers a choice point for an embedder: a function, or a coroutine function.
Chooser = Callable[[ChoicePoint], "str | Awaitable[str]"]


class CallbackDriver(Driver):
    """Answers from a Python function ``(ChoicePoint) -> str``, or from a coroutine function
    (``async def choose(point) -> str``).

    A coroutine's answer is awaited on ``loop`` when one is given (the event loop that
    :meth:`Rules.run_async <interpreter.rules.model.Rules.run_async>` runs the procedure
    for, from its worker thread); otherwise, outside any running loop, on a loop of its own
    for each answer. A synchronous run inside a running event loop cannot wait for a
    coroutine without blocking that loop: that is a :class:`RuntimeError` naming
    ``run_async``.
    """

    def __init__(self, callback: Chooser, loop: Any = None) -> None:
        self.callback = callback
        self.loop = loop
        #: The answer awaited on ``loop`` now (a concurrent future), and whether the run
        #: was abandoned (:meth:`cancel`).
        self._pending: Any = None
        self._cancelled = False

    def cancel(self) -> None:
        """Give up the run (its awaiting task was cancelled): the answer awaited now is
        cancelled, and so is any later one, so the worker thread ends at its next choice."""
        self._cancelled = True
        pending = self._pending
        if pending is not None:
            pending.cancel()

    def choose(self, point: ChoicePoint) -> str:
        """The callback's answer to ``point`` (awaited when it is a coroutine's)."""
        answer = self.callback(point)
        if inspect.isawaitable(answer):
            return self._awaited(answer)
        return answer

    def _awaited(self, answer: Awaitable[str]) -> str:
        import asyncio  # only embedders with coroutines pay for it

        async def wait() -> str:
            return await answer

        if self.loop is not None:
            if self._cancelled:
                if inspect.iscoroutine(answer):
                    answer.close()
                raise asyncio.CancelledError
            self._pending = asyncio.run_coroutine_threadsafe(wait(), self.loop)
            if self._cancelled:  # cancelled between the check above and now
                self._pending.cancel()
            try:
                return self._pending.result()
            finally:
                self._pending = None
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(wait())
        if inspect.iscoroutine(answer):
            answer.close()  # never awaited, and said so below rather than warned about
        raise RuntimeError("a coroutine answered a choice in a synchronous run inside a running event "
                           "loop, which would block it: use 'await rules.run_async(...)'")


def choice_values(rules: Any, statement: ast.Statement) -> tuple[Any, ...]:
    """What each option of a choice stands for, as the rules see it (worked out once per
    line): a whole number for a number option (``1 to 50``); the declared level when every
    other option is a level of one declared group (``choose stance: calm | bold`` with
    ``levels Stance: calm < bold``, as `check` types it); else a level of the choice itself
    (options compare by their order)."""
    cache = rules._choice_values
    found = cache.get(id(statement))
    if found is None or found[0] is not statement:
        options = statement.choices
        # A choice a `do` brought in keeps its own name as the group its options are levels of.
        group = statement.inlined.choice if statement.inlined is not None and statement.inlined.choice \
            else statement.name
        declared = {o: _declared_level(rules, o) for o in options if not o.isdigit()}
        groups = {fold(level.group) for level in declared.values() if level is not None}
        shared = len(groups) == 1 and all(level is not None for level in declared.values())
        values = tuple(int(o) if o.isdigit() else declared[o] if shared else Level(group, o, rank, options)
                       for rank, o in enumerate(options))
        if len(cache) > 4096:
            cache.clear()
        found = cache[id(statement)] = (statement, values)
    return found[1]  # type: ignore[no-any-return]


def _declared_level(rules: Any, name: str) -> Level | None:
    try:
        value = rules.globals.lookup(name)
    except KeyError:
        return None
    return value if type(value) is Level else None


def load_choices(path: str | Path, otherwise: Driver | None = None) -> Driver:
    """A choices file: a YAML list of answers in order (``- bold``), a mapping ``choices:
    [...]`` (beside it, ``game:`` and ``procedure:`` say what it answers), or answers by the
    choice's name (``stance: bold``; a choice it does not name is asked of ``otherwise``;
    ``game`` and ``procedure`` are never choices). Read with ``yaml.safe_load``."""
    source, _root, data = read_yaml(path)
    if isinstance(data, dict) and "choices" in data:
        data = data["choices"]
    elif isinstance(data, dict):
        # `game:` and `procedure:` say what the answers are for (`runebook check` reads them).
        data = {k: v for k, v in data.items() if k not in ("game", "procedure")}
    if isinstance(data, dict) and data and all(isinstance(k, str) and isinstance(v, (str, int, float, bool))
                                              for k, v in data.items()):
        return NamedDriver({k: str(v) for k, v in data.items()}, otherwise or ScriptedDriver([], source))
    if not isinstance(data, list) or not all(isinstance(a, (str, int, float, bool)) for a in data):
        raise RunebookError([Diagnostic.make("E0702", source, Span.point(1, 1), name="choices",
                                             expected="a list of answers such as '- bold', or answers by name "
                                             "such as 'stance: bold'", found="something else")])
    return ScriptedDriver([str(a) for a in data], source)


def answer_names(choice: str) -> tuple[str, ...]:
    """The names an answer may give a choice by: a choice a `do ... as blow` brought in by
    ``blow.burst_hits`` and by ``burst_hits`` (as :func:`answer_named` finds it)."""
    return tuple(dict.fromkeys((choice, choice.rpartition(".")[2])))


def choice_names(statements: Sequence[ast.Statement]) -> list[str]:
    """The names of a procedure's choice points, as answers name them (:func:`answer_names`)."""
    names: dict[str, None] = {}
    for line in ast.walk_statements(statements):
        if isinstance(line, ast.ChooseLine):
            names.update(dict.fromkeys(answer_names(line.name)))
    return list(names)


def unknown_answers(owner: str, statements: Sequence[ast.Statement], answers: Mapping[str, str]) -> list[Diagnostic]:
    """E0708 for each answer by name that no choice of the procedure ``owner`` takes (a
    misspelt `--answer tactc=...` would be asked at the prompt, or ignored by exact odds)."""
    names = choice_names(statements)
    known = {fold(n) for n in names}
    found = []
    for name in answers:
        if fold(name) in known:
            continue
        found.append(Diagnostic.make("E0708", None, None, name=name, where=f"'{owner}'",
                                     help=did_you_mean(name, names)
                                     or (f"its choices: {', '.join(names)}" if names else f"'{owner}' has no choices")))
    return found


def named_answers(path: str | Path) -> dict[str, str]:
    """The answers by name of a choices file (what exact odds can use: a choice is answered
    the same way wherever the dice lead); a list of answers in order is E0702 here."""
    driver = load_choices(path)
    if not isinstance(driver, NamedDriver):
        source = getattr(driver, "source", None)
        raise RunebookError([Diagnostic.make(
            "E0702", source, Span.point(1, 1), name="choices", expected="answers by name such as 'stance: bold'",
            found="a list in order", help="exact odds follow every way the dice go, where choices come in other "
            "orders: answer each choice by its name")])
    return dict(driver.answers)


@attrs.frozen
class RunResult(JsonResult):
    """A finished run: its results, the state it ended in and everything that happened."""

    name: str
    results: dict[str, Any]
    state: dict[str, Any]
    trace: Trace = attrs.field(repr=False)
    choices: tuple[tuple[str, str], ...] = ()

    @property
    def shown(self) -> dict[str, Any]:
        """The values the procedure's ``show`` lines gave (interpreter.rules.shown)."""
        return shown_values(self.trace)

    def text(self, trace: str = "full", title: str | None = None) -> str:
        """What ``runebook run`` prints: a title (by default the procedure's name), the trace
        (``trace``: full, brief or none), each result and each value shown."""
        return result_text(self.name if title is None else title, self, trace)

    def __str__(self) -> str:
        return self.text()

    def to_dict(self) -> dict[str, Any]:
        shown = self.shown
        return {
            "name": self.name,
            "results": {k: json_value(v) for k, v in self.results.items()},
            **({"shown": shown} if shown else {}),
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


@lru_cache(maxsize=1024)
def _folded(options: tuple[str, ...]) -> tuple[str, ...]:
    """A choice's options as answers match them (folded), once per list of options."""
    return tuple(fold(o) for o in options)


@lru_cache(maxsize=1024)
def _option_index(options: tuple[str, ...]) -> dict[str, int]:
    """A choice's options by their folded text (the first of equals), once per list of options."""
    found: dict[str, int] = {}
    for index, folded in enumerate(_folded(options)):
        found.setdefault(folded, index)
    return found


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
    reads = driver.reads_state
    shown = {} if statement.expr is None or not reads else _values_read(rules, ctx, source, statement.expr, env)
    point = ChoicePoint(name, statement.name, options, dict(env.mapping) if reads else {}, statement.span, source,
                        shown)
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


class _Segment:
    """What the handlers of one ``run_segment`` share: the run's rules, context, values,
    driver and what it has given so far, and the program's labels."""

    __slots__ = ("rules", "name", "statements", "ctx", "env", "driver", "results", "choices", "labels", "memo")

    def __init__(self, rules: Any, name: str, statements: Sequence[ast.Statement], ctx: Context, env: MapEnv,
                 driver: Driver, results: dict[str, Any], choices: list[tuple[str, str]],
                 labels: Mapping[str, int], memo: LineMemo | None = None) -> None:
        self.rules, self.name, self.statements, self.ctx, self.env = rules, name, statements, ctx, env
        self.driver, self.results, self.choices, self.labels = driver, results, choices, labels
        #: Exact odds: the computation's memo of line values (interpreter.rules.memo).
        self.memo = memo

    def value(self, line: int, names: tuple[str, ...] | None, closure: Callable[[Context, Any], Any]) -> Any:
        """An expression of line ``line`` (its id) evaluated (a compiled closure reading ``names``);
        while exact odds run, the value it gave before for the same values read (``names``
        None: a line cheaper to evaluate than to look up, never remembered)."""
        memo = self.memo
        if memo is None or names is None:
            env = self.env
            return closure(self.ctx, env if type(env) is MapEnv else as_env(env))
        return memo.evaluate(line, names, closure, self.ctx, self.env)


# One handler per line class: ``handler(segment, line, source, pc)`` runs the line (``pc`` is
# the index of the line after it) and returns where the run goes on, or None when it ends.

def _show(run: _Segment, line: Any, source: Source, pc: int) -> int | None:
    run_show(run.rules, run.ctx, line, source, run.env)
    return pc


def _result(run: _Segment, line: Any, source: Source, pc: int) -> int | None:
    run.results[line.name] = run.rules.run_result(run.ctx, line, source, run.env)
    return pc


def _roll(run: _Segment, line: Any, source: Source, pc: int) -> int | None:
    run.rules.run_roll(run.ctx, line, source, run.env, pc - 1)
    return pc


def _require(run: _Segment, line: Any, source: Source, pc: int) -> int | None:
    run.rules.run_require(run.ctx, line, source, run.env, pc - 1,
                          run.name if line.inlined is None else line.inlined.procedure)
    return pc


def _compiled(run: _Segment, line: Any, source: Source, pc: int) -> int | None:
    """A line of a kind :func:`_compile_line` compiles, run on its own (a program runs its
    compiled closure: this is the same closure, made for one line)."""
    return _compile_line(run.rules, line, source, run.labels)(run, pc)


def _step(run: _Segment, line: ast.StepLine, source: Source, pc: int) -> int | None:
    if run.ctx.trace is not None:
        run.ctx.trace.append(StepEvent("step", line.name, None, line.span, source.name))
    return pc


def _holds(run: _Segment, line: Any, source: Source) -> bool:
    """A `goto`'s or `end`'s condition (none: always)."""
    return line.expr is None or bool(run.ctx.result(run.ctx.evaluate(run.rules.compiled(line.expr, source),
                                                                     run.env)))


def _goto(run: _Segment, line: ast.GotoLine, source: Source, pc: int) -> int | None:
    if not _holds(run, line, source):
        return pc
    target = run.labels.get(fold(line.name))
    if target is None:
        raise RunebookError([Diagnostic.make("E0609", source, line.span, name=line.name,
                                             help=did_you_mean(line.name, [s.name for s in run.statements
                                                                           if isinstance(s, ast.StepLine)]))])
    return target


def _end(run: _Segment, line: ast.EndLine, source: Source, pc: int) -> int | None:
    return None if _holds(run, line, source) else pc


def _choose(run: _Segment, line: ast.ChooseLine, source: Source, pc: int) -> int | None:
    ctx, env = run.ctx, run.env
    if line.args:
        _choose_from(run.rules, run.name, line, source, ctx, env, run.driver, run.choices)
        return pc
    if line.expr is not None and not bool(ctx.result(ctx.evaluate(run.rules.compiled(line.expr, source), env))):
        # `choose NAME: a | b if condition`: not offered; the first option, unasked.
        env.define(line.name, choice_values(run.rules, line)[0])
        return pc
    reads = run.driver.reads_state
    shown = {} if line.expr is None or not reads else _values_read(run.rules, ctx, source, line.expr, env)
    point = ChoicePoint(run.name, line.name, line.choices, dict(env.mapping) if reads else {}, line.span, source,
                        shown)
    answer = run.driver.choose(point)
    found = _option_index(line.choices).get(fold(str(answer)))
    if found is None:
        raise RunebookError([Diagnostic.make("E0611", source, line.span, answer=answer, name=line.name,
                                             allowed=", ".join(ast.choice_runs(line.choices)),
                                             help=did_you_mean(str(answer), line.choices))])
    env.define(line.name, choice_values(run.rules, line)[found])
    run.choices.append((line.name, line.choices[found]))
    if ctx.trace is not None:
        ctx.trace.append(StepEvent("choice", line.name, line.choices[found], line.span, source.name))
    return pc


def _listed(run: _Segment, line: ast.Listed, source: Source, pc: int) -> int | None:
    run_listed(run.rules, run.ctx, line, source, run.env)
    return pc


def _change(run: _Segment, line: ast.Statement, source: Source, pc: int) -> int | None:
    run.rules.change_state(run.ctx, line, source, run.env)
    return pc


def _use(run: _Segment, line: ast.UseLine, source: Source, pc: int) -> int | None:
    """Where the lines of a used procedure (`do NAME(...) as LABEL`) start."""
    if run.ctx.trace is not None:
        run.ctx.trace.append(StepEvent("use", f"{line.name} as {line.label}", None, line.span, source.name))
    return pc


def _input(run: _Segment, line: ast.InputLine, source: Source, pc: int) -> int | None:
    value = run.ctx.evaluate(run.rules.compiled(line.expr, source), run.env)
    run.env.define(line.name, bind_input(run.rules, run.ctx, line, source, run.env, value))
    return pc


#: How each line of a flat procedure runs (``do`` lines are expanded before a run, and a
#: condition's lines never are a procedure's).
HANDLERS: dict[type, Callable[[_Segment, Any, Source, int], int | None]] = {
    ast.LetLine: _compiled,
    ast.SetLine: _compiled,
    ast.ResultLine: _result,
    ast.ShowLine: _show,
    ast.RollLine: _roll,
    ast.RequireLine: _require,
    ast.LabelLine: _compiled,
    ast.TestLine: _compiled,
    ast.CountLine: _compiled,
    ast.EachLine: _compiled,
    ast.StepLine: _step,
    ast.GotoLine: _goto,
    ast.EndLine: _end,
    ast.ChooseLine: _choose,
    ast.PayLine: _listed,
    ast.ImposeLine: _listed,
    ast.LiftLine: _listed,
    ast.SpendLine: _change,
    ast.GainLine: _change,
    ast.ApplyLine: _change,
    ast.RemoveLine: _change,
    ast.ResetLine: _change,
    ast.UseLine: _use,
    ast.InputLine: _input,
}


#: A compiled line: ``step(segment, pc)`` runs it (``pc``: the index of the line after it) and
#: returns where the run goes on, or None when it ends.
Step = Callable[[_Segment, int], "int | None"]


class Program:
    """A flat procedure compiled once: one closure per line, with its expressions compiled, its
    source and what entries read while it runs (a used procedure's names) resolved up front.
    The same closures run a seeded run, given dice and every world of exact odds."""

    __slots__ = ("boundaries", "labels", "reading", "sources", "statements", "steps")

    def __init__(self, rules: Any, statements: tuple[ast.Statement, ...], source: Source) -> None:
        flow = flow_of(statements)
        self.statements = statements
        self.boundaries = flow.boundaries
        self.labels = flow.labels
        self.sources = tuple(source if s.inlined is None else s.inlined.source for s in statements)
        self.reading = tuple("" if s.inlined is None else s.inlined.scope for s in statements)
        self.steps: tuple[Step, ...] = tuple(_compile_line(rules, s, self.sources[i], flow.labels)
                                            for i, s in enumerate(statements))


def program_of(rules: Any, statements: tuple[ast.Statement, ...], source: Source) -> Program:
    """The compiled program of a procedure's lines, once per loaded rules (a pure function of
    the lines: threads sharing the rules may each compile it once, both results alike)."""
    programs = rules._programs
    found = programs.get(id(statements))
    if found is None or found[0] is not statements:
        if len(programs) > 1024:  # lines passed as new tuples each time: keep the memo bounded
            programs.clear()
        found = programs[id(statements)] = (statements, Program(rules, statements, source))
    return found[1]


def _generic(line: ast.Statement, source: Source) -> Step:
    handler = HANDLERS[type(line)]
    return lambda run, pc: handler(run, line, source, pc)


def _compile_line(rules: Any, line: ast.Statement, source: Source, labels: Mapping[str, int]) -> Step:
    """The closure of one line: the common lines compiled here, the others by their handler."""
    kind = type(line)
    if kind in (ast.LabelLine,):
        return _label_step
    expr = line.expr
    if expr is None or kind not in (ast.LetLine, ast.SetLine, ast.TestLine, ast.CountLine, ast.GotoLine,
                                    ast.EndLine, ast.EachLine):
        return _generic(line, source)
    closure = rules.compiled(expr, source).closure
    names = names_read([expr]) if worth_remembering(expr) else None
    name = line.name
    index = id(line)  # how the memo names the line
    folded = normalize_name(name)
    if kind is ast.LetLine or kind is ast.SetLine:
        # _Segment.value and MapEnv.define, inlined: these lines are most of what runs.
        final = kind is ast.SetLine

        def assign(run: _Segment, pc: int) -> int | None:
            memo, env, ctx = run.memo, run.env, run.ctx
            if memo is None or names is None:
                value = closure(ctx, env if type(env) is MapEnv else as_env(env))
            else:
                value = memo.evaluate(index, names, closure, ctx, env)
            if final:
                value = ctx.result(value)
            env.mapping[name] = value
            env.index[folded] = name
            return pc
        return assign
    if kind is ast.CountLine:
        def count(run: _Segment, pc: int) -> int | None:
            ctx = run.ctx
            trace, ctx.trace = ctx.trace, None
            try:
                run.env.define(name, run.value(index, names, closure))
            finally:
                ctx.trace = trace
            return pc
        return count
    if kind is ast.TestLine:
        internal = _internal(line)
        otherwise = labels[fold(name)]
        text, span, file = str(expr), line.span, source.name

        def test(run: _Segment, pc: int) -> int | None:
            ctx = run.ctx
            if internal and ctx.trace is not None:
                trace, ctx.trace = ctx.trace, None
                try:
                    holds = truth(run.value(index, names, closure), ctx)
                finally:
                    ctx.trace = trace
            elif ctx.trace is None and run.memo is not None and names is not None:
                # Exact odds (no trace): _Segment.value inlined, and a boolean taken as it is.
                holds = run.memo.evaluate(index, names, closure, ctx, run.env)
                if type(holds) is not bool:
                    holds = truth(holds, ctx)
            else:
                holds = truth(run.value(index, names, closure), ctx)
                if ctx.trace is not None:
                    ctx.trace.append(StepEvent("condition", text, holds, span, file))
            return pc if holds else otherwise
        return test
    if kind is ast.EachLine:
        span, file, shown = line.span, source.name, f"for each {name}"

        def each(run: _Segment, pc: int) -> int | None:
            value = run.value(index, names, closure)
            run.env.define(name, value)
            if run.ctx.trace is not None:
                run.ctx.trace.append(StepEvent("each", shown, value, span, file))
            return pc
        return each
    if kind is ast.EndLine:
        def end(run: _Segment, pc: int) -> int | None:
            return None if run.ctx.result(run.value(index, names, closure)) else pc
        return end
    target = labels.get(fold(name))
    if target is None:
        return _generic(line, source)  # E0609 when it runs

    def goto(run: _Segment, pc: int) -> int | None:
        return target if run.ctx.result(run.value(index, names, closure)) else pc
    return goto


def _label_step(run: _Segment, pc: int) -> int | None:
    return pc


#: What :func:`run_segment` returns when a world met one that went on before (``meetings``).
MET = -1


def run_segment(rules: Any, name: str, statements: Sequence[ast.Statement], source: Source, ctx: Context,
                env: MapEnv, driver: Driver, start: int, results: dict[str, Any],
                choices: list[tuple[str, str]], *, stop_at_step: bool, memo: LineMemo | None = None,
                resume: list[Any] | None = None, meetings: Any = None) -> int | None:
    """Run lines from ``start``, each by its compiled closure (:class:`Program`). With
    ``stop_at_step``, stop on reaching a state boundary (``dsl.flow.Flow.boundaries``: a
    `step` mark or the head of a loop) other than the first line run, and return its index;
    return None when the procedure ends. ``memo``: exact odds' memo of line values.

    ``resume`` (exact odds, a segment without entities): one list shared by the worlds of
    one state. Every world runs the same lines until the first choice among the dice, so
    the first world keeps where that line starts and the values before it, and the others
    start there instead of running those lines again.

    ``meetings`` (exact odds, with ``resume``): an :class:`interpreter.markov.meet.Meetings`.
    A world that has taken a choice looks there at each meeting point; when a world went on
    from the same values before, the run stops and returns :data:`MET` (the outcome is
    ``meetings.outcome``)."""
    program = program_of(rules, tuple(statements), source)
    boundaries, steps, sources, reading = program.boundaries, program.steps, program.sources, program.reading
    run = _Segment(rules, name, statements, ctx, env, driver, results, choices, program.labels, memo)
    pc = start
    ran = 0
    count, max_steps = len(steps), rules.limits.max_steps
    world = ctx.world
    watch = resume is not None and world is not None
    points = meetings.points if meetings is not None else ()
    if watch and resume[0] is not None:  # type: ignore[index]
        pc, values, index, ran, rolls = resume[0]  # type: ignore[index]
        env.mapping, env.index = dict(values), dict(index)
        ctx.run.rolls = rolls  # type: ignore[union-attr]
        watch = False
    while pc < count:
        # What entries read meanwhile: a used procedure's own names (interpreter.rules.inline.ReadingEnv).
        env.reading = reading[pc]  # type: ignore[attr-defined]
        if stop_at_step and ran > 0 and pc in boundaries:
            return pc
        if pc in points and world.taken and not watch and \
                meetings.meet(pc, env.mapping, len(world.taken), len(ctx.realized)):  # type: ignore[union-attr]
            return MET
        ran += 1
        if ran > max_steps:
            raise RunebookError([Diagnostic.make("E0612", sources[pc], statements[pc].span,
                                                 limit=rules.limits.max_steps)])
        if watch:
            before = (pc, dict(env.mapping), dict(env.index), ran - 1, ctx.run.rolls)  # type: ignore[union-attr]
            following = steps[pc](run, pc + 1)
            if world.taken:  # type: ignore[union-attr]
                resume[0] = before  # type: ignore[index]
                watch = False
            pc = following
        else:
            pc = steps[pc](run, pc + 1)
        if pc is None:
            return None
    return None
