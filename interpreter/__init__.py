"""Runebook's interpreter: evaluation, dice, exact odds and the ``runebook`` command.

The embedding API (importing it has no side effects):

- ``roll(expr, *, seed=None, dice=None)``: roll an expression; ``.total`` and ``.trace``.
- ``odds(expr)``: its exact distribution, a mapping outcome → ``Fraction``.
"""

from interpreter.api import odds, roll

__all__ = ["odds", "roll"]
