"""An embedder's call that gives a keyword the call does not take as an input: the refusal
says where it belongs (``limits`` to ``load``, ``seed`` and ``dice`` to ``resolve`` and ``run``)."""

from __future__ import annotations

import pytest

from runebook import RunebookError, load


@pytest.mark.parametrize(("keyword", "said"), [("limits", "load(game, limits=Limits(...))"),
                                               ("seed", "resolve and run take one"),
                                               ("dice", "resolve and run take them"),
                                               ("rng", "rng=random.Random")])
def test_odds_given_a_keyword_of_another_call(keyword: str, said: str) -> None:
    rules = load("questworlds")
    with pytest.raises(RunebookError) as caught:
        rules.odds("contest", ability=15, resistance=14, **{keyword: 1})
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.code == "E0604" and said in (diagnostic.help or "")


def test_a_misspelt_input_is_still_suggested_first() -> None:
    with pytest.raises(RunebookError) as caught:
        load("questworlds").odds("contest", ability=15, resistanse=14)
    assert any("did you mean 'resistance'" in (d.help or "") for d in caught.value.diagnostics)
