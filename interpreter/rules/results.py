"""What resolving a check and computing its odds give: :class:`CheckResult` and
:class:`CheckOdds` (re-exported by :mod:`interpreter.rules`; the odds of a procedure,
:class:`interpreter.markov.chains.ProcedureOdds`, extend the latter).
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import attrs

from runebook.interpreter.core.distribution import Distribution
from runebook.interpreter.core.render import odds_text, result_text
from runebook.interpreter.core.trace import Trace
from runebook.interpreter.core.values import format_value, fraction_text, json_value

__all__ = ["CheckOdds", "CheckResult", "JsonResult"]


class JsonResult:
    """A result that prints as ``--json`` does: :meth:`to_json` is its ``to_dict()`` as
    indented JSON."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """The result as plain data (JSON-serialisable): what ``--json`` prints, parsed."""
        raise NotImplementedError

    def to_json(self) -> str:
        """What ``--json`` prints: :meth:`to_dict` as indented JSON."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)


@attrs.frozen
class CheckResult(JsonResult):
    """One resolution of a check: each named result and how it came about."""

    check: str
    results: dict[str, Any]
    trace: Trace = attrs.field(repr=False)
    inputs: dict[str, Any] = attrs.Factory(dict)
    options: dict[str, str] = attrs.Factory(dict)

    @property
    def shown(self) -> dict[str, Any]:
        """The values the check's ``show`` lines gave (interpreter.rules.shown)."""
        from runebook.interpreter.rules.shown import shown_values  # reads statements: the AST, loaded when needed

        return shown_values(self.trace)

    def text(self, trace: str = "full", title: str | None = None) -> str:
        """What ``runebook resolve`` prints: a title (by default the check with its inputs),
        the trace (``trace``: full, brief or none), each result and each value shown."""
        if title is None:
            title = f"{self.check}({', '.join(f'{k}={format_value(v)}' for k, v in self.inputs.items())})"
        return result_text(title, self, trace)

    def __str__(self) -> str:
        return self.text()

    def to_dict(self) -> dict[str, Any]:
        shown = self.shown
        return {
            "check": self.check,
            "inputs": {k: json_value(v) for k, v in self.inputs.items()},
            "options": dict(self.options),
            "results": {k: json_value(v) for k, v in self.results.items()},
            **({"shown": shown} if shown else {}),
            "dice": [d.face for d in self.trace.dice()],
            "trace": self.trace.to_list(),
        }


@attrs.frozen
class CheckOdds(JsonResult):
    """The exact distribution of each named result of a check (and their joint one)."""

    check: str
    results: dict[str, Distribution]
    joint: Distribution = attrs.field(repr=False)
    inputs: dict[str, Any] = attrs.Factory(dict)
    options: dict[str, str] = attrs.Factory(dict)

    @property
    def residual(self) -> Fraction:
        return self.joint.residual

    def text(self, title: str | None = None, *, unicode: bool = True) -> str:
        """What ``runebook odds`` prints: a table per result, titled ``TITLE: RESULT`` (by
        default the check's or procedure's name); ``unicode=False`` draws bars in ``#``."""
        return odds_text(self.check if title is None else title, self.results, unicode=unicode)

    def __str__(self) -> str:
        return self.text()

    def to_dict(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "inputs": {k: json_value(v) for k, v in self.inputs.items()},
            "options": dict(self.options),
            "results": {
                name: {_key(k): _fraction(p) for k, p in dist.items()}
                for name, dist in self.results.items()
            },
            "residual": _fraction(self.residual),
        }


def _key(value: Any) -> str:
    """An outcome as a JSON object key: as JSON would write it (`true`, `null`, `7`, `Low`)."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    return str(json_value(value))


def _fraction(value: Fraction) -> str:
    return fraction_text(Fraction(value))
