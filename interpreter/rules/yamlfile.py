"""Reading the YAML files users give (entities, answers to choice points), safely.

Files are read with the one bounded reader (dsl.files: regular files only, at most
``YamlLimits.max_bytes``), scanned event by event for nesting depth and over-long numbers
(PyYAML's composer recurses, so depth is checked before composing), composed with the safe
loader (node positions, for diagnostics), walked once without recursion to bound the nodes
aliases expand to, and only then loaded with ``yaml.safe_load`` (the values). Any problem is
a diagnostic with file:line:col.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import attrs
import yaml

from runebook.dsl.diagnostics import Diagnostic, RunebookError
from runebook.dsl.files import FileRefused, read_limited
from runebook.dsl.source import Source, Span

__all__ = ["YAML_LIMITS", "YamlLimits", "read_yaml"]


@attrs.define
class YamlLimits:
    """Bounds on one YAML file, so that no character or choices file can exhaust a machine."""

    max_bytes: int = 1024 * 1024
    #: Nesting of lists and mappings.
    max_depth: int = 64
    #: Nodes after expanding every alias (``*name``): what the loaded data holds.
    max_nodes: int = 100_000
    #: Digits of one integer.
    max_digits: int = 1_000


YAML_LIMITS = YamlLimits()
_INTEGER = re.compile(r"[-+]?[0-9][0-9_]*")


def _refuse(source: Source | None, mark: Any, code: str, **fields: object) -> RunebookError:
    span = Span.point(mark.line + 1, mark.column + 1) if mark is not None else None
    return RunebookError([Diagnostic.make(code, source, span, **fields)])


def _scan(text: str, source: Source, limits: YamlLimits) -> None:
    """Check nesting depth and integer lengths on the event stream (no recursion)."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > limits.max_depth:
                raise _refuse(source, event.start_mark, "E0013", what=f"nesting deeper than {limits.max_depth} levels",
                              limit=f"{limits.max_depth} levels")
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1
        elif isinstance(event, yaml.ScalarEvent) and event.style is None and len(event.value) > limits.max_digits:
            if _INTEGER.fullmatch(event.value):
                raise _refuse(source, event.start_mark, "E0013", what=f"number of {len(event.value):,} digits",
                              limit=f"{limits.max_digits:,} digits")


def _expanded_size(root: yaml.Node, source: Source, limits: YamlLimits) -> None:
    """Count the nodes the data will hold once aliases are expanded; refuse past the limit."""
    count = 0
    stack: list[yaml.Node] = [root]
    while stack:
        node = stack.pop()
        count += 1
        if count > limits.max_nodes:
            raise _refuse(source, node.start_mark, "E0013",
                          what=f"expanding to more than {limits.max_nodes:,} values (aliases included)",
                          limit=f"{limits.max_nodes:,} values")
        if isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.append(key)
                stack.append(value)


def read_yaml(path: str | Path, limits: YamlLimits | None = None) -> tuple[Source, yaml.Node | None, Any]:
    """(source, root node, data) of a YAML file; raises RunebookError on any problem."""
    limits = limits or YAML_LIMITS
    shown = str(path)
    try:
        data = read_limited(Path(path), limits.max_bytes)
    except FileRefused as refused:
        if refused.code == "E0001":
            raise RunebookError([Diagnostic.make("E0001", None, None, **refused.fields)]) from None
        raise RunebookError([Diagnostic.make(refused.code, Source(shown, ""), None, **refused.fields)]) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise RunebookError([Diagnostic.make("E0001", None, None, path=shown, reason=str(error))]) from None
    source = Source(shown, text)
    try:
        _scan(text, source, limits)
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        if root is not None:
            _expanded_size(root, source, limits)
        return source, root, yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        span = Span.point(mark.line + 1, mark.column + 1) if mark else None
        raise RunebookError([Diagnostic.make("E0704", source, span,
                                             message=getattr(error, "problem", None) or str(error))]) from None
    except (ValueError, OverflowError, RecursionError) as error:
        # A value the safe constructor cannot build (a timestamp out of range, say).
        raise RunebookError([Diagnostic.make("E0704", source, None, message=str(error)[:200])]) from None
