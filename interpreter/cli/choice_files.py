"""Choices files (``--choices answers.yaml``) checked by `runebook check` against the game and
the procedure they answer, so that a misspelt choice or an answer no choice offers is found
before a run trips on it.

A choices file names its procedure with ``procedure: NAME`` beside ``choices:`` (or
``--procedure NAME`` on the command line); without one, its answers are checked against
every choice point of the game. Choice points are read from the procedures as a run sees
them (``do`` lines expanded); a ``choose NAME from LIST`` offers what a run computes, so
answers to it are not checked here.
"""

from __future__ import annotations

from typing import Any

import yaml

from runebook.dsl import ast
from runebook.dsl.diagnostics import Diagnostic, did_you_mean
from runebook.dsl.source import Source, Span
from runebook.dsl.vocabulary import fold
from runebook.interpreter.rules.procedures import answer_names

__all__ = ["is_choices_file", "choices_problems"]

#: Keys of a choices file that name what it answers, never a choice.
META_KEYS = ("game", "procedure")
_SCALARS = (str, int, float, bool)


def is_choices_file(data: Any) -> bool:
    """A list of plain answers, a mapping holding ``choices:``, or answers by name (a mapping of
    plain values without a ``name``, which every character has)."""
    if isinstance(data, list):
        return all(isinstance(a, _SCALARS) or a is None for a in data) and bool(data)
    if isinstance(data, dict):
        if "choices" in data:
            return True
        return "name" not in data and bool(data) and all(isinstance(v, _SCALARS) or v is None for v in data.values())
    return False


def _span(node: yaml.Node) -> Span:
    start, end = node.start_mark, node.end_mark
    if end.line == start.line and end.column > start.column:
        return Span(start.line + 1, start.column + 1, end.line + 1, end.column + 1)
    return Span.point(start.line + 1, start.column + 1)


def _value(root: yaml.Node | None, key: str) -> yaml.Node | None:
    if isinstance(root, yaml.MappingNode):
        for k, v in root.value:
            if isinstance(k, yaml.ScalarNode) and k.value == key:
                return v
    return None


class _Points:
    """The choice points answers are checked against: by folded name, their options (None
    for a ``choose ... from LIST``, whose items only a run knows)."""

    def __init__(self, procedures: list[Any]) -> None:
        self.options: dict[str, tuple[str, ...] | None] = {}
        self.names: list[str] = []
        for procedure in procedures:
            for line in ast.walk_statements(procedure.decl.statements):
                if not isinstance(line, ast.ChooseLine):
                    continue
                # A choice a `do ... as LABEL` brought in is answered by its own name too.
                for name in answer_names(line.name):
                    self.names.append(name)
                    known = self.options.get(fold(name), ())
                    self.options[fold(name)] = None if line.args or known is None else known + line.choices

    def offered(self, name: str | None) -> tuple[str, ...] | None:
        """The options of the choice ``name`` (all choices' when None); None: not checkable."""
        if name is not None:
            return self.options.get(fold(name), ())
        if any(o is None for o in self.options.values()):
            return None
        return self.written()

    def written(self) -> tuple[str, ...]:
        """Every option written out in a ``choose NAME: a | b`` line."""
        return tuple(dict.fromkeys(o for options in self.options.values() if options for o in options))


def _answer_problem(source: Source, node: yaml.Node, value: Any, choice: str | None, points: _Points,
                    where: str) -> Diagnostic | None:
    """What is wrong with one answer: not a plain word or number, or offered by no choice."""
    offered = points.offered(choice)
    matches = offered is not None and fold(str(value)) in {fold(o) for o in offered}
    if value is None or isinstance(value, (float, list, dict)) or isinstance(value, bool) and not matches:
        found = {type(None): "nothing", bool: "true/false", float: "a decimal number"}.get(type(value), "a list or mapping")
        hint = (f"write it in quotes ('{node.value}') if it is an option's name"
                if isinstance(value, bool) and isinstance(node, yaml.ScalarNode) else None)
        return Diagnostic.make("E0702", source, _span(node), name=choice or "an answer",
                               expected="an option's name or a whole number", found=found, help=hint)
    if matches or offered is not None and not offered and choice is None:
        return None
    if offered is None:
        # A `choose ... from LIST` may offer it; only a near miss of a written option is
        # worth saying, and only as a warning.
        written = points.written()
        if choice is not None or fold(str(value)) in {fold(o) for o in written}:
            return None
        hint = did_you_mean(str(value), written)
        return hint and Diagnostic.make("E0709", source, _span(node), answer=value, where=where, severity="warning",
                                        help=f"{hint} (unless a 'choose ... from' line offers it)")
    hint = did_you_mean(str(value), offered)
    if choice is not None:
        shown = ", ".join(ast.choice_runs(tuple(dict.fromkeys(offered))))
        return Diagnostic.make("E0611", source, _span(node), answer=value, name=choice, allowed=shown, help=hint)
    return Diagnostic.make("E0709", source, _span(node), answer=value, where=where, help=hint or (
        f"its options: {', '.join(ast.choice_runs(offered))}" if where.startswith("'") else
        "name the procedure the answers are for with a line 'procedure: NAME' to see its options"))


def choices_problems(source: Source, root: yaml.Node | None, data: Any, rules: Any,
                     procedure: str | None) -> list[Diagnostic]:
    """Every problem of one choices file against a loaded game (``rules``): the procedure it
    names, each choice it answers by name, and each answer's type and option."""
    found: list[Diagnostic] = []
    named_node = _value(root, "procedure")
    if procedure is None and isinstance(data, dict) and isinstance(data.get("procedure"), str):
        procedure = data["procedure"]
    if procedure is not None:
        chosen = rules.procedure(procedure)
        if chosen is None:
            names = [p.name for p in rules.procedures.values()]
            span = _span(named_node) if named_node is not None else None
            return [Diagnostic.make("E0608", source if span else None, span, name=procedure,
                                    help=did_you_mean(procedure, names))]
        procedures, where = [chosen], f"'{chosen.name}'"
    else:
        procedures, where = list(rules.procedures.values()), f"the game {rules.ruleset.name}"
    points = _Points(procedures)
    body, node = data, root
    if isinstance(data, dict) and "choices" in data:
        body, node = data["choices"], _value(root, "choices")
    if isinstance(body, list) and isinstance(node, yaml.SequenceNode):
        for value, item in zip(body, node.value):
            problem = _answer_problem(source, item, value, None, points, where)
            if problem is not None:
                found.append(problem)
    elif isinstance(body, dict) and isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            if key is None or (body is data and key in META_KEYS):
                continue
            if fold(key) not in points.options:
                found.append(Diagnostic.make("E0708", source, _span(key_node), name=key, where=where,
                                             help=did_you_mean(key, points.names + list(META_KEYS))
                                             or (f"its choices: {', '.join(dict.fromkeys(points.names))}"
                                                 if points.names else None)))
                continue
            problem = _answer_problem(source, value_node, body.get(key), key, points, where)
            if problem is not None:
                found.append(problem)
    else:
        span = _span(node) if node is not None else Span.point(1, 1)
        found.append(Diagnostic.make("E0702", source, span, name="choices",
                                     expected="a list of answers such as '- bold', or answers by name such as "
                                     "'stance: bold'", found="something else"))
    return found
