"""An indented, stable text dump of any AST node, for snapshots and `runebook parse --ast`."""

from __future__ import annotations

import attrs

__all__ = ["dump"]


def _scalar(value: object) -> bool:
    return value is None or isinstance(value, (str, int, float, bool)) or type(value).__name__ == "Fraction"


def dump(node: object, indent: int = 0) -> str:
    """Node class, then one field per line; spans and default-empty fields are left out."""
    pad = "  " * indent
    if _scalar(node):
        return pad + repr(node)
    if isinstance(node, tuple | list):
        if not node:
            return pad + "()"
        return "\n".join(dump(item, indent) for item in node)
    if not attrs.has(type(node)):
        return pad + repr(node)
    lines = [pad + type(node).__name__]
    for field in attrs.fields(type(node)):
        if not field.eq:
            continue
        value = getattr(node, field.name)
        if value is None or value == () or value == field.default:
            continue
        if _scalar(value):
            lines.append(f"{pad}  {field.name}: {value!r}")
        else:
            lines.append(f"{pad}  {field.name}:")
            lines.append(dump(value, indent + 2))
    return "\n".join(lines)
