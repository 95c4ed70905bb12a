"""A game as JSON: what a tool that consumes content (a character-sheet app, a VTT module)
builds on, without running anything.

:func:`export` reads a checked model (``dsl.model``) and gives plain data: the vocabulary
(stats, names, entry kinds and their labels), every entry with its lines and their parsed
values (the expressions in brackets, canonical), levels, options, tables, and the
signatures of functions, checks and procedures. ``dsl.schema`` describes it as a JSON Schema.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from runebook.dsl import ast
from runebook.dsl.checker import CheckedEntry
from runebook.dsl.model import LevelName, Model, TableName
from runebook.dsl.source import Source, Span

__all__ = ["EXPORT_VERSION", "export"]

#: The shape's version: a consumer checks it (a new field keeps it; a change of meaning raises it).
EXPORT_VERSION = 1


def _place(source: Source, span: Span | None) -> dict[str, Any]:
    return {"file": Path(source.name).name, "line": span.line if span is not None else None}


def _value(value: ast.Value | None) -> dict[str, Any] | None:
    if value is None:
        return None
    return {"text": str(value), "expressions": [str(b.expr) for b in value.brackets()]}


def _property(prop: ast.Property) -> dict[str, Any]:
    found: dict[str, Any] = {"label": prop.label, "grade": int(prop.grade) if prop.grade and prop.grade.isdigit()
                             else prop.grade, "value": _value(prop.value)}
    if prop.paragraphs or prop.after:
        found["more"] = [str(v) for v in prop.paragraphs + prop.after]
    if prop.items:
        found["items"] = [_item(i) for i in prop.items]
    return found


def _item(item: ast.Item) -> dict[str, Any]:
    found: dict[str, Any] = {"style": item.style, "name": item.name, "types": item.types, "value": _value(item.value)}
    if item.properties:
        found["lines"] = [_property(p) for p in item.properties]
    if item.items:
        found["items"] = [_item(i) for i in item.items]
    return found


def _entry(entry: CheckedEntry) -> dict[str, Any]:
    header = entry.entry.header
    return {"name": header.name, "kind": entry.kind, "types": header.types, "source": header.source,
            **_place(entry.source, header.span), "lines": [_property(p) for p in entry.entry.properties]}


def _params(params: tuple[ast.Param, ...]) -> list[dict[str, Any]]:
    return [{"name": p.name, "type": p.type, "default": str(p.default) if p.default is not None else None}
            for p in params]


def _callable(decl: Any, source: Source, kind: str) -> dict[str, Any]:
    statements = tuple(ast.walk_statements(decl.statements)) if hasattr(decl, "statements") else ()
    results = list(dict.fromkeys(s.name for s in statements if isinstance(s, ast.ResultLine)))
    choices = [{"name": s.name, "options": list(s.choices)} for s in statements if isinstance(s, ast.ChooseLine)]
    found = {"name": str(decl.name), "kind": kind, "inputs": _params(decl.params), "results": results,
             **_place(source, decl.name.span)}
    if kind == "procedure":
        found["choices"] = choices
    return found


def export(model: Model) -> dict[str, Any]:
    """The game as plain data (see the module's docstring); JSON-serialisable as it is."""
    ruleset, vocab = model.ruleset, model.ruleset.vocabulary
    kinds = []
    for kind in vocab.kinds.values():
        labels = {id(spec): spec for spec in kind.labels.values()}.values()
        kinds.append({
            "name": kind.name, "types": list(kind.types), "keywords": list(kind.keywords),
            "labels": [{"name": s.name, "type": s.value_type, "required": s.required, "repeatable": s.repeatable,
                        "graded": s.graded, "grades": list(s.grades) if s.grades else None, "after": s.after,
                        "aliases": list(s.aliases), "refers": s.refers} for s in labels],
        })
    groups: dict[str, list[str]] = {}
    for _, named in model.values:
        if isinstance(named, LevelName) and named.group not in ("resource", "condition"):
            groups.setdefault(named.group, list(named.names))
    tables = [{"name": named.name, "rows": [{"key": written, "value": str(value)} for _, written, value in named.rows]}
              for _, named in model.values if isinstance(named, TableName)]
    functions = []
    for source, rules in ruleset.files:
        for block in rules.blocks:
            if isinstance(block, ast.FunctionDecl):
                functions.append({"name": str(block.name), "params": [p.name for p in block.params],
                                  "body": str(block.body), **_place(source, block.name.span)})
    # The declarations as written (blocks, not the flat lines a procedure runs as).
    written = {str(b.name).casefold(): (b, s) for s, r in ruleset.files for b in r.blocks
               if isinstance(b, ast.CheckDecl | ast.ProcedureDecl)}
    return {
        "format": "runebook-export",
        "version": EXPORT_VERSION,
        "game": ruleset.name,
        "vocabulary": {"stats": sorted(vocab.stats.values()), "names": sorted(vocab.names.values()), "kinds": kinds},
        "entries": [_entry(e) for e in ruleset.entries],
        "levels": [{"group": g, "names": n} for g, n in groups.items()],
        "options": [{"name": o.name, "choices": list(o.choices), "default": o.choices[o.default]}
                    for o in model.options.values()],
        "tables": tables,
        "functions": functions,
        "checks": [_callable(*written.get(c.name.casefold(), (c.decl, c.source)), "check")
                   for c in model.checks.values()],
        "procedures": [_callable(*written.get(p.name.casefold(), (p.decl, p.source)), "procedure")
                       for p in model.procedures.values()],
        "resources": [{"name": r.name, "settings": {k: str(v) if v is not None else None
                                                    for k, v in r.settings.items()}}
                      for r in model.resources.values()],
        "conditions": [{"name": c.name, "params": _params(c.params),
                        "settings": {k: str(v) if v is not None else None for k, v in c.settings.items()}}
                       for c in model.conditions.values()],
    }
