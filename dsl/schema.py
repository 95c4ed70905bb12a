"""JSON Schemas (draft 2020-12) of what Runebook gives to other tools and takes from them:
``export`` (`runebook export GAME`, dsl.export), ``character`` (a character, NPC or
obstacle file, read as its YAML data), and the ``--json`` output of ``roll``, ``resolve``,
``run`` and ``odds``. `runebook schema NAME` prints one."""

from __future__ import annotations

from typing import Any

from runebook.dsl.export import EXPORT_VERSION

__all__ = ["SCHEMAS", "schema"]

_DRAFT = "https://json-schema.org/draft/2020-12/schema"
_TEXT = {"type": "string"}
_MAYBE_TEXT = {"type": ["string", "null"]}
_PLACE = {"file": _TEXT, "line": {"type": ["integer", "null"], "minimum": 1}}


def _object(properties: dict[str, Any], required: list[str] | None = None, *, closed: bool = True) -> dict[str, Any]:
    found: dict[str, Any] = {"type": "object", "properties": properties,
                             "required": required if required is not None else list(properties)}
    if closed:
        found["additionalProperties"] = False
    return found


def _list(item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": item}


_VALUE = {"oneOf": [{"type": "null"}, _object({"text": _TEXT, "expressions": _list(_TEXT)})]}
_PARAM = _object({"name": _TEXT, "type": _MAYBE_TEXT, "default": _MAYBE_TEXT})


def _export() -> dict[str, Any]:
    line: dict[str, Any] = _object({"label": _TEXT, "grade": {"type": ["integer", "string", "null"]},
                                    "value": _VALUE, "more": _list(_TEXT), "items": _list({"$ref": "#/$defs/item"})},
                                   ["label", "grade", "value"])
    item = _object({"style": {"enum": ["named", "option", "plain"]}, "name": _MAYBE_TEXT, "types": _MAYBE_TEXT,
                    "value": _VALUE, "lines": _list({"$ref": "#/$defs/line"}),
                    "items": _list({"$ref": "#/$defs/item"})}, ["style", "name", "types", "value"])
    label = _object({"name": _TEXT, "type": _TEXT, "required": {"type": "boolean"},
                     "repeatable": {"type": "boolean"}, "graded": {"type": "boolean"},
                     "grades": {"oneOf": [{"type": "null"}, {"type": "array", "items": {"type": "integer"},
                                                             "minItems": 2, "maxItems": 2}]},
                     "after": _MAYBE_TEXT, "aliases": _list(_TEXT), "refers": _MAYBE_TEXT})
    kind = _object({"name": _TEXT, "types": _list(_TEXT), "keywords": _list(_TEXT), "labels": _list(label)})
    entry = _object({"name": _TEXT, "kind": _MAYBE_TEXT, "types": _MAYBE_TEXT, "source": _MAYBE_TEXT, **_PLACE,
                     "lines": _list({"$ref": "#/$defs/line"})})
    callable_ = _object({"name": _TEXT, "kind": {"enum": ["check", "procedure"]}, "inputs": _list(_PARAM),
                         "results": _list(_TEXT), **_PLACE,
                         "choices": _list(_object({"name": _TEXT, "options": _list(_TEXT)}))},
                        ["name", "kind", "inputs", "results", "file", "line"])
    settings = {"type": "object", "additionalProperties": _MAYBE_TEXT}
    return {
        "$schema": _DRAFT,
        "$id": "https://runebook.invalid/schemas/export.json",
        "title": "A Runebook game, exported (runebook export GAME)",
        **_object({
            "format": {"const": "runebook-export"},
            "version": {"const": EXPORT_VERSION},
            "game": _TEXT,
            "vocabulary": _object({"stats": _list(_TEXT), "names": _list(_TEXT), "kinds": _list(kind)}),
            "entries": _list(entry),
            "levels": _list(_object({"group": _TEXT, "names": _list(_TEXT)})),
            "options": _list(_object({"name": _TEXT, "choices": _list(_TEXT), "default": _TEXT})),
            "tables": _list(_object({"name": _TEXT, "rows": _list(_object({"key": _TEXT, "value": _TEXT}))})),
            "functions": _list(_object({"name": _TEXT, "params": _list(_TEXT), "body": _TEXT, **_PLACE})),
            "checks": _list(callable_),
            "procedures": _list(callable_),
            "resources": _list(_object({"name": _TEXT, "settings": settings})),
            "conditions": _list(_object({"name": _TEXT, "params": _list(_PARAM), "settings": settings})),
        }),
        "$defs": {"line": line, "item": item},
    }


def _character() -> dict[str, Any]:
    number_or_rating = {"oneOf": [{"type": "number"}, {"type": "string", "minLength": 1}]}
    condition = {"oneOf": [_TEXT, {"type": "object", "minProperties": 1, "maxProperties": 1}]}
    one = _object({
        "name": {"type": "string", "minLength": 1},
        "game": _TEXT,
        "stats": {"type": "object", "additionalProperties": number_or_rating},
        "resources": {"type": "object", "additionalProperties": {"type": "number"}},
        "conditions": {"oneOf": [_TEXT, _list(condition)]},
        "powers": _list(_TEXT),
    }, ["name"], closed=False)
    one["description"] = ("stats must be the game's (runebook check --game GAME FILE says which); any other key "
                          "is kept as the character's data")
    return {
        "$schema": _DRAFT,
        "$id": "https://runebook.invalid/schemas/character.json",
        "title": "A Runebook character, NPC or obstacle file (YAML), or a list of them (a party)",
        "oneOf": [{"$ref": "#/$defs/one"}, {"type": "array", "items": {"$ref": "#/$defs/one"}, "minItems": 1}],
        "$defs": {"one": one},
    }


_FRACTION = {"type": "string", "pattern": r"^-?[0-9]+(/[0-9]+)?$"}
_DISTRIBUTION = {"type": "object", "additionalProperties": _FRACTION}
_TRACE = _list({"type": "object", "required": ["kind"], "properties": {"kind": _TEXT}})
_DICE = _list({"type": "number"})
_VALUES = {"type": "object"}


def _output(title: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"$schema": _DRAFT, "$id": f"https://runebook.invalid/schemas/{title.split()[1]}.json", "title": title,
            **_object(properties, required, closed=False)}


def _roll() -> dict[str, Any]:
    return _output("runebook roll --json", {"expression": _TEXT, "total": {}, "dice": _DICE, "trace": _TRACE},
                   ["expression", "total", "dice", "trace"])


def _resolve() -> dict[str, Any]:
    return _output("runebook resolve --json", {"check": _TEXT, "inputs": _VALUES, "options": _VALUES,
                                               "results": _VALUES, "shown": _VALUES, "dice": _DICE,
                                               "trace": _TRACE},
                   ["check", "inputs", "options", "results", "dice", "trace"])


def _run() -> dict[str, Any]:
    choice = _object({"choice": _TEXT, "answer": _TEXT})
    return _output("runebook run --json", {"name": _TEXT, "results": _VALUES, "shown": _VALUES, "state": _VALUES,
                                           "choices": _list(choice), "dice": _DICE, "trace": _TRACE},
                   ["name", "results", "state", "choices", "dice", "trace"])


def _odds() -> dict[str, Any]:
    expression = _object({"expression": _TEXT, "distribution": _DISTRIBUTION, "residual": _FRACTION,
                          "mean": {"oneOf": [{"type": "null"}, _FRACTION]}, "note": _TEXT},
                         ["expression", "distribution", "residual", "mean"])
    results = {"type": "object", "additionalProperties": _DISTRIBUTION}
    check = {"type": "object", "required": ["inputs", "options", "results", "residual"],
             "properties": {"check": _TEXT, "procedure": _TEXT, "states": {"type": "integer"}, "inputs": _VALUES,
                            "options": _VALUES, "results": results, "residual": _FRACTION},
             "oneOf": [{"required": ["check"]}, {"required": ["procedure", "states"]}]}
    compared = {"type": "object", "required": ["expressions"],
                "properties": {"expressions": _list(expression)}}
    return {"$schema": _DRAFT, "$id": "https://runebook.invalid/schemas/odds.json",
            "title": "runebook odds --json (an expression, several side by side, or a game's check or procedure)",
            "anyOf": [expression, compared, check]}


SCHEMAS = {"export": _export, "character": _character, "roll": _roll, "resolve": _resolve, "run": _run,
           "odds": _odds}


def schema(name: str) -> dict[str, Any]:
    """One of :data:`SCHEMAS` by name; KeyError for another."""
    return SCHEMAS[name]()
