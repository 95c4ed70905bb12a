"""`mentions(text, NAME)` (the entry-text builtins): whether a text names a condition, a level
or a text as whole words, any case, as `impose` finds a condition in it."""

from __future__ import annotations

import pytest

import runebook

GAME = """\
uses entry text

condition Grabbed ()
condition Restrained ()
levels Mood: calm < angry

check Probe (t: text = "The target is grabbed and ANGRY.")
  result grabbed = mentions(t, Grabbed)
  result restrained = mentions(t, Restrained)
  result angry = mentions(t, angry)
  result words = mentions(t, "the  target")
  result part = mentions(t, "grab")
"""


def test_a_text_names_conditions_levels_and_words_as_whole_words() -> None:
    results = runebook.load_text(GAME).resolve("Probe").results
    assert results == {"grabbed": True, "restrained": False, "angry": True, "words": True, "part": False}


def test_without_the_group_the_name_is_unknown_and_the_help_names_the_group() -> None:
    with pytest.raises(runebook.RunebookError) as error:
        runebook.load_text(GAME.replace("uses entry text\n", ""))
    first = error.value.diagnostics[0]
    assert first.code == "E0412" and "add a line 'uses entry text'" in (first.help or "")


def test_a_name_that_is_not_a_text_is_refused() -> None:
    rules = runebook.load_text(GAME.replace('mentions(t, "grab")', "mentions(t, 3)"))
    with pytest.raises(runebook.RunebookError) as error:
        rules.resolve("Probe")
    assert error.value.diagnostics[0].code == "E0405" and "as the name to look for" in error.value.diagnostics[0].message
