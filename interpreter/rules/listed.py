"""Procedure lines and functions that read a content line's text.

A content line says in words what to pay or what befalls a target (``Cost: 3 Mana, 1 Focus``,
``Effect 3: The target is Frozen.``). Three procedure lines act on such a text:

- ``pay TEXT [on ROLE]`` spends every ``AMOUNT NAME`` pair whose NAME is a declared
  resource (``3 Mana, 1 Focus``; parts are separated by commas or "and"); a part that names no
  resource is a diagnostic, and a run that cannot pay changes nothing;
- ``impose TEXT [on ROLE]`` applies every declared condition the text names (whole words,
  any case, longest names first; a number right after a condition that takes parameters
  is its first parameter: ``Protected 2``);
- ``lift TEXT [on ROLE]`` removes them.

The functions ``line_text(entry, "Label"[, grade])``, ``number_in(text, pattern)``,
``data_of(entity, "key"[, default])``, ``level_in(text, level)``, ``mentions(text, NAME)``
(whether the text names it, as ``impose`` would find it) and ``meets(entity, text)``
(every condition the text names is held, every state it names through a predicate
``function is_STATE(e)`` holds, every entry it names is owned, for entries of the kinds
the entity lists) are the host functions the rules call to get and read such texts.
"""

from __future__ import annotations

import re
from typing import Any

from runebook.dsl import ast
from runebook.dsl import expr_ast as ex
from runebook.dsl.diagnostics import Diagnostic, RunebookError, did_you_mean
from runebook.dsl.source import Source
from runebook.dsl.vocabulary import fold
from runebook.interpreter.core.evaluate import call_function_value
from runebook.interpreter.core.trace import StepEvent
from runebook.interpreter.core.values import Function, Level
from runebook.interpreter.rules.entries import EntryView, line_text, number_in

__all__ = ["entry_query", "named", "run_listed"]

_PART = re.compile(r"^\s*([+-]?\d+)\s+(.+?)\s*\.?\s*$")


_NUMBERS: dict[int, ex.Number] = {}


def _number(value: int) -> ex.Number:
    """One node per number, so compiled amounts are cached once, not once per use."""
    return _NUMBERS.setdefault(value, ex.Number(value))


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, Level):
        return value.name
    return str(value)


def named(text: str, names: list[str]) -> list[tuple[str, int | None]]:
    """The names that occur in ``text`` as whole words (any case), longest first and not
    overlapping, in the order they occur; each with the number written right after it."""
    found: list[tuple[int, int, str, int | None]] = []
    taken: list[tuple[int, int]] = []
    for name in sorted(names, key=len, reverse=True):
        pattern = r"(?<![\w])" + r"[\s\-_]*".join(map(re.escape, name.split())) + r"(?![\w])(?:\s+([+-]?\d+)\b)?"
        for match in re.finditer(pattern, text, re.IGNORECASE):
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue
            taken.append((match.start(), match.end()))
            number = int(match.group(1)) if match.group(1) is not None else None
            found.append((match.start(), match.end(), name, number))
    return [(name, number) for _start, _end, name, number in sorted(found)]


def run_listed(rules: Any, ctx: Any, statement: ast.Statement, source: Source, env: Any) -> None:
    """Run a ``pay``, ``impose`` or ``lift`` line (see the module docstring)."""
    assert statement.expr is not None
    text = _text(ctx.result(ctx.evaluate(rules.compiled(statement.expr, source), env)))
    if isinstance(statement, ast.PayLine):
        _pay(rules, ctx, statement, source, env, text)
        return
    change = ast.ApplyLine if isinstance(statement, ast.ImposeLine) else ast.RemoveLine
    conditions = {c.name: c for c in rules.conditions.values()}
    for name, number in named(text, list(conditions)):
        condition = conditions[name]
        params = getattr(condition, "params", ())
        args = (_number(number),) if number is not None and params else None
        line = change(name, on=statement.on, span=statement.span, args=args)
        rules.change_state(ctx, line, source, env)


def _pay(rules: Any, ctx: Any, statement: ast.Statement, source: Source, env: Any, text: str) -> None:
    resources = {fold(r.name): r.name for r in rules.resources.values()}
    lines: list[ast.Statement] = []
    for part in re.split(r",|;|\band\b", text):
        if not part.strip():
            continue
        match = _PART.match(part)
        name = match.group(2) if match else part.strip()
        if match is None or fold(name) not in resources:
            hint = did_you_mean(name, list(resources.values())) if match else None
            raise RunebookError([Diagnostic.make(
                "E0705", source, statement.span, what="resource", name=name,
                help=hint or f"'{text}' should list amounts of resources, as in "
                f"'{', '.join('2 ' + r for r in list(resources.values())[:2]) or '2 Points'}'")])
        lines.append(ast.SpendLine(resources[fold(name)], _number(int(match.group(1))),
                                   on=statement.on, span=statement.span))
    for line in lines:
        rules.change_state(ctx, line, source, env)


def entry_query(rules: Any, name: str, ctx: Any, args: list[Any], site: Any) -> Any:
    """``line_text``, ``number_in``, ``mentions`` and ``meets`` (see the module docstring)."""
    if name == "line_text":
        if len(args) not in (2, 3) or not isinstance(args[0], EntryView):
            raise RunebookError([Diagnostic.make("E0406", site[0], site[1], name=name,
                                                 expected="an entry, a label (and a grade)", got=len(args))])
        grade = args[2] if len(args) == 3 else None
        return line_text(args[0], _text(args[1]), grade, ctx, site)
    if name == "data_of":
        return _data_of(args, site)
    if len(args) != 2:
        raise RunebookError([Diagnostic.make("E0406", site[0], site[1], name=name, expected=2, got=len(args))])
    if name == "level_in":
        return _level_in(_text(args[0]), args[1], site)
    if name == "number_in":
        return number_in(_text(args[0]), _text(args[1]))
    if name == "mentions":
        # A condition (or any declaration) by its name, a level by its own, a text as written.
        word = args[1] if isinstance(args[1], str) else getattr(args[1], "name", None)
        if not isinstance(word, str) or not word.strip():
            raise RunebookError([Diagnostic.make("E0405", site[0], site[1], op="mentions",
                                                 kind=f"'{_text(args[1])}' as the name to look for")])
        return bool(named(_text(args[0]), [word]))
    entity, text = args[0], _text(args[1])
    if not hasattr(entity, "conditions"):
        raise RunebookError([Diagnostic.make("E0405", site[0], site[1], op=name,
                                             kind="something that is not a character")])
    under = getattr(rules, "under", None)
    if under is not None:  # held, or implied by one held
        held = {fold(condition.name) for _held, condition in under(entity)}
    else:
        held = {fold(getattr(c, "name", str(c))) for c in entity.conditions}
    # A state the rules define as a predicate `function is_winded(e)` is named "winded".
    predicates = _predicates(rules)
    for condition, _number in named(text, [c.name for c in rules.conditions.values()] + list(predicates)):
        if fold(condition) in held:
            continue
        predicate = next((f for n, f in predicates.items() if fold(n) == fold(condition)), None)
        if predicate is not None and _holds(predicate, entity, ctx, site):
            held.add(fold(condition))
            continue
        _explain(ctx, f"{entity.name} is not", condition)
        return False
    # Entries of the kinds the entity lists (its powers, traits...) must be among them.
    owned = {fold(str(item)) for v in entity.data.values() if isinstance(v, list) for item in v}
    entries = {fold(e.entry.name): e for e in rules.ruleset.entries}
    kinds = {entries[n].kind for n in owned if n in entries}
    for entry, _number in named(text, [e.entry.name for e in entries.values() if e.kind in kinds]):
        if fold(entry) not in owned and fold(entry) not in held:
            _explain(ctx, f"{entity.name} does not have", entry)
            return False
    return True


def _predicates(rules: Any) -> dict[str, Any]:
    """The states a `While`/`Prereq` text may name besides conditions: every function of
    one parameter named ``is_WORDS`` (``is_winded(e)`` is the state "winded")."""
    found: dict[str, Any] = {}
    for name in rules.globals.names():
        if not name.casefold().startswith("is_"):
            continue
        try:
            value = rules.globals.lookup(name)
        except KeyError:
            continue
        if isinstance(value, Function) and len(value.params) == 1 and name[3:].strip("_"):
            found[name[3:].replace("_", " ").strip()] = value
    return found


def _holds(function: Any, entity: Any, ctx: Any, site: Any) -> bool:
    """Whether a predicate is true of the entity (its value read as true/false)."""
    trace, ctx.trace = ctx.trace, None  # a refusal's help names the state, not its workings
    try:
        return bool(ctx.result(call_function_value(function, [entity], ctx, site)))
    finally:
        ctx.trace = trace


def _data_of(args: list[Any], site: Any) -> Any:
    """``data_of(entity, "key"[, default])``: what the entity's file gives under a key that
    is not a stat (names match as everywhere: any case, spaces and hyphens ignored). A number
    or a text is itself; a list is its items as one text, separated by spaces (the way a
    keyword list reads); a key the file does not have gives the default ("" without one)."""
    if len(args) not in (2, 3):
        raise RunebookError([Diagnostic.make("E0406", site[0], site[1], name="data_of",
                                             expected="an entity, a key (and a default)", got=len(args))])
    entity, key = args[0], fold(_text(args[1]))
    if not hasattr(entity, "data"):
        raise RunebookError([Diagnostic.make("E0405", site[0], site[1], op="data_of",
                                             kind="something that is not a character")])
    for name, value in entity.data.items():
        if fold(str(name)) == key:
            if isinstance(value, list):
                return " ".join(_text(item) for item in value)
            return value if isinstance(value, (bool, int, str)) else _text(value)
    return args[2] if len(args) == 3 else ""


def _level_in(text: str, default: Any, site: Any) -> Any:
    """``level_in(text, level)``: the level of ``level``'s group that the text names first
    (whole words, any case), else ``level`` itself: ``level_in("Melee Fire", untyped)``."""
    if not isinstance(default, Level):
        raise RunebookError([Diagnostic.make("E0405", site[0], site[1], op="level_in",
                                             kind="something that is not a level")])
    found = named(text, list(default.names))
    return default if not found else default.moved(default.names.index(found[0][0]) - default.rank)


def _explain(ctx: Any, text: str, value: str) -> None:
    """A trace note a failed `require` shows as its help."""
    if getattr(ctx, "trace", None) is not None:
        ctx.trace.append(StepEvent("call", text, value))
