"""Odds of any expression over the results of a check or a procedure (``odds ... --of EXPR``).

Exact odds give the joint distribution of every named result of a run (``CheckOdds.joint``).
An expression over those names — ``outcome == victory and degree >= major``, or
``points - opposition_points`` — has a distribution too: each joint outcome is one world in
which the results are bound by name (in front of the run's inputs and the game's names:
levels, tables, functions, options as the run set them), and the expression's value in that
world takes the world's probability. Several expressions give their joint distribution, an
an outcome being the list of their values (``[victory, major]``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import attrs

from runebook.dsl.parser import parse_expression
from runebook.dsl.source import Source
from runebook.interpreter.core.distribution import Distribution
from runebook.interpreter.core.evaluate import Context, MapEnv, Undetermined, compile_expression
from runebook.interpreter.core.values import format_value
from runebook.interpreter.rules.results import _fraction, _key
from runebook.interpreter.rules.runstate import RunState

__all__ = ["OddsOf", "distribution_of", "odds_of"]


@attrs.frozen
class OddsOf:
    """The distribution of one expression (or the joint one of several) over a run's results."""

    name: str
    expressions: tuple[str, ...]
    distribution: Distribution

    @property
    def title(self) -> str:
        return f"{self.name}: " + (self.expressions[0] if len(self.expressions) == 1
                                     else "[" + ", ".join(self.expressions) + "]")

    def to_dict(self) -> dict[str, Any]:
        return {
            "of": list(self.expressions),
            "distribution": {_outcome_key(k): _fraction(p) for k, p in self.distribution.items()},
            "residual": _fraction(self.distribution.residual),
        }


def _outcome_key(value: Any) -> str:
    """A JSON key: a value as results write it; several as the language writes a list."""
    return format_value(value) if isinstance(value, tuple) else _key(value)


def odds_of(rules: Any, odds: Any, expressions: Sequence[str], options: Mapping[str, Any] | None = None) -> OddsOf:
    """The distribution of ``expressions`` over ``odds`` (a check's or a procedure's odds):
    one expression's values, or the joint values of several. A name the expression reads
    that is neither a result, an input nor a game name is a diagnostic at the ``--of`` text."""
    compiled = []
    for text in expressions:
        source = Source("--of", text)
        compiled.append(compile_expression(parse_expression(text, source), source, limits=rules.limits))
    return OddsOf(odds.check, tuple(expressions), distribution_of(rules, odds, compiled, options))


def distribution_of(rules: Any, odds: Any, compiled: Sequence[Any], options: Mapping[str, Any] | None = None) -> Distribution:
    """The distribution of compiled expressions over ``odds``' joint results (one value, or a
    tuple of several), each evaluated once per joint outcome."""
    names = list(odds.results)
    inputs = MapEnv({**dict(odds.inputs), **dict.fromkeys(getattr(odds, "never_set", ()))}, parent=rules.globals)
    outcomes: dict[Any, Fraction] = {}
    unknown = odds.joint.residual
    for values, p in odds.joint.items():
        env = MapEnv(dict(zip(names, values)), parent=inputs)
        ctx = Context(limits=rules.limits)
        ctx.run = RunState(options=options)
        try:
            found = [ctx.result(ctx.evaluate(c, env)) for c in compiled]
        except Undetermined:
            # A result cut at its tail (`10+` of an exploding pool): what the expression gives
            # there is not known, as the tail's own outcomes are not.
            unknown += p
            continue
        key = found[0] if len(found) == 1 else tuple(found)
        outcomes[key] = outcomes.get(key, Fraction(0)) + p
    return Distribution(outcomes, unknown, getattr(odds.joint, "note", None))
