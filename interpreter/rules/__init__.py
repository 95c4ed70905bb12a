"""The rules layer: a game's checks, procedures and entities, run for any game.

- ``model``: :class:`Rules` and :func:`load` (a checked ruleset turned into something to run).
- ``results``: what a check gives (:class:`CheckResult`) and its odds (:class:`CheckOdds`).
- ``runstate``: the state of one run of a check or procedure.
- ``entities``, ``yamlfile``: characters and other entities, read from YAML.
- ``entries``, ``amendments``, ``listed``: entries an entity owns, what they change and list.
- ``inline``: a used procedure's lines brought in place (``do NAME as LABEL``).
- ``procedures``: running a procedure's lines, and the drivers that make its choices.
"""

from interpreter.core.values import Level
from interpreter.rules.model import Rules, load
from interpreter.rules.results import CheckOdds, CheckResult

__all__ = ["CheckOdds", "CheckResult", "Level", "Rules", "load"]
