"""The public API is typed and documented: every function and class `interpreter` and
`interpreter.api` export, the methods of `Rules` an embedder calls and of the results, have
a docstring and an annotation on every parameter and on the return; and docs/api.md, which
mkdocstrings renders from those docstrings, names each of them."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

from runebook import interpreter
from runebook.interpreter import api
from runebook.interpreter.core.distribution import Distribution
from runebook.interpreter.rules import CheckOdds, CheckResult, Rules
from runebook.interpreter.rules.procedures import CallbackDriver, ChoicePoint, RunResult

REPO = Path(__file__).resolve().parent.parent
#: The methods of each public class an embedder calls.
METHODS: dict[type, tuple[str, ...]] = {
    Rules: ("resolve", "odds", "run", "run_async", "entity", "entities", "check", "procedure"),
    api.RollResult: ("to_dict", "to_json"),
    CheckResult: ("to_dict", "to_json"),
    CheckOdds: ("to_dict", "to_json"),
    RunResult: ("to_dict", "to_json"),
    CallbackDriver: ("choose", "cancel"),
}


def _public() -> list[tuple[str, Any]]:
    found = [(f"interpreter.{n}", getattr(interpreter, n)) for n in interpreter.__all__ if n != "__version__"]
    found += [(f"runebook.interpreter.api.{n}", getattr(api, n)) for n in api.__all__]
    found += [(f"{cls.__name__}.{m}", getattr(cls, m)) for cls, ms in METHODS.items() for m in ms]
    found += [(cls.__name__, cls) for cls in (Rules, Distribution, ChoicePoint, CallbackDriver, RunResult)]
    return found


def test_every_public_name_has_a_docstring() -> None:
    missing = [name for name, obj in _public() if not (inspect.getdoc(obj) or "").strip()]
    assert missing == []


def test_every_public_function_is_typed() -> None:
    untyped = []
    for name, obj in _public():
        if inspect.isclass(obj):
            continue
        signature = inspect.signature(obj)
        for param in signature.parameters.values():
            if param.name != "self" and param.annotation is inspect.Parameter.empty:
                untyped.append(f"{name}({param.name})")
        if signature.return_annotation is inspect.Signature.empty:
            untyped.append(f"{name} -> ?")
    assert untyped == []


def test_the_reference_page_renders_each_of_them() -> None:
    page = (REPO / "docs" / "api.md").read_text(encoding="utf-8")
    for name, _ in _public():
        assert name.rpartition(".")[2] in page, name
