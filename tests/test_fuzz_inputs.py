"""A short, derandomized fuzz pass over dice strings, .rules text and YAML (issue 15).

The strategies and targets are those of the long run (``python -m benchmarks.fuzz``): only
:class:`~dsl.diagnostics.RunebookError` may escape, and no input may take more than 2 s.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from benchmarks.fuzz import TARGETS, dice_text, rules_text, run_one, yaml_text

_SETTINGS = settings(max_examples=60, derandomize=True, database=None, deadline=None,
                     suppress_health_check=list(HealthCheck))


def _probe(target: str, text: str) -> None:
    _wall, cpu, error = run_one(target, text)
    if error is not None:
        raise error
    assert cpu < 2, f"{target} input took {cpu:.2f} s of CPU: {text[:200]!r}"


@_SETTINGS
@given(dice_text())
def test_fuzz_dice_strings(text: str) -> None:
    _probe("dice", text)


@_SETTINGS
@given(rules_text())
def test_fuzz_rules_text(text: str) -> None:
    _probe("rules", text)


@_SETTINGS
@given(yaml_text())
def test_fuzz_yaml_characters(text: str) -> None:
    _probe("yaml", text)


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_the_fuzzer_sees_a_crash(target: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A target that raises something other than RunebookError is reported as a failure."""
    def broken(text: str) -> None:
        raise ZeroDivisionError(text)

    monkeypatch.setitem(TARGETS, target, (TARGETS[target][0], broken))
    _, _, error = run_one(target, "1d6")
    assert isinstance(error, ZeroDivisionError)


#: Inputs the long run found, kept as regressions.
FOUND = [("dice", "floor([6, 100, true])"), ("dice", "clamp([1, 2], 3)"), ("dice", "abs([1, 2])"),
         ("dice", "(-(0d%x<=6!<=20))"), ("dice", "0d%x<=20")]


def test_no_dice_that_would_all_explode_sum_to_nothing() -> None:
    """Found by the 30-minute run of 2026-11-27: zero dice whose every face explodes
    crashed the power series (it read one die's series, empty there, before seeing n = 0)."""
    from runebook.interpreter.api import odds

    assert dict(odds("0d%x<=20")) == {0: 1}
    assert dict(odds("0d%x<=6!<=20 + 2")) == {2: 1}


@pytest.mark.parametrize(("target", "text"), FOUND)
def test_inputs_found_by_the_long_run(target: str, text: str) -> None:
    _probe(target, text)
