"""The type check stage (dsl.typecheck) and the one registry of builtins (dsl.builtins).

Each diagnostic test is a snippet of .rules text that `runebook check` passed before the
check stage existed (and that failed on its first run); now `runebook check` reports it with
file:line:col, its code, a caret and help, and `interpreter.load` refuses the game.
"""

from __future__ import annotations

import pytest

from dsl import builtins as registry
from dsl import types as ty
from interpreter.evaluate import BUILTINS
from interpreter.rules import HOST_FUNCTIONS

# ---------------------------------------------------------------- the registry


def test_every_evaluator_builtin_has_a_signature_and_every_signature_an_implementation() -> None:
    evaluated = {name for name, b in registry.BUILTINS.items() if not b.host}
    assert set(BUILTINS) == evaluated
    assert set(HOST_FUNCTIONS) == {b.name for b in registry.BUILTINS.values() if b.host}
    assert not set(HOST_FUNCTIONS) & set(BUILTINS)


def test_the_evaluator_takes_arity_and_doc_from_the_registry() -> None:
    for name, implemented in BUILTINS.items():
        declared = registry.BUILTINS[name]
        assert (implemented.min_args, implemented.max_args, implemented.doc) == (
            declared.min_args, declared.max_args, declared.doc), name
    assert (BUILTINS["clamp"].min_args, BUILTINS["clamp"].max_args) == (3, 3)
    assert (BUILTINS["hex_step"].min_args, BUILTINS["hex_step"].max_args) == (2, 3)
    assert (BUILTINS["max"].min_args, BUILTINS["max"].max_args) == (1, None)


def test_a_signature_is_one_line() -> None:
    found = registry._parse("pick(xs: list[number], k: number = 1, ...) -> xs.item | none")[1]
    assert [(p.name, str(p.type), p.optional) for p in found.params] == [
        ("xs", "a list of numbers", False), ("k", "a number", True)]
    assert (found.min_args, found.max_args) == (1, None)
    assert found.result_type([ty.list_of(ty.level("Grade")), ty.NUMBER]) == ty.join(ty.level("Grade"), ty.NONE)
    assert registry.BUILTINS["step"].signatures[0].result_type([ty.level("Result"), ty.NUMBER]) == ty.level("Result")
    with pytest.raises(ValueError):
        registry._parse("bad(x: nombre) -> number")
    with pytest.raises(ValueError):
        registry._parse("bad(level: level) -> number")  # a parameter named like a type


def test_overloads_and_any_parameters() -> None:
    """A second line for a name is an overload; `any` parameters are checked for arity only."""
    saved = dict(registry.BUILTINS)
    try:
        registry.builtin("twice(p: pool, ...) -> number", "twice the dice")
        twice = registry.builtin("twice(xs: list) -> xs.item", "ignored: the first line's doc stays")
        assert twice.doc == "twice the dice" and (twice.min_args, twice.max_args) == (1, None)
        by_list = [s for s in twice.signatures if s.fits(1) and s.mismatch([ty.list_of(ty.TEXT)]) is None]
        assert [s.result_type([ty.list_of(ty.TEXT)]) for s in by_list] == [ty.TEXT]
        loose = registry.builtin("loose(a: any, b: any) -> any", "anything goes")
        assert loose.signatures[0].mismatch([ty.table("T"), ty.level("L")]) is None
    finally:
        registry.BUILTINS.clear()
        registry.BUILTINS.update(saved)
