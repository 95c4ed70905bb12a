"""Runebook: a rules language and interpreter for tabletop role-playing games.

The embedding API (importing it is cheap and has no side effects; each name loads its
module on first use):

- ``roll(expr, *, seed=None, dice=None)`` → :class:`RollResult`: ``.total``, ``.trace``.
- ``odds(expr)``: the exact distribution, a mapping outcome → ``Fraction``.
- ``load(game)`` → :class:`Ruleset`: a built-in game's name, a folder of ``.rules``
  files or one ``.rules`` file; its ``resolve``, ``odds`` and ``run`` mirror the commands.
- ``load_text(text)``: the same from text in memory (one string, or file names → text).
- ``sweep(game, name, vary=..., inputs=...)``: exact odds over a grid of inputs.
- ``ChoicePoint``: what a ``choose=`` callback of ``Ruleset.run`` is given; ``Entity``: a
  character ``Ruleset.entity`` read.

Every problem is raised as one :class:`RunebookError` carrying all its diagnostics.
The parts of the implementation live in ``runebook.dsl`` (parsing, checking, the model),
``runebook.interpreter`` (evaluation, odds, the command line), ``runebook.grammar`` and
``runebook.rulesets`` (the five games, as data).
"""

from __future__ import annotations

import os as _os
from importlib import import_module as _import_module
from typing import TYPE_CHECKING, Any

#: The release (pyproject.toml reads it from here).
__version__ = "0.1.0"

# In a checkout the sub-packages sit beside this folder (the repository keeps dsl/,
# interpreter/, grammar/ and rulesets/ at its top); the wheel places them inside it.
_HERE = _os.path.dirname(__file__)
if not _os.path.isdir(_os.path.join(_HERE, "interpreter")):
    __path__.append(_os.path.dirname(_HERE))

if TYPE_CHECKING:
    from runebook.dsl.diagnostics import Diagnostic, RunebookError
    from runebook.interpreter.api import RollResult, odds, roll
    from runebook.interpreter.core.limits import DEFAULT_LIMITS, Limits
    from runebook.interpreter.markov.chains import ProcedureOdds
    from runebook.interpreter.rules import load, load_text
    from runebook.interpreter.rules.model import Rules as Ruleset
    from runebook.interpreter.rules.entities import Entity
    from runebook.interpreter.rules.procedures import ChoicePoint, RunResult
    from runebook.interpreter.rules.results import CheckOdds, CheckResult, JsonResult
    from runebook.interpreter.rules.sweep import sweep

#: Where each public name lives, loaded when first asked for.
_LAZY: dict[str, tuple[str, str]] = {
    "roll": ("runebook.interpreter.api", "roll"),
    "odds": ("runebook.interpreter.api", "odds"),
    "RollResult": ("runebook.interpreter.api", "RollResult"),
    "load": ("runebook.interpreter.rules", "load"),
    "load_text": ("runebook.interpreter.rules", "load_text"),
    "sweep": ("runebook.interpreter.rules.sweep", "sweep"),
    "Ruleset": ("runebook.interpreter.rules.model", "Rules"),
    "CheckResult": ("runebook.interpreter.rules.results", "CheckResult"),
    "CheckOdds": ("runebook.interpreter.rules.results", "CheckOdds"),
    "JsonResult": ("runebook.interpreter.rules.results", "JsonResult"),
    "RunResult": ("runebook.interpreter.rules.procedures", "RunResult"),
    "ChoicePoint": ("runebook.interpreter.rules.procedures", "ChoicePoint"),
    "Entity": ("runebook.interpreter.rules.entities", "Entity"),
    "ProcedureOdds": ("runebook.interpreter.markov.chains", "ProcedureOdds"),
    "RunebookError": ("runebook.dsl.diagnostics", "RunebookError"),
    "Diagnostic": ("runebook.dsl.diagnostics", "Diagnostic"),
    "Limits": ("runebook.interpreter.core.limits", "Limits"),
    "DEFAULT_LIMITS": ("runebook.interpreter.core.limits", "DEFAULT_LIMITS"),
}

__all__ = [
    "__version__",
    "CheckOdds",
    "CheckResult",
    "ChoicePoint",
    "DEFAULT_LIMITS",
    "Diagnostic",
    "Entity",
    "JsonResult",
    "Limits",
    "ProcedureOdds",
    "RollResult",
    "Ruleset",
    "RunResult",
    "RunebookError",
    "load",
    "load_text",
    "odds",
    "roll",
    "sweep",
]


def __getattr__(name: str) -> Any:
    try:
        module, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'runebook' has no attribute {name!r}") from None
    value = getattr(_import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
