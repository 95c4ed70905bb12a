"""Runebook's interpreter: evaluation, dice, exact odds, the rules layer and the command.

The embedding API (importing it has no side effects; the grammar is built on first use):

- ``roll(expr, *, seed=None, dice=None)``: roll an expression; ``.total`` and ``.trace``.
- ``odds(expr)``: its exact distribution, a mapping outcome → ``Fraction``.
- ``load(game)``: a game's rules (a built-in name, a folder of .rules files or one .rules file), whose
  ``resolve(check, **inputs)`` and ``odds(check, **inputs)`` mirror the commands.
- ``load_text(text)``: the same from `.rules` text in memory (one string, or file names
  mapped to text; ``extends GAME`` adds to a game).
- ``sweep(game, name, vary={"skill": range(0, 6)}, inputs=...)``: exact odds at every
  point of a grid of inputs, on every core.

Every problem is raised as one :class:`dsl.diagnostics.RunebookError` carrying all the
diagnostics found.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from runebook.interpreter.core.lazy import lazy_names

if TYPE_CHECKING:  # imported on first use (below), so that a one-shot roll starts fast
    from runebook.interpreter.api import odds, roll
    from runebook.interpreter.rules import load, load_text
    from runebook.interpreter.rules.sweep import sweep

from runebook import __version__

__all__ = ["__version__", "load", "load_text", "odds", "roll", "sweep"]

#: Where each name of the API lives.
_LAZY = {"odds": "runebook.interpreter.api", "roll": "runebook.interpreter.api", "load": "runebook.interpreter.rules",
         "load_text": "runebook.interpreter.rules", "sweep": "runebook.interpreter.rules.sweep"}


__getattr__, __dir__ = lazy_names(__name__, _LAZY)
