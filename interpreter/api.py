"""The embedding API for expressions: ``roll`` and ``odds``.

>>> roll("4d6kh3", dice=[6, 2, 5, 1]).total
13
>>> odds("2d6")[7]
Fraction(1, 6)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import attrs

from runebook.dsl import expr_ast as ex
from runebook.interpreter.core.arguments import one_dice_source, require_text
from runebook.interpreter.core.dice import GivenOracle, RandomOracle
from runebook.interpreter.core.distribution import Distribution
from runebook.interpreter.core.distribution import odds as _odds
from runebook.interpreter.core.evaluate import CompiledExpression, compile_expression, evaluate
from runebook.interpreter.core.limits import DEFAULT_LIMITS, Limits
from runebook.interpreter.core.notation import DEFAULT_DIALECT
from runebook.interpreter.core.render import roll_text
from runebook.interpreter.core.trace import Trace
from runebook.interpreter.core.values import json_value
from runebook.interpreter.rules.results import JsonResult

__all__ = ["RollResult", "odds", "roll"]

#: The generator of rolls made without ``seed``, ``dice`` or ``rng``: seeded from the
#: operating system once, at import. Seeding a new generator per call costs more than the
#: roll itself. ``random.Random`` draws are atomic under the GIL, so concurrent callers
#: share it safely (their rolls interleave, none is lost or repeated).
_DEFAULT_RNG = random.Random()


@attrs.frozen
class RollResult(JsonResult):
    """One roll: the expression, its value (``total``) and the trace of how it came out."""

    expression: str
    total: Any
    trace: Trace = attrs.field(repr=False)

    @property
    def dice(self) -> list[Any]:
        """Every face rolled, in the order they were consumed."""
        return [d.face for d in self.trace.dice()]

    def text(self, trace: str = "full") -> str:
        """What ``runebook roll`` prints: the expression, the trace (``trace``: full, brief or
        none) and the total."""
        return roll_text(self, trace)

    def __str__(self) -> str:
        return self.text()

    def to_dict(self) -> dict[str, Any]:
        return {
            "expression": self.expression,
            "total": json_value(self.total),
            "dice": self.dice,
            "trace": self.trace.to_list(),
        }


def _compiled(expr: str | ex.Expr | CompiledExpression, limits: Limits, dialect: str) -> CompiledExpression:
    if isinstance(expr, CompiledExpression):
        return expr
    if not isinstance(expr, ex.Expr):
        require_text(expr, "an expression")
    return compile_expression(expr, limits=limits, dialect=dialect)


def _limits(limits: Limits, max_dice: int | None) -> Limits:
    if max_dice is None:
        return limits
    if type(max_dice) is not int or max_dice < 1:
        raise ValueError(f"max_dice must be a whole number of at least 1, not {max_dice!r}")
    return attrs.evolve(limits, max_dice=max_dice)


def roll(expr: str | ex.Expr | CompiledExpression, *, seed: int | None = None,
         dice: Sequence[int] | None = None, env: Any = None, limits: Limits = DEFAULT_LIMITS,
         rng: random.Random | None = None, dialect: str = DEFAULT_DIALECT,
         max_dice: int | None = None) -> RollResult:
    """Roll an expression: with a seeded ``random.Random`` (``seed``), with faces the
    player rolled (``dice``, consumed in the order the trace shows), or at random (one
    generator shared by every such call, seeded once; pass ``rng`` for your own). One of
    ``seed``, ``dice`` and ``rng`` at most (else ``ValueError``).

    ``env`` maps names to values (numbers, records, tables, functions, pools).
    ``dialect`` (``runebook``, ``roll20``, ``foundry`` or ``avrae``) chooses how notation
    those tools read differently is read; ``max_dice`` bounds the dice one roll may roll
    (explosions and rerolls included; default ``limits.max_dice``, 10,000).
    Raises :class:`~dsl.diagnostics.RunebookError` on a bad expression or bad dice.
    """
    one_dice_source(seed, dice, rng)
    limits = _limits(limits, max_dice)
    compiled = _compiled(expr, limits, dialect)
    if dice is not None:
        oracle: Any = GivenOracle(list(dice), compiled.source)
    else:
        if rng is None:
            rng = _DEFAULT_RNG if seed is None else random.Random(seed)
        oracle = RandomOracle(rng)
    total, trace = evaluate(compiled, env, oracle=oracle, limits=limits)
    assert trace is not None
    return RollResult(compiled.text, total, trace)


def odds(expr: str | ex.Expr | CompiledExpression, *, env: Any = None,
         limits: Limits = DEFAULT_LIMITS, dialect: str = DEFAULT_DIALECT,
         max_dice: int | None = None) -> Distribution:
    """The exact distribution of an expression: a mapping outcome → ``Fraction``, with
    ``residual`` (the probability not listed; ``0`` when exact). ``dialect`` and
    ``max_dice`` as for :func:`roll`."""
    limits = _limits(limits, max_dice)
    return _odds(_compiled(expr, limits, dialect), env, limits=limits)
