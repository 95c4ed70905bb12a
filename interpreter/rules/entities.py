"""Entities (characters, NPCs, obstacles) from YAML, validated against a ruleset.

A file looks like::

    name: Itzel
    stats:
      Aim: 2
      Strength: 3
      Defense: 12

It is read with ``yaml.safe_load``'s loader (composed first, so that every diagnostic can
point at the file, line and column). ``stats`` must name stats the ruleset declares and
hold numbers or ratings (``7M2``); anything else in the file is kept as data. In a check,
the entity given with ``--as`` is ``actor`` and the one given with ``--against`` is
``target``: ``target's Defense`` reads the target's stat.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

import attrs
import yaml

from runebook.dsl import expr_ast as ex
from runebook.dsl.diagnostics import Diagnostic, RunebookError, did_you_mean
from runebook.dsl.parser import parse_expression
from runebook.dsl.source import Source, Span
from runebook.dsl.vocabulary import Vocabulary, fold
from runebook.interpreter.core.values import Rating, format_value
from runebook.interpreter.rules.yamlfile import read_yaml

__all__ = ["Cap", "Entity", "Held", "load_entities", "load_entity", "signed_rating"]


@attrs.frozen(eq=False)
class Held:
    """One condition an entity is under: its name, its parameters by name (in the order the
    condition declares them) and, when it lasts a while, how many of which event are left
    (``(2, "rounds")``). A condition without parameters or duration equals its plain name, so
    ``entity.conditions == ["Dazed"]`` still reads naturally."""

    name: str
    args: tuple[tuple[str, Any], ...] = ()
    left: tuple[int, str] | None = None
    #: How many of ``args`` to show (those after it are at their defaults); -1: all.
    shown: int = -1

    def _key(self) -> tuple[Any, ...]:
        return (self.name, self.args, self.left)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Held):
            return self._key() == other._key()
        if isinstance(other, str):
            return not self.args and self.left is None and self.name == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.name) if not self.args and self.left is None else hash(self._key())

    def arg(self, name: str) -> Any:
        return next((v for k, v in self.args if fold(k) == fold(name)), None)

    def __str__(self) -> str:
        """As a procedure line would apply it: ``Shielded(2)``, ``Dazed for 2 rounds``."""
        text = self.name
        args = self.args if self.shown < 0 else self.args[:self.shown]
        if args:
            text += "(" + ", ".join(f'"{v}"' if isinstance(v, str) else str(v) for _, v in args) + ")"
        if self.left is not None:
            count, event = self.left
            if count == 1 and event.endswith("s"):
                event = event[:-1]
            text += f" for {count} {event}"
        return text


@attrs.frozen
class Entity:
    """A character, NPC or obstacle: its name, stats and the rest of its data."""

    name: str
    stats: dict[str, Any]
    data: dict[str, Any] = attrs.field(factory=dict, repr=False)
    path: str = ""
    #: Current points of each resource, and the conditions the entity is under (in order).
    resources: dict[str, Any] = attrs.field(factory=dict)
    conditions: list[Held] = attrs.field(factory=list)
    #: Values the game derives from stats (``derive``), computed when looked up.
    derived: dict[str, Any] = attrs.field(factory=dict, repr=False)

    def copy(self) -> Entity:
        """A copy whose resources and conditions can change without touching this one."""
        return attrs.evolve(self, resources=dict(self.resources), conditions=list(self.conditions))

    def state(self) -> dict[str, Any]:
        return {"name": self.name, "stats": dict(self.stats), "resources": dict(self.resources),
                "conditions": [str(c) for c in self.conditions]}

    def lookup(self, name: str) -> Any:
        key = fold(name)
        for stat, value in self.stats.items():
            if fold(stat) == key:
                return value
        for derived, value in self.derived.items():
            if fold(derived) == key:
                return value
        if key == "name":
            return self.name
        raise KeyError(name)

    def names(self) -> Iterable[str]:
        return list(self.stats) + list(self.derived)

    def __str__(self) -> str:
        return self.name


@attrs.frozen
class Cap:
    """A resource's cap for one entity: the expression as the game writes it (``Max HP``),
    and its value, or the diagnostic that stopped it from being worked out (a stat the
    entity's file does not give). ``start`` is the resource's start for the entity (None
    when that cannot be worked out either)."""

    text: str
    value: Any = None
    failure: Diagnostic | None = None
    start: Any = None


#: The caps of a game's capped resources for an entity as its file gives it, by resource name.
CapsOf = Callable[[Entity], Mapping[str, Cap]]


_TIER = re.compile(r"([A-Z])(\d*)")


def signed_rating(expr: ex.Expr) -> Rating | None:
    """A bonus written in rating notation, as an input value: ``+M`` (one tier), ``+M2``,
    ``-M``, ``+5M`` (a :class:`Rating` with a sign); None for anything else."""
    if not isinstance(expr, ex.Unary) or expr.op not in ("+", "-"):
        return None
    sign = -1 if expr.op == "-" else 1
    operand = expr.operand
    if isinstance(operand, ex.Rating):
        return Rating(operand.base, operand.symbol, operand.count, sign)
    if isinstance(operand, ex.Name):
        match = _TIER.fullmatch(operand.text)
        if match:
            return Rating(0, match.group(1), int(match.group(2)) if match.group(2) else None, sign)
    return None


def _span(node: yaml.Node) -> Span:
    start, end = node.start_mark, node.end_mark
    end_column = end.column + 1 if end.line == start.line else start.column + 2
    return Span(start.line + 1, start.column + 1, start.line + 1, max(end_column, start.column + 2))


def _stat_value(node: yaml.Node, source: Source) -> tuple[Any, Diagnostic | None]:
    """A stat is a number or a rating literal such as 7M2."""
    if isinstance(node, yaml.ScalarNode):
        text = str(node.value).strip()
        try:
            expr = parse_expression(text, Source(source.name, text)) if text else None
        except RunebookError:
            expr = None
        if isinstance(expr, ex.Number):
            return expr.value, None
        if isinstance(expr, ex.Unary) and isinstance(expr.operand, ex.Number):
            return (-expr.operand.value if expr.op == "-" else expr.operand.value), None
        if isinstance(expr, ex.Rating):
            return Rating(expr.base, expr.symbol, expr.count), None
        shown = text or "nothing"
    else:
        shown = "a list" if isinstance(node, yaml.SequenceNode) else "a mapping"
    return None, shown  # type: ignore[return-value]


def _condition_item(text: str, source: Source) -> tuple[str, list[Any]] | None:
    """``Dazed`` or ``Shielded(2)`` / ``Burning(3, "oil")``: a name and its values."""
    try:
        expr = parse_expression(text, Source(source.name, text))
    except RunebookError:
        return None
    if isinstance(expr, ex.Name):
        return expr.text, []
    if isinstance(expr, ex.Call):
        values: list[Any] = []
        for arg in expr.args:
            if isinstance(arg, ex.Number):
                values.append(arg.value)
            elif isinstance(arg, ex.Unary) and isinstance(arg.operand, ex.Number) and arg.op == "-":
                values.append(-arg.operand.value)
            elif isinstance(arg, ex.String):
                values.append(arg.value)
            elif isinstance(arg, ex.Name):
                values.append(arg.text)
            else:
                return None
        return expr.func.text, values
    return None


def load_entity(path: str | Path, vocabulary: Vocabulary, resources: Iterable[str] = (),
                conditions: Iterable[str] = (), bind: Any = None, caps: CapsOf | None = None) -> Entity:
    """Read and validate an entity file; every problem is reported at once.

    ``resources`` and ``conditions`` are the names the game declares; the file may give
    ``resources: {NAME: points}`` and ``conditions: [NAME, ...]`` with those names, a
    condition with parameters written as it is applied: ``Shielded(2)``. ``bind(name,
    values)`` turns a condition's values into its parameters (a :class:`Held`), or gives the
    text of what is wrong with them. ``caps(entity)`` gives the caps of the game's resources
    for it: a resource the file gives must lie from 0 to its cap.
    """
    shown = str(path)
    source, root, data = read_yaml(path)
    return _entity(source, root, data, shown, vocabulary, resources, conditions, bind, caps)


def load_entities(path: str | Path, vocabulary: Vocabulary, resources: Iterable[str] = (),
                  conditions: Iterable[str] = (), bind: Any = None, caps: CapsOf | None = None) -> list[Entity]:
    """The entities of a file: one (a mapping), or a YAML list of them (a party, a band of
    foes); every problem of every one is reported at once."""
    shown = str(path)
    source, root, data = read_yaml(path)
    if not isinstance(root, yaml.SequenceNode) or not isinstance(data, list):
        return [_entity(source, root, data, shown, vocabulary, resources, conditions, bind, caps)]
    found: list[Entity] = []
    problems: list[Diagnostic] = []
    for node, item in zip(root.value, data):
        try:
            found.append(_entity(source, node, item, shown, vocabulary, resources, conditions, bind, caps))
        except RunebookError as error:
            problems.extend(error.diagnostics)
    if problems:
        raise RunebookError(problems)
    if not found:
        raise RunebookError([Diagnostic.make("E0702", source, Span.point(1, 1), name=shown,
                                             expected="a character, or a list of them", found="an empty list")])
    return found


def _found(node: Any) -> str:
    """What a YAML node is, for "got ...": nothing, a list, a mapping, or its text."""
    if node is None or (isinstance(node, yaml.ScalarNode) and node.tag.endswith(":null")):
        return "nothing"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    text = str(node.value)
    return f"the text '{text if len(text) <= 40 else text[:37] + '...'}'"


_READ_KEYS = ("name", "game", "stats", "resources", "conditions")


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` becomes ``b`` by one letter added, dropped, changed or two swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return a == b
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1:] == short for i in range(len(long)))


def _misspelt_keys(source: Source, keys: dict[str, Any]) -> list[Diagnostic]:
    """A key a letter (or only case and spacing) away from one the file is read by
    (``stat:``, ``Resources:``): other keys are kept as data, so it would be silently unread."""
    found: list[Diagnostic] = []
    for key, (key_node, _value) in keys.items():
        if key in _READ_KEYS:
            continue
        near = [k for k in _READ_KEYS if k not in keys
                and (fold(key) == k or _one_edit(key.casefold().replace(" ", ""), k))]
        if near:
            found.append(Diagnostic.make("E0705", source, _span(key_node), what="key", name=key,
                                         help=f"did you mean '{near[0]}'? (the file is read by its keys "
                                         f"{', '.join(_READ_KEYS)}; others are kept as its data)"))
    return found


def _entity(source: Source, root: Any, data: Any, shown: str, vocabulary: Vocabulary, resources: Iterable[str],
            conditions: Iterable[str], bind: Any, caps: CapsOf | None = None) -> Entity:
    """One entity from its YAML node (and the data it holds)."""
    problems: list[Diagnostic] = []
    if not isinstance(root, yaml.MappingNode) or not isinstance(data, dict):
        raise RunebookError([Diagnostic.make("E0702", source, _span(root) if root else None, name=shown,
                                             expected="a mapping with 'name' and 'stats'", found=_found(root),
                                             help="a character file is lines such as 'name: Ada' and 'stats:' "
                                                  "followed by indented 'Stat: value' lines")])
    keys = {str(k.value): (k, v) for k, v in root.value}
    problems.extend(_misspelt_keys(source, keys))
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        problems.append(Diagnostic.make("E0703", source, _span(keys["name"][1]) if "name" in keys else Span.point(1, 1),
                                        name="name", help="add a line 'name: ...'"))
    who = name if isinstance(name, str) and name.strip() else "the character"
    stats: dict[str, Any] = {}
    stats_read = len(problems)
    if "stats" in keys:
        stats_node = keys["stats"][1]
        if not isinstance(stats_node, yaml.MappingNode):
            problems.append(Diagnostic.make("E0702", source, _span(stats_node), name="stats",
                                            expected="a mapping of stat names to values", found=_found(stats_node)))
        else:
            known = list(vocabulary.stats.values())
            for key_node, value_node in stats_node.value:
                stat = str(key_node.value)
                if fold(stat) not in vocabulary.stats:
                    problems.append(Diagnostic.make("E0701", source, _span(key_node), name=stat,
                                                    help=did_you_mean(stat, known)))
                    continue
                value, bad = _stat_value(value_node, source)
                if bad is not None:
                    problems.append(Diagnostic.make("E0702", source, _span(value_node), name=stat,
                                                    expected="a number or a rating such as 7M2", found=f"'{bad}'"))
                    continue
                stats[vocabulary.stats[fold(stat)]] = value
    stats_read = len(problems) == stats_read  # whether the stats are as the file means them
    held: dict[str, Any] = {}
    given: dict[str, Span] = {}  # where the file gives each resource's points
    declared = {fold(r): r for r in resources}
    if "resources" in keys:
        node = keys["resources"][1]
        if not isinstance(node, yaml.MappingNode):
            problems.append(Diagnostic.make("E0702", source, _span(node), name="resources",
                                            expected="a mapping of resource names to points", found=_found(node)))
        else:
            for key_node, value_node in node.value:
                resource = str(key_node.value)
                if fold(resource) not in declared:
                    problems.append(Diagnostic.make("E0705", source, _span(key_node), what="resource", name=resource,
                                                    help=did_you_mean(resource, list(declared.values()))))
                    continue
                value, bad = _stat_value(value_node, source)
                if bad is not None or not isinstance(value, int):
                    problems.append(Diagnostic.make("E0702", source, _span(value_node), name=resource,
                                                    expected="a whole number of points", found=f"'{bad or value}'"))
                    continue
                if value < 0:
                    problems.append(Diagnostic.make(
                        "E0710", source, _span(value_node), name=who, value=value, resource=resource,
                        expected="at least 0 (a resource's points are never negative)",
                        help="a character file gives the points it holds now; spending never takes "
                             "a resource below 0"))
                    continue
                held[declared[fold(resource)]] = value
                given[declared[fold(resource)]] = _span(value_node)
    under: list[Held] = []
    known_conditions = {fold(c): c for c in conditions}
    if "conditions" in keys:
        node = keys["conditions"][1]
        if not isinstance(node, yaml.SequenceNode):
            problems.append(Diagnostic.make("E0702", source, _span(node), name="conditions",
                                            expected="a list of condition names", found=_found(node)))
        else:
            for item in node.value:
                text = str(getattr(item, "value", ""))
                parsed = _condition_item(text, source) if isinstance(item, yaml.ScalarNode) else None
                condition = parsed[0] if parsed else text
                if parsed is None and fold(text) not in known_conditions:
                    problems.append(Diagnostic.make("E0702", source, _span(item), name="conditions",
                                                    expected="a condition, with its values in brackets: "
                                                    "'Shielded(2)'", found=f"'{text}'",
                                                    help="a comma inside [a, b] ends an item: quote it "
                                                    "(\"Burning(3, oil)\") or write one '- item' per line"
                                                    if text.count("(") != text.count(")") else None))
                elif fold(condition) not in known_conditions:
                    problems.append(Diagnostic.make("E0705", source, _span(item), what="condition", name=condition,
                                                    help=did_you_mean(condition, list(known_conditions.values()))))
                else:
                    declared_name, values = known_conditions[fold(condition)], parsed[1] if parsed else []
                    instance: Any = bind(declared_name, values) if bind is not None else Held(declared_name)
                    if isinstance(instance, str):
                        problems.append(Diagnostic.make("E0702", source, _span(item), name=declared_name,
                                                        expected=instance, found=f"'{text}'"))
                    else:  # listed twice: the game's stacking rule decides (Rules._prepared)
                        under.append(instance)
    entity = Entity(str(name), stats, data, shown, held, under)
    if caps is not None and given and stats_read:
        problems.extend(_over_caps(source, entity, given, caps(entity)))
    if problems:
        raise RunebookError(problems)
    return entity


def _number(value: Any) -> bool:
    return type(value) in (int, Fraction)


def _at_most(value: int, start: Any) -> bool:
    """Whether a resource's points are no more than its start (a number)."""
    return _number(start) and value <= start


def _unworkable(cap: Cap) -> str | None:
    """Why a cap gives no number to compare with, or None when it does."""
    if cap.failure is not None:
        return cap.failure.message
    return None if _number(cap.value) else f"it is {format_value(cap.value)}, not a number"


def _over_caps(source: Source, entity: Entity, given: Mapping[str, Span], caps: Mapping[str, Cap]) -> list[Diagnostic]:
    """The resources a file gives above their caps, or whose caps its stats cannot give."""
    found: list[Diagnostic] = []
    for resource, span in given.items():
        cap = caps.get(resource)
        if cap is None:
            continue
        value = entity.resources[resource]
        reason = _unworkable(cap)
        if reason is not None:
            if _at_most(value, cap.start):
                continue  # the points the game itself starts it at (a saved state gives them)
            found.append(Diagnostic.make(
                "E0711", source, span, resource=resource, cap=cap.text, name=entity.name, reason=reason,
                help=f"the cap reads the character's stats (and the values the game derives from them): "
                     f"give what it needs under 'stats:', or leave {resource} out of 'resources:'"
                     + (f", or give at most {format_value(cap.start)} (its start)" if _number(cap.start) else "")))
        elif value > cap.value:
            limit = format_value(cap.value)
            found.append(Diagnostic.make(
                "E0710", source, span, name=entity.name, value=value, resource=resource,
                expected=f"at most {limit} (the cap of {resource}: {cap.text})",
                help=f"give {resource} {limit} or less: a character file gives the points it holds now, "
                     f"from 0 to its cap"))
    return found
