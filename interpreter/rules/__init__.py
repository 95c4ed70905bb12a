"""The rules layer: a game's checks, procedures and entities, run for any game.

- ``model``: :class:`Rules`, :func:`load` and :func:`load_text` (a checked model turned into
  something to run).
- ``results``: what a check gives (:class:`CheckResult`) and its odds (:class:`CheckOdds`).
- ``runstate``: the state of one run of a check or procedure.
- ``entities``, ``yamlfile``: characters and other entities, read from YAML.
- ``entries``, ``amendments``, ``listed``: entries an entity owns, what they change and list.
- ``inline``: what runs of a used procedure's lines need (the lines are brought in place
  by dsl.inline).
- ``sweep``: exact odds over a grid of inputs, on every core.
- ``procedures``: running a procedure's lines, and the drivers that make its choices.
"""

from runebook.interpreter.core.values import Level
from runebook.interpreter.rules.model import Rules, load, load_text
from runebook.interpreter.rules.results import CheckOdds, CheckResult

__all__ = ["CheckOdds", "CheckResult", "Level", "Rules", "load", "load_text"]
